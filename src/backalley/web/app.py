"""The table's web server: a Starlette application over :class:`~backalley.web.rooms.Tables`.

Pages and addresses:

- ``GET /``: the lobby (``static/lobby.html``): play the computer, or make a
  room for three friends; the short or the full game and the variants.
- ``POST /rooms``: make a room (a form: ``mode``, ``schedule``, ``tie``,
  ``first_dealer``, ``player``, each one of its choices); answered by a
  redirect to the host's seat.
- ``GET /seat/TOKEN``: the table (``static/table.html``) for the seat of that
  invitation; the page opens ``/ws/TOKEN``, the seat's WebSocket
  (:mod:`backalley.web.messages`), sends its ``hello`` (the seat's secret, or a
  claim) and opens it again whenever it closes with a code that allows it.
- ``GET /how-to``: the how-to page, the table's own page walking a seven-card
  deal step by step (next, back, autoplay); ``GET /how-to/steps.json`` its steps
  (:mod:`backalley.web.howto`).
- ``GET /record/TOKEN``: the finished match as a game record (``backalley
  check`` validates it); refused while the match is on, since the record names
  the seed, and the seed tells every hand.
- ``GET /analysis/TOKEN``: the finished match's analysis page;
  ``GET /analysis/TOKEN/status`` where it stands (asked for on the first
  request, made in a worker process: :mod:`backalley.web.analysis`), refused
  like the record while the match is on.

The server makes the automatic actions itself (the seeded deal, the computer
players' bids and cards), one at a time per room, ``pace`` seconds apart so
that people can follow them. Started on a database that already holds rooms,
it goes on with each room in play where it stopped.

No room waits on a socket: each socket has its own :class:`~backalley.web.outbox.Outbox`
(a bounded queue, a send deadline), and a change is stored by the store's writer
thread while the event loop goes on; each room's changes are made one at a time
(a lock per room). What one visitor may take is bounded by
:class:`~backalley.web.limits.Limits`. A condition a client caused (a cut-off
request, a socket gone, a limit reached) is one log line naming the room, the
seat and the reason, never a traceback.

Starlette and uvicorn are the ``web`` extra: importing this module without
them raises :class:`~backalley._extras.MissingExtra`.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import logging
import time
from collections import deque
from collections.abc import AsyncIterator, Mapping
from importlib import resources
from typing import Any, Final
from urllib.parse import parse_qs

from .._extras import require_extra

require_extra("backalley table", "web", ["starlette", "uvicorn", "websockets"])

from starlette.applications import Starlette  # noqa: E402 -- after the extra's check
from starlette.requests import ClientDisconnect, Request  # noqa: E402
from starlette.responses import (  # noqa: E402
    FileResponse,
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import Mount, Route, WebSocketRoute  # noqa: E402
from starlette.staticfiles import StaticFiles  # noqa: E402
from starlette.types import ASGIApp, Message, Receive, Scope, Send  # noqa: E402
from starlette.websockets import WebSocket, WebSocketDisconnect  # noqa: E402

from ..core.cards import Seat  # noqa: E402
from ..core.rules import SCHEDULES, Rules, TiePolicy  # noqa: E402
from ..formats.records import dumps, record_from_state  # noqa: E402
from .analysis import Analyses  # noqa: E402
from .chat import MAX_SDP_CHARACTERS, chat_of, say_later, talk_open  # noqa: E402
from .howto import howto_steps  # noqa: E402
from .limits import (  # noqa: E402
    CLOSE_IDLE,
    CLOSE_LIMIT,
    CLOSE_NO_HELLO,
    CLOSE_REINVITED,
    CLOSE_SEAT_TAKEN,
    CLOSE_TOO_SLOW,
    CLOSE_UNKNOWN_TOKEN,
    Limits,
)
from .messages import FrameCache, encode, parse_message  # noqa: E402
from .messages import Message as SeatMessage  # noqa: E402
from .outbox import Outbox  # noqa: E402
from .rooms import COMPUTER_PLAYERS, MODES, Refused, Room, Tables  # noqa: E402

__all__ = [
    "CLOSE_UNKNOWN_TOKEN",
    "DEFAULT_PACE",
    "DEFAULT_TIE",
    "MAX_FORM_BYTES",
    "TableServer",
    "http_protocol",
    "make_app",
]

DEFAULT_PACE: Final = 0.7
"""Seconds between two actions of computer players, so that people can follow them."""

DEFAULT_TIE: Final = "tiebreak-deal"
"""The table's tie rule unless the lobby says otherwise: seed ``001``'s "a tie at the end
plays one more deal with no bidding" (the library's default, a draw, is ``docs/rules.md``'s)."""

MAX_FORM_BYTES: Final = 2048
"""The longest lobby form the server reads."""

SWEEP_SECONDS: Final = 5.0
"""How often idle sockets, finished and abandoned rooms and old counts are looked for."""

STATIC: Final = resources.files("backalley.web") / "static"

_FORM_CHOICES: Final[dict[str, tuple[str, ...]]] = {
    "mode": MODES,
    "schedule": tuple(SCHEDULES),
    "tie": tuple(policy.value for policy in TiePolicy),
    "first_dealer": tuple(seat.letter for seat in Seat),
    "player": COMPUTER_PLAYERS,
}
"""Each field of the lobby's form and its choices: any other value is refused by name."""

_FORM_DEFAULTS: Final = {
    "schedule": "short",
    "tie": DEFAULT_TIE,
    "first_dealer": "N",
    "player": "heuristic",
}

_SECURITY_HEADERS: Final = [
    # Nothing is fetched from other hosts: scripts, styles and sockets are this server's.
    (
        b"content-security-policy",
        b"default-src 'self'; img-src 'self' data:; "
        b"connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    ),
    # A seat's address holds its invitation: never send it on to another site.
    (b"referrer-policy", b"no-referrer"),
    (b"x-content-type-options", b"nosniff"),
    (b"cache-control", b"no-store"),
]

ABORT_KEY: Final = "backalley.abort"
"""Where the middleware leaves, in a socket's scope, a way to drop its connection at once."""

log = logging.getLogger("backalley.web")


def _security_headers(app: ASGIApp) -> ASGIApp:
    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            # A socket that never reads blocks every send, the close frame's too: the
            # only way to let go of it at once is the server's transport. uvicorn's
            # send is a method of its protocol object, which holds the transport.
            transport = getattr(getattr(send, "__self__", None), "transport", None)
            abort = getattr(transport, "abort", None)
            if callable(abort):
                scope[ABORT_KEY] = abort
        if scope["type"] != "http":
            await app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *_SECURITY_HEADERS]
            await send(message)

        await app(scope, receive, send_with_headers)

    return wrapped


def _page(title: str, sentence: str, status: int) -> HTMLResponse:
    # Everything written into the page is escaped: a sentence may quote what was sent.
    title, sentence = html.escape(title), html.escape(sentence)
    body = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>{title}</title><link rel="stylesheet" href="/static/table.css"></head>'
        f'<body class="message"><main><h1>{title}</h1><p role="alert">{sentence}</p>'
        '<p><a href="/">Back to the lobby</a></p></main></body></html>'
    )
    return HTMLResponse(body, status_code=status)


def _address(scope: Mapping[str, Any]) -> str:
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


class Connection:
    """One open socket at one seat: its outbox, its message budget, when it last spoke."""

    def __init__(self, socket: WebSocket, room: Room, seat: Seat, limits: Limits) -> None:
        self.socket = socket
        self.room = room
        self.seat = seat
        self.limits = limits
        self.outbox = Outbox(
            socket.send_text,
            limit=limits.send_queue,
            deadline=limits.send_deadline,
            on_cut=self._too_slow,
        )
        self.last_heard = time.monotonic()
        self._budget = 2 * limits.messages_per_second
        self._budget_at = self.last_heard
        self.closing: tuple[int, str] | None = None
        self._reader: asyncio.Task[Any] | None = asyncio.current_task()
        self.sender = asyncio.get_running_loop().create_task(self.outbox.run())
        self.closer: asyncio.Task[None] | None = None

    def allow_message(self) -> bool:
        """Take one message from the socket's budget (a token bucket); whether it had one."""
        now = time.monotonic()
        self.last_heard = now
        rate = self.limits.messages_per_second
        self._budget = min(2 * rate, self._budget + (now - self._budget_at) * rate)
        self._budget_at = now
        if self._budget < 1:
            return False
        self._budget -= 1
        return True

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


class TableServer:
    """The rooms, their open sockets, and the tasks that make the automatic actions."""

    def __init__(
        self,
        tables: Tables,
        *,
        pace: float = DEFAULT_PACE,
        limits: Limits | None = None,
        stun: tuple[str, ...] = (),
    ) -> None:
        self.tables = tables
        self.pace = pace
        self.limits = Limits() if limits is None else limits
        self.stun = stun
        """STUN servers the pages' voice may use (``--stun``); none unless configured."""
        self.voice: dict[str, set[Seat]] = {}
        """The seats of each room with voice on (while a page of theirs is open)."""
        self._said: dict[tuple[str, Seat], deque[float]] = {}
        self.sockets: dict[str, dict[Seat, set[Connection]]] = {}
        self.per_address: dict[str, int] = {}
        self._made: dict[str, deque[float]] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._frames: dict[str, FrameCache] = {}
        self._drivers: dict[str, asyncio.Task[None]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self.analyses = Analyses(self.limits, tables.store)
        """Finished matches' analyses, made in worker processes."""

    def lock(self, room: Room) -> asyncio.Lock:
        """The room's lock: its changes are planned, stored and made one at a time."""
        found = self._locks.get(room.id)
        if found is None:
            found = self._locks[room.id] = asyncio.Lock()
        return found

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
            async with self.lock(room):
                try:
                    pending = self.tables.step_later(room)
                    if pending is None:
                        return
                    await pending.done()
                except Exception:
                    # The server's own fault (the disk), not a client's: the room waits.
                    log.exception("room %s: the automatic action failed", room.id)
                    return
            self.broadcast(room)

    async def start(self) -> None:
        """Resume the rooms in play and start the sweeper."""
        for room in list(self.tables.rooms.values()):
            self.drive(room)
        self._spawn(self._sweep())

    async def stop(self) -> None:
        """Cancel the drivers and the sweeper (the actions so far are stored)."""
        await self.analyses.stop()
        tasks = [*self._drivers.values(), *self._tasks]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def _spawn(self, coroutine: Any) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _sweep(self) -> None:
        # Runs as long as the server: one pass every few seconds, each pass bounded.
        while True:
            await asyncio.sleep(min(SWEEP_SECONDS, self.limits.idle))
            self.sweep()

    def sweep(self) -> None:
        """Close idle sockets; let finished and abandoned rooms leave memory; forget old counts."""
        now = time.monotonic()
        for seats in list(self.sockets.values()):
            for group in seats.values():
                for connection in list(group):
                    if now - connection.last_heard > self.limits.idle:
                        connection.cut(
                            CLOSE_IDLE,
                            f"idle for over {self.limits.idle:g} s",
                            _refusal_of("idle", "This page was idle too long: reconnecting."),
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
        cutoff = now - 60
        for address in list(self._made):
            made = self._made[address]
            while made and made[0] < cutoff:
                made.popleft()
            if not made:
                del self._made[address]

    def _busy(self) -> set[str]:
        busy = {room for room, task in self._drivers.items() if not task.done()}
        busy |= {room for room, lock in self._locks.items() if lock.locked()}
        return busy

    # --- sockets ------------------------------------------------------------------

    def connected(self, room: Room) -> frozenset[Seat]:
        """The seats of a room that have a page open."""
        return frozenset(seat for seat, open_ in self.sockets.get(room.id, {}).items() if open_)

    def broadcast(self, room: Room) -> None:
        """Queue each open page of the room its own seat's frame; never waits on a socket.

        Each seat's frame is made and encoded once, for all that seat's sockets.
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
            text = frames.text(room, seat, connected=connected, token=room.seats[seat].token)
            for connection in group:
                connection.outbox.put_view(text)

    def notice(self, room: Room, reason: str, sentence: str) -> None:
        """Queue a notice to every open page of the room."""
        message = {"type": "notice", "reason": reason, "message": sentence}
        for group in self.sockets.get(room.id, {}).values():
            for connection in group:
                connection.send(message)

    async def seat_socket(self, socket: WebSocket) -> None:
        """One page at one seat: its hello, then its frames out and its bids and cards in."""
        await socket.accept()
        address = _address(socket.scope)
        try:
            room, seat = self.tables.seat_of(socket.path_params["token"])
        except Refused as refusal:
            await _refuse_and_close(socket, refusal, CLOSE_UNKNOWN_TOKEN)
            log.info("address %s: socket refused: unknown link", address)
            return
        if self.per_address.get(address, 0) >= self.limits.sockets_per_address:
            log.warning(
                "room %s seat %s: socket refused: address %s has %d sockets open",
                room.id,
                seat.letter,
                address,
                self.limits.sockets_per_address,
            )
            await _refuse_and_close(
                socket,
                Refused(
                    "too_many_sockets",
                    f"At most {self.limits.sockets_per_address} pages may be open from one "
                    "address: close some.",
                ),
                CLOSE_LIMIT,
            )
            return
        self.per_address[address] = self.per_address.get(address, 0) + 1
        try:
            await self._seat_session(socket, room, seat)
        finally:
            left = self.per_address[address] - 1
            if left:
                self.per_address[address] = left
            else:
                del self.per_address[address]

    async def _seat_session(self, socket: WebSocket, room: Room, seat: Seat) -> None:
        where = f"room {room.id} seat {seat.letter}"
        try:
            async with asyncio.timeout(self.limits.hello_deadline):
                received = await socket.receive()
        except TimeoutError:
            log.warning("%s: socket closed (%d): no hello in time", where, CLOSE_NO_HELLO)
            await _refuse_and_close(
                socket,
                Refused("no_hello", "The page did not say which browser it is in time."),
                CLOSE_NO_HELLO,
            )
            return
        if received["type"] == "websocket.disconnect":
            return
        try:
            hello = _message_of(received)
            if hello.kind != "hello":
                raise Refused("hello_first", "A page's first message is its 'hello'.")
            secret = await self._admit(room, seat, hello)
        except Refused as refusal:
            code = CLOSE_SEAT_TAKEN if refusal.reason == "seat_taken" else CLOSE_NO_HELLO
            log.warning("%s: socket refused (%d): %s", where, code, refusal.reason)
            await _refuse_and_close(socket, refusal, code)
            return
        group = self.sockets.setdefault(room.id, {}).setdefault(seat, set())
        if len(group) >= self.limits.sockets_per_seat:
            log.warning("%s: socket refused (%d): too many sockets at the seat", where, CLOSE_LIMIT)
            await _refuse_and_close(
                socket,
                Refused(
                    "too_many_sockets",
                    f"At most {self.limits.sockets_per_seat} pages may be open at one seat: "
                    "close another tab of this seat.",
                ),
                CLOSE_LIMIT,
            )
            return
        connection = Connection(socket, room, seat, self.limits)
        group.add(connection)
        try:
            connection.send({"type": "seat", "seat": seat.letter, "secret": secret})
            self._greet(connection)
            self.broadcast(room)
            self.drive(room)
            await self._read(connection)
        except asyncio.CancelledError:
            # Cancelled by drop() for a socket that would not close: this session is over.
            if connection.closing is None:
                raise
            current = asyncio.current_task()
            if current is not None:
                current.uncancel()
        finally:
            group.discard(connection)
            if not group and seat in self.voice.get(room.id, ()):
                # The seat's last page is gone: its voice is off for the others.
                self.voice[room.id].discard(seat)
                self._roster(room)
            if connection.closer is not None and not connection.closer.done():
                # Let the refusal and the close code go out (the closer is bounded by the
                # send deadline, after which it drops the connection).
                await asyncio.wait([connection.closer])
            connection.outbox.stop()
            await connection.outbox.join(connection.sender, 0)
            self.broadcast(room)

    async def _admit(self, room: Room, seat: Seat, hello: SeatMessage) -> str | None:
        """Check a hello's secret, or claim the seat for it; the new secret if claimed."""
        if hello.value:
            if not self.tables.holds(room, seat, hello.value):
                raise Refused(
                    "seat_taken",
                    "This browser does not hold this seat: it was claimed by another, or "
                    "the host gave it a new link.",
                )
            return None
        async with self.lock(room):
            return await self.tables.claim_later(room, seat).done()

    async def _read(self, connection: Connection) -> None:
        socket = connection.socket
        # Bounded by the socket: each turn reads one message; a disconnect ends it.
        while True:
            try:
                received = await socket.receive()
            except (WebSocketDisconnect, RuntimeError):
                return
            if received["type"] == "websocket.disconnect" or connection.closing is not None:
                return
            if not connection.allow_message():
                connection.cut(
                    CLOSE_LIMIT,
                    f"over {self.limits.messages_per_second:g} messages a second",
                    _refusal_of(
                        "too_many_messages",
                        f"At most {self.limits.messages_per_second:g} messages a second: "
                        "reconnecting.",
                    ),
                )
                continue
            # The answer is the room's work, not the socket's: it runs as its own task, so
            # that a page gone meanwhile (its task cancelled) skips nothing of it.
            answer = self._spawn(self._answer(connection, received))
            await asyncio.shield(answer)

    async def _answer(self, connection: Connection, received: Mapping[str, Any]) -> None:
        room, seat = connection.room, connection.seat
        try:
            message = _message_of(received)
            if message.kind == "act":
                async with self.lock(room):
                    pending = self.tables.act_later(
                        room, seat, message.version, message.field, message.value
                    )
                    await pending.done()
                    # Stored: now it may be acknowledged.
                    connection.send({"type": "ack", "version": room.version})
            elif message.kind == "fill":
                async with self.lock(room):
                    await self.tables.fill_later(room, seat, message.value).done()
            elif message.kind == "reinvite":
                await self._reinvite(room, seat, Seat.parse(message.value))
            elif message.kind in ("chat", "voice", "signal"):
                await self._talk(connection, message)
                return
            else:
                raise Refused("already_said_hello", "This page has already said hello.")
        except Refused as refusal:
            connection.send(_refusal(refusal, room))
            return
        self.broadcast(room)
        self.drive(room)

    async def _reinvite(self, room: Room, by: Seat, seat: Seat) -> None:
        async with self.lock(room):
            await self.tables.reinvite_later(room, by, seat).done()
        name = seat.name.title()
        for connection in list(self.sockets.get(room.id, {}).get(seat, ())):
            connection.cut(
                CLOSE_REINVITED,
                "the host re-invited the seat",
                _refusal_of(
                    "reinvited",
                    "The host gave this seat a new link: this browser no longer holds it.",
                ),
            )
        self.notice(room, "reinvited", f"The host gave {name}'s seat a new link.")

    # --- chat and voice (rooms of friends: backalley.web.chat) ----------------------

    def _greet(self, connection: Connection) -> None:
        """A page just opened: the room's last chat lines and who has voice on."""
        room = connection.room
        if not talk_open(room):
            return
        lines = chat_of(self.tables, room, self.limits.chat_kept)
        connection.send(
            {"type": "chat", "open": True, "lines": [line.to_json(room) for line in lines]}
        )
        connection.send(self._roster_message(room))

    def _roster_message(self, room: Room) -> dict[str, Any]:
        on = sorted(self.voice.get(room.id, ()), key=lambda seat: seat.value)
        ice = [{"urls": list(self.stun)}] if self.stun else []
        return {"type": "voice", "seats": [seat.letter for seat in on], "ice": ice}

    def _roster(self, room: Room) -> None:
        message = self._roster_message(room)
        for group in self.sockets.get(room.id, {}).values():
            for connection in group:
                connection.send(message)

    async def _talk(self, connection: Connection, message: SeatMessage) -> None:
        room, seat = connection.room, connection.seat
        if not talk_open(room):
            raise Refused(
                "no_chat", "Chat and voice are for rooms of friends: nobody here would hear."
            )
        if message.kind == "chat":
            await self._chat(room, seat, message.value)
        elif message.kind == "voice":
            on = self.voice.setdefault(room.id, set())
            if message.value == "on":
                on.add(seat)
            else:
                on.discard(seat)
            self._roster(room)
        else:
            self._signal(room, seat, message)

    async def _chat(self, room: Room, seat: Seat, text: str) -> None:
        said = self._said.setdefault((room.id, seat), deque())
        now = time.monotonic()
        while said and said[0] < now - 60:
            said.popleft()
        if len(said) >= self.limits.chat_per_minute:
            raise Refused(
                "chat_too_fast",
                f"At most {self.limits.chat_per_minute} chat lines a minute: wait a little.",
            )
        async with self.lock(room):
            line = await say_later(
                self.tables,
                room,
                seat,
                text,
                limit=self.limits.chat_characters,
                kept=self.limits.chat_kept,
            ).done()
        said.append(now)
        out = {"type": "chat", "open": True, "lines": [line.to_json(room)]}
        for group in self.sockets.get(room.id, {}).values():
            for other in group:
                other.send(out)

    def _signal(self, room: Room, seat: Seat, message: SeatMessage) -> None:
        """Carry a session description to the other seat: both must have voice on."""
        to = Seat.parse(message.field)
        on = self.voice.get(room.id, set())
        if to is seat or seat not in on or to not in on:
            raise Refused("no_voice", "Voice goes between two seats that have both turned it on.")
        if len(message.value) > MAX_SDP_CHARACTERS:
            raise Refused("too_large", "That session description is too long.")
        kind = "offer" if message.version == 0 else "answer"
        out = {"type": "signal", "from": seat.letter, "kind": kind, "sdp": message.value}
        for other in self.sockets.get(room.id, {}).get(to, ()):
            other.send(out)

    # --- pages --------------------------------------------------------------------

    async def lobby(self, request: Request) -> Response:
        """The lobby page."""
        return FileResponse(str(STATIC / "lobby.html"))

    async def new_room(self, request: Request) -> Response:
        """Make a room from the lobby's form; go to the host's seat."""
        address = _address(request.scope)
        made = self._made.setdefault(address, deque())
        now = time.monotonic()
        while made and made[0] < now - 60:
            made.popleft()
        if len(made) >= self.limits.rooms_per_minute:
            log.warning("address %s: room refused: over %d a minute", address, len(made))
            return _page(
                "Not a room",
                f"At most {self.limits.rooms_per_minute} rooms a minute from one address: "
                "wait a little.",
                429,
            )
        body = b""
        try:
            async with asyncio.timeout(self.limits.request_deadline):
                async for chunk in request.stream():
                    body += chunk
                    if len(body) > MAX_FORM_BYTES:
                        return _page("Not a room", "That form is too long to be the lobby's.", 413)
        except ClientDisconnect:
            log.warning("address %s: room not made: the form was cut off", address)
            return Response(status_code=400)
        except TimeoutError:
            log.warning("address %s: room not made: the form took too long", address)
            return _page("Not a room", "The form took too long to arrive.", 408)
        fields = {
            key: values[-1] for key, values in parse_qs(body.decode("utf-8", "replace")).items()
        }
        chosen = {**_FORM_DEFAULTS, **fields}
        for name, choices in _FORM_CHOICES.items():
            if chosen.get(name) not in choices:
                return _page(
                    "Not a room",
                    f"The field {name} is one of {', '.join(choices)}; the form sent "
                    "something else.",
                    400,
                )
        try:
            rules = Rules(
                schedule=chosen["schedule"],
                tie=chosen["tie"],
                first_dealer=Seat.parse(chosen["first_dealer"]),
            )
            _room, token = await self.tables.create_later(
                chosen["mode"], rules, chosen["player"]
            ).done()
        except (Refused, ValueError) as error:
            sentence = error.message if isinstance(error, Refused) else f"{error}."
            return _page("Not a room", sentence, 400)
        made.append(now)
        return RedirectResponse(f"/seat/{token}", status_code=303)

    async def howto_page(self, request: Request) -> Response:
        """The how-to page: the table's page, walking the how-to deal instead of a seat."""
        return FileResponse(str(STATIC / "table.html"))

    async def howto_json(self, request: Request) -> Response:
        """The how-to deal's steps (made once: the same deal every time)."""
        return JSONResponse(howto_steps())

    async def seat_page(self, request: Request) -> Response:
        """The table page for a seat's link."""
        try:
            self.tables.seat_of(request.path_params["token"])
        except Refused as refusal:
            return _page("No such seat", refusal.message, 404)
        return FileResponse(str(STATIC / "table.html"))

    async def record(self, request: Request) -> Response:
        """The finished match as a game record, to download."""
        try:
            room, seat = self.tables.seat_of(request.path_params["token"])
        except Refused as refusal:
            return _page("No such seat", refusal.message, 404)
        if not room.is_over:
            return _page(
                "Not yet",
                "The record is ready when the match is over (it names the seed, which "
                "would tell every hand).",
                409,
            )
        tags = {"event": "backalley table", "room": room.id, "seat": seat.letter}
        text = dumps(record_from_state(room.state, tags=tags))
        return Response(
            text,
            media_type="application/json",
            headers={"content-disposition": f'attachment; filename="backalley-{room.id}.json"'},
        )

    async def analysis_page(self, request: Request) -> Response:
        """The page showing a finished match's analysis (it asks for it, and shows progress)."""
        try:
            self.tables.seat_of(request.path_params["token"])
        except Refused as refusal:
            return _page("No such seat", refusal.message, 404)
        return FileResponse(str(STATIC / "analysis.html"))

    async def analysis_status(self, request: Request) -> Response:
        """Where the match's analysis stands (asked for if it is not yet), as JSON."""
        try:
            room, _seat = self.tables.seat_of(request.path_params["token"])
        except Refused as refusal:
            return JSONResponse(_refusal_of(refusal.reason, refusal.message), 404)
        try:
            job = self.analyses.request(room)
        except Refused as refusal:
            status = 409 if refusal.reason == "analysis_not_yet" else 503
            return JSONResponse(_refusal_of(refusal.reason, refusal.message), status)
        return JSONResponse(job.as_json(self.analyses.budget))


def _message_of(received: Mapping[str, Any]) -> SeatMessage:
    text = received.get("text")
    return parse_message(text if text is not None else received.get("bytes") or b"")


def _refusal_of(reason: str, sentence: str) -> dict[str, Any]:
    return {"type": "refused", "reason": reason, "message": sentence, "version": None}


def _refusal(refusal: Refused, room: Room | None) -> dict[str, Any]:
    return {
        "type": "refused",
        "reason": refusal.reason,
        "message": refusal.message,
        "version": None if room is None else room.version,
    }


async def _refuse_and_close(socket: WebSocket, refusal: Refused, code: int) -> None:
    """Say why, then close with ``code``; a socket gone meanwhile is left alone."""
    with contextlib.suppress(Exception):
        async with asyncio.timeout(1.0):
            await socket.send_text(encode(_refusal(refusal, None)))
            await socket.close(code=code)


def make_app(
    tables: Tables,
    *,
    pace: float = DEFAULT_PACE,
    limits: Limits | None = None,
    stun: tuple[str, ...] = (),
) -> Starlette:
    """The table's ASGI application over ``tables``.

    ``stun`` names the STUN servers the pages' voice may use (none by default: only
    the addresses of the browsers' own machines). ``app.state.server`` is its
    :class:`TableServer`.
    """
    server = TableServer(tables, pace=pace, limits=limits, stun=stun)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        # Rooms stored by an earlier run go on: their computers act again where they stopped.
        await server.start()
        yield
        await server.stop()

    app = Starlette(
        routes=[
            Route("/", server.lobby),
            Route("/rooms", server.new_room, methods=["POST"]),
            Route("/how-to", server.howto_page),
            Route("/how-to/steps.json", server.howto_json),
            Route("/seat/{token}", server.seat_page),
            Route("/record/{token}", server.record),
            Route("/analysis/{token}", server.analysis_page),
            Route("/analysis/{token}/status", server.analysis_status),
            WebSocketRoute("/ws/{token}", server.seat_socket),
            Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
        ],
        lifespan=lifespan,
    )
    app.state.server = server
    app.add_middleware(_SecurityHeaders)
    return app


class _SecurityHeaders:
    """Middleware adding the security headers to every HTTP response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = _security_headers(app)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app(scope, receive, send)


def http_protocol(request_deadline: float) -> type[asyncio.Protocol]:
    """The HTTP protocol of uvicorn (h11) with a deadline on each request's head.

    uvicorn times out a connection idle between requests, but not one that has begun
    a request and does not finish its head (a byte now and then holds it open for
    good): here each head must arrive within ``request_deadline`` seconds of the
    connection, or of the answer before it; past that the connection is closed, and
    one line logged.
    """
    from uvicorn.protocols.http.h11_impl import H11Protocol  # noqa: PLC0415 -- the extra

    class DeadlinedH11Protocol(H11Protocol):
        _head_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            cycle = self.cycle
            super().data_received(data)
            # A head has come (a new request, or the socket's upgrade): no more deadline.
            if self.cycle is not cycle or self.transport.get_protocol() is not self:
                self._disarm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _arm(self) -> None:
            self._disarm()
            self._head_timer = self.loop.call_later(request_deadline, self._late)

        def _disarm(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _late(self) -> None:
            self._head_timer = None
            if self.transport.get_protocol() is self and not self.transport.is_closing():
                client = self.client[0] if self.client else "unknown"
                log.warning(
                    "address %s: connection closed: no whole request within %g s",
                    client,
                    request_deadline,
                )
                self.transport.close()

    return DeadlinedH11Protocol
