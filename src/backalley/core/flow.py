"""Match flow: whose turn it is, who deals, which deal comes next and how large.

The one home of the facts that say where a match is, used by the state, the seat
view, ``apply`` and everything above them (``docs/rules.md``
"Dealing", "Bidding", "Play"; ``000`` §02, §03, ``001``):

- Seats go clockwise: North, East, South, West (TABLE-1, :func:`next_seat`).
- The first dealer is a match setting; the deal passes clockwise after every
  deal, thrown-in and tiebreak deals included (MATCH-1, MATCH-2,
  :func:`dealer_of_deal`).
- The player left of the dealer bids first, then one circuit clockwise
  (BID-1, :func:`first_bidder`, :func:`seat_to_move`); in a tiebreak deal
  there is no bidding and that player leads at once.
- Cards go clockwise from the trick's leader (PLAY-1, :func:`seat_to_move`;
  :func:`player_to_move` names who played each card of a trick).
- Four passes throw the deal in: it scores nothing and does not count towards
  the schedule (MATCH-3, MATCH-4, :func:`thrown_in`, :func:`counts`).
- The counted deals follow the schedule of hand sizes; a tiebreak deal is dealt
  at the schedule's largest size (END-3, :func:`hand_size_of_deal`).

>>> from backalley.core.rules import Rules
>>> dealer_of_deal(Rules(first_dealer="W"), 1), first_bidder(Seat.WEST)
(Seat.NORTH, Seat.NORTH)
>>> hand_size_of_deal(Rules(schedule=[3, 2]), 1), hand_size_of_deal(Rules(schedule=[3, 2]), 2)
(2, 3)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from .actions import Bid
from .cards import SEATS, Seat
from .rules import Rules

__all__ = [
    "CLOCKWISE",
    "bid_position",
    "counts",
    "counts_codes",
    "dealer_of_deal",
    "first_bidder",
    "hand_size_of_deal",
    "in_tiebreak",
    "next_seat",
    "player_to_move",
    "seat_to_move",
    "thrown_in",
    "thrown_in_codes",
]

CLOCKWISE: Final = SEATS * 3
"""Three turns of the table: ``CLOCKWISE[seat + steps]`` is the seat ``steps`` places
clockwise, for 0 to 8 steps (the most asked is the dealer + 1 + four bids, after a
throw-in). The functions below index it; so may a hot loop, where a call would cost
more than the work."""


def next_seat(seat: int, steps: int = 1) -> Seat:
    """The seat ``steps`` places clockwise of ``seat`` (any whole number of steps)."""
    return SEATS[(seat + steps) % 4]


def first_bidder(dealer: int) -> Seat:
    """The player left of the dealer: bids first, and leads a tiebreak deal (BID-1)."""
    return CLOCKWISE[dealer + 1]


def bid_position(dealer: int, seat: int) -> int:
    """Where ``seat`` bids in the circuit: 0 for the dealer's left, 3 for the dealer."""
    return (seat - dealer - 1) % 4


def player_to_move(leader: int, cards_played: int) -> Seat:
    """Who plays next to a trick led by ``leader`` holding ``cards_played`` cards (PLAY-1)."""
    return CLOCKWISE[leader + cards_played]


def seat_to_move(dealer: int, said: int, leader: int, down: int) -> Seat:
    """Whose turn it is in a deal: the one answer, asked by the states, ``apply`` and the position.

    While bidding (``leader`` is -1) the bids go clockwise from the dealer's left,
    ``said`` of them made (BID-1); then the cards go clockwise from the trick's
    ``leader``, ``down`` of them played to it (PLAY-1).

    >>> seat_to_move(Seat.NORTH, 2, -1, 0), seat_to_move(Seat.NORTH, 4, Seat.WEST, 1)
    (Seat.WEST, Seat.NORTH)
    """
    if leader < 0:
        return CLOCKWISE[dealer + 1 + said]
    return CLOCKWISE[leader + down]


def thrown_in(bids: Sequence[Bid]) -> bool:
    """True when all four players passed: the deal is thrown in and not scored (MATCH-3)."""
    return thrown_in_codes([0 if bid.is_pass else 1 for bid in bids])


def thrown_in_codes(codes: Sequence[int]) -> bool:
    """:func:`thrown_in` of bids as codes (``bidding.BOARD`` for Board, else the amount).

    Pass is the only bid whose code is 0.
    """
    return len(codes) == 4 and not any(codes)


def counts(tiebreak: bool, bids: Sequence[Bid]) -> bool:
    """Whether a finished deal counts towards the schedule: not a tiebreak, not thrown in."""
    return not tiebreak and not thrown_in(bids)


def counts_codes(tiebreak: bool, codes: Sequence[int]) -> bool:
    """:func:`counts` of bids as codes (``bidding.BOARD`` for Board, else the amount)."""
    return not tiebreak and not thrown_in_codes(codes)


def dealer_of_deal(rules: Rules, number: int) -> Seat:
    """Who deals deal ``number`` (counting every deal from 0): the deal passes clockwise."""
    return SEATS[(rules.first_dealer + number) % 4]


def in_tiebreak(rules: Rules, counted: int) -> bool:
    """Whether, with ``counted`` deals of the schedule played, the next deal is a tiebreak."""
    return counted >= rules.deals


def hand_size_of_deal(rules: Rules, counted: int) -> int:
    """The hand size of the next deal once ``counted`` deals of the schedule are played.

    The schedule's next size; after the schedule, a tiebreak deal at its largest size.
    """
    schedule = rules.schedule
    return schedule[counted] if counted < len(schedule) else rules.largest_hand
