"""Our random playout beside OpenSpiel's ``oh_hell`` driven from Python, in one run.

Run: ``pip install -e '.[bench]'`` then ``python benchmarks/compare_openspiel.py``.

Both loops do the same thing per player action: ask for the legal actions, pick
one with the same seeded ``random.Random.choice``, apply it. Each action is timed
on its own, so chance actions (our seeded deal; OpenSpiel's card-by-card deal)
are counted apart from player actions. The machine is noisy: each figure is the
median of several repeats, and the ratio is taken from the same run.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time

from playout import playout  # the timed loop, shared with benchmarks/playout.py

from backalley import Rules

OPENSPIEL_GAME = "oh_hell(players=4,num_tricks_fixed=12)"


def ours(matches: int, seed: int) -> tuple[float, float]:
    """Microseconds per player action and per chance action over ``matches`` matches."""
    rules = Rules()
    rng = random.Random(seed)
    totals = [0.0, 0, 0.0, 0]
    for index in range(matches):
        for i, value in enumerate(playout(rules, seed + index, rng)):
            totals[i] += value
    return totals[0] / totals[1] * 1e6, totals[2] / totals[3] * 1e6


def openspiel(games: int, seed: int) -> tuple[float, float]:
    """The same loop on OpenSpiel's Oh Hell through pyspiel."""
    import pyspiel  # noqa: PLC0415 -- optional: only this comparison needs it

    game = pyspiel.load_game(OPENSPIEL_GAME)
    choice = random.Random(seed).choice
    clock = time.perf_counter
    player = chance = 0.0
    players = chances = 0
    for _ in range(games):
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


def main() -> None:
    """Run both loops, alternating, and print medians and the ratio."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=20, help="our 26-deal matches a repeat")
    parser.add_argument("--games", type=int, default=300, help="OpenSpiel games a repeat")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    our_player, our_chance, their_player, their_chance, ratios = [], [], [], [], []
    for repeat in range(args.repeats):
        # Alternate the two so that a noisy moment hurts both alike.
        mine = ours(args.matches, args.seed + repeat)
        theirs = openspiel(args.games, args.seed + repeat)
        our_player.append(mine[0])
        our_chance.append(mine[1])
        their_player.append(theirs[0])
        their_chance.append(theirs[1])
        ratios.append(mine[0] / theirs[0])
    median = statistics.median
    print(f"python {platform.python_version()} on {platform.machine()}, {sys.platform}")
    print(f"{'':34}{'backalley':>12}{'OpenSpiel':>12}")
    for label, mine_, theirs_ in (
        ("us per player action (median)", our_player, their_player),
        ("us per chance action (median)", our_chance, their_chance),
    ):
        print(f"{label:34}{median(mine_):12.2f}{median(theirs_):12.2f}")
    print(
        f"ratio of us per player action, ours / OpenSpiel's: {median(ratios):.2f} "
        f"(repeats: {', '.join(f'{r:.2f}' for r in ratios)})"
    )


if __name__ == "__main__":
    main()
