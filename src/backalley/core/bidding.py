"""Bidding: the one circuit of bids, Board multipliers, contracts and the opening lead.

The rules (``docs/rules.md`` "Bidding", BID-1 to BID-8; ``000`` §03, ``001``, ``002``):

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

from collections.abc import Iterable, Sequence
from typing import Final

import attrs

from .actions import Bid, shared_bid
from .cards import PAIRS, SEATS, Pair, Seat
from .rules import MAX_HAND_SIZE

__all__ = [
    "BOARD",
    "MAX_MULTIPLIER",
    "MAX_TARGET",
    "Contract",
    "Overbid",
    "bid_code",
    "bid_in_range",
    "bid_of_code",
    "board_multipliers",
    "contract_terms",
    "contracts",
    "opening_leader",
    "opening_seat",
    "overbids",
]

BOARD: Final = 13
"""A bid as a small int (its *code*): the amount for Pass (0) and numbers, 13 for Board.

No numeric bid reaches 13 (thirteen cards allow bids up to 12), so the codes of a
hand size's legal bids are 0 .. hand size - 1 and 13, in the order ``legal_actions``
lists them. The compact position (``core.position``) keeps bids as codes.
"""


def bid_code(bid: Bid) -> int:
    """The code of a bid: its amount, or :data:`BOARD`."""
    return BOARD if bid.board else bid.amount


def bid_of_code(seat: Seat, code: int) -> Bid:
    """The shared ``Bid`` of ``seat`` whose code (:func:`bid_code`) is ``code``.

    >>> bid_of_code(Seat.EAST, BOARD), bid_of_code(Seat.EAST, 3) == Bid(Seat.EAST, 3)
    (Bid(E, board), True)
    """
    return shared_bid(seat, 0, board=True) if code == BOARD else shared_bid(seat, code)


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


MAX_TARGET: Final = 2 * (MAX_HAND_SIZE - 1)
"""The largest numeric target of a pair: its two bids of at most 12 on 13 cards (BID-2, BID-6)."""

MAX_MULTIPLIER: Final = 4
"""The largest Board multiplier: the fourth Board of a circuit is worth four (BID-4)."""


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


def contract_terms(said: Iterable[tuple[int, int]]) -> tuple[tuple[int, int], tuple[int, int]]:
    """Each pair's ``(target, multiplier)`` from ``(seat, bid code)`` in circuit order.

    The rule of :func:`contracts` (BID-3, BID-4), on codes: the k-th Board said is
    worth k; a pair with a Board keeps only its highest multiplier and target 0;
    otherwise its target is the sum of its numeric bids, Pass counting zero, and
    its multiplier 0.
    """
    targets = [0, 0]
    boards = [0, 0]
    said_boards = 0
    for seat, code in said:
        pair = seat % 2
        if code == BOARD:
            said_boards += 1
            # Later Boards have higher multipliers: the pair keeps its latest.
            boards[pair] = said_boards
        else:
            targets[pair] += code
    return (
        (0, boards[0]) if boards[0] else (targets[0], 0),
        (0, boards[1]) if boards[1] else (targets[1], 0),
    )


def contracts(bids: Sequence[Bid]) -> tuple[Contract, Contract]:
    """The contracts of North-South and East-West from a (possibly partial) circuit.

    A pair with a Board keeps only its highest multiplier; otherwise its target is
    the sum of its numeric bids, Pass counting zero (:func:`contract_terms`).
    """
    ns, ew = contract_terms([(bid.seat, bid_code(bid)) for bid in bids])
    return Contract(*ns), Contract(*ew)


def opening_seat(said: Iterable[tuple[int, int]]) -> int | None:
    """Who leads the first trick, from ``(seat, bid code)`` in circuit order (BID-8).

    The last Board bidder if any Board was said; otherwise the highest numeric
    bidder, and of equal bids the one who bid first; None if nobody bid (a throw-in).
    """
    leader: int | None = None
    best = 0
    for seat, code in said:
        if code == BOARD:
            # A later Board always takes the lead from anything said before it.
            leader, best = seat, -1
        elif best >= 0 and code > best:
            # Strictly greater: on equal bids the earlier bidder keeps the lead.
            leader, best = seat, code
    return leader


def opening_leader(bids: Sequence[Bid]) -> Seat | None:
    """Who leads the first trick, or None if nobody bid (a throw-in).

    The last Board bidder if any Board was said; otherwise the highest numeric
    bidder, and of equal bids the one who bid first (:func:`opening_seat`).
    """
    seat = opening_seat([(bid.seat, bid_code(bid)) for bid in bids])
    return None if seat is None else SEATS[seat]


@attrs.frozen
class Overbid:
    """A warning: a pair's numeric target exceeds the number of tricks in the deal.

    Legal, never refused (BID-7, ``docs/rulings.md`` "Overbids"); a table shows it to the players.
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
