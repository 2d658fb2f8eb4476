"""Compare the double-dummy solver's answers: between two trees or builds, or against a minimax.

A change to the search (a bound, the table, the ordering, a faster node) must leave
every count as it was. This script draws reproducible random positions (seeded
deals of the sizes asked, random legal bids, then random legal plays to a random
point of the deal: first leads, mid-trick, late tricks) and solves each with
``solve_position``: every allowed card of the mover with its count.

``record FILE`` writes each position's seed and counts, one JSON line each, with
the tree that is imported (run it on the search before a change); ``check FILE``
draws the same positions again and solves them with the tree imported now (the
changed search, pure or compiled), and reports every count that differs. The
positions depend only on the seed and on the rules engine (``apply``), not on
the solver, so the two runs see the same ones. ``minimax`` checks the solver
against a plain minimax over ``apply`` instead (small hands only: it is slow).

    PYTHONPATH=old/src python scripts/compare_solver.py record /tmp/old.jsonl --seed 1
    PYTHONPATH=src python scripts/compare_solver.py check /tmp/old.jsonl
    /path/to/compiled/venv/bin/python scripts/compare_solver.py check /tmp/old.jsonl
    PYTHONPATH=src python scripts/compare_solver.py minimax --positions 300 --sizes 2 3 4

Exit status 0 when every count agrees, 1 when any differs.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Iterator

import backalley
from backalley import MatchState, Phase, Play, Rules, apply, legal_actions, new_match
from backalley.core import position as P
from backalley.solver import Search, position_in_play, solve_position


def draw_position(seed: int, sizes: list[int]) -> MatchState:
    """The position of ``seed``: a deal of one of ``sizes``, bid at random, played partly.

    One seed in four is redrawn until its deal has no trump suit (a joker turned),
    so that those deals are not left to chance.
    """
    rng = random.Random(seed)
    size = rng.choice(sizes)
    want_no_trump = rng.randrange(4) == 0
    for _ in range(200):
        state = new_match(Rules(schedule=[size]), seed=rng.randrange(2**32))
        while state.phase is not Phase.PLAY:
            options = legal_actions(state)
            state = apply(state, options[rng.randrange(len(options))])
        if not want_no_trump or not state.position[P.TRUMPS]:
            break
    # Leave at least two cards in the mover's hand: a position worth searching.
    plays = rng.randrange(4 * size - 4)
    for _ in range(plays):
        options = legal_actions(state)
        state = apply(state, options[rng.randrange(len(options))])
    return state


def positions(seed: int, count: int, sizes: list[int]) -> Iterator[tuple[int, MatchState]]:
    """``count`` positions, each with its own seed (``seed`` and its number)."""
    for number in range(count):
        one = seed * 1_000_003 + number
        yield one, draw_position(one, sizes)


def counts_of(state: MatchState) -> tuple[dict[str, int], int]:
    """Each allowed card's count (by the card's name), and the search's nodes."""
    pos = position_in_play(state)
    search = Search.of(pos, P.to_move(pos) % 2)
    found = {str(play.card): count for play, count in solve_position(pos, search)}
    return found, search.nodes


def minimax_counts(state: MatchState) -> dict[str, int]:
    """Each legal play's tricks for the mover's pair in the deal, by minimax over ``apply``."""
    mover = state.to_move
    assert mover is not None
    pair = mover % 2
    memo: dict[object, int] = {}

    def value(state: MatchState) -> int:
        deal = state.deal
        if deal is None:
            # The deal is over (a one-deal match): its result holds the tricks won.
            return state.history[-1].deal.tricks_won[pair]
        key = (deal.hands, deal.trick, deal.leader, deal.tricks_won)
        known = memo.get(key)
        if known is None:
            children = [value(apply(state, action)) for action in legal_actions(state)]
            ours = state.to_move is not None and state.to_move % 2 == pair
            known = memo[key] = max(children) if ours else min(children)
        return known

    found = {}
    for action in legal_actions(state):
        assert isinstance(action, Play)
        found[str(action.card)] = value(apply(state, action))
    return found


def main() -> int:
    """Record, check or compare with the minimax; 1 when a count differs."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["record", "check", "minimax"])
    parser.add_argument("file", nargs="?", help="the record (record, check)")
    parser.add_argument("--positions", type=int, default=1000)
    parser.add_argument("--sizes", type=int, nargs="+", default=[5, 6, 7, 8])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    build = "compiled" if backalley.__compiled__ else "pure Python"
    print(f"backalley from {backalley.__file__} ({build})", flush=True)
    start = time.process_time()
    differ = 0
    nodes = 0
    if args.mode == "record":
        with open(args.file, "w", encoding="utf-8") as out:
            meta = {"seed": args.seed, "positions": args.positions, "sizes": args.sizes}
            out.write(json.dumps(meta) + "\n")
            for one, state in positions(args.seed, args.positions, args.sizes):
                found, spent = counts_of(state)
                nodes += spent
                out.write(json.dumps({"seed": one, "counts": found, "nodes": spent}) + "\n")
        checked = args.positions
    elif args.mode == "check":
        with open(args.file, encoding="utf-8") as record:
            meta = json.loads(record.readline())
            expected = [json.loads(line) for line in record]
        old_nodes = 0
        drawn = positions(meta["seed"], meta["positions"], meta["sizes"])
        for (one, state), known in zip(drawn, expected, strict=True):
            assert one == known["seed"]
            found, spent = counts_of(state)
            nodes += spent
            old_nodes += known["nodes"]
            if found != known["counts"]:
                differ += 1
                print(f"seed {one}: {found} here, {known['counts']} recorded", flush=True)
        checked = len(expected)
        print(f"nodes: {nodes} here, {old_nodes} recorded")
    else:
        checked = args.positions
        for one, state in positions(args.seed, args.positions, args.sizes):
            found, spent = counts_of(state)
            nodes += spent
            if found != minimax_counts(state):
                differ += 1
                print(f"seed {one}: {found} by the solver, {minimax_counts(state)} by minimax")
    print(
        f"{checked} positions, {differ} differing; {nodes} nodes; "
        f"{time.process_time() - start:.1f} s CPU"
    )
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
