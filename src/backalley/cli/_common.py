"""What every ``backalley`` command shares: exit codes, output and errors."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable
from typing import TypeAlias

__all__ = ["EXIT_INVALID", "EXIT_OK", "EXIT_USAGE", "CommandError", "Commands", "write_lines"]

EXIT_OK = 0
EXIT_INVALID = 1
"""The input was read, and it breaks the rules (a record with an illegal action, say)."""
EXIT_USAGE = 2
"""The input could not be used at all: bad options, a file that is not what it should be."""

Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


class CommandError(Exception):
    """A failure a command reports in one sentence, with its exit status; never a traceback."""

    def __init__(self, message: str, status: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.status = status


def write_lines(lines: Iterable[str]) -> None:
    """Print lines to standard output, quietly stopping if the reader has gone (``| head``)."""
    try:
        for line in lines:
            sys.stdout.write(line + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader stopped reading: not an error of ours. Point stdout at /dev/null so
        # the interpreter's final flush does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
