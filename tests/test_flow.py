"""Match flow (``core.flow``): turns, dealers and hand sizes, and the invariants the deal keeps."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from backalley import Bid, Card, Rules, Seat, Suit
from backalley.core.cards import ALL_CARDS_MASK, JOKERS_MASK, SEATS, trump_mask
from backalley.core.dealing import deal_hands
from backalley.core.flow import (
    bid_position,
    counts,
    dealer_of_deal,
    first_bidder,
    hand_size_of_deal,
    in_tiebreak,
    next_seat,
    player_to_move,
    seat_to_move,
    thrown_in,
)
from backalley.core.tricks import allowed_plays
from backalley.strategies import decks, rules

seats = st.sampled_from(list(Seat))


@pytest.mark.rule("TABLE-1", "BID-1", "PLAY-1")
@given(seat=seats, other=seats, steps=st.integers(0, 8))
def test_turns_go_clockwise(seat: Seat, other: Seat, steps: int) -> None:
    """Each turn is the seat so many places clockwise: the left of the dealer bids first."""
    assert next_seat(seat, steps) is seat.after(steps)
    assert first_bidder(seat) is seat.left
    if steps <= 4:
        assert seat_to_move(seat, steps, -1, 0) is seat.after(1 + steps)
        assert player_to_move(seat, steps) is seat.after(steps)
    if steps <= 3:
        assert seat_to_move(other, 4, seat, steps) is seat.after(steps)
    assert seat_to_move(seat, bid_position(seat, other), -1, 0) is other
    assert 0 <= bid_position(seat, other) < 4


@pytest.mark.rule("BID-1", "PLAY-1")
@given(dealer=seats, leader=st.none() | seats, bids=st.integers(0, 4), cards=st.integers(0, 3))
def test_seat_to_move_is_the_bidder_or_the_player(
    dealer: Seat, leader: Seat | None, bids: int, cards: int
) -> None:
    """While bidding the next bidder is to move; in play, the next player of the trick."""
    expected = dealer.after(1 + bids) if leader is None else leader.after(cards)
    assert seat_to_move(dealer, bids, -1 if leader is None else leader, cards) is expected


@pytest.mark.rule("MATCH-3", "MATCH-4")
@given(amounts=st.lists(st.integers(0, 2), min_size=0, max_size=4), tiebreak=st.booleans())
def test_only_four_passes_throw_in_and_such_deals_do_not_count(
    amounts: list[int], tiebreak: bool
) -> None:
    """Thrown in means four bids, all Pass; a thrown-in or tiebreak deal does not count."""
    bids = tuple(Bid(SEATS[k], amount) for k, amount in enumerate(amounts))
    assert thrown_in(bids) == (len(bids) == 4 and not any(amounts))
    assert counts(tiebreak, bids) == (not tiebreak and not thrown_in(bids))


@pytest.mark.rule("MATCH-1", "MATCH-2", "END-3")
@given(rules=rules(), number=st.integers(0, 60), counted=st.integers(0, 30))
def test_dealer_and_hand_size_of_each_deal(rules: Rules, number: int, counted: int) -> None:
    """Deal ``k`` is dealt by the seat ``k`` places left of the first dealer; its size
    follows the schedule, then the largest size for a tiebreak deal."""
    assert dealer_of_deal(rules, number) is rules.first_dealer.after(number)
    assert in_tiebreak(rules, counted) == (counted >= len(rules.schedule))
    expected = rules.schedule[counted] if counted < len(rules.schedule) else max(rules.schedule)
    assert hand_size_of_deal(rules, counted) == expected


@pytest.mark.rule("DEAL-6")
@given(deck=decks(), hand_size=st.integers(1, 13), dealer=seats)
def test_a_no_trump_deal_has_no_joker_in_any_hand(
    deck: tuple[Card, ...], hand_size: int, dealer: Seat
) -> None:
    """Whatever the deck, a deal without trumps leaves both jokers out of the hands."""
    setup = deal_hands(deck, dealer=dealer, hand_size=hand_size)
    held = setup.hands[0] | setup.hands[1] | setup.hands[2] | setup.hands[3]
    assert (setup.trump is None) <= (not held & JOKERS_MASK)


@pytest.mark.rule("DEAL-6")
@given(deck=decks(), hand_size=st.integers(1, 13), dealer=seats)
def test_a_turned_joker_deal_checks_the_rule(
    deck: tuple[Card, ...], hand_size: int, dealer: Seat
) -> None:
    """With the joker turned, the no-joker rule holds for every hand (the assert's case)."""
    cards = list(deck)
    at = cards.index(Card.BIG)
    cards[at], cards[4 * hand_size] = cards[4 * hand_size], cards[at]
    setup = deal_hands(tuple(cards), dealer=dealer, hand_size=hand_size)
    assert setup.trump is None
    assert not any(hand & JOKERS_MASK for hand in setup.hands)


@example(hand=ALL_CARDS_MASK, trick=[Card.BIG], trump=None, broken=False, bid_board=False)
@given(
    hand=st.integers(0, ALL_CARDS_MASK),
    trick=st.lists(st.sampled_from(list(Card)), min_size=0, max_size=3, unique=True),
    trump=st.none() | st.sampled_from(list(Suit)),
    broken=st.booleans(),
    bid_board=st.booleans(),
)
def test_allowed_plays_answers_for_any_input(
    hand: int, trick: list[Card], trump: Suit | None, broken: bool, bid_board: bool
) -> None:
    """No hand, trick or trump makes ``allowed_plays`` fail (a joker led without trumps
    included, which a deal never makes): it allows a part of the hand, all of it if
    nothing is refused."""
    allowed, reason = allowed_plays(hand, tuple(trick), trump_mask(trump), broken, bid_board)
    assert allowed & ~hand == 0
    if reason is None:
        assert allowed == hand
    assert bool(allowed) == bool(hand)
