"""The server's log: one line per condition, never a traceback, and a cap on repeats.

A client can make the server log at will (a frame of invalid UTF-8, a half-sent
request, a refused socket), and the libraries below the table (uvicorn, asyncio)
log such conditions with a traceback each. :class:`OneLine`, installed on the
loggers that may say such things (:func:`install`):

- writes a record that carries an exception as one line, the exception's type and
  message appended, never its traceback;
- lets the same line (the same logger and message pattern, whatever its
  arguments, such as the address) through at most ``burst`` times in ``window``
  seconds; the first such line after the window says how many were left out.

>>> import logging
>>> one = OneLine(burst=2, window=60.0, clock=lambda: 0.0)
>>> line = {"msg": "address %s: refused"}
>>> records = [logging.makeLogRecord({**line, "args": (n,)}) for n in range(4)]
>>> [one.filter(record) for record in records]
[True, True, False, False]
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Final

__all__ = ["LOGGERS", "OneLine", "install"]

LOGGERS: Final = ("backalley.web", "uvicorn.error", "asyncio")
"""The loggers a client can make write: the table's own, uvicorn's, asyncio's."""


class OneLine(logging.Filter):
    """No tracebacks, and each line at most ``burst`` times in ``window`` seconds."""

    def __init__(
        self,
        *,
        burst: int = 5,
        window: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
        keys: int = 1000,
    ) -> None:
        super().__init__()
        self.burst = burst
        self.window = window
        self.clock = clock
        self.keys = keys
        self._seen: dict[tuple[str, str], tuple[float, int]] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        """Whether to write ``record`` (made one line first); counts it either way."""
        if record.exc_info or record.exc_text:
            error = record.exc_info[1] if record.exc_info else None
            if error is not None:
                record.msg = f"{record.msg} ({type(error).__name__}: {error})"
            record.exc_info = None
            record.exc_text = None
            record.stack_info = None
        # The message's pattern; asyncio's come formatted (a socket, a handle): their
        # first line's start stands for them.
        key = (record.name, str(record.msg).split("\n", 1)[0][:60])
        now = self.clock()
        since, count = self._seen.get(key, (now, 0))
        if now - since >= self.window:
            left_out = count - self.burst
            since, count = now, 0
            if left_out > 0:
                record.msg = f"{record.msg} (and {left_out} more like it left out)"
        if len(self._seen) >= self.keys and key not in self._seen:
            # A flood of distinct lines: forget the oldest counts rather than grow.
            self._seen.clear()
        self._seen[key] = (since, count + 1)
        return count < self.burst


def install(filter_: OneLine | None = None) -> OneLine:
    """Put one :class:`OneLine` on every logger of :data:`LOGGERS` (and their handlers')."""
    chosen = OneLine() if filter_ is None else filter_
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if chosen not in logger.filters:
            logger.addFilter(chosen)
    return chosen
