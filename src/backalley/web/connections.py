"""The rooms live: each open socket at a seat, each room's lock, frames and automatic actions.

- :class:`Connection`: one open socket at one seat, with its outbox (a bounded
  queue, a send deadline: :class:`~backalley.web.outbox.Outbox`), its message budget
  and when it last spoke; cut with a close code and one log line;
- :class:`Hub`: the rooms' open connections by seat, a lock per room (its changes
  are planned, stored and made one at a time), each seat's frame made once for all
  its sockets (:meth:`Hub.broadcast`), and the task making each room's automatic
  actions (the seeded deal, the computer players' bids and cards), ``pace`` seconds
  apart so that people can follow them;
- the ``refused`` messages a page is sent before a socket is closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Coroutine
from functools import partial
from typing import TYPE_CHECKING, Any

from ..core.cards import Seat
from .limits import CLOSE_IDLE, CLOSE_TOO_SLOW, Budget, Limits, Rates
from .messages import FrameCache, acknowledged, encode
from .outbox import Outbox
from .rooms import Refused, Room, Tables
from .thinking import Thinker

if TYPE_CHECKING:
    from starlette.websockets import WebSocket

__all__ = [
    "ABORT_KEY",
    "Connection",
    "Hub",
    "refusal",
    "refusal_of",
    "refuse_and_close",
]

ABORT_KEY = "backalley.abort"
"""Where the middleware leaves, in a socket's scope, a way to drop its connection at once."""

log = logging.getLogger("backalley.web")


def refusal_of(reason: str, sentence: str) -> dict[str, Any]:
    """A ``refused`` message with no room version."""
    return {"type": "refused", "reason": reason, "message": sentence, "version": None}


def refusal(refused: Refused, room: Room | None) -> dict[str, Any]:
    """The ``refused`` message of a refusal (with the room's version, if any)."""
    return {
        "type": "refused",
        "reason": refused.reason,
        "message": refused.message,
        "version": None if room is None else room.version,
    }


async def refuse_and_close(socket: WebSocket, refused: Refused, code: int) -> None:
    """Say why, then close with ``code``; a socket gone meanwhile is left alone."""
    with contextlib.suppress(Exception):
        async with asyncio.timeout(1.0):
            await socket.send_text(encode(refusal(refused, None)))
            await socket.close(code=code)


class Connection:
    """One open socket at one seat: its outbox, its message budget, when it last spoke."""

    def __init__(
        self, socket: WebSocket, room: Room, seat: Seat, limits: Limits, budget: Budget
    ) -> None:
        self.socket = socket
        self.room = room
        self.seat = seat
        self.limits = limits
        self.held = room.seats[seat].secret
        """The digest of the secret this socket was admitted with: the seat's, until a
        re-invitation replaces it (then nothing the socket sends is carried out)."""
        self.budget = budget
        """The seat's message budget, shared by all its sockets."""
        self.outbox = Outbox(
            socket.send_text,
            limit=limits.send_queue,
            deadline=limits.send_deadline,
            on_cut=self._too_slow,
        )
        self.last_heard = time.monotonic()
        self.frame = -1
        """The number of the seat's frame this socket was last queued (-1: none yet)."""
        self.closing: tuple[int, str] | None = None
        self._reader: asyncio.Task[Any] | None = asyncio.current_task()
        self.sender = asyncio.get_running_loop().create_task(self.outbox.run())
        self.closer: asyncio.Task[None] | None = None

    def allow_message(self) -> bool:
        """Take one message from the seat's budget; whether it had one."""
        self.last_heard = time.monotonic()
        return self.budget.take(self.last_heard)

    @property
    def current(self) -> bool:
        """Whether what this socket sends may still be carried out.

        Not once it is being closed, nor once the seat's secret is no longer the one it
        was admitted with (the host re-invited the seat): checked under the room's
        lock, just before a change is planned.
        """
        return self.closing is None and self.room.seats[self.seat].secret == self.held

    def check_current(self) -> None:
        """Refused (``reinvited``) unless what this socket sends may be carried out."""
        if not self.current:
            raise Refused(
                "reinvited",
                "The host gave this seat a new link: this browser no longer holds it.",
            )

    def send(self, message: dict[str, Any]) -> None:
        """Queue a message for this socket (never waits)."""
        self.outbox.put(encode(message))

    def cut(self, code: int, reason: str, message: dict[str, Any] | None = None) -> None:
        """Close this socket with ``code``: ``message`` first if it can still go out."""
        if self.closing is not None:
            return
        self.closing = (code, reason)
        log.warning(
            "room %s seat %s: socket closed (%d): %s", self.room.id, self.seat.letter, code, reason
        )
        if message is not None:
            self.send(message)
        self.closer = asyncio.get_running_loop().create_task(self._close(code))

    def _too_slow(self, reason: str) -> None:
        if self.closing is None:
            self.closing = (CLOSE_TOO_SLOW, reason)
            log.warning(
                "room %s seat %s: socket closed (%d): too slow, %s",
                self.room.id,
                self.seat.letter,
                CLOSE_TOO_SLOW,
                reason,
            )
        if self.closer is None:
            self.closer = asyncio.get_running_loop().create_task(self._close(CLOSE_TOO_SLOW))

    async def _close(self, code: int) -> None:
        await self.outbox.finish()
        # The close frame goes after what is queued, within the send deadline; a socket
        # that does not take it is dropped (its reader then ends).
        try:
            async with asyncio.timeout(self.limits.send_deadline):
                await asyncio.shield(self.sender)
                await self.socket.close(code)
        except Exception:  # a socket that will not close is dropped
            self.drop()

    def drop(self) -> None:
        """Let go of the connection at once (the transport aborted, the reader stopped)."""
        abort = self.socket.scope.get(ABORT_KEY)
        if callable(abort):
            abort()
        elif self._reader is not None and not self._reader.done():
            self._reader.cancel()


class Hub:
    """The rooms live: their open connections, locks, frames and automatic actions."""

    def __init__(self, tables: Tables, limits: Limits, pace: float) -> None:
        self.tables = tables
        self.limits = limits
        self.pace = pace
        self.thinker = Thinker(limits.think_workers, limits.think_seconds)
        self.sockets: dict[str, dict[Seat, set[Connection]]] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._frames: dict[str, FrameCache] = {}
        self._drivers: dict[str, asyncio.Task[None]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._budgets: Rates[tuple[str, Seat]] = Rates(limits.messages_per_second)

    def budget(self, room: Room, seat: Seat) -> Budget:
        """The seat's message budget (all its sockets together)."""
        return self._budgets.budget((room.id, seat), time.monotonic())

    def lock(self, room: Room) -> asyncio.Lock:
        """The room's lock: its changes are planned, stored and made one at a time."""
        found = self._locks.get(room.id)
        if found is None:
            found = self._locks[room.id] = asyncio.Lock()
        return found

    def spawn(self, coroutine: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Run ``coroutine`` as a task of the server (cancelled when it stops)."""
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # --- the automatic actions ---------------------------------------------------------

    def drive(self, room: Room) -> None:
        """Make sure the room's automatic actions are being made (one task per room)."""
        running = self._drivers.get(room.id)
        if room.automatic_due and (running is None or running.done()):
            self._drivers[room.id] = asyncio.get_running_loop().create_task(self._drive(room))

    async def _drive(self, room: Room) -> None:
        # Bounded: each step is one action of a finite match, and the loop stops as soon as
        # a person is to act (a room always has one: its host).
        while room.automatic_due:
            if self.pace > 0:
                await asyncio.sleep(self.pace)
            # A slow computer chooses in a worker process, within its cap, outside the
            # room's lock and off the loop (thinking.py); a fast one chooses in step_later.
            version = room.version
            chosen = await self.thinker.think(room)
            async with self.lock(room):
                if room.version != version:
                    continue  # the room moved on meanwhile: look at it again
                try:
                    pending = self.tables.step_later(room, chosen)
                    if pending is None:
                        return
                    await pending.done()
                except Exception:
                    # The server's own fault (the disk), not a client's: the room waits.
                    log.exception("room %s: the automatic action failed", room.id)
                    return
            self.broadcast(room)

    async def stop(self) -> None:
        """Cancel the drivers and the server's tasks (the actions so far are stored)."""
        tasks = [*self._drivers.values(), *self._tasks]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self.thinker.stop()

    # --- what the rooms' pages are sent --------------------------------------------------

    def connected(self, room: Room) -> frozenset[Seat]:
        """The seats of a room that have a page open."""
        return frozenset(seat for seat, open_ in self.sockets.get(room.id, {}).items() if open_)

    def connections(self, room: Room, seat: Seat | None = None) -> list[Connection]:
        """The room's open connections (only the seat's, if ``seat`` is given)."""
        seats = self.sockets.get(room.id, {})
        if seat is not None:
            return list(seats.get(seat, ()))
        return [connection for group in seats.values() for connection in group]

    def send_all(self, room: Room, message: dict[str, Any], seat: Seat | None = None) -> None:
        """Queue a message to every open page of the room (or of one seat); never waits."""
        for connection in self.connections(room, seat):
            connection.send(message)

    def broadcast(self, room: Room, acked: Connection | None = None) -> None:
        """Queue each open page of the room what changed in its seat's frame; never waits.

        Each seat's frame is made once, for all that seat's sockets, and numbered when
        it changed; a socket that holds the frame before it is sent the change
        (``{"type": "change", ...}``), any other (new, or behind) the whole frame.
        ``acked``, the socket whose action was just stored, is sent its acknowledgement
        in its change (``"ack": V``), or as a message of its own before its frame when
        it is not sent the change.
        """
        seats = self.sockets.get(room.id)
        if not seats:
            return
        connected = self.connected(room)
        frames = self._frames.get(room.id)
        if frames is None:
            frames = self._frames[room.id] = FrameCache()
        for seat, group in seats.items():
            if not group:
                continue
            number, change = frames.update(
                room, seat, connected=connected, token=room.seats[seat].token
            )
            for connection in group:
                folded = False
                if connection is acked:
                    folded = (
                        change is not None
                        and connection.frame == number - 1
                        and not connection.outbox.holds_view
                    )
                    if not folded:
                        connection.send({"type": "ack", "version": room.version})
                if connection.frame == number:
                    continue  # it holds this frame already
                if folded:
                    assert change is not None
                    connection.outbox.put_view(acknowledged(change, room.version))
                elif change is not None and connection.frame == number - 1:
                    # If the change before it is still waiting, the page gets the whole
                    # frame instead of both (a slow page skips to the current table).
                    connection.outbox.put_view(change, whole=partial(frames.full_text, seat))
                else:
                    connection.outbox.put_view(frames.full_text(seat))
                connection.frame = number

    def resync(self, connection: Connection) -> None:
        """Queue ``connection`` its seat's whole frame, as it is now (the page asked for it)."""
        room = connection.room
        self.broadcast(room)
        frames = self._frames.get(room.id)
        if frames is not None and connection.frame >= 0:
            connection.outbox.put_view(frames.full_text(connection.seat))

    def notice(self, room: Room, reason: str, sentence: str) -> None:
        """Queue a notice to every open page of the room."""
        self.send_all(room, {"type": "notice", "reason": reason, "message": sentence})

    # --- the sweep ---------------------------------------------------------------------

    def sweep(self, now: float) -> list[Room]:
        """Close idle sockets; let finished and abandoned rooms leave memory; those gone."""
        for seats in list(self.sockets.values()):
            for group in seats.values():
                for connection in list(group):
                    if now - connection.last_heard > self.limits.idle:
                        connection.cut(
                            CLOSE_IDLE,
                            f"idle for over {self.limits.idle:g} s",
                            refusal_of("idle", "This page was idle too long: reconnecting."),
                        )
        gone = self.tables.evict(
            lambda room: bool(self.connected(room)) or room.id in self._busy(),
            finished_keep=self.limits.finished_keep,
            abandoned_after=self.limits.abandoned_after,
        )
        for room in gone:
            self.sockets.pop(room.id, None)
            self._locks.pop(room.id, None)
            self._drivers.pop(room.id, None)
            self._frames.pop(room.id, None)
        self._budgets.sweep(now)
        return gone

    def _busy(self) -> set[str]:
        busy = {room for room, task in self._drivers.items() if not task.done()}
        busy |= {room for room, lock in self._locks.items() if lock.locked()}
        return busy
