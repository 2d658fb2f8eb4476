"""The text notation of Back Alley: bids and actions, read in any case, written one way.

Cards, seats and calls have their own readers and writers in the core
(:meth:`Card.parse`, :attr:`Card.code`, :meth:`Seat.parse`, :attr:`Seat.letter`,
:func:`~backalley.core.actions.read_call`, :attr:`Bid.call`); this module adds the
rest, and raises :class:`NotationError` for all of them:

- a bid is ``pass``, a number (``3``) or ``board``;
- an action is a seat then a bid or a card: ``N 3``, ``E pass``, ``W board``,
  ``S AS``, ``N 10H``.

Input is read case-insensitively and may say ``TH`` for ``10H`` or ``North``
for ``N``; output is always the canonical form (upper-case card codes, ``10``
for ten, lower-case bids, one-letter seats). Whether a bid is in range for the
hand size is a rule, checked by ``apply`` (``bid_out_of_range``), not here.

>>> parse_action("n 3"), parse_action("East PASS"), parse_action("s th")
(Bid(N, 3), Bid(E, pass), Play(S, 10H))
>>> action_text(parse_action("w Board"))
'W board'
>>> parse_call("seven")  # doctest: +IGNORE_EXCEPTION_DETAIL
Traceback (most recent call last):
NotationError: unknown bid 'seven': a bid is pass, a number such as 3, or board
"""

from __future__ import annotations

from ..core.actions import MAX_CALL_DIGITS, Bid, Play, read_call
from ..core.cards import Card, Seat

__all__ = [
    "MAX_CALL_DIGITS",
    "NotationError",
    "action_text",
    "call_text",
    "parse_action",
    "parse_bid",
    "parse_call",
    "parse_card",
]


class NotationError(ValueError):
    """Text that is not a card, a bid or an action of the notation."""


def parse_card(text: str) -> Card:
    """A card from its code in any case (``as``, ``10h``, ``TH``, ``big``), or NotationError."""
    try:
        return Card.parse(text)
    except (ValueError, TypeError) as error:
        raise NotationError(str(error)) from None


def parse_call(text: str) -> tuple[int, bool]:
    """A bid's call as ``(amount, board)``: ``pass`` is ``(0, False)``, ``board`` ``(0, True)``.

    The core's :func:`~backalley.core.actions.read_call`, its refusal a NotationError.
    """
    try:
        return read_call(text)
    except (ValueError, TypeError) as error:
        raise NotationError(str(error)) from None


def parse_bid(seat: Seat, text: str) -> Bid:
    """The bid ``seat`` makes by saying ``text`` (``pass``, ``3``, ``board``)."""
    amount, board = parse_call(text)
    return Bid(seat, amount, board)


def call_text(bid: Bid) -> str:
    """The canonical call: ``pass``, ``3`` or ``board``."""
    return bid.call


def parse_action(text: str) -> Bid | Play:
    """An action written as a seat then a bid or a card: ``N 3``, ``E pass``, ``S AS``."""
    if not isinstance(text, str):
        raise NotationError(f"an action is written as text such as 'N 3' or 'S AS', not {text!r}")
    words = text.split()
    if len(words) != 2:
        raise NotationError(
            f"cannot read the action {text!r}: write a seat then a bid or a card, "
            "such as 'N 3', 'E pass', 'W board' or 'S AS'"
        )
    try:
        seat = Seat.parse(words[0])
    except ValueError as error:
        raise NotationError(f"in the action {text!r}: {error}") from None
    what = words[1]
    if what.lower() in ("pass", "board") or what.isdigit():
        try:
            return parse_bid(seat, what)
        except NotationError as error:
            raise NotationError(f"in the action {text!r}: {error}") from None
    try:
        return Play(seat, Card.parse(what))
    except ValueError as error:
        raise NotationError(
            f"in the action {text!r}: {error}; a bid is pass, a number or board"
        ) from None


def action_text(action: Bid | Play) -> str:
    """The canonical text of an action: ``N 3``, ``E pass``, ``W board``, ``S 10H``."""
    if isinstance(action, Bid):
        return f"{action.seat.letter} {action.call}"
    if isinstance(action, Play):
        return f"{action.seat.letter} {action.card.code}"
    raise TypeError(f"only bids and plays have a text form, not {action!r}")
