"""Measure the Monte Carlo pair against another pair on duplicate deals, and its time per decision.

Plays N sets of deals; each set is one seed played twice, the Monte Carlo pair
North-South the first time and East-West the second (seat-swapped duplicate
deals, so the luck of the cards largely cancels). Prints the Monte Carlo pair's
wins, draws and losses over all matches with a 95% Wilson interval, its mean
result per set (1 a win, 1/2 a draw) with a 95% normal interval over the sets
(the pairing taken into account), the average score margin, and the Monte Carlo
player's CPU time per decision (mean, median, 95th percentile and max; one process,
so one core, with ``time.process_time`` read around each decision).

    python benchmarks/montecarlo_strength.py --sets 150 --opponent heuristic --schedule short

``--player search`` measures the search player (the Monte Carlo player solving its
samples double dummy) instead, for example against today's Monte Carlo player:

    python benchmarks/montecarlo_strength.py --player search --opponent montecarlo --sets 60

``--player learned`` measures the trained player (``backalley.players.learned``), with
its shipped weights or those of ``--weights``.

``--schedule`` takes a schedule's name or hand sizes (``--schedule 13,9``: two deals,
of thirteen cards and of nine), to time decisions at full size without a whole match.

``--opponent-exact-tricks`` sets the tricks left from which a Monte Carlo or search
opponent solves, to measure one threshold against another (``--player search
--opponent search --opponent-exact-tricks 5``: today's search player against one
solving from five tricks left).

``--first-set`` starts at a later set of the run seed, so that one run can be split
between processes (``--sets 50`` and ``--sets 50 --first-set 50`` are the first 100).

``--minutes`` bounds the run's wall clock: no set starts after that many minutes,
and the figures are those of the sets played (the set in progress is finished, so
the pairing stays whole). The score margin is printed with a 95 % interval over
the sets (each set's two matches averaged), which tells apart two players whose
matches mostly end the same way better than the wins do.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

from backalley import Bid, Play, Rules, Seat
from backalley.engine.view import SeatView
from backalley.players import (
    PLAYER_KINDS,
    MonteCarloPlayer,
    Player,
    SeatedPlayer,
    play_match,
    search_player,
)
from backalley.players.montecarlo import DEFAULT_BID_INFERENCE
from backalley.players.simulation import match_seed, wilson_interval

Z = 1.959964


class Timed:
    """Seats a player and records the seconds each of its decisions takes."""

    def __init__(self, player: Player, times: list[float]) -> None:
        self.player = player
        self.times = times

    def for_seat(self, seat: Seat, seed: int) -> Timed:
        inner = self.player
        if isinstance(inner, SeatedPlayer):
            inner = inner.for_seat(seat, seed)
        return Timed(inner, self.times)

    def __call__(self, view: SeatView, legal: tuple[Bid | Play, ...]) -> Bid | Play:
        # CPU time of this process: on a shared machine the wall clock also counts the
        # time other programs hold the core.
        start = time.process_time()
        action = self.player(view, legal)
        self.times.append(time.process_time() - start)
        return action


def _arguments() -> argparse.Namespace:
    """The command line's settings, checked."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=100, help="seeds, each played twice")
    parser.add_argument(
        "--first-set", type=int, default=0, help="index of the first set (to split a run)"
    )
    parser.add_argument(
        "--player", default="montecarlo", choices=["montecarlo", "search", "learned"]
    )
    parser.add_argument("--opponent", default="heuristic", choices=sorted(PLAYER_KINDS))
    parser.add_argument("--exact-tricks", type=int, help="tricks left from which to solve")
    parser.add_argument("--exact-bids", type=int, help="largest hand size bid by solving")
    parser.add_argument(
        "--opponent-exact-tricks",
        type=int,
        help="tricks left from which a montecarlo or search opponent solves",
    )
    parser.add_argument(
        "--match-aware",
        action=argparse.BooleanOptionalAction,
        help="value results by the chance of winning the match (default: the player's)",
    )
    parser.add_argument(
        "--schedule", default="short", help="a schedule's name, or hand sizes such as 13,9"
    )
    parser.add_argument("--samples", type=int, help="deals sampled a decision (the player's)")
    parser.add_argument(
        "--bid-inference", type=float, default=DEFAULT_BID_INFERENCE, help="weight of bids"
    )
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--weights", help="the learned player's weights (.npz; default shipped)")
    parser.add_argument("--times", help="file to write each decision's CPU ms to, one a line")
    parser.add_argument(
        "--minutes", type=float, help="start no set after this many minutes (a wall bound)"
    )
    args = parser.parse_args()
    if args.sets < 1 or (args.minutes is not None and args.minutes <= 0):
        parser.error("give at least one set and a positive number of minutes")
    return args


def main() -> None:
    args = _arguments()
    sizes = args.schedule.split(",")
    rules = Rules(schedule=[int(n) for n in sizes] if sizes[0].isdigit() else args.schedule)
    settings: dict[str, int | float | bool] = {"bid_inference": args.bid_inference}
    if args.samples is not None:
        settings["samples"] = args.samples
    if args.match_aware is not None:
        settings["match_aware"] = args.match_aware
    if args.exact_tricks is not None:
        settings["exact_tricks"] = args.exact_tricks
    if args.exact_bids is not None:
        settings["exact_bids"] = args.exact_bids
    template = _player(args, settings)
    start = time.perf_counter()
    times, results, margins, counts = _play_sets(template, args, rules)
    elapsed = time.perf_counter() - start
    won, drawn, lost = counts
    matches = won + drawn + lost
    low, high = wilson_interval(won, matches)
    mean = statistics.fmean(results)
    half = Z * statistics.stdev(results) / math.sqrt(len(results)) if len(results) > 1 else 1.0
    ms = sorted(1000 * t for t in times)
    if args.times:
        with open(args.times, "w", encoding="utf-8") as out:
            out.writelines(f"{value:.3f}\n" for value in ms)
    print(f"{args.player} {template!r} against {args.opponent}, {rules}")
    print(
        f"matches: {matches} ({len(results)} duplicate sets); {args.player} pair won {won},"
        f" drew {drawn}, "
        f"lost {lost}: win rate {won / matches:.1%} (95% Wilson CI {low:.1%}-{high:.1%})"
    )
    print(
        f"result per set (win 1, draw 1/2): {mean:.3f} (95% CI {mean - half:.3f}-{mean + half:.3f})"
    )
    print(f"sets played: {len(results)} of {args.sets}")
    print(f"average score margin per match: {_margin_interval(margins)}")
    mean_ms, median_ms = statistics.fmean(ms), statistics.median(ms)
    print(
        f"CPU ms per decision: mean {mean_ms:.1f}, median {median_ms:.1f}, "
        f"95th percentile {ms[int(0.95 * (len(ms) - 1))]:.1f}, max {ms[-1]:.1f} "
        f"over {len(ms)} decisions"
    )
    print(f"{matches} matches in {elapsed:.0f} s")


def _margin_interval(margins: list[int]) -> str:
    """The mean margin a match, with a 95 % normal interval over the sets' mean margins."""
    mean = statistics.fmean(margins)
    per_set = [(a + b) / 2 for a, b in zip(margins[::2], margins[1::2], strict=True)]
    if len(per_set) < 2:
        return f"{mean:+.1f}"
    half = Z * statistics.stdev(per_set) / math.sqrt(len(per_set))
    return f"{mean:+.1f} (95% CI {mean - half:+.1f} to {mean + half:+.1f})"


def _player(args: argparse.Namespace, settings: dict[str, int | float | bool]) -> Player:
    """The player measured: Monte Carlo or search with ``settings``, or the trained one."""
    if args.player == "learned":  # the trained player: the shipped weights, or --weights
        from backalley.players.learned import LearnedPlayer, Network  # noqa: PLC0415

        return LearnedPlayer(Network.load(args.weights) if args.weights else None)
    if args.player == "search":
        return search_player(**settings)  # type: ignore[arg-type]
    return MonteCarloPlayer(**settings)  # type: ignore[arg-type]


def _opponent(args: argparse.Namespace) -> Player:
    """The other pair's player: its kind, solving from ``--opponent-exact-tricks`` if given."""
    if args.opponent_exact_tricks is None:
        return PLAYER_KINDS[args.opponent]()
    if args.opponent == "search":
        return search_player(exact_tricks=args.opponent_exact_tricks)
    if args.opponent == "montecarlo":
        return MonteCarloPlayer(exact_tricks=args.opponent_exact_tricks)
    raise SystemExit("--opponent-exact-tricks needs --opponent montecarlo or search")


def _play_sets(
    template: Player, args: argparse.Namespace, rules: Rules
) -> tuple[list[float], list[float], list[int], tuple[int, int, int]]:
    """Play the duplicate sets: decision times, results per set, margins, and W/D/L."""
    times: list[float] = []
    results: list[float] = []
    margins: list[int] = []
    won = drawn = lost = 0
    started = time.perf_counter()
    for index in range(args.first_set, args.first_set + args.sets):
        # At least one set is played, however short the bound.
        late = time.perf_counter() - started > 60 * (args.minutes or 0)
        if args.minutes is not None and results and late:
            print(f"stopped at the {args.minutes:g}-minute bound", flush=True)
            break
        seed = match_seed(args.seed, index)
        per_set = 0.0
        for mc_pair in (0, 1):
            mc = Timed(template, times)
            other = _opponent(args)
            players: list[Player] = [mc, other] * 2 if mc_pair == 0 else [other, mc] * 2
            outcome = play_match(players, rules, seed=seed).outcome
            assert outcome is not None
            margins.append(outcome.totals[mc_pair] - outcome.totals[1 - mc_pair])
            if outcome.winner is None:
                drawn += 1
                per_set += 0.25
            elif outcome.winner == mc_pair:
                won += 1
                per_set += 0.5
            else:
                lost += 1
        results.append(per_set)
        print(f"set {index + 1}: {won} won, {drawn} drawn, {lost} lost", flush=True)
    return times, results, margins, (won, drawn, lost)


if __name__ == "__main__":
    main()
