"""The Monte Carlo player's play-outs and predicted bids are its reference's, card for card.

``backalley.players._playout`` writes the rules out in one loop on plain ints (and
is compiled in the compiled build); ``montecarlo_reference`` is the play-out as first
written, asking the rules core for every card. On the same positions and the same
random generator both play the same cards, take the same tricks and draw the same
numbers, so the player's decisions are the reference's decisions.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from backalley import Bid, MatchState, Phase, Play, Seat, legal_actions
from backalley.core.cards import CARDS, Suit, trump_mask
from backalley.engine.sampling import DealSampler
from backalley.engine.view import view
from backalley.players._playout import BOARD_CODE, cheapest, heuristic_bid_code
from backalley.players.heuristic import heuristic_bid
from backalley.players.montecarlo import (
    _WORTH,
    MonteCarloPlayer,
    _BidOutcomes,
    _evidence,
    _Table,
)
from backalley.strategies import states
from montecarlo_reference import (
    reference_bid_values,
    reference_cheapest,
    reference_likelihood,
    reference_run,
)

TRUMPS = st.sampled_from([None, *Suit])


def _seat_to_move(state: MatchState) -> Seat:
    seat = state.to_move
    assert seat is not None
    return seat


@settings(max_examples=300)
@given(
    state=states(phase=Phase.PLAY),
    seed=st.integers(0, 2**32),
    policy=st.sampled_from(["heuristic", "random"]),
    with_first=st.booleans(),
    fight=st.booleans(),
)
def test_a_play_out_plays_the_references_cards(
    state: MatchState, seed: int, policy: str, with_first: bool, fight: bool
) -> None:
    """The same cards, the same tricks and the same random draws as the reference."""
    seat = _seat_to_move(state)
    deal = state.deal
    assert deal is not None
    table = _Table.of(view(state, seat))
    if fight:
        table.needed = None  # as in the bidding's play-outs: every seat fights for every trick
    first = None
    if with_first:
        action = random.Random(seed).choice(legal_actions(state))
        assert isinstance(action, Play)
        first = int(action.card)
    rng, reference_rng = random.Random(seed), random.Random(seed)
    record: list[int] = []
    won = table._run(list(deal.hands), first, rng, policy, record)  # type: ignore[arg-type]
    expected_record: list[int] = []
    expected = reference_run(
        list(deal.hands),
        first,
        reference_rng,
        policy,
        int(table.leader),
        tuple(int(card) for card in table.trick),
        list(table.won),
        table.broken,
        table.trump,
        table.trumps,
        table.boards,
        table.needed,
        expected_record,
    )
    assert record == expected_record
    assert won == expected
    assert rng.getstate() == reference_rng.getstate()


@given(mask=st.integers(1, 2**54 - 1), trump=TRUMPS)
def test_the_cheapest_card_is_the_references(mask: int, trump: Suit | None) -> None:
    trumps = trump_mask(trump)
    assert cheapest(mask, trumps) == reference_cheapest(mask, trumps)


@given(
    cards=st.sets(st.integers(0, 53), max_size=13),
    trump=TRUMPS,
    size=st.integers(1, 13),
    partner=st.one_of(
        st.none(),
        st.just(Bid(Seat.SOUTH, board=True)),
        st.integers(0, 12).map(lambda amount: Bid(Seat.SOUTH, amount)),
    ),
    last=st.booleans(),
)
def test_a_bid_code_is_the_heuristics_bid(
    cards: set[int], trump: Suit | None, size: int, partner: Bid | None, last: bool
) -> None:
    hand = tuple(CARDS[card] for card in sorted(cards))
    bid = heuristic_bid(Seat.NORTH, hand, trump, size, partner, after_three_passes=last)
    code = heuristic_bid_code(
        sum(1 << card for card in cards),
        _WORTH[trump],
        size,
        partner is not None and partner.board,
        0 if partner is None else partner.amount,
        last,
    )
    assert code == (BOARD_CODE if bid.board else bid.amount)


@settings(max_examples=150)
@given(
    state=states(phase=Phase.BID),
    seed=st.integers(0, 2**32),
    policy=st.sampled_from(["heuristic", "random"]),
    rollouts=st.integers(1, 2),
    exact_bids=st.sampled_from([0, 4]),
)
def test_bid_values_are_the_references(
    state: MatchState, seed: int, policy: str, rollouts: int, exact_bids: int
) -> None:
    """Each candidate bid's value on a sampled deal, over several samples of one decision."""
    seat = _seat_to_move(state)
    seen = view(state, seat)
    assert seen.deal is not None
    legal = legal_actions(state)
    table = _Table.of(seen)
    sampler = DealSampler(seen.deal, seat, seen.hand)
    player = MonteCarloPlayer(policy=policy, rollouts=rollouts, exact_bids=exact_bids)  # type: ignore[arg-type]
    bidding = _BidOutcomes(seen, table, legal)
    rng, reference_rng = random.Random(seed), random.Random(seed)
    for _ in range(3):  # the circuits seen on one sample are remembered for the next
        extra = sampler.draw_hands(rng)
        assert extra == sampler.draw_hands(reference_rng)
        hands = [*extra]
        hands[seat] |= table.mine
        values = player._bid_values(table, bidding, hands, rng)
        expected = reference_bid_values(
            seen,
            table,
            hands,
            legal,
            reference_rng,
            policy=policy,  # type: ignore[arg-type]
            rollouts=rollouts,
            exact_bids=exact_bids,
        )
        assert values == expected
        assert rng.getstate() == reference_rng.getstate()


@settings(max_examples=150)
@given(
    state=st.one_of(states(phase=Phase.BID), states(phase=Phase.PLAY)),
    seed=st.integers(0, 2**32),
)
def test_the_bids_evidence_weighs_a_deal_as_the_reference(state: MatchState, seed: int) -> None:
    seat = _seat_to_move(state)
    seen = view(state, seat)
    assert seen.deal is not None
    table = _Table.of(seen)
    sampler = DealSampler(seen.deal, seat, seen.hand)
    hands = [*sampler.draw_hands(random.Random(seed))]
    hands[seat] |= table.mine
    player = MonteCarloPlayer(bid_inference=0.7)
    weight = player._likelihood(table, _evidence(seen), sampler, hands)
    assert weight == reference_likelihood(seen, sampler, hands, 0.7)
