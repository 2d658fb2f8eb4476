"""Measure the double-dummy solver: random deals solved from the first lead, as DDS reports it.

For each hand size asked, deals ``--deals`` random deals (seeded shuffles, random
legal bids, a thrown-in deal redealt), then times ``solve(state)`` at the first
lead: every legal card of the opening leader valued exactly. Prints the median,
95th percentile and maximum CPU time per deal (``time.process_time``, so other
programs on a shared machine do not count), the search's nodes, the largest
transposition table, and whether the build is compiled.

``--budget SECONDS`` bounds each deal: it is then solved in a child process
(``os.fork``) limited to that much CPU time (and ``--memory`` MB); a deal that
runs out is counted as over budget, at the budget, and the figures say how many
did (a median with none over is exact; with some over, the percentiles above
the first deal over budget are lower bounds). ``--each`` prints every deal.

``--dds`` solves as many random bridge deals of each size in the same run with
DDS (the ``endplay`` package's ``solve_board``: every legal card of the opening
leader valued, the same job for bridge; a random strain and leader a deal) and
prints its figures and the ratio of the medians, ours over DDS's.

    python benchmarks/solve_speed.py --sizes 7 13 --deals 200
    python benchmarks/solve_speed.py --sizes 13 --deals 20 --budget 60
    python benchmarks/solve_speed.py --sizes 11 13 --deals 30 --budget 60 --dds
"""

from __future__ import annotations

import argparse
import os
import pickle
import random
import resource
import statistics
import time

import backalley
from backalley import MatchState, Phase, Rules, apply, legal_actions, new_match
from backalley.core.position import to_move
from backalley.solver import Search, solve_position


def first_leads(size: int, deals: int, seed: int) -> list[MatchState]:
    """``deals`` random deals of ``size`` cards, each at its first lead."""
    rng = random.Random(seed)
    found: list[MatchState] = []
    while len(found) < deals:
        state = new_match(Rules(schedule=[size]), seed=rng.randrange(2**32))
        while state.phase is not Phase.PLAY:
            options = legal_actions(state)
            state = apply(state, options[rng.randrange(len(options))])
        found.append(state)
    return found


def dds_deals(size: int, deals: int, seed: int) -> list[tuple[str, int, int]]:
    """``deals`` random bridge deals of ``size`` cards a hand: PBN, leader and strain.

    The strain is 0-3 for a trump suit (spades, hearts, diamonds, clubs) or 4 for
    no trumps, each as likely; the leader is any seat.
    """
    rng = random.Random(seed)
    ranks = "AKQJT98765432"
    found = []
    for _ in range(deals):
        pack = [(suit, rank) for suit in range(4) for rank in range(13)]
        rng.shuffle(pack)
        hands = []
        for seat in range(4):
            mine = pack[seat * size : (seat + 1) * size]
            suits = [
                "".join(ranks[rank] for rank in sorted(r for s, r in mine if s == suit))
                for suit in range(4)
            ]
            hands.append(".".join(suits))
        found.append(("N:" + " ".join(hands), rng.randrange(4), rng.randrange(5)))
    return found


def dds_times(size: int, deals: int, seed: int) -> list[float]:
    """CPU seconds of DDS's ``solve_board`` on each of ``dds_deals``."""
    from endplay.dds import solve_board  # noqa: PLC0415 - only with --dds
    from endplay.types import Deal, Denom, Player  # noqa: PLC0415

    times = []
    for pbn, leader, strain in dds_deals(size, deals, seed):
        deal = Deal(pbn, first=Player(leader), trump=Denom(strain))
        start = time.process_time()
        solve_board(deal)
        times.append(time.process_time() - start)
    return times


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def solve_one(state: MatchState) -> tuple[float, int, int]:
    """CPU seconds, search nodes and transposition-table entries of one first-lead solve."""
    pos = state.position
    search = Search.of(pos, to_move(pos) % 2)
    start = time.process_time()
    solve_position(pos, search)
    spent = time.process_time() - start
    entries = sum(len(lowers) + len(uppers) for lowers, uppers in search.table.values())
    return spent, search.nodes, entries


def solve_bounded(state: MatchState, budget: int, memory: int) -> tuple[float, int, int] | None:
    """As :func:`solve_one`, in a child process held to ``budget`` CPU seconds; None if over."""
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child
        os.close(read)
        resource.setrlimit(resource.RLIMIT_CPU, (budget, budget + 1))
        if memory:
            resource.setrlimit(resource.RLIMIT_AS, (memory << 20, memory << 20))
        code = 1
        try:
            with os.fdopen(write, "wb") as out:
                pickle.dump(solve_one(state), out)
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read, "rb") as got:
        data = got.read()
    os.waitpid(child, 0)
    return pickle.loads(data) if data else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[7, 13])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--skip", type=int, default=0, help="leave out the first SKIP deals")
    parser.add_argument("--budget", type=int, default=0, help="CPU seconds a deal, 0: none")
    parser.add_argument("--memory", type=int, default=4096, help="MB a deal under --budget")
    parser.add_argument("--each", action="store_true", help="print every deal")
    parser.add_argument("--dds", action="store_true", help="DDS on bridge deals beside (endplay)")
    args = parser.parse_args()
    build = "compiled" if backalley.__compiled__ else "pure Python"
    print(f"backalley {backalley.__version__}, {build}")
    for size in args.sizes:
        times = []
        nodes = []
        tables = []
        over = 0
        deals = first_leads(size, args.skip + args.deals, args.seed + size)[args.skip :]
        for number, state in enumerate(deals, args.skip):
            if args.budget:
                got = solve_bounded(state, args.budget, args.memory)
            else:
                got = solve_one(state)
            if got is None:
                over += 1
                times.append(float(args.budget))
                if args.each:
                    print(f"  deal {number}: over budget", flush=True)
                continue
            times.append(got[0])
            nodes.append(got[1])
            tables.append(got[2])
            if args.each:
                print(
                    f"  deal {number}: {1000 * got[0]:.1f} ms, {got[1]} nodes, {got[2]} entries",
                    flush=True,
                )
        ms = [1000 * t for t in times]
        solved = (
            f"nodes median {statistics.median(nodes):.0f}, total {sum(nodes)}; "
            f"largest table {max(tables)} entries"
            if nodes
            else "none solved"
        )
        print(
            f"{size:2d} cards, {len(ms)} deals: median {statistics.median(ms):.1f} ms, "
            f"p95 {percentile(ms, 0.95):.1f} ms, max {max(ms):.1f} ms; {solved}"
            + (f"; {over} over the budget of {args.budget} s" if args.budget else "")
        )
        if args.dds:
            dds = [1000 * t for t in dds_times(size, args.deals, args.seed + size)]
            print(
                f"{size:2d} cards, DDS, {len(dds)} bridge deals: median "
                f"{statistics.median(dds):.2f} ms, p95 {percentile(dds, 0.95):.2f} ms, "
                f"max {max(dds):.2f} ms; ours / DDS, medians: "
                f"{statistics.median(ms) / statistics.median(dds):.0f}x"
            )
    print(f"load average {os.getloadavg()[0]:.1f} (1 min) on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
