"""Tests of the test helper ``tests/helpers.py``: the decks it builds deal what was asked."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from backalley import Card, Deal, Phase, Rules, Seat, new_match
from helpers import cards, deal_hands, deck_for

pytestmark = pytest.mark.rule("DEAL-1", "DEAL-2", "ENGINE-5")


@given(
    order=st.permutations(list(Card)),
    dealer=st.sampled_from(Seat),
    hand_size=st.integers(1, 13),
    wanted=st.lists(st.integers(0, 13), min_size=4, max_size=4),
)
def test_deck_for_deals_the_wanted_hands(
    order: list[Card], dealer: Seat, hand_size: int, wanted: list[int]
) -> None:
    """Any choice of partial hands and turned card is dealt exactly as asked, the rest filled."""
    plain = [card for card in order if not card.is_joker]
    turned, rest = plain[0], plain[1:]
    hands = {}
    for seat, count in zip(Seat, wanted, strict=True):
        given_cards = min(count, hand_size)
        hands[seat], rest = rest[:given_cards], rest[given_cards:]
    state = new_match(Rules(schedule=[hand_size], first_dealer=dealer), seed=0)
    state = deal_hands(state, hands, turned=turned)
    assert state.phase is Phase.BID
    assert state.trump is turned.suit
    for seat in Seat:
        held = state.hand(seat)
        assert len(held) == hand_size
        assert set(hands[seat]) <= set(held)
    # Filling hands out a joker only when the plain cards have run out (51 after the turn).
    jokers = sum(card.is_joker for seat in Seat for card in state.hand(seat))
    assert jokers == max(0, 4 * hand_size - 51)


def test_deck_for_is_a_permutation_with_turned_and_next_cards_on_top() -> None:
    """The deck holds the 54 cards once, the turned card at 4h and the ``then`` cards after it."""
    deck = deck_for(
        {Seat.NORTH: cards("AS KS")}, dealer=Seat.WEST, hand_size=2, turned="BIG", then=["2D"]
    )
    assert sorted(deck) == list(Card)
    assert deck[8] == Card.BIG
    assert deck[9] == Card.D2
    # West deals, so North receives cards 0 and 4.
    assert (deck[0], deck[4]) == (Card.SA, Card.SK)
    Deal(deck)  # the engine accepts it


def test_deck_for_matches_the_dealing_docstring_example() -> None:
    """North dealing two each from AS KS QS JS 10S 9S 8S 7S 6S: E gets AS 10S, ..., 6S turned."""
    deck = deck_for(
        {
            Seat.EAST: cards("AS 10S"),
            Seat.SOUTH: cards("KS 9S"),
            Seat.WEST: cards("QS 8S"),
            Seat.NORTH: cards("JS 7S"),
        },
        dealer=Seat.NORTH,
        hand_size=2,
        turned="6S",
    )
    assert deck[:9] == cards("AS KS QS JS 10S 9S 8S 7S 6S")


@pytest.mark.parametrize(
    ("hands", "turned", "then"),
    [
        ({Seat.NORTH: "AS", Seat.EAST: "AS"}, "2C", ()),
        ({Seat.NORTH: "AS"}, "AS", ()),
        ({Seat.NORTH: "AS"}, "2C", ("2C",)),
        ({Seat.NORTH: "AS KS QS"}, "2C", ()),
    ],
)
def test_deck_for_refuses_impossible_requests(
    hands: dict[Seat, str], turned: str, then: tuple[str, ...]
) -> None:
    """A card wanted twice or a hand larger than the hand size is refused, not silently dealt."""
    with pytest.raises(ValueError, match=r"twice|cards for a hand"):
        deck_for(hands, dealer=Seat.NORTH, hand_size=2, turned=turned, then=then)


def test_deal_hands_uses_the_states_dealer_and_hand_size() -> None:
    """``deal_hands`` deals the next deal of the match: its dealer, its hand size."""
    state = new_match(Rules(schedule=[3], first_dealer=Seat.SOUTH), seed=1)
    state = deal_hands(state, {Seat.WEST: "AH KH QH"}, turned="2H")
    assert state.deal is not None
    assert state.deal.setup.dealer is Seat.SOUTH
    assert state.hand(Seat.WEST) == cards("QH KH AH")
    assert state.to_move is Seat.WEST
