"""Costs that must not grow with the work: views, decisions, simulate, check (issue 13).

Run: ``python benchmarks/scaling.py [--matches N] [--repeats R] [--only NAME]``.
Every figure is the median of R repeats; the rates of one section are measured
in the same run, alternating, so that a noisy moment hurts both sides alike.

- ``views``: µs per seat view and per heuristic decision at deal 1 and at deal 40
  of a 48-deal match of 13-card hands (the same hand size at both), and their ratio.
- ``simulate``: the raw random playout of N standard matches (``legal_actions`` +
  seeded ``choice`` + ``apply``), ``simulate`` random vs random and heuristic vs
  heuristic of N matches, matches per second and the ratio to the raw playout.
- ``check``: records of N random standard matches checked per second as
  ``backalley check`` does (read the JSON, replay, compare claims), beside the
  raw playout rate of the same matches.
- ``variants``: µs per player action at deal 1 and at the last deals, in the
  standard, short and tiebreak-deal rules; and ``simulate`` of N/4 and 10 N/4
  matches, seconds and their ratio.
- ``memory``: peak resident memory of ``simulate`` of N and of 10 N matches, each
  in a fresh process, and their ratio.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

from backalley import Rules, apply, legal_actions, new_match
from backalley.engine.view import view
from backalley.formats.checking import check
from backalley.formats.records import dumps, loads, record_from_state
from backalley.players.heuristic import HeuristicPlayer
from backalley.players.simulation import simulate

clock = time.perf_counter


def raw_playout(rules: Rules, matches: int) -> float:
    """Seconds for ``matches`` random playouts (seeds 0..), the bare loop."""
    start = clock()
    for seed in range(matches):
        choice = random.Random(seed).choice
        state = new_match(rules, seed=seed)
        while not state.is_over:
            state = apply(state, choice(legal_actions(state)))
    return clock() - start


def median_of(repeats: int, *jobs: Callable[[], float]) -> list[float]:
    """Run the jobs in turn, ``repeats`` times; the median of each."""
    runs: list[list[float]] = [[] for _ in jobs]
    for _ in range(repeats):
        for slot, job in zip(runs, jobs, strict=True):
            slot.append(job())
    return [statistics.median(slot) for slot in runs]


def states_at(rules: Rules, seed: int, deals: set[int]) -> dict[int, list]:
    """The decision states of one random match at the given deal numbers (from 0)."""
    choice = random.Random(seed).choice
    state = new_match(rules, seed=seed)
    found: dict[int, list] = {deal: [] for deal in deals}
    while not state.is_over:
        number = len(state.history)
        if state.to_move is not None and number in found:
            found[number].append(state)
        state = apply(state, choice(legal_actions(state)))
    return found


def per_call(states: list, work: Callable[[object], object], loops: int) -> float:
    """µs per call of ``work`` over the states, ``loops`` passes."""
    start = clock()
    for _ in range(loops):
        for state in states:
            work(state)
    return (clock() - start) / (loops * len(states)) * 1e6


def views(args: argparse.Namespace) -> None:
    """Views and decisions at deal 1 and deal 40."""
    rules = Rules(schedule=[13] * 48)
    found = states_at(rules, 1, {0, 39})
    early, late = found[0], found[39]
    player = HeuristicPlayer()

    def seen(state: object) -> object:
        return view(state, state.to_move)  # type: ignore[attr-defined]

    def decided(state: object) -> object:
        return player(seen(state), legal_actions(state))  # type: ignore[arg-type]

    def read(state: object) -> object:
        # What a player reads of a view: its hand and the deal in progress. (Reading
        # every finished deal costs in proportion to them, as it must.)
        seat_view = seen(state)
        return seat_view.hand, seat_view.deal

    loops = 200
    for name, work in (("view", seen), ("view, hand and deal", read), ("decision", decided)):
        first, last = median_of(
            args.repeats,
            lambda work=work: per_call(early, work, loops),
            lambda work=work: per_call(late, work, loops),
        )
        print(
            f"µs per {name:18} deal 1 {first:8.2f}   deal 40 {last:8.2f}   ratio {last / first:.2f}"
        )


def simulating(args: argparse.Namespace) -> None:
    """simulate beside the raw playout of the same matches."""
    n = args.matches
    rules = Rules()

    def sim(kind: str) -> Callable[[], float]:
        def run() -> float:
            start = clock()
            simulate(kind, kind, rules, seed=1, matches=n)
            return clock() - start

        return run

    raw, rnd, heur = median_of(
        args.repeats, lambda: raw_playout(rules, n), sim("random"), sim("heuristic")
    )
    print(f"raw random playout        {n / raw:8.1f} matches/s")
    print(f"simulate random v random  {n / rnd:8.1f} matches/s   {raw / rnd:.2f} of the raw rate")
    print(f"simulate heuristic v heur {n / heur:8.1f} matches/s   {raw / heur:.2f} of the raw rate")


def checking(args: argparse.Namespace) -> None:
    """check beside the raw playout of the same matches."""
    n = args.matches
    rules = Rules()
    texts = []
    for seed in range(n):
        choice = random.Random(seed).choice
        state = new_match(rules, seed=seed)
        while not state.is_over:
            state = apply(state, choice(legal_actions(state)))
        texts.append(dumps(record_from_state(state)))

    def checked() -> float:
        start = clock()
        for text in texts:
            report = check(loads(text))
            assert report.complete and report.consistent
        return clock() - start

    raw, done = median_of(args.repeats, lambda: raw_playout(rules, n), checked)
    print(f"raw random playout  {n / raw:8.1f} matches/s")
    print(f"check               {n / done:8.1f} records/s   {raw / done:.2f} × the raw rate")


def variants(args: argparse.Namespace) -> None:
    """Per-action cost across the match and the rules; simulate N and 10 N."""
    for name, rules in (
        ("standard", Rules()),
        ("short", Rules(schedule="short")),
        ("tiebreak-deal", Rules(tie="tiebreak-deal")),
    ):
        deals = rules.deals
        found = states_at(rules, 2, {0, 1, deals - 2, deals - 1})
        early = found[0] + found[1]
        late = found[deals - 2] + found[deals - 1]
        choose = random.Random(0).choice

        def act(state: object, choose: Callable[[tuple], object] = choose) -> object:
            return apply(state, choose(legal_actions(state)))  # type: ignore[arg-type]

        first, last = median_of(
            args.repeats,
            lambda early=early, act=act: per_call(early, act, 100),
            lambda late=late, act=act: per_call(late, act, 100),
        )
        print(
            f"µs per action, {name:14} first deals {first:6.2f}   last deals {last:6.2f}"
            f"   ratio {last / first:.2f}"
        )
    n = max(1, args.matches // 4)

    def sim(count: int) -> Callable[[], float]:
        def run() -> float:
            start = clock()
            simulate("random", "random", Rules(), seed=3, matches=count)
            return clock() - start

        return run

    short, long = median_of(args.repeats, sim(n), sim(10 * n))
    print(f"simulate {n} matches {short:.2f} s, {10 * n} matches {long:.2f} s")
    print(f"ratio {long / short:.2f} (10 would be proportional)")


_PEAK = """
import resource, sys
from backalley import Rules
from backalley.players.simulation import simulate
simulate("random", "random", Rules(), seed=1, matches=int(sys.argv[1]))
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def memory(args: argparse.Namespace) -> None:
    """Peak RSS of ``simulate`` of N and of 10 N matches, each in a fresh process."""
    n = args.matches

    def peak(count: int) -> int:
        done = subprocess.run(
            [sys.executable, "-c", _PEAK, str(count)], capture_output=True, text=True, check=True
        )
        return int(done.stdout.split()[-1])

    small, large = peak(n), peak(10 * n)
    print(f"peak RSS, simulate of {n} matches {small} KiB, of {10 * n} matches {large} KiB")
    print(f"ratio {large / small:.3f}")


SECTIONS = {
    "views": views,
    "simulate": simulating,
    "check": checking,
    "variants": variants,
    "memory": memory,
}


def main() -> None:
    """Run the chosen sections."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", choices=sorted(SECTIONS), action="append")
    args = parser.parse_args()
    for name in args.only or SECTIONS:
        print(f"--- {name}")
        SECTIONS[name](args)


if __name__ == "__main__":
    main()
