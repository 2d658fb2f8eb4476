"""Lookup tables for the batch kernels, each built by calling the rules core itself.

A vectorized rule is only as good as its agreement with the reference, so where a
rule is a function of a few small values the kernels do not restate it: the table
below is filled by the core's own function, once, and the kernel looks the answer
up. The contracts and the opening leader of every possible circuit of four bids
come from :func:`~backalley.core.bidding.contracts` and
:func:`~backalley.core.bidding.opening_leader`; every deal's points from
:func:`~backalley.core.scoring.score`; the card a joker lead forces from
:func:`~backalley.core.jokers.forced_by_joker_lead`; the legal bids of a hand size
from :func:`~backalley.core.bidding.bid_in_range`; card bits and suit masks from
:mod:`backalley.core.cards`.
"""

from __future__ import annotations

import functools
from typing import Final, NamedTuple

import numpy as np
import numpy.typing as npt

from ..core.action_index import BOARD_INDEX, FIRST_CARD_INDEX, NUM_ACTION_INDICES
from ..core.actions import shared_bid
from ..core.bidding import Contract, bid_in_range, contracts, opening_leader
from ..core.cards import CARDS, PACK_SIZE, SEATS, SUIT_MASKS, Card, Suit
from ..core.cards import trump_mask as core_trump_mask
from ..core.flow import thrown_in
from ..core.jokers import forced_by_joker_lead
from ..core.rules import MAX_HAND_SIZE
from ..core.scoring import score

U64 = npt.NDArray[np.uint64]
I8 = npt.NDArray[np.int8]
I16 = npt.NDArray[np.int16]
I32 = npt.NDArray[np.int32]
BOOL = npt.NDArray[np.bool_]

NO_TRUMP: Final = 4
"""The trump kind of a no-trump deal (suits are 0-3)."""

BIDS_PER_SEAT: Final = BOARD_INDEX + 1
"""A bid is an action index 0-13: Pass, 1-12, Board."""

MAX_TARGET: Final = 2 * (MAX_HAND_SIZE - 1)
"""The largest numeric target a pair can bid: 12 + 12."""

TRUMP_PATTERNS: Final = 1 << 15
"""A hand's trumps as 15 bits: the trump suit's 13 (two to ace), then LITTLE, BIG."""

CARD_BIT: Final[U64] = np.array([1 << card for card in CARDS], dtype=np.uint64)
"""``CARD_BIT[c]``: card ``c``'s bit in a hand mask."""

SUIT_OF_CARD: Final[I8] = np.array(
    [NO_TRUMP if card.suit is None else card.suit for card in CARDS], dtype=np.int8
)
"""A card's plain suit 0-3, or 4 for a joker."""

SUIT_MASK: Final[U64] = np.array([*SUIT_MASKS, 0], dtype=np.uint64)
"""``SUIT_MASK[s]``: the plain suit's cards (the core's ``SUIT_MASKS``); 0 for kind 4."""

TRUMP_MASK: Final[U64] = np.array(
    [core_trump_mask(suit) for suit in Suit] + [core_trump_mask(None)], dtype=np.uint64
)
"""``TRUMP_MASK[k]``: the trumps when suit ``k`` is turned (the core's ``trump_mask``); 0 for 4."""

SUIT_BITS: Final = np.uint64((1 << 13) - 1)


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
    table = np.zeros((5, MAX_TARGET + 1, MAX_HAND_SIZE + 1, MAX_HAND_SIZE + 1), dtype=np.int16)
    for multiplier in range(5):
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
def forced_tables() -> tuple[U64, U64]:
    """The card BIG and LITTLE leads force, by the 15-bit trump pattern (JOKER-1, JOKER-2).

    Filled by ``forced_by_joker_lead`` with clubs as trumps, where the pattern's bits
    are the hand's own bits (clubs 0-12) and the jokers (52, 53) moved down to 13, 14;
    the result is given as a pattern too (0: nothing forced).
    """
    trumps = core_trump_mask(Suit.CLUBS)
    high = np.zeros(TRUMP_PATTERNS, dtype=np.uint64)
    low = np.zeros(TRUMP_PATTERNS, dtype=np.uint64)
    for pattern in range(TRUMP_PATTERNS):
        hand = (pattern & 0x1FFF) | (pattern >> 13 << Card.LITTLE)
        for led, out in ((Card.BIG, high), (Card.LITTLE, low)):
            forced = forced_by_joker_lead(led, hand, trumps)
            out[pattern] = (forced & 0x1FFF) | (forced >> Card.LITTLE << 13)
    return high, low


@functools.cache
def bid_legal_table() -> BOOL:
    """``[hand size]``: the legal action indices while bidding, from ``bid_in_range`` (BID-2).

    Row 0 (no hand size) allows nothing; it is the row of lanes that are not bidding.
    """
    table = np.zeros((MAX_HAND_SIZE + 1, NUM_ACTION_INDICES), dtype=np.bool_)
    for size in range(1, MAX_HAND_SIZE + 1):
        for index in range(FIRST_CARD_INDEX):
            board = index == BOARD_INDEX
            bid = shared_bid(SEATS[0], 0 if board else index, board=board)
            table[size, index] = bid_in_range(bid, size)
    return table


def trick_keys() -> I8:
    """``[trump kind, led kind, card]``: a card's strength in a trick (PLAY-7, CARD-2, CARD-3).

    Trumps rank above everything, in card-number order (2 ... A of the trump suit,
    then LITTLE, then BIG); then cards of the led suit in card-number order (rank
    order within a suit); any other card cannot win (-1). The highest key wins.
    """
    keys = np.full((5, 5, PACK_SIZE), -1, dtype=np.int8)
    for trump in range(5):
        for led in range(5):
            for card in CARDS:
                if (1 << card) & int(TRUMP_MASK[trump]):
                    keys[trump, led, card] = 64 + card
                elif (1 << card) & int(SUIT_MASK[led]):
                    keys[trump, led, card] = card
    return keys


TRICK_KEYS: Final[I8] = trick_keys()


def follow_masks() -> U64:
    """``[trump kind * 64 + led card]``: the cards that follow the led card (PLAY-2, PLAY-3).

    A trump led (a joker included) is followed by trumps, the trump suit and both
    jokers; any other card by its own suit. Entries 54-63 (no card led) are empty.
    """
    table = np.zeros(5 * 64, dtype=np.uint64)
    for trump in range(5):
        trumps = int(TRUMP_MASK[trump])
        for card in CARDS:
            led_trump = (1 << card) & trumps
            suit = SUIT_MASKS[card.suit] if card.suit is not None else 0
            table[trump * 64 + card] = trumps if led_trump else suit
    return table


FOLLOW_MASKS: Final[U64] = follow_masks()
