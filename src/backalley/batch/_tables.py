"""Lookup tables for the batch kernel, each built by calling the rules core itself.

A vectorized rule is only as good as its agreement with the reference, so where a
rule is a function of a few small values the kernel does not restate it: the table
below is filled by the core's own function, once, and the kernel looks the answer
up. The contracts and the opening leader of every possible circuit of four bids
come from :func:`~backalley.core.bidding.contracts` and
:func:`~backalley.core.bidding.opening_leader`; every deal's points from
:func:`~backalley.core.scoring.score`; the card a joker lead forces from
:func:`~backalley.core.jokers.forced_by_joker_lead`; the legal bids of a hand size
from :func:`~backalley.core.bidding.bid_in_range`; the suits and trumps of the
cards from :mod:`backalley.core.cards`.

The kernel holds a hand as five 13-bit *words*: one per suit (bit ``r`` the card of
rank ``r``, two to ace) and a fifth for the jokers (bit 0 LITTLE, bit 1 BIG). Card
``c`` is bit ``c % 13`` of word ``c // 13``, which is also where the core's card
numbering puts it. The tables are numpy arrays; the kernel hands them to the
compiled step as arguments.
"""

from __future__ import annotations

import functools
from typing import Final, NamedTuple

import numpy as np
import numpy.typing as npt

from ..core.action_index import BOARD_INDEX, FIRST_CARD_INDEX
from ..core.actions import shared_bid
from ..core.bidding import (
    MAX_MULTIPLIER,
    MAX_TARGET,
    Contract,
    bid_in_range,
    contracts,
    opening_leader,
)
from ..core.cards import CARDS, PACK_SIZE, SEATS, Card, Suit
from ..core.cards import trump_mask as core_trump_mask
from ..core.flow import thrown_in
from ..core.jokers import forced_by_joker_lead
from ..core.rules import MAX_HAND_SIZE
from ..core.scoring import score

I8 = npt.NDArray[np.int8]
I16 = npt.NDArray[np.int16]
I32 = npt.NDArray[np.int32]
BOOL = npt.NDArray[np.bool_]

NO_TRUMP: Final = 4
"""The trump kind of a no-trump deal (suits are 0-3)."""

WORDS: Final = 5
"""A hand is five words: the four suits, then the jokers."""

JOKER_WORD: Final = 4

BIDS_PER_SEAT: Final = BOARD_INDEX + 1
"""A bid is an action index 0-13: Pass, 1-12, Board."""

TRUMP_PATTERNS: Final = 1 << 15
"""A hand's trumps as 15 bits: the trump suit's 13 (two to ace), then LITTLE, BIG."""


def _words(mask: int) -> list[int]:
    """A core card mask (bit ``c`` for card ``c``) as the kernel's five words."""
    return [(mask >> (13 * word)) & 0x1FFF for word in range(WORDS)]


SUIT_OF_CARD: Final[I32] = np.array(
    [NO_TRUMP if card.suit is None else card.suit for card in CARDS], dtype=np.int32
)
"""A card's plain suit 0-3, or 4 for a joker (the core's ``Card.suit``)."""

TRUMP_WORDS: Final[I32] = np.array(
    [_words(core_trump_mask(suit)) for suit in Suit] + [_words(core_trump_mask(None))],
    dtype=np.int32,
)
"""``TRUMP_WORDS[k]``: the trumps when suit ``k`` is turned (the core's ``trump_mask``)."""


class CircuitTable(NamedTuple):
    """What a complete circuit of four bids decides, indexed by its bids in base 14.

    The index of bids ``b0 b1 b2 b3`` (action indices, in circuit order) is
    ``((b0 * 14 + b1) * 14 + b2) * 14 + b3``.

    Pair 0 here is the pair of the first bidder (circuit positions 0 and 2), pair 1
    the dealer's pair. ``lead`` is the circuit position of the opening leader, -1 for
    a throw-in.
    """

    target: I8  # (38416, 2)
    multiplier: I8  # (38416, 2)
    lead: I8  # (38416,)


@functools.cache
def circuit_table() -> CircuitTable:
    """Contracts and opening leader of all 14**4 circuits, from the core (BID-4 to BID-8).

    Built with West dealing, so that circuit position ``k`` is seat ``k`` and its
    pair ``k % 2``; the kernel maps positions to seats for the real dealer.
    """
    size = BIDS_PER_SEAT**4
    target = np.zeros((size, 2), dtype=np.int8)
    multiplier = np.zeros((size, 2), dtype=np.int8)
    lead = np.full(size, -1, dtype=np.int8)
    options = [
        [
            shared_bid(seat, 0, board=True) if i == BOARD_INDEX else shared_bid(seat, i)
            for i in range(14)
        ]
        for seat in SEATS
    ]
    for code in range(size):
        # The code's base-14 digits are the four bids in circuit order.
        digits = (code // 14**3, code // 14**2 % 14, code // 14 % 14, code % 14)
        bids = tuple(options[k][digits[k]] for k in range(4))
        for pair, contract in enumerate(contracts(bids)):
            target[code, pair] = contract.target
            multiplier[code, pair] = contract.multiplier
        leader = opening_leader(bids)
        if not thrown_in(bids) and leader is not None:
            lead[code] = int(leader)
    return CircuitTable(target, multiplier, lead)


@functools.cache
def score_table() -> I16:
    """``[multiplier, target, hand size, tricks]``: a pair's points, from ``score`` (SCORE-1-4)."""
    table = np.zeros(
        (MAX_MULTIPLIER + 1, MAX_TARGET + 1, MAX_HAND_SIZE + 1, MAX_HAND_SIZE + 1), dtype=np.int16
    )
    for multiplier in range(MAX_MULTIPLIER + 1):
        targets = range(1) if multiplier else range(MAX_TARGET + 1)
        for target in targets:
            contract = Contract(target, multiplier)
            for size in range(1, MAX_HAND_SIZE + 1):
                for tricks in range(size + 1):
                    table[multiplier, target, size, tricks] = score(
                        contract, hand_size=size, tricks=tricks
                    )
    return table


@functools.cache
def forced_tables() -> tuple[I16, I16]:
    """The card BIG and LITTLE leads force, by the 15-bit trump pattern (JOKER-1, JOKER-2).

    Filled by ``forced_by_joker_lead`` with clubs as trumps, where the pattern's bits
    are the hand's own bits (clubs 0-12) and the jokers (52, 53) moved down to 13, 14;
    the result is given as a pattern too (0: nothing forced).
    """
    trumps = core_trump_mask(Suit.CLUBS)
    high = np.zeros(TRUMP_PATTERNS, dtype=np.int16)
    low = np.zeros(TRUMP_PATTERNS, dtype=np.int16)
    for pattern in range(TRUMP_PATTERNS):
        hand = (pattern & 0x1FFF) | (pattern >> 13 << Card.LITTLE)
        for led, out in ((Card.BIG, high), (Card.LITTLE, low)):
            forced = forced_by_joker_lead(led, hand, trumps)
            out[pattern] = (forced & 0x1FFF) | (forced >> Card.LITTLE << 13)
    return high, low


@functools.cache
def bid_legal_table() -> BOOL:
    """``[hand size, bid index]``: the legal bids while bidding, from ``bid_in_range`` (BID-2).

    Row 0 (no hand size) allows nothing.
    """
    table = np.zeros((MAX_HAND_SIZE + 1, FIRST_CARD_INDEX), dtype=np.bool_)
    for size in range(1, MAX_HAND_SIZE + 1):
        for index in range(FIRST_CARD_INDEX):
            board = index == BOARD_INDEX
            bid = shared_bid(SEATS[0], 0 if board else index, board=board)
            table[size, index] = bid_in_range(bid, size)
    return table


@functools.cache
def trick_keys() -> I8:
    """``[trump kind, led kind, card]``: a card's strength in a trick (PLAY-7, CARD-2, CARD-3).

    Trumps rank above everything, in card-number order (2 ... A of the trump suit,
    then LITTLE, then BIG); then cards of the led suit in card-number order (rank
    order within a suit); any other card cannot win (-1). The highest key wins, and
    a key of 64 or more is a trump's.
    """
    keys = np.full((5, 5, PACK_SIZE), -1, dtype=np.int8)
    for trump in range(5):
        trumps = core_trump_mask(None if trump == NO_TRUMP else Suit(trump))
        for led in range(5):
            for card in CARDS:
                if (1 << card) & trumps:
                    keys[trump, led, card] = 64 + card
                elif card.suit is not None and card.suit == led:
                    keys[trump, led, card] = card
    return keys


@functools.cache
def follow_words() -> I32:
    """``[trump kind, led card]``: the cards that follow the led card (PLAY-2, PLAY-3), as words.

    A trump led (a joker included) is followed by trumps, the trump suit and both
    jokers; any other card by its own suit.
    """
    table = np.zeros((5, PACK_SIZE, WORDS), dtype=np.int32)
    for trump in range(5):
        trumps = core_trump_mask(None if trump == NO_TRUMP else Suit(trump))
        for card in CARDS:
            if (1 << card) & trumps:
                table[trump, card] = _words(trumps)
            elif card.suit is not None:
                table[trump, card, card.suit] = 0x1FFF
    return table
