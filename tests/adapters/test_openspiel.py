"""The OpenSpiel game against the reference ``apply``, OpenSpiel's own checks and its bots."""
# ruff: noqa: E402 -- the framework is imported only after importorskip has found it

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pyspiel = pytest.importorskip("pyspiel")
np = pytest.importorskip("numpy")

from open_spiel.python.algorithms import evaluate_bots, mcts

import backalley.openspiel as bo
from backalley import (
    Card,
    Deal,
    IllegalAction,
    Rules,
    Seat,
    apply,
    legal_actions,
    new_match,
    seeded_deck,
)
from backalley.adapters import encoding
from backalley.core.action_index import action_index
from backalley.core.cards import CARDS
from backalley.engine.sampling import sample_state
from backalley.engine.view import view
from backalley.players import HeuristicPlayer, RandomPlayer, play_match, player_seed

GAME = "python_back_alley"


def load(**params):
    return pyspiel.load_game(GAME, params)


@pytest.mark.parametrize(
    "params",
    [
        {"one_deal": 1},
        {"one_deal": 4, "returns": "margin"},
        {"schedule": "2/1", "tie": "tiebreak-deal", "first_dealer": "W"},
        {"schedule": "3/3", "max_extra_deals": 1},
    ],
)
def test_random_sim_test_with_serialization(params):
    pyspiel.random_sim_test(load(**params), num_sims=4, serialize=True, verbose=False)


def test_the_default_game_is_a_standard_match():
    game = pyspiel.load_game(GAME)
    assert game.settings.rules == Rules()
    assert game.num_distinct_actions() == 68
    assert game.max_chance_outcomes() == 122
    assert game.num_players() == 4
    assert game.observation_tensor_size() == encoding.OBSERVATION.size
    assert game.information_state_tensor_size() == encoding.INFORMATION_STATE.size


def _replay_differential(game, rng):
    """Play ``game`` at random; at every step the reference match must agree with it."""
    rules = game.settings.rules
    state = game.new_initial_state()
    reference = new_match(rules, seed=0)
    drawn = []
    steps = 0
    while not state.is_terminal():
        steps += 1
        assert steps < 5_000
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert pyspiel.State.legal_actions(state) == state.legal_actions()
            left = [card for card in CARDS if card not in drawn]
            assert [action for action, _ in outcomes] == [bo.chance_action(c) for c in left]
            assert sum(p for _, p in outcomes) == pytest.approx(1.0)
            action = rng.choice(outcomes)[0]
            drawn.append(CARDS[action - bo.CHANCE_OFFSET])
            state.apply_action(action)
            if not state.is_chance_node():
                deck = (*drawn, *(card for card in CARDS if card not in drawn))
                reference = apply(reference, Deal(deck))
                drawn = []
            continue
        seat = reference.to_move
        assert seat is not None
        assert state.current_player() == int(seat)
        expected = sorted(action_index(action) for action in legal_actions(reference))
        assert state.legal_actions() == expected
        # The Python shortcut gives what OpenSpiel's own C++ path gives.
        assert pyspiel.State.legal_actions(state) == expected
        assert pyspiel.State.is_chance_node(state) is False
        for other in range(4):
            if other != int(seat):
                assert state.legal_actions(other) == pyspiel.State.legal_actions(state, other) == []
        assert state.match == reference
        action = rng.choice(expected)
        state.apply_action(action)
        chosen = [a for a in legal_actions(reference) if action_index(a) == action]
        reference = apply(reference, chosen[0])
    assert drawn == []
    assert state.match.totals == reference.totals
    assert state.match.outcome == reference.outcome
    return state, reference


@pytest.mark.parametrize("seed", range(6))
def test_every_step_agrees_with_apply(seed):
    rng = random.Random(seed)
    game = load(schedule="3/1/2", tie="tiebreak-deal", first_dealer="E")
    state, reference = _replay_differential(game, rng)
    ns, ew = reference.totals
    outcome = reference.outcome
    if outcome is None:  # stopped by the cap on extra deals
        assert len(reference.history) - reference.counted_deals >= game.settings.max_extra_deals
        sign = (ns > ew) - (ns < ew)
    else:
        sign = 0 if outcome.winner is None else (1 if outcome.winner == 0 else -1)
    assert state.returns() == [sign, -sign, sign, -sign]


@settings(max_examples=15)
@given(
    schedule=st.lists(st.integers(1, 5), min_size=1, max_size=3),
    tie=st.sampled_from(["draw", "tiebreak-deal"]),
    dealer=st.sampled_from("NESW"),
    seed=st.integers(0, 2**32),
)
def test_every_setting_agrees_with_apply(schedule, tie, dealer, seed):
    game = load(schedule="/".join(map(str, schedule)), tie=tie, first_dealer=dealer)
    assert game.settings.rules == Rules(schedule=schedule, tie=tie, first_dealer=dealer)
    _replay_differential(game, random.Random(seed))


def test_margin_returns_are_the_difference_of_totals():
    state, reference = _replay_differential(
        load(schedule="2/2", returns="margin"), random.Random(3)
    )
    ns, ew = reference.totals
    assert state.returns() == [ns - ew, ew - ns, ns - ew, ew - ns]


def test_a_standard_match_agrees_with_apply_to_the_end():
    _replay_differential(pyspiel.load_game(GAME), random.Random(11))


def test_a_turned_joker_draws_the_swap_card_only_when_the_other_joker_was_dealt():
    game = load(one_deal=1)
    # North deals: East, South, West, North get one card each, then BIG is turned.
    for dealt, swap in (("LITTLE 2C 3C 4C", True), ("5C 2C 3C 4C", False)):
        state = game.new_initial_state()
        for code in dealt.split():
            state.apply_action(bo.chance_action(Card.parse(code)))
        state.apply_action(bo.chance_action(Card.parse("BIG")))
        assert state.is_chance_node() is swap
        if swap:
            state.apply_action(bo.chance_action(Card.parse("AS")))
            assert state.match.deal.setup.swap.received.code == "AS"
            assert state.view(1).deal.swap is not None and state.view(2).deal.swap is None
        assert state.current_player() == int(Seat.EAST)


def test_an_illegal_action_is_refused():
    state = load(one_deal=2).new_initial_state()
    with pytest.raises(Exception, match="card"):
        state.apply_action(3)  # a bid number is no card to deal
    for card in range(9):
        state.apply_action(bo.CHANCE_OFFSET + card)
    history = state.history()
    with pytest.raises(IllegalAction, match="2 cards"):
        state.apply_action(5)  # a bid of 5 on two cards
    # Refused before OpenSpiel records it: the history and the position are unchanged.
    assert state.history() == history
    assert state.legal_actions() == [0, 1, 13]


def test_bad_parameters_are_named():
    for params, words in (
        ({"one_deal": 14}, "one_deal"),
        ({"returns": "points"}, "returns"),
        ({"schedule": "3/0"}, "hand size 0"),
        ({"tie": "coin"}, "tie policy"),
        ({"max_extra_deals": 0}, "max_extra_deals"),
        ({"colour": "red"}, "(?i)unknown parameter .colour"),
    ):
        with pytest.raises(Exception, match=words):
            load(**params)


def test_observers_write_the_shared_encoding():
    game = load(schedule="3/2")
    state = game.new_initial_state()
    rng = random.Random(5)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
            continue
        for player in range(4):
            seen = state.view(player)
            assert state.observation_tensor(player) == pytest.approx(
                encoding.observation_tensor(seen)
            )
            assert state.information_state_tensor(player) == pytest.approx(
                encoding.information_state_tensor(seen)
            )
            assert state.information_state_string(player) == encoding.information_state_string(seen)
            assert state.observation_string(player) == encoding.observation_string(seen)
        state.apply_action(rng.choice(state.legal_actions()))


def test_the_information_state_hides_the_other_hands():
    """Two deals that differ only in East's and West's cards look the same to North."""
    game = load(one_deal=3)
    first = ["2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "10C", "JC", "QC", "KC", "2H"]
    second = list(first)
    second[0], second[2] = second[2], second[0]  # East's and West's first cards trade places
    states = []
    for order in (first, second):
        state = game.new_initial_state()
        for code in order:
            state.apply_action(bo.chance_action(Card.parse(code)))
        states.append(state)
    a, b = states
    assert a.information_state_string(0) == b.information_state_string(0)
    assert a.information_state_tensor(0) == b.information_state_tensor(0)
    assert a.information_state_string(1) != b.information_state_string(1)


def test_mcts_plays_a_deal_to_the_end():
    game = load(one_deal=3)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(1))
    bots = [
        mcts.MCTSBot(game, 2.0, 20, evaluator, random_state=np.random.RandomState(seat))
        for seat in range(4)
    ]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(2))
    assert sorted(returns) in ([-1, -1, 1, 1], [0, 0, 0, 0])


def test_state_from_match_replays_a_core_match():
    game = load(schedule="3/2")
    match = new_match(game.settings.rules, seed=9)
    rng = random.Random(9)
    for _ in range(20):
        match = apply(match, rng.choice(legal_actions(match)))
    state = bo.state_from_match(game, match)
    assert state.match.totals == match.totals
    assert state.legal_actions() == sorted(action_index(a) for a in legal_actions(match))
    assert state.information_state_string(1) == encoding.information_state_string(
        view(match, Seat.EAST)
    )
    with pytest.raises(ValueError, match="rules"):
        bo.state_from_match(load(schedule="3/3"), match)


def test_player_bots_play_the_match_play_match_plays():
    """Heuristic and random players as bots, dealt the seeded decks, end as play_match ends."""
    rules = Rules(schedule=[4, 3, 2])
    players = [HeuristicPlayer(), RandomPlayer(), HeuristicPlayer(), RandomPlayer()]
    for seed in (1, 2):
        expected = play_match(players, rules, seed=seed)
        game = load(schedule="4/3/2")
        bots = [
            bo.PlayerBot(player, seat, player_seed(seed, Seat(seat)))
            for seat, player in enumerate(players)
        ]
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                deck = seeded_deck(seed, len(state.match.history))
                state.apply_action(bo.chance_action(deck[len(state.drawn)]))
                continue
            state.apply_action(bots[state.current_player()].step(state))
        assert state.match.totals == expected.totals
        assert state.match.outcome == expected.outcome


def _advance(game, rng, steps):
    state = game.new_initial_state()
    while steps and not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
            continue
        state.apply_action(rng.choice(state.legal_actions()))
        steps -= 1
    while state.is_chance_node():
        state.apply_action(rng.choice(state.chance_outcomes())[0])
    return state


def _public(state):
    """The players' actions of a state's history, in order (every one is public)."""
    return [(step.player, step.action) for step in state.full_history() if step.player >= 0]


@pytest.mark.parametrize("steps", [0, 5, 13, 30])
def test_the_resampler_keeps_what_the_player_knows(steps):
    game = load(schedule="4/3", tie="tiebreak-deal")
    state = _advance(game, random.Random(steps), steps)
    if state.is_terminal():
        pytest.skip("the match ended first")
    player = state.current_player()
    resamplers = [
        bo.resampler(random.Random(1)),
        bo.resampler(random.Random(2), sample=sample_state),
        lambda state, player: state.resample_from_infostate(player, random.Random(3).random),
    ]
    hands = set()
    for attempt in range(30):
        sample = resamplers[attempt % 3](state, player)
        assert sample.information_state_string(player) == state.information_state_string(player)
        assert sample.information_state_tensor(player) == state.information_state_tensor(player)
        assert sample.legal_actions() == state.legal_actions()
        assert _public(sample) == _public(state)
        hands.add(tuple(sample.match.deal.hands))
    # The other seats' cards are drawn afresh: the samples are not all the true deal.
    assert len(hands) > 1


def test_resampling_needs_a_players_turn():
    game = load(one_deal=2)
    state = game.new_initial_state()
    state.apply_action(bo.CHANCE_OFFSET)
    with pytest.raises(ValueError, match="player's turn"):
        bo.resample(state, 0, random.Random(0))
    state = _advance(game, random.Random(0), 0)
    with pytest.raises(ValueError, match="player 0-3"):
        bo.resample(state, 4, random.Random(0))


def test_ismcts_plays_against_the_heuristic_player():
    from open_spiel.python.algorithms import ismcts  # noqa: PLC0415

    game = load(schedule="3/2")

    def searcher(seat):
        evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(seat))
        bot = ismcts.ISMCTSBot(game, evaluator, 2.0, 25, random_state=np.random.RandomState(seat))
        if seat == 0:  # South relies on the state's own resample_from_infostate
            bot.set_resampler(bo.resampler(random.Random(seat)))
        return bot

    bots = [
        searcher(0),
        bo.PlayerBot(HeuristicPlayer(), 1),
        searcher(2),
        bo.PlayerBot(RandomPlayer(), 3),
    ]
    state = game.new_initial_state()
    rng = np.random.RandomState(4)
    while not state.is_terminal():
        if state.is_chance_node():
            actions, chances = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=chances)))
        else:
            action = bots[state.current_player()].step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
    returns = state.returns()
    assert returns[0] == returns[2] == -returns[1] == -returns[3]


# --- observation types (pyspiel.IIGObservationType) ----------------------------------

from open_spiel.python.observation import make_observation

KINDS = pyspiel.PrivateInfoType


def obs_type(public, private, recall):
    return pyspiel.IIGObservationType(
        public_info=public, perfect_recall=recall, private_info=private
    )


def _positions(game, seed):
    """Every state of a random match, the chance steps of the dealing included."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        yield state
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    yield state


def _hands_of(state):
    """Each seat's cards, from the core's match (or the cards dealt so far while dealing)."""
    match = state.match
    if state.drawn:
        first = (match.dealer + 1) % 4
        dealt = 4 * match.hand_size
        return [sorted(state.drawn[(seat - first) % 4 : dealt : 4]) for seat in range(4)]
    if match.deal is None:
        return [[], [], [], []]
    return [sorted(match.deal.hand(seat)) for seat in Seat]


def _zeroed(tensor, layout, names):
    out = np.array(tensor, np.float32)
    for name in names:
        field = layout[name]
        out[field.offset : field.end] = 0.0
    return out


def _tokens(text):
    for mark in ":,|;>\n":
        text = text.replace(mark, " ")
    return set(text.split())


@pytest.mark.parametrize("recall", [False, True])
def test_a_public_observation_is_the_same_for_every_player_and_hides_every_hand(recall):
    game = load(schedule="3/1", tie="tiebreak-deal")
    public = make_observation(game, obs_type(True, KINDS.NONE, recall))
    single = make_observation(game, obs_type(True, KINDS.SINGLE_PLAYER, recall))
    layout = encoding.INFORMATION_STATE if recall else encoding.OBSERVATION
    assert public.tensor.size == layout.size
    for seed in range(3):
        for state in _positions(game, seed):
            tensors, strings = [], []
            for player in range(4):
                public.set_from(state, player)
                single.set_from(state, player)
                tensors.append(public.tensor.copy())
                strings.append(public.string_from(state, player))
                # The seat's own observation, its private fields zeroed.
                expected = _zeroed(single.tensor, layout, encoding.PRIVATE_FIELDS)
                assert public.tensor.tolist() == expected.tolist()
            assert all((tensor == tensors[0]).all() for tensor in tensors)
            assert len(set(strings)) == 1
            # No card held now is named in what is said of the deal in progress (the
            # finished deals' lines name cards played then, which may be held again now).
            now = strings[0][strings[0].index("Everyone sees") :]
            held = {card.code for hand in _hands_of(state) for card in hand}
            assert not held & _tokens(now)
            assert "I gave" not in strings[0]


def test_a_private_observation_is_the_seats_hand_and_swap_alone():
    game = load(schedule="3/2")
    private = make_observation(game, obs_type(False, KINDS.SINGLE_PLAYER, False))
    single = make_observation(game, obs_type(True, KINDS.SINGLE_PLAYER, False))
    layout = encoding.OBSERVATION
    public_fields = [f.name for f in layout if f.name not in encoding.PRIVATE_FIELDS]
    for state in _positions(game, 4):
        for player in range(4):
            private.set_from(state, player)
            single.set_from(state, player)
            assert private.tensor.tolist() == _zeroed(single.tensor, layout, public_fields).tolist()
            hand = [c for c, bit in enumerate(private.dict["hand"]) if bit]
            assert hand == _hands_of(state)[player]
            text = private.string_from(state, player)
            assert text.startswith(f"{Seat(player).name.title()} holds ")
            codes = {card.code for card in _hands_of(state)[player]}
            assert codes <= _tokens(text)


@pytest.mark.parametrize("recall", [False, True])
def test_an_all_players_observation_adds_every_hand(recall):
    game = load(schedule="2/3")
    full = make_observation(game, obs_type(True, KINDS.ALL_PLAYERS, recall))
    single = make_observation(game, obs_type(True, KINDS.SINGLE_PLAYER, recall))
    layout = encoding.INFORMATION_STATE_ALL_HANDS if recall else encoding.OBSERVATION_ALL_HANDS
    base = single.tensor.size
    assert full.tensor.size == layout.size == base + 4 * 54
    for state in _positions(game, 6):
        hands = _hands_of(state)
        for player in range(4):
            full.set_from(state, player)
            single.set_from(state, player)
            assert full.tensor[:base].tolist() == single.tensor.tolist()
            rows = full.dict["hands"]
            assert [[c for c in range(54) if rows[s][c]] for s in range(4)] == hands
            text = full.string_from(state, player)
            assert text.startswith(single.string_from(state, player) + "\n")
            assert {card.code for hand in hands for card in hand} <= _tokens(text)


def test_every_hand_without_the_public_information():
    game = load(one_deal=3)
    hands_only = make_observation(game, obs_type(False, KINDS.ALL_PLAYERS, False))
    layout = encoding.OBSERVATION_ALL_HANDS
    kept = {*encoding.PRIVATE_FIELDS, "hands"}
    for state in _positions(game, 2):
        for player in range(4):
            hands_only.set_from(state, player)
            for field in layout:
                if field.name not in kept:
                    assert not hands_only.tensor[field.offset : field.end].any(), field.name
            rows = hands_only.dict["hands"]
            assert [[c for c in range(54) if rows[s][c]] for s in range(4)] == _hands_of(state)
            assert hands_only.string_from(state, player).startswith("hands N: ")


@pytest.mark.parametrize(
    ("public", "private", "recall", "words"),
    [
        (False, KINDS.NONE, False, "cannot observe nothing"),
        (False, KINDS.NONE, True, "cannot observe nothing"),
        (False, KINDS.SINGLE_PLAYER, True, "perfect_recall=False"),
        (False, KINDS.ALL_PLAYERS, True, "perfect_recall=False"),
    ],
)
def test_observation_types_that_make_no_sense_are_refused(public, private, recall, words):
    game = load(one_deal=2)
    with pytest.raises(ValueError, match=words):
        make_observation(game, obs_type(public, private, recall))


def test_observers_refuse_parameters():
    with pytest.raises(ValueError, match="no parameters"):
        make_observation(load(one_deal=2), obs_type(True, KINDS.SINGLE_PLAYER, False), {"x": 1})


def test_pytorch_dqn_with_its_default_settings_learns_without_nan():
    """OpenSpiel's DQN, its defaults untouched, on the short schedule: the loss stays finite.

    With the returns in points (``margin``) and raw point totals in the observation (up
    to hundreds, beside 0/1 features), the default learning rate diverged to NaN in the
    fifteenth match, whatever the seed; with the scaled encoding it does not.
    """
    torch = pytest.importorskip("torch")
    pytest.importorskip("tree")  # dm-tree, which OpenSpiel's pytorch algorithms need
    from open_spiel.python import rl_environment  # noqa: PLC0415 -- only with torch
    from open_spiel.python.pytorch import dqn  # noqa: PLC0415 -- only with torch

    torch.set_num_threads(1)
    torch.manual_seed(0)
    env = rl_environment.Environment(load(schedule="short", returns="margin"), seed=3)
    size = env.observation_spec()["info_state"][0]
    actions = env.action_spec()["num_actions"]
    agents = [dqn.DQN(player, size, actions) for player in range(4)]
    losses = []
    for _ in range(20):
        time_step = env.reset()
        while not time_step.last():
            player = time_step.observations["current_player"]
            output = agents[player].step(time_step)
            assert output is not None  # the agent returns None once its loss is NaN
            time_step = env.step([output.action])
            if agents[player].loss is not None:
                losses.append(float(agents[player].loss))
        for agent in agents:
            agent.step(time_step)
    assert len(losses) > 50  # the agents did learn (past the default 1,000 transitions)
    assert all(np.isfinite(losses))
    observations = np.array(time_step.observations["info_state"])
    assert observations.min() >= -1.0 and observations.max() <= 1.0
