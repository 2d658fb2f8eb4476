"""Chat and voice in a room of friends: who may talk, and what a chat line may hold.

Seed ``001``: in a room of friends "chat is open, voice is opt-in". Chat is text
between the seats, shown with the seat's name, kept with the room (the store keeps
every line; a page opened again is sent the last :attr:`Limits.chat_kept
<backalley.web.limits.Limits.chat_kept>`), limited in length and rate, and never
offered to a room played against the computer (nobody there would read it).

Voice is audio between the seats that turned it on, over WebRTC in the browsers:
the server only carries each page's offer and answer (with their candidates, sent
whole once gathered) to the other seat over the room's own sockets, and tells the
room which seats have voice on. It never touches the audio; a STUN server is used
only if ``backalley table --stun`` names one.

>>> clean_text("  hello" + chr(7) + " there  ", 300)
'hello there'
"""

from __future__ import annotations

import unicodedata
from typing import Any, Final

import attrs

from ..core.cards import Seat
from .rooms import ROLES, Pending, Refused, Room, Tables
from .store import chat_write

__all__ = [
    "MAX_SDP_CHARACTERS",
    "ChatLine",
    "chat_of",
    "clean_text",
    "say_later",
    "speaker",
    "talk_open",
]

MAX_SDP_CHARACTERS: Final = 12_000
"""The longest session description a page may send (an audio offer is 2 to 6 thousand)."""


@attrs.frozen
class ChatLine:
    """One line of a room's chat: its number in the room, the seat, when, and the text."""

    seq: int
    seat: Seat
    at: float
    text: str

    def to_json(self, room: Room) -> dict[str, Any]:
        """The line as the pages are sent it, with the seat's name."""
        return {
            "seq": self.seq,
            "seat": self.seat.letter,
            "name": speaker(room, self.seat),
            "at": self.at,
            "text": self.text,
        }


def talk_open(room: Room) -> bool:
    """Whether the room has chat and voice: a room of friends with two people or more.

    A room against the computer, or one whose host seated computers everywhere else,
    has nobody to talk to.
    """
    return (
        room.mode == "friends"
        and sum(row.occupant != "computer" for row in room.seats.values()) >= 2
    )


def speaker(room: Room, seat: Seat) -> str:
    """The seat's name as chat shows it: ``Ann (West)``, or ``West (guest 1)`` unnamed."""
    name = room.names.get(seat)
    if name:
        return f"{name} ({seat.name.title()})"
    return f"{seat.name.title()} ({ROLES[seat]})"


def clean_text(text: str, limit: int) -> str:
    """A chat line as kept: control characters removed, spaces trimmed; refused if empty or long.

    The text is kept as written otherwise; the page shows it as text, never as HTML.
    """
    kept = "".join(
        " " if char in "\t\n\r" else char
        for char in text
        if char in "\t\n\r" or unicodedata.category(char)[0] != "C"
    )
    kept = " ".join(kept.split())
    if not kept:
        raise Refused("empty_chat", "A chat line needs some text.")
    if len(kept) > limit:
        raise Refused("chat_too_long", f"A chat line is at most {limit} characters long.")
    return kept


def chat_of(tables: Tables, room: Room, kept: int) -> list[ChatLine]:
    """The room's last ``kept`` chat lines, read from the store the first time."""
    if room.chat is None:
        count, rows = tables.store.chat(room.id, kept)
        room.chat = [ChatLine(*row) for row in rows]
        room.chat_count = count
    lines: list[ChatLine] = room.chat[-kept:] if kept else []
    return lines


def say_later(  # noqa: PLR0913 -- the room's tables, the line, and two limits by name
    tables: Tables, room: Room, seat: Seat, text: str, *, limit: int, kept: int
) -> Pending[ChatLine]:
    """A chat line from ``seat``, checked and handed to the store; the line, once stored.

    Refused (``no_chat``) in a room without chat (:func:`talk_open`), and when the text
    is empty or longer than ``limit`` characters (:func:`clean_text`).
    """
    if not talk_open(room):
        raise Refused(
            "no_chat", "Chat is for rooms of friends: nobody else at this table would read it."
        )
    line = ChatLine(0, seat, tables.clock(), clean_text(text, limit))
    chat_of(tables, room, kept)
    line = attrs.evolve(line, seq=room.chat_count)
    write = chat_write(room.id, line.seq, seat, line.at, line.text)

    def finish() -> ChatLine:
        assert room.chat is not None
        room.chat.append(line)
        room.chat_count = line.seq + 1
        del room.chat[:-kept]
        return line

    return Pending(tables.store, write, finish)
