"""Measure the double-dummy solver: random deals solved from the first lead, as DDS reports it.

For each hand size asked, deals ``--deals`` random deals (seeded shuffles, random
legal bids, a thrown-in deal redealt), then times ``solve(state)`` at the first
lead: every legal card of the opening leader valued exactly. Prints the median,
95th percentile and maximum CPU time per deal (``time.process_time``, so other
programs on a shared machine do not count), the search's nodes, and whether the
build is compiled.

    python benchmarks/solve_speed.py --sizes 7 13 --deals 200
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import backalley
from backalley import MatchState, Phase, Rules, apply, legal_actions, new_match
from backalley.core.position import to_move
from backalley.engine.state import position_of
from backalley.solver import Search, solve_position


def first_leads(size: int, deals: int, seed: int) -> list[MatchState]:
    """``deals`` random deals of ``size`` cards, each at its first lead."""
    rng = random.Random(seed)
    found = []
    while len(found) < deals:
        state = new_match(Rules(schedule=[size]), seed=rng.randrange(2**32))
        while state.phase is not Phase.PLAY:
            options = legal_actions(state)
            state = apply(state, options[rng.randrange(len(options))])
        found.append(state)
    return found


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[7, 13])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    build = "compiled" if backalley.__compiled__ else "pure Python"
    print(f"backalley {backalley.__version__}, {build}")
    for size in args.sizes:
        times = []
        nodes = []
        for state in first_leads(size, args.deals, args.seed + size):
            pos = position_of(state)
            search = Search.of(pos, to_move(pos) % 2)
            start = time.process_time()
            solve_position(pos, search)
            times.append(time.process_time() - start)
            nodes.append(search.nodes)
        ms = [1000 * t for t in times]
        print(
            f"{size:2d} cards, {len(ms)} deals: median {statistics.median(ms):.1f} ms, "
            f"p95 {percentile(ms, 0.95):.1f} ms, max {max(ms):.1f} ms; "
            f"nodes median {statistics.median(nodes):.0f}"
        )


if __name__ == "__main__":
    main()
