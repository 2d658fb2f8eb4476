"""Properties of scoring: numeric targets, passes, Boards, each pair on its own contract."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

import rules_oracle as oracle
from backalley import Contract, MatchState, Phase, apply, legal_actions, score
from backalley.strategies import states

sizes = st.integers(1, 13)


@st.composite
def numeric(draw: st.DrawFn) -> tuple[int, int, int]:
    """A hand size, a numeric target (up to two bids of size - 1) and tricks taken."""
    size = draw(sizes)
    return size, draw(st.integers(0, 2 * (size - 1))), draw(st.integers(0, size))


@pytest.mark.rule("SCORE-2")
@given(numeric())
def test_a_made_target_scores_five_a_trick_bid_and_one_an_overtrick(
    case: tuple[int, int, int],
) -> None:
    """t >= b scores 5b + (t - b); t < b scores -5b."""
    size, b, t = case
    points = score(Contract(b), hand_size=size, tricks=t)
    if t >= b:
        assert points == 5 * b + (t - b)
    else:
        assert points == -5 * b
    assert points == oracle.contract_points(Contract(b), size, t)


@pytest.mark.rule("SCORE-2")
@given(numeric())
def test_one_more_trick_is_worth_at_least_one_point(case: tuple[int, int, int]) -> None:
    """Scores never fall as tricks rise; making the target jumps by 10b (from -5b to 5b)."""
    size, b, t = case
    if t < size:
        now = score(Contract(b), hand_size=size, tricks=t)
        more = score(Contract(b), hand_size=size, tricks=t + 1)
        assert more - now == (10 * b if t + 1 == b else 1 if t >= b else 0)


@pytest.mark.rule("SCORE-3")
@given(sizes, st.data())
def test_a_pair_that_passed_twice_scores_a_point_a_trick(size: int, data: st.DataObject) -> None:
    """Target 0 scores exactly the tricks taken."""
    t = data.draw(st.integers(0, size))
    assert score(Contract(0), hand_size=size, tricks=t) == t


@pytest.mark.rule("SCORE-4")
@given(sizes, st.integers(1, 4), st.data())
def test_board_scores_ten_a_trick_times_the_multiplier_all_or_nothing(
    size: int, m: int, data: st.DataObject
) -> None:
    """All h tricks score +10hm; any fewer score -10hm."""
    t = data.draw(st.integers(0, size))
    expected = 10 * size * m if t == size else -10 * size * m
    assert score(Contract(0, m), hand_size=size, tricks=t) == expected


@pytest.mark.rule("SCORE-1", "SCORE-2", "SCORE-3", "SCORE-4", "BID-5", "BID-6")
@given(states(phase=Phase.PLAY, trick_boundary=True), st.randoms(use_true_random=True))
def test_each_pair_is_settled_on_its_own_contract(state: MatchState, rng: random.Random) -> None:
    """Playing a deal out, each pair's score is its own contract against its own tricks."""
    size, bids, before = state.hand_size, list(state.bids), len(state.history)
    while len(state.history) == before:
        options = legal_actions(state)
        state = apply(state, options[rng.randrange(len(options))])
    result = state.history[before]
    won = result.deal.tricks_won
    assert sum(won) == size == len(result.deal.tricks)
    if result.deal.setup.tiebreak:
        assert result.scores == (0, 0)
        return
    expected = tuple(
        oracle.contract_points(oracle.pair_contract(bids, pair), size, won[pair]) for pair in (0, 1)
    )
    assert result.scores == expected
