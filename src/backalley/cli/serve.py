"""``backalley serve``: the engine protocol on standard input and output.

Requests are JSON lines on standard input and replies JSON lines on standard
output, as ``docs/protocol.md`` describes; the command ends at ``bye`` or at
the end of its input. It is what ``backalley fuzz --engine`` runs to check the
fuzzer itself, and what another implementation's own tests may drive.
"""

from __future__ import annotations

import argparse
import sys

from ..protocol.server import serve
from ._common import Commands, add_command

__all__ = ["add_parser", "run"]


HELP = "speak the engine protocol (JSON lines) on standard input and output"
"""The command's line in ``backalley --help``."""
DESCRIPTION = """\
Answer engine-protocol requests (one JSON object a line) on standard input with replies on
standard output, until 'bye' or the end of input. The protocol is described in
docs/protocol.md."""


def add_parser(commands: Commands) -> None:
    """Register ``backalley serve``."""
    add_command(commands, "serve", run, HELP, DESCRIPTION)


def run(args: argparse.Namespace) -> int:
    """Serve until the client says bye or closes standard input."""
    try:
        return serve(sys.stdin.buffer, sys.stdout.buffer)
    except BrokenPipeError:
        # The client went away without saying bye: nothing left to answer.
        return 0
