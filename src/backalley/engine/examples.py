"""The worked examples of the rules sources, as matches you can step through.

Each function plays one example of seed ``000`` §06 or ``001`` through
:func:`backalley.apply` and returns the state, so the examples are checked by
the engine itself and the documentation draws its pictures from them. The
helpers :func:`deal_from`, :func:`bid` and :func:`play` set up any deal you
like: name the four hands and the turned card, then say the bids and the cards
in the order they are made.

>>> state = sixteen_points()
>>> state.history[-1].scores             # North-South 2 + 1, took 4; East-West passed, took 1
(16, 1)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..core.actions import Bid, Deal, Play
from ..core.cards import SEATS, Card, Seat
from ..core.dealing import deck_for
from ..core.rules import Rules
from .match import apply, new_match
from .state import MatchState

__all__ = [
    "bid",
    "big_joker_lead",
    "deal_from",
    "little_joker_beaten",
    "little_joker_lead",
    "play",
    "sixteen_points",
    "triple_board",
]


def _cards(cards: str | Iterable[Card]) -> list[Card]:
    if isinstance(cards, str):
        return [Card.parse(code) for code in cards.split()]
    return list(cards)


def deal_from(hands: Mapping[Seat, str | Iterable[Card]], turned: Card | str, dealer: Seat) -> Deal:
    """The ``Deal`` that gives each seat these cards and turns ``turned`` for trumps.

    Hands are card codes separated by spaces (``"AS KS 10H"``) or cards; all four
    must be the same size. The undealt cards follow the turned one in card order.

    >>> deal = deal_from({Seat.NORTH: "AS", Seat.EAST: "KS", Seat.SOUTH: "QS",
    ...                   Seat.WEST: "JS"}, turned="2H", dealer=Seat.WEST)
    >>> [card.code for card in deal.deck[:5]]
    ['AS', 'KS', 'QS', 'JS', '2H']
    """
    held = {seat: _cards(hands[seat]) for seat in SEATS}
    if len({len(cards) for cards in held.values()}) != 1:
        raise ValueError("all four hands must hold the same number of cards")
    return Deal(deck_for(held, dealer=dealer, turned=turned))


def bid(state: MatchState, calls: str) -> MatchState:
    """Make the bids in ``calls`` (``"2 pass 1 board"``), each by the seat to move.

    Each call is read as :meth:`Bid.parse` reads it (in any case), else a ValueError.
    """
    for call in calls.split():
        seat = state.to_move
        assert seat is not None, "nobody is to bid"
        state = apply(state, Bid.parse(seat, call))
    return state


def play(state: MatchState, cards: str) -> MatchState:
    """Play the cards in ``cards`` (``"AS 2S QS 4S"``), each by the seat to move."""
    for code in cards.split():
        seat = state.to_move
        assert seat is not None, "nobody is to play"
        state = apply(state, Play(seat, Card.parse(code)))
    return state


def sixteen_points(*, tricks: str = "all") -> MatchState:
    """``000`` §06 and ``001``: five cards, North bids 2 and South 1, and they take four.

    Hearts are trumps; East and West pass. North-South's target is 3: four
    tricks score 5 × 3 + 1 = 16, and East-West, who passed, score a point for
    their one trick. ``tricks="none"`` stops before the first card.
    """
    hands = "AS KS AD 7H 2C / 2S 3S KD AH 3C / QS KH 9H 5D 4C / 4S 5S 6D 7D QC"
    state = _dealt(Seat.WEST, hands, turned="3H")
    state = bid(state, "2 pass 1 pass")
    if tricks == "none":
        return state
    return play(state, "AS 2S QS 4S  KS 3S 4C 5S  AD KD 5D 6D  2C 3C 9H QC  KH 7D 7H AH")


def triple_board() -> MatchState:
    """``000`` §06: West bids the first Board, North the second, East passes, South the third.

    On five cards North-South are scored on the ×3 Board, East-West on West's
    ×1. South, the last Board bidder, leads, and may lead trumps at once: South
    holds the five top spades and takes every trick, 10 × 5 × 3 = 150, while
    East-West lose 10 × 5 × 1 = 50.
    """
    hands = "AH KH AD KD AC / 9S 8S JH JD JC / BIG LITTLE AS KS QS / JS 10S QH QD QC"
    state = _dealt(Seat.SOUTH, hands, turned="2S")
    state = bid(state, "board board pass board")
    return play(
        state,
        "BIG JS KH 9S  LITTLE 10S AH 8S  AS QH KD JH  KS QD AD JD  QS QC AC JC",
    )


def _dealt(dealer: Seat, hands: str, turned: str) -> MatchState:
    """A one-deal match, dealt by ``dealer``.

    ``hands`` holds the four hands, North's, East's, South's then West's, split by ``/``.
    """
    held = dict(zip(SEATS, hands.split("/"), strict=True))
    size = len(held[Seat.NORTH].split())
    state = new_match(Rules(schedule=[size], first_dealer=dealer), seed=0)
    return apply(state, deal_from(held, turned=turned, dealer=dealer))


def _joker_deal() -> MatchState:
    """Hearts trumps, four cards; North holds 5♥ K♥ 9♠ 2♣ (the hand of ``001``).

    West bids Board, so West leads and may lead a joker at once.
    """
    hands = "5H KH 9S 2C / 7S 8S 9D 10D / AH 6H JS JC / BIG LITTLE 3D 4D"
    state = _dealt(Seat.SOUTH, hands, turned="2H")
    return bid(state, "board 1 pass 1")


def big_joker_lead() -> MatchState:
    """``001``: hearts trumps, the BIG joker led; North, holding 5♥ K♥ 9♠ 2♣, must play K♥."""
    return play(_joker_deal(), "BIG")


def little_joker_lead() -> MatchState:
    """``001``: the same hand, the LITTLE joker led: North must play 5♥, the lowest trump."""
    return play(_joker_deal(), "LITTLE")


def little_joker_beaten(*, complete: bool = False) -> MatchState:
    """``000`` §06: spades trumps, North leads LITTLE; East's only trump is BIG and must be played.

    North bid Board, so may lead the joker at once. The state is the moment
    East must answer; with ``complete=True`` the trick is finished and East,
    with BIG, has won it.
    """
    hands = "LITTLE AH KH / BIG 2H 3D / 5S 4H 5D / 9S 8S 6H"
    state = _dealt(Seat.WEST, hands, turned="2S")
    state = play(bid(state, "board pass pass pass"), "LITTLE")
    return play(state, "BIG 5S 8S") if complete else state
