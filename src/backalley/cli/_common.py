"""What every ``backalley`` command shares: parser preamble, options, exit codes, output.

The options several commands take (the rules: ``--schedule``, ``--tie``,
``--first-dealer``; ``--seed``; ``--json``) are defined here once, so that they are
spelled, defaulted and explained the same way everywhere.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Final, TextIO, TypeAlias

from ..core.cards import Seat
from ..core.rules import SCHEDULES, Rules, TiePolicy

__all__ = [
    "EXIT_INTERRUPTED",
    "EXIT_INVALID",
    "EXIT_OK",
    "EXIT_USAGE",
    "STOP_SIGNALS",
    "CommandError",
    "Commands",
    "ProgressBar",
    "Stopped",
    "add_command",
    "add_json_option",
    "add_rules_options",
    "add_seed_option",
    "interruption",
    "rules_from",
    "silence",
    "stopping_on_signals",
    "write_lines",
]

EXIT_OK = 0
"""All went well: every record valid, the match played to its end, the output written."""
EXIT_INVALID = 1
"""A finding: the input was read and breaks the rules (a record with an illegal action or a
wrong score, say), or a match was left unfinished."""
EXIT_USAGE = 2
"""Bad input or usage: bad options, a file that is not what it should be, a file or stream
that cannot be read or written."""

EXIT_INTERRUPTED = 128 + signal.SIGINT
"""Interrupted (Ctrl-C, SIGINT): 130. Stopped by SIGTERM or SIGHUP: 128 plus the signal's
number, 143 or 129, as a shell reports a command the signal ended."""

STOP_SIGNALS: Final = (signal.SIGTERM, signal.SIGHUP)
"""What ``kill PID``, a service manager, a job scheduler or a closed terminal sends: each
stops a command as Ctrl-C does (one line, its workers stopped), its status 128 + the signal.
The workers of ``--jobs`` die of them (:func:`backalley.players.simulation.worker_signals`)."""

Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
Run: TypeAlias = Callable[[argparse.Namespace], int]


class CommandError(Exception):
    """A failure a command reports in one sentence, with its exit status; never a traceback."""

    def __init__(self, message: str, status: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.status = status


class Stopped(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised in the main thread where Ctrl-C raises KeyboardInterrupt.

    A subclass of KeyboardInterrupt, so that every command stops on it exactly as it
    stops on Ctrl-C: workers shut down, one line said, nothing half written.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def interruption(error: KeyboardInterrupt) -> tuple[str, int]:
    """What stopped a command in words (``interrupted``, ``stopped by SIGTERM``); its status."""
    if isinstance(error, Stopped):
        return f"stopped by {signal.Signals(error.signum).name}", 128 + error.signum
    return "interrupted", EXIT_INTERRUPTED


def _raise_stopped(signum: int, frame: object) -> None:
    raise Stopped(signum)


@contextmanager
def stopping_on_signals() -> Iterator[None]:
    """While inside, SIGTERM and SIGHUP raise :class:`Stopped`, as SIGINT raises KeyboardInterrupt.

    The handlers there were before are put back after.
    """
    previous = {signum: signal.signal(signum, _raise_stopped) for signum in STOP_SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def add_command(
    commands: Commands, name: str, run: Run, help: str, description: str
) -> argparse.ArgumentParser:
    """Register the command ``name``, which ``run`` carries out; its parser, for its options.

    ``help`` is its line in ``backalley --help``, ``description`` its paragraph in
    ``backalley NAME --help`` (re-wrapped to the terminal, so written as prose).
    """
    parser = commands.add_parser(name, help=help, description=description)
    parser.set_defaults(run=run)
    return parser


def add_rules_options(parser: argparse.ArgumentParser) -> None:
    """The variant options ``rules_from`` reads: ``--schedule``, ``--tie``, ``--first-dealer``."""
    parser.add_argument(
        "--schedule",
        default="standard",
        help=(
            f"a named schedule ({', '.join(SCHEDULES)}) or hand sizes separated by "
            "commas, such as 3,2,1 (default standard)"
        ),
    )
    parser.add_argument(
        "--tie",
        default=TiePolicy.DRAW.value,
        choices=[policy.value for policy in TiePolicy],
        help="what equal totals mean (default draw)",
    )
    parser.add_argument(
        "--first-dealer", default="N", help="the seat that deals first: N, E, S or W (default N)"
    )


def rules_from(args: argparse.Namespace) -> Rules:
    """The rules named by ``--schedule``, ``--tie`` and ``--first-dealer``."""
    schedule: str | list[int] = args.schedule
    if any(ch.isdigit() for ch in args.schedule):
        try:
            schedule = [int(part) for part in args.schedule.split(",")]
        except ValueError:
            raise ValueError(
                f"cannot read the schedule {args.schedule!r}: write hand sizes like 3,2,1"
            ) from None
    return Rules(schedule=schedule, tie=args.tie, first_dealer=Seat.parse(args.first_dealer))


def add_seed_option(parser: argparse.ArgumentParser, default: int | None, what: str) -> None:
    """``--seed``, with what it seeds and its default (None: a random seed)."""
    shown = "a random one" if default is None else str(default)
    parser.add_argument("--seed", type=int, default=default, help=f"{what} (default {shown})")


def add_json_option(parser: argparse.ArgumentParser) -> None:
    """``--json``: machine-readable output instead of text."""
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")


def write_lines(lines: Iterable[str], stream: TextIO | None = None) -> None:
    """Print lines to standard output (or ``stream``), quietly stopping if the reader has gone.

    A reader that stops reading (``| head -1``) is not an error of ours: the rest of
    the output is dropped. Any other failure to write (a full disk, ``> /dev/full``)
    raises :class:`CommandError`, which the command line reports in one line.
    """
    out = sys.stdout if stream is None else stream
    try:
        for line in lines:
            out.write(line + "\n")
        out.flush()
    except BrokenPipeError:
        silence(out)
    except OSError as error:
        silence(out)
        raise CommandError(f"cannot write the output: {error.strerror or error}") from None


def silence(stream: TextIO) -> None:
    """Point ``stream`` at /dev/null, so the interpreter's last flush of it cannot fail again."""
    try:
        fileno = stream.fileno()
    except (OSError, ValueError):
        # Not a real file (a test's StringIO): nothing is flushed at exit.
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fileno)
    os.close(devnull)


def available_cpus() -> int:
    """The CPUs this process may run on (its affinity where the system tells it)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - macOS and Windows have no affinity call
        return max(1, os.cpu_count() or 1)


def jobs_within_cpus(command: str, jobs: int) -> int:
    """``--jobs``, refused below 1 and lowered (with a line on stderr) to the CPUs available."""
    if jobs < 1:
        raise CommandError(f"--jobs must be at least 1, not {jobs}")
    cpus = available_cpus()
    if jobs > cpus:
        # More processes than CPUs only share the same CPUs, at the cost of starting them.
        print(
            f"backalley {command}: --jobs {jobs} lowered to {cpus}, the CPUs available",
            file=sys.stderr,
        )
        return cpus
    return jobs


BAR_WIDTH: Final = 30
"""The characters of a progress bar's bar, between its brackets."""


class ProgressBar:
    """A one-line bar on a terminal's standard error, redrawn in place: ``[###---] 3/10 unit``.

    Commands draw one only when standard error is a terminal (or when asked), so
    that a log or a pipe never fills with redrawn lines.
    """

    def __init__(self, stream: TextIO, total: int, unit: str) -> None:
        self.stream = stream
        self.total = total
        self.unit = unit
        self.width = 0

    def __call__(self, done: int) -> None:
        """Redraw the bar at ``done`` of the total."""
        filled = BAR_WIDTH * done // self.total if self.total else BAR_WIDTH
        bar = "#" * filled + "-" * (BAR_WIDTH - filled)
        line = f"[{bar}] {done}/{self.total} {self.unit}"
        self.width = max(self.width, len(line))
        self.stream.write("\r" + line)
        self.stream.flush()

    def clear(self) -> None:
        """Rub the bar out, leaving the cursor at the start of the empty line."""
        self.stream.write("\r" + " " * self.width + "\r")
        self.stream.flush()
