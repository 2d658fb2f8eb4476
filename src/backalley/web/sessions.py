"""A page's session at its seat: the socket's hello, then its messages in and frames out.

``/ws/TOKEN`` is the seat's WebSocket (:mod:`backalley.web.messages`): the page
sends its ``hello`` (the seat's secret, or a claim) within the hello deadline, is
sent its seat (and the secret, if it claimed the seat), then its frames; its bids,
cards, fills, re-invitations and talk are carried out one at a time per room. What
one address and one seat may open is bounded by
:class:`~backalley.web.limits.Limits`; a condition a client caused is one log line
naming the room, the seat and the reason, never a traceback.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any, Final

from .._extras import require_extra

require_extra("backalley table", "web", ["starlette", "uvicorn", "websockets"])

from starlette.websockets import WebSocket, WebSocketDisconnect  # noqa: E402

from ..core.cards import Seat  # noqa: E402
from .addresses import client_address  # noqa: E402
from .connections import (  # noqa: E402
    Connection,
    Hub,
    log,
    refusal,
    refusal_of,
    refuse_and_close,
)
from .counts import Counts  # noqa: E402
from .forwarding import public_link  # noqa: E402
from .limits import (  # noqa: E402
    CLOSE_AGAIN,
    CLOSE_LIMIT,
    CLOSE_NO_HELLO,
    CLOSE_REINVITED,
    CLOSE_SEAT_TAKEN,
    CLOSE_UNKNOWN_TOKEN,
    Limits,
)
from .messages import Message, parse_message  # noqa: E402
from .rooms import Refused, Room, Tables, is_proposal  # noqa: E402
from .talk import Talk  # noqa: E402

__all__ = ["SeatSessions"]


def _message_of(received: Mapping[str, Any]) -> Message:
    text = received.get("text")
    return parse_message(text if text is not None else received.get("bytes") or b"")


_ADMIT_CODES: Final = {"seat_taken": CLOSE_SEAT_TAKEN, "unknown_token": CLOSE_UNKNOWN_TOKEN}
"""The close code of a refused hello, by reason (any other: :data:`CLOSE_NO_HELLO`)."""


def _check_link(room: Room, seat: Seat, token: str) -> None:
    """Refused (``unknown_token``) if ``token`` is no longer the seat's invitation."""
    if room.seats[seat].token != token:
        raise Refused(
            "unknown_token",
            "This seat link is not known here any more: the host gave the seat a new one.",
        )


class SeatSessions:
    """The seats' sockets: each page's hello, its messages, and what it may open."""

    def __init__(
        self, hub: Hub, talk: Talk, tables: Tables, limits: Limits, counts: Counts
    ) -> None:
        self.hub = hub
        self.talk = talk
        self.tables = tables
        self.limits = limits
        self.counts = counts
        """Open sockets by address (all rooms; all processes of the table)."""

    async def seat_socket(self, socket: WebSocket) -> None:
        """One page at one seat: its hello, then its frames out and its bids and cards in."""
        await socket.accept()
        address = client_address(socket.scope)
        try:
            room, seat = self.tables.seat_of(socket.path_params["token"])
        except Refused as refused:
            await refuse_and_close(socket, refused, CLOSE_UNKNOWN_TOKEN)
            log.info("address %s: socket refused: unknown link", address)
            return
        if not await self.counts.ask("socket", address):
            log.warning(
                "room %s seat %s: socket refused: address %s has %d sockets open",
                room.id,
                seat.letter,
                address,
                self.limits.sockets_per_address,
            )
            await refuse_and_close(
                socket,
                Refused(
                    "too_many_sockets",
                    f"At most {self.limits.sockets_per_address} pages may be open from one "
                    "address: close some.",
                ),
                CLOSE_LIMIT,
            )
            return
        try:
            await self._seat_session(socket, room, seat, socket.path_params["token"])
        finally:
            self.counts.give_back("socket", address)

    async def _seat_session(self, socket: WebSocket, room: Room, seat: Seat, token: str) -> None:
        where = f"room {room.id} seat {seat.letter}"
        try:
            async with asyncio.timeout(self.limits.hello_deadline):
                received = await socket.receive()
        except TimeoutError:
            log.warning("%s: socket closed (%d): no hello in time", where, CLOSE_NO_HELLO)
            await refuse_and_close(
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
            secret = await self._admit(room, seat, hello, token)
            if hello.field:
                room.names[seat] = hello.field
        except Refused as refused:
            code = _ADMIT_CODES.get(refused.reason, CLOSE_NO_HELLO)
            log.warning("%s: socket refused (%d): %s", where, code, refused.reason)
            await refuse_and_close(socket, refused, code)
            return
        group = self.hub.sockets.setdefault(room.id, {}).setdefault(seat, set())
        if len(group) >= self.limits.sockets_per_seat:
            log.warning("%s: socket refused (%d): too many sockets at the seat", where, CLOSE_LIMIT)
            await refuse_and_close(
                socket,
                Refused(
                    "too_many_sockets",
                    f"At most {self.limits.sockets_per_seat} pages may be open at one seat: "
                    "close another tab of this seat.",
                ),
                CLOSE_LIMIT,
            )
            return
        connection = Connection(socket, room, seat, self.limits, self.hub.budget(room, seat))
        group.add(connection)
        try:
            connection.send(_seated(socket, seat, secret))
            self.talk.greet(connection)
            self.hub.broadcast(room)
            self.hub.drive(room)
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
            if not group:
                self.talk.left(room, seat)
            if connection.closer is not None and not connection.closer.done():
                # Let the refusal and the close code go out (the closer is bounded by the
                # send deadline, after which it drops the connection).
                await asyncio.wait([connection.closer])
            connection.outbox.stop()
            await connection.outbox.join(connection.sender, 0)
            self.hub.broadcast(room)

    async def _admit(self, room: Room, seat: Seat, hello: Message, token: str) -> str | None:
        """Check a hello's secret, or claim the seat for it; a secret made here, if any.

        A hello's secret on a seat no browser holds claims it with that secret (the
        page's own); a hello without one claims it with a secret made here, sent once.

        The link the socket was opened on is checked again here, when the hello has
        come: a socket opened before the host re-invited the seat opens nothing.
        """
        async with self.hub.lock(room):
            _check_link(room, seat, token)
            if not hello.value:
                return await self.tables.claim_later(room, seat).done()
            if self.tables.holds(room, seat, hello.value):
                return None
            if is_proposal(hello.value):
                # The page's own secret, kept before it was sent: the claim is safe from
                # a server that dies before answering (the page comes back with it). A
                # seat held already is refused as taken, with the sentence that says so.
                await self.tables.claim_later(room, seat, hello.value).done()
                return None
            raise Refused(
                "seat_taken",
                "This browser does not hold this seat: it was claimed by another, or "
                "the host gave it a new link.",
            )

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
                    refusal_of(
                        "too_many_messages",
                        f"At most {self.limits.messages_per_second:g} messages a second: "
                        "reconnecting.",
                    ),
                )
                continue
            # The answer is the room's work, not the socket's: it runs as its own task, so
            # that a page gone meanwhile (its task cancelled) skips nothing of it.
            answer = self.hub.spawn(self._answer(connection, received))
            await asyncio.shield(answer)

    async def _answer(self, connection: Connection, received: Mapping[str, Any]) -> None:
        room, seat = connection.room, connection.seat
        try:
            message = _message_of(received)
            if message.kind == "act":
                async with self.hub.lock(room):
                    connection.check_current()
                    pending = self.tables.act_later(
                        room, seat, message.version, message.field, message.value
                    )
                    await pending.done()
                    # Stored: now it may be acknowledged, in the change it made to this
                    # socket's frame (one message, not two).
                    self.hub.broadcast(room, acked=connection)
                self.hub.drive(room)
                return
            elif message.kind == "fill":
                async with self.hub.lock(room):
                    connection.check_current()
                    await self.tables.fill_later(room, seat, message.value).done()
            elif message.kind == "resync":
                # The page missed a change, or could not apply one: the whole frame.
                if message.version > connection.frame:
                    raise Refused(
                        "unknown_frame",
                        f"This page was never sent frame {message.version}: a 'resync' names "
                        "the last frame the page holds, or null.",
                    )
                self.hub.resync(connection)
                return
            elif message.kind == "reinvite":
                await self._reinvite(connection, Seat.parse(message.value))
            elif message.kind == "again":
                await self._again(connection)
                return
            elif message.kind == "name":
                # A name is the page's to give: an empty one takes it back.
                connection.check_current()
                if message.field:
                    room.names[seat] = message.field
                else:
                    room.names.pop(seat, None)
            elif message.kind in ("chat", "voice", "signal"):
                await self.talk.answer(connection, message)
                return
            else:
                raise Refused("already_said_hello", "This page has already said hello.")
        except Refused as refused:
            connection.send(refusal(refused, room))
            return
        self.hub.broadcast(room)
        self.hub.drive(room)

    async def _again(self, by: Connection) -> None:
        """Play again: the new match takes the seats; every page here reconnects to it."""
        room = by.room
        if room.again is None and len(self.tables.rooms) >= self.limits.rooms:
            # The new match is a room in memory like any other: the same cap (--rooms).
            raise Refused("table_full", "The table is full: too many rooms are open. Try later.")
        async with self.hub.lock(room):
            by.check_current()
            await self.tables.again_later(room, by.seat).done()
        for connection in self.hub.connections(room):
            connection.cut(
                CLOSE_AGAIN,
                "the room plays again",
                {"type": "notice", "reason": "again", "message": "A new match: same seats."},
            )

    async def _reinvite(self, by: Connection, seat: Seat) -> None:
        room = by.room
        async with self.hub.lock(room):
            by.check_current()
            await self.tables.reinvite_later(room, by.seat, seat).done()
        room.names.pop(seat, None)
        name = seat.name.title()
        for connection in self.hub.connections(room, seat):
            connection.cut(
                CLOSE_REINVITED,
                "the host re-invited the seat",
                refusal_of(
                    "reinvited",
                    "The host gave this seat a new link: this browser no longer holds it.",
                ),
            )
        self.hub.notice(room, "reinvited", f"The host gave {name}'s seat a new link.")


def _seated(socket: WebSocket, seat: Seat, secret: str | None) -> dict[str, Any]:
    """The ``seat`` message: the seat, the secret made here (if any), the public origin.

    The table's public origin (``--public-url``) is what the host's links are made
    from; without one the page uses its own address.
    """
    seated: dict[str, Any] = {"type": "seat", "seat": seat.letter, "secret": secret}
    base = public_link(socket.scope, "")
    if base:
        seated["origin"] = base
    return seated
