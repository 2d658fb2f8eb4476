"""Random full-match playouts through the public API, timed per action and per match.

Run: ``python benchmarks/playout.py [--matches N] [--repeats R]``. Prints medians of
R repeats: microseconds per player action (bids and plays, with the random choice
and ``legal_actions`` included, as a bot would call them), microseconds per
chance action (the seeded deal), and full matches per second of the same loop
with no clock read inside it.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from backalley import Deal, Rules, apply, legal_actions, new_match


def playout(
    rules: Rules,
    seed: int,
    rng: random.Random,
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[float, int, float, int]:
    """One match; seconds and count of player actions, then of chance actions."""
    state = new_match(rules, seed=seed)
    player_time = chance_time = 0.0
    players = chances = 0
    choice = rng.choice
    while not state.is_over:
        start = clock()
        actions = legal_actions(state)
        action = choice(actions)
        state = apply(state, action)
        spent = clock() - start
        if type(action) is Deal:
            chance_time += spent
            chances += 1
        else:
            player_time += spent
            players += 1
    return player_time, players, chance_time, chances


def untimed(rules: Rules, seed: int, matches: int) -> float:
    """Matches per second of the bare loop, no clock read inside it."""
    start = time.perf_counter()
    for index in range(matches):
        choice = random.Random(seed + index).choice
        state = new_match(rules, seed=seed + index)
        while not state.is_over:
            state = apply(state, choice(legal_actions(state)))
    return matches / (time.perf_counter() - start)


def run(matches: int, seed: int) -> dict[str, float]:
    """Play ``matches`` standard matches twice, timed by action and untimed; one repeat."""
    rules = Rules()
    rng = random.Random(seed)
    totals = [0.0, 0, 0.0, 0]
    for index in range(matches):
        for i, value in enumerate(playout(rules, seed + index, rng)):
            totals[i] += value
    return {
        "us_per_player_action": totals[0] / totals[1] * 1e6,
        "us_per_chance_action": totals[2] / totals[3] * 1e6,
        "matches_per_second": untimed(rules, seed, matches),
    }


def main() -> None:
    """Run the repeats and print the medians."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    runs = [run(args.matches, args.seed) for _ in range(args.repeats)]
    for key in runs[0]:
        print(f"{key:24} {statistics.median(r[key] for r in runs):10.2f}")


if __name__ == "__main__":
    main()
