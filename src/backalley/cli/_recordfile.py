"""Reading a record file for the commands that take one (``check``, ``replay``, ``perft``)."""

from __future__ import annotations

import sys
from pathlib import Path

import attrs

from ..formats.records import MAX_RECORD_BYTES, Record, RecordError, loads

__all__ = ["Unreadable", "fetch", "read_bytes", "read_record"]


@attrs.frozen
class Unreadable:
    """A file that could not be read, and why: sent in place of its bytes (``check --ship``)."""

    message: str


def read_bytes(name: str) -> bytes:
    """The bytes of file ``name`` (``-`` for standard input); RecordError if it cannot be read.

    The size limit is checked before reading, so a huge file costs nothing.
    """
    if name == "-":
        return sys.stdin.buffer.read(MAX_RECORD_BYTES + 1)
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
            return handle.read(MAX_RECORD_BYTES + 1)
    except IsADirectoryError:
        raise RecordError("", "this is a directory, not a file") from None
    except FileNotFoundError:
        raise RecordError("", "no such file") from None
    except OSError as error:
        raise RecordError("", f"cannot read the file: {error.strerror}") from None


def fetch(name: str) -> bytes | Unreadable:
    """The bytes of file ``name``, or why they cannot be read: plain data to send elsewhere."""
    try:
        return read_bytes(name)
    except RecordError as error:
        return Unreadable(error.message)


def read_record(name: str, content: bytes | Unreadable | None = None) -> Record:
    """The record in file ``name``, or in ``content`` when its bytes were read already.

    RecordError if it is not a record.
    """
    if content is None:
        content = read_bytes(name)
    if isinstance(content, Unreadable):
        raise RecordError("", content.message)
    return loads(content)
