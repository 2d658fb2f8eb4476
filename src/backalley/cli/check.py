"""``backalley check RECORD...``: replay game records and verify every claimed score.

For each record: the first illegal action, with its position (deal, bid or
trick and card), the action, the reason code and sentence; every claimed score,
total or result that the replay does not bear out; or that the record is valid.
A record that stops early is valid as a position and reported as partial
(``--complete`` makes that a failure).

Exit status: 0 when every record is valid and consistent, 1 when one breaks
the rules or claims a wrong score, 2 when an input is not a record at all.
``--json`` prints one JSON object per record, in a list, instead of text.
"""

from __future__ import annotations

import argparse
import json
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
    worst = EXIT_OK
    reports = []
    lines = []
    for name in args.records:
        status, report, text = check_file(name, complete=args.complete)
        worst = max(worst, status)
        reports.append(report)
        lines.append(text)
    if args.json:
        write_lines([json.dumps(reports, indent=2)])
    else:
        write_lines(lines)
    return worst
