"""Successive states share what did not change, so an action never copies the history."""

import itertools
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from backalley import Rules, apply, legal_actions, new_match
from backalley.core.position import BIDS, HANDS, PLAYED, RULES, TRICK
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
        if after.setup is not None and after.setup is before.setup:
            # Within a deal the finished deals and what was dealt are the very same
            # objects, and so are the completed tricks' cards until a trick completes.
            assert after.history is before.history
            if len(after.position[PLAYED]) == len(before.position[PLAYED]):
                assert after.position[PLAYED] is before.position[PLAYED]
        elif len(after.history) == len(before.history) + 1:
            # A finished deal adds one entry and keeps every earlier one.
            for old, new in zip(before.history, after.history, strict=False):
                assert old is new


@pytest.mark.rule("ENGINE-7")
def test_a_card_inside_a_trick_rebuilds_only_hands_and_trick():
    """A play that does not complete a trick makes a new position sharing all but three fields.

    The hands and the trick: the other fields of the position are the same values
    (its tuples the very same objects), and the state keeps the seed, the finished
    deals and the deal's setup.
    """
    states = _play_until(Rules(schedule=[5]), 7, 40)
    checked = 0
    for before, after in itertools.pairwise(states):
        current = before.deal
        if current is None or current.leader is None or len(current.trick) == 3:
            continue
        assert after.history is before.history
        assert after.setup is before.setup
        changed = {
            index
            for index, (old, new) in enumerate(zip(before.position, after.position, strict=True))
            if old != new
        }
        assert changed <= {HANDS, TRICK}
        # The tuples of the deal are shared, not copied (the plain ints may be boxed anew
        # by the compiled build, so only the tuples are compared by identity).
        for field in (BIDS, PLAYED, RULES):
            assert after.position[field] is before.position[field]
        checked += 1
    assert checked > 0
