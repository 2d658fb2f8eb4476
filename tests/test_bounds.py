"""The bound on endless matches: throw-ins in a row and tiebreak deals, set small here."""

from __future__ import annotations

import random

import pytest

from backalley import Bid, MatchState, Play, Rules, apply, legal_actions, new_match
from backalley.engine import bounds
from backalley.engine.bounds import EndlessMatch, check_bounds, playing
from backalley.engine.view import SeatView
from backalley.players import PlayerError, play_match


def _passer(seen: SeatView, legal: tuple[Bid | Play, ...]) -> Bid | Play:
    return legal[0]


def test_playing_is_false_once_the_match_is_over() -> None:
    """``playing`` says whether the match goes on: True at the start, False at its end."""
    rng = random.Random(3)
    state = new_match(Rules(schedule=[2, 1]), seed=3)
    assert playing(state) is True
    steps = 0
    while playing(state):
        state = apply(state, rng.choice(legal_actions(state)))
        steps += 1
    assert state.is_over
    assert steps > 4


def test_the_run_plays_under_small_bounds() -> None:
    """``tests/conftest.py`` sets both bounds to 50 for the run: the library reads them."""
    state = new_match(Rules(schedule=[1]), seed=1)
    with pytest.raises(EndlessMatch, match="51 deals in a row were thrown in"):
        while playing(state):
            state = apply(state, legal_actions(state)[0])
    assert bounds.MAX_TIEBREAK_DEALS == 50


@pytest.mark.library_bounds
def test_a_test_marked_library_bounds_runs_under_the_librarys_own() -> None:
    """The mark leaves the library's bound (what its docstrings show) in place."""
    state = new_match(Rules(schedule=[1]), seed=1)
    with pytest.raises(EndlessMatch) as stopped:
        while playing(state):
            state = apply(state, legal_actions(state)[0])
    bound = bounds.MAX_THROW_INS_IN_A_ROW
    assert bound > 50
    assert f"{bound + 1} deals in a row were thrown in, more than the bound of {bound}" in str(
        stopped.value
    )


def test_a_run_of_throw_ins_past_the_bound_is_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the bound set to 3, the fourth throw-in in a row stops the loop, in a sentence."""
    monkeypatch.setattr(bounds, "MAX_THROW_INS_IN_A_ROW", 3)
    state = new_match(Rules(schedule=[1]), seed=1)
    with pytest.raises(EndlessMatch, match="4 deals in a row were thrown in") as stopped:
        while playing(state):
            state = apply(state, legal_actions(state)[0])
    assert "more than the bound of 3" in str(stopped.value)
    assert len(state.history) == 4
    assert all(result.thrown_in for result in state.history)


def test_throw_ins_that_are_not_in_a_row_do_not_count(monkeypatch: pytest.MonkeyPatch) -> None:
    """A deal that is played breaks the run: only throw-ins one after the other count."""
    monkeypatch.setattr(bounds, "MAX_THROW_INS_IN_A_ROW", 1)
    state = new_match(Rules(schedule=[3, 3, 3]), seed=2)
    rng = random.Random(2)
    thrown = 0
    while playing(state):
        legal = legal_actions(state)
        bids = state.bids if state.deal is not None else ()
        # Throw every other deal in; bid a number in the others.
        if isinstance(legal[0], Bid) and len(state.history) % 2 == 0:
            action = legal[0]
        elif isinstance(legal[0], Bid) and len(bids) == 3:
            action = legal[1]
        else:
            action = rng.choice(legal)
        state = apply(state, action)
        thrown = sum(result.thrown_in for result in state.history)
    assert state.is_over
    assert thrown >= 2


def test_the_driver_stops_endless_throw_ins(monkeypatch: pytest.MonkeyPatch) -> None:
    """``play_match`` stops players that always pass at the bound, with a PlayerError."""
    monkeypatch.setattr(bounds, "MAX_THROW_INS_IN_A_ROW", 2)
    with pytest.raises(PlayerError, match="3 deals in a row were thrown in") as stopped:
        play_match([_passer] * 4, Rules(schedule=[1]), seed=1)
    assert stopped.value.seat is None


def _two_tiebreaks() -> MatchState:
    """A match that played two tiebreak deals (equal tricks in the first), found by search."""
    for seed in range(400):
        rng = random.Random(seed)
        state = new_match(Rules(schedule=[2], tie="tiebreak-deal"), seed=seed)
        while playing(state):
            state = apply(state, rng.choice(legal_actions(state)))
            if sum(result.deal.setup.tiebreak for result in state.history) >= 2:
                return state
    raise AssertionError("no match of 400 played two tiebreak deals")  # pragma: no cover


def test_tiebreak_deals_past_the_bound_are_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the bound set to 1, a second tiebreak deal stops the match; at 2 it goes on."""
    state = _two_tiebreaks()
    monkeypatch.setattr(bounds, "MAX_TIEBREAK_DEALS", 2)
    check_bounds(state)
    monkeypatch.setattr(bounds, "MAX_TIEBREAK_DEALS", 1)
    with pytest.raises(EndlessMatch, match="2 tiebreak deals were played, more than the bound"):
        check_bounds(state)


def test_the_openspiel_game_stops_endless_throw_ins(monkeypatch: pytest.MonkeyPatch) -> None:
    """The OpenSpiel adapter checks the bound as each deal begins."""
    pyspiel = pytest.importorskip("pyspiel")
    pytest.importorskip("backalley.openspiel")  # registers the game
    monkeypatch.setattr(bounds, "MAX_THROW_INS_IN_A_ROW", 2)
    game = pyspiel.load_game("python_back_alley", {"schedule": "1/1"})
    state = game.new_initial_state()
    rng = random.Random(4)
    with pytest.raises(EndlessMatch, match="3 deals in a row were thrown in"):
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.legal_actions()))
            else:
                state.apply_action(state.legal_actions()[0])  # pass
