"""What each client address has taken: counted in the process, or once for all processes.

The per-address limits of :class:`~backalley.web.limits.Limits` are asked here:
``requests_per_second`` (every route but static files, and the static files apart
at :data:`STATIC_RATE_FACTOR` times the rate), ``sockets_per_address``,
``rooms_per_minute`` and, in a table of several processes, ``analysis_per_address``
(a table of one process counts its analyses in its queue,
:class:`~backalley.web.analysis.Analyses`). A table of one process counts them in memory
(:class:`LocalCounts`). A table of several processes (``backalley table
--processes N``) counts them once, in the supervising process, which every table
process asks over a Unix socket (:class:`SharedCounts`, :class:`CountServer`): a
client whose pages and rooms are spread over N processes still has the budget
``docs/table.md`` gives, not N times it. What each process holds for itself (its
open connections, its rooms in memory, its analysis and thinking workers) stays
counted by that process.

The counting process keeps, for each table process's connection, the sockets it
said were open and the analyses it said were running: a process that dies gives
them back with its connection, so a restarted process starts from what is really
open.

The wire between them is one line a question, ``ID OP ADDRESS``, and one line an
answer, ``ID 0|1``; ``OP`` is one letter (:data:`OPS`). A question unanswered
within :data:`ANSWER_SECONDS` is refused, not waited on.

>>> counts = LocalCounts(requests_per_second=1.0, sockets_per_address=1, rooms_per_minute=1)
>>> counts.take("request", "192.0.2.7", 0.0), counts.take("request", "192.0.2.7", 0.0)
(True, True)
>>> counts.take("request", "192.0.2.7", 0.0), counts.take("socket", "192.0.2.7", 0.0)
(False, True)
>>> counts.take("socket", "192.0.2.7", 0.0), counts.give_back("socket", "192.0.2.7")
(False, None)
>>> counts.take("socket", "192.0.2.7", 0.0)
True
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import time
from collections import Counter, deque
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from .limits import Limits, Rates

__all__ = [
    "ANSWER_SECONDS",
    "OPS",
    "STATIC_RATE_FACTOR",
    "CountServer",
    "Counts",
    "LocalCounts",
    "SharedCounts",
]

STATIC_RATE_FACTOR: Final = 10
"""How many times ``--requests-per-second`` an address may ask for static files."""

ANSWER_SECONDS: Final = 5.0
"""How long a table process waits for the counting process's answer before refusing."""

OPS: Final = {"request": "R", "static": "S", "socket": "O", "room": "M", "analysis": "A"}
"""What may be taken, and its letter on the wire."""

_GIVE_BACK: Final = {"socket": "C", "room": "U", "analysis": "D"}
"""What may be given back (a socket closed, a room not made after all, an analysis
done), and its letter."""

_HELD: Final = ("socket", "analysis")
"""What a process holds until it gives it back: given back for it if the process dies."""

MAX_LINE: Final = 200
"""The longest question line (an address is at most 45 characters)."""

log = logging.getLogger("backalley.web")


class Counts:
    """Each client address's requests, open sockets and rooms made: the limits' counts."""

    async def ask(self, what: str, address: str) -> bool:
        """Take one ``what`` (a key of :data:`OPS`) for ``address``; whether it was allowed."""
        raise NotImplementedError

    def give_back(self, what: str, address: str) -> None:
        """Give back one ``socket`` (closed), ``room`` (not made after all) or ``analysis``."""
        raise NotImplementedError

    def sweep(self, now: float) -> None:
        """Forget what is over (full budgets, rooms made over a minute ago)."""

    async def open(self) -> None:
        """Get ready to count (connect to the counting process)."""

    async def close(self) -> None:
        """Let go of what the counts hold (a connection)."""


class LocalCounts(Counts):
    """The counts in this process's memory: the table of one process, and the counting one."""

    def __init__(
        self,
        *,
        requests_per_second: float = Limits().requests_per_second,
        sockets_per_address: int = Limits().sockets_per_address,
        rooms_per_minute: int = Limits().rooms_per_minute,
        analysis_per_address: int = Limits().analysis_per_address,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.requests: Rates[str] = Rates(requests_per_second)
        """Each address's requests, every route but static files."""
        self.static: Rates[str] = Rates(STATIC_RATE_FACTOR * requests_per_second)
        """Each address's requests of static files (``/static/...``), counted apart."""
        self.rooms_per_minute = rooms_per_minute
        self.held: dict[str, dict[str, int]] = {"socket": {}, "analysis": {}}
        """Open sockets, and analyses waiting or running, by address."""
        self.most = {"socket": sockets_per_address, "analysis": analysis_per_address}
        self.made: dict[str, deque[float]] = {}
        """The times of the rooms each address made in the last minute."""
        self.clock = clock

    @classmethod
    def of(cls, limits: Limits) -> LocalCounts:
        """The counts of ``limits``."""
        return cls(
            requests_per_second=limits.requests_per_second,
            sockets_per_address=limits.sockets_per_address,
            rooms_per_minute=limits.rooms_per_minute,
            analysis_per_address=limits.analysis_per_address,
        )

    def take(self, what: str, address: str, now: float) -> bool:
        """Take one ``what`` for ``address`` at ``now``; whether it was allowed."""
        if what == "request":
            return self.requests.take(address, now)
        if what == "static":
            return self.static.take(address, now)
        if what in _HELD:
            held = self.held[what]
            now_held = held.get(address, 0)
            if now_held >= self.most[what]:
                return False
            held[address] = now_held + 1
            return True
        if what == "room":
            made = self.made.setdefault(address, deque())
            while made and made[0] < now - 60:
                made.popleft()
            if len(made) >= self.rooms_per_minute:
                return False
            made.append(now)
            return True
        raise ValueError(f"nothing called {what!r} is counted")

    async def ask(self, what: str, address: str) -> bool:
        """Take one ``what`` for ``address`` now; whether it was allowed."""
        return self.take(what, address, self.clock())

    def give_back(self, what: str, address: str) -> None:
        """Give back one ``socket`` (closed), ``room`` (not made after all) or ``analysis``."""
        if what in _HELD:
            held = self.held[what]
            left = held.get(address, 0) - 1
            if left > 0:
                held[address] = left
            else:
                held.pop(address, None)
        elif what == "room":
            made = self.made.get(address)
            if made:
                made.pop()
        else:
            raise ValueError(f"nothing called {what!r} is given back")

    def sweep(self, now: float) -> None:
        """Forget full budgets and the rooms made over a minute ago."""
        self.requests.sweep(now)
        self.static.sweep(now)
        for address in list(self.made):
            made = self.made[address]
            while made and made[0] < now - 60:
                made.popleft()
            if not made:
                del self.made[address]


_NAMES: Final = {letter: name for ops in (OPS, _GIVE_BACK) for name, letter in ops.items()}
"""What each letter on the wire takes or gives back."""


class CountServer:
    """The counts of every table process, kept once, answered over a Unix socket at ``path``.

    Runs in the process that supervises the table's processes (``backalley table
    --processes N``). Each connection is one table process; the sockets it said were
    open are given back when it goes.
    """

    def __init__(self, counts: LocalCounts, path: str | Path) -> None:
        self.counts = counts
        self.path = str(path)
        self._server: asyncio.AbstractServer | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._handlers: set[asyncio.Task[Any]] = set()

    async def start(self) -> None:
        """Listen at the path (readable and writable by this user only)."""
        previous = os.umask(0o077)
        try:
            self._server = await asyncio.start_unix_server(self._serve, self.path)
        finally:
            os.umask(previous)
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep())

    async def stop(self) -> None:
        """Stop answering; close every process's connection."""
        if self._sweeper is not None:
            self._sweeper.cancel()
        for writer in list(self._writers):
            writer.close()
        if self._handlers:
            # Each handler ends at its connection's end: let them, rather than be cancelled.
            await asyncio.wait(self._handlers, timeout=2)
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(2):
                    await self._server.wait_closed()

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(5)
            self.counts.sweep(self.counts.clock())

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held: Counter[tuple[str, str]] = Counter()
        self._writers.add(writer)
        handler = asyncio.current_task()
        if handler is not None:
            self._handlers.add(handler)
        try:
            while line := await reader.readline():
                answer = self._answer(line[:MAX_LINE], held)
                if answer is not None:
                    writer.write(answer)
        except (ConnectionError, asyncio.IncompleteReadError, ValueError):
            pass
        finally:
            # A process gone: its sockets are closed, its analyses ended, with it.
            for (what, address), number in held.items():
                for _ in range(number):
                    self.counts.give_back(what, address)
            self._writers.discard(writer)
            if handler is not None:
                self._handlers.discard(handler)
            writer.close()

    def _answer(self, line: bytes, held: Counter[tuple[str, str]]) -> bytes | None:
        parts = line.decode("ascii", "replace").split()
        if len(parts) != 3 or parts[1] not in _NAMES:  # ID OP ADDRESS
            # Refused, not a reason to drop the process's connection (which stops it).
            log.warning("the counts: a question not understood: %r", line[:60])
            return f"{parts[0]} 0\n".encode("ascii") if parts and parts[0].isdigit() else None
        number, letter, address = parts
        what = _NAMES[letter]
        if letter in _GIVE_BACK.values():
            if what in _HELD:
                # Only what this process holds: it cannot give back another's.
                if held[what, address] <= 0:
                    return None
                held[what, address] -= 1
                if not held[what, address]:
                    del held[what, address]
            self.counts.give_back(what, address)
            return None
        allowed = self.counts.take(what, address, self.counts.clock())
        if allowed and what in _HELD:
            held[what, address] += 1
        return f"{number} {int(allowed)}\n".encode("ascii")


class SharedCounts(Counts):
    """The counts kept by the supervising process, asked over its Unix socket.

    ``on_lost`` is called once if the connection goes (the supervisor is gone): the
    table process then stops, since nothing counts for it any more.
    """

    def __init__(self, path: str | Path, on_lost: Callable[[], None] | None = None) -> None:
        self.path = str(path)
        self.on_lost = on_lost
        self._writer: asyncio.StreamWriter | None = None
        self._reader_task: asyncio.Task[None] | None = None
        self._waiting: dict[int, asyncio.Future[bool]] = {}
        # Asks of something held (a socket, a room, an analysis) refused here for want of
        # a timely answer: granted late, the supervisor counts them, so they go back.
        self._late: dict[int, tuple[str, str]] = {}
        self._numbers = itertools.count(1)
        self._closing = False

    async def open(self) -> None:
        """Connect to the counting process."""
        reader, self._writer = await asyncio.open_unix_connection(self.path)
        self._reader_task = asyncio.get_running_loop().create_task(self._read(reader))

    async def _read(self, reader: asyncio.StreamReader) -> None:
        try:
            while line := await reader.readline():
                number, _, allowed = line.decode("ascii").partition(" ")
                granted = allowed.strip() == "1"
                waiting = self._waiting.pop(int(number), None)
                if waiting is not None and not waiting.done():
                    waiting.set_result(granted)
                elif (late := self._late.pop(int(number), None)) is not None and granted:
                    self.give_back(*late)
        except (ConnectionError, ValueError):
            pass
        for waiting in self._waiting.values():
            if not waiting.done():
                waiting.set_result(False)
        self._waiting.clear()
        self._late.clear()
        self._writer = None
        if not self._closing:
            log.error("the process counting every client's limits is gone: stopping")
            if self.on_lost is not None:
                self.on_lost()

    def _send(self, letter: str, address: str, number: int = 0) -> bool:
        if self._writer is None:
            return False
        # An address never holds a space (client_address); a line never breaks in two.
        safe = "".join(ch for ch in address if ch.isprintable() and not ch.isspace()) or "-"
        self._writer.write(f"{number} {letter} {safe[:64]}\n".encode("ascii", "replace"))
        return True

    async def ask(self, what: str, address: str) -> bool:
        """Take one ``what`` for ``address``; refused if the answer does not come in time."""
        number = next(self._numbers)
        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._waiting[number] = answer
        if not self._send(OPS[what], address, number):
            self._waiting.pop(number, None)
            return False
        try:
            async with asyncio.timeout(ANSWER_SECONDS):
                return await answer
        except TimeoutError:
            log.warning("address %s: %s refused: the counts did not answer in time", address, what)
            if what in _GIVE_BACK:
                self._late[number] = (what, address)
            return False
        finally:
            self._waiting.pop(number, None)

    def give_back(self, what: str, address: str) -> None:
        """Give back one ``socket``, ``room`` or ``analysis`` (no answer is waited for)."""
        self._send(_GIVE_BACK[what], address)

    async def close(self) -> None:
        """Close the connection (the process is stopping: not a loss)."""
        self._closing = True
        if self._writer is not None:
            self._writer.close()
        if self._reader_task is not None:
            self._reader_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader_task
