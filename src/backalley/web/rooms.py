"""Rooms of the online table: who sits where, and every action through ``apply``.

A room is one match and its four seats. Seed ``001``'s table seats people two
ways: **play the computer** (you at South, a computer partner across at North
and two computer opponents) and **play with three friends** (the host gets one
link per seat; "the host and guest 2 are one side, guests 1 and 3 the other",
so the host sits at South, guest 1 at West, guest 2 at North and guest 3 at
East; play starts when all four seats are filled). Beyond the seed, the host
may fill the empty seats with computer players.

The server decides everything. A seat is reached through its **invitation**,
the token in its link (:func:`secrets.token_urlsafe`, 192 bits), and held
through a **secret**: the first browser to open the invitation claims the seat
and is given the seat's secret (a second random 192 bits), which the server
keeps only as a SHA-256 digest. From then on the invitation alone opens
nothing at that seat: it takes the invitation and the secret. The host may
re-invite a guest's seat: a new invitation, the old one and its holder's
secret void. The computers' seats have neither.

An action always acts for the seat whose holder sent it; it carries the
version (the number of actions the room had) that its sender saw, and one for
an older version is refused as stale and changes nothing, which also refuses a
message sent twice; every action goes through :func:`backalley.apply`, whose
refusal comes back with its reason code and sentence. A change is stored
(:class:`~backalley.web.store.Store`) before the room moves on, so what has
been acknowledged is on disk: each change is planned (checked, its new
position computed), handed to the store, and made in memory only once its
commit has returned (:class:`Pending`).

This module uses only the library's public API: ``new_match``, ``apply``,
``legal_actions``, ``seeded_deal``, the seat views and the computer players.

>>> from backalley import Rules
>>> from backalley.web.store import Store
>>> tables = Tables(Store(":memory:"))
>>> room, token = tables.create("computer", Rules(schedule=[2]), "heuristic")
>>> tables.seat_of(token) == (room, Seat.SOUTH)
True
>>> secret = tables.claim(room, Seat.SOUTH)          # the first browser to open the link
>>> tables.holds(room, Seat.SOUTH, secret), tables.holds(room, Seat.SOUTH, None)
(True, False)
>>> while tables.step(room) is not None:   # the deal, then the computers until South
...     pass
>>> room.state.to_move, room.version > 0
(Seat.SOUTH, True)
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import re
import secrets
import sqlite3
import time
from collections.abc import Callable
from typing import Any, Final, Generic, TypeVar

from ..core.actions import Action, Bid, Deal, Play
from ..core.cards import Card, Seat
from ..core.errors import IllegalAction
from ..core.rules import Rules
from ..engine.match import apply, legal_actions, new_match, seeded_deal
from ..engine.state import MatchState, Phase
from ..engine.view import view
from ..formats.notation import NotationError, parse_action, parse_bid
from ..players import PLAYER_KINDS, Player, SeatedPlayer, player_seed
from ..players.levels import LEVELS
from .store import (
    SeatRow,
    Store,
    StoredRoom,
    StoreError,
    Write,
    action_write,
    room_write,
    seats_write,
)

__all__ = [
    "COMPUTER_PLAYERS",
    "MODES",
    "ROLES",
    "Pending",
    "Refused",
    "Room",
    "Tables",
    "action_text",
    "digest",
    "is_proposal",
]

MODES: Final = ("computer", "friends")
"""The two ways to sit down (seed ``001``): play the computer, play with three friends."""

COMPUTER_PLAYERS: Final = tuple(level.kind for level in LEVELS)
"""The computer players a room may seat: the kinds of the levels, weakest first
(``backalley.players.levels``; the slow ones choose in worker processes)."""

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
"""Random bytes in an invitation and in a secret: 192 bits, 32 URL-safe characters."""

FINISHED_KEEP: Final = 600.0
"""Seconds a finished room stays in memory (its result and record on the page)."""

ABANDONED_AFTER: Final = 6 * 3600.0
"""Seconds without a change after which a room in play leaves memory (and is not resumed)."""

T = TypeVar("T")


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


_PROPOSAL: Final = re.compile(r"[A-Za-z0-9_-]{32,64}")


def is_proposal(secret: str) -> bool:
    """Whether ``secret`` may be a page's own secret for a claim: 32 to 64 URL-safe characters.

    >>> is_proposal("x" * 31), is_proposal(secrets.token_urlsafe(TOKEN_BYTES))
    (False, True)
    """
    return _PROPOSAL.fullmatch(secret) is not None


def digest(secret: str) -> str:
    """What the store keeps of a seat's secret: its SHA-256, in hex."""
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


_STALE: Final = "The table has moved on since you sent that: look again."


class Pending(Generic[T]):
    """A change planned, to be stored, then made in memory once it is committed.

    :meth:`wait` hands it to the store and blocks until the commit (for scripts and
    tests); ``await`` :meth:`done` lets the event loop go on meanwhile. Either returns
    what the change gives (a token, a secret, the action), or raises the store's
    error; an action number that another writer took is :class:`Refused` as
    ``stale``. The room must not be planned on again before this one is done (the
    server holds a lock per room).
    """

    def __init__(self, store: Store, write: Write, finish: Callable[[], T]) -> None:
        self._store = store
        self._write = write
        self._finish = finish

    def wait(self) -> T:
        """Store it, blocking until committed; made in memory; its result."""
        try:
            self._store.submit(self._write).result()
        except sqlite3.IntegrityError:
            raise Refused("stale", _STALE) from None
        return self._finish()

    async def done(self) -> T:
        """Store it without blocking the event loop; made in memory; its result.

        Cancelled meanwhile (its socket gone), it still waits for the commit and makes
        the change in memory before letting the cancellation through: what is on disk
        and what the room holds never part.
        """
        committed = self._store.submit_async(self._write)
        cancelled = False
        # Bounded by the writer: it resolves every future it is given.
        while not committed.done():
            try:
                # asyncio.wait, unlike a plain await, leaves the commit's future alone
                # when this task is cancelled.
                await asyncio.wait([committed])
            except asyncio.CancelledError:
                cancelled = True
        error = committed.exception()
        if isinstance(error, sqlite3.IntegrityError):
            raise Refused("stale", _STALE) from None
        if error is not None:
            raise error
        result = self._finish()
        if cancelled:
            raise asyncio.CancelledError
        return result


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
        self.active = created
        """When the room last changed (an action, a seat claimed or filled)."""
        self.finished: float | None = None
        """When its match ended."""
        self.chat: list[Any] | None = None
        """The room's last chat lines (:class:`~backalley.web.chat.ChatLine`), once read."""
        self.chat_count = 0
        """How many chat lines the room has had: the next line's number."""
        self.seats = seats
        self.state = new_match(rules, seed=seed)
        self.version = 0
        """How many actions the room has had (the deals included): the stored ``seq`` next."""
        self._players: dict[Seat, Player] = {}
        self.names: dict[Seat, str] = {}
        """The names people gave themselves, by seat (sent by their pages, not stored)."""
        self.again: Room | None = None
        """The match this room's players went on to (play again), once there is one."""

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

    def legal_choices(self) -> tuple[Bid | Play, ...]:
        """The bids or cards the seat to move may choose among now."""
        return tuple(act for act in legal_actions(self.state) if not isinstance(act, Deal))

    def next_automatic(self, chosen: Action | None = None) -> Action | None:
        """The action the server makes itself now: the seeded deal or a computer's choice.

        ``chosen``: the computer's choice, made elsewhere (a worker process,
        ``backalley.web.thinking``); otherwise the computer chooses here.
        """
        if not self.automatic_due:
            return None
        if self.state.phase is Phase.DEAL:
            return seeded_deal(self.state)
        seat = self.state.to_move
        assert seat is not None
        legal = self.legal_choices()
        choice = chosen if chosen is not None else self.player(seat)(view(self.state, seat), legal)
        if choice not in legal:
            # A computer player of the library never does this; if one did, the room
            # must not stop for good: play its first legal action and go on.
            choice = legal[0]
        return choice


class Tables:
    """Every room of a server in play, kept in a :class:`~backalley.web.store.Store`.

    Made from the store, it rebuilds the rooms in play (not over, changed in the
    last ``resume_within`` seconds) by replaying their actions through ``apply``,
    so a server killed and started again resumes each of them at the position it
    had acknowledged; the others stay on disk and are loaded when one of their
    links is opened (:meth:`seat_of`). :meth:`evict` lets finished and abandoned
    rooms leave memory.
    """

    def __init__(
        self,
        store: Store,
        *,
        clock: Callable[[], float] = time.time,
        resume_within: float = ABANDONED_AFTER,
        mark: str = "",
    ) -> None:
        self.store = store
        self.clock = clock
        self.mark = mark
        """The start of every invitation made here: the process's mark
        (:func:`backalley.web.placement.mark`) in a table of several processes, else empty."""
        self.rooms: dict[str, Room] = {}
        self._tokens: dict[str, tuple[Room, Seat]] = {}
        for stored in store.rooms(active_since=clock() - resume_within):
            self._restore(stored)

    def _token(self) -> str:
        """A new invitation: the process's mark, then 192 random bits."""
        return self.mark + secrets.token_urlsafe(TOKEN_BYTES)

    def _restore(self, stored: StoredRoom) -> Room:
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
        room.active = max(stored.active, stored.created)
        room.finished = stored.finished
        self._add(room)
        return room

    def _add(self, room: Room) -> None:
        self.rooms[room.id] = room
        for seat, row in room.seats.items():
            if row.token is not None:
                self._tokens[row.token] = (room, seat)

    def evict(
        self,
        keep: Callable[[Room], bool] = lambda room: False,
        *,
        finished_keep: float = FINISHED_KEEP,
        abandoned_after: float = ABANDONED_AFTER,
    ) -> list[Room]:
        """Let finished and abandoned rooms leave memory (not ``keep`` ones); those gone.

        A room leaves ``finished_keep`` seconds after its match ended, or
        ``abandoned_after`` seconds after its last change. It stays on disk; its links
        load it again.
        """
        now = self.clock()
        gone = [
            room
            for room in self.rooms.values()
            if (
                (room.finished is not None and now - room.finished >= finished_keep)
                or now - room.active >= abandoned_after
            )
            and not keep(room)
        ]
        for room in gone:
            del self.rooms[room.id]
            for row in room.seats.values():
                if row.token is not None:
                    self._tokens.pop(row.token, None)
        return gone

    # --- making rooms and holding seats -----------------------------------------------

    def create_later(
        self, mode: str, rules: Rules, computer: str = "heuristic"
    ) -> Pending[tuple[Room, str]]:
        """A new room and the host's invitation, once stored (see :meth:`create`)."""
        if mode not in MODES:
            raise Refused("unknown_mode", f"A room is for {' or '.join(MODES)}, not {mode!r}.")
        _check_player(computer)
        seats: dict[Seat, SeatRow] = {}
        for seat in Seat:
            if seat is HOST:
                seats[seat] = SeatRow(seat, self._token(), "person", None)
            elif mode == "computer":
                seats[seat] = SeatRow(seat, None, "computer", computer)
            else:
                seats[seat] = SeatRow(seat, self._token(), "empty", None)
        room = Room(
            room_id=secrets.token_hex(8),
            mode=mode,
            rules=rules,
            seed=secrets.randbits(64),
            created=self.clock(),
            seats=seats,
        )
        token = seats[HOST].token
        assert token is not None
        write = room_write(room.id, mode, rules, room.seed, room.created, list(seats.values()))

        def finish() -> tuple[Room, str]:
            self._add(room)
            return room, token

        return Pending(self.store, write, finish)

    def create(self, mode: str, rules: Rules, computer: str = "heuristic") -> tuple[Room, str]:
        """A new room and the host's invitation. ``computer`` plays the computer table's seats."""
        return self.create_later(mode, rules, computer).wait()

    def seat_of(self, token: object) -> tuple[Room, Seat]:
        """The room and seat an invitation opens, or :class:`Refused` (``unknown_token``).

        A room not in memory is loaded from the store.
        """
        found = self._tokens.get(token) if isinstance(token, str) else None
        if found is None and isinstance(token, str) and 16 <= len(token) <= 64:
            stored = self.store.room_of_token(token)
            if stored is not None and stored.id not in self.rooms:
                self._restore(stored)
                found = self._tokens.get(token)
        if found is None:
            raise Refused(
                "unknown_token",
                "This seat link is not known here: check the address, or ask the host for "
                "the link again.",
            )
        return found

    def holds(self, room: Room, seat: Seat, secret: object) -> bool:
        """Whether ``secret`` is the one given to the browser that claimed ``seat``."""
        kept = room.seats[seat].secret
        if kept is None or not isinstance(secret, str):
            return False
        return hmac.compare_digest(kept, digest(secret))

    def claim_later(self, room: Room, seat: Seat, proposed: str | None = None) -> Pending[str]:
        """The first browser opens the seat's invitation: the seat's secret, once stored.

        ``proposed``, a secret the page made itself (:func:`is_proposal`), becomes the
        seat's secret; otherwise one is made here. A page that keeps its proposal
        before sending it loses nothing if the server dies between storing the claim
        and answering it: it comes back with the same secret, which either holds the
        seat already or claims it now. Refused (``seat_taken``) if the seat is
        already held, or is a computer's.
        """
        row = room.seats[seat]
        if row.occupant == "computer" or row.token is None:
            raise Refused("seat_taken", "A computer plays this seat.")
        if row.secret is not None:
            raise Refused(
                "seat_taken",
                "This seat is already taken by the browser that first opened its link. "
                "If that was you, open it from that browser; otherwise ask the host for a "
                "new link.",
            )
        if proposed is not None and not is_proposal(proposed):
            raise Refused(
                "weak_secret",
                "A page's own secret is 32 to 64 letters, digits, '-' or '_': made at random.",
            )
        secret = secrets.token_urlsafe(TOKEN_BYTES) if proposed is None else proposed
        taken = SeatRow(seat, row.token, "person", None, digest(secret))
        when = self.clock()
        write = seats_write(room.id, [taken], when)

        def finish() -> str:
            room.seats[seat] = taken
            room.active = when
            return secret

        return Pending(self.store, write, finish)

    def claim(self, room: Room, seat: Seat) -> str:
        """The first browser opens the seat's invitation: the seat's secret."""
        return self.claim_later(room, seat).wait()

    def reinvite_later(self, room: Room, by: Seat, seat: Seat) -> Pending[str]:
        """The host replaces a guest seat's invitation: the new one, once stored.

        The old invitation and its holder's secret open nothing any more. Before play
        begins the seat is empty again; during play it waits for its new holder.
        """
        if by is not HOST or room.mode != "friends":
            raise Refused("not_host", "Only the host of a room of friends may re-invite a seat.")
        row = room.seats[seat]
        if seat is HOST or row.occupant == "computer":
            raise Refused(
                "not_a_guest_seat", f"{seat.name.title()} is not a guest's seat: no link to renew."
            )
        token = self._token()
        occupant = "person" if room.started else "empty"
        fresh = SeatRow(seat, token, occupant, None, None)
        when = self.clock()
        write = seats_write(room.id, [fresh], when)

        def finish() -> str:
            old = room.seats[seat].token
            if old is not None:
                self._tokens.pop(old, None)
            room.seats[seat] = fresh
            room.active = when
            self._tokens[token] = (room, seat)
            return token

        return Pending(self.store, write, finish)

    def reinvite(self, room: Room, by: Seat, seat: Seat) -> str:
        """The host replaces a guest seat's invitation: the new one."""
        return self.reinvite_later(room, by, seat).wait()

    def again_later(self, room: Room, by: Seat) -> Pending[Room]:
        """A finished room plays again, same seats: the new room, once stored.

        The new match (same rules, a new seed) takes over the room's invitations and
        its holders' secrets, so every link and every browser that held a seat holds the
        same seat in the new match: no new links. The finished match keeps its record
        under fresh invitations of its own (:attr:`Room.again`'s old room). Asked again
        (a second press, or another seat), the same new room is answered. Refused while
        the match is on, and for a seat no person holds.
        """
        if room.again is not None:
            again = room.again
            return Pending(self.store, Write(()), lambda: again)
        if not room.is_over:
            raise Refused("not_over", "The match is still on: play again once it is over.")
        if room.seats[by].occupant != "person":
            raise Refused("not_a_player", "Only a player at the table may start another match.")
        archived = {
            seat: SeatRow(
                seat,
                None if row.token is None else self._token(),
                row.occupant,
                row.player,
                row.secret,
            )
            for seat, row in room.seats.items()
        }
        new = Room(
            room_id=secrets.token_hex(8),
            mode=room.mode,
            rules=room.rules,
            seed=secrets.randbits(64),
            created=self.clock(),
            seats=dict(room.seats),
        )
        new.names = dict(room.names)
        # The finished room lets go of its invitations first: a token is one seat's.
        write = Write(
            seats_write(room.id, list(archived.values()), new.created).statements
            + room_write(
                new.id, new.mode, new.rules, new.seed, new.created, list(new.seats.values())
            ).statements
        )

        def finish() -> Room:
            for seat, row in archived.items():
                room.seats[seat] = row
                if row.token is not None:
                    self._tokens[row.token] = (room, seat)
            room.again = new
            self._add(new)
            return new

        return Pending(self.store, write, finish)

    def again(self, room: Room, by: Seat) -> Room:
        """A finished room plays again, same seats and links: the new room."""
        return self.again_later(room, by).wait()

    def fill_later(self, room: Room, seat: Seat, computer: str) -> Pending[list[Seat]]:
        """The host seats computer players at every empty seat: the seats, once stored."""
        if seat is not HOST or room.mode != "friends":
            raise Refused("not_host", "Only the host of a room of friends may seat computers.")
        if room.started:
            raise Refused("already_started", "Every seat is filled: play has already begun.")
        _check_player(computer)
        empty = [other for other, row in room.seats.items() if row.occupant == "empty"]
        rows = [SeatRow(other, None, "computer", computer) for other in empty]
        when = self.clock()
        write = seats_write(room.id, rows, when)

        def finish() -> list[Seat]:
            for row in rows:
                old = room.seats[row.seat].token
                if old is not None:
                    self._tokens.pop(old, None)
                room.seats[row.seat] = row
            room.active = when
            return empty

        return Pending(self.store, write, finish)

    def fill(self, room: Room, seat: Seat, computer: str) -> list[Seat]:
        """The host seats computer players at every empty seat; the seats filled.

        Their links stop opening anything: a computer sits there now.
        """
        return self.fill_later(room, seat, computer).wait()

    # --- actions ------------------------------------------------------------------

    def act_later(
        self, room: Room, seat: Seat, version: int, kind: str, value: str
    ) -> Pending[Action]:
        """Check the bid or card ``value`` that ``seat`` sent after seeing ``version``; store it.

        Refused, with a reason and a sentence, when play has not begun, when the
        room has moved on since ``version`` (a stale or repeated message), when
        ``value`` is not a bid or a card, or when ``apply`` refuses it; a refused
        action changes nothing. Otherwise it is handed to the store, and played once
        stored.
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
        return self._commit(room, action, after)

    def act(self, room: Room, seat: Seat, version: int, kind: str, value: str) -> Action:
        """Carry out the bid or card ``value`` that ``seat`` sent after seeing ``version``.

        As :meth:`act_later`, waiting for the store: the action, stored and played.
        """
        return self.act_later(room, seat, version, kind, value).wait()

    def step_later(self, room: Room, chosen: Action | None = None) -> Pending[Action] | None:
        """The next automatic action (a deal, a computer's bid or card) handed to the store.

        ``chosen``: the computer's choice if it was made elsewhere (see ``next_automatic``).
        """
        action = room.next_automatic(chosen)
        if action is None:
            return None
        return self._commit(room, action, apply(room.state, action))

    def step(self, room: Room) -> Action | None:
        """Make the next automatic action (a deal, a computer's bid or card), if any; it."""
        pending = self.step_later(room)
        return None if pending is None else pending.wait()

    def _commit(self, room: Room, action: Action, after: MatchState) -> Pending[Action]:
        when = self.clock()
        write = action_write(
            room.id, room.version, action_text(action), when, finished=after.is_over
        )

        def finish() -> Action:
            room.state = after
            room.version += 1
            room.active = when
            if after.is_over:
                room.finished = when
            return action

        return Pending(self.store, write, finish)


def _check_player(computer: str) -> None:
    if computer not in COMPUTER_PLAYERS:
        raise Refused(
            "unknown_player",
            f"The computer player is {' or '.join(COMPUTER_PLAYERS)}, not {computer!r}.",
        )
