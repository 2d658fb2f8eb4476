"""``dealing.deck_for``: the deck that deals the hands a position wants."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from backalley import Card, Seat, Suit
from backalley.core.dealing import deal_hands, deck_for

N, E, S, W = Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.WEST


@pytest.mark.rule("DEAL-1", "DEAL-2")
@given(dealer=st.sampled_from(Seat), size=st.integers(1, 13), data=st.data())
def test_dealing_the_deck_gives_the_wanted_hands(dealer, size, data):
    """Dealing ``deck_for``'s deck gives every seat the cards asked for, and turns ``turned``."""
    cards = data.draw(st.permutations(list(Card)))
    wanted = {
        seat: cards[i * size : i * size + data.draw(st.integers(0, size))]
        for i, seat in enumerate(Seat)
    }
    turned = cards[4 * size]
    deck = deck_for(wanted, dealer=dealer, turned=turned, hand_size=size)
    assert sorted(deck) == list(Card)
    setup = deal_hands(deck, dealer=dealer, hand_size=size)
    assert setup.turned == turned
    for seat, hand in wanted.items():
        held = {card for card in Card if setup.hands[seat] >> card & 1} | (
            {setup.swap.joker} if setup.swap is not None and setup.swap.seat == seat else set()
        )
        assert set(hand) <= held


@pytest.mark.rule("DEAL-1")
def test_the_hand_size_defaults_to_the_longest_hand():
    """Without ``hand_size`` every seat gets as many cards as the longest hand given."""
    deck = deck_for({E: "AS KS QS"}, dealer=N, turned="2H")
    setup = deal_hands(deck, dealer=N, hand_size=3)
    assert all(bin(hand).count("1") == 3 for hand in setup.hands)
    assert deck[12] == Card.H2
    assert deck_for({}, dealer=N, turned="2H")[0] == Card.H2


@pytest.mark.rule("DEAL-2")
def test_spares_are_plain_non_trumps_first_then_trumps_then_jokers():
    """Filling uses every non-trump plain card before a trump, and every trump before a joker."""
    deck = deck_for({}, dealer=N, turned="2H", hand_size=13)
    dealt = deck[:52]
    assert sum(card.suit not in (Suit.HEARTS, None) for card in dealt) == 39
    assert sum(card.suit is Suit.HEARTS for card in dealt) == 12
    assert sum(card.is_joker for card in dealt) == 1
    # Ten cards each: the 39 non-trump plain cards, then one trump, and no joker.
    ten = deck_for({}, dealer=N, turned="2H", hand_size=10)[:40]
    assert sum(card.suit not in (Suit.HEARTS, None) for card in ten) == 39
    assert [card for card in ten if card.suit is Suit.HEARTS] == [Card.H3]
    # Thirteen cards, the turned card and one more use the whole pack exactly.
    assert len(deck_for({}, dealer=N, turned="2H", hand_size=13, then="3H")) == 54
    # Without trumps (a turned joker) the spares follow card order, seat by seat from
    # North, and the deck deals them from the dealer's left.
    no_trumps = deck_for({}, dealer=N, turned="BIG", hand_size=1)
    assert no_trumps[:5] == (Card.C3, Card.C4, Card.C5, Card.C2, Card.BIG)


@pytest.mark.parametrize(
    ("hands", "options", "message"),
    [
        ({N: "AS", E: "AS"}, {"turned": "2H"}, "wanted twice: AS"),
        ({N: "AS"}, {"turned": "AS"}, "wanted twice: AS"),
        ({N: "AS KS", E: "KS AS"}, {"turned": "2H"}, "wanted twice: KS AS$"),
        ({N: "AS KS"}, {"turned": "2H", "hand_size": 1}, "North is given 2 cards for a hand of 1"),
        ({}, {"turned": "2H", "hand_size": 13, "then": "3H 4H"}, "13 cards each and 3 after"),
    ],
)
def test_impossible_positions_are_refused(hands, options, message):
    """A card wanted twice, a hand too long or a deck too full is a clear ValueError."""
    with pytest.raises(ValueError, match=message):
        deck_for(hands, dealer=N, **options)
