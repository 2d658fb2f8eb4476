"""Reading a record file for the commands that take one (``check``, ``replay``, ``perft``)."""

from __future__ import annotations

import sys
from pathlib import Path

from ..formats.records import MAX_RECORD_BYTES, Record, RecordError, loads

__all__ = ["read_record"]


def read_record(name: str) -> Record:
    """The record in file ``name`` (``-`` for standard input); RecordError if it is not one.

    The size limit is checked before reading, so a huge file costs nothing.
    """
    if name == "-":
        data = sys.stdin.buffer.read(MAX_RECORD_BYTES + 1)
    else:
        path = Path(name)
        try:
            size = path.stat().st_size
            if size > MAX_RECORD_BYTES:
                raise RecordError(
                    "",
                    f"a record may have at most {MAX_RECORD_BYTES} bytes (1 MiB) and this file "
                    f"has {size}; a whole match takes a few kilobytes",
                )
            # Read at most one byte past the limit: a device or a pipe has no size to stat.
            with path.open("rb") as handle:
                data = handle.read(MAX_RECORD_BYTES + 1)
        except IsADirectoryError:
            raise RecordError("", "this is a directory, not a file") from None
        except FileNotFoundError:
            raise RecordError("", "no such file") from None
        except OSError as error:
            raise RecordError("", f"cannot read the file: {error.strerror}") from None
    return loads(data)
