"""A state machine playing whole matches of every variant, checking invariants at each step."""

from __future__ import annotations

import attrs
import pytest
from hypothesis import note, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from backalley import Deal, MatchState, Phase, Rules, TiePolicy, apply, legal_actions, new_match
from backalley.core.cards import CARDS, cards_of
from backalley.pictures.text import state_text, trick_text
from backalley.strategies import decks, seeds

short_schedules = st.one_of(
    st.sampled_from(["short", "standard", "twenty-five"]),
    st.lists(st.integers(1, 13), min_size=1, max_size=4).map(tuple),
)


class MatchMachine(RuleBasedStateMachine):
    """Plays a match by drawing legal actions; a shrunk failure reads as a transcript."""

    def __init__(self) -> None:
        super().__init__()
        self.state: MatchState | None = None
        self.previous: MatchState | None = None
        self.previous_snapshot: tuple[object, ...] | None = None

    @rule(
        schedule=short_schedules,
        tie=st.sampled_from(list(TiePolicy)),
        first=st.integers(0, 3),
        seed=seeds(),
    )
    @precondition(lambda self: self.state is None or self.state.is_over)
    def start(self, schedule: str | tuple[int, ...], tie: TiePolicy, first: int, seed: int) -> None:
        self.previous = self.previous_snapshot = None
        self.state = new_match(Rules(schedule=schedule, tie=tie, first_dealer=first), seed=seed)
        note(f"new match: {self.state.rules}, seed {seed}")

    def _step(self, action: object) -> None:
        assert self.state is not None
        self.previous = self.state
        self.previous_snapshot = attrs.astuple(self.state, recurse=True)
        trick_before = len(self.state.completed_tricks)
        self.state = apply(self.state, action)  # type: ignore[arg-type]
        note(f"{action}")
        deal = self.state.deal
        if deal is not None and len(deal.tricks) > trick_before and deal.tricks:
            note(f"  trick: {trick_text(deal.tricks[-1])}")
        if self.state.phase is Phase.DEAL or self.state.is_over:
            note(state_text(self.state, show_hands=False))

    @rule(data=st.data())
    @precondition(lambda self: self.state is not None and not self.state.is_over)
    def act(self, data: st.DataObject) -> None:
        assert self.state is not None
        options = legal_actions(self.state)
        self._step(options[data.draw(st.integers(0, len(options) - 1), label="choice")])

    @rule(deck=decks())
    @precondition(lambda self: self.state is not None and self.state.phase is Phase.DEAL)
    def deal_a_deck(self, deck: tuple[object, ...]) -> None:
        self._step(Deal(deck))
        assert self.state is not None and self.state.deal is not None
        note(state_text(self.state))

    @invariant()
    def apply_left_the_previous_state_alone(self) -> None:
        if self.previous is not None:
            assert attrs.astuple(self.previous, recurse=True) == self.previous_snapshot

    @invariant()
    def no_card_lost_or_duplicated(self) -> None:
        state = self.state
        if state is None:
            return
        held = [card for seat in range(4) for card in state.hand(seat)]  # type: ignore[arg-type]
        played = [card for trick in state.completed_tricks for card in trick.cards]
        if state.current_trick is not None:
            played += list(state.current_trick.cards)
        assert sorted(held + played + list(cards_of(state.stock))) == list(CARDS)

    @invariant()
    def tricks_add_up(self) -> None:
        state = self.state
        if state is None:
            return
        assert sum(state.tricks_won) == len(state.completed_tricks) < max(state.hand_size, 1) + 1
        for result in state.history:
            if not result.thrown_in:
                assert sum(result.deal.tricks_won) == result.deal.setup.hand_size
        counted = [r for r in state.history if r.counts]
        assert [r.deal.setup.hand_size for r in counted] == list(
            state.rules.schedule[: len(counted)]
        )
        assert state.totals == (
            sum(r.scores[0] for r in state.history),
            sum(r.scores[1] for r in state.history),
        )

    @invariant()
    def phase_and_turn_agree(self) -> None:
        state = self.state
        if state is None:
            return
        phase = state.phase
        assert (state.to_move is None) == (phase in (Phase.DEAL, Phase.OVER))
        assert (phase is Phase.OVER) == (state.outcome is not None) == (legal_actions(state) == ())
        if phase is Phase.BID:
            assert state.deal is not None
            assert state.to_move == state.deal.setup.dealer.after(len(state.bids) + 1)
        if phase is Phase.PLAY:
            trick = state.current_trick
            assert trick is not None and state.to_move == trick.leader.after(len(trick.cards))
            assert state.bids == () if state.in_tiebreak else len(state.bids) == 4
        for action in legal_actions(state):
            assert getattr(action, "seat", state.to_move) == state.to_move


MatchMachine.TestCase.settings = settings(
    MatchMachine.TestCase.settings, stateful_step_count=250, max_examples=20
)


@pytest.mark.rule("ENGINE-1", "ENGINE-4", "ENGINE-6", "PLAY-1", "BID-1", "MATCH-4")
class TestMatchMachine(MatchMachine.TestCase):  # type: ignore[name-defined,misc]
    """Whole matches of every variant keep their invariants at every step."""
