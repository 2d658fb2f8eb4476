"""Chat and voice at the table: what a seat says, who has voice on, and the signalling.

The rules of talk (who may, how long a line, the lines kept) are
:mod:`backalley.web.chat`'s; here is the server's part: the chat lines a seat may
send a minute (all its pages together), the seats with voice on while a page of
theirs is open, and each page's offer and answer carried to the other seat.
"""

from __future__ import annotations

import time
from collections import deque
from typing import Any

from ..core.cards import Seat
from .chat import MAX_SDP_CHARACTERS, chat_of, say_later, talk_open
from .connections import Connection, Hub
from .limits import Limits
from .messages import Message
from .rooms import Refused, Room, Tables

__all__ = ["Talk"]


class Talk:
    """Chat and voice signalling of the rooms of friends."""

    def __init__(
        self, hub: Hub, tables: Tables, limits: Limits, stun: tuple[str, ...] = ()
    ) -> None:
        self.hub = hub
        self.tables = tables
        self.limits = limits
        self.stun = stun
        """STUN servers the pages' voice may use (``--stun``); none unless configured."""
        self.voice: dict[str, set[Seat]] = {}
        """The seats of each room with voice on (while a page of theirs is open)."""
        self._said: dict[tuple[str, Seat], deque[float]] = {}

    def greet(self, connection: Connection) -> None:
        """A page just opened: the room's last chat lines and who has voice on."""
        room = connection.room
        if not talk_open(room):
            return
        lines = chat_of(self.tables, room, self.limits.chat_kept)
        connection.send(
            {"type": "chat", "open": True, "lines": [line.to_json(room) for line in lines]}
        )
        connection.send(self.roster_message(room))

    def left(self, room: Room, seat: Seat) -> None:
        """The seat's last page is gone: its voice is off for the others."""
        if seat in self.voice.get(room.id, ()):
            self.voice[room.id].discard(seat)
            self._roster(room)

    def roster_message(self, room: Room) -> dict[str, Any]:
        """The ``voice`` message: the seats with voice on, and the servers voice may use."""
        on = sorted(self.voice.get(room.id, ()), key=lambda seat: seat.value)
        ice = [{"urls": list(self.stun)}] if self.stun else []
        return {"type": "voice", "seats": [seat.letter for seat in on], "ice": ice}

    def _roster(self, room: Room) -> None:
        self.hub.send_all(room, self.roster_message(room))

    async def answer(self, connection: Connection, message: Message) -> None:
        """Carry out a ``chat``, ``voice`` or ``signal`` message, or :class:`Refused`."""
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
        async with self.hub.lock(room):
            line = await say_later(
                self.tables,
                room,
                seat,
                text,
                limit=self.limits.chat_characters,
                kept=self.limits.chat_kept,
            ).done()
        said.append(now)
        self.hub.send_all(room, {"type": "chat", "open": True, "lines": [line.to_json(room)]})

    def _signal(self, room: Room, seat: Seat, message: Message) -> None:
        """Carry a session description to the other seat: both must have voice on."""
        to = Seat.parse(message.field)
        on = self.voice.get(room.id, set())
        if to is seat or seat not in on or to not in on:
            raise Refused("no_voice", "Voice goes between two seats that have both turned it on.")
        if len(message.value) > MAX_SDP_CHARACTERS:
            raise Refused("too_large", "That session description is too long.")
        kind = "offer" if message.version == 0 else "answer"
        out = {"type": "signal", "from": seat.letter, "kind": kind, "sdp": message.value}
        self.hub.send_all(room, out, to)
