"""The Monte Carlo player's CPU time and machine instructions per decision, on fixed decisions.

Plays ``--matches`` seeded matches of a Monte Carlo pair against the heuristic pair
(the player's default settings) and keeps every decision the Monte Carlo seats
made: the seated player, its view and its legal actions. Those decisions are then
made again, so every build and every version of the player is timed on the same
positions (a player whose decisions are unchanged also plays the same matches).

    python benchmarks/montecarlo_speed.py --schedule short --repeats 5
    python benchmarks/montecarlo_speed.py --instructions --tree OLD/src --tree NEW/src

The first prints the CPU time (``time.process_time``, one process) per decision,
mean over the decisions, median of the repeats. The second counts instructions
under valgrind's callgrind, for this interpreter with each ``--tree`` on its path
(or for each ``--python``, such as a virtual environment with the compiled
wheel): the difference between replaying the decisions twice and once, so that
start-up, imports and playing the matches cancel out; load cannot move it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from instructions import callgrind_count

HERE = Path(__file__).resolve().parent


def decisions(matches: int, schedule: str) -> list[tuple[Any, Any, Any]]:
    """Every decision of the Monte Carlo seats in ``matches`` seeded matches."""
    from backalley import Rules  # noqa: PLC0415 - after the worker's path is set
    from backalley.players import HeuristicPlayer, MonteCarloPlayer, play_match  # noqa: PLC0415

    kept: list[tuple[Any, Any, Any]] = []

    class Recorded:
        def __init__(self, player: Any) -> None:
            self.player = player

        def for_seat(self, seat: Any, seed: int) -> Recorded:
            return Recorded(self.player.for_seat(seat, seed))

        def __call__(self, view: Any, legal: Any) -> Any:
            kept.append((self.player, view, legal))
            return self.player(view, legal)

    for seed in range(matches):
        players = [Recorded(MonteCarloPlayer()), HeuristicPlayer()] * 2
        play_match(players, Rules(schedule=schedule), seed=seed)
    return kept


def replay(kept: list[tuple[Any, Any, Any]], passes: int) -> None:
    for _ in range(passes):
        for player, view, legal in kept:
            player(view, legal)


def counted(python: str, env: dict[str, str], matches: int, schedule: str, passes: int) -> int:
    """Instructions executed by one worker run under callgrind."""
    worker = ["--worker", str(passes), "--matches", str(matches), "--schedule", schedule]
    return callgrind_count([python, __file__, *worker], env)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--schedule", default="short")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--instructions", action="store_true", help="count under callgrind")
    parser.add_argument("--tree", action="append", default=[], help="a source tree to count")
    parser.add_argument("--python", action="append", default=[], help="an interpreter to count")
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        kept = decisions(args.matches, args.schedule)
        replay(kept, args.worker)
        print(len(kept))
        return
    if not args.instructions:
        kept = decisions(args.matches, args.schedule)
        means = []
        for _ in range(args.repeats):
            start = time.process_time()
            replay(kept, 1)
            means.append(1000 * (time.process_time() - start) / len(kept))
        shown = ", ".join(f"{mean:.2f}" for mean in means)
        print(
            f"{len(kept)} decisions ({args.matches} {args.schedule} matches): CPU ms per "
            f"decision, median of {args.repeats} repeats {statistics.median(means):.2f} ({shown})"
        )
        return
    base = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    runs = [(tree, sys.executable, {**base, "PYTHONPATH": tree}) for tree in args.tree]
    runs.extend((python, python, base) for python in args.python)
    for label, python, env in runs:
        twice = counted(python, env, args.matches, args.schedule, 2)
        once = counted(python, env, args.matches, args.schedule, 1)
        worker = ["--worker", "0", "--matches", str(args.matches), "--schedule", args.schedule]
        done = subprocess.run(
            [python, __file__, *worker],
            capture_output=True,
            text=True,
            env=env,
            cwd=HERE,
            check=True,
        )
        count = int(done.stdout)
        print(f"{label:48} {(twice - once) / count:12.0f} instructions per decision ({count})")


if __name__ == "__main__":
    main()
