"""The batch engine against the reference ``apply``, at every step of every lane."""

from __future__ import annotations

import zlib
from collections.abc import Iterator

import pytest

np = pytest.importorskip("numpy")

# After the skip: these need numpy.
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from backalley import Reason, Rules, Seat, apply, new_match, seeded_deal  # noqa: E402
from backalley.batch import REASON_CODES, Batch, reason_code, reasons  # noqa: E402
from backalley.batch import _dealing as batch_dealing  # noqa: E402
from backalley.batch._dealing import deal_decks, seeded_decks  # noqa: E402
from backalley.core.dealing import deal_hands, seeded_deck  # noqa: E402
from batch_reference import Twin, biased, same_lane_states  # noqa: E402


def play(batch: Batch, twin: Twin, rng, steps: int, policy: str) -> None:
    for _ in range(steps):
        if batch.terminated.all():
            break
        actions = batch.sample_legal(rng) if policy == "uniform" else biased(batch, rng)
        # Both policies choose legal actions only: nothing may be refused.
        assert not twin.step(actions).any()


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


@pytest.mark.parametrize("rules", CORNERS[:4], ids=lambda rules: repr(rules.schedule))
def test_observations_equal_the_adapters_encoding_of_each_seats_view(rules):
    batch = Batch(rules, seeds=77, n=12, auto_reset=True)
    twin = Twin(batch, observe=True)
    play(batch, twin, np.random.default_rng(5), 120, "biased")
    assert twin.lane_steps > 1_000


def test_an_observation_hides_the_other_hands():
    batch = Batch(Rules(), seeds=3, n=4)
    for seat in range(4):
        seen = batch.observe(seat)
        hand = slice(30, 84)
        for lane in range(4):
            cards = np.flatnonzero(seen[lane, hand]).tolist()
            assert cards == [int(card) for card in batch.lane_state(lane).hand(Seat(seat))]
    # A seat per lane: each lane's row is the one of its own seat.
    mixed = batch.observe(np.array([0, 1, 2, 3]))
    for lane in range(4):
        assert (mixed[lane] == batch.observe(lane)[lane]).all()
    with pytest.raises(ValueError, match="seats run from 0 to 3"):
        batch.observe(4)


def _steps(most: int = 5_000) -> Iterator[int]:
    """The steps of a loop that must end; past ``most`` the test fails, as it should if deals
    are thrown in without end (the batch engine has no ``engine.bounds``: it is not a state)."""
    yield from range(most)
    raise AssertionError(f"the lanes did not finish within {most} steps: an endless match")


def test_sample_legal_is_uniform_over_the_legal_actions():
    """Many lanes in one position: every legal action is drawn about equally often."""
    lanes = 8_000
    batch = Batch(Rules(schedule=[5]), seeds=[9] * lanes)
    rng = np.random.default_rng(2)
    checked = 0
    for _ in _steps():
        if batch.terminated[0]:
            break
        mask = batch.legal_mask()[0]
        legal = np.flatnonzero(mask)
        counts = np.bincount(batch.sample_legal(rng), minlength=68)
        assert counts[~mask].sum() == 0
        expected = lanes / legal.size
        # Within five standard deviations of a binomial count.
        assert (abs(counts[legal] - expected) < 5 * np.sqrt(expected)).all(), counts[legal]
        checked += legal.size > 1
        # Everyone bids Board (so that the cards are played), then plays its lowest card.
        batch.step(np.full(lanes, legal[-1] if batch.phase[0] == 1 else legal[0]))
    assert checked >= 10


def test_without_auto_deal_lanes_wait_at_the_chance_step():
    batch = Batch(Rules(schedule=[1, 1]), seeds=[3, 4, 5], auto_deal=False)
    twin = Twin(batch)
    assert batch.phase.tolist() == [0, 0, 0]
    assert not batch.legal_mask().any()
    twin.step(np.array([0, 13, 14 + 5]))  # refused: the deal comes first
    twin.deal()
    rng = np.random.default_rng(0)
    for _ in _steps():
        if batch.terminated.all():
            break
        twin.step(batch.sample_legal(rng))
        if (batch.phase == 0).any():
            twin.deal()
    twin.step(np.array([0, 1, 14]))  # refused: the match is over
    same_lane_states(batch, twin)


# --- arbitrary actions, legal or not --------------------------------------------

SMALL_RULES = [
    Rules(schedule=[1]),
    Rules(schedule=[2], tie="tiebreak-deal"),
    Rules(schedule=[3, 2], first_dealer="W"),
]

# An action is either any index at all (mostly illegal) or the k-th legal one.
MOVES = st.one_of(
    st.integers(-1, 67),
    st.integers(0, 67).map(lambda k: ("legal", k)),
)


@st.composite
def scripts(draw):
    rules = draw(st.sampled_from(SMALL_RULES))
    n = draw(st.integers(1, 4))
    seeds = draw(st.lists(st.integers(0, 2**64 - 1), min_size=n, max_size=n))
    auto_deal = draw(st.booleans())
    steps = draw(
        st.lists(
            st.tuples(
                st.lists(MOVES, min_size=n, max_size=n),
                st.none() | st.lists(st.integers(0, 3), min_size=n, max_size=n),
                st.booleans(),
            ),
            max_size=40,
        )
    )
    return rules, seeds, auto_deal, steps


@given(scripts())
def test_illegal_actions_are_refused_per_lane_with_the_reference_reason(script):
    rules, seeds, auto_deal, steps = script
    batch = Batch(rules, seeds=seeds, auto_deal=auto_deal)
    twin = Twin(batch)
    for moves, seats, deal_now in steps:
        mask = batch.legal_mask()
        actions = []
        for lane, move in enumerate(moves):
            if isinstance(move, tuple):
                legal = np.flatnonzero(mask[lane])
                actions.append(int(legal[move[1] % legal.size]) if legal.size else -1)
            else:
                actions.append(move)
        twin.step(np.array(actions), None if seats is None else np.array(seats))
        if deal_now and not auto_deal:
            twin.deal()
    same_lane_states(batch, twin)


def test_bad_input_is_refused_whole_and_changes_nothing():
    batch = Batch(Rules(schedule=[2]), seeds=[1, 2])
    hands = batch.hands.copy()
    for actions, words in (
        (np.array([0]), "one per lane"),
        (np.array([0, 68]), "68 is out of range"),
        (np.array([-2, 0]), "-2 is out of range"),
        (np.array([0.0, 1.0]), "whole numbers"),
    ):
        with pytest.raises(ValueError, match=words):
            batch.step(actions)
    with pytest.raises(ValueError, match="seats run from 0 to 3"):
        batch.step(np.array([0, 0]), seats=np.array([0, 4]))
    assert (batch.hands == hands).all()
    assert batch.phase.tolist() == [1, 1]
    assert batch.actions_of(0) == [] and batch.actions_of(1) == []
    with pytest.raises(ValueError, match="lanes run from 0 to 1"):
        batch.lane_state(2)
    with pytest.raises(TypeError, match="rules must be"):
        Batch("standard", seeds=[1])
    with pytest.raises(ValueError, match="a seed"):
        Batch(seeds=[-1])
    with pytest.raises(ValueError, match="at least one lane"):
        Batch(seeds=[])
    with pytest.raises(ValueError, match="whole number from 1"):
        Batch(seeds=5, n=0)
    with pytest.raises(TypeError, match="give the number of lanes"):
        Batch(seeds=5)
    with pytest.raises(ValueError, match="n is 3 but 2 seeds"):
        Batch(seeds=[1, 2], n=3)


def test_refusal_codes_name_the_reasons():
    assert reasons([0, *range(1, len(REASON_CODES) + 1)]) == [None, *Reason]
    assert all(reasons([reason_code(reason)]) == [reason] for reason in Reason)
    assert reason_code(None) == 0


def test_a_lane_is_the_reference_match_of_its_seed():
    """Lane i of a batch with base seed s deals exactly new_match(rules, seed=s + i)."""
    batch = Batch(Rules(), seeds=41, n=3)
    for lane in range(3):
        start = new_match(Rules(), seed=41 + lane)
        state = apply(start, seeded_deal(start))
        assert tuple(batch.hands[lane].tolist()) == state.deal.hands
        assert batch.lane_state(lane) == state
    assert batch.to_move.tolist() == [int(Seat.EAST)] * 3


# --- the long profile: millions of lane-steps (pytest -m slow) ---------------------


@pytest.mark.slow
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("policy", ["uniform", "biased"])
@pytest.mark.parametrize("rules", [Rules(), *CORNERS], ids=lambda rules: repr(rules.schedule))
def test_long_differential_run(rules, policy):
    batch = Batch(rules, seeds=7_000_000, n=256, auto_reset=True)
    twin = Twin(batch)
    rng = np.random.default_rng(zlib.crc32(repr((rules, policy)).encode()))
    play(batch, twin, rng, 1_000, policy)
    same_lane_states(batch, twin)
    assert twin.lane_steps >= 200_000


# --- dealing many lanes at once -------------------------------------------------------


def test_vectorized_decks_and_deals_are_the_cores():
    rng = np.random.default_rng(11)
    seeds = [int(seed) for seed in rng.integers(0, 2**63, 600, dtype=np.int64)] + [0, 2**64 - 1]
    numbers = [int(number) for number in rng.integers(0, 40, len(seeds))]
    numbers[-1] = 2**32 - 1
    decks = seeded_decks(seeds, numbers)
    dealers = rng.integers(0, 4, len(seeds))
    sizes = rng.integers(1, 14, len(seeds))
    hands, turned, swap_seat, swap_card = deal_decks(decks, dealers, sizes)
    swaps = 0
    for row, (seed, number) in enumerate(zip(seeds, numbers, strict=True)):
        deck = seeded_deck(seed, number)
        assert decks[row].tolist() == [int(card) for card in deck]
        setup = deal_hands(deck, dealer=Seat(int(dealers[row])), hand_size=int(sizes[row]))
        assert tuple(hands[row].tolist()) == setup.hands
        assert turned[row] == setup.turned
        expected = (-1, -1) if setup.swap is None else (setup.swap.seat, setup.swap.received)
        assert (swap_seat[row], swap_card[row]) == expected
        swaps += setup.swap is not None
    assert swaps > 0  # the joker swap (DEAL-4) was among the deals


def test_a_rejected_word_is_left_to_the_core(monkeypatch):
    """A stream with a rejected word (too rare to meet by chance) is shuffled by the core."""
    # With every limit at 0 every word is rejected: all decks come from seeded_deck.
    monkeypatch.setattr(batch_dealing, "_LIMITS", np.zeros(53, dtype=np.uint64))
    calls = []

    def counted(seed, number):
        calls.append((seed, number))
        return seeded_deck(seed, number)

    monkeypatch.setattr(batch_dealing, "seeded_deck", counted)
    decks = batch_dealing.seeded_decks([5, 6], [0, 3])
    assert calls == [(5, 0), (6, 3)]
    assert decks[1].tolist() == [int(card) for card in seeded_deck(6, 3)]


def test_reset_starts_new_matches_with_the_seed_plus_n():
    batch = Batch(Rules(schedule="short"), seeds=[10, 20, 30])
    rng = np.random.default_rng(4)
    for _ in range(12):
        batch.step(batch.sample_legal(rng))
    played = batch.actions_of(1)
    assert len(played) == 12
    batch.reset([1])
    assert batch.seeds.tolist() == [10, 23, 30]
    assert batch.actions_of(1) == [] and len(batch.actions_of(0)) == 12
    start = new_match(Rules(schedule="short"), seed=23)
    assert batch.lane_state(1) == apply(start, seeded_deal(start))
    assert batch.totals[1].tolist() == [0, 0] and batch.phase[1] == 1
    # The allowed cards are what the legal mask shows, lane by lane.
    mask = batch.legal_mask()
    allowed = batch.allowed_cards().tolist()
    for lane in range(3):
        cards = [c for c in range(54) if allowed[lane] >> c & 1]
        assert cards == [index - 14 for index in np.flatnonzero(mask[lane]) if index >= 14]
