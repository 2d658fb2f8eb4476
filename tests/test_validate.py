"""``validate(state)`` refuses every state that play could not reach, naming the invariant.

The reproductions of hand-built states that used to give wrong answers come
first; then a Hypothesis test corrupts real positions one field at a time, and
another corrupts their JSON one value at a time: each is refused with the
library's own error, never an IndexError, an AttributeError or a wrong answer.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from backalley import (
    InvalidState,
    Invariant,
    MatchState,
    Phase,
    Rules,
    apply,
    legal_actions,
    new_match,
    validate,
)
from backalley.core import position as P
from backalley.core.bidding import BOARD
from backalley.core.cards import Card, Seat
from backalley.engine.bounds import playing
from backalley.engine.view import view
from backalley.formats.serialize import SerializeError, from_json, to_json
from backalley.strategies import states


def _short_after_deal() -> MatchState:
    state = new_match(Rules(schedule="short"), seed=2026)
    return apply(state, legal_actions(state)[0])


def _with(state: MatchState, **fields: Any) -> MatchState:
    """``state`` with some fields of its position (``core.position``, by name) replaced."""
    position = list(state.position)
    for name, value in fields.items():
        position[getattr(P, name.upper())] = value
    return attrs.evolve(state, position=tuple(position))


def _refused(state: Any) -> Invariant:
    with pytest.raises(InvalidState) as refusal:
        validate(state)
    assert refusal.value.message in str(refusal.value)
    return refusal.value.invariant


# --- the reproductions ---------------------------------------------------------


def test_an_outcome_mid_deal_is_refused() -> None:
    state = _short_after_deal()
    assert _refused(_with(state, outcome=P.SCORE_NS)) is Invariant.OUTCOME


def test_a_card_in_two_hands_is_refused() -> None:
    state = _short_after_deal()
    assert state.deal is not None
    hands = list(state.deal.hands)
    card = state.deal.hand(Seat.NORTH)[0]
    hands[1] |= 1 << card
    assert _refused(_with(state, hands=tuple(hands))) is Invariant.CARDS


def test_counted_99_is_refused() -> None:
    assert _refused(_with(_short_after_deal(), counted=99)) is Invariant.OUT_OF_RANGE
    state = _short_after_deal()
    while playing(state) and state.counted_deals < 1:
        state = apply(state, legal_actions(state)[-1])
    assert _refused(_with(state, counted=0)) is Invariant.COUNTED


def test_empty_hands_are_refused() -> None:
    assert _refused(_with(_short_after_deal(), hands=(0, 0, 0, 0))) is Invariant.CARDS


def test_a_negative_hand_is_refused() -> None:
    state = _short_after_deal()
    assert state.deal is not None
    hands = (-1, *state.deal.hands[1:])
    assert _refused(_with(state, hands=hands)) is Invariant.OUT_OF_RANGE


def test_rules_none_is_refused() -> None:
    assert _refused(_with(_short_after_deal(), rules=None)) is Invariant.WRONG_TYPE


def test_not_a_state_is_refused() -> None:
    assert _refused("a state") is Invariant.WRONG_TYPE


def test_a_seed_out_of_range_is_refused() -> None:
    assert _refused(attrs.evolve(_short_after_deal(), seed=2**64)) is Invariant.OUT_OF_RANGE


def test_a_position_of_another_shape_is_refused() -> None:
    state = _short_after_deal()
    assert _refused(attrs.evolve(state, position=state.position[:-1])) is Invariant.WRONG_TYPE
    assert _refused(attrs.evolve(state, position=None)) is Invariant.WRONG_TYPE
    assert _refused(_with(state, phase=7)) is Invariant.OUT_OF_RANGE


def test_a_deal_without_its_setup_is_refused() -> None:
    assert _refused(attrs.evolve(_short_after_deal(), setup=None)) is Invariant.PHASE
    state = new_match(Rules(schedule="short"), seed=2026)
    dealt = _short_after_deal().setup
    assert _refused(attrs.evolve(state, setup=dealt)) is Invariant.PHASE


def test_a_finished_deal_of_another_shape_is_refused() -> None:
    """A finished deal's deal is made from its position: a broken one is refused, not read."""
    state = _short_after_deal()
    while playing(state) and not state.history:
        state = apply(state, legal_actions(state)[-1])
    for broken in (None, state.history[0].position[:-1], (9,) * 19):
        history = (attrs.evolve(state.history[0], position=broken), *state.history[1:])
        assert _refused(attrs.evolve(state, history=history)) in (
            Invariant.WRONG_TYPE,
            Invariant.OUT_OF_RANGE,
        )


def test_totals_that_the_deals_do_not_score_are_refused() -> None:
    state = _short_after_deal()
    while playing(state) and state.counted_deals < 1:
        state = apply(state, legal_actions(state)[-1])
    assert _refused(_with(state, total_ns=state.totals[0] + 10)) is Invariant.COUNTED


def test_every_state_of_a_played_match_passes() -> None:
    rng = random.Random(14)
    state = new_match(Rules(schedule=[3, 1, 2], tie="tiebreak-deal"), seed=14)
    seen = 0
    while True:
        assert validate(state) is state
        seen += 1
        if not playing(state):
            break
        state = apply(state, rng.choice(legal_actions(state)))
    assert seen > 10


# --- one field changed at a time, from real positions -------------------------------------

Mutation = Callable[[MatchState, random.Random], MatchState | None]


def _outcome(state: MatchState, rng: random.Random) -> MatchState:
    """Another outcome code: the match ended while it goes on, or ended otherwise."""
    codes = [P.GOING_ON, P.SCORE_NS, P.SCORE_EW, P.DRAW, P.TIEBREAK_NS, P.TIEBREAK_EW]
    codes.remove(state.position[P.OUTCOME])
    return _with(state, outcome=rng.choice(codes))


def _totals(state: MatchState, rng: random.Random) -> MatchState:
    ns, ew = state.totals
    return _with(state, total_ns=ns + rng.choice([-10, 1]), total_ew=ew + rng.choice([0, 5]))


def _counted(state: MatchState, rng: random.Random) -> MatchState:
    return _with(state, counted=state.counted_deals + rng.choice([-2, -1, 1, 2, 50]))


def _number(state: MatchState, rng: random.Random) -> MatchState:
    return _with(state, number=state.position[P.NUMBER] + rng.choice([-1, 1, 3]))


def _phase(state: MatchState, rng: random.Random) -> MatchState:
    phases = [P.DEAL, P.BID, P.PLAY, P.OVER, -1, 4]
    phases.remove(state.position[P.PHASE])
    return _with(state, phase=rng.choice(phases))


def _rules(state: MatchState, rng: random.Random) -> MatchState:
    return _with(state, rules=rng.choice([None, "short", 3, (7, 6)]))


def _seed(state: MatchState, rng: random.Random) -> MatchState:
    return attrs.evolve(state, seed=rng.choice([-1, 2**64, "7", None, 1.5]))


def _drop_history(state: MatchState, rng: random.Random) -> MatchState | None:
    if not state.history:
        return None
    history = list(state.history)
    del history[rng.randrange(len(history))]
    return attrs.evolve(state, history=tuple(history))


def _history_scores(state: MatchState, rng: random.Random) -> MatchState | None:
    """A finished deal that took a trick more or fewer, and so scored otherwise."""
    if not state.history:
        return None
    index = rng.randrange(len(state.history))
    history = list(state.history)
    finished = list(history[index].position)
    finished[P.WON_NS] += rng.choice([-1, 1])
    history[index] = attrs.evolve(history[index], position=tuple(finished))
    return attrs.evolve(state, history=tuple(history))


def _move_card(state: MatchState, rng: random.Random) -> MatchState | None:
    """A card of one hand also put in (or moved to) another."""
    if state.deal is None or not any(state.deal.hands):
        return None
    hands = list(state.deal.hands)
    source = rng.choice([seat for seat in range(4) if hands[seat]])
    card = rng.choice(state.deal.hand(Seat(source)))
    target = (source + rng.randrange(1, 4)) % 4
    hands[target] |= 1 << card
    if rng.random() < 0.5:
        hands[source] &= ~(1 << card)
    return _with(state, hands=tuple(hands))


def _stock_card(state: MatchState, rng: random.Random) -> MatchState | None:
    """A card of the stock (the turned card or the undealt rest) put into a hand."""
    if state.deal is None:
        return None
    stock = [card for card in Card if state.deal.setup.stock >> card & 1]
    hands = list(state.deal.hands)
    hands[rng.randrange(4)] |= 1 << rng.choice(stock)
    return _with(state, hands=tuple(hands))


def _hands(state: MatchState, rng: random.Random) -> MatchState | None:
    if state.deal is None:
        return None
    hands = rng.choice([(0, 0, 0, 0), (-1, 0, 0, 0), (1 << 60, 0, 0, 0), None, (1, 2, 4)])
    return _with(state, hands=hands)


def _trick(state: MatchState, rng: random.Random) -> MatchState | None:
    """A card added to the current trick, taken from its player's hand or from nowhere."""
    if state.deal is None:
        return None
    extra = rng.choice([*range(54), 54, -1])
    return _with(state, trick=(*state.position[P.TRICK], extra))


def _bids(state: MatchState, rng: random.Random) -> MatchState | None:
    """A fifth bid, or a bid the hand size does not allow (a legal next bid would be real)."""
    if state.deal is None:
        return None
    bids = state.position[P.BIDS]
    if len(bids) == 4:
        return _with(state, bids=(*bids, rng.choice([0, BOARD])))
    wrong = [-1, BOARD + 1] + ([state.hand_size] if state.hand_size < BOARD else [])
    return _with(state, bids=(*bids, rng.choice(wrong)))


def _leader(state: MatchState, rng: random.Random) -> MatchState | None:
    if state.deal is None:
        return None
    options = [-1, 0, 1, 2, 3]
    options.remove(state.position[P.LEADER])
    return _with(state, leader=rng.choice(options))


def _broken(state: MatchState, rng: random.Random) -> MatchState | None:
    if state.deal is None or state.deal.leader is None:
        return None
    return _with(state, broken=not state.position[P.BROKEN])


def _won(state: MatchState, rng: random.Random) -> MatchState | None:
    """A trick more (or fewer) for one pair than its cards won."""
    if state.deal is None:
        return None
    field = rng.choice(["won_ns", "won_ew"])
    won = state.position[getattr(P, field.upper())]
    return _with(state, **{field: won + rng.choice([-1, 1]) if won else 1})


def _played(state: MatchState, rng: random.Random) -> MatchState | None:
    """A completed trick's cards in the reverse order: each played by a seat not holding it."""
    played = state.position[P.PLAYED]
    if state.deal is None or not played:
        return None
    start = 4 * rng.randrange(len(played) // 4)
    trick = played[start : start + 4][::-1]
    return _with(state, played=(*played[:start], *trick, *played[start + 4 :]))


def _setup(state: MatchState, rng: random.Random) -> MatchState | None:
    if state.deal is None:
        return None
    setup = state.deal.setup
    field, value = rng.choice(
        [
            ("hand_size", setup.hand_size % 13 + 1),
            ("hand_size", 0),
            ("dealer", setup.dealer.after(1)),
            ("number", setup.number + 1),
            ("tiebreak", not setup.tiebreak),
            ("turned", next(card for card in Card if card != setup.turned)),
            ("deck", setup.deck[::-1]),
            ("deck", setup.deck[:53]),
        ]
    )
    return attrs.evolve(state, setup=attrs.evolve(setup, **{field: value}))


MUTATIONS: dict[str, Mutation] = {
    "outcome": _outcome,
    "totals": _totals,
    "counted": _counted,
    "number": _number,
    "phase": _phase,
    "rules": _rules,
    "seed": _seed,
    "drop_history": _drop_history,
    "history_scores": _history_scores,
    "move_card": _move_card,
    "stock_card": _stock_card,
    "hands": _hands,
    "trick": _trick,
    "bids": _bids,
    "leader": _leader,
    "broken": _broken,
    "won": _won,
    "played": _played,
    "setup": _setup,
}


@given(states(), st.sampled_from(sorted(MUTATIONS)), st.randoms(use_true_random=False))
def test_a_state_changed_in_one_field_is_refused(
    state: MatchState, name: str, rng: random.Random
) -> None:
    assert validate(state) is state
    try:
        corrupted = MUTATIONS[name](state, rng)
    except (ValueError, TypeError):
        # attrs refused the value itself (a converter or validator): nothing to build.
        return
    if corrupted is None or corrupted == state:
        return
    with pytest.raises(InvalidState) as refusal:
        validate(corrupted)
    assert isinstance(refusal.value.invariant, Invariant)
    assert refusal.value.message


# --- the JSON of states, one value changed at a time -----------------------------------------


def _leaves(data: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The path of every value inside ``data`` (objects, arrays and their items)."""
    found = [path]
    if isinstance(data, dict):
        for key, value in data.items():
            found += _leaves(value, (*path, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found += _leaves(value, (*path, index))
    return found


_REPLACEMENTS = ["X", "", -5, 10**6, 2**70, None, True, False, [], {}, ["AS"] * 5, 1.5]


def _json_equal(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@given(states(), st.randoms(use_true_random=False))
def test_state_json_changed_in_one_value_is_refused(state: MatchState, rng: random.Random) -> None:
    data = to_json(state)
    paths = [path for path in _leaves(data) if path]
    path = rng.choice(paths)
    corrupted = copy.deepcopy(data)
    parent = corrupted
    for key in path[:-1]:
        parent = parent[key]
    if rng.random() < 0.2 and isinstance(parent[path[-1]], dict):
        parent[path[-1]]["extra"] = 1
    else:
        options = [value for value in _REPLACEMENTS if not _json_equal(value, parent[path[-1]])]
        parent[path[-1]] = rng.choice(options)
        value = parent[path[-1]]
        decks = [deal["deck"] for deal in data["record"]["deals"]]
        if (
            path == ("record", "seed")
            and "seed" not in decks
            and type(value) is int
            and 0 <= value < 2**64
        ):
            # Every deck is written out, so the seed deals none of them: another seed
            # is another state that play reaches, with the same deals.
            assert from_json("match_state", corrupted).seed == value
            return
    with pytest.raises(SerializeError):
        from_json("match_state", corrupted)


# --- impossible small values (item 6) -----------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "data", "says"),
    [
        ("trick", {"leader": "N", "cards": ["AS"] * 5, "winner": "N"}, "at most 4"),
        ("trick", {"leader": "N", "cards": ["AS", "AS"], "winner": None}, "twice"),
        ("trick", {"leader": "N", "cards": ["AS", "KS"], "winner": "E"}, "winner"),
        ("trick", {"leader": "N", "cards": ["AS", "KS", "QS", "JS"], "winner": None}, "winner"),
        ("trick", {"leader": "N", "cards": [], "winner": None, "x": 1}, "unknown field"),
        ("outcome", {"termination": "draw", "winner": "NS", "totals": [3, 3]}, "no winner"),
        ("outcome", {"termination": "draw", "winner": None, "totals": [3, 4]}, "equal"),
        ("outcome", {"termination": "score", "winner": None, "totals": [3, 4]}, "winner"),
        ("outcome", {"termination": "score", "winner": "NS", "totals": [3, 4]}, "does not win"),
        ("outcome", {"termination": "score", "winner": "EW", "totals": [5, 5]}, "does not win"),
        ("outcome", {"termination": "tiebreak-deal", "winner": "EW", "totals": [5, 6]}, "equal"),
        ("contract", {"target": -5, "multiplier": 0}, "target"),
        ("contract", {"target": 25, "multiplier": 0}, "target"),
        ("contract", {"target": 0, "multiplier": 5}, "multiplier"),
        ("contract", {"target": 3, "multiplier": 1}, "Board"),
        ("contract", {"target": 3, "multiplier": 0, "extra": True}, "unknown field"),
        ("action", {"deal": [], "extra": 1}, "unknown field"),
    ],
)
def test_impossible_values_are_refused(kind: str, data: Any, says: str) -> None:
    with pytest.raises(SerializeError, match=says):
        from_json(kind, data)


@pytest.mark.parametrize(
    ("kind", "data"),
    [
        ("trick", {"leader": "N", "cards": ["AS", "KS", "QS", "JS"], "winner": "N"}),
        ("trick", {"leader": "W", "cards": ["2C"], "winner": None}),
        ("outcome", {"termination": "draw", "winner": None, "totals": [3, 3]}),
        ("outcome", {"termination": "score", "winner": "EW", "totals": [3, 4]}),
        ("outcome", {"termination": "tiebreak-deal", "winner": "NS", "totals": [7, 7]}),
        ("contract", {"target": 24, "multiplier": 0}),
        ("contract", {"target": 0, "multiplier": 4}),
    ],
)
def test_possible_values_still_read(kind: str, data: Any) -> None:
    assert to_json(from_json(kind, data)) == data


def test_extra_keys_are_refused_in_state_json() -> None:
    data = to_json(_short_after_deal())
    for where in (data, data["snapshot"]):
        where["extra"] = 1
        with pytest.raises(SerializeError, match="unknown field 'extra'"):
            from_json("match_state", data)
        del where["extra"]


def test_true_is_not_one_in_a_snapshot() -> None:
    state = _short_after_deal()
    while playing(state) and state.counted_deals < 1:
        state = apply(state, legal_actions(state)[-1])
    data = to_json(state)
    assert data["snapshot"]["counted_deals"] == 1
    data["snapshot"]["counted_deals"] = True
    with pytest.raises(SerializeError, match="counted_deals"):
        from_json("match_state", data)


def test_phase_is_what_validate_checks() -> None:
    """A sanity check that the reproductions start from a real position in bidding."""
    assert _short_after_deal().phase is Phase.BID


def test_extra_keys_are_refused_in_view_json() -> None:
    state = _short_after_deal()
    data = to_json(view(state, Seat.EAST))
    assert from_json("seat_view", data) == view(state, Seat.EAST)
    for where in (data, data["deal"]):
        where["extra"] = 1
        with pytest.raises(SerializeError, match="unknown field 'extra'"):
            from_json("seat_view", data)
        del where["extra"]
