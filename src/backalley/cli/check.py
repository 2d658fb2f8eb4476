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
complete document, bad files included. ``--jobs N`` checks the files in N processes of
this machine, and ``--cluster ADDRESS|local`` on a Dask cluster, with the same
reports in the same order (docs/cluster.md).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import sys
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TYPE_CHECKING, Any

from ..cluster import ItemFailure, batches, run_chunks
from ..engine.state import MatchState
from ..formats.checking import IllegalRecord, check
from ..formats.codec.report import check_report_to_json, error_to_json
from ..formats.records import RecordError
from ..pictures.prose import deals_sentence, result_sentence
from ..players.simulation import worker_signals
from ._cluster import add_cluster_options, cluster_client
from ._common import (
    EXIT_INVALID,
    EXIT_OK,
    EXIT_USAGE,
    CommandError,
    Commands,
    add_command,
    add_json_option,
    interruption,
    jobs_within_cpus,
    write_lines,
)
from ._recordfile import Unreadable, fetch, read_record

if TYPE_CHECKING:
    from distributed import Client

__all__ = ["DEFAULT_FILE_CHUNK", "add_parser", "check_chunk", "check_file", "check_files", "run"]

DEFAULT_FILE_CHUNK = 50
"""Record files per cluster task (docs/cluster.md)."""


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
    add_cluster_options(parser, "files", DEFAULT_FILE_CHUNK)
    parser.add_argument(
        "--ship",
        action="store_true",
        help="with --cluster: read the files here and send them to the workers, "
        "for workers that do not share this machine's files",
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


FileReport = tuple[int, dict[str, Any], str]
"""What checking one file gives: the exit status, the JSON report and the text line."""


def check_file(
    name: str, *, complete: bool = False, content: bytes | Unreadable | None = None
) -> FileReport:
    """Check one record file: the exit status, the JSON report and the text line.

    ``content`` is the file's bytes when they were read already (elsewhere).
    """
    report: dict[str, Any] = {"file": name}
    try:
        record = read_record(name, content)
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
        assert state.outcome is not None  # the match is complete
        return (
            EXIT_OK,
            report,
            f"{name}: valid: a complete match, {deals_sentence(state)}; "
            f"{result_sentence(state.outcome)}",
        )
    report["status"] = "incomplete" if complete else "valid"
    ns, ew = state.totals
    text = (
        f"{name}: {'incomplete' if complete else 'valid'}: a partial record (a position, not a "
        f"finished match), stopping {_position(state)}; totals NS {ns}, EW {ew}"
    )
    return (EXIT_INVALID if complete else EXIT_OK), report, text


_ERRORS = ("not_a_record", "error")
"""Report statuses that are errors, not verdicts: their lines go to standard error."""


def _not_a_record(report: dict[str, Any], error: RecordError) -> tuple[int, dict[str, Any], str]:
    name = report["file"]
    report |= {"status": "not_a_record", "error": error_to_json(error)}
    where = f"{error.path}: " if error.path else ""
    return EXIT_USAGE, report, f"{name}: not a record: {where}{error.message}"


def check_files(  # noqa: PLR0913 - the run's settings, keyword-only after the files
    names: Iterable[str],
    *,
    complete: bool = False,
    client: Client | None = None,
    chunk_size: int = DEFAULT_FILE_CHUNK,
    ship: bool = False,
    progress: Callable[[int], None] | None = None,
    jobs: int = 1,
) -> Generator[FileReport, None, None]:
    """:func:`check_file` for each file, in order, as the results come in.

    With a Dask ``client`` the files are checked on its cluster, ``chunk_size``
    files per task, with the same reports in the same order. The workers read
    the files at their absolute paths (a shared folder), or, with ``ship``, are
    sent the bytes this process reads (always so for ``-``). A file whose check
    raises is reported as an ``error``, and the others are checked. Without a
    client, ``jobs`` processes of this machine check the files.
    """
    if client is None:
        checked = _checked_here(list(names), complete, jobs)
        for count, found in enumerate(checked, 1):
            yield found
            if progress is not None:
                progress(count)
        return
    work = functools.partial(check_chunk, complete=complete)
    items = ((name, fetch(name) if ship or name == "-" else _absolute(name)) for name in names)
    stream = run_chunks(client, work, batches(items, chunk_size), progress=progress)
    with contextlib.closing(stream):
        for result in stream:
            if isinstance(result, ItemFailure):
                yield _failed(result.item[0], result.reason)
            else:
                yield result


_MOST_FILES_A_TASK = 16
"""Files a worker checks in one task: a few tenths of a second of work."""


def _checked_here(names: list[str], complete: bool, jobs: int) -> Iterator[FileReport]:
    """``check_file`` of each name, in order; the files spread over ``jobs`` processes."""
    one = functools.partial(check_file, complete=complete)
    # Standard input belongs to this process: '-' is read here, files by the workers.
    files = [name for name in names if name != "-"]
    if jobs == 1 or len(files) < 2:
        yield from map(one, names)
        return
    # Small enough that a stopped run (Ctrl-C, SIGTERM) waits for few files in flight.
    chunk = max(1, min(_MOST_FILES_A_TASK, len(files) // (jobs * 8)))
    pool = ProcessPoolExecutor(max_workers=jobs, initializer=worker_signals)
    try:
        checked = pool.map(one, files, chunksize=chunk)
        for name in names:
            yield one(name) if name == "-" else next(checked)
    finally:
        # On Ctrl-C, drop the queued files rather than wait for them.
        pool.shutdown(wait=False, cancel_futures=True)


def _absolute(name: str) -> str:
    """Where a worker finds file ``name``: its absolute path here."""
    return os.path.abspath(name)


def check_chunk(
    items: Sequence[tuple[str, str | bytes | Unreadable]], *, complete: bool
) -> list[FileReport]:
    """Check a chunk of files on a worker: each one's name and its path or its bytes."""
    return [
        check_file(
            name, complete=complete, content=fetch(source) if isinstance(source, str) else source
        )
        for name, source in items
    ]


def _failed(name: str, reason: str) -> FileReport:
    """The report of a file whose check raised on the cluster."""
    report = {"file": name, "status": "error", "error": {"path": "", "message": reason}}
    return EXIT_USAGE, report, f"{name}: error: the check failed: {reason}"


def run(args: argparse.Namespace) -> int:
    """Check every record, each on its own, printing each report as it comes; the worst status.

    A verdict on a record (valid, illegal, inconsistent, incomplete) is a result and
    goes to standard output; a file that is not a record, or whose check failed, is
    an error and goes to standard error. ``--json`` prints one complete document with
    every file's report, whatever happened to each.
    """
    args.jobs = jobs_within_cpus("check", args.jobs)
    worst = EXIT_OK
    reports = []
    done = 0
    try:
        with cluster_client(args) as client:
            results = check_files(
                args.records,
                complete=args.complete,
                client=client,
                chunk_size=args.chunk_size,
                ship=args.ship,
                jobs=args.jobs,
            )
            # Closed before the client, even on Ctrl-C, so the chunks in flight are cancelled.
            with contextlib.closing(results):
                for status, report, text in results:
                    done += 1
                    worst = max(worst, status)
                    reports.append(report)
                    if report["status"] in _ERRORS:
                        write_lines([f"backalley check: {text}"], sys.stderr)
                    elif not args.json:
                        write_lines([text])
    except KeyboardInterrupt as error:
        # The lines printed so far are whole reports; say that they are not all of them.
        words, status = interruption(error)
        raise CommandError(
            f"{words} after {done} of {len(args.records)} files"
            + ("" if args.json else "; each line above is a whole report"),
            status,
        ) from None
    if args.json:
        write_lines([json.dumps(reports, indent=2)])
    return worst
