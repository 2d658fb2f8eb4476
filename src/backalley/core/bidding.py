"""Bidding: the one circuit of bids, Board multipliers, contracts and the opening lead.

The rules (RULINGS.md "Bidding"; ``000`` §03, ``001``, ``002``):

- One circuit, starting left of the dealer; the dealer bids last.
- Each player says Pass (worth 0), a number from 1 to hand size - 1, or Board.
  With one card the only bids are Pass and Board. Bids need not increase.
- The k-th Board of the circuit has multiplier k (x1, x2, x3, x4).
- A pair with a Board is scored on its highest-multiplier Board alone; the
  partner's other bid is ignored. A pair without a Board has the target bid +
  partner's bid.
- A pair's numeric target may exceed the hand size: legal, reported as a
  warning (:func:`overbids`), never refused.
- Opening lead: the last Board bidder if any Board was said; otherwise the
  highest numeric bidder, the earliest of equal bids.
- Four passes throw the deal in (a match-flow fact: ``flow.thrown_in``).

Example (``000`` §06): West bids the first Board, North the second, East passes
and South the third. North-South are scored on x3, East-West keep West's x1,
and South, the last Board bidder, leads.

>>> from backalley.core.cards import Seat
>>> bids = (Bid(Seat.WEST, board=True), Bid(Seat.NORTH, board=True),
...         Bid(Seat.EAST), Bid(Seat.SOUTH, board=True))
>>> contracts(bids)
(Contract(board ×3), Contract(board ×1))
>>> opening_leader(bids)
Seat.SOUTH
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from .actions import Bid
from .cards import PAIRS, Pair, Seat
from .flow import thrown_in as is_throw_in  # the old name of flow.thrown_in, kept for imports

__all__ = [
    "Contract",
    "Overbid",
    "bid_in_range",
    "board_multipliers",
    "contracts",
    "is_throw_in",
    "opening_leader",
    "overbids",
]


def bid_in_range(bid: Bid, hand_size: int) -> bool:
    """Whether a bid is allowed on this hand size: Pass, Board, or 1 to hand size - 1."""
    return bid.board or 0 <= bid.amount < hand_size


def board_multipliers(bids: Sequence[Bid]) -> dict[Seat, int]:
    """Each Board bidder's multiplier: the k-th Board said in the circuit is worth k."""
    multipliers: dict[Seat, int] = {}
    for bid in bids:
        if bid.board:
            multipliers[bid.seat] = len(multipliers) + 1
    return multipliers


@attrs.frozen(repr=False)
class Contract:
    """What a pair must take: a numeric ``target`` or, if ``multiplier`` > 0, Board.

    A pair that passed twice has target 0 and scores a point a trick.
    """

    target: int = 0
    multiplier: int = 0

    @property
    def is_board(self) -> bool:
        """True when the pair bid Board: every trick, scored at ``multiplier``."""
        return self.multiplier > 0

    def tricks_needed(self, hand_size: int) -> int:
        """How many tricks make the contract: all of them for Board, else the target."""
        return hand_size if self.multiplier else self.target

    def __repr__(self) -> str:
        return f"Contract({self})"

    def __str__(self) -> str:
        return f"board ×{self.multiplier}" if self.multiplier else str(self.target)


def contracts(bids: Sequence[Bid]) -> tuple[Contract, Contract]:
    """The contracts of North-South and East-West from a (possibly partial) circuit.

    A pair with a Board keeps only its highest multiplier; otherwise its target is
    the sum of its numeric bids, Pass counting zero.
    """
    multipliers = board_multipliers(bids)
    targets = [0, 0]
    boards = [0, 0]
    for bid in bids:
        pair = bid.seat % 2
        if bid.board:
            boards[pair] = max(boards[pair], multipliers[bid.seat])
        else:
            targets[pair] += bid.amount
    return (
        Contract(0, boards[0]) if boards[0] else Contract(targets[0]),
        Contract(0, boards[1]) if boards[1] else Contract(targets[1]),
    )


def opening_leader(bids: Sequence[Bid]) -> Seat | None:
    """Who leads the first trick, or None if nobody bid (a throw-in).

    The last Board bidder if any Board was said; otherwise the highest numeric
    bidder, and of equal bids the one who bid first.
    """
    leader: Seat | None = None
    best = 0
    for bid in bids:
        if bid.board:
            # A later Board always takes the lead from anything said before it.
            leader, best = bid.seat, -1
        elif best >= 0 and bid.amount > best:
            # Strictly greater: on equal bids the earlier bidder keeps the lead.
            leader, best = bid.seat, bid.amount
    return leader


@attrs.frozen
class Overbid:
    """A warning: a pair's numeric target exceeds the number of tricks in the deal.

    Legal, never refused (RULINGS.md "Bidding"); a table shows it to the players.
    """

    pair: Pair
    target: int
    hand_size: int

    @property
    def message(self) -> str:
        """The warning for people."""
        return (
            f"{self.pair.label} have bid {self.target} tricks, but only "
            f"{self.hand_size} will be played."
        )


def overbids(bids: Sequence[Bid], hand_size: int) -> tuple[Overbid, ...]:
    """The pairs whose numeric target, from the bids so far, exceeds the hand size."""
    return tuple(
        Overbid(pair, contract.target, hand_size)
        for pair, contract in zip(PAIRS, contracts(bids), strict=True)
        if not contract.is_board and contract.target > hand_size
    )
