"""The heuristic computer player of the online table (seed ``001``).

Seed ``001`` describes it: "The computer counts its hand card by card: more than
a trick for the big blooper, about one for the little blooper and the trump
ace, and even a low trump counts for almost half. It bids for its side and half
believes what its partner bid. It leads a side ace when it has one. When its
partner is winning the trick it throws its cheapest card. Otherwise it takes the
trick with the cheapest card that wins, and once its side has made its target
it will not spend a trump to do it. It always plays the trump a blooper forces,
and it reads only what its own seat can see."

The values of the cards the seed does not name (trump king and queen, side aces
and kings) are ours, named below. So are the rounding and these choices: it
bids Board when its count reaches the hand size; in a one-card deal, where the
only bids are Pass and Board (BID-2), it bids Board on any trump; the last to
bid never throws the deal in (MATCH-3) after three passes, but bids at least one
trick (Board with one card); and it does spend a trump after making its target
when the opponents bid Board, since one trick beats a Board.

The one-card and last-bidder rules keep four heuristic players from throwing in
most one-card deals: counted card by card, a one-card hand is rarely worth half
a trick, so four such hands used to pass 8 deals of every 14-deal short match.
Three passes also tell the last bidder that nobody else holds a card they
would have bid on, which makes its lead likelier to win.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Final

from ..core.actions import Bid, Play
from ..core.cards import Card, Rank, Seat, Suit, trump_mask
from ..core.tricks import trick_winner
from ..engine.view import SeatView

__all__ = [
    "BIG_JOKER_TRICKS",
    "LITTLE_JOKER_TRICKS",
    "LOW_TRUMP_TRICKS",
    "NO_TRUMP_ACE_TRICKS",
    "NO_TRUMP_KING_TRICKS",
    "ONE_CARD_BOARD_FROM",
    "ONE_CARD_BOARD_TWENTIETHS",
    "PARTNER_BELIEF",
    "SIDE_ACE_TRICKS",
    "SIDE_KING_TRICKS",
    "TRUMP_ACE_TRICKS",
    "TRUMP_KING_TRICKS",
    "TRUMP_QUEEN_TRICKS",
    "TWENTIETHS",
    "HeuristicPlayer",
    "card_cost",
    "card_twentieths",
    "hand_tricks",
    "hand_twentieths",
    "heuristic_bid",
    "three_passed",
]

BIG_JOKER_TRICKS: Final = 1.25
"""``001``: "more than a trick for the big blooper"."""
LITTLE_JOKER_TRICKS: Final = 1.0
"""``001``: "about one for the little blooper"."""
TRUMP_ACE_TRICKS: Final = 1.0
"""``001``: "and the trump ace"."""
TRUMP_KING_TRICKS: Final = 0.75
TRUMP_QUEEN_TRICKS: Final = 0.6
LOW_TRUMP_TRICKS: Final = 0.45
"""``001``: "even a low trump counts for almost half"; every trump below the queen."""
SIDE_ACE_TRICKS: Final = 0.8
"""An ace of a plain suit when trumps exist: usually a trick, unless it is trumped."""
SIDE_KING_TRICKS: Final = 0.3
NO_TRUMP_ACE_TRICKS: Final = 1.0
"""Without trumps nothing can beat an ace of the suit led."""
NO_TRUMP_KING_TRICKS: Final = 0.45
PARTNER_BELIEF: Final = 0.5
"""``001``: it "half believes what its partner bid"."""
ROUND_UP_FROM: Final = 0.5
"""A count's fraction from which the bid rounds up: 0.5 is ordinary rounding."""
BOARD_SHARE: Final = 1.0
"""Bid Board when the hand alone counts for this share of the tricks or more."""
ONE_CARD_BOARD_FROM: Final = 0.4
"""In a one-card deal (Pass or Board, BID-2), bid Board from this count: on any trump.

A low trump (0.45) wins a one-card deal more often than not once a trump of ten or
more is out of the other three hands' way, and a pair that bids no Board there
throws the deal in: the heuristic chooses the Board."""

_TRUMP_COST: Final = 100
"""Added to a trump's cost so that every plain card is cheaper than any trump."""


_TRUMP_HONOURS: Final[dict[Rank | None, float]] = {
    Rank.ACE: TRUMP_ACE_TRICKS,
    Rank.KING: TRUMP_KING_TRICKS,
    Rank.QUEEN: TRUMP_QUEEN_TRICKS,
}
_SIDE_HONOURS: Final[dict[Rank | None, float]] = {
    Rank.ACE: SIDE_ACE_TRICKS,
    Rank.KING: SIDE_KING_TRICKS,
}
_NO_TRUMP_HONOURS: Final[dict[Rank | None, float]] = {
    Rank.ACE: NO_TRUMP_ACE_TRICKS,
    Rank.KING: NO_TRUMP_KING_TRICKS,
}


TWENTIETHS: Final = 20
"""Every count above is a whole number of twentieths of a trick: hands are counted in them.

Counting in whole twentieths keeps the count exact (a sum of floats such as
0.45 + 0.45 + 0.3 + 0.8 is not always the number it stands for), so a bid never
depends on rounding, and the compiled opponent of :mod:`backalley.batch.heuristic`
makes the same choices with integers.
"""


def _twentieths(value: float) -> int:
    scaled = round(value * TWENTIETHS)
    assert scaled == value * TWENTIETHS, f"{value} is not a whole number of twentieths"
    return scaled


ONE_CARD_BOARD_TWENTIETHS: Final = _twentieths(ONE_CARD_BOARD_FROM)
"""``ONE_CARD_BOARD_FROM`` in twentieths, as the compiled twins compare counts."""


def card_twentieths(card: Card, trump: Suit | None) -> int:
    """What one card counts for in a hand (``001``), in twentieths of a trick."""
    if card is Card.BIG:
        value = BIG_JOKER_TRICKS
    elif card is Card.LITTLE:
        value = LITTLE_JOKER_TRICKS
    elif trump is None:
        value = _NO_TRUMP_HONOURS.get(card.rank, 0.0)
    elif card.suit is trump:
        value = _TRUMP_HONOURS.get(card.rank, LOW_TRUMP_TRICKS)
    else:
        value = _SIDE_HONOURS.get(card.rank, 0.0)
    return _twentieths(value)


def hand_twentieths(hand: Sequence[Card], trump: Suit | None) -> int:
    """How many tricks the hand is worth, counted card by card (``001``), in twentieths."""
    return sum(card_twentieths(card, trump) for card in hand)


def hand_tricks(hand: Sequence[Card], trump: Suit | None) -> float:
    """How many tricks the hand is worth, counted card by card (``001``)."""
    return hand_twentieths(hand, trump) / TWENTIETHS


def heuristic_bid(  # noqa: PLR0913 - what the bid is a function of, one argument each
    seat: Seat,
    hand: Sequence[Card],
    trump: Suit | None,
    hand_size: int,
    partner_bid: Bid | None,
    *,
    after_three_passes: bool = False,
    round_up_from: float = ROUND_UP_FROM,
) -> Bid:
    """The heuristic's bid for ``hand``, given the partner's bid if it came first (``001``).

    The side's target is the hand's count plus half the partner's bid, rounded
    up from ``round_up_from``; the bid is that target less the partner's bid,
    within Pass and hand size - 1. Board when the count reaches the hand size;
    Pass after a partner's Board (the side is scored on that Board alone). In a
    one-card deal, Board from a count of ``ONE_CARD_BOARD_FROM`` (any trump).
    ``after_three_passes`` (the seat bids last and the three others passed): at
    least one trick, Board with one card, so that the deal is not thrown in
    (MATCH-3). The count is exact (whole twentieths, and ``round_up_from`` as the
    exact fraction its float is), so no bid depends on floating-point rounding.
    """
    if partner_bid is not None and partner_bid.board:
        return Bid(seat)
    twentieths = hand_twentieths(hand, trump)
    count = Fraction(twentieths, TWENTIETHS)
    if count >= Fraction(BOARD_SHARE) * hand_size:
        return Bid(seat, board=True)
    if hand_size == 1:
        # Pass or Board are the only bids (BID-2), and the partner's was a Pass if any.
        return Bid(seat, board=after_three_passes or twentieths >= ONE_CARD_BOARD_TWENTIETHS)
    said = partner_bid.amount if partner_bid is not None else 0
    side_target = math.floor(count + Fraction(PARTNER_BELIEF) * said + 1 - Fraction(round_up_from))
    if after_three_passes:
        side_target = max(side_target, 1)
    amount = max(0, min(side_target - said, hand_size - 1, hand_size - said))
    return Bid(seat, amount)


def three_passed(bids: Sequence[Bid]) -> bool:
    """Whether ``bids``, the bids said so far in the circuit, are three passes."""
    return len(bids) == 3 and not any(bid.board or bid.amount for bid in bids)


@functools.cache
def card_cost(card: Card, trump: Suit | None) -> int:
    """How dear a card is to give up: plain cards by rank, then trumps, BIG dearest."""
    if (1 << card) & trump_mask(trump):
        return _TRUMP_COST + card
    rank = card.rank
    assert rank is not None  # jokers are trumps whenever they are in play
    return int(rank)


class HeuristicPlayer:
    """The computer player of seed ``001``: counts its hand, bids for its side, plays cheaply.

    It is deterministic and reads nothing but its seat's view. ``round_up_from``
    is the fraction of a trick from which a count rounds up to a bid.
    """

    def __init__(self, round_up_from: float = ROUND_UP_FROM) -> None:
        self.round_up_from = round_up_from

    def __repr__(self) -> str:
        return f"HeuristicPlayer(round_up_from={self.round_up_from!r})"

    def __call__(self, view: SeatView, legal: tuple[Bid | Play, ...]) -> Bid | Play:
        """The action this player chooses among ``legal``."""
        if len(legal) == 1:
            # A joker lead or a single card left: nothing to choose.
            return legal[0]
        if isinstance(legal[0], Bid):
            return self.bid(view, legal)
        plays = [action for action in legal if isinstance(action, Play)]
        return self.play(view, plays)

    def bid(self, view: SeatView, legal: Sequence[Bid | Play]) -> Bid:
        """Bid for the side: the hand's count plus half the partner's bid, less that bid."""
        deal = view.deal
        assert deal is not None  # asked to bid, so a deal is being bid
        wanted = heuristic_bid(
            view.seat,
            view.hand,
            view.trump,
            view.hand_size,
            deal.bid_of(view.partner),
            after_three_passes=three_passed(deal.bids),
            round_up_from=self.round_up_from,
        )
        return _pick(legal, wanted)

    def play(self, view: SeatView, legal: Sequence[Play]) -> Play:
        """Lead a side ace, let a winning partner have the trick, else win as cheaply as can be."""
        trump = view.trump
        trumps = trump_mask(trump)
        trick = view.current_trick
        assert trick is not None  # asked to play, so a trick is in progress

        def cheapest(choice: Sequence[Play]) -> Play:
            # The legal Play itself, not a new one: the driver knows it at a glance.
            return min(choice, key=lambda play: (card_cost(play.card, trump), play.card))

        if not trick.cards:
            aces = [play for play in legal if _RANKS[play.card] is Rank.ACE]
            aces = [play for play in aces if not (1 << play.card) & trumps]
            return cheapest(aces) if aces else cheapest(legal)
        if trick_winner(trick.leader, trick.cards, trump) == view.partner:
            return cheapest(legal)
        winning = [
            play
            for play in legal
            if trick_winner(trick.leader, (*trick.cards, play.card), trump) == view.seat
        ]
        if _target_made(view):
            winning = [play for play in winning if not (1 << play.card) & trumps]
        return cheapest(winning or legal)


_RANKS: Final = tuple(card.rank for card in Card)
"""Each card's rank, by card number (``Card.rank``, looked up rather than derived)."""


def _target_made(view: SeatView) -> bool:
    """Whether the side has its target and no opposing Board is still to be beaten."""
    contracts = view.contracts
    if contracts is None:
        return False  # a tiebreak deal: every trick counts
    ours, theirs = contracts[view.pair], contracts[view.pair.other]
    if theirs.is_board and view.tricks_won[view.pair] == 0:
        return False
    return view.tricks_won[view.pair] >= ours.tricks_needed(view.hand_size)


def _pick(legal: Sequence[Bid | Play], wanted: Bid) -> Bid:
    """``wanted`` if it is legal, else the legal bid nearest to it."""
    bids = [action for action in legal if isinstance(action, Bid)]
    for bid in bids:
        if bid == wanted:
            return bid  # the legal Bid itself, which the driver knows at a glance
    return min(bids, key=lambda bid: abs(bid.amount - wanted.amount) + 100 * bid.board)
