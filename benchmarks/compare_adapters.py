"""The framework adapters beside the core, in one run: microseconds per player action.

Run: ``pip install -e '.[bench,pettingzoo]'`` then ``python benchmarks/compare_adapters.py``.

Every loop plays random standard matches and does the same per player action:
ask for the legal actions, pick one with a seeded ``random.Random``, apply it.

- ``core``: ``legal_actions`` + ``choice`` + ``apply`` (the loop of ``playout.py``);
- ``openspiel``: ``python_back_alley`` through pyspiel, ``state.legal_actions()`` +
  ``choice`` + ``state.apply_action``;
- ``pettingzoo``: the raw AEC environment, ``env.action_mask(agent)`` (the mask
  alone) + ``choice`` among its set positions + ``env.step``;
- ``pettingzoo+obs``: the same with ``env.last()``, the full observation, as
  PettingZoo's usual loop asks for it;
- ``oh_hell``: OpenSpiel's C++ Oh Hell (``compare_openspiel.py``), the peer.

Chance actions are timed apart (our card-by-card OpenSpiel deal; the core's and
PettingZoo's seeded deals happen inside ``apply``/``step`` after the last card of
a deal, so those loops include them). Medians of several repeats, the loops
alternating so that a noisy moment hurts all alike; ratios are to the core's
figure of the same repeat.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time

from compare_openspiel import OPENSPIEL_GAME
from playout import playout

from backalley import Rules


def core(matches: int, seed: int) -> float:
    rng = random.Random(seed)
    spent = 0.0
    count = 0
    for index in range(matches):
        player_time, players, chance_time, _ = playout(Rules(), seed + index, rng)
        # The seeded deal is a chance action of its own here: leave it out, as for OpenSpiel.
        spent += player_time
        count += players
        del chance_time
    return spent / count * 1e6


def openspiel(matches: int, seed: int, name: str) -> tuple[float, float]:
    import pyspiel  # noqa: PLC0415 -- optional

    import backalley.openspiel  # noqa: F401, PLC0415 -- registers python_back_alley

    game = pyspiel.load_game(name)
    choice = random.Random(seed).choice
    clock = time.perf_counter
    player = chance = 0.0
    players = chances = 0
    for _ in range(matches):
        state = game.new_initial_state()
        while not state.is_terminal():
            start = clock()
            if state.is_chance_node():
                state.apply_action(choice(state.chance_outcomes())[0])
                chance += clock() - start
                chances += 1
            else:
                state.apply_action(choice(state.legal_actions()))
                player += clock() - start
                players += 1
    return player / players * 1e6, chance / chances * 1e6


def pettingzoo(matches: int, seed: int, observe: bool) -> float:
    import numpy as np  # noqa: PLC0415 -- optional

    import backalley.pettingzoo as bp  # noqa: PLC0415 -- optional

    env = bp.raw_env()
    choice = random.Random(seed).choice
    clock = time.perf_counter
    flat = np.flatnonzero
    spent = 0.0
    count = 0
    for index in range(matches):
        env.reset(seed=seed + index)
        while not (env.terminations["north"] or env.truncations["north"]):
            start = clock()
            agent = env.agent_selection
            mask = env.last()[0]["action_mask"] if observe else env.action_mask(agent)
            env.step(choice(flat(mask).tolist()))
            spent += clock() - start
            count += 1
    return spent / count * 1e6


def main() -> None:
    """Run the loops, alternating, and print medians and ratios to the core."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=6, help="standard matches a repeat")
    parser.add_argument("--games", type=int, default=200, help="oh_hell games a repeat")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rows: dict[str, list[float]] = {
        "core": [],
        "openspiel": [],
        "openspiel chance (a card)": [],
        "pettingzoo": [],
        "pettingzoo+obs": [],
        "oh_hell (C++)": [],
    }
    ratios: dict[str, list[float]] = {"openspiel": [], "pettingzoo": [], "pettingzoo+obs": []}
    for repeat in range(args.repeats):
        seed = args.seed + repeat
        base = core(args.matches, seed)
        ours, chance = openspiel(args.matches, seed, "python_back_alley")
        zoo = pettingzoo(args.matches, seed, observe=False)
        zoo_obs = pettingzoo(args.matches, seed, observe=True)
        theirs, _ = openspiel(args.games, seed, OPENSPIEL_GAME)
        for key, value in (
            ("core", base),
            ("openspiel", ours),
            ("openspiel chance (a card)", chance),
            ("pettingzoo", zoo),
            ("pettingzoo+obs", zoo_obs),
            ("oh_hell (C++)", theirs),
        ):
            rows[key].append(value)
        for key, value in (("openspiel", ours), ("pettingzoo", zoo), ("pettingzoo+obs", zoo_obs)):
            ratios[key].append(value / base)
    median = statistics.median
    print(f"python {platform.python_version()} on {platform.machine()}, {sys.platform}")
    print(f"{'us per player action (median)':34}{'us':>10}{'x core':>10}")
    for key, values in rows.items():
        ratio = f"{median(ratios[key]):10.2f}" if key in ratios else ""
        print(f"{key:34}{median(values):10.2f}{ratio}")
    for key, values in ratios.items():
        print(f"ratio {key}/core, repeats: {', '.join(f'{r:.2f}' for r in values)}")


if __name__ == "__main__":
    main()
