"""``backalley check RECORD...``: replay game records and verify every claimed score.

For each record: the first illegal action, with its position (deal, bid or
trick and card), the action, the reason code and sentence; every claimed score,
total or result that the replay does not bear out; or that the record is valid.
A record that stops early is valid as a position and reported as partial
(``--complete`` makes that a failure).

Every file is reported on its own, whatever goes wrong with it (not JSON, a number
too long, nesting too deep, a file that cannot be read), and the run goes on.
Verdicts go to standard output, "not a record" lines to standard error.

Exit status: the worst seen: 0 when every record is valid and consistent, 1 when
one breaks the rules or claims a wrong score, 2 when an input is not a record at all.
``--json`` prints one JSON object per record, in a list, instead of text: always a
complete document, bad files included.
"""

from __future__ import annotations

import argparse
import json
import sys
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
    except RecursionError:
        # Whatever goes wrong with one file is reported for that file and the run goes on.
        return _not_a_record(report, RecordError("", "the JSON is nested too deeply"))
    except MemoryError:
        return _not_a_record(report, RecordError("", "not enough memory to read it"))
    except OSError as error:
        return _not_a_record(report, RecordError("", f"cannot read it: {error.strerror or error}"))
    except IllegalRecord as error:
        report |= {"status": "illegal", "error": error_to_json(error)}
        text = (
            f"{name}: illegal: {error.path} ({error.where}): {error.action} "
            f"[{error.reason.value}] {error.refusal.message}"
        )
        return EXIT_INVALID, report, text
    except RecordError as error:
        return _not_a_record(report, error)
    except ValueError as error:
        # The library refused the input somewhere below the record reader: still one file.
        return _not_a_record(report, RecordError("", str(error)))
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


def _not_a_record(report: dict[str, Any], error: RecordError) -> tuple[int, dict[str, Any], str]:
    name = report["file"]
    report |= {"status": "not_a_record", "error": error_to_json(error)}
    where = f"{error.path}: " if error.path else ""
    return EXIT_USAGE, report, f"{name}: not a record: {where}{error.message}"


def run(args: argparse.Namespace) -> int:
    """Check every record, each on its own; the worst status.

    A verdict on a record (valid, illegal, inconsistent, incomplete) is a result and
    goes to standard output as soon as it is known; a file that is not a record is an
    error and goes to standard error. ``--json`` prints one complete document with
    every file's report, whatever happened to each.
    """
    worst = EXIT_OK
    reports = []
    for name in args.records:
        status, report, text = check_file(name, complete=args.complete)
        worst = max(worst, status)
        reports.append(report)
        if report["status"] == "not_a_record":
            write_lines([f"backalley check: {text}"], sys.stderr)
        elif not args.json:
            write_lines([text])
    if args.json:
        write_lines([json.dumps(reports, indent=2)])
    return worst
