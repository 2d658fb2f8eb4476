"""``backalley perft``: count the legal action sequences from a position, depth by depth.

The position is a new match (``--seed``, ``--schedule``, ``--tie``,
``--first-dealer``) or the end of a record (``--record``). Each line gives a
depth and the number of distinct legal action sequences of that length;
``--divide`` instead splits the deepest count by first action, which finds the
first place two implementations disagree (``docs/conformance.md``).
"""

from __future__ import annotations

import argparse

from ..engine.match import new_match
from ..formats.checking import IllegalRecord, replay
from ..formats.perft import divide, perft
from ..formats.records import RecordError
from . import _common as common
from ._recordfile import read_record

__all__ = ["MAX_DEPTH", "add_parser", "run"]

MAX_DEPTH = 30
"""Deeper than any useful count; beyond it the walk would run for ages."""


HELP = "count legal action sequences from a position (a conformance test)"
"""The command's line in ``backalley --help``."""
DESCRIPTION = """\
Count the distinct legal action sequences of each length from a position: a new match,
or the end of a record."""


def add_parser(commands: common.Commands) -> None:
    """Register ``backalley perft``."""
    parser = common.add_command(commands, "perft", run, HELP, DESCRIPTION)
    parser.add_argument("--depth", type=int, default=4, help="the deepest length (default 4)")
    parser.add_argument("--record", metavar="RECORD", help="start where this record stops")
    parser.add_argument("--divide", action="store_true", help="split the count by first action")
    common.add_seed_option(parser, 0, "seed of a new match")
    common.add_rules_options(parser)


def run(args: argparse.Namespace) -> int:
    """Print the counts."""
    if not 0 <= args.depth <= MAX_DEPTH:
        raise common.CommandError(f"--depth runs from 0 to {MAX_DEPTH}, not {args.depth}")
    if args.record is not None:
        try:
            state = replay(read_record(args.record))
        except IllegalRecord as error:
            raise common.CommandError(f"{args.record}: {error}", 1) from None
        except RecordError as error:
            raise common.CommandError(f"{args.record}: not a record: {error}") from None
    else:
        state = new_match(common.rules_from(args), seed=args.seed)
    if args.divide:
        if args.depth < 1:
            raise common.CommandError("--divide needs a depth of 1 or more")
        counts = divide(state, args.depth)
        lines = [f"{action}: {count}" for action, count in counts.items()]
        lines.append(f"total: {sum(counts.values())}")
    else:
        lines = [f"depth {depth}: {perft(state, depth)}" for depth in range(args.depth + 1)]
    common.write_lines(lines)
    return common.EXIT_OK
