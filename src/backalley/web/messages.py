"""What the table's browsers and server say to each other over a WebSocket.

Every message is one JSON object in a text frame. A browser sends:

- first, ``{"type": "hello", "secret": S, "name": N}``: the seat's secret, kept by the page
  since it claimed the seat, or ``null`` to claim a seat whose invitation
  nobody has claimed yet (then the server answers ``{"type": "seat", "seat":
  "W", "secret": S}`` once, and the page keeps ``S``; with ``"origin": O`` too
  when the table has a public origin, from which the host's links are made);
  nothing else is read before it; ``name`` (optional) is the name the person
  gave themselves (:func:`~backalley.web.names.clean_name`);
- ``{"type": "name", "name": N}``: the person at the seat gives themselves a name;
- ``{"type": "again"}``: once the match is over, a player starts another with the
  same seats: every seat's link and secret open its seat in the new match (the
  pages are closed with ``CLOSE_AGAIN`` and reconnect to it);
- ``{"type": "act", "version": V, "bid": "pass" | "3" | "board"}`` or
  ``{"type": "act", "version": V, "play": "AS"}``: a bid or a card, for the
  seat whose link opened the socket (a message never names a seat), sent after
  seeing the room at version ``V``;
- ``{"type": "fill", "player": "heuristic"}``: the host seats computer players
  at the empty seats (a kind of ``rooms.COMPUTER_PLAYERS``: the levels' kinds);
- ``{"type": "reinvite", "seat": "W"}``: the host gives a guest's seat a new
  invitation; the old one, and the secret of whoever claimed it, open nothing;
- ``{"type": "chat", "text": "..."}``: a chat line, in a room of friends
  (:mod:`backalley.web.chat`);
- ``{"type": "voice", "on": true | false}``: the seat turns its voice on or off;
- ``{"type": "signal", "to": "E", "kind": "offer" | "answer", "sdp": "..."}``: a
  WebRTC session description for the seat ``to``, carried to it as it is (only
  between two seats with voice on; at most :data:`MAX_SIGNAL_BYTES`);
- ``{"type": "resync", "frame": N}``: the page missed a change, or could not apply
  one: it asks for its seat's whole frame again (``N`` the number of the last frame
  it holds, or ``null``); refused as ``unknown_frame`` for a number it was never sent.

The server sends a socket its seat's whole frame first, ``{"type": "state",
"frame": N, ...}`` (:func:`seat_frame`: the seat's view and what the page shows,
built from the view alone; ``frame`` numbers the seat's frames), then, after every
change, only what changed in it: ``{"type": "change", "base": N - 1, "frame": N,
"ops": [...]}`` (:mod:`backalley.web.changes`), which turns frame ``N - 1`` into
frame ``N``; a socket that is not known to hold frame ``N - 1`` (new, or behind) is
sent the whole frame instead, as is a page that asks with ``resync``;
the acknowledgement of an action, to the socket that sent it, once it is stored:
``"ack": V`` in the change it made to that socket's frame (``{"type": "change",
"ack": V, "base": ...}``), or, when the socket is not sent that change (it is sent
the whole frame instead, or its frame did not change), ``{"type": "ack", "version":
V}`` before its frame;
``{"type": "refused", "reason": code, "message": sentence}`` for a message
it will not carry out, which changes nothing; and ``{"type": "notice",
"reason": code, "message": sentence}`` for what happened at the table that the
frame does not show (a seat re-invited); ``{"type": "chat", "lines": [...],
"open": bool}`` with the chat (the last lines when a page opens, then each new
one); ``{"type": "voice", "seats": [...], "ice": [...]}``, the seats with voice on
and the STUN servers to use (none unless configured); and ``{"type": "signal",
"from": "S", "kind": ..., "sdp": ...}``. Anything else from a browser
(not JSON, too long, an unknown type or field) is refused the same way.

>>> parse_message('{"type": "act", "version": 3, "bid": "board"}')
Message(kind='act', version=3, field='bid', value='board')
>>> try:
...     parse_message('{"type": "act", "version": 3, "bid": "2", "seat": "N"}')
... except Refused as refusal:
...     print(refusal.reason, "-", refusal.message)
unknown_field - A message of type 'act' has no field 'seat'.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache, lru_cache
from typing import Any, Final

import attrs

from ..core.actions import Bid, Play
from ..core.bidding import Overbid
from ..core.cards import Card, Pair, Seat, Suit
from ..core.flow import dealer_of_deal
from ..core.tricks import Trick
from ..engine.match import apply, legal_actions
from ..engine.state import Phase
from ..engine.view import DealView, SeatView, view
from ..formats.codec.values import cards_to_json, swap_to_json
from ..formats.codec.view import deal_to_json, view_to_json
from ..pictures.prose import (
    PAIR_NAMES,
    SheetRow,
    counted,
    deal_label,
    result_sentence,
    score_rows,
    throw_in_sentence,
)
from .changes import diff, diff_into
from .names import LEVELS, MAX_NAME, clean_name, level_name
from .rooms import HOST, ROLES, Refused, Room

__all__ = [
    "MAX_MESSAGE_BYTES",
    "MAX_SIGNAL_BYTES",
    "FrameCache",
    "Message",
    "acknowledged",
    "card_json",
    "card_words",
    "encode",
    "parse_message",
    "seat_frame",
]

MAX_MESSAGE_BYTES: Final = 1024
"""The longest message a browser may send but a signal; a real one is under 80 bytes."""

MAX_SIGNAL_BYTES: Final = 16 * 1024
"""The longest ``signal`` message: an audio offer with its candidates is 2 to 6 KiB."""

_FIELDS: Final = {
    "act": ("version",),
    "fill": ("player",),
    "hello": ("secret", "name"),
    "name": ("name",),
    "again": (),
    "reinvite": ("seat",),
    "chat": ("text",),
    "voice": ("on",),
    "signal": ("to", "kind", "sdp"),
    "resync": ("frame",),
}
_SECRET_CHARACTERS: Final = 64
_ACT_CHOICES: Final = ("bid", "play")

_SEATS: Final = tuple(Seat)
"""The seats in order, a tuple (iterating the enumeration itself costs a call a seat)."""


@attrs.frozen
class Message:
    """A browser's message, read.

    ``kind`` is ``act`` (with ``version``, ``field`` bid or play, and ``value``),
    ``fill`` (``value`` the computer player), ``hello`` (``value`` the secret, empty
    to claim the seat; ``field`` the person's name, cleaned, or empty), ``name``
    (``field`` the name), ``reinvite`` (``value`` the seat's letter), ``again``,
    ``resync`` (``version`` the last frame the page holds, -1 for none), ``chat``
    (``value`` the text), ``voice`` (``value`` ``on`` or ``off``) or ``signal``
    (``field`` the seat it is for, ``version`` 0 for an offer and 1 for an answer,
    ``value`` the session description).
    """

    kind: str
    version: int = -1
    field: str = ""
    value: str = ""


def parse_message(text: str | bytes) -> Message:
    """Read one message from a browser, or :class:`~backalley.web.rooms.Refused` saying why not."""
    if isinstance(text, bytes):
        raise Refused("not_text", "Messages are JSON text, not binary data.")
    size = len(text.encode("utf-8", "surrogatepass"))
    too_large = Refused("too_large", f"A message is at most {MAX_MESSAGE_BYTES} bytes long.")
    if size > MAX_SIGNAL_BYTES:
        raise too_large
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        if size > MAX_MESSAGE_BYTES:
            raise too_large from None
        raise Refused("malformed", "A message is one JSON object; this is not JSON.") from None
    # Only a signal (a session description) may be longer than the usual limit.
    if size > MAX_MESSAGE_BYTES and not (isinstance(data, dict) and data.get("type") == "signal"):
        raise too_large
    if not isinstance(data, dict):
        raise Refused("malformed", 'A message is one JSON object, such as {"type": "act"}.')
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in _FIELDS:
        raise Refused(
            "unknown_type",
            "A message's type is 'hello' (first), 'act' (a bid or a card), 'resync', 'name', "
            "'again', 'chat', 'voice' or 'signal', or 'fill' or 'reinvite' (the host).",
        )
    allowed = {"type", *_FIELDS[kind], *(_ACT_CHOICES if kind == "act" else ())}
    for key in data:
        if key not in allowed:
            raise Refused(
                "unknown_field", f"A message of type {kind!r} has no field {str(key)[:40]!r}."
            )
    if kind == "hello":
        secret = data.get("secret")
        if secret is not None and (
            not isinstance(secret, str) or not 0 < len(secret) <= _SECRET_CHARACTERS
        ):
            raise Refused("malformed", "A 'hello' message carries the seat's secret, or null.")
        return Message("hello", field=_name_in(data), value=secret or "")
    if kind == "name":
        return Message("name", field=_name_in(data))
    if kind == "again":
        return Message("again")
    if kind == "resync":
        return _resync(data)
    if kind in ("chat", "voice", "signal"):
        return _talk(kind, data)
    if kind == "reinvite":
        seat = data.get("seat")
        if not isinstance(seat, str) or seat not in {s.letter for s in Seat}:
            raise Refused("malformed", "A 'reinvite' message names a seat: N, E, S or W.")
        return Message("reinvite", value=seat)
    if kind == "fill":
        return Message(
            "fill",
            value=_text(data, "player", "A 'fill' message names the computer player, as text."),
        )
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise Refused(
            "malformed", "An 'act' message carries the version of the table it was chosen on."
        )
    chosen = [key for key in _ACT_CHOICES if key in data]
    if len(chosen) != 1:
        raise Refused("malformed", "An 'act' message carries one bid or one card to play.")
    value = data[chosen[0]]
    if not isinstance(value, str) or len(value) > 8:
        raise Refused("malformed", f"A {chosen[0]} is written as short text, such as 'AS' or '3'.")
    return Message("act", version, chosen[0], value)


MAX_FRAME_NUMBER: Final = 2**31
"""The largest frame number a ``resync`` may name (a match's frames are far fewer)."""


def _resync(data: dict[str, Any]) -> Message:
    """A page's request for its seat's whole frame: the number of the one it holds, or null."""
    number = data.get("frame")
    if number is None:
        return Message("resync")
    if type(number) is not int or not 0 <= number < MAX_FRAME_NUMBER:
        raise Refused(
            "malformed",
            "A 'resync' message carries the number of the last frame the page holds, or null.",
        )
    return Message("resync", version=number)


def _name_in(data: dict[str, Any]) -> str:
    """The name a hello or name message carries, cleaned (empty if none)."""
    name = data.get("name")
    if name is None:
        return ""
    if not isinstance(name, str) or len(name) > 4 * MAX_NAME:
        raise Refused("malformed", f"A name is text of at most {MAX_NAME} characters.")
    return clean_name(name)


def _text(data: dict[str, Any], field: str, sentence: str) -> str:
    """The message's ``field``, a string, or refused as malformed with ``sentence``."""
    value = data.get(field)
    if not isinstance(value, str):
        raise Refused("malformed", sentence)
    return value


def _talk(kind: str, data: dict[str, Any]) -> Message:
    """A chat line, voice on or off, or a signal for another seat, read (not yet checked)."""
    if kind == "chat":
        return Message("chat", value=_text(data, "text", "A 'chat' message carries its text."))
    if kind == "voice":
        on = data.get("on")
        if not isinstance(on, bool):
            raise Refused("malformed", "A 'voice' message says on: true or false.")
        return Message("voice", value="on" if on else "off")
    to, signal, sdp = data.get("to"), data.get("kind"), data.get("sdp")
    if not isinstance(to, str) or to not in {s.letter for s in Seat}:
        raise Refused("malformed", "A 'signal' message names the seat it is for: N, E, S or W.")
    if signal not in ("offer", "answer") or not isinstance(sdp, str) or not sdp:
        raise Refused("malformed", "A 'signal' message carries an offer or an answer, as text.")
    return Message("signal", field=to, version=0 if signal == "offer" else 1, value=sdp)


# --- what a seat is sent ---------------------------------------------------------------


def _name(seat: Seat) -> str:
    return seat.name.title()


def card_words(card: Card) -> str:
    """A card in words at the table: the jokers by seed ``001``'s names, the bloopers.

    >>> card_words(Card.BIG), card_words(Card.H10)
    ('the big blooper (the BIG joker)', 'the ten of hearts')
    """
    if card.is_joker:
        return f"the {card.name.lower()} blooper ({card.words})"
    return card.words


def card_json(card: Card, trump: Suit | None) -> dict[str, Any]:
    """A card as the page draws it: code, symbol, words, suit letter and whether a trump."""
    return dict(_card_json(card, trump))


@cache
def _card_json(card: Card, trump: Suit | None) -> dict[str, Any]:
    # 54 cards and 5 trumps: each made once; shared, so only ever copied ({**...}).
    is_trump = card.is_joker or (trump is not None and card.suit is trump)
    return {
        "code": card.code,
        "symbol": card.symbol,
        "words": card_words(card) + (", a trump" if is_trump else ""),
        "suit": None if card.suit is None else card.suit.letter,
        "joker": card.is_joker,
        "trump": is_trump,
    }


def _trick_cards(leader: Seat, cards: tuple[Card, ...], trump: Suit | None) -> list[dict[str, Any]]:
    return [
        {**_card_json(card, trump), "seat": leader.after(index).letter}
        for index, card in enumerate(cards)
    ]


def _target(deal: DealView, pair: Pair) -> str | None:
    contracts = deal.contracts
    if contracts is None:
        return None
    contract = contracts[pair]
    if contract.is_board:
        return "Board" if contract.multiplier == 1 else f"Board ×{contract.multiplier}"
    return f"target {contract.target}"


def _status(room: Room, seen: SeatView, seat: Seat, *, started: bool) -> str:
    if not started:
        waiting = sum(row.occupant == "empty" for row in room.seats.values())
        more = "1 more player" if waiting == 1 else f"{waiting} more players"
        if seat is HOST:
            return f"Waiting for {more}: send each guest their link, or seat computers."
        return f"Waiting for {more} to open their links."
    if seen.outcome is not None:
        return f"Match over: {result_sentence(seen.outcome, seat=seat)}."
    if seen.phase is Phase.DEAL or seen.to_move is None:
        return "Dealing."
    doing = "bid" if seen.phase is Phase.BID else "play"
    if seen.to_move is seat:
        return f"Your turn to {doing}."
    return f"{_name(seen.to_move)} to {doing}."


def _warnings(seen: SeatView, seat: Seat) -> list[str]:
    """The deal's overbid warnings in the words of ``seat``'s side (none between deals)."""
    deal = seen.deal
    return [] if deal is None else [_overbid_words(w, seat) for w in deal.warnings]


def _overbid_words(overbid: Overbid, seat: Seat) -> str:
    """An overbid warning in a player's words: the side named as theirs or the other one."""
    side = "Your side has" if overbid.pair is seat.pair else "The other side has"
    return f"{side} bid {overbid.target} tricks, but only {overbid.hand_size} will be played."


def _bids(room: Room, seen: SeatView, seat: Seat, *, started: bool) -> list[dict[str, Any]]:
    """The legal bids as buttons, each with the overbid warning it would bring (if any)."""
    if not started or seen.to_move is not seat or seen.phase is not Phase.BID:
        return []
    assert seen.deal is not None
    before = set(seen.deal.warnings)
    buttons = []
    for action in legal_actions(room.state):
        if not isinstance(action, Bid):
            continue
        # The warning the engine itself gives once the bid is made (docs/rules.md
        # BID-7: an overbid is legal, warned, never refused).
        after = view(apply(room.state, action), seat).deal
        warned = [] if after is None else [w for w in after.warnings if w not in before]
        label = "Board" if action.board else "Pass" if action.is_pass else str(action.amount)
        buttons.append(
            {
                "call": action.call,
                "label": label,
                "warning": " ".join(_overbid_words(w, seat) for w in warned) or None,
            }
        )
    return buttons


def _deal_label(seen: SeatView, finished: Finished) -> str:
    """The deal in progress as people number it: the schedule's deal N of M, re-deals marked."""
    deal = seen.deal
    assert deal is not None
    rows = finished.rows
    redeal = bool(rows) and rows[-1].kind == "thrown in"
    scheduled = finished.counted_deals + 1
    return _label(scheduled, seen.rules.deals, redeal=redeal, tiebreak=deal.tiebreak)


_label = deal_label


def _last_trick(seen: SeatView, rows: list[SheetRow], label: str | None) -> dict[str, Any] | None:
    deal = seen.deal
    source = deal if deal is not None and deal.tricks else None
    if source is None and seen.history:
        source = seen.history[-1]
        if not source.tricks:
            return None
        row = rows[-1]
        tiebreak = row.kind == "tiebreak"
        label = _label(row.scheduled, seen.rules.deals, redeal=row.redeal, tiebreak=tiebreak)
    if source is None:
        return None
    shared = _trick_json(source.number + 1, len(source.tricks), source.tricks[-1], source.trump)
    return {
        **shared,
        "deal_label": label,
        # Still on the table: no card of a newer deal dealt since (kept until the next lead).
        "current": source is deal or deal is None,
    }


@lru_cache(maxsize=1024)
def _trick_json(deal: int, number: int, trick: Trick, trump: Suit | None) -> dict[str, Any]:
    """A finished trick as the page shows it, made once for every frame that shows it.

    Shared between frames, so never changed.
    """
    assert trick.winner is not None
    return {
        "deal": deal,
        "number": number,
        "cards": _trick_cards(trick.leader, trick.cards, trump),
        "winner": trick.winner.letter,
        "sentence": f"{_name(trick.winner)} won trick {number}.",
    }


def _sides(seen: SeatView, seat: Seat, totals: tuple[int, int]) -> list[dict[str, Any]]:
    deal = seen.deal
    # Between deals and after the match, each side shows the deal just finished.
    shown = deal if deal is not None else (seen.history[-1] if seen.history else None)
    sides = []
    for pair in Pair:
        target = None if shown is None else _target(shown, pair)
        sides.append(
            {
                "pair": pair.label,
                "name": PAIR_NAMES[pair],
                "yours": seat.pair is pair,
                "target": target,
                "target_text": _target_text(shown, target, finished=deal is None),
                "tricks": 0 if shown is None else shown.tricks_won[pair],
                "score": None
                if deal is not None or shown is None or shown.scores is None
                else shown.scores[pair],
                "total": totals[pair],
            }
        )
    return sides


def _target_text(shown: DealView | None, target: str | None, *, finished: bool) -> str:
    """What a side's box says of its target: bidding, the target, or the last deal's."""
    if shown is None:
        return "No deal yet"
    if shown.tiebreak:
        return "Tiebreak deal: more tricks wins"
    if target is None:
        return "Thrown in: no target" if finished else "Bidding: no target yet"
    target = target[0].upper() + target[1:]
    return f"Last deal: {target.lower()}" if finished else target


def _held(deal: DealView | None) -> dict[str, int]:
    """How many cards each seat holds now: the hand size less the cards it has played."""
    if deal is None:
        return {}
    played = dict.fromkeys(_SEATS, 0)
    for trick in deal.tricks:
        for seat, _card in trick.plays:
            played[seat] += 1
    if deal.leader is not None:
        for index in range(len(deal.trick)):
            played[deal.leader.after(index)] += 1
    return {seat.letter: deal.hand_size - played[seat] for seat in _SEATS}


def _throw_in(seen: SeatView, rows: list[SheetRow]) -> str | None:
    """The throw-in told while the deal dealt again is bid: all passed, who deals again."""
    deal = seen.deal
    if not rows or rows[-1].kind != "thrown in":
        return None
    if deal is not None and seen.phase is not Phase.BID:
        return None
    again = dealer_of_deal(seen.rules, rows[-1].number)
    return throw_in_sentence(again, rows[-1].hand_size)


def _sheet(rows: list[SheetRow]) -> list[dict[str, Any]]:
    return [
        {
            "deal": row.label,
            "cards": row.hand_size,
            "dealer": _name(row.dealer),
            "trump": row.trump_word,
            "kind": row.kind,
            "scores": list(row.scores),
            "tricks": list(row.tricks),
            "totals": list(row.totals),
        }
        for row in rows
    ]


def _seats(room: Room, seat: Seat, connected: frozenset[Seat]) -> list[dict[str, Any]]:
    seats = []
    for other in _SEATS:
        row = room.seats[other]
        who = "you" if other is seat else "partner" if other is seat.partner else "opponent"
        seats.append(
            {
                "seat": other.letter,
                "name": _name(other),
                "who": who,
                "role": ROLES[other] if room.mode == "friends" else None,
                "occupant": row.occupant,
                "player": row.player,
                "level": level_name(row.player) if row.occupant == "computer" else None,
                "player_name": room.names.get(other),
                "claimed": row.secret is not None,
                "connected": other in connected,
            }
        )
    return seats


def seat_frame(
    room: Room,
    seat: Seat,
    *,
    connected: frozenset[Seat] = frozenset(),
    token: str | None = None,
) -> dict[str, Any]:
    """Everything ``seat`` is sent about its room: made from its own seat view only.

    The view (:func:`backalley.engine.view.view`, its JSON as
    :meth:`~backalley.engine.view.SeatView.to_dict`) holds the seat's own hand and
    what is public; the rest is derived from it, plus the room's seating and, for
    the host of a room of friends, the invitations nobody has claimed yet (never a
    claimed seat's: its holder's secret is theirs alone). ``token`` is the seat's
    own, for the address of the record once the match is over.
    """
    seen = view(room.state, seat)
    return _frame(room, seat, seen, seen.to_dict(), connected, token)


@attrs.frozen
class Finished:
    """What a frame derives from the finished deals alone: the same for every seat.

    A finished deal's scores, tricks and bids are public, so the score sheet's rows,
    the deals counted and the running totals are one room's, not one seat's: a
    :class:`FrameCache` makes them once a deal instead of once a frame and seat.
    """

    rows: list[SheetRow]
    counted_deals: int
    totals: tuple[int, int]
    sheet: list[dict[str, Any]]

    @classmethod
    def of(cls, seen: SeatView) -> Finished:
        """The finished deals of ``seen`` summed up."""
        rows = score_rows(seen)
        return cls(rows, seen.counted_deals, seen.totals, _sheet(rows))


class FrameCache:
    """One room's frames for many versions: each seat's last frame kept, and what changed.

    A seat's frames are numbered from 0 (its ``"frame"``); :meth:`update` makes the
    seat's frame of the room as it is now and, when it differs from the one before,
    numbers it and gives the ``change`` message that turns the one before into it
    (:func:`backalley.web.changes.diff`); :meth:`full_text` gives the whole frame, for
    a page that has none yet or asked for it again.

    A frame is made in two parts: the room's (:func:`_room_part` and the view's public
    keys), the same for every seat, made once a version, and what changed in it worked
    out once for all the seats that held the same one before; and the seat's own
    (:func:`_seat_part`, its hand in the view and its swap). A seat's finished deals (its
    view's ``history``) change only when a deal ends: their JSON is made once per deal and
    seat, spliced into the whole frame's text, and sent in a change as the deals
    appended. The whole frame is :func:`seat_frame`'s with the seat's frame number (a
    differential test reads both, and applies every change, at every step of matches).
    """

    def __init__(self) -> None:
        self._history: dict[Seat, tuple[int, list[dict[str, Any]]]] = {}
        self._finished: tuple[int, Finished | None] = (-1, None)
        # The room's part of the frames, and what it was made of (states are never
        # changed, only replaced): made again when any of these is another.
        self._room_of: tuple[object, int, bool] | None = None
        self._room: dict[str, Any] = {}
        # What changed from one room part to another: worked out once for all seats.
        self._room_ops: tuple[object, object, str] = (None, None, "")
        self._seats: dict[Seat, _SeatFrame] = {}

        # Each pair's sides (the same but for "yours") and overbid warnings for the room
        # part they were made for; each seat's seats, and what they were made of.
        self._sides: dict[Pair, tuple[object, list[dict[str, Any]], list[str]]] = {}
        self._seat_rows: dict[Seat, tuple[object, list[dict[str, Any]]]] = {}

    def update(
        self,
        room: Room,
        seat: Seat,
        *,
        connected: frozenset[Seat] = frozenset(),
        token: str | None = None,
    ) -> tuple[int, str | None]:
        """Make ``seat``'s frame now: its number, and the change from the one before.

        The change is ``None`` when the frame is the seat's first, or the same as the
        one before (then the number stays).
        """
        seen = view(room.state, seat)
        # The finished deals' summary is the same for every seat: made once a deal. A
        # room's history only grows, so its length names it.
        count, finished = self._finished
        if finished is None or count != len(seen.history):
            finished = Finished.of(seen)
            self._finished = (len(seen.history), finished)
        started = room.started
        made_of = self._room_of
        # The state by identity: two states are equal only field by field (costly).
        if (
            made_of is None
            or made_of[0] is not room.state
            or made_of[1] != room.version
            or made_of[2] != started
        ):
            self._room = self._room_part(room, seen, finished)
            self._room_of = (room.state, room.version, started)
        shared = self._room
        deal = seen.deal
        mine = {
            "seat": seat.letter,
            "hand": cards_to_json(seen.hand),
            "swap": None if deal is None else swap_to_json(deal.swap),
        }
        sides, warnings = self._pair_of(seen, seat, finished)
        own = _seat_part(
            room,
            seat,
            seen,
            connected,
            token,
            finished,
            sides=sides,
            seats=self._seats_of(room, seat, connected),
            warnings=warnings,
            started=started,
        )
        deals = self._history_of(seen)
        kept = self._seats.get(seat)
        if kept is None:
            self._seats[seat] = _SeatFrame(0, shared, mine, own, deals)
            return 0, None
        # What changed in the room's part, as the text of its operations: made once for
        # all the seats that held the same part before.
        known = ""
        if kept.shared is not shared:
            before, after, known = self._room_ops
            if before is not kept.shared or after is not shared:
                known = encode(diff(kept.shared, shared, _PARTIAL))[1:-1]
                self._room_ops = (kept.shared, shared, known)
        ops: list[list[Any]] = []
        if kept.mine["hand"] != mine["hand"]:
            diff_into(kept.mine["hand"], mine["hand"], ["view", "hand"], ops)
        # The view's deal, when there is one, holds the seat's swap: set with a new deal
        # (the room's part sets the deal without it), else when it changed.
        if deal is not None and (
            kept.shared["view"]["deal"] is None or kept.mine["swap"] != mine["swap"]
        ):
            ops.append(["s", ["view", "deal", "swap"], mine["swap"]])
        diff_into(kept.own, own, [], ops)
        if kept.history is not deals:
            # A deal finished (the kept history is made again only then): the new deals.
            before_count, now = kept.history[0], deals[0]
            if now > before_count and kept.history[1] == deals[1][:before_count]:
                ops.append(["a", ["view", "history"], deals[1][before_count:]])
            elif kept.history[1] != deals[1]:
                ops.append(["s", ["view", "history"], deals[1]])
        if not ops and not known:
            return kept.number, None
        number = kept.number + 1
        self._seats[seat] = _SeatFrame(number, shared, mine, own, deals)
        # Its own operations after the room's (those of the view's deal after the deal).
        text = encode(ops)[1:-1] if ops else ""
        both = f"{known},{text}" if known and text else known or text
        return number, f'{_CHANGE}"base":{number - 1},"frame":{number},"ops":[{both}]}}'

    def _pair_of(
        self, seen: SeatView, seat: Seat, finished: Finished
    ) -> tuple[list[dict[str, Any]], list[str]]:
        # The sides and the overbid warnings are made from what is public, and which side
        # is the seat's: once a room part and pair, the same lists for both its seats.
        made_for, sides, warnings = self._sides.get(seat.pair, (None, [], []))
        if made_for is not self._room:
            # The lists made before, when equal: each seat's diff then finds them the same
            # at once (one comparison a pair, not one a seat).
            made = _sides(seen, seat, finished.totals)
            sides = sides if made == sides else made
            made_warnings = _warnings(seen, seat)
            warnings = warnings if made_warnings == warnings else made_warnings
            self._sides[seat.pair] = (self._room, sides, warnings)
        return sides, warnings

    def _seats_of(self, room: Room, seat: Seat, connected: frozenset[Seat]) -> list[dict[str, Any]]:
        # The seating changes far less often than the frames: made again when it does.
        made_of = (
            connected,
            room.mode,
            tuple(map(room.names.get, _SEATS)),
            tuple(
                [(row.occupant, row.player, row.secret is not None) for row in room.seats.values()]
            ),
        )
        kept = self._seat_rows.get(seat)
        if kept is None or kept[0] != made_of:
            kept = (made_of, _seats(room, seat, connected))
            self._seat_rows[seat] = kept
        return kept[1]

    def _room_part(self, room: Room, seen: SeatView, finished: Finished) -> dict[str, Any]:
        """The room's part of every seat's frame now, the view's public keys with it."""
        label = None if seen.deal is None else _deal_label(seen, finished)
        public = _public(seen, finished, label)
        data = view_to_json(seen, history=False, totals=finished.totals)
        shared_view = {key: value for key, value in data.items() if key not in _OWN_VIEW}
        deal = data["deal"]
        shared_view["deal"] = (
            None if deal is None else {k: v for k, v in deal.items() if k != "swap"}
        )
        return {**_room_part(room, seen, finished, label, public), "view": shared_view}

    def full_text(self, seat: Seat) -> str:
        """The seat's frame made last by :meth:`update`, whole, as the text of one message."""
        kept = self._seats[seat]
        if kept.text is None:
            shared_view = kept.shared["view"]
            deal = shared_view["deal"]
            whole = {
                **kept.shared,
                **kept.own,
                "view": {
                    **shared_view,
                    "seat": kept.mine["seat"],
                    "hand": kept.mine["hand"],
                    "deal": None if deal is None else {**deal, "swap": kept.mine["swap"]},
                    "history": kept.history[1],
                },
                "frame": kept.number,
            }
            kept.text = encode(whole)
        return kept.text

    def _history_of(self, seen: SeatView) -> tuple[int, list[dict[str, Any]]]:
        # A room's history only grows: its length names it, and a finished deal never
        # changes, so only the deals finished since are made (once each, not once a deal
        # for every deal before it). The list is a new one: the kept one may be sent.
        history = seen.history
        count = len(history)
        kept = self._history.get(seen.seat)
        if kept is None or kept[0] != count:
            made = kept[1] if kept is not None and kept[0] < count else []
            # By index: a slice of the history would make the view of every deal in it.
            new = [deal_to_json(history[index]) for index in range(len(made), count)]
            kept = (count, [*made, *new])
            self._history[seen.seat] = kept
        return kept


_OWN_VIEW: Final = frozenset({"seat", "hand", "deal", "history"})
_PARTIAL: Final = frozenset({("view",), ("view", "deal")})
"""The room part's dicts that hold only some of the frame's keys: changed key by key."""
"""The keys of a seat's view that are its own (its deal's swap among them), or kept apart."""


@attrs.define
class _SeatFrame:
    """A seat's last frame: its number, its parts (the history apart), its whole text once made.

    ``shared`` is the room's part (shared by the seats), ``mine`` the seat's own keys of
    its view (``seat``, ``hand``, its deal's ``swap``), ``own`` the seat's own keys.
    """

    number: int
    shared: dict[str, Any]
    mine: dict[str, Any]
    own: dict[str, Any]
    history: tuple[int, list[dict[str, Any]]]
    text: str | None = None


def _public(seen: SeatView, finished: Finished, label: str | None) -> dict[str, Any]:
    """The parts of a frame that every seat is sent alike: made from what is public only.

    The cards each seat holds, the bids said, the trick on the table, the last trick
    won and the score sheet: a :class:`FrameCache` makes and encodes them once a
    version for all four seats (a seat's own hand and choices are not among them).
    """
    deal = seen.deal
    trump = None if deal is None else deal.trump
    return {
        "held": _held(deal),
        "said": []
        if deal is None
        else [{"seat": bid.seat.letter, "call": bid.call} for bid in deal.bids],
        "trick": []
        if deal is None or deal.leader is None
        else _trick_cards(deal.leader, deal.trick, trump),
        "last_trick": _last_trick(seen, finished.rows, label),
        "sheet": finished.sheet,
    }


def _frame(  # noqa: PLR0913, PLR0917 -- the parts of a frame, made by its two writers
    room: Room,
    seat: Seat,
    seen: SeatView,
    view_data: dict[str, Any],
    connected: frozenset[Seat],
    token: str | None,
    finished: Finished | None = None,
    public: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    deal = seen.deal
    if finished is None:
        finished = Finished.of(seen)
    label = None if deal is None else _deal_label(seen, finished)
    if public is None:
        public = _public(seen, finished, label)
    return {
        **_room_part(room, seen, finished, label, public),
        "view": view_data,
        **_seat_part(room, seat, seen, connected, token, finished),
    }


def _room_part(
    room: Room, seen: SeatView, finished: Finished, label: str | None, public: Mapping[str, Any]
) -> dict[str, Any]:
    """The keys of a frame that every seat is sent alike (its view apart): public only."""
    deal = seen.deal
    trump = None if deal is None else deal.trump
    return {
        "type": "state",
        "version": room.version,
        "mode": room.mode,
        "started": room.started,
        "over": room.is_over,
        "phase": seen.phase.value,
        "deal_number": None if deal is None else deal.number + 1,
        "deal_label": label,
        "cards_each": None if deal is None else f"{counted(deal.hand_size, 'card')} each",
        "throw_in": _throw_in(seen, finished.rows),
        "held": public["held"],
        "counted_deals": finished.counted_deals,
        "deals": room.rules.deals,
        "hand_size": None if deal is None else deal.hand_size,
        "tiebreak": deal is not None and deal.tiebreak,
        "dealer": None if deal is None else _name(deal.dealer),
        "turned": None if deal is None else _card_json(deal.turned, trump),
        "trump_words": None if deal is None else deal.trump_words.capitalize(),
        "said": public["said"],
        "trick": public["trick"],
        "last_trick": public["last_trick"],
        "sheet": public["sheet"],
    }


def _seat_part(  # noqa: PLR0913, PLR0917 -- what one seat's part is made of
    room: Room,
    seat: Seat,
    seen: SeatView,
    connected: frozenset[Seat],
    token: str | None,
    finished: Finished,
    *,
    sides: list[dict[str, Any]] | None = None,
    seats: list[dict[str, Any]] | None = None,
    warnings: list[str] | None = None,
    started: bool | None = None,
) -> dict[str, Any]:
    """The keys of a frame that are the seat's own (its view apart): its hand, its choices.

    ``sides``, ``seats`` and ``warnings``, when given, are this seat's, made before (and
    kept while what they are made of stays the same); ``started``, the room's, read once.
    """
    deal = seen.deal
    trump = None if deal is None else deal.trump
    if started is None:
        started = room.started
    my_turn = started and seen.to_move is seat and not room.is_over
    legal_cards = set()
    if my_turn and seen.phase is Phase.PLAY:
        legal_cards = {a.card for a in legal_actions(room.state) if isinstance(a, Play)}
    part: dict[str, Any] = {
        "seat": seat.letter,
        "host": seat is HOST,
        "status": _status(room, seen, seat, started=started),
        "your_turn": my_turn,
        "hand": _hand_json(tuple(seen.hand), trump, frozenset(legal_cards)),
        "bids": _bids(room, seen, seat, started=started),
        "sides": _sides(seen, seat, finished.totals) if sides is None else sides,
        "warnings": _warnings(seen, seat) if warnings is None else warnings,
        "seats": _seats(room, seat, connected) if seats is None else seats,
        "record": f"/record/{token}" if room.is_over and token is not None else None,
        "swap": None
        if deal is None or deal.swap is None
        else f"You held {card_words(deal.swap.joker)}: you swapped it for "
        f"{card_words(deal.swap.received)}.",
    }
    if seat is HOST and room.mode == "friends":
        # In seat order round the table from the host: guest 1, guest 2, guest 3.
        links = {
            other.letter: f"/seat/{row.token}"
            for other, row in sorted(room.seats.items(), key=lambda item: ROLES[item[0]])
            if other is not HOST
            and row.token is not None
            and row.occupant != "computer"
            and row.secret is None
        }
        if links or not started:
            part["links"] = links
        part["levels"] = _LEVELS_JSON
    return part


_LEVELS_JSON: Final = [{"player": key, "name": level.name} for key, level in LEVELS.items()]
"""The computer levels the host may seat, as every host's frame lists them (never changed)."""


@lru_cache(maxsize=4096)
def _hand_json(
    hand: tuple[Card, ...], trump: Suit | None, legal: frozenset[Card]
) -> list[dict[str, Any]]:
    """A hand as the page draws it, in its order, each card marked legal or not.

    Made once for each hand, trump and legal cards, and shared by the frames that show it
    (a hand changes only when its seat plays or a deal is dealt): never changed.
    """
    ordered = sorted(hand, key=lambda card: _hand_order(card, trump))
    return [{**_card_json(card, trump), "legal": card in legal} for card in ordered]


_CHANGE: Final = '{"type":"change",'
"""How every ``change`` message's text begins (:meth:`FrameCache.update` writes them)."""


def acknowledged(change: str, version: int) -> str:
    """``change`` (a ``change`` message's text) carrying the acknowledgement of ``version``.

    The socket whose action made the change is sent it with ``"ack": V`` (the action
    stored at version ``V``): one message an action less than an ``ack`` of its own.

    >>> acknowledged('{"type":"change","base":3,"frame":4,"ops":[]}', 12)
    '{"type":"change","ack":12,"base":3,"frame":4,"ops":[]}'
    """
    assert change.startswith(_CHANGE)
    return f'{_CHANGE}"ack":{version},{change[len(_CHANGE) :]}'


def encode(message: object) -> str:
    """A message as the text of one frame (compact JSON)."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


_SUIT_ORDER: Final = {Suit.SPADES: 0, Suit.HEARTS: 1, Suit.CLUBS: 2, Suit.DIAMONDS: 3}


def _hand_order(card: Card, trump: Suit | None) -> tuple[int, int]:
    """Suits apart, alternating colours, trumps last and the jokers after them; high first."""
    if card.is_joker:
        return (6, -int(card))
    assert card.suit is not None and card.rank is not None
    group = 5 if card.suit is trump else _SUIT_ORDER[card.suit]
    return (group, -int(card.rank))
