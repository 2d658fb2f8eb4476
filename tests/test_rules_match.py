"""Properties of match flow: dealers, throw-ins, the schedule, the end and the tiebreak deal."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from backalley import (
    Bid,
    Deal,
    IllegalAction,
    MatchState,
    Pair,
    Phase,
    Play,
    Reason,
    Rules,
    Termination,
    TiePolicy,
    apply,
    legal_actions,
    new_match,
    seeded_deck,
)
from backalley.engine.bounds import playing
from backalley.strategies import rules, seeds, states


def play_out(state: MatchState, rng: random.Random, *, deals: int | None = None) -> MatchState:
    """Play random legal actions until the match ends (or ``deals`` more deals have finished)."""
    stop = None if deals is None else len(state.history) + deals
    while playing(state) and (stop is None or len(state.history) < stop):
        options = legal_actions(state)
        state = apply(state, options[rng.randrange(len(options))])
    return state


@pytest.mark.rule("MATCH-2")
@given(states())
def test_the_deal_passes_clockwise_after_every_deal(state: MatchState) -> None:
    """Deal n of the match, thrown in or not, is dealt by the seat n places left of the first."""
    first = state.rules.first_dealer
    for n, result in enumerate(state.history):
        assert result.deal.setup.dealer == first.after(n)
        assert result.deal.setup.number == n
    assert state.dealer == first.after(len(state.history))
    if state.deal is not None:
        assert state.deal.setup.dealer == state.dealer


@pytest.mark.rule("MATCH-3", "MATCH-2")
@given(states(throw_in=True, phase=Phase.DEAL))
def test_four_passes_throw_the_deal_in(state: MatchState) -> None:
    """After four passes: no score, the next dealer deals, and the hand size is the same."""
    thrown = state.history[-1]
    assert thrown.thrown_in and not thrown.counts
    assert all(bid.is_pass for bid in thrown.deal.bids) and len(thrown.deal.bids) == 4
    assert thrown.scores == (0, 0)
    for seat in thrown.deal.setup.dealer.pair.seats + thrown.deal.setup.dealer.left.pair.seats:
        assert len(thrown.deal.hand(seat)) == thrown.deal.setup.hand_size
    assert state.phase is Phase.DEAL
    assert state.hand_size == thrown.deal.setup.hand_size
    assert state.dealer == thrown.deal.setup.dealer.left
    redealt = apply(state, legal_actions(state)[0])
    assert redealt.hand_size == thrown.deal.setup.hand_size
    assert redealt.to_move == state.dealer.left


@pytest.mark.rule("MATCH-3")
@given(states(phase=Phase.BID))
def test_only_four_passes_throw_in(state: MatchState) -> None:
    """Completing a circuit throws the deal in exactly when all four bids are Pass."""
    while state.phase is Phase.BID:
        state = apply(state, legal_actions(state)[0])
    last = state.history[-1] if state.deal is None else None
    assert (last is not None and last.thrown_in) == (state.phase is Phase.DEAL)


@pytest.mark.rule("MATCH-4", "SCHED-1", "SCHED-2", "SCHED-3", "SCHED-4")
@given(states(), st.randoms(use_true_random=True))
def test_counted_deals_follow_the_schedule(state: MatchState, rng: random.Random) -> None:
    """The deals that count, in order, have the schedule's hand sizes; throw-ins do not count."""
    counted = [r for r in state.history if r.counts]
    assert state.counted_deals == len(counted)
    sizes = [r.deal.setup.hand_size for r in counted]
    assert sizes == list(state.rules.schedule[: len(sizes)])
    thrown = [r for r in state.history if r.thrown_in]
    for result in thrown:
        assert result.deal.leader is None
    if state.deal is not None and not state.in_tiebreak:
        assert state.hand_size == state.rules.schedule[state.counted_deals]


@pytest.mark.rule("MATCH-4")
@given(states(throw_in=True, phase=Phase.DEAL))
def test_a_thrown_in_deal_does_not_advance_the_schedule(state: MatchState) -> None:
    """After a throw-in the counted deals are those before it and the same size is next."""
    before = [r for r in state.history[:-1] if r.counts]
    assert state.counted_deals == len(before)
    assert state.hand_size == state.rules.schedule[len(before)]


@pytest.mark.rule("END-1", "END-2", "ENGINE-6")
@given(states(phase=Phase.OVER))
def test_the_higher_total_wins_and_equal_totals_draw_or_tiebreak(state: MatchState) -> None:
    """A finished match names the pair with the higher total; a tie is a draw or a tiebreak."""
    outcome = state.outcome
    assert outcome is not None and state.phase is Phase.OVER and not legal_actions(state)
    counted = [r for r in state.history if r.counts]
    assert len(counted) == state.rules.deals
    totals = (sum(r.scores[0] for r in counted), sum(r.scores[1] for r in counted))
    assert outcome.totals == totals == state.totals
    tiebreaks = [r for r in state.history if r.deal.setup.tiebreak]
    if totals[0] != totals[1]:
        assert outcome.termination is Termination.SCORE
        assert outcome.winner == (Pair.NORTH_SOUTH if totals[0] > totals[1] else Pair.EAST_WEST)
        assert not tiebreaks
    elif state.rules.tie is TiePolicy.DRAW:
        assert outcome.termination is Termination.DRAW and outcome.winner is None
        assert not tiebreaks
    else:
        assert outcome.termination is Termination.TIEBREAK_DEAL
        ns, ew = tiebreaks[-1].deal.tricks_won
        assert outcome.winner == (Pair.NORTH_SOUTH if ns > ew else Pair.EAST_WEST)


@pytest.mark.rule("END-1", "ENGINE-3")
@given(states(phase=Phase.OVER), st.sampled_from([Bid(0), Play(0, 0)]))
def test_nothing_is_accepted_after_the_match(state: MatchState, action: Bid | Play) -> None:
    """After the match every action, a deal included, is refused as match_over."""
    for refused in (action, Deal(seeded_deck(0, 0))):
        with pytest.raises(IllegalAction) as caught:
            apply(state, refused)
        assert caught.value.reason is Reason.MATCH_OVER


@pytest.mark.rule("END-3")
@given(states(tiebreak=True, phase=Phase.PLAY), st.randoms(use_true_random=True))
def test_the_tiebreak_deal(state: MatchState, rng: random.Random) -> None:
    """No bidding, largest hand size, next dealer, led from the dealer's left; tricks decide."""
    assert state.in_tiebreak and state.deal is not None
    setup = state.deal.setup
    assert setup.tiebreak and not state.bids and state.contracts is None
    assert state.hand_size == max(state.rules.schedule)
    assert setup.dealer == state.rules.first_dealer.after(len(state.history))
    first = state.completed_tricks[0] if state.completed_tricks else state.current_trick
    assert first is not None and first.leader == setup.dealer.left
    totals = state.totals
    assert totals[0] == totals[1]
    state = play_out(state, rng, deals=1)
    result = state.history[-1]
    ns, ew = result.deal.tricks_won
    assert result.scores == (0, 0) and state.totals == totals
    if ns != ew:
        assert state.outcome is not None
        assert state.outcome.termination is Termination.TIEBREAK_DEAL
        assert state.outcome.winner == (Pair.NORTH_SOUTH if ns > ew else Pair.EAST_WEST)
        assert state.outcome.totals == totals


@pytest.mark.rule("END-4")
@given(
    states(
        rules(
            schedule=st.sampled_from([(2, 2), (4, 1, 1, 4)]), tie=st.just(TiePolicy.TIEBREAK_DEAL)
        ),
        tiebreak=True,
        phase=Phase.PLAY,
    ),
    st.randoms(use_true_random=True),
)
def test_a_level_tiebreak_deal_is_followed_by_another(
    state: MatchState, rng: random.Random
) -> None:
    """Equal tricks in a tiebreak deal lead to another, dealt by the next dealer."""
    dealer = state.dealer
    state = play_out(state, rng, deals=1)
    ns, ew = state.history[-1].deal.tricks_won
    if ns == ew:
        assert not state.is_over and state.in_tiebreak and state.phase is Phase.DEAL
        assert state.dealer == dealer.left
        state = apply(state, legal_actions(state)[0])
        assert state.deal is not None and state.deal.setup.tiebreak
        assert state.phase is Phase.PLAY and state.to_move == dealer.left.left
    else:
        assert state.is_over


@pytest.mark.rule("SCOPE-1")
@given(states())
def test_the_only_actions_are_deal_bid_and_play(state: MatchState) -> None:
    """Every legal action is a Deal, a Pass/number/Board Bid or a Play: no other variant exists."""
    for action in legal_actions(state):
        assert type(action) in (Deal, Bid, Play)
        if isinstance(action, Bid):
            assert action.board or 0 <= action.amount < state.hand_size


@pytest.mark.rule("ENGINE-6")
@given(rules(), seeds(), st.randoms(use_true_random=True))
def test_every_match_ends(match_rules: Rules, seed: int, rng: random.Random) -> None:
    """Random legal play always reaches the end, within a bound on the number of deals."""
    state = play_out(new_match(match_rules, seed=seed), rng)
    assert state.is_over and state.outcome is not None
    assert state.counted_deals == match_rules.deals
