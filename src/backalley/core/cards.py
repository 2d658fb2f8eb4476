"""Cards, seats and the 54-card pack of Back Alley, with their rankings.

The pack is 52 cards plus two distinguishable jokers, BIG and LITTLE (the
"bloopers" of seeds ``001`` and ``002``). Plain suits rank A K Q J 10 9 8 7 6 5
4 3 2. When a trump suit exists the jokers belong to it, above its ace:
BIG > LITTLE > A > K > ... > 2 of trumps (``000`` §02, ``002``, ``docs/rules.md``
"Table and deck", CARD-1 to CARD-3).

Cards are small ints so that hands are 54-bit masks: card ``c`` is bit ``c``.
A plain card is ``13 * suit + (rank - 2)``, so within a suit the bit order is
the rank order; LITTLE is 52 and BIG is 53, above every suit. That makes "the
highest trump in this hand" the top bit of ``hand & trump_mask(suit)`` and "the
lowest" its bottom bit, exactly the joker-forcing rule.

Seats are North, East, South and West in clockwise order; North-South and
East-West are partners. "Left of X" is the next seat clockwise.

>>> Card.parse("10h"), Card.parse("BIG")
(Card.H10, Card.BIG)
>>> str(Card.SA), Card.SA.symbol, Card.LITTLE.words
('AS', 'A♠', 'the LITTLE joker')
>>> Seat.WEST.left, Seat.WEST.pair
(Seat.NORTH, Pair.EAST_WEST)
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Final, TypeVar

T = TypeVar("T")

__all__ = [
    "ALL_CARDS_MASK",
    "CARDS",
    "JOKERS_MASK",
    "PACK_SIZE",
    "SUIT_MASKS",
    "Card",
    "Pair",
    "Rank",
    "Seat",
    "Suit",
    "cards_of",
    "mask_of",
    "to_seat",
    "trump_mask",
    "trump_words",
]

PACK_SIZE: Final = 54
"""52 plain cards and the two jokers."""

RANKS_PER_SUIT: Final = 13


def _read_name(text: object, names: Mapping[str, T], what: str, example: str, known: str) -> T:
    """The member named by ``text`` (any case, spaces around ignored), or a clear error."""
    if not isinstance(text, str):
        raise TypeError(f"a {what} is written as a string such as '{example}', not {text!r}")
    found = names.get(text.strip().upper())
    if found is None:
        raise ValueError(f"unknown {what} {text!r}: {what}s are {known}")
    return found


def _written_as_in_code(member: enum.Enum) -> str:
    """The repr of the enumerations below, as written in code: ``Seat.NORTH``."""
    return f"{type(member).__name__}.{member.name}"


def _letter(member: Seat | Suit) -> str:
    """The str of seats and suits: their letter."""
    return member.letter


class Seat(enum.IntEnum):
    """A seat at the table, numbered clockwise from North."""

    NORTH = 0
    EAST = 1
    SOUTH = 2
    WEST = 3

    @property
    def left(self) -> Seat:
        """The next seat clockwise: the player on this seat's left."""
        return self.after(1)

    @property
    def partner(self) -> Seat:
        """The seat opposite, this seat's partner."""
        return self.after(2)

    @property
    def pair(self) -> Pair:
        """The partnership this seat belongs to."""
        return PAIRS[self % 2]

    def after(self, steps: int) -> Seat:
        """The seat ``steps`` places clockwise from this one."""
        return SEATS[(self + steps) % 4]

    @property
    def letter(self) -> str:
        """The one-letter name: N, E, S or W."""
        return self.name[0]

    @classmethod
    def parse(cls, text: str) -> Seat:
        """Read a seat from its letter or name, in any case (``"n"``, ``"North"``)."""
        return _read_name(text, _SEAT_NAMES, "seat", "N", "N, E, S and W")

    __repr__ = _written_as_in_code

    __str__ = _letter


class Pair(enum.IntEnum):
    """A partnership: North-South (0) or East-West (1)."""

    NORTH_SOUTH = 0
    EAST_WEST = 1

    @property
    def seats(self) -> tuple[Seat, Seat]:
        """The two seats of this pair."""
        return (SEATS[self], SEATS[self + 2])

    @property
    def other(self) -> Pair:
        """The opposing pair."""
        return PAIRS[1 - self]

    @property
    def label(self) -> str:
        """The short name, ``NS`` or ``EW``."""
        return "NS" if self is Pair.NORTH_SOUTH else "EW"

    __repr__ = _written_as_in_code

    def __str__(self) -> str:
        return self.label


SEATS: Final = tuple(Seat)
PAIRS: Final = tuple(Pair)
_SEAT_NAMES: Final = {name: seat for seat in SEATS for name in (seat.letter, seat.name)}


class Suit(enum.IntEnum):
    """A plain suit. The numbering fixes the card numbering, nothing else."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def letter(self) -> str:
        """The one-letter name: C, D, H or S."""
        return self.name[0]

    @property
    def symbol(self) -> str:
        """The suit symbol: ♣ ♦ ♥ ♠."""
        return "♣♦♥♠"[self]

    @property
    def word(self) -> str:
        """The suit's name in words, for people: ``"hearts"``."""
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Suit:
        """Read a suit from its letter, symbol or name, in any case."""
        return _read_name(text, _SUIT_NAMES, "suit", "H", "C, D, H and S")

    __repr__ = _written_as_in_code

    __str__ = _letter


SUITS: Final = tuple(Suit)
_SUIT_NAMES: Final = {
    name: suit for suit in SUITS for name in (suit.letter, suit.name, suit.symbol, suit.name[:-1])
}


def to_seat(value: Any) -> Seat:
    """A seat from a Seat, its number 0-3 or its letter; the converter of every seat field."""
    if isinstance(value, Seat):
        return value
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 4:
        return SEATS[value]
    if isinstance(value, str):
        return Seat.parse(value)
    raise TypeError(f"a seat must be a Seat (or 0-3, or 'N', 'E', 'S', 'W'), not {value!r}")


def trump_words(trump: Suit | None) -> str:
    """The trump in words: ``"hearts are trumps"`` or ``"no trumps"``."""
    return "no trumps" if trump is None else f"{trump.word} are trumps"


class Rank(enum.IntEnum):
    """A plain card's rank, valued 2 to 14 (ace high)."""

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @property
    def code(self) -> str:
        """The rank as written in card codes: 2-10, J, Q, K, A."""
        return str(int(self)) if self <= Rank.TEN else self.name[0]

    __repr__ = _written_as_in_code


_RANK_CODES: Final = {rank.code: rank for rank in Rank} | {"T": Rank.TEN}


class Card(enum.IntEnum):
    """One of the 54 cards. The value is the card's bit in a hand mask.

    Members are named suit first (``Card.H10`` is the ten of hearts, ``Card.SA``
    the ace of spades); the jokers are ``Card.LITTLE`` and ``Card.BIG``.
    """

    C2 = 0
    C3 = 1
    C4 = 2
    C5 = 3
    C6 = 4
    C7 = 5
    C8 = 6
    C9 = 7
    C10 = 8
    CJ = 9
    CQ = 10
    CK = 11
    CA = 12
    D2 = 13
    D3 = 14
    D4 = 15
    D5 = 16
    D6 = 17
    D7 = 18
    D8 = 19
    D9 = 20
    D10 = 21
    DJ = 22
    DQ = 23
    DK = 24
    DA = 25
    H2 = 26
    H3 = 27
    H4 = 28
    H5 = 29
    H6 = 30
    H7 = 31
    H8 = 32
    H9 = 33
    H10 = 34
    HJ = 35
    HQ = 36
    HK = 37
    HA = 38
    S2 = 39
    S3 = 40
    S4 = 41
    S5 = 42
    S6 = 43
    S7 = 44
    S8 = 45
    S9 = 46
    S10 = 47
    SJ = 48
    SQ = 49
    SK = 50
    SA = 51
    LITTLE = 52
    BIG = 53

    @classmethod
    def of(cls, rank: Rank | int, suit: Suit) -> Card:
        """The plain card of this rank and suit."""
        return CARDS[RANKS_PER_SUIT * suit + int(rank) - 2]

    @property
    def is_joker(self) -> bool:
        """True for BIG and LITTLE."""
        return self >= Card.LITTLE

    @property
    def suit(self) -> Suit | None:
        """The plain suit, or None for a joker (jokers belong to whatever suit is trumps)."""
        return None if self >= Card.LITTLE else SUITS[self // RANKS_PER_SUIT]

    @property
    def rank(self) -> Rank | None:
        """The plain rank, or None for a joker."""
        return _RANKS_OF[self]

    @property
    def code(self) -> str:
        """The canonical text code: ``AS``, ``10H``, ``BIG``, ``LITTLE``."""
        return _CODES[self]

    @property
    def symbol(self) -> str:
        """A compact form with the suit symbol: ``A♠``, ``10♥``, ``BIG``."""
        if self.is_joker:
            return self.name
        return f"{_CODES[self][:-1]}{SUITS[self // RANKS_PER_SUIT].symbol}"

    @property
    def words(self) -> str:
        """The card in words, so that colour is never the only clue."""
        if self.is_joker:
            return f"the {self.name} joker"
        rank = Rank(self % RANKS_PER_SUIT + 2)
        return f"the {rank.name.lower()} of {SUITS[self // RANKS_PER_SUIT].word}"

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read a card code in any case: ``"as"``, ``"10H"``, ``"TH"``, ``"big"``."""
        if not isinstance(text, str):
            raise TypeError(f"a card is written as a string such as 'AS', not {text!r}")
        key = text.strip().upper()
        if key in ("BIG", "LITTLE"):
            return Card[key]
        rank = _RANK_CODES.get(key[:-1]) if len(key) >= 2 else None
        if rank is None:
            raise ValueError(
                f"unknown card {text!r}: write a rank (2-10, J, Q, K, A) then a suit "
                "(C, D, H, S), or BIG or LITTLE"
            )
        return Card.of(rank, Suit.parse(key[-1]))

    __repr__ = _written_as_in_code

    def __str__(self) -> str:
        return _CODES[self]


CARDS: Final = tuple(Card)
"""Every card, indexed by its number: ``CARDS[n]`` is the card with bit ``n``."""

_CODES: Final = tuple(
    card.name if card >= Card.LITTLE else card.name[1:] + card.name[0] for card in CARDS
)

# Looked up, not made: calling the enum class to find a member made the property cost
# about 0.5 µs, the lookup 0.05 (python -m timeit), and the heuristic asks the rank of
# every card of a hand for each bid it values.
_RANKS_OF: Final = tuple(
    None if card >= Card.LITTLE else Rank(card % RANKS_PER_SUIT + 2) for card in CARDS
)

SUIT_MASKS: Final = tuple(((1 << RANKS_PER_SUIT) - 1) << (RANKS_PER_SUIT * s) for s in Suit)
"""The mask of each plain suit's 13 cards, indexed by suit."""

JOKERS_MASK: Final = (1 << Card.LITTLE) | (1 << Card.BIG)
ALL_CARDS_MASK: Final = (1 << PACK_SIZE) - 1


def trump_mask(trump: Suit | None) -> int:
    """The cards that are trumps: the trump suit and both jokers; none without trumps."""
    return 0 if trump is None else SUIT_MASKS[trump] | JOKERS_MASK


def mask_of(cards: Iterable[Card]) -> int:
    """The hand mask holding these cards."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def cards_of(mask: int) -> tuple[Card, ...]:
    """The cards of a hand mask, lowest first (suit by suit, then LITTLE, BIG)."""
    return tuple(_iter_cards(mask))


def _iter_cards(mask: int) -> Iterator[Card]:
    while mask:
        low = mask & -mask
        yield CARDS[low.bit_length() - 1]
        mask ^= low
