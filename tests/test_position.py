"""The compact position (``core.position``) against the reference engine, at every step.

Random matches of every kind of rules are played through ``apply`` and, beside
them, through the position's own functions (``deal``, ``bid``, ``play``). After
every action the position's fields equal what the reference state says (phase,
whose turn, hands, trick, leader, bids, who bid Board, trumps broken, tricks per
pair, the completed tricks' cards, deal counts, totals, outcome), its legal bids
and allowed cards equal ``legal_actions``, and the reason it gives for the cards
it refuses is the reason ``apply`` refuses them with.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backalley import (
    Bid,
    Card,
    Deal,
    IllegalAction,
    MatchState,
    Phase,
    Play,
    Rules,
    Seat,
    Suit,
    Termination,
    TiePolicy,
    apply,
    legal_actions,
    new_match,
)
from backalley.core import position as P
from backalley.core.bidding import BOARD, bid_code
from backalley.core.cards import mask_of, trump_mask
from backalley.core.dealing import deal_hands
from backalley.core.tricks import trick_winner
from backalley.engine.bounds import playing
from backalley.strategies import rules as rules_strategy
from backalley.strategies import schedules

MAX_ACTIONS = 20_000
"""A bound on any one match's actions (the longest schedule has 26 deals of <= 57)."""

_PHASES = {Phase.DEAL: P.DEAL, Phase.BID: P.BID, Phase.PLAY: P.PLAY, Phase.OVER: P.OVER}
_OUTCOMES = {
    (Termination.SCORE, 0): P.SCORE_NS,
    (Termination.SCORE, 1): P.SCORE_EW,
    (Termination.DRAW, None): P.DRAW,
    (Termination.TIEBREAK_DEAL, 0): P.TIEBREAK_NS,
    (Termination.TIEBREAK_DEAL, 1): P.TIEBREAK_EW,
}


def expected_fields(state: MatchState) -> dict[str, Any]:
    """The position's fields as the reference state tells them.

    Between deals the deal's fields describe the last finished deal, as the
    position keeps them; before the first deal they are zero.
    """
    outcome = state.outcome
    fields: dict[str, Any] = {
        "PHASE": _PHASES[state.phase],
        "NUMBER": state.deal_number,
        "COUNTED": state.counted_deals,
        "TOTAL_NS": state.totals[0],
        "TOTAL_EW": state.totals[1],
        "OUTCOME": (
            P.GOING_ON if outcome is None else _OUTCOMES[outcome.termination, outcome.winner]
        ),
        "RULES": state.rules,
    }
    deal = state.deal if state.deal is not None else None
    if deal is None and state.history:
        deal = state.history[-1].deal
    if deal is None:
        return fields
    trick = deal.current_trick
    fields |= {
        "DEALER": deal.dealer,
        "SIZE": deal.hand_size,
        "TRUMPS": trump_mask(deal.trump),
        "TIEBREAK": deal.tiebreak,
        "HANDS": tuple(mask_of(deal.hand(seat)) for seat in Seat),
        "TRICK": () if trick is None else tuple(trick.cards),
        "LEADER": -1 if deal.leader is None else deal.leader,
        "BIDS": tuple(bid_code(bid) for bid in deal.bids),
        "BROKEN": deal.broken,
        "WON_NS": deal.tricks_won[0],
        "WON_EW": deal.tricks_won[1],
        "PLAYED": tuple(card for done in deal.tricks for card in done.cards),
    }
    return fields


def position_fields(pos: P.Position, names: Any) -> dict[str, Any]:
    """The position's fields of these names."""
    return {name: pos[getattr(P, name)] for name in names}


def check_step(state: MatchState, pos: P.Position) -> None:
    """The position agrees with the reference state on every field and every legal action."""
    expected = expected_fields(state)
    assert position_fields(pos, expected) == expected
    # The engine reads the same position off the public state.
    assert state.position == pos
    assert P.to_move(pos) == (-1 if state.to_move is None else state.to_move)
    if state.deal is not None:
        said = [state.deal.bid_of(seat) for seat in Seat]
        assert P.boards(pos) == tuple(bid is not None and bid.board for bid in said)
    listed = legal_actions(state)
    if state.phase is Phase.BID:
        assert P.legal_bids(pos) == tuple(bid_code(action) for action in listed)  # type: ignore[arg-type]
    elif state.phase is Phase.PLAY:
        assert P.allowed(pos) == mask_of(action.card for action in listed)  # type: ignore[union-attr]
        assert P.tricks_won(pos) == state.tricks_won
        seat = state.to_move
        assert seat is not None
        mask, reason = P.allowed_and_reason(pos)
        refused = [card for card in state.hand(seat) if not mask >> card & 1]
        # A reason whenever a card is refused (a joker's obligation may name one anyway).
        assert reason is not None or not refused
        for card in refused:
            with pytest.raises(IllegalAction) as caught:
                apply(state, Play(seat, card))
            assert caught.value.reason is reason
    # play_if_allowed plays exactly the cards apply accepts, as play does, and no other;
    # player_if_allowed names the player of exactly those.
    playable = {action.card for action in listed if isinstance(action, Play)}
    for card in Card:
        got = P.play_if_allowed(pos, card)
        assert got == (P.play(pos, card) if card in playable else None)
        assert P.player_if_allowed(pos, card) == (P.to_move(pos) if card in playable else -1)


def step_position(pos: P.Position, state: MatchState, action: object) -> P.Position:
    """The position after ``action``, through the position's own function for its kind."""
    if isinstance(action, Deal):
        number, dealer, size, tiebreak = P.next_deal(pos)
        assert (number, dealer, size, tiebreak) == (
            state.deal_number,
            state.dealer,
            state.hand_size,
            state.in_tiebreak,
        )
        setup = deal_hands(
            action.deck, dealer=Seat(dealer), hand_size=size, number=number, tiebreak=tiebreak
        )
        return P.deal(pos, setup.hands, setup.trumps)
    if isinstance(action, Bid):
        return P.bid(pos, bid_code(action))
    assert isinstance(action, Play)
    return P.play(pos, action.card)


def own_deck(rng: random.Random, hand_size: int) -> Deal:
    """A shuffled deck; one time in two a joker is turned, to bring on the joker swap."""
    order = list(Card)
    rng.shuffle(order)
    if rng.random() < 0.5:
        turned = order.index(rng.choice([Card.BIG, Card.LITTLE]))
        order[turned], order[4 * hand_size] = order[4 * hand_size], order[turned]
    return Deal(order)


def choose(state: MatchState, listed: tuple[Any, ...], rng: random.Random, bidding: str) -> Any:
    """A legal action; while bidding as ``bidding`` says, to bring on throw-ins and ties."""
    if state.phase is Phase.BID and bidding == "passive" and rng.random() < 0.8:
        return listed[0]
    if state.phase is Phase.BID and bidding == "level" and state.hand_size > 1:
        # One of each pair bids hand size - 1, the others pass: often equal totals.
        return listed[-2] if len(state.bids) < 2 else listed[0]
    return listed[rng.randrange(len(listed))]


def play_both(rules: Rules, seed: int, bidding: str, own_decks: bool) -> MatchState:
    """One match through ``apply`` and through the position, checked at every step."""
    rng = random.Random(seed)
    state = new_match(rules, seed=seed)
    pos = P.start(rules)
    check_step(state, pos)
    for _ in range(MAX_ACTIONS):
        if state.is_over:
            return state
        listed = legal_actions(state)
        if state.phase is Phase.DEAL and own_decks:
            action: Any = own_deck(rng, state.hand_size)
        else:
            action = choose(state, listed, rng, bidding)
        pos = step_position(pos, state, action)
        state = apply(state, action)
        check_step(state, pos)
    raise AssertionError(f"no end after {MAX_ACTIONS} actions")


@settings(max_examples=60)
@given(
    rules=rules_strategy(schedule=schedules(max_deals=4)),
    seed=st.integers(0, 2**32),
    bidding=st.sampled_from(["any", "passive", "level"]),
    own_decks=st.booleans(),
)
def test_position_follows_the_reference_engine(
    rules: Rules, seed: int, bidding: str, own_decks: bool
) -> None:
    """Short matches of any rules: the position equals the reference at every step."""
    play_both(rules, seed, bidding, own_decks)


@pytest.mark.parametrize("schedule", ["standard", "twenty-five", "short"])
@pytest.mark.parametrize("tie", list(TiePolicy))
def test_position_follows_the_named_schedules(schedule: str, tie: TiePolicy) -> None:
    """Whole matches of each named schedule and tie policy, every first dealer."""
    for dealer in Seat:
        play_both(Rules(schedule=schedule, tie=tie, first_dealer=dealer), 7 + dealer, "any", True)


def test_ties_are_reached() -> None:
    """Level bidding brings on draws, tiebreak deals and tied tiebreak deals, all followed."""
    seen = set()
    for tie in TiePolicy:
        for seed in range(40):
            final = play_both(Rules(schedule=[2], tie=tie), seed, "level", True)
            assert final.outcome is not None
            seen.add((final.outcome.termination, min(len(final.history), 3)))
    assert (Termination.DRAW, 1) in seen
    assert (Termination.TIEBREAK_DEAL, 2) in seen
    assert (Termination.TIEBREAK_DEAL, 3) in seen  # a tiebreak deal tied, and another played


def test_board_is_the_code_after_every_amount() -> None:
    """Board's code sorts after every amount a hand allows, as ``legal_actions`` lists it."""
    assert BOARD == 13
    assert bid_code(Bid(Seat.NORTH, board=True)) == BOARD
    assert bid_code(Bid(Seat.NORTH, 12)) == 12


def test_the_last_trick_keeps_the_finished_deal_readable() -> None:
    """After the last card, the finished deal's tricks per pair can still be read."""
    state = new_match(Rules(schedule=[1]), seed=3)
    pos = P.start(state.rules)
    while playing(state):
        action = legal_actions(state)[-1]  # board, so the deal is played, not thrown in
        pos = step_position(pos, state, action)
        state = apply(state, action)
    assert pos[P.PHASE] == P.OVER
    assert P.tricks_won(pos) == state.history[-1].deal.tricks_won
    assert sum(P.tricks_won(pos)) == 1


@given(
    leader=st.sampled_from(Seat),
    cards=st.lists(st.sampled_from(Card), min_size=4, max_size=4, unique=True),
    trump=st.sampled_from([None, *Suit]),
)
def test_trick_winner_is_the_rule_of_tricks(
    leader: Seat, cards: list[Card], trump: Suit | None
) -> None:
    """The position's trick winner, on card numbers and a trump mask, is ``tricks.trick_winner``."""
    expected = trick_winner(leader, tuple(cards), trump)
    assert P.trick_winner(leader, tuple(int(card) for card in cards), trump_mask(trump)) == expected
