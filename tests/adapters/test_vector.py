"""The Gymnasium vector environment over the batch engine, against ``apply`` at every step.

Gymnasium ships no checker for vector environments (``check_env`` takes one
environment); these tests check what its own vector environments promise: the
batched spaces hold every observation, the step's arrays have one entry a lane,
infos carry Gymnasium's ``_key`` masks, the two autoreset modes behave as
``SyncVectorEnv`` does, Gymnasium's vector wrappers run over it, and a seeded run
repeats. Every observation, mask, reward and end is also compared with the
reference: each lane's match replayed through ``apply``.
"""
# ruff: noqa: E402 -- the frameworks are imported only after importorskip has found them

import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")
pytest.importorskip("jax")
np = pytest.importorskip("numpy")

import gymnasium
import jax
import jax.numpy as jnp
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers.vector import DictInfoToList, RecordEpisodeStatistics

from backalley import IllegalAction, Rules, Seat, apply, legal_actions
from backalley.adapters import encoding
from backalley.adapters._views import seat_view
from backalley.batch import Env
from backalley.batch.heuristic import heuristic_opponent
from backalley.batch.vector import SeatVectorEnv, random_opponent
from backalley.core.action_index import action_index, index_action
from backalley.engine.view import view
from backalley.players import HeuristicPlayer, RandomPlayer
from batch_reference import Twin, uniform

SHORT = Rules(schedule=[3, 2, 1])


def reference_observation(match, seat):
    tensor = np.zeros(encoding.OBSERVATION.size, np.float32)
    encoding.write_observation(seat_view(match, seat), tensor)
    return tensor


def reference_mask(match, seat):
    mask = np.zeros(68, np.int8)
    if not match.is_over and match.deal is not None and match.to_move == seat:
        for action in legal_actions(match):
            mask[action_index(action)] = 1
    return mask


def deal_margin(match, pair, since):
    """The pair's points minus the other pair's over the deals finished after ``since``."""
    margin = 0
    for result in match.history[since:]:
        scores = result.scores
        margin += scores[pair] - scores[1 - pair]
    return margin


def masked_choices(rng, masks, illegal_every=0, step=0):
    actions = []
    for lane, row in enumerate(masks):
        legal = np.flatnonzero(row)
        if illegal_every and (lane + step) % illegal_every == 0:
            wrong = np.flatnonzero(row == 0)
            actions.append(int(rng.choice(wrong)))
        else:
            actions.append(int(rng.choice(legal)) if legal.size else 0)
    return np.array(actions)


@pytest.mark.parametrize("seat", [Seat.NORTH, Seat.WEST])
@pytest.mark.parametrize("rewards", ["deal", "match"])
def test_every_step_of_every_lane_equals_the_reference(seat, rewards):
    n = 5
    env = SeatVectorEnv(n, seat=seat, rules=SHORT, rewards=rewards)
    obs, infos = env.reset(seed=11)
    rng = np.random.default_rng(1)
    before = [env.lane_state(lane) for lane in range(n)]
    ended_at_last = np.zeros(n, np.bool_)
    episodes = 0
    for step in range(160):
        assert env.observation_space.contains(obs)
        assert (infos["action_mask"] == obs["action_mask"]).all()
        assert infos["_action_mask"].all()
        assert (env.action_masks() == obs["action_mask"].astype(bool)).all()
        for lane in range(n):
            match = before[lane]
            expected = reference_observation(match, seat)
            assert (obs["observation"][lane] == expected).all(), (step, lane)
            if not ended_at_last[lane]:
                assert (obs["action_mask"][lane] == reference_mask(match, seat)).all()
            else:
                assert not obs["action_mask"][lane].any()
        actions = masked_choices(rng, obs["action_mask"], illegal_every=7, step=step)
        obs, reward, terminated, truncated, infos = env.step(actions)
        assert reward.shape == terminated.shape == truncated.shape == (n,)
        after = [env.lane_state(lane) for lane in range(n)]
        for lane in range(n):
            match = after[lane]
            if ended_at_last[lane]:
                # NEXT_STEP: the lane started its next match; its action was not played.
                assert match.seed == before[lane].seed + n
                assert reward[lane] == 0 and not terminated[lane] and not truncated[lane]
                assert match.history == ()
                continue
            illegal = "_reason" in infos and infos["_reason"][lane]
            if illegal:
                assert match == before[lane]
                assert reward[lane] == -1.0 and terminated[lane]
                assert infos["illegal_action"][lane] == actions[lane]
                with pytest.raises(IllegalAction) as refusal:
                    apply(before[lane], index_action(int(actions[lane]), seat))
                assert infos["reason"][lane] == refusal.value.reason.value
                continue
            assert terminated[lane] == match.is_over
            pair = int(seat) % 2
            if rewards == "deal":
                since = len(before[lane].history)
                assert reward[lane] == deal_margin(match, pair, since)
            elif match.is_over:
                winner = match.outcome.winner
                assert reward[lane] == (0 if winner is None else 1 if int(winner) == pair else -1)
            else:
                assert reward[lane] == 0
        episodes += int((terminated | truncated).sum())
        ended_at_last = terminated | truncated
        before = after
    assert episodes >= n  # every lane ended at least one match on the way


def test_a_seeded_run_repeats_and_seeds_the_lanes():
    def run():
        env = SeatVectorEnv(3, rules=SHORT)
        obs, _ = env.reset(seed=40)
        seeds = [env.lane_state(lane).seed for lane in range(3)]
        rng = np.random.default_rng(5)
        trail = [obs["observation"].copy()]
        for _ in range(30):
            obs, reward, *_ = env.step(masked_choices(rng, obs["action_mask"]))
            trail.append(obs["observation"].copy())
            trail.append(reward.copy())
        return seeds, trail

    seeds, first = run()
    assert seeds == [40, 41, 42]
    _, second = run()
    assert all((a == b).all() for a, b in zip(first, second, strict=True))


def test_same_step_autoreset_gives_the_final_observation_in_infos():
    rng_next = np.random.default_rng(2)
    rng_same = np.random.default_rng(2)
    nxt = SeatVectorEnv(4, rules=SHORT)
    same = SeatVectorEnv(4, rules=SHORT, autoreset_mode="SameStep")
    assert same.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    obs_n, _ = nxt.reset(seed=8)
    obs_s, _ = same.reset(seed=8)
    finals = 0
    for _ in range(80):
        # The same choices in both, for as long as the two runs are in step.
        actions = masked_choices(rng_next, obs_n["action_mask"])
        masked_choices(rng_same, obs_s["action_mask"])
        obs_n, reward_n, term_n, trunc_n, _ = nxt.step(actions)
        obs_s, reward_s, term_s, _, info_s = same.step(actions)
        assert (reward_n == reward_s).all() and (term_n == term_s).all()
        ended = term_n | trunc_n
        if ended.any():
            finals += 1
            assert (info_s["_final_obs"] == ended).all()
            for name in ("observation", "action_mask"):
                assert (info_s["final_obs"][name][ended] == obs_n[name][ended]).all()
            # The lanes start again at once: what NEXT_STEP shows one step later.
            obs_n, reward_n, *_ = nxt.step(actions)
            assert (reward_n[ended] == 0).all()
            assert (obs_s["observation"][ended] == obs_n["observation"][ended]).all()
            break
    assert finals == 1


def test_raise_policy_raises_the_reference_refusal_and_changes_nothing():
    env = SeatVectorEnv(2, rules=SHORT, illegal="raise")
    obs, _ = env.reset(seed=3)
    state = env.state
    wrong = int(np.flatnonzero(obs["action_mask"][1] == 0)[-1])
    legal = int(np.flatnonzero(obs["action_mask"][0])[0])
    with pytest.raises(IllegalAction) as refusal:
        env.step(np.array([legal, wrong]))
    assert refusal.value.message.startswith("Lane 1: ")
    assert env.state is state
    # The step goes on as if the refused call had never been made.
    fresh = SeatVectorEnv(2, rules=SHORT, illegal="raise")
    fresh.reset(seed=3)
    right = int(np.flatnonzero(obs["action_mask"][1])[0])
    a = env.step(np.array([legal, right]))
    b = fresh.step(np.array([legal, right]))
    assert (a[0]["observation"] == b[0]["observation"]).all()


def test_an_opponent_that_chooses_an_illegal_action_is_an_error():
    def two_of_clubs(state, key):
        return jnp.zeros(state.phase.shape[0], jnp.int32) + 14  # a card, even while bidding

    env = SeatVectorEnv(2, rules=SHORT, opponent=two_of_clubs)
    with pytest.raises(ValueError, match="the opponent chose an action the rules refuse"):
        env.reset(seed=1)


@pytest.mark.parametrize(
    ("opponent", "error"),
    [
        (HeuristicPlayer(round_up_from=2.0), ValueError),
        (RandomPlayer(), TypeError),
        ("heuristic-on-the-host", ValueError),
        (42, TypeError),
        (lambda state, key: jnp.zeros(state.phase.shape[0], jnp.float32), TypeError),
        (lambda state, key: jnp.zeros(3, jnp.int32), TypeError),
    ],
)
def test_an_opponent_that_cannot_run_in_the_compiled_step_is_refused(opponent, error):
    """A host player (it crashed inside the trace once) is refused, naming what is accepted."""
    with pytest.raises(error, match=r"opponent is 'random' \(the default.*or a JAX function"):
        SeatVectorEnv(2, rules=SHORT, opponent=opponent)
    assert SeatVectorEnv(2, rules=SHORT, opponent="random").opponent is random_opponent


def test_the_heuristic_opponent_is_named_or_given_as_the_player():
    compiled = heuristic_opponent()
    assert SeatVectorEnv(2, rules=SHORT, opponent="heuristic").opponent == compiled
    assert SeatVectorEnv(2, rules=SHORT, opponent=HeuristicPlayer()).opponent == compiled
    rounding = SeatVectorEnv(2, rules=SHORT, opponent=HeuristicPlayer(0.55)).opponent
    assert rounding == heuristic_opponent(0.55) != compiled


def test_gymnasium_makes_it_by_the_module_and_id_form():
    """``module:id`` imports the module that registers the id, as Gymnasium users write it."""
    env = gymnasium.make_vec(
        "backalley.pettingzoo:backalley/Seat-v0",
        num_envs=3,
        vectorization_mode="vector_entry_point",
        rules=SHORT,
        seat=Seat.NORTH,
    )
    assert isinstance(env, SeatVectorEnv) and env.num_envs == 3 and env.seat is Seat.NORTH
    obs, _ = env.reset(seed=1)
    assert obs["action_mask"].shape == (3, 68) and obs["action_mask"].any(axis=1).all()
    one = gymnasium.make("backalley.pettingzoo:backalley/Seat-v0", players=RandomPlayer())
    assert one.reset(seed=1)[0]["action_mask"].any()


def test_gymnasium_vector_wrappers_run_over_it():
    env = RecordEpisodeStatistics(SeatVectorEnv(3, rules=SHORT))
    obs, _ = env.reset(seed=4)
    rng = np.random.default_rng(3)
    returns = np.zeros(3)
    seen = []
    for _ in range(200):
        obs, reward, terminated, truncated, infos = env.step(
            masked_choices(rng, obs["action_mask"])
        )
        returns += reward
        if "episode" in infos:
            for lane in np.flatnonzero(infos["_episode"]):
                seen.append((infos["episode"]["r"][lane], returns[lane]))
        returns[terminated | truncated] = 0
    assert seen and all(np.isclose(got, want) for got, want in seen)
    listed = DictInfoToList(SeatVectorEnv(2, rules=SHORT))
    _, infos = listed.reset(seed=1)
    assert len(infos) == 2 and infos[0]["action_mask"].shape == (68,)


def test_spaces_are_seat_envs_batched():
    env = SeatVectorEnv(6, rules=SHORT)
    single = env.single_observation_space
    assert single["observation"].shape == (encoding.OBSERVATION.size,)
    assert env.observation_space["observation"].shape == (6, encoding.OBSERVATION.size)
    assert env.action_space.shape == (6,)
    assert env.single_action_space == gymnasium.spaces.Discrete(68)
    assert env.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_envs": 0}, "num_envs is a whole number from 1"),
        ({"rewards": "trick"}, "rewards is 'deal' or 'match'"),
        ({"illegal": "ignore"}, "illegal is 'terminate' or 'raise'"),
        ({"autoreset_mode": "Disabled"}, "autoreset_mode is 'NextStep' or 'SameStep'"),
        ({"rules": SHORT, "schedule": "short"}, "give rules or a schedule, not both"),
    ],
)
def test_bad_settings_are_refused(kwargs, message):
    settings = {"num_envs": 2, **kwargs}
    with pytest.raises(ValueError, match=message):
        SeatVectorEnv(**settings)


def test_bad_actions_and_options_are_refused_and_change_nothing():
    env = SeatVectorEnv(2, rules=SHORT)
    with pytest.raises(ValueError, match="call reset"):
        env.step(np.array([0, 0]))
    env.reset(seed=2)
    state = env.state
    with pytest.raises(ValueError, match=r"one per lane: shape \(2,\)"):
        env.step(np.array([0, 0, 0]))
    with pytest.raises(ValueError, match="an action is an index 0-67, not 68"):
        env.step(np.array([0, 68]))
    with pytest.raises(ValueError, match="whole numbers"):
        env.step(np.array([0.5, 1.0]))
    with pytest.raises(ValueError, match="takes no options"):
        env.reset(options={"state": None})
    assert env.state is state
    assert random_opponent is env.opponent


def test_maskable_ppo_trains_on_the_sb3_vec_env_as_shipped():
    """sb3-contrib's MaskablePPO on SeatVecEnv: a few thousand steps, never an illegal action."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO  # noqa: PLC0415 -- after importorskip
    from sb3_contrib.common.maskable.utils import is_masking_supported  # noqa: PLC0415

    from backalley.batch.sb3 import SeatVecEnv  # noqa: PLC0415 -- needs the rl extra

    torch.set_num_threads(1)
    env = SeatVecEnv(16, rules=SHORT, seed=3)
    assert is_masking_supported(env)
    model = MaskablePPO(
        "MultiInputPolicy", env, n_steps=128, batch_size=256, n_epochs=2, seed=1, device="cpu"
    )
    before = [p.detach().clone() for p in model.policy.parameters()]
    seen = {"steps": 0, "ended": 0, "illegal": 0}

    def count(local, _):
        seen["steps"] += env.num_envs
        infos = local["infos"]
        seen["ended"] += sum("terminal_observation" in info for info in infos)
        seen["illegal"] += sum("reason" in info for info in infos)
        return True

    from stable_baselines3.common.callbacks import ConvertCallback  # noqa: PLC0415

    model.learn(total_timesteps=4096, callback=ConvertCallback(count))
    assert seen["steps"] >= 4096 and seen["ended"] > 0 and seen["illegal"] == 0
    assert any(
        not torch.equal(a, b) for a, b in zip(before, model.policy.parameters(), strict=True)
    )
    # SB3's reset/step contract: observations of N lanes, one info dict per lane.
    obs = env.reset()
    masks = env.action_masks()
    assert obs["observation"].shape == (16, 696) and masks.any(axis=1).all()
    env.step_async(np.argmax(masks, axis=1))
    obs, rewards, dones, infos = env.step_wait()
    assert rewards.shape == dones.shape == (16,) and len(infos) == 16
    assert (
        env.env_method("action_masks", indices=[0, 1])[1].tolist() == env.action_masks()[1].tolist()
    )
    with pytest.raises(AttributeError, match="share their settings"):
        env.set_attr("seat", 1)


# --- the heuristic opponent, compiled: the player's choice at every decision ----------


def heuristic_differential(schedules, *, lanes, steps, seed, opponent=None, player=None):
    """Play ``lanes`` matches per schedule; every decision of the three opponent seats is
    the compiled heuristic's, compared with ``HeuristicPlayer()`` on the reference state.

    South plays uniformly random legal actions. Returns the decisions compared.
    """
    player = player or HeuristicPlayer()
    choose = jax.jit(opponent or heuristic_opponent())
    rng = np.random.default_rng(seed)
    compared = 0
    for number, schedule in enumerate(schedules):
        env = Env(Rules(schedule=schedule))
        twin = Twin(env, env.init(seed + 1000 * number, n=lanes))
        for _ in range(steps):  # a bound: every match ends well within it
            chosen = np.asarray(choose(twin.state, jax.random.key(0)))
            movers = np.asarray(twin.state.current_player)
            learner = uniform(twin.state, rng)
            actions = np.where(movers == int(Seat.SOUTH), learner, chosen)
            actions = np.where(movers >= 0, actions, -1).astype(np.int32)
            if (actions < 0).all():
                break
            for lane, match in enumerate(twin.states):
                mover = match.to_move
                if mover is None or mover is Seat.SOUTH:
                    continue
                expected = player(view(match, mover), legal_actions(match))
                assert index_action(int(chosen[lane]), mover) == expected, (lane, match)
                compared += 1
            refused = twin.step(actions)
            assert not refused.any()
        assert np.asarray(twin.state.terminated | twin.state.truncated).all()
    return compared


def test_the_compiled_heuristic_chooses_as_the_heuristic_player_at_every_decision():
    compared = heuristic_differential([[3, 2, 1], [7, 1]], lanes=8, steps=200, seed=5)
    assert compared >= 400


def test_the_compiled_heuristic_bids_small_deals_as_the_player():
    """One- and two-card deals: Board on any trump, and no throw-in by the last bidder."""
    compared = heuristic_differential([[1, 1, 1, 1, 1, 1], [2, 1, 2]], lanes=16, steps=200, seed=8)
    assert compared >= 300


def test_sb3s_vec_env_plays_against_the_compiled_heuristic():
    pytest.importorskip("stable_baselines3")
    from backalley.batch.sb3 import SeatVecEnv  # noqa: PLC0415 -- needs the rl extra

    env = SeatVecEnv(4, rules=SHORT, seed=3, opponent="heuristic")
    assert env.vector.opponent == heuristic_opponent()
    observations = env.reset()
    rng = np.random.default_rng(2)
    for _ in range(40):  # a few short matches; autoreset starts the next
        actions = masked_choices(rng, env.action_masks())
        observations, _, _, infos = env.step(np.asarray(actions))
        assert not any("reason" in info for info in infos)
    assert observations["observation"].shape[0] == 4


def test_the_compiled_heuristic_rounds_as_the_player_it_was_made_from():
    opponent = heuristic_opponent(0.55)
    player = HeuristicPlayer(0.55)
    compared = heuristic_differential(
        [[7, 1]], lanes=8, steps=200, seed=5, opponent=opponent, player=player
    )
    assert compared >= 200


def test_the_differential_test_sees_a_different_rounding():
    """The comparison can fail: a heuristic that rounds up from 0.55 differs somewhere."""
    with pytest.raises(AssertionError):
        heuristic_differential(
            [[7, 1]], lanes=8, steps=200, seed=5, opponent=heuristic_opponent(0.55)
        )


@pytest.mark.slow
def test_the_compiled_heuristic_matches_the_player_over_many_matches():
    schedules = [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13], [2, 2], [13, 13, 13], [5]]
    compared = heuristic_differential(schedules, lanes=32, steps=1000, seed=11)
    assert compared >= 10_000
