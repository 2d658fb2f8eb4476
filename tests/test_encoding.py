"""The shared observation encoding: every field decodes back to what the seat's view says."""

from __future__ import annotations

import pickle
import random
from typing import NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backalley import Rules, Seat, apply, legal_actions, new_match
from backalley.adapters._views import Kept, seat_view
from backalley.adapters.encoding import (
    DEALS_SCALE,
    FIELD_MEANINGS,
    INDICATOR,
    INFORMATION_STATE,
    OBSERVATION,
    RANGES,
    SIGNED,
    TOTALS_SCALE,
    UNIT,
    information_state_string,
    information_state_tensor,
    observation_string,
    observation_tensor,
    squash,
    unsquash,
)
from backalley.core.cards import CARDS
from backalley.engine.bounds import playing
from backalley.engine.state import Phase
from backalley.engine.view import SeatView, view

PHASES = [Phase.DEAL, Phase.BID, Phase.PLAY, Phase.OVER]


def ones(tensor, name, layout=INFORMATION_STATE):
    return [i for i, value in enumerate(layout.part(tensor, name)) if value]


def rows(tensor, name, width, layout=INFORMATION_STATE):
    part = layout.part(tensor, name)
    return [[i for i in range(width) if part[row * width + i]] for row in range(len(part) // width)]


def check_ranges(tensor) -> None:
    """Every number lies in its field's documented range, and the bounds say the same."""
    low, high = INFORMATION_STATE.bounds()
    for field in INFORMATION_STATE:
        values = INFORMATION_STATE.part(tensor, field.name)
        kind = RANGES[field.name]
        if kind == INDICATOR:
            assert set(values) <= {0.0, 1.0}, field.name
        elif kind == UNIT:
            assert all(0.0 <= value <= 1.0 for value in values), field.name
        else:
            assert kind == SIGNED
            assert all(-1.0 < value < 1.0 for value in values), field.name
    assert all(lo <= value <= hi for lo, value, hi in zip(low, tensor, high, strict=True))


def check_decodes(seen: SeatView) -> None:
    tensor = information_state_tensor(seen)
    assert len(tensor) == INFORMATION_STATE.size
    assert observation_tensor(seen) == tensor[: OBSERVATION.size]
    assert ones(tensor, "seat") == [seen.seat]
    assert ones(tensor, "phase") == [PHASES.index(seen.phase)]
    assert ones(tensor, "to_move") == ([] if seen.to_move is None else [seen.to_move])
    assert ones(tensor, "dealer") == [seen.dealer]
    assert ones(tensor, "hand_size") == [seen.hand_size - 1]
    assert [CARDS[c] for c in ones(tensor, "hand")] == sorted(seen.hand)
    totals = INFORMATION_STATE.part(tensor, "totals")
    assert [round(unsquash(value, TOTALS_SCALE)) for value in totals] == list(seen.totals)
    played, left = INFORMATION_STATE.part(tensor, "deals")
    assert played * seen.rules.deals == pytest.approx(seen.counted_deals)
    assert round(unsquash(left, DEALS_SCALE)) == seen.rules.deals - seen.counted_deals
    check_ranges(tensor)
    deal = seen.deal
    if deal is None:
        for name in ("turned", "trump", "swap", "bids", "leader", "trick", "played", "history"):
            assert ones(tensor, name) == []
        return
    assert ones(tensor, "tiebreak") == ([0] if deal.tiebreak else [])
    assert ones(tensor, "turned") == [deal.turned]
    assert ones(tensor, "trump") == [4 if deal.trump is None else deal.trump]
    assert ones(tensor, "swap") == ([] if deal.swap is None else [deal.swap.received])
    bids = rows(tensor, "bids", 14)
    for seat in Seat:
        bid = deal.bid_of(seat)
        assert bids[seat] == ([] if bid is None else [13 if bid.board else bid.amount])
    assert ones(tensor, "leader") == ([] if deal.leader is None else [deal.leader])
    trick = rows(tensor, "trick", 54)
    current = deal.current_trick
    in_trick = {} if current is None else {seat: card for seat, card in current.plays}
    for seat in Seat:
        assert trick[seat] == ([in_trick[seat]] if seat in in_trick else [])
    played = rows(tensor, "played", 54)
    history = rows(tensor, "history", 54)
    leaders = rows(tensor, "history_leaders", 4)
    for seat in Seat:
        done = [card for t in deal.tricks for who, card in t.plays if who == seat]
        assert played[seat] == sorted(done)
    for number in range(13):
        if number < len(deal.tricks):
            done = deal.tricks[number]
            assert leaders[number] == [done.leader]
            for who, card in done.plays:
                assert history[number * 4 + who] == [card]
        else:
            assert leaders[number] == []
            assert all(history[number * 4 + seat] == [] for seat in Seat)
    won = INFORMATION_STATE.part(tensor, "tricks_won")
    assert [round(value * 13) for value in won] == list(deal.tricks_won)
    assert ones(tensor, "trumps_broken") == ([0] if deal.trumps_broken else [])


def test_the_layout_has_one_meaning_per_field_and_no_gaps():
    offset = 0
    for field in INFORMATION_STATE:
        assert field.offset == offset
        assert FIELD_MEANINGS[field.name]
        offset = field.end
    assert offset == INFORMATION_STATE.size
    assert [f.name for f in OBSERVATION] == [f.name for f in INFORMATION_STATE][
        : len(OBSERVATION.fields)
    ]


@settings(max_examples=15)
@given(seed=st.integers(0, 2**64 - 1), choices=st.randoms(use_true_random=False))
def test_every_field_decodes_to_the_view(seed, choices):
    rules = Rules(schedule=[3, 1, 13], tie="tiebreak-deal")
    state = new_match(rules, seed=seed)
    steps = 0
    while playing(state) and steps < 150:
        for seat in Seat:
            check_decodes(view(state, seat))
        state = apply(state, choices.choice(legal_actions(state)))
        steps += 1
    for seat in Seat:
        check_decodes(view(state, seat))


def _tokens(text):
    for mark in ":,|;>\n":
        text = text.replace(mark, " ")
    return set(text.split())


def test_strings_say_what_the_seat_knows_and_no_more():
    rng = random.Random(4)
    state = new_match(Rules(schedule=[3, 2]), seed=4)
    while playing(state):
        for seat in Seat:
            seen = view(state, seat)
            lines = information_state_string(seen).split("\n")
            assert len(lines) > len(seen.history)
            # One line for each finished deal, then the deal in progress.
            known = _tokens("\n".join(lines[len(seen.history) :]))
            now = _tokens(observation_string(seen))
            assert {card.code for card in seen.hand} <= now <= known | {"played"}
            if state.deal is not None:
                # Another seat's unplayed cards appear nowhere in what this seat is told.
                for other in Seat:
                    if other != seat:
                        assert not {card.code for card in state.deal.hand(other)} & known
        state = apply(state, rng.choice(legal_actions(state)))


def test_the_adapters_kept_views_equal_the_engines_views():
    rng = random.Random(2)
    for seed in range(3):
        state = new_match(Rules(schedule=[2, 1, 3], tie="tiebreak-deal"), seed=seed)
        while playing(state):
            for seat in Seat:
                assert seat_view(state, seat) == view(state, seat)
            state = apply(state, rng.choice(legal_actions(state)))
        for seat in Seat:
            assert seat_view(state, seat) == view(state, seat)


def test_kept_histories_give_the_plain_views_and_tensors_for_equal_copies_too():
    """The kept views and sums, against the engine's own, for a state and an equal copy.

    The copy (unpickled) holds equal finished deals in other objects, so it is found by
    value; the engine's lazily made views are summed afresh by the encoder.
    """
    rng = random.Random(6)
    state = new_match(Rules(schedule=[3, 1, 2, 2], tie="tiebreak-deal"), seed=8)
    while playing(state):
        copy = pickle.loads(pickle.dumps(state))
        assert copy.history == state.history
        assert copy.history is not state.history or not state.history
        for seat in Seat:
            plain = view(state, seat)
            for kept in (seat_view(state, seat), seat_view(copy, seat)):
                assert kept == plain
                assert observation_tensor(kept) == observation_tensor(plain)
                assert information_state_tensor(kept) == information_state_tensor(plain)
        state = apply(state, rng.choice(legal_actions(state)))


class _Finished(NamedTuple):
    scores: tuple[int, int]
    deck: int


def test_kept_finds_a_history_by_value_and_never_gives_another_ones_value():
    kept: Kept[str] = Kept(2)
    first = (_Finished((0, 0), 1), _Finished((40, -20), 2))
    same_key = (_Finished((0, 0), 3), _Finished((40, -20), 2))
    kept.put(first, "first")
    assert kept.get(tuple(list(first))) == "first"
    assert kept.get((_Finished((0, 0), 1), _Finished((40, -20), 2))) == "first"
    assert kept.get(same_key) is None
    assert kept.get(first, "another tag") is None
    kept.put(same_key, "same key")
    assert kept.get(same_key) == "same key" and kept.get(first) is None
    kept.put((), "empty")
    kept.put(first[:1], "short")
    assert kept.get(()) == "empty" and kept.get(first[:1]) == "short"
    kept.put(first, "first")
    assert kept.get(()) is None and kept.get(same_key) is None


def test_bounds_give_each_fields_range():
    low, high = INFORMATION_STATE.bounds()
    assert len(low) == len(high) == INFORMATION_STATE.size
    totals = INFORMATION_STATE["totals"]
    assert low[totals.offset : totals.end] == [-1.0, -1.0]
    assert min(low[: totals.offset] + low[totals.end :]) == 0.0
    assert set(high) == {1.0}
    assert set(RANGES) == set(FIELD_MEANINGS)
    assert {RANGES[name] for name in ("tricks_won", "deals")} == {UNIT}


@given(st.integers(-(10**6), 10**6))
def test_squashed_points_keep_sign_and_order_and_come_back(points):
    value = squash(points, TOTALS_SCALE)
    assert -1.0 < value < 1.0
    assert (value > 0) == (points > 0) and (value < 0) == (points < 0)
    assert squash(points + 1, TOTALS_SCALE) > value
    assert round(unsquash(value, TOTALS_SCALE)) == points


def test_unsquash_refuses_a_number_outside_the_range():
    with pytest.raises(ValueError, match="strictly between -1 and 1"):
        unsquash(1.0, TOTALS_SCALE)
