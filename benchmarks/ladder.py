"""The strength ladder: every computer player against every other, on duplicate deals.

Every pair of player kinds of ``backalley.players.PLAYER_KINDS`` (random,
heuristic, Monte Carlo, search, and any kind added there, such as a learned
player) meets over ``--matches`` sets of deals. A set is one match seed played
twice, the first kind North-South the first time and East-West the second
(duplicate deals: the luck of the cards largely cancels). The seeds come from
``--seed`` (default 45045), which no player was tuned on: the heuristic's bidding
was tuned on run seed 11, the Monte Carlo settings on run seed 5.

Printed: a Markdown table, strongest first (by the share of all its matches won,
a draw counting one half), with each kind's level name
(``backalley.players.levels``), its wins against every other kind with a 95 %
Wilson interval, and its CPU time per decision (``time.process_time`` around
each decision, so one core; every decision asked of it, the forced ones with a
single legal action included, which every player answers at once). Then the command, the date and
the machine's load average, to paste into ``docs/players.md``.

    nice -n 10 python benchmarks/ladder.py                  # short schedule, 6 sets a pair
    nice -n 10 python benchmarks/ladder.py --matches 40 --jobs 2
    python benchmarks/ladder.py --kinds heuristic previous-heuristic --matches 300

``--kinds`` plays only the kinds named; ``previous-heuristic`` is the heuristic
as it bid before it stopped throwing deals in (it passed a one-card deal on
anything short of BIG, LITTLE or the trump ace, and the last bidder passed after
three passes), kept here to show the new bidding lost no strength. Every match
has the bound of ``play_match`` (``engine.bounds``), and ``--matches`` bounds the
run.
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import platform
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from fractions import Fraction

from backalley import Bid, Play, Rules, Seat
from backalley.engine.view import SeatView
from backalley.players import PLAYER_KINDS, HeuristicPlayer, Player, SeatedPlayer, play_match
from backalley.players.heuristic import (
    BOARD_SHARE,
    PARTNER_BELIEF,
    TWENTIETHS,
    _pick,
    hand_twentieths,
)
from backalley.players.levels import LEVELS
from backalley.players.simulation import match_seed, wilson_interval

DEFAULT_SEED = 45045
"""The ladder's run seed: no player's settings were tuned on it."""
DEFAULT_SETS = 6
"""Sets of deals (each played twice) per pair of kinds: the default run takes minutes."""


class PreviousHeuristic(HeuristicPlayer):
    """The heuristic as it bid before: Board only on a count of a whole hand, no last-bid rule."""

    def bid(self, view: SeatView, legal: Sequence[Bid | Play]) -> Bid:
        deal = view.deal
        assert deal is not None
        partner = deal.bid_of(view.partner)
        if partner is not None and partner.board:
            return _pick(legal, Bid(view.seat))
        count = Fraction(hand_twentieths(view.hand, view.trump), TWENTIETHS)
        if count >= Fraction(BOARD_SHARE) * view.hand_size:
            return _pick(legal, Bid(view.seat, board=True))
        said = partner.amount if partner is not None else 0
        rounding = Fraction(self.round_up_from)
        target = math.floor(count + Fraction(PARTNER_BELIEF) * said + 1 - rounding)
        amount = max(0, min(target - said, view.hand_size - 1, view.hand_size - said))
        return _pick(legal, Bid(view.seat, amount))


KINDS: dict[str, Callable[[], Player]] = {**PLAYER_KINDS, "previous-heuristic": PreviousHeuristic}
"""Every kind the ladder knows: the shipped ones, and the heuristic's previous bidding."""
DEFAULT_KINDS = tuple(PLAYER_KINDS)


class Timed:
    """Seats a player and adds up the CPU seconds and the number of its decisions."""

    def __init__(self, player: Player, clock: list[float]) -> None:
        self.player = player
        self.clock = clock  # [seconds, decisions], shared by the four seats of one kind

    def for_seat(self, seat: Seat, seed: int) -> Timed:
        inner = self.player
        if isinstance(inner, SeatedPlayer):
            inner = inner.for_seat(seat, seed)
        return Timed(inner, self.clock)

    def __call__(self, view: SeatView, legal: tuple[Bid | Play, ...]) -> Bid | Play:
        start = time.process_time()
        action = self.player(view, legal)
        self.clock[0] += time.process_time() - start
        self.clock[1] += 1
        return action


Job = tuple[str, str, int, int, tuple[int, ...]]
"""First kind, second kind, run seed, set number, schedule."""
Result = tuple[str, str, int, int, dict[str, list[float]]]
"""First kind, second kind, the first kind's wins and draws in the set, and the clocks."""


def play_set(job: Job) -> Result:
    """One set: the seed with the first kind North-South, then East-West."""
    first, second, run_seed, number, schedule = job
    clocks: dict[str, list[float]] = {first: [0.0, 0], second: [0.0, 0]}
    rules = Rules(schedule=list(schedule))
    seed = match_seed(run_seed, number)
    wins = draws = 0
    for first_pair in (0, 1):
        a = Timed(KINDS[first](), clocks[first])
        b = Timed(KINDS[second](), clocks[second])
        players = [a, b, a, b] if first_pair == 0 else [b, a, b, a]
        outcome = play_match(players, rules, seed=seed).outcome
        assert outcome is not None
        if outcome.winner is None:
            draws += 1
        else:
            wins += int(outcome.winner) == first_pair
    return first, second, wins, draws, clocks


class Ladder:
    """The figures of a run: each ordered pair's wins, draws and matches, and the clocks."""

    def __init__(self, kinds: Sequence[str]) -> None:
        self.kinds = list(kinds)
        self.wins: dict[tuple[str, str], int] = {}
        self.draws: dict[tuple[str, str], int] = {}
        self.games: dict[tuple[str, str], int] = {}
        self.clock = {kind: [0.0, 0.0] for kind in kinds}

    def add(self, result: Result) -> None:
        first, second, wins, draws, clocks = result
        for a, b, won in ((first, second, wins), (second, first, 2 - wins - draws)):
            self.wins[a, b] = self.wins.get((a, b), 0) + won
            self.draws[a, b] = self.draws.get((a, b), 0) + draws
            self.games[a, b] = self.games.get((a, b), 0) + 2
        for kind, (seconds, decisions) in clocks.items():
            self.clock[kind][0] += seconds
            self.clock[kind][1] += decisions

    def score(self, kind: str) -> float:
        """The share of all its matches won, a draw one half."""
        games = sum(self.games.get((kind, other), 0) for other in self.kinds)
        won = sum(
            self.wins.get((kind, other), 0) + self.draws.get((kind, other), 0) / 2
            for other in self.kinds
        )
        return won / games if games else 0.0

    def table(self) -> str:
        ranked = sorted(self.kinds, key=self.score, reverse=True)
        levels = {level.kind: level.name for level in LEVELS}
        head = ["player", "level", *(f"against {kind}" for kind in ranked)]
        head += ["all matches", "CPU a decision"]
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for kind in ranked:
            cells = [kind, levels.get(kind, "-")]
            for other in ranked:
                cells.append("" if other == kind else self._cell(kind, other))
            games = sum(self.games.get((kind, other), 0) for other in ranked)
            wins = sum(self.wins.get((kind, other), 0) for other in ranked)
            low, high = wilson_interval(wins, games)
            cells.append(f"{self.score(kind):.1%} ({low:.0%}-{high:.0%} won)")
            seconds, decisions = self.clock[kind]
            cells.append(_duration(seconds / decisions) if decisions else "-")
            lines.append("| " + " | ".join(cells) + " |")
        return "\n".join(lines)

    def _cell(self, kind: str, other: str) -> str:
        games = self.games.get((kind, other), 0)
        wins = self.wins.get((kind, other), 0)
        draws = self.draws.get((kind, other), 0)
        low, high = wilson_interval(wins, games)
        drawn = f", {draws} drawn" if draws else ""
        return f"{wins}/{games} ({low:.0%}-{high:.0%}{drawn})"


def _duration(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds * 1e6:.0f} µs"


def _schedule(text: str) -> tuple[int, ...]:
    return tuple(Rules(schedule=text if not text[0].isdigit() else text.split(",")).schedule)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=DEFAULT_SETS, help="sets a pair")
    parser.add_argument("--schedule", default="short", help="a named schedule or sizes 3,2,1")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="the run's seed")
    parser.add_argument("--jobs", type=int, default=1, help="processes; results do not change")
    parser.add_argument(
        "--kinds", nargs="+", choices=sorted(KINDS), default=DEFAULT_KINDS, help="kinds to rank"
    )
    args = parser.parse_args(argv)
    if args.matches < 1 or args.jobs < 1 or len(set(args.kinds)) < 2:
        parser.error("give at least one set, one job and two different kinds")
    kinds = list(dict.fromkeys(args.kinds))
    schedule = _schedule(args.schedule)
    jobs: list[Job] = [
        (a, b, args.seed, number, schedule)
        for i, a in enumerate(kinds)
        for b in kinds[i + 1 :]
        for number in range(args.matches)
    ]
    ladder = Ladder(kinds)
    started = time.perf_counter()
    if args.jobs == 1:
        for job in jobs:
            ladder.add(play_set(job))
    else:
        with ProcessPoolExecutor(args.jobs) as pool:
            for result in pool.map(play_set, jobs, chunksize=1):
                ladder.add(result)
    elapsed = time.perf_counter() - started
    print(ladder.table())
    print()
    command = "python benchmarks/ladder.py " + " ".join(sys.argv[1:] if argv is None else argv)
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    now = datetime.datetime.now(datetime.UTC)
    print(
        f"`{command.strip()}`: {args.matches} sets ({2 * args.matches} matches) a pair,"
        f" {args.schedule} schedule, seed {args.seed}; {now:%Y-%m-%d %H:%M} UTC,"
        f" {platform.machine()}, {os.cpu_count()} cores, load average {load} at the end;"
        f" {elapsed:.0f} s wall clock with {args.jobs} job(s)."
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
