"""What a reinforcement-learning user meets first: players by name, partners, a flat
observation, the warning that names masked evaluation, the prefixed Gymnasium id and
one truncation rule for every environment."""

from __future__ import annotations

import importlib.util
import inspect
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")
pytest.importorskip("numpy")

import numpy as np

import backalley.pettingzoo as bp
from backalley import Rules, Seat, apply, legal_actions, new_match
from backalley.core.action_index import action_index
from backalley.engine.bounds import EXTRA_DEALS
from backalley.engine.match import seeded_deal
from backalley.engine.state import Phase
from backalley.players import HeuristicPlayer, RandomPlayer

ROOT = Path(__file__).resolve().parents[2]


def _play_out(env: bp.SeatEnv, seed: int) -> None:
    _, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(2000):
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            return
    raise AssertionError("the episode did not end")


def test_players_by_name_play_a_match() -> None:
    env = bp.SeatEnv("heuristic", schedule=[3, 2])
    assert all(isinstance(player, HeuristicPlayer) for player in env._players)
    _play_out(env, 1)
    assert env.match.is_over


@pytest.mark.parametrize(
    ("players", "error", "words"),
    [
        ("heuristics", ValueError, "the player for North is a player or one of the names"),
        (42, TypeError, "the player for North is a player .a callable"),
        ({Seat.WEST: "random", Seat.NORTH: None, Seat.EAST: "random"}, TypeError, "North"),
    ],
)
def test_a_player_that_is_none_is_refused_when_made(
    players: object, error: type[Exception], words: str
) -> None:
    with pytest.raises(error, match=words):
        bp.SeatEnv(players, schedule=[2])  # type: ignore[arg-type]


class Counting:
    """A player that remembers the seats it acted for."""

    def __init__(self, inner: object) -> None:
        self.inner = inner
        self.seats: set[Seat] = set()

    def __call__(self, view, legal):  # type: ignore[no-untyped-def]
        self.seats.add(view.seat)
        return self.inner(view, legal)  # type: ignore[operator]


def test_a_partner_of_its_own_against_the_opponents() -> None:
    partner, opponents = Counting(RandomPlayer(3)), Counting(HeuristicPlayer())
    env = bp.SeatEnv(opponents, seat=Seat.SOUTH, partner=partner, schedule=[3, 3])
    _play_out(env, 4)
    assert partner.seats == {Seat.NORTH}
    assert opponents.seats == {Seat.EAST, Seat.WEST}
    named = bp.SeatEnv("heuristic", seat=Seat.EAST, partner="random", schedule=[2])
    kinds = dict(zip(named._others, map(type, named._players), strict=True))
    assert kinds == {
        Seat.NORTH: HeuristicPlayer,
        Seat.SOUTH: HeuristicPlayer,
        Seat.WEST: RandomPlayer,
    }


def test_the_flat_observation_is_the_tensor_then_the_mask() -> None:
    env = bp.SeatEnv(RandomPlayer(), schedule=[3, 2], flat=True)
    dict_env = bp.SeatEnv(RandomPlayer(), schedule=[3, 2])
    flat, info = env.reset(seed=9)
    seen, _ = dict_env.reset(seed=9)
    assert env.observation_space.shape == (696 + 68,)
    assert env.observation_space.contains(flat)
    assert np.array_equal(flat[:696], seen["observation"])
    assert np.array_equal(flat[696:], info["action_mask"].astype(np.float32))
    for _ in range(3):
        action = int(np.flatnonzero(env.action_masks())[0])
        flat, *_ = env.step(action)
        seen, *_ = dict_env.step(action)
        assert env.observation_space.contains(flat)
        assert np.array_equal(flat, bp.flatten(seen))
    with pytest.raises(TypeError, match="flat is True or False"):
        bp.SeatEnv(RandomPlayer(), flat="yes")  # type: ignore[arg-type]


def test_mlp_policy_trains_on_the_flat_observation() -> None:
    pytest.importorskip("sb3_contrib")
    import torch  # noqa: PLC0415
    from sb3_contrib import MaskablePPO  # noqa: PLC0415

    torch.set_num_threads(1)
    env = bp.SeatEnv("random", schedule=[3, 2], flat=True)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0)
    model.learn(128)
    observation, _ = env.reset(seed=3)
    action, _ = model.predict(observation, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(action)]


def test_an_illegal_action_alone_does_not_warn() -> None:
    # check_env steps with random actions: an illegal one is no mistake there.
    env = bp.SeatEnv(RandomPlayer(), schedule=[3, 2])
    env.reset(seed=5)
    with warnings.catch_warnings():
        warnings.simplefilter("error", bp.IllegalActionWarning)
        _, reward, terminated, _, info = env.step(20)  # a card while South bids
    assert (reward, terminated, info["reason"]) == (-1.0, True, "wrong_phase")


def test_evaluate_policy_without_masks_warns_and_with_masks_does_not() -> None:
    pytest.importorskip("sb3_contrib")
    import torch  # noqa: PLC0415
    from sb3_contrib import MaskablePPO  # noqa: PLC0415
    from sb3_contrib.common.maskable.evaluation import evaluate_policy as masked  # noqa: PLC0415
    from stable_baselines3.common.evaluation import evaluate_policy as unmasked  # noqa: PLC0415

    torch.set_num_threads(1)
    env = bp.SeatEnv("random", schedule=[2])
    model = MaskablePPO("MultiInputPolicy", env, n_steps=32, seed=1)
    episodes = 5
    with pytest.warns(bp.IllegalActionWarning) as caught:
        rewards, _ = unmasked(
            model, env, n_eval_episodes=episodes, return_episode_rewards=True, warn=False
        )
    assert rewards == [-1.0] * episodes  # what the warning is about
    text = str(caught[0].message)
    assert "from sb3_contrib.common.maskable.evaluation import evaluate_policy" in text
    with warnings.catch_warnings():
        warnings.simplefilter("error", bp.IllegalActionWarning)
        rewards, _ = masked(
            model, env, n_eval_episodes=episodes, return_episode_rewards=True, warn=False
        )
    assert len(rewards) == episodes
    assert set(rewards) != {-1.0}


def test_the_prefixed_id_makes_the_environment_in_a_fresh_process() -> None:
    code = (
        "import gymnasium\n"
        "env = gymnasium.make('backalley.pettingzoo:backalley/Seat-v0', players='random',"
        " schedule=[2])\n"
        "observation, info = env.reset(seed=1)\n"
        "print(type(env.unwrapped).__name__, int(info['action_mask'].sum()))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] == "SeatEnv"


def test_the_docs_never_give_the_plain_id_to_make() -> None:
    # Gymnasium 1.0 dropped the entry-point plugins: the plain id is known only once
    # backalley.pettingzoo is imported, so every call the docs show names the module.
    pages = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
    calls = [
        (page.name, found)
        for page in pages
        for found in re.findall(r"make(?:_vec)?\(\s*\"([^\"]*Seat-v0)\"", page.read_text())
    ]
    assert calls, "the docs show gymnasium.make for SeatEnv"
    assert all(name.startswith("backalley.pettingzoo:") for _, name in calls), calls


class AlwaysPass:
    def __call__(self, view, legal):  # type: ignore[no-untyped-def]
        return legal[0]  # Pass while bidding


def test_one_truncation_rule_for_every_environment() -> None:
    assert inspect.signature(bp.SeatEnv).parameters["max_extra_deals"].default == EXTRA_DEALS
    if importlib.util.find_spec("pyspiel") is not None:
        from backalley.adapters.openspiel import PARAMETERS  # noqa: PLC0415

        assert PARAMETERS["max_extra_deals"] == EXTRA_DEALS
    env = bp.SeatEnv(AlwaysPass(), schedule=[1])
    env.reset(seed=2)
    for _ in range(100):
        _, _, terminated, truncated, _ = env.step(0)
        if terminated or truncated:
            break
    assert truncated and not terminated
    assert len(env.match.history) == EXTRA_DEALS + 1  # the scheduled deal and the spares


def test_the_vector_environment_truncates_by_the_same_rule() -> None:
    pytest.importorskip("jax")
    import jax.numpy as jnp  # noqa: PLC0415

    from backalley.batch.engine import SPARE_DEALS  # noqa: PLC0415
    from backalley.batch.vector import SeatVectorEnv  # noqa: PLC0415

    assert SPARE_DEALS == EXTRA_DEALS

    def always_pass(state, key):  # type: ignore[no-untyped-def]
        return jnp.zeros(state.phase.shape[0], jnp.int32)

    tables = SeatVectorEnv(2, schedule=[1], opponent=always_pass)
    tables.reset(seed=2)
    for _ in range(100):
        _, _, terminated, truncated, _ = tables.step(np.zeros(2, np.int64))
        if truncated.all():
            break
    assert truncated.all() and not terminated.any()
    assert len(tables.lane_state(0).history) == EXTRA_DEALS + 1


def test_the_vector_partner_plays_the_partners_seat() -> None:
    pytest.importorskip("jax")
    import jax.numpy as jnp  # noqa: PLC0415

    from backalley.batch.vector import SeatVectorEnv  # noqa: PLC0415

    def highest(state, key):  # type: ignore[no-untyped-def]
        mask = state.legal_action_mask
        return (67 - jnp.argmax(mask[:, ::-1], axis=1)).astype(jnp.int32)

    def lowest(state, key):  # type: ignore[no-untyped-def]
        return jnp.argmax(state.legal_action_mask, axis=1).astype(jnp.int32)

    tables = SeatVectorEnv(2, schedule=[3, 3], opponent=lowest, partner=highest)
    tables.reset(seed=11)
    for _ in range(5):  # South's two bids and three cards at most: the first match
        tables.step(tables.action_masks().argmax(axis=1))
    # Replay lane 0's actions through apply: North (the partner) always chose its highest
    # legal index, East and West their lowest.
    match = new_match(Rules(schedule=[3, 3]), seed=tables.lane_state(0).seed)
    checked = 0
    for index in tables.engine.actions_of(tables.state, 0):
        while match.phase is Phase.DEAL:
            match = apply(match, seeded_deal(match))
        legal = {action_index(action): action for action in legal_actions(match)}
        if match.to_move == Seat.NORTH:
            assert index == max(legal)
            checked += 1
        elif match.to_move in (Seat.EAST, Seat.WEST):
            assert index == min(legal)
        match = apply(match, legal[index])
    assert checked >= 3


def test_sb3_vec_env_warns_inside_the_unmasked_evaluator() -> None:
    pytest.importorskip("jax")
    pytest.importorskip("sb3_contrib")
    import torch  # noqa: PLC0415
    from sb3_contrib import MaskablePPO  # noqa: PLC0415
    from stable_baselines3.common.evaluation import evaluate_policy  # noqa: PLC0415

    from backalley.batch.sb3 import SeatVecEnv  # noqa: PLC0415

    torch.set_num_threads(1)
    env = SeatVecEnv(2, schedule=[2], seed=1)
    model = MaskablePPO("MultiInputPolicy", env, n_steps=16, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", bp.IllegalActionWarning)
        env.reset()
        env.step(np.full(2, 20))  # illegal, outside the evaluator: no warning
    with pytest.warns(bp.IllegalActionWarning, match="SeatVectorEnv: an illegal action"):
        evaluate_policy(model, env, n_eval_episodes=2, warn=False)
