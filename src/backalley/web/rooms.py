"""Rooms of the online table: who sits where, and every action through ``apply``.

A room is one match and its four seats. Seed ``001``'s table seats people two
ways: **play the computer** (you at South, a computer partner across at North
and two computer opponents) and **play with three friends** (the host gets one
link per seat; "the host and guest 2 are one side, guests 1 and 3 the other",
so the host sits at South, guest 1 at West, guest 2 at North and guest 3 at
East; play starts when all four seats are filled). Beyond the seed, the host
may fill the empty seats with computer players.

The server decides everything. A seat is reached only through its link's
token (:func:`secrets.token_urlsafe`, 192 bits), so an action always acts for
the seat whose token sent it; an action carries the version (the number of
actions the room had) that its sender saw, and one for an older version is
refused as stale and changes nothing, which also refuses a message sent
twice; every action goes through :func:`backalley.apply`, whose refusal comes
back with its reason code and sentence. An action is stored
(:class:`~backalley.web.store.Store`) before the room moves on, so what has
been acknowledged is on disk.

This module uses only the library's public API: ``new_match``, ``apply``,
``legal_actions``, ``seeded_deal``, the seat views and the computer players.

>>> from backalley import Rules
>>> from backalley.web.store import Store
>>> tables = Tables(Store(":memory:"))
>>> room, token = tables.create("computer", Rules(schedule=[2]), "heuristic")
>>> tables.seat_of(token) == (room, Seat.SOUTH)
True
>>> while tables.step(room) is not None:   # the deal, then the computers until South
...     pass
>>> room.state.to_move, room.version > 0
(Seat.SOUTH, True)
"""

from __future__ import annotations

import secrets
import sqlite3
import time
from collections.abc import Callable
from typing import Final

from ..core.actions import Action, Bid, Deal, Play
from ..core.cards import Card, Seat
from ..core.errors import IllegalAction
from ..core.rules import Rules
from ..engine.match import apply, legal_actions, new_match, seeded_deal
from ..engine.state import MatchState, Phase
from ..engine.view import view
from ..formats.notation import NotationError, parse_action, parse_bid
from ..players import PLAYER_KINDS, Player, SeatedPlayer, player_seed
from .store import SeatRow, Store, StoredRoom, StoreError

__all__ = [
    "COMPUTER_PLAYERS",
    "MODES",
    "ROLES",
    "Refused",
    "Room",
    "Tables",
    "action_text",
]

MODES: Final = ("computer", "friends")
"""The two ways to sit down (seed ``001``): play the computer, play with three friends."""

COMPUTER_PLAYERS: Final = ("heuristic", "montecarlo")
"""The computer players a room may seat (``backalley.players.PLAYER_KINDS``)."""

ROLES: Final = {
    Seat.SOUTH: "host",
    Seat.WEST: "guest 1",
    Seat.NORTH: "guest 2",
    Seat.EAST: "guest 3",
}
"""Who sits where in a room of friends: the host and guest 2 are one side (``001``)."""

HOST: Final = Seat.SOUTH
"""The seat of the person who made the room (at the computer table, the one person)."""

TOKEN_BYTES: Final = 24
"""Random bytes in a seat's token: 192 bits, written as 32 URL-safe characters."""


class Refused(ValueError):
    """A message the table will not carry out: a ``reason`` code and a sentence for people.

    The engine's own refusals keep their :class:`~backalley.Reason` code and sentence;
    the table adds its own codes (``stale``, ``waiting_for_players``, ...) for what
    is not a rule of the game.
    """

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(f"{message} [{reason}]")
        self.reason = reason
        self.message = message


def action_text(action: Action) -> str:
    """An action as stored: ``deal`` (always the seeded deal), or ``S 3``, ``W AS``."""
    if isinstance(action, Deal):
        return "deal"
    if isinstance(action, Bid):
        return f"{action.seat.letter} {action.call}"
    return f"{action.seat.letter} {action.card.code}"


def _action_from_text(text: str, state: MatchState) -> Action:
    return seeded_deal(state) if text == "deal" else parse_action(text)


class Room:
    """One match and its four seats; changed only by :class:`Tables`."""

    def __init__(  # noqa: PLR0913 -- a room's stored parts, each a keyword
        self,
        *,
        room_id: str,
        mode: str,
        rules: Rules,
        seed: int,
        created: float,
        seats: dict[Seat, SeatRow],
    ) -> None:
        self.id = room_id
        self.mode = mode
        self.rules = rules
        self.seed = seed
        """The match seed, which would tell every hand: never sent while the match is on."""
        self.created = created
        self.seats = seats
        self.state = new_match(rules, seed=seed)
        self.version = 0
        """How many actions the room has had (the deals included): the stored ``seq`` next."""
        self._players: dict[Seat, Player] = {}

    @property
    def started(self) -> bool:
        """Whether all four seats are filled, by people or computers (play has begun)."""
        return all(row.occupant != "empty" for row in self.seats.values())

    @property
    def is_over(self) -> bool:
        """Whether the match is over."""
        return self.state.is_over

    @property
    def automatic_due(self) -> bool:
        """Whether the server is to act next: a deal to make, or a computer to move."""
        if not self.started or self.state.is_over:
            return False
        seat = self.state.to_move
        return seat is None or self.seats[seat].occupant == "computer"

    def player(self, seat: Seat) -> Player:
        """The computer player at ``seat``, seeded from the match seed as ``play_match`` does."""
        if seat not in self._players:
            kind = self.seats[seat].player
            assert kind is not None
            made = PLAYER_KINDS[kind]()
            if isinstance(made, SeatedPlayer):
                made = made.for_seat(seat, player_seed(self.seed, seat))
            self._players[seat] = made
        return self._players[seat]

    def next_automatic(self) -> Action | None:
        """The action the server makes itself now: the seeded deal or a computer's choice."""
        if not self.automatic_due:
            return None
        if self.state.phase is Phase.DEAL:
            return seeded_deal(self.state)
        seat = self.state.to_move
        assert seat is not None
        legal = tuple(act for act in legal_actions(self.state) if not isinstance(act, Deal))
        choice = self.player(seat)(view(self.state, seat), legal)
        if choice not in legal:
            # A computer player of the library never does this; if one did, the room
            # must not stop for good: play its first legal action and go on.
            choice = legal[0]
        return choice


class Tables:
    """Every room of a server, kept in a :class:`~backalley.web.store.Store`.

    Made from the store, it rebuilds each stored room by replaying its actions
    through ``apply``, so a server killed and started again resumes every room
    at the position it had acknowledged.
    """

    def __init__(self, store: Store, *, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.clock = clock
        self.rooms: dict[str, Room] = {}
        self._tokens: dict[str, tuple[Room, Seat]] = {}
        for stored in store.rooms():
            self._restore(stored)

    def _restore(self, stored: StoredRoom) -> None:
        room = Room(
            room_id=stored.id,
            mode=stored.mode,
            rules=stored.rules,
            seed=stored.seed,
            created=stored.created,
            seats={row.seat: row for row in stored.seats},
        )
        for number, text in enumerate(stored.actions):
            try:
                room.state = apply(room.state, _action_from_text(text, room.state))
            except (IllegalAction, NotationError) as error:
                raise StoreError(
                    f"room {stored.id}: stored action {number} ({text!r}) is refused: {error}"
                ) from None
            room.version += 1
        self._add(room)

    def _add(self, room: Room) -> None:
        self.rooms[room.id] = room
        for seat, row in room.seats.items():
            if row.token is not None:
                self._tokens[row.token] = (room, seat)

    # --- making rooms and filling seats ---------------------------------------------

    def create(self, mode: str, rules: Rules, computer: str = "heuristic") -> tuple[Room, str]:
        """A new room and the host's token. ``computer`` plays the computer table's seats."""
        if mode not in MODES:
            raise Refused("unknown_mode", f"A room is for {' or '.join(MODES)}, not {mode!r}.")
        if computer not in COMPUTER_PLAYERS:
            raise Refused(
                "unknown_player",
                f"The computer player is {' or '.join(COMPUTER_PLAYERS)}, not {computer!r}.",
            )
        seats: dict[Seat, SeatRow] = {}
        for seat in Seat:
            if seat is HOST:
                seats[seat] = SeatRow(seat, secrets.token_urlsafe(TOKEN_BYTES), "person", None)
            elif mode == "computer":
                seats[seat] = SeatRow(seat, None, "computer", computer)
            else:
                seats[seat] = SeatRow(seat, secrets.token_urlsafe(TOKEN_BYTES), "empty", None)
        room = Room(
            room_id=secrets.token_hex(8),
            mode=mode,
            rules=rules,
            seed=secrets.randbits(64),
            created=self.clock(),
            seats=seats,
        )
        self.store.add_room(room.id, mode, rules, room.seed, room.created, list(seats.values()))
        self._add(room)
        token = seats[HOST].token
        assert token is not None
        return room, token

    def seat_of(self, token: object) -> tuple[Room, Seat]:
        """The room and seat a token opens, or :class:`Refused` (``unknown_token``)."""
        found = self._tokens.get(token) if isinstance(token, str) else None
        if found is None:
            raise Refused(
                "unknown_token",
                "This seat link is not known here: check the address, or ask the host for "
                "the link again.",
            )
        return found

    def join(self, room: Room, seat: Seat) -> bool:
        """A person opened the link of ``seat``: the seat is theirs. Whether that is new."""
        row = room.seats[seat]
        if row.occupant != "empty":
            return False
        taken = SeatRow(seat, row.token, "person", None)
        self.store.set_seats(room.id, [taken])
        room.seats[seat] = taken
        return True

    def fill(self, room: Room, seat: Seat, computer: str) -> list[Seat]:
        """The host seats computer players at every empty seat; the seats filled.

        Their links stop opening anything: a computer sits there now.
        """
        if seat is not HOST or room.mode != "friends":
            raise Refused("not_host", "Only the host of a room of friends may seat computers.")
        if room.started:
            raise Refused("already_started", "Every seat is filled: play has already begun.")
        if computer not in COMPUTER_PLAYERS:
            raise Refused(
                "unknown_player",
                f"The computer player is {' or '.join(COMPUTER_PLAYERS)}, not {computer!r}.",
            )
        empty = [other for other, row in room.seats.items() if row.occupant == "empty"]
        rows = [SeatRow(other, None, "computer", computer) for other in empty]
        self.store.set_seats(room.id, rows)
        for row in rows:
            old = room.seats[row.seat].token
            if old is not None:
                self._tokens.pop(old, None)
            room.seats[row.seat] = row
        return empty

    # --- actions ------------------------------------------------------------------

    def act(self, room: Room, seat: Seat, version: int, kind: str, value: str) -> Action:
        """Carry out the bid or card ``value`` that ``seat`` sent after seeing ``version``.

        Refused, with a reason and a sentence, when play has not begun, when the
        room has moved on since ``version`` (a stale or repeated message), when
        ``value`` is not a bid or a card, or when ``apply`` refuses it; a refused
        action changes nothing. Otherwise it is stored, then played; the action.
        """
        if not room.started:
            raise Refused(
                "waiting_for_players", "Play begins when all four seats are filled: please wait."
            )
        if version != room.version:
            raise Refused(
                "stale",
                "The table has moved on since you sent that (or it was sent twice): "
                "look again and choose once more.",
            )
        action: Bid | Play
        try:
            action = parse_bid(seat, value) if kind == "bid" else Play(seat, Card.parse(value))
        except (ValueError, TypeError) as error:
            raise Refused("unknown_" + kind, f"{error}.") from None
        try:
            after = apply(room.state, action)
        except IllegalAction as refusal:
            raise Refused(refusal.reason.value, refusal.message) from None
        self._commit(room, action, after)
        return action

    def step(self, room: Room) -> Action | None:
        """Make the next automatic action (a deal, a computer's bid or card), if any; it."""
        action = room.next_automatic()
        if action is None:
            return None
        self._commit(room, action, apply(room.state, action))
        return action

    def _commit(self, room: Room, action: Action, after: MatchState) -> None:
        try:
            self.store.add_action(room.id, room.version, action_text(action))
        except sqlite3.IntegrityError:
            # Another writer took this number: the room on disk is ahead of this one.
            raise Refused(
                "stale", "The table has moved on since you sent that: look again."
            ) from None
        room.state = after
        room.version += 1
