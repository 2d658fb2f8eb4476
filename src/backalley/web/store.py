"""The table's rooms on disk: one SQLite database, written by one thread in group commits.

A room is a row of ``rooms`` (its rules, match seed, when it last changed and
when its match ended), four rows of ``seats`` (who sits there: a person through
an invitation, a computer player, or nobody yet; and a digest of the secret of
the browser that claimed the seat) and its actions, one row each in
``actions``, numbered from 0. The match itself is never stored: it is the rules,
the seed and the actions, replayed through ``apply`` when a room is loaded
(:mod:`backalley.web.rooms`), so what is on disk is always a position the rules
allow.

Every change is handed to the store's **writer thread** as data (a
:class:`Write`), which runs all the changes waiting for it (from any number of
rooms) in one transaction, each statement once for all their rows, and commits
them with one ``fsync``: a group commit. If one change is refused (an action
number taken), the group is run again one ``SAVEPOINT`` a change, so that the
refused one alone is undone. A change's future is resolved
only once that commit has returned, and no one is told of a change before its
future is; the database is in WAL mode with ``synchronous=FULL``, so an
acknowledged action survives the server being killed (SIGKILL) and the machine
losing power. The event loop never waits on the disk: it awaits the future
(:func:`asyncio.wrap_future`). The key ``(room, seq)`` makes a second writer of
the same action number fail instead of forking the match.

Secrets are never stored: a seat keeps the SHA-256 digest of its holder's
secret, so that a copy of the database does not let anyone take a seat.

The database keeps every room (a finished match is its record) for as long as
the file is kept; the server keeps in memory only the rooms in play
(:class:`~backalley.web.rooms.Tables`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import queue
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Final

import attrs

from ..core.cards import Seat
from ..core.rules import Rules
from ..formats.records import rules_from_json, rules_to_json

__all__ = [
    "MAX_GROUP",
    "SCHEMA_VERSION",
    "SeatRow",
    "Store",
    "StoreError",
    "StoredRoom",
    "Write",
    "action_write",
    "analysis_write",
    "chat_write",
    "room_write",
    "seats_write",
]

SCHEMA_VERSION: Final = 2
"""The layout of the tables below, kept in SQLite's ``user_version`` (1: before secrets)."""

MAX_GROUP: Final = 512
"""The most changes one group commit holds (a bound on one transaction's size)."""

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS rooms (
    id TEXT PRIMARY KEY,
    mode TEXT NOT NULL,
    rules TEXT NOT NULL,
    seed TEXT NOT NULL,
    created REAL NOT NULL,
    active REAL NOT NULL DEFAULT 0,
    finished REAL
);
CREATE TABLE IF NOT EXISTS seats (
    room TEXT NOT NULL REFERENCES rooms(id),
    seat TEXT NOT NULL,
    token TEXT UNIQUE,
    occupant TEXT NOT NULL,
    player TEXT,
    secret TEXT,
    PRIMARY KEY (room, seat)
);
CREATE TABLE IF NOT EXISTS actions (
    room TEXT NOT NULL REFERENCES rooms(id),
    seq INTEGER NOT NULL,
    action TEXT NOT NULL,
    PRIMARY KEY (room, seq)
);
CREATE INDEX IF NOT EXISTS rooms_in_play ON rooms (finished, active);
CREATE TABLE IF NOT EXISTS chat (
    room TEXT NOT NULL REFERENCES rooms(id),
    seq INTEGER NOT NULL,
    seat TEXT NOT NULL,
    at REAL NOT NULL,
    text TEXT NOT NULL,
    PRIMARY KEY (room, seq)
);
CREATE TABLE IF NOT EXISTS analyses (
    room TEXT PRIMARY KEY REFERENCES rooms(id),
    analysis TEXT NOT NULL
)
"""

# Schema 1 (before invitations were claimed) to 2: the new columns, and every room
# counted as active when it was made.
_MIGRATE_1: Final = (
    "ALTER TABLE rooms ADD COLUMN active REAL NOT NULL DEFAULT 0",
    "ALTER TABLE rooms ADD COLUMN finished REAL",
    "ALTER TABLE seats ADD COLUMN secret TEXT",
    "UPDATE rooms SET active = created",
)

Row = tuple[object, ...]


@attrs.frozen
class Write:
    """One change of the database, as data: statements and their rows, run in order.

    Being data, the writes of a group are run together: each statement once for the
    rows of every write of the group (``executemany``), in the order the statements
    first appear, so that a group of a hundred actions costs a handful of calls.
    """

    statements: tuple[tuple[str, tuple[Row, ...]], ...]


class StoreError(RuntimeError):
    """The database is not one this table wrote, or is of another schema version."""


@attrs.frozen
class SeatRow:
    """One seat of a stored room.

    ``token`` is its invitation's (the link; None once a computer sits there),
    ``occupant`` who sits there (``empty``, ``person`` or ``computer``), ``player``
    which computer player, ``secret`` the digest of the claiming browser's secret
    (None while the invitation is unclaimed).
    """

    seat: Seat
    token: str | None
    occupant: str
    player: str | None
    secret: str | None = None


@attrs.frozen
class StoredRoom:
    """A room as stored: what it needs to be rebuilt by replaying its actions."""

    id: str
    mode: str
    rules: Rules
    seed: int
    created: float
    seats: tuple[SeatRow, ...]
    actions: tuple[str, ...]
    active: float = 0.0
    finished: float | None = None


class Store:
    """The rooms' database at ``path`` (created if absent); ``":memory:"`` for tests.

    :meth:`submit` hands a change (:func:`room_write`, :func:`seats_write`,
    :func:`action_write`) to the writer thread and returns a
    :class:`~concurrent.futures.Future` resolved once the change is committed (or
    failed with its error: ``sqlite3.IntegrityError`` for an action number taken);
    :meth:`submit_async` the same for an event loop. Call :meth:`close` to stop the
    thread.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        # One connection, shared by the writer thread and the readers under a lock:
        # reads are rare (a room loaded when its link is opened) and ":memory:" must be
        # one connection. isolation_level=None: transactions are begun here, explicitly.
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._lock = threading.Lock()
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA foreign_keys=ON")
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        tables = {
            row[0]
            for row in self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        if version == 0 and tables - {"rooms", "seats", "actions", "chat", "analyses"}:
            raise StoreError(f"{path} holds other tables: it is not a table's database")
        if version not in (0, 1, SCHEMA_VERSION):
            raise StoreError(
                f"{path} is a table database of schema {version}; this version reads "
                f"schema {SCHEMA_VERSION}"
            )
        self._db.execute("BEGIN IMMEDIATE")
        try:
            if version == 1:
                for statement in _MIGRATE_1:
                    self._db.execute(statement)
            # executescript would commit on its own: the statements run one by one, inside.
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    self._db.execute(statement)
            self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")
        self.groups = 0
        """How many group commits the writer has made (for benchmarks and tests)."""
        self._queue: queue.SimpleQueue[_Item | None] = queue.SimpleQueue()
        self._writer = threading.Thread(target=self._write_loop, name="table-store", daemon=True)
        self._writer.start()

    def close(self) -> None:
        """Let the writer commit what it was given, stop it and close the database."""
        if self._writer.is_alive():
            self._queue.put(None)
            self._writer.join()
        self._db.close()

    # --- the writer thread ------------------------------------------------------------

    def submit(self, write: Write) -> Future[None]:
        """Hand ``write`` to the writer; its future resolves once it is committed."""
        future: Future[None] = Future()
        if not self._writer.is_alive():
            future.set_exception(sqlite3.ProgrammingError("the table's database is closed"))
            return future
        self._queue.put((write, future))
        return future

    def submit_async(self, write: Write) -> asyncio.Future[None]:
        """As :meth:`submit`, for the running event loop: an asyncio future.

        The writer resolves all of a group's asyncio futures in one call into their
        loop, rather than one wake-up (and one hand-over of the interpreter) each.
        """
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        if not self._writer.is_alive():
            future.set_exception(sqlite3.ProgrammingError("the table's database is closed"))
            return future
        self._queue.put((write, (loop, future)))
        return future

    def _write_loop(self) -> None:
        # Bounded by the queue: it ends on the None that close() puts there.
        while True:
            first = self._queue.get()
            if first is None:
                return
            group = [first]
            stop = False
            # Everything that arrived while the last group was committing goes in this one.
            while len(group) < MAX_GROUP:
                try:
                    waiting = self._queue.get_nowait()
                except queue.Empty:
                    break
                if waiting is None:
                    stop = True
                    break
                group.append(waiting)
            # A future cancelled before its write ran is dropped with its write.
            group = [
                item
                for item in group
                if not isinstance(item[1], Future) or item[1].set_running_or_notify_cancel()
            ]
            if group:
                try:
                    outcomes = self._commit_group([write for write, _ in group])
                except Exception as error:  # the writer must outlive any one group
                    outcomes = [error] * len(group)
                self.groups += 1
                _resolve(group, outcomes)
            if stop:
                return

    def _commit_group(self, writes: Sequence[Write]) -> list[BaseException | None]:
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                # The common case: every write of the group goes in, each statement once.
                merged: dict[str, list[Row]] = {}
                for write in writes:
                    for sql, rows in write.statements:
                        merged.setdefault(sql, []).extend(rows)
                for sql, batch in merged.items():
                    self._db.executemany(sql, batch)
            except sqlite3.Error as error:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                if not isinstance(error, sqlite3.IntegrityError):
                    # Not a refused write (a full disk, a locked file): the group fails.
                    return [error] * len(writes)
                # One write refused (an action number taken): again, one savepoint a write,
                # so that it is undone alone and the rest of the group is committed.
                return self._commit_one_by_one(writes)
            return self._finish_transaction(len(writes), [None] * len(writes))

    def _commit_one_by_one(self, writes: Sequence[Write]) -> list[BaseException | None]:
        outcomes: list[BaseException | None] = []
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as error:
            return [error] * len(writes)
        for write in writes:
            self._db.execute("SAVEPOINT write")
            try:
                for sql, rows in write.statements:
                    self._db.executemany(sql, rows)
            except sqlite3.Error as error:
                self._db.execute("ROLLBACK TO write")
                outcomes.append(error)
            else:
                outcomes.append(None)
            self._db.execute("RELEASE write")
        return self._finish_transaction(len(writes), outcomes)

    def _finish_transaction(
        self, count: int, outcomes: list[BaseException | None]
    ) -> list[BaseException | None]:
        try:
            self._db.execute("COMMIT")
        except sqlite3.Error as error:
            # Nothing of the group is on disk: every write fails with the reason.
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            return [error] * count
        return outcomes

    # --- reading --------------------------------------------------------------------------

    def chat(self, room: str, last: int) -> tuple[int, list[tuple[int, Seat, float, str]]]:
        """How many chat lines a room has, and its ``last`` ones (number, seat, when, text)."""
        with self._lock:
            count: int = self._db.execute(
                "SELECT COUNT(*) FROM chat WHERE room = ?", (room,)
            ).fetchone()[0]
            rows = self._db.execute(
                "SELECT seq, seat, at, text FROM chat WHERE room = ? ORDER BY seq DESC LIMIT ?",
                (room, last),
            ).fetchall()
        return count, [(seq, Seat.parse(seat), at, text) for seq, seat, at, text in reversed(rows)]

    def analysis(self, room: str) -> str | None:
        """A finished match's stored analysis (JSON text, :mod:`backalley.web.analysis`)."""
        with self._lock:
            row = self._db.execute(
                "SELECT analysis FROM analyses WHERE room = ?", (room,)
            ).fetchone()
        return None if row is None else str(row[0])

    def rooms(self, *, active_since: float | None = None) -> Iterator[StoredRoom]:
        """Stored rooms, oldest first, with their seats and actions in order.

        ``active_since``: only the rooms whose match is not over and that changed at
        that time or later (the rooms a server resumes when it starts).
        """
        query = "SELECT id FROM rooms"
        arguments: tuple[float, ...] = ()
        if active_since is not None:
            query += " WHERE finished IS NULL AND active >= ?"
            arguments = (active_since,)
        with self._lock:
            ids = [row[0] for row in self._db.execute(query + " ORDER BY created, id", arguments)]
        for room in ids:
            stored = self.room(room)
            if stored is not None:
                yield stored

    def room_of_token(self, token: str) -> StoredRoom | None:
        """The stored room with a seat whose invitation is ``token``, if any."""
        with self._lock:
            found = self._db.execute("SELECT room FROM seats WHERE token = ?", (token,)).fetchone()
        return None if found is None else self.room(found[0])

    def room(self, room: str) -> StoredRoom | None:
        """One stored room, or None."""
        with self._lock:
            row = self._db.execute(
                "SELECT mode, rules, seed, created, active, finished FROM rooms WHERE id = ?",
                (room,),
            ).fetchone()
            if row is None:
                return None
            mode, rules, seed, created, active, finished = row
            seats = tuple(
                SeatRow(Seat.parse(seat), token, occupant, player, secret)
                for seat, token, occupant, player, secret in self._db.execute(
                    "SELECT seat, token, occupant, player, secret FROM seats WHERE room = ?",
                    (room,),
                )
            )
            actions = tuple(
                action
                for (action,) in self._db.execute(
                    "SELECT action FROM actions WHERE room = ? ORDER BY seq", (room,)
                )
            )
        return StoredRoom(
            room,
            mode,
            rules_from_json(json.loads(rules), "rules"),
            int(seed),
            created,
            tuple(sorted(seats, key=lambda row: row.seat)),
            actions,
            active,
            finished,
        )

    def action_count(self, room: str) -> int:
        """How many actions a room has on disk (for tests and checks)."""
        with self._lock:
            count: int = self._db.execute(
                "SELECT COUNT(*) FROM actions WHERE room = ?", (room,)
            ).fetchone()[0]
        return count


def room_write(  # noqa: PLR0913, PLR0917 -- a room's stored parts
    room: str,
    mode: str,
    rules: Rules,
    seed: int,
    created: float,
    seats: Sequence[SeatRow],
) -> Write:
    """The write of a new room and its four seats."""
    return Write(
        (
            (
                "INSERT INTO rooms (id, mode, rules, seed, created, active) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                ((room, mode, json.dumps(rules_to_json(rules)), str(seed), created, created),),
            ),
            (
                "INSERT INTO seats VALUES (?, ?, ?, ?, ?, ?)",
                tuple(
                    (room, row.seat.letter, row.token, row.occupant, row.player, row.secret)
                    for row in seats
                ),
            ),
        )
    )


def seats_write(room: str, seats: Sequence[SeatRow], when: float) -> Write:
    """The write of who sits at some seats of a room (and who holds them)."""
    return Write(
        (
            (
                "UPDATE seats SET token = ?, occupant = ?, player = ?, secret = ? "
                "WHERE room = ? AND seat = ?",
                tuple(
                    (row.token, row.occupant, row.player, row.secret, room, row.seat.letter)
                    for row in seats
                ),
            ),
            ("UPDATE rooms SET active = ? WHERE id = ?", ((when, room),)),
        )
    )


def action_write(room: str, seq: int, action: str, when: float, *, finished: bool) -> Write:
    """The write of action number ``seq`` of a room (and when the room last changed)."""
    return Write(
        (
            ("INSERT INTO actions VALUES (?, ?, ?)", ((room, seq, action),)),
            (
                "UPDATE rooms SET active = ?, finished = ? WHERE id = ?",
                ((when, when if finished else None, room),),
            ),
        )
    )


def analysis_write(room: str, text: str) -> Write:
    """The write of a finished match's analysis (JSON text), made once per room."""
    return Write((("INSERT OR REPLACE INTO analyses VALUES (?, ?)", ((room, text),)),))


def chat_write(room: str, seq: int, seat: Seat, at: float, text: str) -> Write:
    """The write of chat line number ``seq`` of a room (a number taken: IntegrityError)."""
    return Write(
        (("INSERT INTO chat VALUES (?, ?, ?, ?, ?)", ((room, seq, seat.letter, at, text),)),)
    )


_Target = Future[None] | tuple[asyncio.AbstractEventLoop, "asyncio.Future[None]"]
_Item = tuple[Write, _Target]


def _resolve(group: Sequence[_Item], outcomes: Sequence[BaseException | None]) -> None:
    """Resolve a group's futures: the threads' ones here, the loops' ones in one call each."""
    by_loop: dict[
        asyncio.AbstractEventLoop, list[tuple[asyncio.Future[None], BaseException | None]]
    ]
    by_loop = {}
    for (_, target), outcome in zip(group, outcomes, strict=True):
        if isinstance(target, Future):
            if outcome is None:
                target.set_result(None)
            else:
                target.set_exception(outcome)
        else:
            loop, future = target
            by_loop.setdefault(loop, []).append((future, outcome))
    for loop, futures in by_loop.items():
        # A loop already closed (its server stopped) has no one left to tell.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(_settle, futures)


def _settle(futures: Sequence[tuple[asyncio.Future[None], BaseException | None]]) -> None:
    for future, outcome in futures:
        if future.done():  # cancelled meanwhile
            continue
        if outcome is None:
            future.set_result(None)
        else:
            future.set_exception(outcome)
