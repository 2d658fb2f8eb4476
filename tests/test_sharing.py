"""Successive states share what did not change, so an action never copies the history."""

import itertools
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from backalley import Rules, apply, legal_actions, new_match
from backalley.engine.bounds import playing


def _play_until(rules: Rules, seed: int, stop: int) -> list:
    """The states of a seeded random match, up to ``stop`` actions."""
    rng = random.Random(seed)
    states = [new_match(rules, seed=seed)]
    while playing(states[-1]) and len(states) <= stop:
        states.append(apply(states[-1], rng.choice(legal_actions(states[-1]))))
    return states


@pytest.mark.rule("ENGINE-7")
@given(seed=st.integers(0, 2**64 - 1), stop=st.integers(60, 400))
def test_an_action_shares_the_history_and_earlier_tricks(seed, stop):
    """Every action after the first deal reuses the finished deals and completed tricks."""
    states = _play_until(Rules(schedule="short"), seed, stop)
    for before, after in itertools.pairwise(states):
        if after.deal is not None and before.deal is not None:
            # Within a deal the finished deals are the very same object, not a copy.
            assert after.history is before.history
            shared = min(len(before.deal.tricks), len(after.deal.tricks))
            for old, new in zip(
                before.deal.tricks[:shared], after.deal.tricks[:shared], strict=True
            ):
                assert old is new
        elif len(after.history) == len(before.history) + 1:
            # A finished deal adds one entry and keeps every earlier one.
            for old, new in zip(before.history, after.history, strict=False):
                assert old is new


@pytest.mark.rule("ENGINE-7")
def test_a_card_inside_a_trick_rebuilds_only_hands_and_trick():
    """A play that does not complete a trick keeps the deal's core and the match's core."""
    states = _play_until(Rules(schedule=[5]), 7, 40)
    checked = 0
    for before, after in itertools.pairwise(states):
        current = before.deal
        if current is None or current.leader is None or len(current.trick) == 3:
            continue
        assert after.core is before.core
        assert after.deal.core is current.core
        checked += 1
    assert checked > 0
