"""Test helpers: decks built from the hands a test wants, and short ways to bid and play.

A deal is an explicit 54-card order (``Deal(deck)``), dealt one card at a time
clockwise from the player left of the dealer, then the turned card, then the
stock (docs/rules.md DEAL-1 to DEAL-4). ``backalley.core.dealing.deck_for`` inverts that:
given the hands a test wants, the turned card and the cards that should follow
it, it returns the deck order that deals them, filling hands given short with
plain non-trump cards first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from backalley import Card, Deal, DealResult, MatchState, Play, Seat, apply, legal_actions
from backalley.core.dealing import deck_for
from backalley.formats.notation import parse_bid
from decks import position

__all__ = [
    "bid_round",
    "cards",
    "deal_hands",
    "deck_for",
    "little_lead",
    "minimax",
    "play_cards",
    "play_out",
]

CardLike = Card | str


def cards(text: str | Iterable[CardLike]) -> tuple[Card, ...]:
    """Cards from codes: ``cards("5H KH 9S 2C")`` or an iterable of cards and codes."""
    items = text.split() if isinstance(text, str) else text
    return tuple(item if isinstance(item, Card) else Card.parse(item) for item in items)


def deal_hands(
    state: MatchState,
    hands: Mapping[Seat, Iterable[CardLike]],
    *,
    turned: CardLike,
    then: Iterable[CardLike] = (),
) -> MatchState:
    """Deal the next deal of ``state`` from a deck that gives these hands."""
    deck = deck_for(hands, dealer=state.dealer, hand_size=state.hand_size, turned=turned, then=then)
    return apply(state, Deal(deck))


def bid_round(state: MatchState, calls: Mapping[Seat, int | str]) -> MatchState:
    """One bid per seat in turn order: a number, ``"pass"`` or ``"board"`` (read by parse_bid)."""
    for _ in range(4):
        seat = state.to_move
        assert seat is not None, "bid_round needs a state in the bidding phase"
        state = apply(state, parse_bid(seat, str(calls[seat])))
    return state


def play_cards(state: MatchState, codes: str | Sequence[CardLike]) -> MatchState:
    """Play these cards one after another, each by the seat to move."""
    for card in cards(codes):
        seat = state.to_move
        assert seat is not None, "play_cards needs a state in the play phase"
        state = apply(state, Play(seat, card))
    return state


Picker = Callable[[tuple[Play, ...]], Play]


def play_out(state: MatchState, pick: Picker = lambda plays: plays[0]) -> MatchState:
    """Play the current deal to its end, choosing each card from ``legal_actions`` with ``pick``."""
    deals = len(state.history)
    while len(state.history) == deals:
        plays = legal_actions(state)
        assert plays and all(isinstance(play, Play) for play in plays)
        state = apply(state, pick(plays))  # type: ignore[arg-type]
    return state


def little_lead(
    bids: Sequence[int | str] = ("board", 0, 0, 0), plays: Sequence[str] = ()
) -> MatchState:
    """Two cards each, spades trumps, West dealing: North holds LITTLE and AC, East 2S and 3D.

    North (left of the dealer) bids first and leads. LITTLE led forces East's only
    trump, the 2S (JOKER-2), so it wins and North then cashes AC: two tricks. AC led
    first is ruffed by East (void in clubs). Without a Board, North may not lead
    LITTLE, a trump, while trumps are not broken (PLAY-4).
    """
    hands = {
        Seat.NORTH: ["LITTLE", "AC"],
        Seat.EAST: ["2S", "3D"],
        Seat.SOUTH: ["4D", "5D"],
        Seat.WEST: ["6D", "7D"],
    }
    return position(hands, turned="9S", bids=bids, plays=plays, dealer=Seat.WEST)


def minimax(
    state: MatchState,
    pair: int,
    value: Callable[[DealResult], int],
    memo: dict[object, int] | None = None,
) -> int:
    """The deal in progress valued for ``pair`` under best play by both pairs, through ``apply``.

    ``value`` is what the finished deal is worth to ``pair``, which maximizes it while
    the other pair minimizes it; a ``state`` whose deal is over is worth ``value`` of
    it. With ``memo``, positions already valued (the same hands, trick, leader and
    tricks won) are looked up.
    """
    deal = state.deal
    if deal is None:
        return value(state.history[-1])
    key = (deal.hands, deal.trick, deal.leader, deal.tricks_won)
    if memo is not None and key in memo:
        return memo[key]
    mover = state.to_move
    assert mover is not None
    values = [minimax(apply(state, action), pair, value, memo) for action in legal_actions(state)]
    best = max(values) if mover % 2 == pair else min(values)
    if memo is not None:
        memo[key] = best
    return best
