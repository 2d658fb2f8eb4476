"""The fixed action indices shared by every framework adapter and the batch engine.

Game-AI frameworks number the actions of a game: OpenSpiel's ``legal_actions``,
PettingZoo's ``action_mask`` and the batch engine's ``legal_mask`` all use one
numbering of the player actions of Back Alley, whatever the hand size, so a
network's output layer has a fixed width. The seat is not part of the index:
the seat to move is known from the position.

==========  ==========================================
index       action
==========  ==========================================
0           Pass (a bid of 0)
1 – 12      a bid of that many tricks
13          Board
14 – 67     play the card whose number is ``index - 14``
==========  ==========================================

Card numbers are those of :class:`~backalley.core.cards.Card` (clubs 2 … A, then
diamonds, hearts, spades, then LITTLE, BIG). The deal is a chance action, not a
player action, and has no index here.

>>> from backalley import Bid, Card, Play, Seat
>>> action_index(Bid(Seat.NORTH, board=True)), action_index(Play(Seat.EAST, Card.SA))
(13, 65)
>>> index_action(65, Seat.WEST)
Play(W, AS)
"""

from __future__ import annotations

from typing import Final

from .actions import PLAYS, Bid, Play, shared_bid
from .cards import PACK_SIZE, Seat

__all__ = [
    "BOARD_INDEX",
    "FIRST_CARD_INDEX",
    "MAX_BID_INDEX",
    "NUM_ACTION_INDICES",
    "PASS_INDEX",
    "action_index",
    "index_action",
]

PASS_INDEX: Final = 0
"""The index of Pass."""

MAX_BID_INDEX: Final = 12
"""The index of the largest numeric bid (12 tricks, on a hand of 13)."""

BOARD_INDEX: Final = 13
"""The index of Board."""

FIRST_CARD_INDEX: Final = 14
"""The index of card number 0; card ``c`` has index ``FIRST_CARD_INDEX + c``."""

NUM_ACTION_INDICES: Final = FIRST_CARD_INDEX + PACK_SIZE
"""How many indices there are: 68."""


def action_index(action: Bid | Play) -> int:
    """The fixed index of a bid or a card play (the seat is not encoded)."""
    if type(action) is Play:
        return FIRST_CARD_INDEX + int(action.card)
    if type(action) is Bid:
        return BOARD_INDEX if action.board else action.amount
    raise TypeError(f"only bids and card plays have an index, not {action!r}")


def index_action(index: int, seat: Seat) -> Bid | Play:
    """The action of ``seat`` that ``index`` stands for (the inverse of :func:`action_index`)."""
    if not isinstance(index, int) or isinstance(index, bool):
        raise TypeError(f"an action index must be a whole number, not {index!r}")
    if FIRST_CARD_INDEX <= index < NUM_ACTION_INDICES:
        return PLAYS[seat][index - FIRST_CARD_INDEX]
    if index == BOARD_INDEX:
        return shared_bid(seat, 0, board=True)
    if PASS_INDEX <= index <= MAX_BID_INDEX:
        return shared_bid(seat, index)
    raise ValueError(f"an action index is 0-{NUM_ACTION_INDICES - 1}, not {index}")
