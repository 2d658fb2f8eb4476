"""Measure how often a heuristic pair beats a random pair, and how fast matches are played.

Plays N matches with the heuristic players as North-South against random
East-West, and N with the seats swapped, each match seeded from the run seed
and its index (``backalley.players.simulation``). Prints the heuristic pair's wins,
draws and win rate with its 95% Wilson interval, and matches per second.

    python benchmarks/heuristic_vs_random.py --matches 1000 --schedule standard --jobs 2
"""

from __future__ import annotations

import argparse
import time

from backalley import Rules
from backalley.players.simulation import Summary, simulate, wilson_interval


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=500, help="matches per seating")
    parser.add_argument("--schedule", default="standard")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    rules = Rules(schedule=args.schedule)
    start = time.perf_counter()
    as_ns = simulate(
        "heuristic", "random", rules, seed=args.seed, matches=args.matches, jobs=args.jobs
    )
    as_ew = simulate(
        "random", "heuristic", rules, seed=args.seed + 1, matches=args.matches, jobs=args.jobs
    )
    elapsed = time.perf_counter() - start
    _report("heuristic North-South", as_ns, 0)
    _report("heuristic East-West", as_ew, 1)
    wins = as_ns.pairs[0].wins + as_ew.pairs[1].wins
    draws = as_ns.draws + as_ew.draws
    total = as_ns.matches + as_ew.matches
    low, high = wilson_interval(wins, total)
    print(
        f"all: heuristic pair won {wins} of {total} ({wins / total:.1%}, 95% CI "
        f"{low:.1%}-{high:.1%}), {draws} draws"
    )
    rate = total / elapsed
    print(f"{total} matches in {elapsed:.1f} s: {rate:.1f} matches/s with {args.jobs} job(s)")


def _report(label: str, summary: Summary, pair: int) -> None:
    mine = summary.pairs[pair]
    low, high = mine.win_interval
    print(
        f"{label}: won {mine.wins} of {summary.matches} ({mine.wins / summary.matches:.1%}, "
        f"95% CI {low:.1%}-{high:.1%}), {summary.draws} draws, average score "
        f"{mine.average_score:.1f} against {summary.pairs[1 - pair].average_score:.1f}"
    )


if __name__ == "__main__":
    main()
