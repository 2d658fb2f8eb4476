"""The table's rooms on disk: one SQLite database, one transaction an action.

A room is a row of ``rooms`` (its rules and match seed), four rows of
``seats`` (who sits there: a person through a link, a computer player, or
nobody yet) and its actions, one row each in ``actions``, numbered from 0.
The match itself is never stored: it is the rules, the seed and the actions,
replayed through ``apply`` when the server starts (:mod:`backalley.web.rooms`),
so what is on disk is always a position the rules allow.

Every change is one transaction, committed before anyone is told of it; the
database is in WAL mode with ``synchronous=FULL``, so an acknowledged action
survives the server being killed (SIGKILL) and the machine losing power. The
key ``(room, seq)`` makes a second writer of the same action number fail
instead of forking the match.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Final

import attrs

from ..core.cards import Seat
from ..core.rules import Rules
from ..formats.records import rules_from_json, rules_to_json

__all__ = ["SCHEMA_VERSION", "SeatRow", "Store", "StoreError", "StoredRoom"]

SCHEMA_VERSION: Final = 1
"""The layout of the tables below, kept in SQLite's ``user_version``."""

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS rooms (
    id TEXT PRIMARY KEY,
    mode TEXT NOT NULL,
    rules TEXT NOT NULL,
    seed TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS seats (
    room TEXT NOT NULL REFERENCES rooms(id),
    seat TEXT NOT NULL,
    token TEXT UNIQUE,
    occupant TEXT NOT NULL,
    player TEXT,
    PRIMARY KEY (room, seat)
);
CREATE TABLE IF NOT EXISTS actions (
    room TEXT NOT NULL REFERENCES rooms(id),
    seq INTEGER NOT NULL,
    action TEXT NOT NULL,
    PRIMARY KEY (room, seq)
);
"""


class StoreError(RuntimeError):
    """The database is not one this table wrote, or is of another schema version."""


@attrs.frozen
class SeatRow:
    """One seat of a stored room.

    ``token`` is its link's (None once a computer sits there), ``occupant`` who sits
    there (``empty``, ``person`` or ``computer``), ``player`` which computer player.
    """

    seat: Seat
    token: str | None
    occupant: str
    player: str | None


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


class Store:
    """The rooms' database at ``path`` (created if absent); ``":memory:"`` for tests."""

    def __init__(self, path: str | Path) -> None:
        # isolation_level=None: transactions are begun and committed here, explicitly,
        # so that each one is exactly one change of one room.
        self._db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA foreign_keys=ON")
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        tables = {row[0] for row in self._db.execute("SELECT name FROM sqlite_master")}
        if version == 0 and tables - {"rooms", "seats", "actions"}:
            raise StoreError(f"{path} holds other tables: it is not a table's database")
        if version not in (0, SCHEMA_VERSION):
            raise StoreError(
                f"{path} is a table database of schema {version}; this version reads "
                f"schema {SCHEMA_VERSION}"
            )
        with self._transaction() as db:
            # executescript would commit on its own: the statements run one by one, inside.
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def close(self) -> None:
        """Close the database (every change is already committed)."""
        self._db.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def add_room(  # noqa: PLR0913, PLR0917 -- a room's stored parts
        self,
        room: str,
        mode: str,
        rules: Rules,
        seed: int,
        created: float,
        seats: Sequence[SeatRow],
    ) -> None:
        """Store a new room and its four seats, in one transaction."""
        with self._transaction() as db:
            db.execute(
                "INSERT INTO rooms VALUES (?, ?, ?, ?, ?)",
                (room, mode, json.dumps(rules_to_json(rules)), str(seed), created),
            )
            db.executemany(
                "INSERT INTO seats VALUES (?, ?, ?, ?, ?)",
                [(room, row.seat.letter, row.token, row.occupant, row.player) for row in seats],
            )

    def set_seats(self, room: str, seats: Sequence[SeatRow]) -> None:
        """Change who sits at some seats of a room, in one transaction."""
        with self._transaction() as db:
            for row in seats:
                db.execute(
                    "UPDATE seats SET token = ?, occupant = ?, player = ? "
                    "WHERE room = ? AND seat = ?",
                    (row.token, row.occupant, row.player, room, row.seat.letter),
                )

    def add_action(self, room: str, seq: int, action: str) -> None:
        """Append action number ``seq`` to a room, in one transaction.

        Raises ``sqlite3.IntegrityError`` if that number is already taken.
        """
        with self._transaction() as db:
            db.execute("INSERT INTO actions VALUES (?, ?, ?)", (room, seq, action))

    def rooms(self) -> Iterator[StoredRoom]:
        """Every stored room, oldest first, with its seats and actions in order."""
        rows = self._db.execute(
            "SELECT id, mode, rules, seed, created FROM rooms ORDER BY created, id"
        ).fetchall()
        for room, mode, rules, seed, created in rows:
            seats = tuple(
                SeatRow(Seat.parse(seat), token, occupant, player)
                for seat, token, occupant, player in self._db.execute(
                    "SELECT seat, token, occupant, player FROM seats WHERE room = ?", (room,)
                )
            )
            actions = tuple(
                action
                for (action,) in self._db.execute(
                    "SELECT action FROM actions WHERE room = ? ORDER BY seq", (room,)
                )
            )
            yield StoredRoom(
                room,
                mode,
                rules_from_json(json.loads(rules), "rules"),
                int(seed),
                created,
                tuple(sorted(seats, key=lambda row: row.seat)),
                actions,
            )

    def action_count(self, room: str) -> int:
        """How many actions a room has on disk (for tests and checks)."""
        count: int = self._db.execute(
            "SELECT COUNT(*) FROM actions WHERE room = ?", (room,)
        ).fetchone()[0]
        return count
