"""The actions of a match: a bid, a card play, and the deal itself.

Every action is a frozen attrs value, hashable and equal by value. ``Bid`` and
``Play`` name the seat that acts, so that a server can refuse a move made out
of turn (``not_your_turn``). ``Deal`` is the chance action: it names the exact
order of the 54 shuffled cards, so a recorded game can say "this deal was dealt
from this deck" and replay it.

>>> Bid(Seat.NORTH, 2), Bid(Seat.EAST), Bid(Seat.SOUTH, board=True)
(Bid(N, 2), Bid(E, pass), Bid(S, board))
>>> Play(Seat.WEST, Card.BIG)
Play(W, BIG)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Set
from typing import Any, Final

import attrs

from .cards import CARDS, PACK_SIZE, SEATS, Card, Seat, to_seat

__all__ = [
    "MAX_CALL_DIGITS",
    "PLAYS",
    "Action",
    "Bid",
    "Deal",
    "Play",
    "deal_of_permutation",
    "read_call",
    "shared_bid",
    "shared_play",
]


def _to_card(value: Any) -> Card:
    if isinstance(value, Card):
        return value
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < PACK_SIZE:
        return CARDS[value]
    raise TypeError(
        f"a card must be a Card (or its number 0-53), not {value!r}; Card.parse reads 'AS'"
    )


def _check_amount(_: object, __: object, value: Any) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"a bid's amount must be a whole number of tricks, not {value!r}")


MAX_CALL_DIGITS: Final = 2
"""A numeric bid is written with at most two digits: no hand has 100 tricks."""

_NUMBER: Final = re.compile(rf"[0-9]{{1,{MAX_CALL_DIGITS}}}")


def read_call(text: str) -> tuple[int, bool]:
    """A bid's call as ``(amount, board)``: ``pass`` is ``(0, False)``, ``board`` ``(0, True)``.

    The one reading of a call, in any case and spacing (``Pass``, `` 3 ``, ``BOARD``);
    ``0`` is read as ``pass``, whose canonical spelling is ``pass`` (:attr:`Bid.call`).
    Whether the amount is in range for the hand size is a rule, checked by ``apply``.
    A ``TypeError`` for a value that is no text, a ``ValueError`` for text that is no call.
    """
    if not isinstance(text, str):
        raise TypeError(f"a bid is written as text such as 'pass', '3' or 'board', not {text!r}")
    key = text.strip().lower()
    if key == "pass":
        return 0, False
    if key == "board":
        return 0, True
    if _NUMBER.fullmatch(key):
        return int(key), False
    raise ValueError(f"unknown bid {text!r}: a bid is pass, a number such as 3, or board")


@attrs.frozen(repr=False)
class Bid:
    """A bid: Pass (``amount`` 0), a number of tricks, or Board (``board=True``).

    ``Bid(seat)`` passes, ``Bid(seat, 3)`` bids three, ``Bid(seat, board=True)``
    bids Board. Whether the amount is in range depends on the hand size, so that
    is checked by ``apply`` (reason ``bid_out_of_range``), not here.
    """

    seat: Seat = attrs.field(converter=to_seat)
    amount: int = attrs.field(default=0, validator=_check_amount)
    board: bool = attrs.field(default=False, validator=attrs.validators.instance_of(bool))

    def __attrs_post_init__(self) -> None:
        if self.board and self.amount:
            raise ValueError("a Board bid has no number: write Bid(seat, board=True)")

    @classmethod
    def parse(cls, seat: Seat, text: str) -> Bid:
        """The bid ``seat`` makes by saying ``text``: ``pass``, ``3`` or ``board`` (read_call)."""
        amount, board = read_call(text)
        return cls(seat, amount, board)

    @property
    def is_pass(self) -> bool:
        """True for Pass, which counts as zero tricks."""
        return not self.board and self.amount == 0

    @property
    def call(self) -> str:
        """The bid as said at the table: ``pass``, ``3`` or ``board``."""
        return "board" if self.board else str(self.amount) if self.amount else "pass"

    def __repr__(self) -> str:
        return f"Bid({self.seat}, {self.call})"

    def __str__(self) -> str:
        return f"{self.seat} {self.call}"


@attrs.frozen(repr=False)
class Play:
    """A card played by a seat to the current trick."""

    seat: Seat = attrs.field(converter=to_seat)
    card: Card = attrs.field(converter=_to_card)

    def __repr__(self) -> str:
        return f"Play({self.seat}, {self.card})"

    def __str__(self) -> str:
        return f"{self.seat} {self.card}"


_ALL_CARDS: Final = frozenset(CARDS)


def _to_deck(value: Any) -> tuple[Card, ...]:
    # A deck is an order: sets and mappings have none, and a string is not a card list.
    if isinstance(value, str | bytes | Set | Mapping) or not isinstance(value, Iterable):
        raise TypeError(f"a deck is a sequence of 54 cards in order, not {type(value).__name__}")
    deck = tuple(value)
    # The common case, a deck of Card members, is checked with set operations alone.
    if len(deck) == PACK_SIZE and set(map(type, deck)) == {Card} and set(deck) == _ALL_CARDS:
        return deck
    deck = tuple(_to_card(card) for card in deck)
    if len(deck) != PACK_SIZE:
        raise ValueError(f"a deck has {PACK_SIZE} cards; this one has {len(deck)}")
    seen: set[Card] = set()
    for card in deck:
        if card in seen:
            raise ValueError(f"the deck holds {card} twice (and so lacks another card)")
        seen.add(card)
    return deck


@attrs.frozen(repr=False)
class Deal:
    """The chance action: shuffle the pack into ``deck`` (top card first) and deal it.

    The deck must hold each of the 54 cards exactly once; anything else is
    refused when the action is built, so a half-valid deal never exists.
    """

    deck: tuple[Card, ...] = attrs.field(converter=_to_deck)

    def __repr__(self) -> str:
        return f"Deal({' '.join(card.code for card in self.deck)})"


_SET_DECK: Final = Deal.__dict__["deck"].__set__


def deal_of_permutation(deck: tuple[Card, ...]) -> Deal:
    """``Deal(deck)`` for a deck already known to hold each card once, unchecked.

    The seeded shuffle only ever makes such decks, and checking 54 cards again on
    every deal would cost more than dealing them. The one speed trick kept in the
    core rather than in ``engine._fast``: the layers beside the engine (adapters, the
    batch engine) deal seeded decks too; ``tests/test_fast.py`` checks it equals
    ``Deal(deck)``.
    """
    deal = object.__new__(Deal)
    _SET_DECK(deal, deck)
    return deal


_MOST_TRICKS_BID: Final = 12
"""Thirteen cards allow bids up to 12; larger amounts are refused by ``apply``."""

PLAYS: Final = tuple(tuple(Play(seat, card) for card in CARDS) for seat in SEATS)
"""``PLAYS[seat][card]``: every play, built once and shared."""

_NUMBER_BIDS: Final = tuple(
    tuple(Bid(seat, amount) for amount in range(_MOST_TRICKS_BID + 1)) for seat in SEATS
)
_BOARDS: Final = tuple(Bid(seat, board=True) for seat in SEATS)


def shared_play(seat: Seat, card: Card) -> Play:
    """``Play(seat, card)``, the shared instance (no construction, no conversion)."""
    return PLAYS[seat][card]


def shared_bid(seat: Seat, amount: int, board: bool = False) -> Bid:
    """``Bid(seat, amount, board)``, shared for the amounts a deal allows, else built."""
    if board:
        return _BOARDS[seat] if amount == 0 else Bid(seat, amount, board=True)
    if 0 <= amount <= _MOST_TRICKS_BID:
        return _NUMBER_BIDS[seat][amount]
    return Bid(seat, amount)


Action = Bid | Play | Deal
"""Any action ``apply`` accepts."""
