"""Tests for the per-seat view: what a seat may know, and its dictionary form."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from backalley import (
    Bid,
    Card,
    Deal,
    DealState,
    IllegalAction,
    MatchState,
    Phase,
    Play,
    Rules,
    Seat,
    Suit,
    Swap,
    apply,
    legal_actions,
    new_match,
    seeded_deal,
    strategies,
)
from backalley.engine import view as view_module
from backalley.engine.bounds import playing
from backalley.engine.view import DealView, SeatView, view
from backalley.formats.notation import parse_bid
from decks import deck_for
from record_strategies import mutated, play

seats = st.sampled_from(list(Seat))


def _play_prefix(
    state: MatchState, choices: list[int]
) -> tuple[list[MatchState], list[Bid | Play | Deal]]:
    """Apply the chosen legal actions in turn; every state passed and the actions."""
    states = [state]
    actions: list[Bid | Play | Deal] = []
    for choice in choices:
        if state.is_over:
            break
        legal = legal_actions(state)
        action = legal[choice % len(legal)]
        state = apply(state, action)
        states.append(state)
        actions.append(action)
    return states, actions


def _hidden_reshuffle(
    deal: Deal, seat: Seat, start: MatchState, played: set[Card], rng: random.Random
) -> Deal:
    """A deck that gives ``seat`` the same cards, turned card and swap, others reshuffled.

    Cards another seat has played stay where they were, so the same public actions
    can be replayed; every other card ``seat`` cannot see is shuffled among the
    other hands and the undealt cards.
    """
    deck = list(deal.deck)
    dealer = start.dealer
    dealt = 4 * start.hand_size
    fixed = {k for k in range(dealt) if (dealer + 1 + k) % 4 == seat}
    fixed |= {dealt, dealt + 1}  # the turned card, and the card a swap would give
    fixed |= {k for k, card in enumerate(deck) if card in played}
    movable = [k for k in range(len(deck)) if k not in fixed]
    cards = [deck[k] for k in movable]
    rng.shuffle(cards)
    for k, card in zip(movable, cards, strict=True):
        deck[k] = card
    return Deal(deck)


@pytest.mark.rule("DEAL-5")
@given(
    seed=st.integers(0, 2**64 - 1),
    hand_size=st.integers(1, 6),
    seat=seats,
    choices=st.lists(st.integers(0, 20), max_size=30),
    shuffle=st.randoms(use_true_random=False),
)
def test_views_ignore_what_the_seat_cannot_see(
    seed: int, hand_size: int, seat: Seat, choices: list[int], shuffle: random.Random
) -> None:
    """Two states differing only in hidden cards give the seat equal views, action by action."""
    start = new_match(Rules(schedule=[hand_size]), seed=seed)
    deal = seeded_deal(start)
    states_a, actions = _play_prefix(apply(start, deal), choices)
    played = {action.card for action in actions if isinstance(action, Play)}
    other = _hidden_reshuffle(deal, seat, start, played, shuffle)
    state_b = apply(start, other)
    assert view(state_b, seat) == view(states_a[0], seat)
    for action, state_a in zip(actions, states_a[1:], strict=True):
        try:
            state_b = apply(state_b, action)
        except IllegalAction:
            # The reshuffled hands make this play illegal; the public story ends here.
            break
        assert view(state_b, seat) == view(state_a, seat)


def _swap_deal(little_at: Seat) -> MatchState:
    hands = {
        Seat.NORTH: ["AS", "KS", "QS"],
        Seat.EAST: ["2C", "3C", "4C"],
        Seat.SOUTH: ["2D", "3D", "4D"],
        Seat.WEST: ["2H", "3H", "4H"],
    }
    hands[little_at] = ["LITTLE", *hands[little_at][1:]]
    deck = deck_for(hands, turned="BIG", after=["9H"])
    return apply(new_match(Rules(schedule=[3]), seed=1), deck)


@pytest.mark.rule("DEAL-5")
def test_only_the_swapper_sees_the_swap() -> None:
    """After a turned joker, the swap is in the swapper's view and in no other."""
    state = _swap_deal(Seat.EAST)
    east = view(state, Seat.EAST)
    assert east.deal is not None
    assert east.deal.swap == Swap(Seat.EAST, Card.LITTLE, Card.H9)
    assert Card.H9 in east.hand
    for seat in (Seat.NORTH, Seat.SOUTH, Seat.WEST):
        seen = view(state, seat)
        assert seen.deal is not None and seen.deal.swap is None
        assert "LITTLE" not in json.dumps(seen.to_dict())


@pytest.mark.rule("DEAL-5")
def test_nobody_else_learns_who_swapped() -> None:
    """North's view is the same whether East or West swapped the other joker."""
    assert view(_swap_deal(Seat.EAST), Seat.NORTH) == view(_swap_deal(Seat.WEST), Seat.NORTH)
    assert view(_swap_deal(Seat.EAST), Seat.EAST) != view(_swap_deal(Seat.WEST), Seat.EAST)


def test_view_holds_own_hand_and_public_facts() -> None:
    """The view has the seat's own hand, the turned card and trump in words, and the bids."""
    hands = {
        Seat.NORTH: ["AS", "KS"],
        Seat.EAST: ["2C", "3C"],
        Seat.SOUTH: ["2D", "3D"],
        Seat.WEST: ["2H", "3H"],
    }
    state = apply(new_match(Rules(schedule=[2]), seed=1), deck_for(hands, turned="5H"))
    state = apply(state, Bid(Seat.EAST, 1))
    seen = view(state, Seat.NORTH)
    assert seen.hand == (Card.SK, Card.SA)
    assert seen.deal is not None and seen.deal.turned == Card.H5
    assert seen.trump is Suit.HEARTS and seen.deal.trump_words == "hearts are trumps"
    assert seen.dealer is Seat.NORTH and seen.bids == (Bid(Seat.EAST, 1),)
    assert seen.phase is Phase.BID and seen.to_move is Seat.SOUTH
    assert view(state, Seat.EAST).hand == (Card.C2, Card.C3)


def test_view_follows_tricks_and_scores() -> None:
    """Played cards, trick winners, tricks per pair and scores match the state."""
    state = new_match(Rules(schedule=[2, 1]), seed=5)
    while playing(state):
        state = apply(state, legal_actions(state)[-1])
        for seat in Seat:
            seen = view(state, seat)
            assert seen.phase is state.phase and seen.to_move == state.to_move
            assert seen.totals == state.totals and seen.tricks_won == state.tricks_won
            assert seen.completed_tricks == state.completed_tricks
            assert seen.current_trick == state.current_trick
            assert seen.hand == state.hand(seat)
            assert seen.counted_deals == state.counted_deals
            assert seen.hand_size == state.hand_size and seen.dealer == state.dealer
    final = view(state, Seat.SOUTH)
    assert final.outcome == state.outcome
    assert [deal.scores for deal in final.history] == [r.scores for r in state.history]


@given(seed=st.integers(0, 2**64 - 1), choices=st.lists(st.integers(0, 20), max_size=40))
def test_dict_round_trip(seed: int, choices: list[int]) -> None:
    """Every seat's view survives to_dict, JSON and from_dict unchanged."""
    start = new_match(Rules(schedule=[3, 1], tie="tiebreak-deal"), seed=seed)
    states, _ = _play_prefix(start, choices)
    for seat in Seat:
        seen = view(states[-1], seat)
        data = json.loads(json.dumps(seen.to_dict()))
        assert SeatView.from_dict(data) == seen


def test_dict_uses_canonical_codes() -> None:
    """Cards, seats and bids are written as text codes: "AS", "N", "pass", "3", "board"."""
    hands = {
        Seat.NORTH: ["AS", "KS", "10H"],
        Seat.EAST: ["2C", "3C", "4C"],
        Seat.SOUTH: ["2D", "3D", "4D"],
        Seat.WEST: ["2H", "3H", "4H"],
    }
    state = apply(new_match(Rules(schedule=[3]), seed=1), deck_for(hands, turned="5H"))
    for bid in (Bid(Seat.EAST), Bid(Seat.SOUTH, 2), Bid(Seat.WEST, board=True)):
        state = apply(state, bid)
    data = view(state, Seat.NORTH).to_dict()
    assert data["hand"] == ["10H", "KS", "AS"]
    assert data["seat"] == "N" and data["deal"]["dealer"] == "N"
    assert [bid["bid"] for bid in data["deal"]["bids"]] == ["pass", "2", "board"]
    assert data["deal"]["trump"] == "H" and data["deal"]["trump_words"] == "hearts are trumps"


def test_from_dict_refuses_inconsistent_data() -> None:
    """A dictionary whose derived keys disagree with its deals is refused with a reason."""
    state = apply(new_match(Rules(schedule=[2]), seed=3), seeded_deal(new_match(seed=3)))
    data = view(state, Seat.WEST).to_dict()
    data["to_move"] = "S" if data["to_move"] != "S" else "N"
    with pytest.raises(ValueError, match="to_move"):
        SeatView.from_dict(data)
    del data["hand"]
    with pytest.raises(ValueError, match="hand"):
        SeatView.from_dict(data)


def test_parse_bid() -> None:
    """Bids are read from "pass", a number and "board", and nothing else."""
    assert parse_bid(Seat.EAST, "pass") == Bid(Seat.EAST)
    assert parse_bid(Seat.EAST, " 3 ") == Bid(Seat.EAST, 3)
    assert parse_bid(Seat.EAST, "Board") == Bid(Seat.EAST, board=True)
    with pytest.raises(ValueError, match="unknown bid"):
        parse_bid(Seat.EAST, "three")


def test_deal_view_helpers() -> None:
    """A deal view names each seat's bid and the cards it has played."""
    deal = DealView(
        number=0,
        dealer=Seat.NORTH,
        hand_size=2,
        turned=Card.BIG,
        bids=(Bid(Seat.EAST, 1), Bid(Seat.SOUTH), Bid(Seat.WEST), Bid(Seat.NORTH)),
        leader=Seat.EAST,
        trick=(Card.C2,),
    )
    assert deal.trump is None and deal.trump_words == "no trumps"
    assert deal.bid_of(Seat.EAST) == Bid(Seat.EAST, 1)
    assert deal.plays_of(Seat.EAST) == (Card.C2,) and deal.plays_of(Seat.SOUTH) == ()


def _public_properties(cls: type) -> set[str]:
    """The public attributes of ``cls`` read without a call: properties, fields, parts."""
    return {
        name
        for name in dir(cls)
        if not name.startswith("_") and not callable(getattr(cls, name, None))
    }


# The seat view's names that mean something else than the state's of the same name.
_DIFFERENT = {"deal", "history", "hand"}

# A view of every kind of moment: any phase, thrown-in deals, tiebreak deals,
# no-trump deals with a swap, joker leads, the end of the match.
_ANY_STATE = st.one_of(
    strategies.states(),
    strategies.states(throw_in=True),
    strategies.states(tiebreak=True),
    strategies.states(no_trump=True),
    strategies.states(joker_lead=True),
    strategies.states(phase=Phase.OVER),
)


def _assert_deals_agree(seen: DealView, deal: DealState, seat: Seat) -> None:
    # Every property and method the deal view and the deal state both have.
    for name in sorted(_public_properties(DealView) & _public_properties(DealState)):
        assert getattr(seen, name) == getattr(deal, name), name
    for other in Seat:
        assert seen.bid_of(other) == deal.bid_of(other)
        assert seen.plays_of(other) == deal.plays_of(other)
    setup = deal.setup
    assert (seen.number, seen.turned) == (setup.number, setup.turned)
    assert seen.trumps_broken == deal.broken
    swap = setup.swap
    assert seen.swap == (swap if swap is not None and swap.seat == seat else None)


@pytest.mark.rule("DEAL-5")
@given(state=_ANY_STATE, seat=seats)
def test_view_and_state_agree_wherever_the_seat_may_see(state: MatchState, seat: Seat) -> None:
    """Every public property of the seat view equals the state's, deal by deal."""
    seen = view(state, seat)
    shared = (_public_properties(SeatView) & _public_properties(MatchState)) - _DIFFERENT
    assert {"phase", "to_move", "trump", "contracts", "tricks_won", "counted_deals"} <= shared
    for name in sorted(shared):
        assert getattr(seen, name) == getattr(state, name), name
    assert seen.hand == state.hand(seat)
    assert (seen.deal is None) == (state.deal is None)
    if seen.deal is not None and state.deal is not None:
        _assert_deals_agree(seen.deal, state.deal, seat)
        assert seen.deal.scores is None
    assert len(seen.history) == len(state.history)
    for past, result in zip(seen.history, state.history, strict=True):
        _assert_deals_agree(past, result.deal, seat)
        assert past.scores == result.scores
        assert (past.thrown_in, past.counts) == (result.thrown_in, result.counts)


def test_a_view_is_made_without_viewing_the_finished_deals(monkeypatch: pytest.MonkeyPatch) -> None:
    """Making a view costs the same at any point of a match: no finished deal is viewed
    until the history is read, and then each deal once."""
    made: list[int] = []
    real = view_module._finished_view

    def counting(result: object, seat: Seat) -> DealView:
        made.append(1)
        return real(result, seat)  # type: ignore[arg-type]

    monkeypatch.setattr(view_module, "_finished_view", counting)
    state = new_match(Rules(schedule=[2, 1, 2]), seed=5)
    choose = random.Random(5).choice
    while playing(state):
        state = apply(state, choose(legal_actions(state)))
    seen = view(state, Seat.SOUTH)
    assert made == []
    assert len(seen.history) == len(state.history) >= 3
    assert made == []
    assert [past.scores for past in seen.history] == [r.scores for r in state.history]
    assert len(made) == len(state.history)
    assert seen.history[-1] == seen.history[len(state.history) - 1]
    assert len(made) == len(state.history)  # read again from the views made once


@given(st.data())
def test_mutated_view_json_only_raises_value_errors(data: st.DataObject) -> None:
    """Randomly edited view JSON reads back as a view or raises a ValueError with a message."""
    state = play(Rules(schedule=[2, 1]), 5, 5, data.draw(st.integers(0, 25)))
    written = view(state, data.draw(st.sampled_from(list(Seat)))).to_dict()
    try:
        read = SeatView.from_dict(mutated(data, json.loads(json.dumps(written))))
    except ValueError as error:
        assert str(error)
    else:
        assert isinstance(read, SeatView)
