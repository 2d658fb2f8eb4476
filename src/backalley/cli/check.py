"""``backalley check RECORD...``: replay game records and verify every claimed score.

For each record: the first illegal action, with its position (deal, bid or
trick and card), the action, the reason code and sentence; every claimed score,
total or result that the replay does not bear out; or that the record is valid.
A record that stops early is valid as a position and reported as partial
(``--complete`` makes that a failure).

Exit status: 0 when every record is valid and consistent, 1 when one breaks
the rules or claims a wrong score, 2 when an input is not a record at all.
``--json`` prints one JSON object per record, in a list, instead of text.
``--jobs N`` checks the files in N processes; the reports come in the order given.
"""

from __future__ import annotations

import argparse
import json
import signal
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from typing import Any

from ..engine.state import MatchState
from ..formats.checking import IllegalRecord, check
from ..formats.codec.report import check_report_to_json, error_to_json
from ..formats.records import RecordError
from ..pictures.prose import result_sentence
from ._common import (
    EXIT_INVALID,
    EXIT_OK,
    EXIT_USAGE,
    CommandError,
    Commands,
    add_command,
    add_json_option,
    write_lines,
)
from ._recordfile import read_record

__all__ = ["add_parser", "check_file", "run"]


HELP = "replay game records, report the first illegal action and any wrong score"
"""The command's line in ``backalley --help``."""
DESCRIPTION = """\
Replay each game record through the rules engine. Report the first illegal action with
its position and reason, and every claimed score that differs from the recomputed one.
Exit 0 if all are valid, 1 if one is not, 2 if an input is not a record."""


def add_parser(commands: Commands) -> None:
    """Register ``backalley check``."""
    parser = add_command(commands, "check", run, HELP, DESCRIPTION)
    parser.add_argument(
        "records", nargs="+", metavar="RECORD", help="record files ('-' reads stdin)"
    )
    add_json_option(parser)
    parser.add_argument(
        "--complete", action="store_true", help="also fail a record that does not finish the match"
    )
    parser.add_argument(
        "--jobs", type=int, default=1, help="processes to check in; reports keep the order given"
    )


def _position(state: MatchState) -> str:
    """Where a partial record stops, for people."""
    rules = state.rules
    if state.deal is None:
        return (
            f"before deal {state.deal_number + 1} ({state.counted_deals} of {rules.deals} played)"
        )
    deal_state = state.deal
    head = f"in deal {state.deal_number + 1}, {state.hand_size} cards"
    mover = state.to_move.name.title() if state.to_move is not None else "nobody"
    if state.phase.value == "bid":
        return f"{head}, {mover} to bid"
    trick = len(deal_state.tricks) + 1
    current = state.current_trick
    card = 1 + (len(current.cards) if current is not None else 0)
    return f"{head}, trick {trick} card {card}, {mover} to play"


def check_file(name: str, *, complete: bool = False) -> tuple[int, dict[str, Any], str]:
    """Check one record file: the exit status, the JSON report and the text line."""
    report: dict[str, Any] = {"file": name}
    try:
        record = read_record(name)
        result = check(record)
    except IllegalRecord as error:
        report |= {"status": "illegal", "error": error_to_json(error)}
        text = (
            f"{name}: illegal: {error.path} ({error.where}): {error.action} "
            f"[{error.reason.value}] {error.refusal.message}"
        )
        return EXIT_INVALID, report, text
    except RecordError as error:
        report |= {"status": "not_a_record", "error": error_to_json(error)}
        where = f"{error.path}: " if error.path else ""
        return EXIT_USAGE, report, f"{name}: not a record: {where}{error.message}"
    state = result.state
    report |= check_report_to_json(result, len(record.deals))
    if result.discrepancies:
        report["status"] = "inconsistent"
        lines = [f"{name}: inconsistent: {d.path}: {d.message}" for d in result.discrepancies]
        return EXIT_INVALID, report, "\n".join(lines)
    if result.complete:
        report["status"] = "valid"
        deals = len(state.history)
        assert state.outcome is not None  # the match is complete
        return (
            EXIT_OK,
            report,
            f"{name}: valid: a complete match, {deals} deals; {result_sentence(state.outcome)}",
        )
    report["status"] = "incomplete" if complete else "valid"
    ns, ew = state.totals
    text = (
        f"{name}: {'incomplete' if complete else 'valid'}: a partial record (a position, not a "
        f"finished match), stopping {_position(state)}; totals NS {ns}, EW {ew}"
    )
    return (EXIT_INVALID if complete else EXIT_OK), report, text


def run(args: argparse.Namespace) -> int:
    """Check every record; the worst status."""
    if args.jobs < 1:
        raise CommandError(f"--jobs must be at least 1, not {args.jobs}")
    worst = EXIT_OK
    reports = []
    lines = []
    for status, report, text in _check_files(args.records, args.complete, args.jobs):
        worst = max(worst, status)
        reports.append(report)
        lines.append(text)
    if args.json:
        write_lines([json.dumps(reports, indent=2)])
    else:
        write_lines(lines)
    return worst


def _check_files(
    names: list[str], complete: bool, jobs: int
) -> Iterator[tuple[int, dict[str, Any], str]]:
    """``check_file`` of each name, in order; the files spread over ``jobs`` processes."""
    one = partial(check_file, complete=complete)
    # Standard input belongs to this process: '-' is read here, files by the workers.
    files = [name for name in names if name != "-"]
    if jobs == 1 or len(files) < 2:
        yield from map(one, names)
        return
    chunk = max(1, len(files) // (jobs * 8))
    pool = ProcessPoolExecutor(max_workers=jobs, initializer=_leave_interrupts_to_parent)
    try:
        checked = pool.map(one, files, chunksize=chunk)
        for name in names:
            yield one(name) if name == "-" else next(checked)
    finally:
        # On Ctrl-C, drop the queued files rather than wait for them.
        pool.shutdown(wait=False, cancel_futures=True)


def _leave_interrupts_to_parent() -> None:
    """In a worker, ignore Ctrl-C: the parent stops the run and reports it once."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
