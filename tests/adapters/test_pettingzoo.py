"""The PettingZoo and Gymnasium environments: their frameworks' checks; ``apply`` at every step."""
# ruff: noqa: E402 -- the framework is imported only after importorskip has found it

import json
import random
import warnings

import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")
np = pytest.importorskip("numpy")

import gymnasium
from gymnasium.utils import env_checker
from pettingzoo.test import api_test, render_test, seed_test
from pettingzoo.utils import wrappers

import backalley.pettingzoo as bp
from backalley import (
    IllegalAction,
    MatchState,
    Rules,
    Seat,
    apply,
    legal_actions,
    new_match,
    seeded_deal,
)
from backalley.adapters import encoding
from backalley.core.action_index import action_index
from backalley.core.position import COUNTED
from backalley.engine.state import Phase
from backalley.engine.view import view
from backalley.formats.records import dumps, record_from_state, record_to_json
from backalley.players import HeuristicPlayer, RandomPlayer

# api_test's advice that does not apply here: observations are dicts with an action mask
# (as in PettingZoo's own card games), and the agents are named by seat, as players know them.
API_ADVICE = (
    # api_test resets with an option of its own ("options"), which the AEC env ignores, saying so.
    "ignore:unknown reset option 'options'",
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
    # The schedule's one deal and two more (EXTRA_DEALS' rule, the batch engine's decks).
    assert len(game.match.history) == 3


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


def no_warnings(check):
    """Run ``check``; the warnings it gave (every one, however often it was given before)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check()
    return [str(warning.message) for warning in caught]


@pytest.mark.parametrize(
    "settings",
    [
        {},
        {"rewards": "match", "observation": "information_state"},
        {"render_mode": "ansi"},
        {"render_mode": "human"},
        {"illegal": "terminate", "illegal_reward": -5},
    ],
)
def test_gymnasiums_check_env_passes_without_a_warning(settings):
    # check_env steps with unmasked random actions: the illegal ones end the episode. It
    # also makes the environment again from its spec in every render mode, and checks each.
    game = bp.SeatEnv(HeuristicPlayer(), schedule=[2, 1], **settings)
    assert no_warnings(lambda: env_checker.check_env(game)) == []


def test_human_mode_prints_the_table_at_every_reset_and_step(capsys):
    game = bp.SeatEnv(RandomPlayer(), schedule=[2], render_mode="human")
    game.reset(seed=3)
    assert capsys.readouterr().out.count("Deal 1 of 1") == 1
    assert game.render() is None
    assert capsys.readouterr().out.count("South to") == 1
    game.step(int(np.flatnonzero(game.action_masks())[0]))
    assert "Deal 1 of 1" in capsys.readouterr().out
    quiet = bp.SeatEnv(RandomPlayer(), schedule=[2], render_mode="ansi")
    quiet.reset(seed=3)
    assert capsys.readouterr().out == ""
    assert "South to" in quiet.render()


def test_gymnasium_makes_the_seat_environment_by_its_id():
    game = gymnasium.make(bp.SEAT_ENV_ID, players=RandomPlayer(), schedule=[2])
    assert isinstance(game.unwrapped, bp.SeatEnv)
    observation, _ = game.reset(seed=1)
    assert game.observation_space.contains(observation)
    assert game.unwrapped.spec.kwargs["schedule"] == [2]


def test_the_seat_environment_passes_stable_baselines3s_check_env():
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    for settings in ({}, {"rewards": "match", "observation": "information_state"}):
        game = bp.SeatEnv(RandomPlayer(), schedule="short", **settings)
        assert no_warnings(lambda game=game: sb3_checker.check_env(game)) == []


def test_an_illegal_action_ends_the_episode_with_its_reason_and_the_penalty():
    game = bp.SeatEnv(RandomPlayer(), schedule=[3, 2], illegal_reward=-7.5)
    observation, info = game.reset(seed=5)
    before = game.match
    card = 14 + int(game.match.deal.hand(Seat.SOUTH)[0])  # a card, while bidding
    observation, reward, terminated, truncated, info = game.step(card)
    assert (reward, terminated, truncated) == (-7.5, True, False)
    assert info["illegal_action"] == card
    assert info["reason"] == "wrong_phase"
    assert "bidding" in info["message"]
    assert game.match == before  # nothing was applied
    assert observation["action_mask"].tolist() == info["action_mask"].tolist()
    assert not game.action_masks().any()
    with pytest.raises(ValueError, match="reset"):
        game.step(0)
    # reset starts afresh
    _, info = game.reset(seed=5)
    assert info["action_mask"].any() and game.match == before


def test_an_illegal_bid_names_its_own_reason():
    game = bp.SeatEnv(RandomPlayer(), schedule=[3])
    game.reset(seed=2)
    _, reward, terminated, _, info = game.step(12)  # 12 tricks of 3
    assert terminated and reward == -1.0
    assert info["reason"] not in (None, "wrong_phase")
    assert "illegal_action" in info


def test_illegal_raise_refuses_and_changes_nothing():
    game = bp.SeatEnv(RandomPlayer(), schedule=[3, 2], illegal="raise")
    game.reset(seed=5)
    before = game.match
    with pytest.raises(IllegalAction) as refusal:
        game.step(14 + int(game.match.deal.hand(Seat.SOUTH)[0]))
    assert refusal.value.reason.value == "wrong_phase"
    assert game.match == before
    game.step(int(np.flatnonzero(game.action_masks())[0]))  # and play goes on


@pytest.mark.parametrize("illegal", ["terminate", "raise"])
def test_a_value_outside_the_action_space_raises_whatever_the_policy(illegal):
    game = bp.SeatEnv(RandomPlayer(), schedule=[2], illegal=illegal)
    game.reset(seed=1)
    with pytest.raises(ValueError, match="0-67"):
        game.step(68)
    with pytest.raises(TypeError, match="index"):
        game.step("pass")


def test_a_seat_takes_any_integer_like_action():
    """An int, a NumPy integer or a 0-d array (what ``model.predict`` gives for one env)."""
    game = bp.SeatEnv(RandomPlayer(), schedule=[2])
    steps = 0
    for kind in (int, np.int64, np.uint8, np.array, lambda i: np.array(i, np.int32)):
        observation, _ = game.reset(seed=5)
        twin = bp.SeatEnv(RandomPlayer(), schedule=[2])
        twin.reset(seed=5)
        ended = False
        while not ended:
            index = int(np.flatnonzero(observation["action_mask"])[0])
            observation, reward, ended, truncated, _ = game.step(kind(index))
            expected = twin.step(index)
            assert (reward, ended) == (expected[1], expected[2])
            assert game._table.match == twin._table.match
            ended = ended or truncated
            steps += 1
    assert steps > 4
    game.reset(seed=5)
    for bad in (True, np.bool_(False), np.array(True), 1.0, np.array([3]), np.array(2.0)):
        with pytest.raises(TypeError, match="0-d integer array"):
            game.step(bad)


@pytest.mark.parametrize(
    ("settings", "words"),
    [
        ({"illegal": "ignore"}, "illegal"),
        ({"illegal_reward": "a lot"}, "illegal_reward"),
        ({"illegal_reward": True}, "illegal_reward"),
        ({"render_mode": "rgb_array"}, "render_mode"),
    ],
)
def test_bad_seat_settings_are_named(settings, words):
    with pytest.raises((ValueError, TypeError), match=words):
        bp.SeatEnv(RandomPlayer(), **settings)


def test_action_masks_are_the_legal_actions_as_booleans():
    game = bp.SeatEnv(RandomPlayer(), seat=Seat.EAST, schedule=[3, 2, 1])
    _, info = game.reset(seed=9)
    rng = random.Random(9)
    done = False
    while not done:
        masks = game.action_masks()
        assert masks.dtype == np.bool_ and masks.shape == (68,)
        assert masks.tolist() == info["action_mask"].astype(bool).tolist()
        legal = legal_actions(game.match)
        assert np.flatnonzero(masks).tolist() == sorted(action_index(a) for a in legal)
        action = rng.choice(np.flatnonzero(masks).tolist())
        _, _, terminated, truncated, info = game.step(action)
        assert "reason" not in info
        done = terminated or truncated
    assert not game.action_masks().any()


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
        ({"render_mode": "rgb_array"}, "render_mode"),
        ({"rules": Rules(), "schedule": "short"}, "not both"),
    ],
)
def test_bad_settings_are_named(settings, words):
    with pytest.raises(ValueError, match=words):
        bp.raw_env(**settings)


# --- the AEC environment: masks in infos, render modes ---------------------------------


def test_the_infos_carry_each_agents_mask():
    game = bp.raw_env(schedule=[3, 2])
    game.reset(seed=6)
    rng = random.Random(6)
    steps = 0
    while game.agents and steps < 500:
        steps += 1
        for agent in game.agents:
            mask = game.infos[agent]["action_mask"]
            assert mask.tolist() == game.observe(agent)["action_mask"].tolist()
            assert mask.any() == (agent == game.agent_selection and not game.terminations[agent])
        agent = game.agent_selection
        if game.terminations[agent] or game.truncations[agent]:
            game.step(None)
        else:
            game.step(rng.choice(np.flatnonzero(game.infos[agent]["action_mask"]).tolist()))
    assert game.agents == []


def test_pettingzoos_terminate_illegal_wrapper_reads_the_mask():
    game = wrappers.TerminateIllegalWrapper(bp.raw_env(schedule=[2]), illegal_reward=-1)
    game.reset(seed=2)
    agent = game.agent_selection
    game.step(20)  # a card while bidding
    assert game.terminations[agent] and game.rewards[agent] == -1


def test_render_test():
    render_test(lambda render_mode=None: bp.env(schedule=[2, 1], render_mode=render_mode))


def test_human_mode_prints_every_step_of_the_aec_environment(capsys):
    game = bp.env(schedule=[1], render_mode="human")
    game.reset(seed=1)
    assert game.render() is None
    first = capsys.readouterr().out
    assert first.count("Deal 1 of 1") == 2  # at the reset and for render()
    game.step(0)
    assert "E pass" in capsys.readouterr().out


# --- reset from a position ------------------------------------------------------------


def _midway(rules, seed, steps):
    """A match played at random for ``steps`` actions (deals included), or to its end."""
    rng = random.Random(seed)
    state = new_match(rules, seed=seed)
    for _ in range(steps):
        if state.is_over:
            break
        state = apply(state, rng.choice(legal_actions(state)))
    return state


@pytest.mark.parametrize("form", ["state", "record", "json", "data"])
def test_the_aec_environment_starts_from_a_position_in_any_form(form):
    rules = Rules(schedule=[3, 2], tie="tiebreak-deal")
    position = _midway(rules, 11, 12)
    record = record_from_state(position)
    given = {
        "state": position,
        "record": record,
        "json": dumps(record),
        "data": record_to_json(record),
    }[form]
    game = bp.raw_env(rules=rules)
    game.reset(seed=0, options={"state": given})
    assert game.match == _deal_all(position)
    assert game.agent_selection == bp.AGENTS[position.to_move]
    # and play goes on, agreeing with apply
    reference = game.match
    rng = random.Random(1)
    while game.agents:
        agent = game.agent_selection
        if game.terminations[agent] or game.truncations[agent]:
            game.step(None)
            continue
        action = rng.choice(legal_actions(reference))
        game.step(action_index(action))
        reference = _deal_all(apply(reference, action))
        assert game.match == reference
    assert reference.is_over


def test_the_seat_environment_starts_from_a_position_and_plays_the_others_to_its_turn():
    rules = Rules(schedule=[3, 2])
    position = _midway(rules, 4, 8)  # mid-deal, some seat to act
    for seat in Seat:
        game = bp.SeatEnv(RandomPlayer(), seat=seat, rules=rules)
        observation, info = game.reset(seed=2, options={"state": record_from_state(position)})
        assert game.match.to_move == seat
        assert game.match.history == position.history
        assert observation["observation"].tolist() == pytest.approx(
            encoding.observation_tensor(view(game.match, seat))
        )
        assert info["action_mask"].any()
    # Between deals, the next deal is dealt from the position's own seed.
    between = _midway(rules, 4, 1 + 4 + 12)
    assert between.deal is None and not between.is_over
    game = bp.SeatEnv(RandomPlayer(), rules=rules)
    game.reset(options={"state": between})
    assert game.match.history[0] == between.history[0]
    assert game.match.deal.setup.deck == seeded_deal(between).deck


def test_an_unknown_reset_option_is_refused_by_the_seat_env_and_ignored_aloud_by_the_aec():
    game = bp.SeatEnv(RandomPlayer(), schedule=[2])
    with pytest.raises(ValueError, match=r"unknown reset option 'position'.*'state'"):
        game.reset(options={"position": new_match(Rules(schedule=[2]))})
    with pytest.raises(TypeError, match="dict"):
        game.reset(options=[("state", None)])
    game.reset(options={})  # no option at all is fine
    aec = bp.raw_env(schedule=[2])
    with pytest.warns(UserWarning, match="unknown reset option 'position'"):
        aec.reset(options={"position": 1})


@pytest.mark.parametrize(
    ("given", "kind", "words"),
    [
        (new_match(Rules(schedule=[3])), ValueError, "other rules"),
        (_midway(Rules(schedule=[2]), 1, 1_000), ValueError, "finished match"),
        (
            MatchState(
                tuple(
                    1 if index == COUNTED else value
                    for index, value in enumerate(new_match(Rules(schedule=[2])).position)
                ),
                0,
            ),
            ValueError,
            "not a position",
        ),
        ('{"format": "backalley-record"}', ValueError, "not a position"),
        ({"format": "chess"}, ValueError, "not a position"),
        (42, TypeError, "MatchState or a game record"),
    ],
)
def test_a_bad_starting_position_is_refused_with_a_clear_error(given, kind, words):
    for game in (bp.SeatEnv(RandomPlayer(), schedule=[2]), bp.raw_env(schedule=[2])):
        with pytest.raises(kind, match=words):
            game.reset(options={"state": given})


def test_an_illegal_record_is_refused_naming_the_action():
    rules = Rules(schedule=[2])
    data = record_to_json(record_from_state(_midway(rules, 3, 3)))
    data["deals"][0]["bids"].append("board")
    data["deals"][0]["bids"][0] = "7"  # seven tricks of two
    game = bp.SeatEnv(RandomPlayer(), rules=rules)
    with pytest.raises(ValueError, match="not a position"):
        game.reset(options={"state": json.dumps(data)})


def test_a_position_past_the_extra_deals_is_refused():
    rules = Rules(schedule=[1])
    state = new_match(rules, seed=1)
    for _ in range(3):  # the scheduled deal and two more thrown in: four passes each
        state = apply(state, seeded_deal(state))
        for _ in range(4):
            state = apply(state, legal_actions(state)[0])
    game = bp.raw_env(rules=rules, max_extra_deals=2)
    game.reset(seed=4)
    before = game.match
    with pytest.raises(ValueError, match="max_extra_deals"):
        game.reset(options={"state": state})
    assert game.match is before  # refused whole
