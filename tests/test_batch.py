"""The batch engine (JAX) against the reference ``apply``, at every step of every lane."""

from __future__ import annotations

import hashlib
import json
import zlib
from pathlib import Path

import pytest

pytest.importorskip("jax")

# After the skip: these need JAX.
import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from backalley import Reason, Rules, Seat, apply, new_match, seeded_deal
from backalley.batch import (
    NOT_AN_ACTION,
    REASON_CODES,
    Env,
    _cache,
    reason_code,
    reasons,
    sample_legal,
)
from backalley.batch import _dealing as batch_dealing
from backalley.core.cards import Card
from backalley.core.dealing import seeded_deck
from batch_reference import Twin, biased, callbacks, card_mask, same_lane_states, uniform

ROOT = Path(__file__).resolve().parent.parent


def play(twin: Twin, rng, steps: int, policy, *, restart: bool = False) -> None:
    for _ in range(steps):
        done = np.asarray(twin.state.terminated) | np.asarray(twin.state.truncated)
        if done.all() and not restart:
            break
        if restart and done.any():
            twin.reset(done)
        # Both policies choose legal actions only: nothing may be refused.
        assert not twin.step(policy(twin.state, rng)).any()


# Every variant of Rules: the three named schedules (standard and twenty-five in the
# tests above) and custom ones, both tie policies, every first dealer (East above).
# Small schedules with the tiebreak policy reach ties,
# tiebreak deals and level tiebreak deals (END-4, with an even largest hand) within
# a few deals.
VARIANTS = [
    Rules(schedule=[2], tie="tiebreak-deal"),
    Rules(schedule=[3, 1], tie="draw", first_dealer="S"),
    Rules(schedule="short", tie="tiebreak-deal", first_dealer="W"),
    Rules(schedule=[13, 4], tie="tiebreak-deal"),
]


_SHARED: dict[Rules, Env] = {}


def shared_env(rules: Rules) -> Env:
    """The module's Env of ``rules``, made (and compiled) once."""
    if rules not in _SHARED:
        _SHARED[rules] = Env(rules)
    return _SHARED[rules]


@pytest.fixture(scope="module")
def envs():
    """One Env (one compilation) per variant, shared by the tests of this module."""
    return shared_env


def test_uniform_standard_matches_equal_the_reference(envs):
    env = envs(Rules())
    twin = Twin(env, env.init(100, n=24))
    play(twin, np.random.default_rng(1), 3_000, uniform)
    assert np.asarray(twin.state.terminated).all()
    same_lane_states(twin)
    assert (twin.rewards == np.asarray(twin.state.totals)).all()
    assert twin.lane_steps > 19_000


def test_twenty_five_with_north_south_observed(envs):
    """The twenty-five schedule, a match to its end, all four seats' observations checked."""
    env = envs(Rules(schedule="twenty-five", first_dealer="E"))
    twin = Twin(env, env.init(5, n=4), observe=True)
    play(twin, np.random.default_rng(2), 1_000, uniform)
    assert np.asarray(twin.state.terminated).all()
    same_lane_states(twin)


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda rules: repr(rules.schedule))
def test_biased_matches_restarted_as_they_end_equal_the_reference(envs, rules):
    env = envs(rules)
    twin = Twin(env, env.init(1_000, n=48))
    play(twin, np.random.default_rng(len(rules.schedule)), 420, biased, restart=True)
    same_lane_states(twin)
    # With the standard run above, over 100,000 lane-steps checked in the default run.
    assert twin.lane_steps >= 48 * 420 * 0.9


@pytest.mark.parametrize("rules", VARIANTS[1:3], ids=lambda rules: repr(rules.schedule))
def test_observations_equal_the_adapters_encoding_of_each_seats_view(envs, rules):
    env = envs(rules)
    twin = Twin(env, env.init(77, n=12), observe=True)
    play(twin, np.random.default_rng(5), 100, biased, restart=True)
    assert twin.lane_steps > 1_000


def test_the_corners_are_reached(envs):
    """The biased runs do reach what they are meant to: the tests can see those rules."""
    seen = {"throw-in": 0, "board": 0, "joker led": 0, "tiebreak": 0, "level tiebreak": 0}
    seen["joker swap"] = 0
    env = envs(VARIANTS[0])
    twin = Twin(env, env.init(5, n=48))
    rng = np.random.default_rng(3)
    for _ in range(300):
        s = twin.state
        done = np.asarray(s.terminated) | np.asarray(s.truncated)
        if done.any():
            twin.reset(done)
            s = twin.state
        deals, tiebreak, ntricks = (np.asarray(x) for x in (s.deals, s.tiebreak, s.ntricks))
        seen["board"] += int((np.asarray(s.bids) == 13).sum())
        led = np.asarray(s.trick)[:, 0]
        seen["joker led"] += int(((led >= 52) & (np.asarray(s.ntrick) == 1)).sum())
        seen["joker swap"] += int((np.asarray(s.swap_seat) >= 0).sum())
        twin.step(biased(s, rng))
        after = twin.state
        new_deal = np.asarray(after.deals) > deals
        # A new deal straight from bidding is a throw-in; a tiebreak deal after a
        # tiebreak deal follows a level one.
        seen["throw-in"] += int((new_deal & (ntricks == 0) & ~tiebreak).sum())
        seen["tiebreak"] += int((new_deal & np.asarray(after.tiebreak)).sum())
        seen["level tiebreak"] += int((new_deal & tiebreak & np.asarray(after.tiebreak)).sum())
    assert all(seen.values()), seen


def test_a_lane_out_of_decks_is_truncated(envs):
    """Passing forever throws every deal in: the lane stops when its decks run out."""
    env = envs(VARIANTS[0])
    twin = Twin(env, env.init(9, n=2))
    for _ in range(4 * (1 + 8) + 4):
        twin.step(np.where(np.asarray(twin.state.phase) == 1, 0, -1).astype(np.int32))
    state = twin.state
    assert np.asarray(state.truncated).all() and not np.asarray(state.terminated).any()
    assert np.asarray(state.deals).tolist() == [9, 9]
    assert not np.asarray(state.legal_action_mask).any()
    assert reasons(env.step(state, [0, 14]).refused) == [Reason.WRONG_PHASE] * 2
    same_lane_states(twin)


def test_an_observation_hides_the_other_hands(envs):
    env = envs(Rules())
    state = env.init(3, n=4)
    hand = slice(30, 84)
    for seat in range(4):
        seen = np.asarray(env.observe(state, seat))
        for lane in range(4):
            cards = np.flatnonzero(seen[lane, hand]).tolist()
            assert cards == [int(card) for card in env.lane_state(state, lane).hand(Seat(seat))]
    # A seat per lane: each lane's row is the one of its own seat.
    mixed = np.asarray(env.observe(state, np.array([0, 1, 2, 3])))
    for lane in range(4):
        assert (mixed[lane] == np.asarray(env.observe(state, lane))[lane]).all()
    with pytest.raises(ValueError, match="seats run from 0 to 3"):
        env.observe(state, 4)


def test_sample_legal_is_uniform_over_the_legal_actions():
    """Many rows of one mask: every legal action is drawn about equally often."""
    rows = 20_000
    for legal in ([0, 1, 13], [14, 20, 40, 66, 67], [5]):
        mask = np.zeros((rows, 68), dtype=np.bool_)
        mask[:, legal] = True
        drawn = np.asarray(sample_legal(jnp.asarray(mask), jax.random.key(len(legal))))
        counts = np.bincount(drawn, minlength=68)
        assert counts[~mask[0]].sum() == 0
        expected = rows / len(legal)
        # Within five standard deviations of a binomial count.
        assert (abs(counts[legal] - expected) < 5 * np.sqrt(expected)).all(), counts[legal]
    empty = sample_legal(jnp.zeros((3, 68), jnp.bool_), jax.random.key(0))
    assert np.asarray(empty).tolist() == [-1, -1, -1]


def test_sample_legal_takes_the_kth_legal_action_the_plain_way_takes():
    """The packed-word search picks the k-th True entry, as a running count does, any row."""
    rng = np.random.default_rng(68)
    rows = 6_000
    density = rng.random((rows, 1))
    mask = rng.random((rows, 68)) < density
    mask[: rows // 10] = False
    mask[rows // 10 : rows // 5, 67] = True  # the last entry, past the second word
    key = jax.random.key(2026)
    drawn = np.asarray(sample_legal(jnp.asarray(mask), key))
    # The plain definition: k drawn as sample_legal draws it, then the k-th legal index.
    counts = mask.sum(axis=1)
    draw = np.asarray(jax.random.uniform(key, (rows,)))
    for row in range(rows):
        if counts[row] == 0:
            assert drawn[row] == -1
            continue
        k = min(int(np.float32(draw[row]) * np.float32(counts[row])), counts[row] - 1)
        assert drawn[row] == np.flatnonzero(mask[row])[k], row
    # Leading axes other than one: the same draws, row by row.
    shaped = np.asarray(sample_legal(jnp.asarray(mask[:600].reshape(20, 30, 68)), key))
    assert shaped.shape == (20, 30)
    assert (shaped.reshape(-1) >= -1).all()
    legal_or_none = [
        index == -1 or mask[row, index] for row, index in enumerate(shaped.reshape(-1).tolist())
    ]
    assert all(legal_or_none)


def test_a_compiled_rollout_equals_the_stepped_one(envs):
    """The step inside jax.jit and lax.scan gives the same lanes as step by step."""
    env = envs(VARIANTS[3])
    start = env.init(31, n=8)

    def body(state, key):
        action = sample_legal(state.legal_action_mask, key)
        return env.step(state, action), action

    keys = jax.random.split(jax.random.key(0), 60)
    end, actions = jax.jit(lambda state: jax.lax.scan(body, state, keys))(start)
    twin = Twin(env, start)
    for action in np.asarray(actions):
        twin.step(action.astype(np.int32))
    for name, value in vars(end).items():
        assert (np.asarray(value) == np.asarray(getattr(twin.state, name))).all(), name
    same_lane_states(twin)


# --- arbitrary actions, legal or not --------------------------------------------

SMALL_RULES = VARIANTS[:2]
LANES = 4  # one shape: one compilation for every example

# An action is either any index at all (mostly illegal) or the k-th legal one.
MOVES = st.one_of(
    st.integers(-1, 67),
    st.integers(0, 67).map(lambda k: ("legal", k)),
)


@st.composite
def scripts(draw):
    rules = draw(st.sampled_from(SMALL_RULES))
    seeds = draw(st.lists(st.integers(0, 2**64 - 1), min_size=LANES, max_size=LANES))
    steps = draw(
        st.lists(
            st.tuples(
                st.lists(MOVES, min_size=LANES, max_size=LANES),
                st.none() | st.lists(st.integers(-1, 3), min_size=LANES, max_size=LANES),
            ),
            max_size=40,
        )
    )
    return rules, seeds, steps


@settings(deadline=None)
@given(scripts())
def test_illegal_actions_are_refused_per_lane_with_the_reference_reason(script):
    rules, seeds, steps = script
    env = shared_env(rules)
    twin = Twin(env, env.init(seeds))
    for moves, seats in steps:
        mask = np.asarray(twin.state.legal_action_mask)
        actions = []
        for lane, move in enumerate(moves):
            if isinstance(move, tuple):
                legal = np.flatnonzero(mask[lane])
                actions.append(int(legal[move[1] % legal.size]) if legal.size else -1)
            else:
                actions.append(move)
        twin.step(np.array(actions, dtype=np.int32), None if seats is None else np.array(seats))
    same_lane_states(twin)


def test_bad_input_is_refused_whole_and_changes_nothing(envs):
    env = envs(VARIANTS[0])
    state = env.init([1, 2])
    for actions, words in (
        (np.array([0]), "one per lane"),
        (np.array([0, 68]), "68 is out of range"),
        (np.array([-2, 0]), "-2 is out of range"),
        (np.array([0.0, 1.0]), "whole numbers"),
    ):
        with pytest.raises(ValueError, match=words):
            env.step(state, actions)
    with pytest.raises(ValueError, match="seats run from -1 to 3"):
        env.step(state, np.array([0, 0]), seat=np.array([0, 4]))
    with pytest.raises(ValueError, match="lanes run from 0 to 1"):
        env.lane_state(state, 2)
    with pytest.raises(TypeError, match="rules must be"):
        Env("standard")
    with pytest.raises(ValueError, match="a seed"):
        env.init([-1])
    with pytest.raises(ValueError, match="at least one lane"):
        env.init([])
    with pytest.raises(ValueError, match="whole number from 1"):
        env.init(5, n=0)
    with pytest.raises(TypeError, match="give the number of lanes"):
        env.init(5)
    with pytest.raises(ValueError, match="n is 3 but 2 seeds"):
        env.init([1, 2], n=3)
    with pytest.raises(ValueError, match="spare_deals"):
        Env(spare_deals=-1)
    with pytest.raises(ValueError, match="record=True"):
        Env(VARIANTS[0], record=False).actions_of(state, 0)


def test_inside_jit_a_number_that_is_no_action_is_refused_in_its_lane(envs):
    env = envs(VARIANTS[0])
    state = env.init([1, 2])
    after = jax.jit(env.step)(state, jnp.array([99, 13], jnp.int32))
    assert np.asarray(after.refused).tolist() == [NOT_AN_ACTION, 0]
    assert env.actions_of(after, 0) == [] and env.actions_of(after, 1) == [13]
    with pytest.raises(ValueError, match="lane 0 was given a number that is not an action"):
        reasons(after.refused)


def test_refusal_codes_name_the_reasons():
    assert reasons([0, *range(1, len(REASON_CODES) + 1)]) == [None, *Reason]
    assert all(reasons([reason_code(reason)]) == [reason] for reason in Reason)
    assert reason_code(None) == 0


def test_a_lane_is_the_reference_match_of_its_seed(envs):
    """Lane i of a batch from base seed s deals exactly new_match(rules, seed=s + i)."""
    env = envs(Rules())
    state = env.init(41, n=3)
    for lane in range(3):
        start = new_match(Rules(), seed=41 + lane)
        match = apply(start, seeded_deal(start))
        hands = tuple(card_mask(words) for words in np.asarray(state.hands[lane]).tolist())
        assert hands == match.deal.hands
        assert env.lane_state(state, lane) == match
    assert np.asarray(state.current_player).tolist() == [int(Seat.EAST)] * 3


def test_reset_starts_new_matches_with_the_seed_plus_n(envs):
    env = envs(Rules(schedule="short"))
    state = env.init([10, 20, 30])
    rng = np.random.default_rng(4)
    for _ in range(12):
        state = env.step(state, uniform(state, rng))
    assert len(env.actions_of(state, 1)) == 12
    state = env.reset(state, [1])
    assert env.seeds(state) == [10, 23, 30]
    assert env.actions_of(state, 1) == [] and len(env.actions_of(state, 0)) == 12
    start = new_match(Rules(schedule="short"), seed=23)
    assert env.lane_state(state, 1) == apply(start, seeded_deal(start))
    assert env.seeds(env.reset(state, np.array([True, False, False]))) == [13, 23, 30]
    with pytest.raises(ValueError, match="lanes are numbers from 0 to 2"):
        env.reset(state, [3])


# --- the long profile: millions of lane-steps (pytest -m slow) ---------------------


@pytest.mark.slow
@pytest.mark.timeout(3600)
@pytest.mark.parametrize("policy", [uniform, biased], ids=["uniform", "biased"])
@pytest.mark.parametrize("rules", [Rules(), *VARIANTS], ids=lambda rules: repr(rules.schedule))
def test_long_differential_run(envs, rules, policy):
    env = envs(rules)
    twin = Twin(env, env.init(7_000_000, n=256))
    rng = np.random.default_rng(zlib.crc32(repr((rules, policy.__name__)).encode()))
    play(twin, rng, 1_000, policy, restart=True)
    same_lane_states(twin)
    assert twin.lane_steps >= 200_000


# --- the decks, dealt on the device ---------------------------------------------------

_decks_of = jax.jit(batch_dealing.decks_of)
_deck_of = jax.jit(jax.vmap(batch_dealing.deck_of))
_exact = jax.jit(jax.vmap(batch_dealing.shuffle_exact))

# Seeds whose deal 5 has a rejected word among its first 53 (a word above
# 2**32 - 2**32 mod n - 1): about one deck in 6.5 million, found by a search with
# hashlib. The test checks that they do hit the rejection rule.
REJECTING = [(22498921, 5), (27978401, 5)]


def _words(seeds: list[int]) -> jax.Array:
    return jnp.asarray(np.array([[s >> 32, s & 0xFFFFFFFF] for s in seeds], dtype=np.uint32))


def _cores(seeds: list[int], numbers: list[int]) -> list[list[int]]:
    return [[int(card) for card in seeded_deck(s, k)] for s, k in zip(seeds, numbers, strict=True)]


def _stream(seed: int, number: int, blocks: int) -> list[int]:
    """The word stream of docs/dealing.md, by hashlib."""
    prefix = b"backalley-deal-v1" + seed.to_bytes(8, "big") + number.to_bytes(4, "big")
    words = []
    for counter in range(blocks):
        digest = hashlib.sha256(prefix + counter.to_bytes(4, "big")).digest()
        words += [int.from_bytes(digest[k : k + 4], "big") for k in range(0, 32, 4)]
    return words


def test_device_decks_are_the_cores():
    rng = np.random.default_rng(11)
    seeds = [int(seed) for seed in rng.integers(0, 2**63, 600, dtype=np.int64)]
    seeds += [0, 2**64 - 1, 2**32 - 1, 2**32, 2026]
    numbers = [int(number) for number in rng.integers(0, 40, len(seeds))]
    numbers[-5:] = [0, 2**32 - 1, 255, 256, 0]
    numbers[:50] = [int(number) for number in rng.integers(0, 2**32, 50, dtype=np.int64)]
    expected = _cores(seeds, numbers)
    decks = _decks_of(_words(seeds), jnp.asarray(np.array(numbers, dtype=np.uint32)))
    assert np.asarray(decks).tolist() == expected
    # One lane at a time (the pgx env's path) and the word-by-word path agree.
    few = jnp.asarray(np.array(numbers[-40:], dtype=np.uint32))
    assert np.asarray(_deck_of(_words(seeds[-40:]), few)).tolist() == expected[-40:]
    assert np.asarray(_exact(_words(seeds[-40:]), few)).tolist() == expected[-40:]


def test_device_decks_meet_the_conformance_vectors():
    vectors = json.loads((ROOT / "conformance" / "dealing.json").read_text())
    decks = vectors["decks"]
    seeds = [vector["seed"] for vector in decks]
    numbers = jnp.asarray(np.array([vector["deal_number"] for vector in decks], np.uint32))
    got = np.asarray(_decks_of(_words(seeds), numbers)).tolist()
    assert got == [[int(Card.parse(code)) for code in vector["deck"]] for vector in decks]
    for vector in vectors["blocks"]:
        block = batch_dealing.stream_block(
            _words([vector["seed"]])[0], vector["deal_number"], vector["block"]
        )
        assert np.asarray(block).tolist() == vector["words"]
    # The rejection rule on made-up streams: the words used and the index drawn.
    for vector in vectors["draws"]:
        words = jnp.asarray(np.array(vector["words"], dtype=np.uint32))
        j, used = batch_dealing.draw(lambda at, words=words: words[at], jnp.uint32(0), vector["n"])
        assert (int(j), int(used)) == (vector["j"], vector["used"]), vector


@pytest.mark.parametrize(("seed", "number"), REJECTING)
def test_decks_with_a_rejected_word_are_the_cores(seed, number):
    words = _stream(seed, number, 7)
    sizes = range(54, 1, -1)
    assert any(word >= 2**32 - 2**32 % n for word, n in zip(words, sizes, strict=False))
    expected = _cores([seed], [number])
    # Among ordinary lanes, in the batch path, and alone, in the one-lane path.
    seeds = [seed, seed + 1, seed]
    numbers = jnp.asarray(np.array([number, number, number + 1], dtype=np.uint32))
    got = np.asarray(_decks_of(_words(seeds), numbers)).tolist()
    assert got == expected + _cores([seed + 1, seed], [number, number + 1])
    assert np.asarray(_deck_of(_words([seed]), numbers[:1])).tolist() == expected
    assert Env().decks_of([seed], deals=number + 1)[0, number].tolist() == expected[0]


@settings(max_examples=200, deadline=None)
@given(
    st.integers(2, 54),
    st.lists(st.integers(0, 2**32 - 1) | st.integers(2**32 - 60, 2**32 - 1), min_size=1),
)
def test_a_draw_follows_the_rejection_rule(n, words):
    """docs/dealing.md's draw: the first word below the limit, modulo n; the words it used."""
    limit = 2**32 - 2**32 % n
    accepted = [at for at, word in enumerate(words) if word < limit]
    if not accepted:
        return
    stream = jnp.asarray(np.array(words, dtype=np.uint32))
    j, used = batch_dealing.draw(lambda at: stream[at], jnp.uint32(0), n)
    assert (int(j), int(used)) == (words[accepted[0]] % n, accepted[0] + 1)


def test_the_callback_finder_finds_a_callback():
    def host(x):
        return jax.pure_callback(np.negative, jax.ShapeDtypeStruct(x.shape, x.dtype), x)

    assert callbacks(lambda x: jax.lax.cond(x.sum() > 0, host, lambda y: y, x), jnp.ones(3))


def test_init_reset_and_step_never_call_the_host():
    env = Env(Rules(schedule=[2]))
    words = _words([1, 2, 3])
    state = env.init([1, 2, 3])
    assert not callbacks(lambda w: env._start(env._tables, w), words)
    assert not callbacks(lambda b: env._start_from(env._tables, b, 4), words[0])
    assert not callbacks(lambda s, c: env._reset(env._tables, s, c), state, jnp.ones(3, bool))
    actions = jnp.zeros(3, jnp.int32)
    assert not callbacks(env.step, state, actions)


def test_init_from_a_base_seed_plays_consecutive_seeds():
    env = Env(Rules(schedule=[2]))
    base = 2**64 - 2
    state = env.init(base, n=4)
    assert env.seeds(state) == [2**64 - 2, 2**64 - 1, 0, 1]
    assert env.seeds(env.init(np.array([5, 2**63], dtype=np.uint64))) == [5, 2**63]
    for lane, seed in enumerate(env.seeds(state)):
        match = seeded_deal(new_match(env.rules, seed=seed))
        assert env.lane_state(state, lane) == apply(new_match(env.rules, seed=seed), match)
    # Reset on the device: the chosen lanes start the matches of their seeds plus N.
    again = env.reset(state, jnp.asarray([True, False, True, False]))
    assert env.seeds(again) == [2, 2**64 - 1, 4, 1]


def test_the_compilation_cache_is_on_unless_the_process_chose_otherwise(monkeypatch, tmp_path):
    before = jax.config.jax_compilation_cache_dir
    monkeypatch.delenv("JAX_COMPILATION_CACHE_DIR", raising=False)
    monkeypatch.delenv("BACKALLEY_JAX_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert _cache.cache_dir() == tmp_path / "backalley" / "jax"
    for off in ("0", "off", "No"):
        monkeypatch.setenv("BACKALLEY_JAX_CACHE", off)
        assert _cache.cache_dir() is None
    try:
        jax.config.update("jax_compilation_cache_dir", None)
        assert _cache.use_compilation_cache() is None  # off: nothing is set
        assert jax.config.jax_compilation_cache_dir is None
        monkeypatch.setenv("BACKALLEY_JAX_CACHE", str(tmp_path / "here"))
        assert _cache.use_compilation_cache() == tmp_path / "here"
        assert jax.config.jax_compilation_cache_dir == str(tmp_path / "here")
        # A cache the process chose is kept.
        monkeypatch.setenv("BACKALLEY_JAX_CACHE", str(tmp_path / "elsewhere"))
        assert _cache.use_compilation_cache() is None
        assert jax.config.jax_compilation_cache_dir == str(tmp_path / "here")
    finally:
        jax.config.update("jax_compilation_cache_dir", before)
