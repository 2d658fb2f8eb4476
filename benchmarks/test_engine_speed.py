"""pytest-benchmark suite: ``pytest benchmarks --benchmark-only`` (needs the ``bench`` extra).

Each benchmark times one operation over a fixed sample of reachable states, so the
figures are comparable from run to run: ``legal_actions`` alone, ``apply`` alone,
the seeded deal, and a whole standard match of random legal actions.
"""

from __future__ import annotations

import random

import pytest

from backalley import Deal, MatchState, Rules, apply, legal_actions, new_match, seeded_deck
from backalley.core.actions import Action

SAMPLE_MATCHES = 4


@pytest.fixture(scope="module")
def positions() -> list[tuple[MatchState, Action]]:
    """Every player-action position of a few seeded standard matches, with the move made."""
    rng = random.Random(2026)
    found: list[tuple[MatchState, Action]] = []
    for seed in range(SAMPLE_MATCHES):
        state = new_match(Rules(), seed=seed)
        while not state.is_over:
            action = rng.choice(legal_actions(state))
            if type(action) is not Deal:
                found.append((state, action))
            state = apply(state, action)
    return found


def test_legal_actions(benchmark, positions):
    """``legal_actions`` on every sampled position."""
    benchmark(lambda: [legal_actions(state) for state, _ in positions])


def test_apply(benchmark, positions):
    """``apply`` of the recorded move on every sampled position."""
    benchmark(lambda: [apply(state, action) for state, action in positions])


def test_seeded_deck(benchmark):
    """Shuffling one deck from a seed and a deal number."""
    benchmark(seeded_deck, 2026, 7)


def test_deal(benchmark):
    """The chance step: building the seeded ``Deal`` and applying it (13 cards each)."""
    state = new_match(Rules(), seed=2026)
    benchmark(lambda: apply(state, Deal(seeded_deck(2026, 0))))


def test_standard_match(benchmark):
    """A whole 26-deal match of random legal actions through the public API."""

    def playout() -> MatchState:
        rng = random.Random(1)
        state = new_match(Rules(), seed=1)
        while not state.is_over:
            state = apply(state, rng.choice(legal_actions(state)))
        return state

    final = benchmark(playout)
    assert final.counted_deals == 26
