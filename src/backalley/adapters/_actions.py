"""The adapters' actions by index: each seat's action of an index, and the legal indices.

The numbering is :mod:`backalley.core.action_index`'s; OpenSpiel's ``legal_actions``
and PettingZoo's ``action_mask`` both list what :func:`legal_indices` gives, so the
two environments offer the same actions in every position.
"""

from __future__ import annotations

from typing import Final

from ..core.action_index import BOARD_INDEX, FIRST_CARD_INDEX, NUM_ACTION_INDICES, index_action
from ..core.actions import Bid, Play
from ..core.cards import SEATS
from ..core.position import BID, PHASE, SIZE
from ..core.rules import MAX_HAND_SIZE
from ..engine.match import legal_actions
from ..engine.state import MatchState

__all__ = ["ACTIONS", "legal_indices"]

ACTIONS: Final[tuple[tuple[Bid | Play, ...], ...]] = tuple(
    tuple(index_action(index, seat) for index in range(NUM_ACTION_INDICES)) for seat in SEATS
)
"""``ACTIONS[seat][index]``: the action ``index`` stands for, the shared instances."""

_BID_INDICES: Final = tuple((*range(size), BOARD_INDEX) for size in range(MAX_HAND_SIZE + 1))
"""The legal bids on each hand size: Pass, 1 .. size - 1, Board (BID-2)."""


def legal_indices(match: MatchState) -> list[int]:
    """The indices of the legal actions of the seat to move, ascending.

    The bids the hand size allows while bidding, else the cards the player may
    play (``legal_actions``, in card order). ``match`` has a player to move.
    """
    pos = match.position
    if pos[PHASE] == BID:
        return list(_BID_INDICES[pos[SIZE]])
    return [FIRST_CARD_INDEX + play.card for play in legal_actions(match)]  # type: ignore[union-attr]
