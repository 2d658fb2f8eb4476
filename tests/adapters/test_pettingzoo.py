"""The PettingZoo and Gymnasium environments: their frameworks' checks; ``apply`` at every step."""
# ruff: noqa: E402 -- the framework is imported only after importorskip has found it

import random

import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")
np = pytest.importorskip("numpy")

from gymnasium.utils import env_checker
from pettingzoo.test import api_test, seed_test

import backalley.pettingzoo as bp
from backalley import Rules, Seat, apply, legal_actions, new_match, seeded_deal
from backalley.adapters import encoding
from backalley.core.action_index import action_index
from backalley.engine.state import Phase
from backalley.engine.view import view
from backalley.players import HeuristicPlayer, RandomPlayer

# api_test's advice that does not apply here: observations are dicts with an action mask
# (as in PettingZoo's own card games), and the agents are named by seat, as players know them.
API_ADVICE = (
    "ignore:Observation is not a NumPy array",
    "ignore:Observation space for each agent probably should be",
    "ignore:We recommend agents to be named",
)


def quiet_advice(test):
    for advice in API_ADVICE:
        test = pytest.mark.filterwarnings(advice)(test)
    return test


@quiet_advice
def test_api_test():
    api_test(bp.env(schedule=[3, 2, 1]), num_cycles=300)


@quiet_advice
def test_api_test_with_the_information_state_and_match_rewards():
    api_test(bp.env(schedule=[2, 2], rewards="match", observation="information_state"), 200)


def test_seed_test():
    seed_test(lambda: bp.env(schedule="short"), num_cycles=100)


def _deal_all(match):
    while match.phase is Phase.DEAL:
        match = apply(match, seeded_deal(match))
    return match


@pytest.mark.parametrize("seed", range(4))
def test_every_step_agrees_with_apply(seed):
    rules = Rules(schedule=[3, 1, 2], tie="tiebreak-deal")
    game = bp.env(rules=rules)
    game.reset(seed=seed)
    reference = _deal_all(new_match(rules, seed=seed))
    rng = random.Random(seed)
    totals = dict.fromkeys(bp.AGENTS, 0.0)
    for agent in game.agent_iter(2_000):
        observation, reward, terminated, truncated, _ = game.last()
        totals[agent] += reward
        if terminated or truncated:
            game.step(None)
            continue
        seat = reference.to_move
        assert agent == bp.AGENTS[seat]
        legal = legal_actions(reference)
        mask = observation["action_mask"]
        assert sorted(np.flatnonzero(mask).tolist()) == sorted(action_index(a) for a in legal)
        assert observation["observation"].tolist() == pytest.approx(
            encoding.observation_tensor(view(reference, seat))
        )
        action = rng.choice(legal)
        game.step(action_index(action))
        reference = _deal_all(apply(reference, action))
        assert game.unwrapped.match == reference
    assert game.agents == []
    ns, ew = reference.totals
    if reference.is_over:
        assert totals == {"north": ns - ew, "east": ew - ns, "south": ns - ew, "west": ew - ns}


def test_a_match_that_cannot_end_is_truncated():
    game = bp.raw_env(schedule=[1], max_extra_deals=2)
    game.reset(seed=1)
    while not any(game.truncations.values()) and not any(game.terminations.values()):
        game.step(0)  # everybody passes: every deal is thrown in
    assert all(game.truncations.values()) and not any(game.terminations.values())
    assert len(game.match.history) == 2


def test_an_illegal_action_is_refused_with_its_reason():
    game = bp.raw_env(schedule=[2, 2])
    game.reset(seed=3)
    with pytest.raises(ValueError, match="bid"):
        game.step(7)
    with pytest.raises(ValueError, match="0-67"):
        game.step(68)
    with pytest.raises(TypeError, match="index"):
        game.step("pass")
    # Play the first deal out, then refuse an action: nothing changes, rewards included.
    while len(game.match.history) < 1:
        game.step(int(np.flatnonzero(game.action_mask(game.agent_selection))[-1]))
    before = (game.match, game.agent_selection, dict(game._cumulative_rewards))
    assert before[2][game.agent_selection] != 0  # the deal's reward, not yet collected
    with pytest.raises(ValueError):
        game.step(13 if game.match.deal.leader is not None else 14)
    assert (game.match, game.agent_selection, dict(game._cumulative_rewards)) == before


def test_render_is_the_text_layer():
    game = bp.env(schedule=[2], render_mode="ansi")
    game.reset(seed=5)
    text = game.render()
    assert "Deal 1 of 1" in text and "to bid" in text


def test_the_seat_environment_passes_gymnasiums_reset_checks():
    # Gymnasium's full check_env steps with unmasked random actions, which the rules refuse.
    game = bp.SeatEnv(HeuristicPlayer(), schedule=[2, 1])
    env_checker.check_reset_return_type(game)
    env_checker.check_reset_seed_determinism(game)
    env_checker.check_reset_options(game)
    env_checker.check_space_limit(game.observation_space, "observation")
    observation, info = game.reset(seed=2)
    assert game.observation_space.contains(observation)
    assert info["action_mask"].tolist() == observation["action_mask"].tolist()


def test_the_seat_environment_plays_the_other_seats_with_their_players():
    game = bp.SeatEnv(RandomPlayer(), seat=Seat.WEST, schedule=[3, 2], rewards="match")
    _, info = game.reset(seed=8)
    rng = random.Random(0)
    total = 0.0
    for _ in range(100):
        assert game.match.to_move == Seat.WEST
        action = rng.choice(np.flatnonzero(info["action_mask"]).tolist())
        _, reward, terminated, truncated, info = game.step(action)
        total += reward
        if terminated or truncated:
            break
    assert terminated
    winner = game.match.outcome.winner
    assert total == (0 if winner is None else 1 if winner == 1 else -1)


def test_the_seat_environment_is_reproducible_from_its_seed():
    def run():
        game = bp.SeatEnv(RandomPlayer(), schedule=[3, 2])
        _, info = game.reset(seed=4)
        done = False
        while not done:
            action = int(np.flatnonzero(info["action_mask"])[0])
            _, _, terminated, truncated, info = game.step(action)
            done = terminated or truncated
        return game.match

    assert run() == run()


@pytest.mark.parametrize(
    ("settings", "words"),
    [
        ({"rewards": "points"}, "rewards"),
        ({"observation": "cards"}, "observation"),
        ({"max_extra_deals": 0}, "max_extra_deals"),
        ({"render_mode": "human"}, "render_mode"),
        ({"rules": Rules(), "schedule": "short"}, "not both"),
    ],
)
def test_bad_settings_are_named(settings, words):
    with pytest.raises(ValueError, match=words):
        bp.raw_env(**settings)
