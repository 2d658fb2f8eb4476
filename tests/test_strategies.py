"""The strategies steer where they say: each keyword of `states()` gives the state it names."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from backalley import Card, Deal, MatchState, Phase, Rules, TiePolicy, legal_actions
from backalley.core.cards import CARDS
from backalley.strategies import action_universe, actions, decks, rules, schedules, states


@pytest.mark.rule("SCHED-4", "MATCH-1", "END-2")
@given(rules())
def test_rules_are_valid_settings(match_rules: Rules) -> None:
    """Drawn rules have a schedule of 1-13 card deals, a tie policy and a first dealer."""
    assert all(1 <= size <= 13 for size in match_rules.schedule) and match_rules.schedule
    assert match_rules.tie in set(TiePolicy)


@pytest.mark.rule("SCHED-4")
@given(schedules(max_deals=3))
def test_schedules_are_names_or_short_lists(schedule: str | tuple[int, ...]) -> None:
    """A drawn schedule is a known name or a tuple of at most max_deals hand sizes."""
    assert Rules(schedule=schedule).deals <= 3 or isinstance(schedule, str)


@pytest.mark.rule("CARD-1")
@given(decks())
def test_decks_are_permutations(deck: tuple[Card, ...]) -> None:
    """A drawn deck holds every card once."""
    assert sorted(deck) == list(CARDS)


@pytest.mark.rule("ENGINE-2")
@given(st.sampled_from(list(Phase)), st.data())
def test_states_are_in_the_phase_asked_for(phase: Phase, data: st.DataObject) -> None:
    """`states(phase=...)` gives a state in that phase."""
    assert data.draw(states(phase=phase)).phase is phase


@pytest.mark.rule("DEAL-3")
@given(st.booleans(), st.data())
def test_no_trump_steers_the_turned_card(no_trump: bool, data: st.DataObject) -> None:
    """`no_trump=True` turns a joker, `False` a plain card, in the deal in progress."""
    state = data.draw(states(phase=Phase.PLAY, no_trump=no_trump))
    assert state.deal is not None and state.deal.setup.turned.is_joker == no_trump


@pytest.mark.rule("BID-4")
@given(st.booleans(), st.data())
def test_boards_steers_the_bids(boards: bool, data: st.DataObject) -> None:
    """`boards=True` puts a Board in the deal's bids; `False` none (one-card deals aside)."""
    state = data.draw(states(phase=Phase.BID, boards=boards))
    said = any(bid.board for bid in state.bids)
    assert said if boards else not said


@pytest.mark.rule("MATCH-3")
@given(st.sampled_from([Phase.DEAL, Phase.BID, Phase.PLAY]), st.data())
def test_throw_in_steers_to_after_a_throw_in(phase: Phase, data: st.DataObject) -> None:
    """`throw_in=True` gives a state after four passes, in the redeal if a phase asks for it."""
    state = data.draw(states(throw_in=True, phase=phase))
    assert state.phase is phase and state.history and state.history[-1].thrown_in


@pytest.mark.rule("PLAY-1")
@given(st.booleans(), st.data())
def test_trick_boundary_steers_the_current_trick(boundary: bool, data: st.DataObject) -> None:
    """`trick_boundary=True` gives an empty current trick, `False` one with 1-3 cards."""
    trick = data.draw(states(phase=Phase.PLAY, trick_boundary=boundary)).current_trick
    assert trick is not None and (len(trick.cards) == 0) == boundary


@pytest.mark.rule("MATCH-4")
@given(states(last_deal=True, phase=Phase.BID))
def test_last_deal_is_the_schedules_last(state: MatchState) -> None:
    """`last_deal=True` gives a state in the schedule's last counted deal."""
    assert state.counted_deals == state.rules.deals - 1
    assert state.hand_size == state.rules.schedule[-1]


@pytest.mark.rule("END-3")
@given(states(tiebreak=True))
def test_tiebreak_steers_into_a_tiebreak_deal(state: MatchState) -> None:
    """`tiebreak=True` gives a state with equal totals after the schedule, before or in the deal."""
    assert state.in_tiebreak and state.totals[0] == state.totals[1]


@pytest.mark.rule("JOKER-1", "JOKER-2")
@given(states(joker_lead=True))
def test_joker_lead_steers_to_a_joker_led_trick(state: MatchState) -> None:
    """`joker_lead=True` gives a trick in progress led by BIG or LITTLE."""
    trick = state.current_trick
    assert trick is not None and 1 <= len(trick.cards) <= 3 and trick.cards[0].is_joker


@pytest.mark.rule("ENGINE-2")
def test_contradictory_wishes_are_refused() -> None:
    """Asking for bidding in a tiebreak deal, or a joker lead outside play, is an error."""
    with pytest.raises(ValueError, match="no bidding"):
        states(tiebreak=True, phase=Phase.BID).example()
    with pytest.raises(ValueError, match="joker_lead"):
        states(joker_lead=True, phase=Phase.BID).example()
    with pytest.raises(ValueError, match="needs a state"):
        actions(legal=True)


@pytest.mark.rule("ENGINE-2", "SCOPE-1")
@given(states(), st.data())
def test_actions_are_legal_or_illegal_as_asked(state: MatchState, data: st.DataObject) -> None:
    """`actions(state, legal=True)` draws a legal action, `legal=False` an illegal one."""
    listed = set(legal_actions(state))
    if not state.is_over:
        chosen = data.draw(actions(state, legal=True))
        assert chosen in listed or (state.phase is Phase.DEAL and isinstance(chosen, Deal))
    refused = data.draw(actions(state, legal=False))
    assert refused not in listed and not (state.phase is Phase.DEAL and isinstance(refused, Deal))
    assert data.draw(actions()) is not None
    assert len(action_universe(state)) == 284 + (state.phase is Phase.DEAL)
