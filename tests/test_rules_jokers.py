"""Properties of joker leads: BIG forces the highest trump, LITTLE the lowest."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import rules_oracle as oracle
from backalley import Card, MatchState, Play, Reason, Seat, Suit, apply
from backalley import legal_actions as legal
from backalley.core.cards import CARDS, cards_of, mask_of, trump_mask
from backalley.core.jokers import forced_by_joker_lead
from backalley.core.tricks import allowed_plays, trick_winner
from backalley.strategies import states

suits = st.sampled_from(list(Suit))


@st.composite
def joker_moments(draw: st.DrawFn, led: Card) -> tuple[Suit, list[Card], list[Card]]:
    """A trump suit, a trick led by ``led`` with 0-2 more cards, and a hand of other cards."""
    trump = draw(suits)
    rest = [c for c in CARDS if c != led]
    chosen = draw(st.lists(st.sampled_from(rest), min_size=1, max_size=15, unique=True))
    split = draw(st.integers(0, min(2, len(chosen) - 1)))
    return trump, [led, *chosen[:split]], chosen[split:]


def allowed(trump: Suit, hand: list[Card], trick: list[Card]) -> tuple[set[Card], Reason | None]:
    mask, reason = allowed_plays(mask_of(hand), tuple(trick), trump_mask(trump), True, False)
    return set(cards_of(mask)), reason


@pytest.mark.rule("JOKER-1")
@given(joker_moments(Card.BIG))
def test_big_led_forces_the_highest_trump(moment: tuple[Suit, list[Card], list[Card]]) -> None:
    """After BIG is led, a hand holding a trump may play only its highest one (LITTLE first)."""
    trump, trick, hand = moment
    held = [card for card in hand if oracle.is_trump(card, trump)]
    assume(held)
    top = max(held, key=oracle.trump_rank)
    assert allowed(trump, hand, trick) == ({top}, Reason.BIG_JOKER_FORCES_HIGHEST)
    assert forced_by_joker_lead(Card.BIG, mask_of(hand), trump_mask(trump)) == 1 << top
    if Card.LITTLE in hand:
        assert top is Card.LITTLE


@pytest.mark.rule("JOKER-2")
@given(joker_moments(Card.LITTLE))
def test_little_led_forces_the_lowest_trump(moment: tuple[Suit, list[Card], list[Card]]) -> None:
    """After LITTLE is led, a hand holding a trump may play only its lowest one."""
    trump, trick, hand = moment
    held = [card for card in hand if oracle.is_trump(card, trump)]
    assume(held)
    low = min(held, key=oracle.trump_rank)
    assert allowed(trump, hand, trick) == ({low}, Reason.LITTLE_JOKER_FORCES_LOWEST)
    assert forced_by_joker_lead(Card.LITTLE, mask_of(hand), trump_mask(trump)) == 1 << low
    if held == [Card.BIG]:
        assert low is Card.BIG


@pytest.mark.rule("JOKER-2", "PLAY-7")
@given(suits, st.sampled_from(list(Seat)), st.data())
def test_little_led_can_lose_to_a_forced_big(
    trump: Suit, leader: Seat, data: st.DataObject
) -> None:
    """000 §06: the next player's only trump is BIG, LITTLE forces it, and BIG takes the trick."""
    plain = [c for c in CARDS if not oracle.is_trump(c, trump)]
    others = data.draw(st.lists(st.sampled_from(plain), min_size=3, max_size=8, unique=True))
    hand = [Card.BIG, *others[2:]]
    assert allowed(trump, hand, [Card.LITTLE]) == ({Card.BIG}, Reason.LITTLE_JOKER_FORCES_LOWEST)
    cards = (Card.LITTLE, Card.BIG, others[0], others[1])
    assert trick_winner(leader, cards, trump) == leader.left


@pytest.mark.rule("JOKER-3")
@given(st.sampled_from([Card.BIG, Card.LITTLE]), st.data())
def test_without_a_trump_any_card_follows_a_joker_lead(led: Card, data: st.DataObject) -> None:
    """A hand without trumps may play anything to a joker lead, and nothing is forced."""
    trump, trick, hand = data.draw(joker_moments(led))
    hand = [card for card in hand if not oracle.is_trump(card, trump)]
    assume(hand)
    assert allowed(trump, hand, trick) == (set(hand), None)
    assert forced_by_joker_lead(led, mask_of(hand), trump_mask(trump)) == 0


@pytest.mark.rule("JOKER-4")
@given(suits, st.data())
def test_a_joker_that_did_not_lead_obliges_nobody(trump: Suit, data: st.DataObject) -> None:
    """Only the led card matters: a joker played second or third changes no one's choice."""
    led = data.draw(st.sampled_from([c for c in CARDS if not c.is_joker]))
    joker = data.draw(st.sampled_from([Card.BIG, Card.LITTLE]))
    rest = [c for c in CARDS if c not in (led, joker)]
    hand = data.draw(st.lists(st.sampled_from(rest), min_size=1, max_size=13, unique=True))
    with_joker = allowed_plays(mask_of(hand), (led, joker), trump_mask(trump), True, False)
    only_lead = allowed_plays(mask_of(hand), (led,), trump_mask(trump), True, False)
    assert with_joker == only_lead
    assert forced_by_joker_lead(led, mask_of(hand), trump_mask(trump)) == 0


@pytest.mark.rule("JOKER-1", "JOKER-2", "JOKER-3", "PLAY-5")
@given(states(joker_lead=True))
def test_a_joker_lead_in_a_match_forces_every_other_seat(state: MatchState) -> None:
    """In a joker-led trick, each later seat's legal plays are the forced card, or anything."""
    trick = state.current_trick
    assert trick is not None and state.trump is not None
    led = trick.cards[0]
    assert led.is_joker
    while state.current_trick is not None and state.current_trick.cards:
        seat = state.to_move
        assert seat is not None
        hand = list(state.hand(seat))
        forced = oracle.joker_forced(led, hand, state.trump)
        plays = [a for a in legal(state) if isinstance(a, Play)]
        assert {a.card for a in plays} == ({forced} if forced is not None else set(hand))
        state = apply(state, plays[-1])
