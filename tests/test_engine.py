"""Properties of the engine: purity, legal_actions agreeing with apply, conservation, replay."""

from __future__ import annotations

import copy

import attrs
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import rules_oracle as oracle
from backalley import (
    Action,
    Deal,
    IllegalAction,
    MatchState,
    Phase,
    Play,
    Reason,
    Rules,
    apply,
    new_match,
    seeded_deck,
)
from backalley import legal_actions as legal
from backalley.core.cards import CARDS, cards_of
from backalley.strategies import action_universe, actions, decks, rules, seeds, states


def snapshot(state: MatchState) -> tuple[object, ...]:
    """Everything in a state, deep, as plain tuples (a copy: later changes would not show)."""
    return attrs.astuple(state, recurse=True)


@st.composite
def recorded_matches(draw: st.DrawFn) -> tuple[Rules, int, list[Action]]:
    """Rules, a seed and a prefix of legal actions (some deals given as explicit decks)."""
    match_rules = draw(rules())
    seed = draw(seeds())
    state = new_match(match_rules, seed=seed)
    taken: list[Action] = []
    for _ in range(draw(st.integers(0, 120))):
        if state.is_over:
            break
        if state.phase is Phase.DEAL and draw(st.booleans()):
            action: Action = Deal(draw(decks()))
        else:
            options = legal(state)
            action = options[draw(st.integers(0, len(options) - 1))]
        taken.append(action)
        state = apply(state, action)
    return match_rules, seed, taken


def replay(match_rules: Rules, seed: int, taken: list[Action]) -> MatchState:
    state = new_match(match_rules, seed=seed)
    for action in taken:
        state = apply(state, action)
    return state


@pytest.mark.rule("ENGINE-1")
@given(states(), st.data())
def test_apply_never_changes_its_input_and_is_deterministic(
    state: MatchState, data: st.DataObject
) -> None:
    """Applying any action, accepted or refused, leaves the state as it was; twice gives equal."""
    before = snapshot(state)
    action = data.draw(actions(state))
    try:
        first = apply(state, action)
    except IllegalAction:
        assert snapshot(state) == before
        return
    assert snapshot(state) == before
    second = apply(state, action)
    assert first == second and hash(first) == hash(second)
    assert snapshot(first) == snapshot(second)


@pytest.mark.rule("ENGINE-2", "ENGINE-3", "BID-2", "PLAY-1")
@given(states())
def test_legal_actions_and_apply_agree_on_the_whole_action_universe(state: MatchState) -> None:
    """Each action of the universe is listed and accepted, or refused with its reason."""
    listed = set(legal(state))
    assert len(listed) == len(legal(state)), "no action is listed twice"
    universe = action_universe(state)
    assert listed <= set(universe)
    before = snapshot(state)
    for action in universe:
        expected = oracle.refusal(state, action)
        if action in listed:
            assert expected is None, action
            apply(state, action)
        else:
            with pytest.raises(IllegalAction) as refused:
                apply(state, action)
            assert refused.value.reason is expected, action
            assert refused.value.action == action
            assert isinstance(refused.value, ValueError) and refused.value.message
    assert snapshot(state) == before


@pytest.mark.rule("ENGINE-2", "ENGINE-5")
@given(states(phase=Phase.DEAL), decks())
def test_any_valid_deck_is_accepted_at_the_chance_step(
    state: MatchState, deck: tuple[object, ...]
) -> None:
    """At the chance step the seeded deal is listed, and a Deal of any other deck applies too."""
    assert legal(state) == (Deal(seeded_deck(state.seed, len(state.history))),)
    after = apply(state, Deal(deck))
    assert after.deal is not None and after.deal.setup.deck == tuple(deck)


@pytest.mark.rule("ENGINE-2")
@given(states(), st.data())
def test_legal_actions_all_apply(state: MatchState, data: st.DataObject) -> None:
    """A legal action drawn from `actions(state, legal=True)` applies; an illegal one is refused."""
    if state.is_over:
        assert legal(state) == ()
        return
    apply(state, data.draw(actions(state, legal=True)))
    with pytest.raises(IllegalAction):
        apply(state, data.draw(actions(state, legal=False)))


@pytest.mark.rule("ENGINE-4", "DEAL-1")
@given(states())
def test_every_card_is_accounted_for_and_hands_follow_the_schedule(state: MatchState) -> None:
    """Hands + played cards + stock hold each of the 54 cards once; hands shrink as cards fall."""
    held = [card for seat in range(4) for card in state.hand(seat)]  # type: ignore[arg-type]
    played = [card for trick in state.completed_tricks for card in trick.cards]
    current = state.current_trick
    if current is not None:
        played += list(current.cards)
    stock = list(cards_of(state.stock))
    everything = held + played + stock
    assert sorted(everything) == list(CARDS)
    if state.deal is not None:
        size = state.hand_size
        done = len(state.completed_tricks)
        assert 0 <= done < size
        assert current is not None or state.phase is Phase.BID
        for seat in range(4):
            in_trick = current is not None and any(s == seat for s, _ in current.plays)
            assert len(state.hand(seat)) == size - done - in_trick  # type: ignore[arg-type]


@pytest.mark.rule("ENGINE-4", "PLAY-7")
@given(states(phase=Phase.OVER))
def test_tricks_per_deal_equal_the_hand_size(state: MatchState) -> None:
    """Every played deal has exactly hand-size tricks, won between the pairs, each of four cards."""
    for result in state.history:
        tricks = result.deal.tricks
        if result.thrown_in:
            assert tricks == ()
            continue
        assert len(tricks) == result.deal.setup.hand_size == sum(result.deal.tricks_won)
        cards = [card for trick in tricks for card in trick.cards]
        assert len(cards) == len(set(cards)) == 4 * result.deal.setup.hand_size


@pytest.mark.rule("ENGINE-5", "ENGINE-6")
@given(recorded_matches())
def test_a_match_replays_from_rules_seed_and_actions(
    recorded: tuple[Rules, int, list[Action]],
) -> None:
    """Replaying the same actions gives an equal state, with an equal hash."""
    first = replay(*recorded)
    second = replay(*recorded)
    assert first == second
    assert hash(first) == hash(second)
    assert {first: 1}[second] == 1


@pytest.mark.rule("ENGINE-6")
@given(states(), st.data())
def test_every_action_makes_a_different_state(state: MatchState, data: st.DataObject) -> None:
    """A state equals itself rebuilt from its parts, and never the state after an action."""
    rebuilt = copy.deepcopy(state)
    assert rebuilt == state and hash(rebuilt) == hash(state)
    if not state.is_over:
        after = apply(state, data.draw(actions(state, legal=True)))
        assert after != state and snapshot(after) != snapshot(state)


@pytest.mark.rule("ENGINE-3")
@given(states(phase=Phase.PLAY), st.sampled_from(CARDS))
def test_a_card_not_held_is_refused_as_such(state: MatchState, card: object) -> None:
    """Playing a card the seat to move does not hold is refused with card_not_in_hand."""
    seat = state.to_move
    assert seat is not None
    if card in state.hand(seat):
        return
    with pytest.raises(IllegalAction) as refused:
        apply(state, Play(seat, card))  # type: ignore[arg-type]
    assert refused.value.reason.value == "card_not_in_hand"


@pytest.mark.rule("ENGINE-6")
@given(st.one_of(states(), states(phase=Phase.PLAY, no_trump=True)))
def test_a_state_shows_where_the_match_is(state: MatchState) -> None:
    """The repr of a state names the deal, hand size, phase, seat to move and totals."""
    ns, ew = state.totals
    text = repr(state)
    assert text.startswith(f"<MatchState deal #{len(state.history)}, {state.hand_size} cards, ")
    assert f", {state.phase.value}" in text and text.endswith(f"NS {ns} EW {ew}>")
    who = f", {state.to_move} to move" if state.to_move is not None else ""
    assert text == (
        f"<MatchState deal #{len(state.history)}, {state.hand_size} cards, "
        f"{state.phase.value}{who}, NS {ns} EW {ew}>"
    )
    if state.deal is not None:
        deal = state.deal
        trump = deal.trump.word if deal.trump is not None else "no trumps"
        assert repr(deal) == (
            f"<DealState #{deal.setup.number} {deal.hand_size} cards, dealer "
            f"{deal.setup.dealer}, {trump}, {deal.phase.value}, {deal.to_move} to move>"
        )


@pytest.mark.rule("ENGINE-5")
@given(decks())
def test_a_deal_shows_its_deck(deck: tuple[object, ...]) -> None:
    """A Deal's repr lists the deck's card codes in order, so a transcript can replay it."""
    text = repr(Deal(deck))
    assert text == "Deal(" + " ".join(card.code for card in deck) + ")"  # type: ignore[attr-defined]


WRONG_PHASE = {
    Phase.DEAL: "Not now: the next deal has to be dealt first.",
    Phase.BID: "Not now: the players are bidding.",
    Phase.PLAY: "Not now: the cards are being played.",
}


@pytest.mark.rule("ENGINE-3")
@given(states())
def test_an_action_of_the_wrong_phase_says_what_happens_now(state: MatchState) -> None:
    """A deal, bid or play out of its phase is refused as wrong_phase, saying what is going on."""
    if state.is_over:
        return
    wrong = [
        action
        for action in action_universe(state)
        if oracle.refusal(state, action) is Reason.WRONG_PHASE
    ]
    if state.phase is not Phase.DEAL:
        wrong.append(Deal(seeded_deck(0, 0)))
    assert wrong
    for action in wrong:
        with pytest.raises(IllegalAction) as refused:
            apply(state, action)
        assert refused.value.reason is Reason.WRONG_PHASE
        assert refused.value.message == WRONG_PHASE[state.phase]
        assert str(refused.value) == f"{WRONG_PHASE[state.phase]} [wrong_phase]"


@pytest.mark.rule("ENGINE-3", "PLAY-1", "BID-1")
@given(states(phase=Phase.PLAY), st.sampled_from(CARDS))
def test_an_action_out_of_turn_names_whose_turn_it_is(state: MatchState, card: object) -> None:
    """A play by a seat not to move is refused as not_your_turn, naming both seats."""
    seat = state.to_move
    assert seat is not None
    other = seat.left
    with pytest.raises(IllegalAction) as refused:
        apply(state, Play(other, card))  # type: ignore[arg-type]
    assert refused.value.reason is Reason.NOT_YOUR_TURN
    assert refused.value.message == (
        f"It is {seat.name.title()}'s turn, not {other.name.title()}'s."
    )


@pytest.mark.rule("TABLE-1", "CARD-1", "SCOPE-1")
@given(st.one_of(st.integers(-3, 60), st.booleans(), st.floats(), st.none()))
@example(4)
@example(54)
def test_actions_take_seats_and_cards_or_their_numbers(value: object) -> None:
    """A seat is a Seat or 0-3, a card a Card or 0-53 (never a bool); anything else is refused."""
    seat_ok = type(value) is int and 0 <= value < 4  # type: ignore[operator]
    card_ok = type(value) is int and 0 <= value < 54  # type: ignore[operator]
    if seat_ok:
        assert Play(value, 0).seat == value  # type: ignore[arg-type]
    else:
        with pytest.raises(TypeError) as refused:
            Play(value, 0)  # type: ignore[arg-type]
        assert (
            str(refused.value)
            == f"a seat must be a Seat (or 0-3, or 'N', 'E', 'S', 'W'), not {value!r}"
        )
    if card_ok:
        assert Play(0, value).card == value  # type: ignore[arg-type]
    else:
        with pytest.raises(TypeError) as refused:
            Play(0, value)  # type: ignore[arg-type]
        assert str(refused.value) == (
            f"a card must be a Card (or its number 0-53), not {value!r}; Card.parse reads 'AS'"
        )
