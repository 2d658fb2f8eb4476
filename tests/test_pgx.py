"""The batch engine as a ``pgx.Env``: pgx's own API test, and ``apply`` at every step.

pgx's ``api_test`` is run as pgx ships it but for one check only pgx's own games
can pass: that the id is among pgx's ids (``EnvId``, a ``Literal`` of pgx's own
games' ids, which no outside game can join). It is widened for the run, nothing
else; the drawing of the last state (``save_svg``) is the library's, and runs.
"""
# ruff: noqa: E402 -- the frameworks are imported only after importorskip has found them

from typing import Literal, get_args

import pytest

pytest.importorskip("jax")
pgx = pytest.importorskip("pgx")
np = pytest.importorskip("numpy")

import jax
import jax.numpy as jnp
from pgx._src import api_test as pgx_api_test

from backalley import IllegalAction, Rules, apply, legal_actions, new_match, seeded_deal
from backalley.adapters import encoding
from backalley.adapters._views import seat_view
from backalley.batch import Env, sample_legal
from backalley.batch.pgx_env import ENV_ID, BackAlley, seed_of
from backalley.core.action_index import action_index, index_action
from backalley.pictures.svg import state_svg
from batch_reference import callbacks

SHORT = Rules(schedule=[3, 2, 1])


def seed(words):
    high, low = np.asarray(words).astype(np.uint64).tolist()
    return int(high) << 32 | int(low)


def test_pgx_api_test_passes(monkeypatch):
    monkeypatch.setattr(pgx_api_test, "EnvId", Literal[(*get_args(pgx_api_test.EnvId), ENV_ID)])
    env = BackAlley(SHORT)
    pgx_api_test.api_test_batch(env, num=1)
    # api_test_single as pgx ships it cannot run under this JAX (its act_randomly samples
    # along axis 1 of one state's mask): its checks, with the action drawn from the mask.
    init, step = jax.jit(env.init), jax.jit(env.step)
    key = jax.random.key(849020)
    for _ in range(1):
        key, pick = jax.random.split(key)
        state = init(pick)
        assert state.env_id == env.id and state._step_count == 0
        assert state.legal_action_mask.sum() != 0
        pgx_api_test._validate_state(state)
        pgx_api_test._validate_init_reward(state)
        pgx_api_test._validate_current_player(state)
        pgx_api_test._validate_legal_actions(state)
        while True:
            key, pick = jax.random.split(key)
            action = sample_legal(state.legal_action_mask[None], pick)[0]
            count = int(state._step_count)
            state = step(state, action, pick)
            assert int(state._step_count) == count + 1
            pgx_api_test._validate_state(state)
            pgx_api_test._validate_current_player(state)
            pgx_api_test._validate_legal_actions(state)
            if state.terminated:
                break
        # Stepping a finished match changes nothing and gives no reward.
        after = step(state, jnp.int32(0), pick)
        assert not after.rewards.any() and after.terminated


@pytest.mark.parametrize("rewards", ["match", "points"])
def test_every_step_of_every_lane_equals_the_reference(rewards):
    env = BackAlley(SHORT, rewards=rewards)
    init = jax.jit(jax.vmap(env.init))
    step = jax.jit(jax.vmap(env.step))
    n = 4
    keys = jax.random.split(jax.random.key(5), n)
    state = init(keys)
    matches = [new_match(SHORT, seed=seed(seed_of(key))) for key in keys]

    # The reference deals every deal that is due, as the environment does.
    def dealt(match):
        while match.deal is None and not match.is_over:
            match = apply(match, seeded_deal(match))
        return match

    matches = [dealt(match) for match in matches]
    over = [False] * n
    key = jax.random.key(9)
    rng = np.random.default_rng(4)
    steps = 0
    while not all(over):
        steps += 1
        assert steps < 400
        for lane in range(n):
            if over[lane]:
                assert state.terminated[lane] or state.truncated[lane]
                assert state.legal_action_mask[lane].all() or state.truncated[lane]
                continue
            match = matches[lane]
            assert env.match_state(state, lane) == match
            seat = match.to_move
            assert int(state.current_player[lane]) == int(seat)
            tensor = np.zeros(encoding.OBSERVATION.size, np.float32)
            encoding.write_observation(seat_view(match, seat), tensor)
            assert (np.asarray(state.observation[lane]) == tensor).all()
            mask = np.zeros(68, bool)
            for action in legal_actions(match):
                mask[action_index(action)] = True
            assert (np.asarray(state.legal_action_mask[lane]) == mask).all()
        key, pick = jax.random.split(key)
        actions = np.asarray(sample_legal(state.legal_action_mask, pick)).copy()
        # Now and then an illegal action: it ends the match, lost by the seat's pair.
        illegal = np.zeros(n, bool)
        for lane in range(n):
            if not over[lane] and rng.random() < 0.01:
                wrong = np.flatnonzero(~np.asarray(state.legal_action_mask[lane]))
                actions[lane] = int(rng.choice(wrong))
                illegal[lane] = True
        movers = np.asarray(state.current_player).copy()
        state = step(state, jnp.asarray(actions))
        for lane in range(n):
            if over[lane]:
                assert not np.asarray(state.rewards[lane]).any()
                continue
            match = matches[lane]
            expected = np.zeros(4, np.float32)
            if illegal[lane]:
                with pytest.raises(IllegalAction):
                    apply(match, index_action(int(actions[lane]), match.to_move))
                expected[:] = [1.0 if seat % 2 != movers[lane] % 2 else -1.0 for seat in range(4)]
                assert state.terminated[lane]
                over[lane] = True
            else:
                before = len(match.history)
                match = dealt(apply(match, index_action(int(actions[lane]), match.to_move)))
                matches[lane] = match
                if rewards == "points":
                    for result in match.history[before:]:
                        for seat in range(4):
                            expected[seat] += result.scores[seat % 2]
                elif match.is_over:
                    winner = match.outcome.winner
                    for seat in range(4):
                        expected[seat] = (
                            0 if winner is None else 1 if int(winner) == seat % 2 else -1
                        )
                assert bool(state.terminated[lane]) == match.is_over
                over[lane] = match.is_over or bool(state.truncated[lane])
            assert (np.asarray(state.rewards[lane]) == expected).all(), (lane, steps)


def test_the_same_seed_plays_the_batch_engines_match():
    env = BackAlley(SHORT)
    key = jax.random.key(21)
    state = jax.jit(env.init)(key)
    words = seed_of(key)
    batch = Env(SHORT)
    lanes = batch.init([seed(words)])
    assert (np.asarray(lanes.hands[0]) == np.asarray(state._match.hands)).all()
    assert env.match_state(state).seed == seed(words)


def test_a_state_is_drawn_with_the_librarys_pictures(tmp_path):
    env = BackAlley(SHORT)
    states = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.key(3), 2))
    one = jax.tree.map(lambda field: field[0], states)
    path = tmp_path / "one.svg"
    one.save_svg(str(path))
    match = env.match_state(one)
    drawn = path.read_text()
    # The library's drawing of the replayed match, every hand in it.
    assert drawn.startswith("<svg") and state_svg(match).split("\n", 1)[1] in drawn
    both = states.to_svg(scale=2)
    assert both.count("<svg") == 3
    assert state_svg(env.match_state(states, 1)).split("\n", 1)[1] in both
    with pytest.raises(ValueError, match="one theme"):
        one.save_svg(str(path), color_theme="dark")
    with pytest.raises(ValueError, match="scale"):
        one.to_svg(scale=0)


def test_init_and_step_never_call_the_host():
    """No callback in init or step (init reached the host by a pure_callback once)."""
    env = BackAlley(SHORT)
    key = jax.random.key(1)
    assert not callbacks(env.init, key)
    state = env.init(key)
    assert not callbacks(env.step, state, jnp.int32(0), key)
    keys = jax.random.split(key, 3)
    assert not callbacks(jax.vmap(env.init), keys)


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="rewards is 'match' or 'points'"):
        BackAlley(SHORT, rewards="deal")
    with pytest.raises(TypeError, match=r"rules must be a backalley\.Rules"):
        BackAlley("short")
    env = BackAlley(SHORT)
    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.key(0), 2))
    with pytest.raises(ValueError, match="a batched state: say which lane"):
        env.match_state(state)


def test_auto_reset_step_is_pgx_auto_reset_with_fewer_inits():
    """The same states as pgx's ``auto_reset(step, init)``, step by step, illegal actions too."""
    from pgx.experimental import auto_reset  # noqa: PLC0415

    env = BackAlley(Rules(schedule=[2, 1]))
    theirs = jax.jit(jax.vmap(auto_reset(env.step, env.init)))
    ours = jax.jit(jax.vmap(env.auto_reset_step))
    lanes = 6
    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.key(5), lanes))
    key = jax.random.key(6)
    ended = 0
    for count in range(60):
        key, pick, odd, step_key = jax.random.split(key, 4)
        action = sample_legal(state.legal_action_mask, pick)
        # Now and then an action that may be illegal: pgx ends that match.
        if count % 7 == 3:
            action = jax.random.randint(odd, (lanes,), 0, 68)
        keys = jax.random.split(step_key, lanes)
        expected, got = theirs(state, action, keys), ours(state, action, keys)
        for mine, pgx_leaf in zip(jax.tree.leaves(got), jax.tree.leaves(expected), strict=True):
            assert np.array_equal(np.asarray(mine), np.asarray(pgx_leaf)), count
        ended += int((expected.terminated | expected.truncated).sum())
        state = got
    assert ended >= lanes  # matches ended and were started again


def test_the_step_is_pgxs_step():
    """``BackAlley.step`` (fewer copies under vmap) gives pgx's step's states, leaf by leaf."""
    env = BackAlley(Rules(schedule=[2, 1]), spare_deals=1)
    theirs = jax.jit(jax.vmap(lambda s, a, k: pgx.Env.step(env, s, a, k)))
    ours = jax.jit(jax.vmap(env.step))
    lanes = 8
    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.key(8), lanes))
    key = jax.random.key(9)
    seen = {"terminated": 0, "truncated": 0, "illegal": 0}
    for count in range(80):
        key, pick, odd, step_key = jax.random.split(key, 4)
        action = sample_legal(state.legal_action_mask, pick)
        action = jnp.where(action < 0, 0, action)
        if count % 5 == 2:  # some illegal actions, some Passes (throw-ins: truncation)
            action = jnp.where(jax.random.bernoulli(odd, 0.5, (lanes,)), 0, action + 1) % 68
        keys = jax.random.split(step_key, lanes)
        expected, got = theirs(state, action, keys), ours(state, action, keys)
        for mine, pgx_leaf in zip(jax.tree.leaves(got), jax.tree.leaves(expected), strict=True):
            assert np.array_equal(np.asarray(mine), np.asarray(pgx_leaf)), count
        seen["illegal"] += int((~state.legal_action_mask[jnp.arange(lanes), action]).sum())
        seen["terminated"] += int(expected.terminated.sum())
        seen["truncated"] += int(expected.truncated.sum())
        state = got
    # Finished matches were stepped again, and illegal actions taken.
    assert seen["terminated"] > lanes and seen["illegal"] > 0


def test_pgx_tools_that_refuse_outside_games_have_ours_beside_them(tmp_path):
    import xml.etree.ElementTree as ET  # noqa: PLC0415

    from backalley.batch.pgx_env import PGX_TOOLS, api_test, save_svg_animation  # noqa: PLC0415

    env = BackAlley(Rules(schedule=[2, 1]))
    # pgx's own test stops at its assertion that the id is one of pgx's games.
    with pytest.raises(AssertionError):
        pgx.api_test(env, 1)
    assert "backalley.batch.pgx_env.api_test" in PGX_TOOLS
    api_test(env, num=1)
    assert ENV_ID not in get_args(pgx_api_test.EnvId)  # admitted for the run only
    init, step = jax.jit(env.init), jax.jit(env.step)
    states = [init(jax.random.key(3))]
    for _ in range(4):
        state = states[-1]
        states.append(step(state, jnp.argmax(state.legal_action_mask)))
    with pytest.raises(AssertionError):
        pgx.save_svg_animation(states, str(tmp_path / "pgx.svg"))
    save_svg_animation(states, tmp_path / "ours.svg", frame_duration_seconds=0.25)
    root = ET.parse(tmp_path / "ours.svg").getroot()
    frames = [child for child in root if child.tag.endswith("svg")]
    assert len(frames) == len(states)
    timings = [
        frame.find("{http://www.w3.org/2000/svg}animate").get("keyTimes") for frame in frames
    ]
    assert timings == [f"0;{k / 5:g};{(k + 1) / 5:g}" for k in range(5)]
    with pytest.raises(ValueError, match="batched"):
        save_svg_animation(
            [jax.vmap(env.init)(jax.random.split(jax.random.key(0), 2))], tmp_path / "x.svg"
        )
