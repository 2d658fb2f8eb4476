"""Test helper: build a deck that deals chosen hands, for positions built by hand."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from backalley import Card, Deal, MatchState, Play, Rules, Seat, apply, new_match
from backalley.core import dealing
from backalley.formats.notation import parse_bid


def deck_for(
    hands: Mapping[Seat, Iterable[Card | str]],
    *,
    turned: Card | str,
    dealer: Seat = Seat.NORTH,
    after: Sequence[Card | str] = (),
) -> Deal:
    """The ``Deal`` whose deck gives each seat its hand, turns ``turned``, then ``after``."""
    wanted = {seat: list(cards) for seat, cards in hands.items()}
    if set(wanted) != set(Seat) or len({len(cards) for cards in wanted.values()}) != 1:
        raise ValueError("give all four seats hands of the same size")
    return Deal(dealing.deck_for(wanted, dealer=dealer, turned=turned, then=after))


def _card(card: Card | str) -> Card:
    return Card.parse(card) if isinstance(card, str) else card


def position(
    hands: Mapping[Seat, Iterable[Card | str]],
    *,
    turned: Card | str,
    bids: Sequence[int | str] = (),
    plays: Sequence[Card | str] = (),
    dealer: Seat = Seat.NORTH,
) -> MatchState:
    """A one-deal match dealt ``hands``, then the bids (circuit order) and plays given.

    A bid is a number (0 for Pass) or ``"board"``; the seats act in turn.
    """
    size = len(list(next(iter(hands.values()))))
    state = new_match(Rules(schedule=[size], first_dealer=dealer), seed=0)
    state = apply(state, deck_for(hands, turned=turned, dealer=dealer))
    for call in bids:
        seat = state.to_move
        assert seat is not None
        state = apply(state, parse_bid(seat, str(call)))
    for card in plays:
        seat = state.to_move
        assert seat is not None
        state = apply(state, Play(seat, _card(card)))
    return state
