"""``backalley simulate``: many matches between computer players, and a summary table.

North-South and East-West each seat a kind of computer player (``--ns``,
``--ew``). The summary gives wins and draws per pair with a 95% Wilson
interval, the average score, Boards bid and made, throw-ins and the average
numeric target against the tricks taken. ``--jobs N`` plays in N processes with
the same results as one: each match's seed is derived from ``--seed`` and the
match's index. ``--cluster ADDRESS|local`` plays them on a Dask cluster, again
with the same results (docs/cluster.md).
"""

from __future__ import annotations

import argparse
import functools
import sys

from ..cluster import DEFAULT_MATCH_CHUNK, IncompleteRun
from ..cluster import simulate as simulate_on_cluster
from ..pictures.prose import counted
from ..players import PLAYER_KINDS
from ..players.simulation import MAX_MATCHES, RecordsNotWritten, Summary, simulate
from . import _common as common
from ._cluster import add_cluster_options, cluster_client

__all__ = ["add_parser", "run", "summary_lines"]

DEFAULT_SIMULATE_SEED = 2026
DEFAULT_MATCHES = 100

HELP = "play many matches between computer players and summarise the results"
"""The command's line in ``backalley --help``."""
DESCRIPTION = """\
Play N matches between two kinds of computer player, one per pair, and print wins, draws
(with 95% Wilson intervals), average scores, Boards, throw-ins and average targets
against tricks taken."""


def add_parser(commands: common.Commands) -> None:
    """Register ``backalley simulate``."""
    parser = common.add_command(commands, "simulate", run, HELP, DESCRIPTION)
    kinds = sorted(PLAYER_KINDS)
    parser.add_argument(
        "--ns", default="heuristic", choices=kinds, help="North-South's players (heuristic)"
    )
    parser.add_argument(
        "--ew", default="random", choices=kinds, help="East-West's players (random)"
    )
    parser.add_argument(
        "--matches",
        type=int,
        default=DEFAULT_MATCHES,
        help=f"how many matches to play (default {DEFAULT_MATCHES})",
    )
    common.add_seed_option(
        parser, DEFAULT_SIMULATE_SEED, "the run's seed; each match's seed derives from it"
    )
    parser.add_argument(
        "--jobs", type=int, default=1, help="processes to play in; results do not depend on it"
    )
    parser.add_argument(
        "--duplicate",
        action="store_true",
        help="play each match's deals twice, the second time with the pairs exchanged",
    )
    parser.add_argument(
        "--records",
        metavar="DIR",
        help="also write each match as a game record, DIR/match-00001.json and on "
        "(the folder must exist)",
    )
    common.add_rules_options(parser)
    add_cluster_options(parser, "matches", DEFAULT_MATCH_CHUNK)


def run(args: argparse.Namespace) -> int:
    """Play the matches and print the summary."""
    if not 1 <= args.matches <= MAX_MATCHES:
        raise common.CommandError(
            f"--matches runs from 1 to {MAX_MATCHES} (2**32), not {args.matches}"
        )
    if args.duplicate and args.cluster is not None:
        raise common.CommandError("--duplicate runs on this machine only: leave out --cluster")
    args.jobs = common.jobs_within_cpus("simulate", args.jobs)
    rules = common.rules_from(args)
    total = 2 * args.matches if args.duplicate else args.matches
    bar = common.ProgressBar(sys.stderr, total, "matches") if sys.stderr.isatty() else None
    done = 0

    def progress(count: int) -> None:
        nonlocal done
        done = count
        if bar is not None:
            bar(count)

    partial = None
    try:
        with cluster_client(args) as client:
            # Where the matches are played: local processes, or the cluster's workers.
            play = (
                functools.partial(simulate, jobs=args.jobs, duplicate=args.duplicate)
                if client is None
                else functools.partial(
                    simulate_on_cluster, client=client, chunk_size=args.chunk_size
                )
            )
            try:
                summary = play(
                    args.ns,
                    args.ew,
                    rules,
                    seed=args.seed,
                    matches=args.matches,
                    progress=progress,
                    records=args.records,
                )
            except IncompleteRun as error:
                summary, partial = error.summary, error
    except RecordsNotWritten as error:
        raise common.CommandError(str(error)) from None
    except KeyboardInterrupt as error:
        # Say how far the run got, so what it printed or wrote is not taken for the whole.
        words, status = common.interruption(error)
        raise common.CommandError(
            f"{words} after {done} of {total} matches; no summary printed", status
        ) from None
    finally:
        if bar is not None:
            bar.clear()
    name = rules.schedule_name or "custom"
    head = (
        f"Back Alley simulation: {summary.matches} matches, {name} schedule "
        f"({counted(rules.deals, 'deal')}), ties {rules.tie.value}, "
        f"seed {args.seed}"
    )
    if summary.duplicate:
        head += (
            f"\nduplicate: {args.matches} sets of deals, each played twice with the pairs "
            "exchanged; each row is a kind of player, whichever seats it held"
        )
    if partial is not None:
        if not summary.matches:
            raise common.CommandError(f"no match could be played: {partial}", common.EXIT_INVALID)
        for failure in partial.failures:
            print(
                f"backalley simulate: match {failure.item + 1} failed: {failure.reason}",
                file=sys.stderr,
            )
        head = f"PARTIAL ({partial}). {head}"
    common.write_lines([head, "", *summary_lines(summary)])
    return common.EXIT_OK if partial is None else common.EXIT_INVALID


def summary_lines(summary: Summary) -> list[str]:
    """The summary table, one line per pair, then draws and throw-ins."""
    lines = [
        "pair  players     wins  win rate (95% CI)       avg score  boards bid/made"
        "  avg target  avg tricks"
    ]
    n = summary.matches
    for pair in summary.pairs:
        low, high = pair.win_interval
        rate = f"{pair.wins / n:6.1%} ({low:.1%}-{high:.1%})"
        label = pair.pair.label
        if summary.duplicate:
            label = "NS/EW" if pair.pair == 0 else "EW/NS"
        lines.append(
            f"{label:<5} {pair.player:<10} {pair.wins:5}  {rate:<22} "
            f"{pair.average_score:10.1f}  {pair.boards_bid:>9}/{pair.boards_made:<5}"
            f"  {pair.average_target:10.2f}  {pair.average_tricks:10.2f}"
        )
    low, high = summary.draw_interval
    lines.append("")
    lines.append(
        f"draws: {summary.draws} of {n} ({summary.draws / n:.1%}, 95% CI {low:.1%}-{high:.1%})"
    )
    lines.append(f"throw-ins: {summary.throw_ins} ({summary.throw_ins / n:.2f} a match)")
    return lines
