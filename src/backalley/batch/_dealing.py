"""Seeded deals of many lanes at once: the core's shuffle and deal, vectorized.

The batch deals every lane at a chance step in one go. The SHA-256 stream of each
deck is hashed by ``hashlib`` lane by lane exactly as
:func:`backalley.core.dealing.seeded_deck` hashes it (``docs/dealing.md`` specifies
it); the 53 Fisher-Yates swaps and the dealing of the cards then run over all the
lanes' decks together. A lane whose stream has a rejected word (a word at or above
``2**32 - 2**32 mod n``, about one deck in 10**8) is shuffled by ``seeded_deck``
itself, so every deck is the core's. The tests compare both functions with the
core's ``seeded_deck`` and ``deal_hands``.
"""

from __future__ import annotations

import hashlib
from typing import Final

import numpy as np
import numpy.typing as npt

from ..core.cards import PACK_SIZE
from ..core.dealing import SHUFFLE_DOMAIN, seeded_deck
from ._tables import CARD_BIT, I8, U64

__all__ = ["deal_decks", "seeded_decks"]

_BLOCKS: Final = 7
"""Seven SHA-256 blocks give 56 words: the 53 draws, when none is rejected."""
_COUNTERS: Final = tuple(block.to_bytes(4, "big") for block in range(_BLOCKS))
_DRAWS: Final = PACK_SIZE - 1
# Draw t swaps position i = 53 - t with a position below n = i + 1 (DEAL-1).
_POSITIONS: Final = np.arange(PACK_SIZE - 1, 0, -1)
_SIZES: Final = (_POSITIONS + 1).astype(np.uint64)
_LIMITS: Final = (2**32 - 2**32 % _SIZES).astype(np.uint64)
"""Per draw, the first rejected word (the shuffle's unbiased draw)."""


def seeded_decks(seeds: list[int], numbers: list[int]) -> I8:
    """``seeded_deck(seed, number)`` of each lane, as rows of card numbers (K, 54)."""
    count = len(seeds)
    sha256 = hashlib.sha256
    stream = bytearray()
    for seed, number in zip(seeds, numbers, strict=True):
        prefix = SHUFFLE_DOMAIN + seed.to_bytes(8, "big") + number.to_bytes(4, "big")
        for counter in _COUNTERS:
            stream += sha256(prefix + counter).digest()
    words = np.frombuffer(bytes(stream), dtype=">u4").reshape(count, 8 * _BLOCKS)
    draws = words[:, :_DRAWS].astype(np.uint64)
    rejected = (draws >= _LIMITS).any(axis=1)
    picks = (draws % _SIZES).astype(np.intp)
    decks = np.tile(np.arange(PACK_SIZE, dtype=np.int8), (count, 1))
    rows = np.arange(count)
    for draw, position in enumerate(_POSITIONS.tolist()):
        other = picks[:, draw]
        moving = decks[:, position].copy()
        decks[:, position] = decks[rows, other]
        decks[rows, other] = moving
    for row in np.flatnonzero(rejected).tolist():
        decks[row] = seeded_deck(seeds[row], numbers[row])
    return decks


def deal_decks(
    decks: I8, dealers: npt.NDArray[np.integer], sizes: npt.NDArray[np.integer]
) -> tuple[U64, I8, I8, I8]:
    """The core's ``deal_hands`` of each deck: hands by seat, turned card, and any joker swap.

    Returns the hands (K, 4), the turned cards, and the seat that swapped a joker and
    the card it took (-1 where nobody swapped).
    """
    count = decks.shape[0]
    rows = np.arange(count)
    dealt = 4 * sizes.astype(np.intp)
    bits = CARD_BIT[decks.astype(np.intp)]
    position = np.arange(PACK_SIZE)
    in_hand = position[None, :] < dealt[:, None]
    hands = np.zeros((count, 4), dtype=np.uint64)
    for offset in range(4):
        # DEAL-1: deck card k goes to the seat k + 1 places clockwise from the dealer.
        mine = in_hand & (position % 4 == offset)[None, :]
        seat = (dealers.astype(np.intp) + 1 + offset) % 4
        hands[rows, seat] = np.bitwise_or.reduce(np.where(mine, bits, np.uint64(0)), axis=1)
    # DEAL-2: the next card is turned; DEAL-3: a turned joker means no trumps.
    turned = decks[rows, dealt]
    joker = turned >= PACK_SIZE - 2
    swap_seat = np.full(count, -1, dtype=np.int8)
    swap_card = np.full(count, -1, dtype=np.int8)
    if joker.any():
        # DEAL-4: the holder of the other joker swaps it for the next undealt card.
        other = CARD_BIT[(2 * PACK_SIZE - 3 - turned.astype(np.intp)) % PACK_SIZE]
        holds = (hands & other[:, None]) != 0
        swapped = joker & holds.any(axis=1)
        for row in np.flatnonzero(swapped).tolist():
            holder = int(np.flatnonzero(holds[row])[0])
            received = int(decks[row, dealt[row] + 1])
            hands[row, holder] ^= other[row] | CARD_BIT[received]
            swap_seat[row] = holder
            swap_card[row] = received
    return hands, turned.astype(np.int8), swap_seat, swap_card
