"""Properties of play: following suit, the trump-lead ban and its exceptions, the winner."""

from __future__ import annotations

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

import rules_oracle as oracle
from backalley import Card, IllegalAction, MatchState, Phase, Play, Reason, Seat, Suit, Trick, apply
from backalley import legal_actions as legal
from backalley.core.cards import CARDS, cards_of, mask_of, trump_mask
from backalley.core.tricks import allowed_plays, trick_winner
from backalley.strategies import states


@st.composite
def table_moments(draw: st.DrawFn) -> tuple[Suit | None, list[Card], list[Card], bool, bool]:
    """A trump (or none), a hand, a partial trick of other cards, broken and bid-board flags."""
    trump = draw(st.one_of(st.none(), st.sampled_from(list(Suit))))
    pool = [c for c in CARDS if trump is not None or not c.is_joker]
    chosen = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=16, unique=True))
    split = draw(st.integers(0, min(3, len(chosen) - 1)))
    trick, hand = chosen[:split], chosen[split:]
    return trump, hand, trick, draw(st.booleans()), draw(st.booleans())


def engine_allowed(
    trump: Suit | None, hand: list[Card], trick: list[Card], broken: bool, board: bool
) -> tuple[set[Card], Reason | None]:
    allowed, reason = allowed_plays(mask_of(hand), tuple(trick), trump_mask(trump), broken, board)
    return set(cards_of(allowed)), reason


@pytest.mark.rule("PLAY-2", "PLAY-3", "PLAY-4", "PLAY-5", "PLAY-6", "JOKER-1", "JOKER-2", "JOKER-3")
@given(table_moments())
def test_allowed_plays_match_an_independent_reading(
    moment: tuple[Suit | None, list[Card], list[Card], bool, bool],
) -> None:
    """The allowed cards are exactly those the plain reading allows; the reason is its reason."""
    trump, hand, trick, broken, board = moment
    allowed, reason = engine_allowed(trump, hand, trick, broken, board)
    refusals = {
        card: oracle.play_refusal(hand, trick, trump, card, broken=broken, bid_board=board)
        for card in hand
    }
    assert allowed == {card for card, why in refusals.items() if why is None}
    assert allowed, "some card of a hand is always playable"
    assert {why for why in refusals.values() if why is not None} <= {reason}
    if allowed != set(hand):
        assert reason is not None, "a refused card always has a reason"
    elif not trick:
        assert reason is None, "a lead refuses nothing, so it gives no reason"


@pytest.mark.rule("PLAY-1", "PLAY-2", "PLAY-3", "PLAY-4", "PLAY-5", "PLAY-6", "ENGINE-3")
@given(states(phase=Phase.PLAY))
def test_in_a_match_every_card_is_allowed_or_refused_for_the_right_reason(
    state: MatchState,
) -> None:
    """For each card of the hand to move, apply agrees with the plain reading of the rules."""
    seat = state.to_move
    assert seat is not None
    for card in state.hand(seat):
        expected = oracle.refusal(state, Play(seat, card))
        if expected is None:
            assert Play(seat, card) in legal(state)
            after = apply(state, Play(seat, card))
            assert card not in after.hand(seat)
        else:
            with pytest.raises(IllegalAction) as refused:
                apply(state, Play(seat, card))
            assert refused.value.reason is expected
            assert refused.value.action == Play(seat, card)
            assert refused.value.message and not refused.value.message.startswith("[")


@pytest.mark.rule("PLAY-1")
@given(states(phase=Phase.PLAY))
def test_cards_are_played_clockwise_from_the_leader(state: MatchState) -> None:
    """The k-th card of a trick comes from the seat k places left of its leader."""
    trick = state.current_trick
    assert trick is not None
    assert state.to_move == trick.leader.after(len(trick.cards))
    for done in state.completed_tricks:
        assert [seat for seat, _ in done.plays] == [done.leader.after(k) for k in range(4)]


@pytest.mark.rule("PLAY-2")
@given(states(phase=Phase.PLAY, trick_boundary=False))
def test_a_player_holding_the_led_plain_suit_must_follow(state: MatchState) -> None:
    """After a plain lead, a hand with that suit may play only that suit; otherwise anything."""
    trick, seat = state.current_trick, state.to_move
    assert trick is not None and seat is not None
    led = trick.cards[0]
    assume(not oracle.is_trump(led, state.trump))
    hand = state.hand(seat)
    same = {card for card in hand if card.suit == led.suit}
    plays = {action.card for action in legal(state) if isinstance(action, Play)}
    assert plays == (same or set(hand))


@pytest.mark.rule("PLAY-3")
@given(table_moments(), st.sampled_from(list(Suit)))
def test_a_trump_lead_asks_for_a_trump_or_a_joker(
    moment: tuple[Suit | None, list[Card], list[Card], bool, bool], trump: Suit
) -> None:
    """A plain trump led: a hand holding any trump or joker must play one of them."""
    _, hand, trick, broken, board = moment
    led = Card.of(2, trump)
    hand = [card for card in hand if card != led and card not in trick]
    assume(hand)
    allowed, reason = engine_allowed(trump, hand, [led], broken, board)
    held = {card for card in hand if oracle.is_trump(card, trump)}
    assert allowed == (held or set(hand))
    assert reason is (Reason.MUST_FOLLOW_TRUMP if held and held != set(hand) else None)


@pytest.mark.rule("PLAY-4")
@given(states(phase=Phase.PLAY, trick_boundary=True, no_trump=False, boards=False))
def test_no_trump_lead_before_trumps_are_broken(state: MatchState) -> None:
    """Before a trump or joker fell in an earlier trick, a hand with plain cards leads plain."""
    seat = state.to_move
    assert seat is not None
    hand = state.hand(seat)
    plain = {card for card in hand if not oracle.is_trump(card, state.trump)}
    leads = {action.card for action in legal(state) if isinstance(action, Play)}
    if oracle.broken(state):
        assert leads == set(hand)
    elif plain:
        assert leads == plain
        for card in set(hand) - plain:
            with pytest.raises(IllegalAction) as refused:
                apply(state, Play(seat, card))
            assert refused.value.reason is Reason.TRUMPS_NOT_BROKEN


@pytest.mark.rule("PLAY-4")
@given(states(phase=Phase.PLAY, no_trump=True))
def test_without_trumps_there_is_no_ban(state: MatchState) -> None:
    """In a no-trump deal the leader may lead any card of the hand."""
    trick, seat = state.current_trick, state.to_move
    assert trick is not None and seat is not None
    if not trick.cards:
        assert {a.card for a in legal(state) if isinstance(a, Play)} == set(state.hand(seat))


@pytest.mark.rule("PLAY-5")
@given(states(phase=Phase.PLAY, trick_boundary=True, boards=True, no_trump=False))
def test_a_board_bidder_may_lead_trumps_at_once(state: MatchState) -> None:
    """A player who personally bid Board may lead any card, broken or not; the partner may not."""
    seat = state.to_move
    assert seat is not None
    leads = {action.card for action in legal(state) if isinstance(action, Play)}
    if oracle.bid_board(state, seat):
        assert leads == set(state.hand(seat))
    elif not oracle.broken(state):
        assert not any(oracle.is_trump(card, state.trump) for card in leads) or all(
            oracle.is_trump(card, state.trump) for card in state.hand(seat)
        )


@pytest.mark.rule("PLAY-6")
@given(st.sampled_from(list(Suit)), st.data())
def test_a_hand_of_only_trumps_may_lead_one(trump: Suit, data: st.DataObject) -> None:
    """Unbroken and without Board, a hand of nothing but trumps may lead any of them."""
    trumps = [card for card in CARDS if oracle.is_trump(card, trump)]
    hand = data.draw(st.lists(st.sampled_from(trumps), min_size=1, max_size=13, unique=True))
    allowed, reason = engine_allowed(trump, hand, [], False, False)
    assert allowed == set(hand) and reason is None
    # One plain card in the hand brings the ban back.
    plain = data.draw(st.sampled_from([c for c in CARDS if not oracle.is_trump(c, trump)]))
    allowed, reason = engine_allowed(trump, [*hand, plain], [], False, False)
    assert allowed == {plain} and reason is Reason.TRUMPS_NOT_BROKEN


@st.composite
def full_tricks(draw: st.DrawFn) -> tuple[Seat, list[Card], Suit | None]:
    """A leader, four different cards and a trump (jokers only when there is a trump)."""
    trump = draw(st.one_of(st.none(), st.sampled_from(list(Suit))))
    pool = [c for c in CARDS if trump is not None or not c.is_joker]
    cards = draw(st.lists(st.sampled_from(pool), min_size=4, max_size=4, unique=True))
    return draw(st.sampled_from(list(Seat))), cards, trump


@pytest.mark.rule("PLAY-7", "CARD-2", "CARD-3")
@given(full_tricks())
@example((Seat.NORTH, [Card.C2, Card.D5, Card.H7, Card.S9], None))
@example((Seat.EAST, [Card.C2, Card.D5, Card.C3, Card.S9], Suit.HEARTS))
@example((Seat.SOUTH, [Card.BIG, Card.H5, Card.C2, Card.LITTLE], Suit.HEARTS))
@example((Seat.WEST, [Card.HA, Card.H5, Card.C2, Card.D3], Suit.HEARTS))
def test_the_trick_winner_matches_an_independent_reading(
    trick: tuple[Seat, list[Card], Suit | None],
) -> None:
    """The highest trump wins, else the highest card of the led suit."""
    leader, cards, trump = trick
    expected = oracle.winner(leader, cards, trump)
    assert trick_winner(leader, tuple(cards), trump) == expected
    assert Trick(leader, tuple(cards)).winner_under(trump) == expected


@pytest.mark.rule("PLAY-7", "PLAY-8")
@given(states(phase=Phase.PLAY, trick_boundary=True))
def test_each_trick_went_to_its_winner_who_led_the_next(state: MatchState) -> None:
    """Every completed trick's winner is the plain reading's, and that seat led the next trick."""
    tricks = list(state.completed_tricks)
    current = state.current_trick
    assert current is not None
    for done, following in zip(tricks, [*tricks, current][1:], strict=True):
        assert done.winner == oracle.winner(done.leader, list(done.cards), state.trump)
        assert following.leader == done.winner


@pytest.mark.rule("PLAY-7")
@given(full_tricks())
def test_only_four_cards_make_a_trick_with_a_winner(
    trick: tuple[Seat, list[Card], Suit | None],
) -> None:
    """Asking for the winner of an unfinished trick is an error."""
    leader, cards, trump = trick
    with pytest.raises(ValueError, match=r"^only a trick of four cards has a winner$"):
        Trick(leader, tuple(cards[:3])).winner_under(trump)


@pytest.mark.rule("PLAY-2", "PLAY-3", "PLAY-4", "JOKER-1", "JOKER-2", "ENGINE-3")
@given(st.one_of(states(phase=Phase.PLAY, trick_boundary=False), states(joker_lead=True)))
def test_a_refused_card_is_explained_in_words(state: MatchState) -> None:
    """Each refusal's sentence names the led suit, or the card a joker lead forces."""
    seat, trick = state.to_move, state.current_trick
    assert seat is not None and trick is not None
    hand = list(state.hand(seat))
    led = trick.cards[0] if trick.cards else None
    for card in hand:
        try:
            apply(state, Play(seat, card))
        except IllegalAction as refused:
            message, reason = refused.message, refused.reason
        else:
            continue
        if reason is Reason.MUST_FOLLOW_SUIT:
            assert led is not None and led.suit is not None
            assert message == f"You must follow suit: {led.suit.word} were led and you hold one."
        elif reason is Reason.MUST_FOLLOW_TRUMP:
            assert message == "A trump was led: you must follow with a trump or a joker."
        elif reason is Reason.TRUMPS_NOT_BROKEN:
            assert message.startswith("Trumps are not broken: you may not lead a trump")
        else:
            assert led is not None
            forced = oracle.joker_forced(led, hand, state.trump)
            assert forced is not None
            which = "highest" if led is Card.BIG else "lowest"
            assert message == (
                f"The {led.name} joker was led: you must play your {which} trump, {forced.words}."
            )
