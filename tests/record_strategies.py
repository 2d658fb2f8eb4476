"""Hypothesis strategies shared by the record, JSON and command-line tests: played states."""

from __future__ import annotations

import random

from hypothesis import strategies as st

from backalley import MatchState, Rules, Seat, apply, legal_actions, new_match

RULES = (
    Rules(schedule=[3, 2, 1]),
    Rules(schedule=[1], tie="tiebreak-deal", first_dealer=Seat.WEST),
    Rules(schedule=[2, 2], tie="tiebreak-deal", first_dealer=Seat.SOUTH),
    Rules(schedule="short"),
)


def play(rules: Rules, seed: int, chooser_seed: int, steps: int) -> MatchState:
    """The state after up to ``steps`` random legal actions (fewer if the match ends)."""
    chooser = random.Random(chooser_seed)
    state = new_match(rules, seed=seed)
    for _ in range(steps):
        if state.is_over:
            break
        state = apply(state, chooser.choice(legal_actions(state)))
    return state


@st.composite
def played_states(draw: st.DrawFn, max_steps: int = 250) -> MatchState:
    """A state reached by random legal play from a new match, under one of a few rule sets."""
    return play(
        draw(st.sampled_from(RULES)),
        draw(st.integers(0, 2**64 - 1)),
        draw(st.integers(0, 2**32)),
        draw(st.integers(0, max_steps)),
    )
