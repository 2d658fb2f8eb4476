"""Seeded decks of many lanes at once: the core's shuffle, vectorized, on the host.

The batch engine is given every deck a lane's match may need when the lane starts
(the compiled kernel deals the cards from them, DEAL-1 to DEAL-6). The SHA-256
stream of each deck is hashed by ``hashlib`` lane by lane exactly as
:func:`backalley.core.dealing.seeded_deck` hashes it (``docs/dealing.md``
specifies it); the 53 Fisher-Yates swaps then run over all the decks together. A
lane whose stream has a rejected word (a word at or above ``2**32 - 2**32 mod n``,
about one deck in 10**8) is shuffled by ``seeded_deck`` itself, so every deck is
the core's. The tests compare it with the core's ``seeded_deck``.
"""

from __future__ import annotations

import hashlib
from typing import Final

import numpy as np

from ..core.cards import PACK_SIZE
from ..core.dealing import SHUFFLE_DOMAIN, seeded_deck
from ._tables import I8

__all__ = ["seeded_decks"]

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
