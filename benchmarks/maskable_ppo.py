"""Train South with sb3-contrib's MaskablePPO against random players, then measure its win rate.

The environment is ``backalley.pettingzoo.SeatEnv`` as it comes: MaskablePPO
reads the legal actions from its ``action_masks()`` method, so no wrapper is
needed. South learns with a random partner (North) against random East-West,
rewarded per deal (its pair's score minus the other pair's); then it plays
``--matches`` seeded matches with its deterministic policy, and a random South
plays the same seeds, and the North-South win rates are printed with their 95%
Wilson intervals, with the steps and wall time of training.

With ``--lanes N`` South trains on ``backalley.batch.sb3.SeatVecEnv`` instead: N
matches of the batch engine in one compiled step, the other seats uniformly
random legal players inside it (as ``RandomPlayer`` plays), MaskablePPO
collecting ``2048 // N`` steps a lane per update (2,048 a rollout, as with one
environment); the evaluation is the same.

    pip install 'backalley[pettingzoo,rl]' torch  # a CPU build of torch is enough
    python benchmarks/maskable_ppo.py --steps 50000 --matches 1000
    python benchmarks/maskable_ppo.py --steps 50000 --matches 1000 --lanes 64  # with [batch]
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.evaluation import evaluate_policy

from backalley import Seat
from backalley.pettingzoo import SeatEnv
from backalley.players import RandomPlayer
from backalley.players.simulation import wilson_interval

SCHEDULE = "short"


def make_env(rewards: str = "deal") -> SeatEnv:
    """South against random players: a random partner, random opponents."""
    return SeatEnv(RandomPlayer(), seat=Seat.SOUTH, schedule=SCHEDULE, rewards=rewards)


def make_vec_env(lanes: int, seed: int) -> Any:
    """South against random players in ``lanes`` matches of the batch engine (SB3's VecEnv)."""
    from backalley.batch.sb3 import SeatVecEnv  # noqa: PLC0415 -- only --lanes needs JAX

    return SeatVecEnv(lanes, seat=Seat.SOUTH, schedule=SCHEDULE, seed=seed)


def train(steps: int, seed: int = 0, lanes: int = 0, **settings: Any) -> MaskablePPO:
    """A MaskablePPO policy trained for ``steps`` of South's actions (its defaults otherwise).

    ``lanes``: on the batch engine's SB3 VecEnv of that many lanes (0: one SeatEnv).
    """
    torch.set_num_threads(1)  # one core: the run repeats, and leaves the others free
    env = make_vec_env(lanes, seed) if lanes else make_env()
    if lanes:
        settings.setdefault("n_steps", max(1, 2048 // lanes))
    model = MaskablePPO("MultiInputPolicy", env, seed=seed, device="cpu", **settings)
    model.learn(total_timesteps=steps)
    return model


def evaluate(model: MaskablePPO | None, matches: int, seed: int) -> tuple[int, int, int]:
    """North-South's wins, draws and losses over ``matches`` seeded matches.

    With ``model`` None, South plays uniformly at random among its legal actions.
    """
    env = make_env(rewards="match")
    rng = np.random.default_rng(seed)
    wins = draws = 0
    for number in range(matches):
        observation, _ = env.reset(seed=seed + number)
        done = False
        while not done:
            masks = env.action_masks()
            if model is None:
                action = int(rng.choice(np.flatnonzero(masks)))
            else:
                chosen, _ = model.predict(observation, action_masks=masks, deterministic=True)
                action = int(chosen)
            observation, _, terminated, truncated, info = env.step(action)
            if "reason" in info:
                raise AssertionError(f"an illegal action despite the mask: {info['message']}")
            done = terminated or truncated
        outcome = env.match.outcome
        if outcome is None or outcome.winner is None:
            draws += 1
        elif outcome.winner == 0:
            wins += 1
    return wins, draws, matches - wins - draws


def _report(label: str, result: tuple[int, int, int]) -> None:
    wins, draws, losses = result
    total = wins + draws + losses
    low, high = wilson_interval(wins, total)
    print(
        f"{label}: North-South won {wins} of {total} ({wins / total:.1%}, 95% CI "
        f"{low:.1%}-{high:.1%}), {draws} draws, {losses} losses"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=50_000, help="South's actions to train on")
    parser.add_argument("--matches", type=int, default=1000, help="matches to evaluate on")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--lanes", type=int, default=0, help="train on SeatVecEnv of N lanes")
    args = parser.parse_args()
    start = time.perf_counter()
    model = train(args.steps, seed=args.seed, lanes=args.lanes)
    trained = time.perf_counter() - start
    print(f"trained {args.steps} steps in {trained:.0f} s ({args.steps / trained:.0f} steps/s)")
    # sb3-contrib's evaluate_policy passes the action masks; Stable-Baselines3's own does
    # not, and would report -1.0 (the illegal-action reward) for every episode.
    mean, spread = evaluate_policy(model, make_env(rewards="match"), n_eval_episodes=100)
    print(f"masked evaluate_policy, 100 matches: mean result {mean:+.2f} (sd {spread:.2f})")
    start = time.perf_counter()
    _report("trained South", evaluate(model, args.matches, seed=args.seed + 1))
    _report("random South ", evaluate(None, args.matches, seed=args.seed + 1))
    print(f"evaluated {2 * args.matches} matches in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
