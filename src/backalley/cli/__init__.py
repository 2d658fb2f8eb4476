"""The ``backalley`` command line: one module per command, each adding its own parser.

A command module has ``add_parser(commands)``, which registers its options and
sets ``run``: a function of the parsed arguments returning the exit status.
Errors reach the user as one line on standard error and a non-zero exit status,
never as a traceback; results go to standard output. Exit status: 0 all went well,
1 a finding (a record that breaks the rules, a match left unfinished), 2 bad input or
usage (bad options, a file that is not a record, a file or stream that cannot be
read or written), 130 interrupted (143 and 129: stopped by SIGTERM or SIGHUP). A
reader that stops reading the output (``| head -1``) ends the command quietly.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .. import __compiled__, __version__
from . import analyze, check, demo, fuzz, perft, play, replay, serve, simulate, table
from ._common import (
    EXIT_OK,
    EXIT_USAGE,
    CommandError,
    interruption,
    silence,
    stopping_on_signals,
)

__all__ = ["main"]

COMMANDS = (demo, simulate, play, table, check, replay, analyze, perft, serve, fuzz)
"""The command modules, in the order ``backalley --help`` lists them."""


def version_text() -> str:
    """What ``backalley --version`` prints: the version and which build is running."""
    build = "compiled by mypyc" if __compiled__ else "pure Python"
    return f"backalley {__version__} ({build})"


def build_parser() -> argparse.ArgumentParser:
    """The parser for ``backalley`` and all its commands."""
    parser = argparse.ArgumentParser(
        prog="backalley",
        description="The reference rules engine for the card game Back Alley.",
    )
    parser.add_argument("--version", action="version", version=version_text())
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_OK
    try:
        with stopping_on_signals():
            status: int = args.run(args)
        # Flush here, not at exit, so that a full disk is reported like any other failure.
        sys.stdout.flush()
    except CommandError as error:
        return _fail(args.command, str(error), error.status)
    except (ValueError, TypeError) as error:
        # Bad values reach the library's constructors, which say what is wrong.
        return _fail(args.command, str(error), EXIT_USAGE)
    except BrokenPipeError:
        # The reader of our output stopped reading (``| head -1``): not an error of ours.
        silence(sys.stdout)
        return EXIT_OK
    except OSError as error:
        # A file or stream that cannot be written or read: say so in one line.
        silence(sys.stdout)
        reason = error.strerror or str(error)
        where = f"{error.filename}: " if error.filename else "cannot write the output: "
        return _fail(args.command, where + reason, EXIT_USAGE)
    except KeyboardInterrupt as error:
        return _fail(args.command, *interruption(error))
    return status


def _fail(command: str, message: str, status: int) -> int:
    """Say on standard error why the command failed; its exit status."""
    try:
        print(f"backalley {command}: {message}", file=sys.stderr)
        sys.stderr.flush()
    except OSError:
        # Standard error is gone too: the exit status is all that is left to say it.
        silence(sys.stderr)
    return status
