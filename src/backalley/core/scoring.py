"""Scoring: a pure function of a pair's contract, the hand size and its tricks.

The rules (``docs/rules.md`` "Scoring", SCORE-1 to SCORE-4; ``000`` §05, ``001``, ``002``):

- Each pair is settled on its own contract, independently of the other pair.
- Numeric target b, tricks taken t: t >= b scores 5·b + (t - b); t < b scores
  -5·b. A pair that passed twice (b = 0) scores 1 a trick.
- Board with multiplier m on hand size h: all h tricks scores +10·h·m; fewer
  scores -10·h·m.

Scoring never sees a game state. Worked examples (``000`` §06, ``001``): on five
cards North bids 2 and South 1; taking four tricks scores 16, taking two -15.

>>> score(Contract(3), hand_size=5, tricks=4), score(Contract(3), hand_size=5, tricks=2)
(16, -15)
>>> score(Contract(0, multiplier=3), hand_size=5, tricks=5)
150
"""

from __future__ import annotations

from typing import Final

from .bidding import Contract

__all__ = [
    "BOARD_POINTS_PER_TRICK",
    "OVERTRICK_POINTS",
    "POINTS_PER_TRICK_BID",
    "score",
    "score_terms",
]

POINTS_PER_TRICK_BID: Final = 5
OVERTRICK_POINTS: Final = 1
BOARD_POINTS_PER_TRICK: Final = 10


def score(contract: Contract, *, hand_size: int, tricks: int) -> int:
    """The points a pair scores for taking ``tricks`` of ``hand_size`` on ``contract``."""
    return score_terms(contract.target, contract.multiplier, hand_size, tricks)


def score_terms(target: int, multiplier: int, hand_size: int, tricks: int) -> int:
    """:func:`score` of the contract ``(target, multiplier)``, as plain ints (SCORE-1..4)."""
    if multiplier:
        points = BOARD_POINTS_PER_TRICK * hand_size * multiplier
        return points if tricks == hand_size else -points
    if tricks >= target:
        return POINTS_PER_TRICK_BID * target + OVERTRICK_POINTS * (tricks - target)
    return -POINTS_PER_TRICK_BID * target
