"""Tests of the JSON forms: every value round-trips through plain JSON data."""

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from backalley import (
    Bid,
    Card,
    Contract,
    Deal,
    MatchState,
    Outcome,
    Pair,
    Play,
    Rules,
    Seat,
    Suit,
    Termination,
    Trick,
    seeded_deck,
)
from backalley.engine.view import view
from backalley.formats.records import record_from_state, record_to_json
from backalley.formats.serialize import KINDS, SerializeError, from_json, snapshot, to_json
from record_strategies import mutated, play, played_states


def _plain(data: Any) -> Any:
    """The data after a trip through JSON text, so only plain JSON types remain."""
    return json.loads(json.dumps(data))


@pytest.mark.parametrize(
    ("kind", "value"),
    [
        ("card", Card.H10),
        ("card", Card.BIG),
        ("seat", Seat.WEST),
        ("suit", Suit.DIAMONDS),
        ("pair", Pair.EAST_WEST),
        ("rules", Rules()),
        ("rules", Rules(schedule=[3, 1, 3], tie="tiebreak-deal", first_dealer=Seat.EAST)),
        ("bid", Bid(Seat.NORTH, 4)),
        ("bid", Bid(Seat.SOUTH, board=True)),
        ("play", Play(Seat.EAST, Card.LITTLE)),
        ("deal", Deal(seeded_deck(5, 2))),
        ("action", Bid(Seat.WEST)),
        ("action", Deal(seeded_deck(1, 1))),
        ("contract", Contract(7)),
        ("contract", Contract(0, 3)),
        ("trick", Trick(Seat.NORTH, (Card.H5, Card.HK, Card.S2, Card.HA), Seat.SOUTH)),
        ("trick", Trick(Seat.EAST, (Card.C2,))),
        ("outcome", Outcome(Termination.DRAW, None, (10, 10))),
        ("outcome", Outcome(Termination.SCORE, Pair.NORTH_SOUTH, (-3, -40))),
    ],
)
def test_small_values_round_trip(kind: str, value: object) -> None:
    """Each value's JSON is plain data that rebuilds an equal value."""
    data = _plain(to_json(value))
    assert from_json(kind, data) == value


def test_examples_of_the_forms() -> None:
    """Cards, seats, bids and plays are written in the notation."""
    assert to_json(Card.H10) == "10H"
    assert to_json(Bid(Seat.EAST)) == "E pass"
    assert to_json(Play(Seat.SOUTH, Card.SA)) == "S AS"
    assert to_json(Rules(schedule="short")) == {
        "schedule": "short",
        "tie": "draw",
        "first_dealer": "N",
    }


@given(played_states())
def test_states_round_trip(state: MatchState) -> None:
    """A state reached by random legal play rebuilds equal from its JSON."""
    data = _plain(to_json(state))
    assert from_json("match_state", data) == state
    assert data["snapshot"] == snapshot(state)


@given(played_states())
def test_deal_results_round_trip(state: MatchState) -> None:
    """Every finished deal (thrown in, scored or tiebreak) rebuilds equal from its JSON."""
    for result in state.history:
        assert from_json("deal_result", _plain(to_json(result))) == result


def test_snapshot_must_agree() -> None:
    """A snapshot that disagrees with its record is refused, naming the field."""
    state = play(Rules(schedule="short"), 3, 3, 40)
    data = _plain(to_json(state))
    data["snapshot"]["totals"] = [999, 0]
    with pytest.raises(SerializeError, match=r"snapshot\.totals: the record reaches"):
        from_json("match_state", data)


@pytest.mark.parametrize(
    ("kind", "data", "fragment"),
    [
        ("card", "XS", "unknown card 'XS'"),
        ("seat", "Q", "unknown seat"),
        ("pair", "NE", "unknown pair"),
        ("action", "N 3 3", "write a seat then a bid or a card"),
        ("bid", "S AS", "expected a bid"),
        ("play", "S 3", "expected a play"),
        ("deal", {"deal": ["AS"] * 54}, "twice"),
        ("deal", {"deal": ["AS", "XS"]}, r"deal\[1\]: unknown card 'XS'"),
        ("contract", {"target": "3", "multiplier": 0}, "target: expected a whole number"),
        ("trick", {"leader": "N", "cards": []}, "'winner' is missing"),
        (
            "outcome",
            {"termination": "won", "winner": None, "totals": [0, 0]},
            "unknown termination",
        ),
        ("rules", {"schedule": [14], "tie": "draw", "first_dealer": "N"}, r"schedule\[0\]"),
        ("match_state", [], "expected an object"),
    ],
)
def test_bad_data_says_what_and_where(kind: str, data: Any, fragment: str) -> None:
    """Bad JSON data raises a ValueError whose message names the problem and its path."""
    with pytest.raises(ValueError, match=fragment):
        from_json(kind, data)


def test_unknown_kind_and_type() -> None:
    """Asking for an unknown kind, or the JSON of a foreign object, is refused."""
    with pytest.raises(ValueError, match="unknown kind"):
        from_json("horse", {})
    with pytest.raises(TypeError, match="no JSON form"):
        to_json(object())
    assert "match_state" in KINDS


@given(played_states(max_steps=60), st.sampled_from(list(Seat)))
def test_seat_views_and_records_have_their_json_too(state: MatchState, seat: Seat) -> None:
    """A seat's view and a record are values like the others: to_json, JSON, from_json."""
    seen = view(state, seat)
    data = _plain(to_json(seen))
    assert data == seen.to_dict()
    assert from_json("seat_view", data) == seen
    record = record_from_state(state)
    assert _plain(to_json(record)) == record_to_json(record)


def test_deal_result_scores_are_checked() -> None:
    """A deal result whose claimed scores differ from the replay is refused."""
    state = play(Rules(schedule=[2]), 9, 9, 30)
    data = _plain(to_json(state.history[-1]))
    data["scores"] = [data["scores"][0] + 1, data["scores"][1]]
    with pytest.raises(SerializeError, match="scores: the deal scores"):
        from_json("deal_result", data)


@given(st.data())
def test_mutated_state_json_only_raises_value_errors(data: st.DataObject) -> None:
    """Randomly edited state JSON either rebuilds a state or raises a ValueError with a message."""
    state = play(Rules(schedule=[2, 1]), 5, 5, 25)
    try:
        rebuilt = from_json("match_state", mutated(data, _plain(to_json(state))))
    except ValueError as error:
        assert str(error)
    else:
        assert isinstance(rebuilt, MatchState)


def test_errors_inside_the_record_name_their_full_path() -> None:
    """A bad card inside a state's record is reported under record.deals[...]."""
    data = _plain(to_json(play(Rules(schedule=[2, 1]), 5, 5, 25)))
    data["record"]["deals"][0]["plays"][0] = "XS"
    with pytest.raises(SerializeError, match=r"^record\.deals\[0\]\.plays\[0\]: unknown card 'XS'"):
        from_json("match_state", data)
