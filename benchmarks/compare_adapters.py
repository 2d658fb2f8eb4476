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

Chance actions are timed apart: our card-by-card OpenSpiel deal on its own
line, the core's seeded deal left out of its figure. PettingZoo deals inside the
``step`` that ends a deal, so its figures include the deals (one in some 35
actions) and are set beside the core's with its deals counted in. The loops
take turns match by match, so that a noisy moment hurts all alike; each figure
is the median of the repeats, and each ratio the median of the per-repeat
ratios to the core.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time
from typing import Any

from compare_openspiel import OPENSPIEL_GAME
from playout import playout

from backalley import Rules


def core(seed: int, rng: random.Random) -> tuple[float, int, float]:
    """One match of the core's loop: seconds and count of player actions, seconds dealing."""
    player_time, players, chance_time, _ = playout(Rules(), seed, rng)
    return player_time, players, chance_time


def openspiel(game: Any, rng: random.Random) -> tuple[float, int, float, int]:
    """One game through pyspiel: seconds and count of player actions, then of chance actions."""
    choice = rng.choice
    clock = time.perf_counter
    player = chance = 0.0
    players = chances = 0
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
    return player, players, chance, chances


def pettingzoo(env: Any, seed: int, rng: random.Random, observe: bool) -> tuple[float, int]:
    """One match of the AEC environment: seconds and count of player actions."""
    import numpy as np  # noqa: PLC0415 -- optional

    choice = rng.choice
    clock = time.perf_counter
    flat = np.flatnonzero
    spent = 0.0
    count = 0
    env.reset(seed=seed)
    while not (env.terminations["north"] or env.truncations["north"]):
        start = clock()
        agent = env.agent_selection
        mask = env.last()[0]["action_mask"] if observe else env.action_mask(agent)
        env.step(choice(flat(mask).tolist()))
        spent += clock() - start
        count += 1
    return spent, count


def main() -> None:
    """Run the loops, alternating match by match, and print medians and ratios to the core."""
    import pyspiel  # noqa: PLC0415 -- optional

    import backalley.openspiel  # noqa: F401, PLC0415 -- registers python_back_alley
    import backalley.pettingzoo as bp  # noqa: PLC0415 -- optional

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=6, help="standard matches a repeat")
    parser.add_argument("--games", type=int, default=40, help="oh_hell games after each match")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    ours = pyspiel.load_game("python_back_alley")
    theirs = pyspiel.load_game(OPENSPIEL_GAME)
    env = bp.raw_env()
    names = (
        "core",
        "core, deals included",
        "openspiel",
        "openspiel chance (a card)",
        "pettingzoo",
        "pettingzoo+obs",
    )
    rows: dict[str, list[float]] = {name: [] for name in (*names, "oh_hell (C++)")}
    for repeat in range(args.repeats):
        sums = {name: [0.0, 0] for name in rows}
        for index in range(args.matches):
            # Match by match, every loop in turn, so that a noisy moment hurts all alike.
            seed = args.seed + 1000 * repeat + index
            player_time, players, chance_time = core(seed, random.Random(seed))
            timed = {
                "core": (player_time, players),
                # PettingZoo deals inside step: compare it with the core's deals counted in.
                "core, deals included": (player_time + chance_time, players),
                "pettingzoo": pettingzoo(env, seed, random.Random(seed), observe=False),
                "pettingzoo+obs": pettingzoo(env, seed, random.Random(seed), observe=True),
            }
            player, players, chance, chances = openspiel(ours, random.Random(seed))
            timed["openspiel"] = (player, players)
            timed["openspiel chance (a card)"] = (chance, chances)
            peer = [0.0, 0]
            for game in range(args.games):
                spent, count, _, _ = openspiel(theirs, random.Random(seed * 100 + game))
                peer[0] += spent
                peer[1] += count
            timed["oh_hell (C++)"] = (peer[0], int(peer[1]))
            for name, (spent, count) in timed.items():
                sums[name][0] += spent
                sums[name][1] += count
        for name, (spent, count) in sums.items():
            rows[name].append(spent / count * 1e6)
    median = statistics.median

    def ratios(name: str) -> list[float]:
        # PettingZoo's figures include its deals, so they are set beside the core's with deals.
        base = rows["core, deals included" if name.startswith("pettingzoo") else "core"]
        return [value / core_value for value, core_value in zip(rows[name], base, strict=True)]

    print(f"python {platform.python_version()} on {platform.machine()}, {sys.platform}")
    print(f"{'us per action (median of repeats)':34}{'us':>10}{'x core':>10}")
    for name, values in rows.items():
        # A chance step is not a player action: no ratio to the core's player actions.
        ratio = "" if "chance" in name else f"{median(ratios(name)):10.2f}"
        print(f"{name:34}{median(values):10.2f}{ratio}")
    for name in ("openspiel", "pettingzoo"):
        print(f"ratio {name}/core, repeats: {', '.join(f'{r:.2f}' for r in ratios(name))}")


if __name__ == "__main__":
    main()
