"""Designs of the compact position, timed side by side: a tuple, a class, an attrs wrapper.

Run: ``python benchmarks/position_designs.py [--matches N] [--repeats R] [--compile]``.

Each design plays the same random standard matches (the same decks, the same
random choices) through its own ``deal``, ``bid`` and ``play``, from an interpreted
loop as a program calls the engine:

- ``tuple``: ``backalley.core.position``, the position as a plain tuple;
- ``class``: ``benchmarks/position_class.py``, the same fields as a final class with
  slots (a native class when compiled by mypyc);
- ``wrapper``: the tuple inside a frozen attrs class, rebuilt every action, as a
  public state wrapping the position would be.

With ``--compile`` the two position modules are also compiled by mypyc (into a
temporary copy of the package) and timed the same way. Prints, per design and
build, the median of the repeats: microseconds per action (every action, deals
included, with the legal actions and the random choice) and matches per second.
Repeats interleave the designs so that a noisy moment hurts them alike.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from operator import attrgetter, itemgetter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SOURCE = HERE.parent / "src"
DESIGNS = ("tuple", "class", "wrapper")


def _chunk_table() -> tuple[tuple[tuple[int, ...], ...], ...]:
    """``table[k][bits]``: the card numbers of the 13 bits ``bits`` of chunk ``k``."""
    offsets = tuple(tuple(i for i in range(13) if bits >> i & 1) for bits in range(1 << 13))
    return tuple(tuple(tuple(13 * k + i for i in row) for row in offsets) for k in range(5))


def cards_in(mask: int, table: tuple[tuple[tuple[int, ...], ...], ...]) -> tuple[int, ...]:
    """The card numbers of a mask, 13 bits at a time (one lookup a suit)."""
    return (
        table[0][mask & 8191]
        + table[1][mask >> 13 & 8191]
        + table[2][mask >> 26 & 8191]
        + table[3][mask >> 39 & 8191]
        + table[4][mask >> 52]
    )


def design_functions(name: str) -> tuple[Any, ...]:
    """start, phase, next_deal, legal_bids, allowed, deal, bid, play, totals of a design."""
    if name == "class":
        import position_class as C  # noqa: PLC0415 -- the design under test

        def totals(pos: Any) -> tuple[int, int]:
            return (pos.total_ns, pos.total_ew)

        phase = attrgetter("phase")
        return C.start, phase, C.next_deal, C.legal_bids, C.allowed, C.deal, C.bid, C.play, totals
    from backalley.core import position as P  # noqa: PLC0415

    if name == "tuple":
        return (
            P.start,
            itemgetter(0),
            P.next_deal,
            P.legal_bids,
            P.allowed,
            P.deal,
            P.bid,
            P.play,
            itemgetter(15, 16),
        )
    import attrs  # noqa: PLC0415

    @attrs.frozen
    class Wrapped:
        pos: Any

    def start(rules: Any) -> Wrapped:
        return Wrapped(P.start(rules))

    def phase(state: Wrapped) -> int:
        return state.pos[0]

    def next_deal(state: Wrapped) -> tuple[int, int, int, bool]:
        return P.next_deal(state.pos)

    def legal_bids(state: Wrapped) -> tuple[int, ...]:
        return P.legal_bids(state.pos)

    def allowed(state: Wrapped) -> int:
        return P.allowed(state.pos)

    def deal(state: Wrapped, hands: Any, trumps: int) -> Wrapped:
        return Wrapped(P.deal(state.pos, hands, trumps))

    def bid(state: Wrapped, code: int) -> Wrapped:
        return Wrapped(P.bid(state.pos, code))

    def play(state: Wrapped, card: int) -> Wrapped:
        return Wrapped(P.play(state.pos, card))

    def totals(state: Wrapped) -> tuple[int, int]:
        return (state.pos[15], state.pos[16])

    return start, phase, next_deal, legal_bids, allowed, deal, bid, play, totals


def play_matches(name: str, matches: int, seed: int) -> tuple[float, int, list[Any]]:
    """Seconds, actions and final totals of ``matches`` random standard matches."""
    from backalley.core.cards import CARDS  # noqa: PLC0415
    from backalley.core.dealing import deal_hands  # noqa: PLC0415
    from backalley.core.rules import Rules  # noqa: PLC0415

    start_, phase, next_deal, legal_bids, allowed, deal, bid, play, totals = design_functions(name)
    table = _chunk_table()
    rules = Rules()
    # The decks are shuffled before the clock starts: the same for every design.
    shuffler = random.Random(seed)
    decks = []
    for _ in range(40):
        order = list(CARDS)
        shuffler.shuffle(order)
        decks.append(tuple(order))
    finals = []
    actions = 0
    spent = 0.0
    for index in range(matches):
        choice = random.Random(seed + index).choice
        clock = time.perf_counter()
        state = start_(rules)
        dealt = 0
        while True:
            now = phase(state)
            if now == 2:
                state = play(state, choice(cards_in(allowed(state), table)))
            elif now == 1:
                state = bid(state, choice(legal_bids(state)))
            elif now == 0:
                _, dealer, size, tiebreak = next_deal(state)
                deck = decks[(index + dealt) % len(decks)]
                setup = deal_hands(deck, dealer=dealer, hand_size=size, tiebreak=tiebreak)
                state = deal(state, setup.hands, setup.trumps)
                dealt += 1
            else:
                break
            actions += 1
        spent += time.perf_counter() - clock
        finals.append(totals(state))
    return spent, actions, finals


def worker(names: list[str], matches: int, seed: int) -> None:
    """One repeat of each design, as JSON: microseconds an action, matches a second."""
    out: dict[str, Any] = {}
    finals = {}
    for name in names:
        spent, actions, final = play_matches(name, matches, seed)
        out[name] = {"us_per_action": spent / actions * 1e6, "matches_per_s": matches / spent}
        finals[name] = final
    # The designs are the same rules: the same matches end with the same totals.
    first = finals[names[0]]
    assert all(final == first for final in finals.values()), "the designs disagree"
    print(json.dumps(out))


def one(name: str, matches: int, seed: int) -> None:
    """Play ``matches`` matches of one design and print its count of actions."""
    print(play_matches(name, matches, seed)[1])


def instructions(python_path: Path, name: str, matches: int, seed: int) -> float:
    """Instructions an action of one design: runs of 2N and N matches under callgrind, less."""
    env = {"PYTHONPATH": str(python_path), "DESIGNS_PATH": str(python_path), "PYTHONHASHSEED": "0"}
    # A run outside valgrind first, so that neither counted run writes bytecode caches.
    subprocess.run(
        [sys.executable, __file__, "--one", name, "--matches", "1", "--seed", str(seed)],
        capture_output=True, env=env, cwd=python_path, check=True,
    )  # fmt: skip
    counts = []
    actions = []
    for size in (matches, 2 * matches):
        with tempfile.TemporaryDirectory() as folder:
            out = Path(folder) / "callgrind.out"
            done = subprocess.run(
                ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable,
                 __file__, "--one", name, "--matches", str(size), "--seed", str(seed)],
                capture_output=True, text=True, env=env, cwd=python_path, check=True,
            )  # fmt: skip
            summary = re.search(r"^summary: (\d+)", out.read_text(), re.MULTILINE)
            assert summary is not None, "no summary line in the callgrind output"
            counts.append(int(summary.group(1)))
            actions.append(int(done.stdout))
    return (counts[1] - counts[0]) / (actions[1] - actions[0])


def build_compiled(where: Path) -> None:
    """Copy the package and the class design into ``where`` and compile both designs."""
    shutil.copytree(SOURCE / "backalley", where / "backalley")
    shutil.copy(HERE / "position_class.py", where / "position_class.py")
    # The position and the core modules the compiled package compiles (pyproject.toml).
    core = ["bidding", "flow", "jokers", "position", "scoring", "tricks"]
    subprocess.run(
        [
            sys.executable,
            "-m",
            "mypyc",
            *(f"backalley/core/{name}.py" for name in core),
            "position_class.py",
        ],
        cwd=where,
        check=True,
        capture_output=True,
    )


def run(python_path: Path, matches: int, seed: int) -> dict[str, Any]:
    """One repeat of every design in a fresh interpreter importing from ``python_path``."""
    done = subprocess.run(
        [sys.executable, __file__, "--worker", "--matches", str(matches), "--seed", str(seed)],
        capture_output=True,
        text=True,
        check=True,
        env={
            "PYTHONPATH": str(python_path),
            "DESIGNS_PATH": str(python_path),
            "PYTHONHASHSEED": "0",
        },
        cwd=python_path,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def main() -> None:
    """Time the designs, pure (and compiled), and print the medians."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--compile", action="store_true")
    parser.add_argument(
        "--instructions", action="store_true", help="count instructions with valgrind instead"
    )
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if "DESIGNS_PATH" in os.environ:
        # Before this script's own folder, which holds the interpreted class design.
        sys.path.insert(0, os.environ["DESIGNS_PATH"])
    if args.worker:
        worker(list(DESIGNS), args.matches, args.seed)
        return
    if args.one:
        one(args.one, args.matches, args.seed)
        return
    builds = {"pure": SOURCE}
    scratch = None
    if args.compile:
        scratch = Path(tempfile.mkdtemp())
        build_compiled(scratch)
        builds["compiled"] = scratch
    runs: dict[str, list[dict[str, Any]]] = {build: [] for build in builds}
    try:
        if args.instructions:
            print(f"instructions an action (callgrind; {args.matches} and twice as many matches)")
            for build, path in builds.items():
                for name in DESIGNS:
                    count = instructions(path, name, args.matches, args.seed)
                    print(f"{build:10} {name:8} {count:10.0f}")
            return
        for _ in range(args.repeats):
            for build, path in builds.items():
                runs[build].append(run(path, args.matches, args.seed))
    finally:
        if scratch is not None:
            shutil.rmtree(scratch)
    print(f"{args.matches} random standard matches, median of {args.repeats} repeats")
    print(f"{'build':10} {'design':8} {'us/action':>10} {'matches/s':>10}")
    for build, repeats in runs.items():
        for name in DESIGNS:
            us = statistics.median(r[name]["us_per_action"] for r in repeats)
            rate = statistics.median(r[name]["matches_per_s"] for r in repeats)
            print(f"{build:10} {name:8} {us:10.2f} {rate:10.0f}")


if __name__ == "__main__":
    main()
