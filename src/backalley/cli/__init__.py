"""The ``backalley`` command line: one module per command, each adding its own parser.

A command module has ``add_parser(commands)``, which registers its options and
sets ``run``: a function of the parsed arguments returning the exit status.
Errors reach the user as one line on standard error and a non-zero exit status,
never as a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .. import __compiled__, __version__
from . import check, demo, fuzz, perft, play, replay, serve, simulate
from ._common import EXIT_OK, EXIT_USAGE, CommandError

__all__ = ["main"]

COMMANDS = (demo, simulate, play, check, replay, perft, serve, fuzz)
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
        status: int = args.run(args)
    except CommandError as error:
        print(f"backalley {args.command}: {error}", file=sys.stderr)
        return error.status
    except (ValueError, TypeError) as error:
        # Bad values reach the library's constructors, which say what is wrong.
        print(f"backalley {args.command}: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"backalley {args.command}: interrupted", file=sys.stderr)
        return 130
    return status
