"""The batch engine against the reference ``apply``, at every step of every lane."""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")

from batch_reference import Twin, biased, same_lane_states  # noqa: E402

from backalley import Rules, Seat  # noqa: E402
from backalley.batch import Batch  # noqa: E402


def play(batch: Batch, twin: Twin, rng, steps: int, policy: str) -> None:
    for _ in range(steps):
        if batch.terminated.all():
            break
        actions = batch.sample_legal(rng) if policy == "uniform" else biased(batch, rng)
        twin.step(actions)


def test_uniform_standard_matches_equal_the_reference():
    batch = Batch(Rules(), seeds=range(100, 132))
    twin = Twin(batch)
    rng = np.random.default_rng(1)
    play(batch, twin, rng, 2_000, "uniform")
    assert batch.terminated.all()
    same_lane_states(batch, twin)
    assert (twin.rewards == batch.totals).all()
    assert twin.lane_steps > 25_000


# Small schedules with the tiebreak policy reach ties, tiebreak deals and level
# tiebreak deals (END-4, with an even largest hand) within a few deals.
CORNERS = [
    Rules(schedule=[2], tie="tiebreak-deal"),
    Rules(schedule=[1, 2], tie="tiebreak-deal", first_dealer="E"),
    Rules(schedule=[3, 1], tie="draw", first_dealer="S"),
    Rules(schedule="short", tie="tiebreak-deal", first_dealer="W"),
    Rules(schedule=[13, 4], tie="tiebreak-deal"),
]


@pytest.mark.parametrize("rules", CORNERS, ids=lambda rules: repr(rules.schedule))
def test_biased_matches_with_auto_reset_equal_the_reference(rules):
    batch = Batch(rules, seeds=1_000, n=48, auto_reset=True)
    twin = Twin(batch)
    rng = np.random.default_rng(len(rules.schedule))
    play(batch, twin, rng, 400, "biased")
    same_lane_states(batch, twin)
    assert twin.lane_steps >= 48 * 400 * 0.9


def test_the_corners_are_reached():
    """The biased runs do reach what they are meant to: the tests can see those rules."""
    seen = {"throw-in": 0, "board": 0, "joker led": 0, "tiebreak": 0, "level tiebreak": 0}
    batch = Batch(Rules(schedule=[2], tie="tiebreak-deal"), seeds=5, n=64, auto_reset=True)
    twin = Twin(batch)
    rng = np.random.default_rng(3)
    for _ in range(300):
        before = batch.deals.copy(), batch.tiebreak.copy(), batch.ntricks.copy()
        seen["board"] += int((batch.bids == 13).sum())
        led = batch.trick[:, 0]
        seen["joker led"] += int(((led >= 52) & (batch.ntrick == 1)).sum())
        twin.step(biased(batch, rng))
        new_deal = batch.deals > before[0]
        # A new deal straight from bidding is a throw-in; a tiebreak deal after a
        # tiebreak deal follows a level one.
        seen["throw-in"] += int((new_deal & (before[2] == 0) & ~before[1]).sum())
        seen["tiebreak"] += int((new_deal & batch.tiebreak).sum())
        seen["level tiebreak"] += int((new_deal & before[1] & batch.tiebreak).sum())
    assert all(seen.values()), seen


def test_without_auto_deal_lanes_wait_at_the_chance_step():
    batch = Batch(Rules(schedule=[1, 1]), seeds=[3, 4, 5], auto_deal=False)
    twin = Twin(batch)
    assert batch.phase.tolist() == [0, 0, 0]
    assert not batch.legal_mask().any()
    twin.step(np.array([0, 13, 14 + 5]))  # refused: the deal comes first
    twin.deal()
    rng = np.random.default_rng(0)
    while not batch.terminated.all():
        twin.step(batch.sample_legal(rng))
        if (batch.phase == 0).any():
            twin.deal()
    twin.step(np.array([0, 1, 14]))  # refused: the match is over
    same_lane_states(batch, twin)
