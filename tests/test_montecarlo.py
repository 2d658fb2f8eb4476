"""Tests for the Monte Carlo player: legal, a function of its view and seed, and sound."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backalley import (
    Bid,
    DealResult,
    MatchState,
    Phase,
    Play,
    Rules,
    Seat,
    apply,
    legal_actions,
    sample_state,
)
from backalley.core.tricks import trick_winner, winning_card
from backalley.engine.sampling import DealSampler
from backalley.engine.view import view
from backalley.players import PLAYER_KINDS, HeuristicPlayer, MonteCarloPlayer, play_match
from backalley.players.montecarlo import (
    DEAL_SPREAD,
    SEARCH_EXACT_BIDS,
    SEARCH_EXACT_TRICKS,
    SEARCH_SAMPLES,
    _evidence,
    _solve,
    _Table,
    _WinChance,
    search_player,
)
from backalley.strategies import states
from decks import position
from helpers import minimax
from montecarlo_reference import beating

FAST = MonteCarloPlayer(samples=4)


def _seat_to_move(state: MatchState) -> Seat:
    seat = state.to_move
    assert seat is not None
    return seat


def test_it_plays_whole_matches_legally() -> None:
    for seed in range(3):
        players = [FAST, HeuristicPlayer(), FAST, HeuristicPlayer()]
        state = play_match(players, Rules(schedule=[3, 1, 2]), seed=seed)
        assert state.is_over


def test_it_is_a_registered_kind() -> None:
    assert isinstance(PLAYER_KINDS["montecarlo"](), MonteCarloPlayer)


SMALL_RULES = st.sampled_from([Rules(schedule=[4, 3, 2, 1]), Rules(schedule="short")])


@settings(max_examples=25)
@given(
    state=states(SMALL_RULES, phase=Phase.PLAY) | states(SMALL_RULES, phase=Phase.BID),
    warm_up=states(SMALL_RULES, phase=Phase.PLAY),
    seed=st.integers(0, 2**32),
)
def test_its_decisions_are_a_function_of_its_view_and_seed(
    state: MatchState, warm_up: MatchState, seed: int
) -> None:
    """Another deal that the seat cannot tell apart gets the same decision, asked in any order."""
    seat = _seat_to_move(state)
    seen = view(state, seat)
    other = sample_state(seen, random.Random(seed))
    assert view(other, seat) == seen
    legal = legal_actions(state)
    fresh = MonteCarloPlayer(samples=3, seed=11)
    used = MonteCarloPlayer(samples=3, seed=11)
    # The used player has been asked about another position first.
    mover = _seat_to_move(warm_up)
    used(view(warm_up, mover), legal_actions(warm_up))  # type: ignore[arg-type]
    choice = fresh(seen, legal)  # type: ignore[arg-type]
    assert choice in legal
    assert used(view(other, seat), legal) == choice  # type: ignore[arg-type]


def test_seated_players_are_seeded_by_the_match() -> None:
    """The driver re-seeds each player from the match seed and its seat: a match replays."""
    rules = Rules(schedule=[6, 5, 4])
    one = play_match([MonteCarloPlayer(samples=2, seed=1)] * 4, rules, seed=5)
    two = play_match([MonteCarloPlayer(samples=2, seed=2)] * 4, rules, seed=5)
    assert one == two
    assert one.is_over


def test_a_direct_seed_changes_the_play() -> None:
    """Called directly (not re-seeded by a driver), the seed changes what is sampled."""
    state = position(
        {
            Seat.NORTH: ["AS", "KS", "2H", "3D", "4C"],
            Seat.EAST: ["QS", "JS", "3H", "5D", "6C"],
            Seat.SOUTH: ["10S", "9S", "4H", "7D", "8C"],
            Seat.WEST: ["8S", "7S", "5H", "9D", "10C"],
        },
        turned="2C",
    )
    seen = view(state, Seat.EAST)
    legal = legal_actions(state)
    choices = {MonteCarloPlayer(samples=1, seed=s)(seen, legal) for s in range(12)}  # type: ignore[arg-type]
    assert len(choices) > 1


@pytest.mark.parametrize(
    ("card", "expected"),
    [("BIG", Bid(Seat.EAST, board=True)), ("2C", Bid(Seat.EAST))],
)
def test_one_card_boards_and_passes_when_they_pay(card: str, expected: Bid) -> None:
    """With one card: BIG in a trump deal is a sure trick, so Board; a low club passes."""
    state = position(
        {Seat.NORTH: ["3S"], Seat.EAST: [card], Seat.SOUTH: ["4D"], Seat.WEST: ["5D"]},
        turned="2H",
    )
    seat = _seat_to_move(state)
    assert seat is Seat.EAST
    action = MonteCarloPlayer(samples=16)(view(state, seat), legal_actions(state))  # type: ignore[arg-type]
    assert action == expected


def test_parameters_are_checked() -> None:
    with pytest.raises(ValueError, match="sample"):
        MonteCarloPlayer(samples=0)
    with pytest.raises(ValueError, match="time budget"):
        MonteCarloPlayer(time_budget=0)
    with pytest.raises(ValueError, match="policy"):
        MonteCarloPlayer(policy="greedy")  # type: ignore[arg-type]


def test_a_tiny_time_budget_still_answers_legally() -> None:
    state = play_match(
        [MonteCarloPlayer(samples=50, time_budget=1e-6), HeuristicPlayer()] * 2,
        Rules(schedule=[3, 2]),
        seed=9,
    )
    assert state.is_over


def test_random_rollouts_play_legally() -> None:
    player = MonteCarloPlayer(samples=3, rollouts=2, policy="random", exact_tricks=0)
    assert play_match([player, HeuristicPlayer()] * 2, Rules(schedule=[3, 2]), seed=2).is_over


# --- the fast play-outs against the reference engine --------------------------------


def _advance(state: MatchState, rng: random.Random, tricks_left: int) -> MatchState:
    """Random legal cards until at most ``tricks_left`` tricks remain (or the deal ends)."""
    for _ in range(60):
        deal = state.deal
        if deal is None or deal.hand_size - len(deal.tricks) <= tricks_left:
            break
        state = apply(state, rng.choice(legal_actions(state)))
    return state


@given(state=states(phase=Phase.PLAY), seed=st.integers(0, 2**32))
def test_play_outs_replay_through_apply_with_the_same_result(state: MatchState, seed: int) -> None:
    """Every card a play-out picks is legal under ``apply``; its margin is the engine's."""
    seat = _seat_to_move(state)
    table = _Table.of(view(state, seat))
    assert state.deal is not None
    rng = random.Random(seed)
    first = rng.choice(legal_actions(state))
    assert isinstance(first, Play)
    record: list[int] = []
    policy = rng.choice(["heuristic", "random"])
    margin = table.play_out(list(state.deal.hands), first.card, rng, policy, record)  # type: ignore[arg-type]
    for card in record:
        mover = _seat_to_move(state)
        state = apply(state, Play(mover, card))
    finished = state.history[-1]
    pair = seat % 2
    if finished.deal.setup.tiebreak:
        won = finished.deal.tricks_won
        assert margin == won[pair] - won[1 - pair]
    else:
        assert margin == finished.scores[pair] - finished.scores[1 - pair]


@given(state=states(phase=Phase.PLAY, trick_boundary=False))
def test_the_policys_trick_reading_matches_trick_winner(state: MatchState) -> None:
    """Who is winning the trick so far, and which cards would beat it, as the rules say."""
    deal = state.deal
    assert deal is not None and deal.trick
    seat = _seat_to_move(state)
    trumps = deal.setup.trumps
    trick = tuple(int(card) for card in deal.trick)
    leader = deal.leader
    assert leader is not None
    best, at = winning_card(trick, trumps)
    assert trick_winner(leader, deal.trick, deal.trump) == (leader + at) % 4
    allowed = deal.hands[seat]
    beating_cards = beating(allowed, trick, best, trumps)
    for action in legal_actions(state):
        assert isinstance(action, Play)
        wins = trick_winner(leader, (*deal.trick, action.card), deal.trump) == seat
        assert bool(beating_cards >> action.card & 1) == wins


def _minimax(state: MatchState, pair: int) -> int:
    """The exact margin by brute force through ``apply``: our pair maximizes, theirs minimizes."""

    def margin(finished: DealResult) -> int:
        if finished.deal.setup.tiebreak:
            won = finished.deal.tricks_won
            return won[pair] - won[1 - pair]
        return finished.scores[pair] - finished.scores[1 - pair]

    return minimax(state, pair, margin)


@pytest.mark.parametrize("tricks_left", [2, 3])
@settings(max_examples=40)
@given(state=states(phase=Phase.PLAY), seed=st.integers(0, 2**32))
def test_the_exact_endgame_search_matches_brute_force(
    tricks_left: int, state: MatchState, seed: int
) -> None:
    state = _advance(state, random.Random(seed), tricks_left)
    if state.deal is None:
        return
    seat = _seat_to_move(state)
    table = _Table.of(view(state, seat))
    legal = legal_actions(state)
    solved = _solve(table, list(state.deal.hands), legal)
    for action, margin in zip(legal, solved, strict=True):
        assert margin == _minimax(apply(state, action), seat % 2)


def test_bid_inference_weighs_deals_by_how_well_they_explain_the_bids() -> None:
    """A deal on which the heuristic would bid as the others did weighs 1; others weigh less."""
    state = position(
        {
            Seat.NORTH: ["2S", "3S", "4D", "5C"],
            Seat.EAST: ["BIG", "AH", "KH", "QH"],
            Seat.SOUTH: ["6S", "7S", "8D", "9C"],
            Seat.WEST: ["2D", "3D", "4C", "6C"],
        },
        turned="2H",
    )
    heuristic = HeuristicPlayer()
    for _ in range(4):
        mover = _seat_to_move(state)
        state = apply(state, heuristic(view(state, mover), legal_actions(state)))  # type: ignore[arg-type]
    assert state.deal is not None and state.deal.bids[0] == Bid(Seat.EAST, 3)
    seen = view(state, Seat.NORTH)
    assert seen.deal is not None
    sampler = DealSampler(seen.deal, Seat.NORTH, seen.hand)
    player = MonteCarloPlayer(bid_inference=1.0)
    true_hands = list(state.deal.hands)
    table, evidence = _Table.of(seen), _evidence(seen)
    assert player._likelihood(table, evidence, sampler, true_hands) == 1.0
    # Give East's strong hand to West and West's to East: both bids are now unexplained.
    swapped = [true_hands[0], true_hands[3], true_hands[2], true_hands[1]]
    assert player._likelihood(table, evidence, sampler, swapped) < 0.1
    with pytest.raises(ValueError, match="bid inference"):
        MonteCarloPlayer(bid_inference=-1)


def test_the_search_player_plays_whole_matches_legally() -> None:
    player = search_player(samples=3)
    assert player.exact_tricks == SEARCH_EXACT_TRICKS
    assert player.exact_bids == SEARCH_EXACT_BIDS
    assert player.match_aware and player.samples == 3
    assert search_player().samples == SEARCH_SAMPLES
    assert repr(player.for_seat(Seat.EAST, 5)) == repr(search_player(samples=3, seed=5))
    for seed in range(2):
        players = [player, HeuristicPlayer(), player, HeuristicPlayer()]
        assert play_match(players, Rules(schedule=[4, 2, 1]), seed=seed).is_over
    assert isinstance(PLAYER_KINDS["search"](), MonteCarloPlayer)


def test_bids_from_solved_samples_are_the_solved_tricks() -> None:
    """With ``exact_bids``, a one-card deal's Board is valued on the solved tricks."""
    state = position(
        {Seat.NORTH: ["2S"], Seat.EAST: ["BIG"], Seat.SOUTH: ["3S"], Seat.WEST: ["4S"]},
        turned="2H",
    )
    # East (left of the dealer North) holds BIG: a Board wins its one trick on every sample.
    seat = _seat_to_move(state)
    assert seat is Seat.EAST
    player = MonteCarloPlayer(samples=4, exact_bids=1, bid_inference=0)
    assert player(view(state, seat), legal_actions(state)) == Bid(Seat.EAST, board=True)


def test_a_seated_copy_keeps_every_setting_and_the_repr_names_them() -> None:
    """``for_seat`` changes the seed alone; the repr builds the same player again."""
    player = MonteCarloPlayer(
        samples=3,
        rollouts=2,
        time_budget=0.5,
        exact_tricks=1,
        policy="random",
        bid_inference=0.5,
        exact_bids=2,
        match_aware=True,
        seed=4,
    )
    seated = player.for_seat(Seat.EAST, 9)
    assert repr(seated) == repr(player).replace("seed=4", "seed=9")
    assert repr(eval(repr(player), {"MonteCarloPlayer": MonteCarloPlayer})) == repr(player)
    assert vars(seated) == {**vars(player), "seed": 9}


def test_match_aware_values_are_the_chance_of_winning_the_match() -> None:
    """On the last deal a margin is worth 1, 1/2 or 0; before it, more the more it leads by."""
    last = _WinChance(lead=-10, deals_after=0)
    assert round(last(9)) == 0 and last(10) == pytest.approx(0.5, abs=0.01)
    assert round(last(11)) == 1 and last(9) < last(8 + 1e-9) + 1e-3
    # Results of one chance are still ordered by their margin.
    assert last(-40) < last(-20) < last(9) < last(10) < last(11) < last(40)
    early = _WinChance(lead=-10, deals_after=4)
    assert early.spread == 2 * DEAL_SPREAD
    assert early(10) == pytest.approx(0.5 + 1e-3)
    assert 0 < early(-30) < early(0) < 0.5 < early(30) < 1


def test_match_aware_chance_reads_the_lead_and_the_deals_left_from_the_view() -> None:
    """The lead is the viewing pair's total less the other's; the spread counts later deals."""
    seen: list[tuple[int, float]] = []
    leads: list[int] = []

    def look(before: MatchState, action: object, after: MatchState) -> None:
        mover = before.to_move
        if mover is None or before.deal is None or before.deal.bids:
            return
        looked = view(before, mover)
        chance = _WinChance.of(looked, _Table.of(looked))
        assert chance is not None
        totals = looked.totals
        assert chance.lead == totals[mover % 2] - totals[1 - mover % 2]
        seen.append((looked.counted_deals, chance.spread))
        leads.append(chance.lead)

    play_match([HeuristicPlayer()] * 4, Rules(schedule=[2, 1]), seed=3, watch=look)
    assert (0, DEAL_SPREAD) in seen
    assert (1, 0.0) in seen
    assert any(leads), "the first deal scored, so the last one starts with a lead"
