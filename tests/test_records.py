"""Tests of game records: writing, reading, replaying, checking, the schema and bad input."""

import json
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from backalley import (
    Deal,
    MatchState,
    Reason,
    Rules,
    Seat,
    apply,
    legal_actions,
    new_match,
    seeded_deck,
)
from backalley.core.cards import CARDS
from backalley.core.rules import RULES_VERSION
from backalley.engine.validate import validate
from backalley.formats.checking import IllegalRecord, check, replay
from backalley.formats.records import (
    CALL_PATTERN,
    MAX_RECORD_BYTES,
    Record,
    RecordError,
    deal_record,
    dumps,
    loads,
    parse_record,
    record_from_state,
    record_to_json,
)
from record_strategies import mutated, play, played_states

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads(
    resources.files("backalley").joinpath("schemas/record.schema.json").read_text(encoding="utf-8")
)
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
RECORD_FILES = sorted((ROOT / "conformance" / "records").glob("*.json"))


def _finished(rules: Rules | None = None, seed: int = 4) -> MatchState:
    return play(rules or Rules(schedule=[3, 2, 1]), seed, seed, 10_000)


def _data(state: MatchState, **options: Any) -> dict[str, Any]:
    return json.loads(dumps(record_from_state(state, **options)))


def _library_accepts(data: Any) -> bool:
    try:
        parse_record(data)
    except RecordError:
        return False
    return True


class TestWriteAndRead:
    @given(played_states())
    def test_record_replays_to_the_state(self, state: MatchState) -> None:
        """A record written from any state, read back, replays to an equal state."""
        record = loads(dumps(record_from_state(state)))
        replayed = replay(record)
        assert replayed == state
        assert check(record).consistent
        # replay does not validate what it reached (apply did, action by action): it passes.
        assert validate(replayed) is replayed

    @given(played_states(), st.sampled_from(["auto", "explicit"]), st.booleans())
    def test_written_records_are_valid_under_the_schema(
        self, state: MatchState, decks: str, claims: bool
    ) -> None:
        """Every record the codec writes, from any state, is valid under the published schema."""
        data = json.loads(dumps(record_from_state(state, decks=decks, claims=claims)))
        VALIDATOR.validate(data)

    def test_decks_explicit_or_seeded(self) -> None:
        """Decks are written as "seed" when the seed gives them, or as cards on request."""
        state = _finished()
        assert {deal["deck"] for deal in _data(state)["deals"]} == {"seed"}
        explicit = _data(state, decks="explicit")
        assert all(len(deal["deck"]) == 54 for deal in explicit["deals"])
        assert replay(parse_record(explicit)) == state

    def test_seed_only_refuses_foreign_decks(self) -> None:
        """decks="seed" refuses a deal that was not dealt from the seed's deck."""
        state = apply(new_match(Rules(schedule=[2]), seed=1), Deal(seeded_deck(2, 0)))
        with pytest.raises(ValueError, match="not dealt from the seed"):
            record_from_state(state, decks="seed")
        assert _data(state)["deals"][0]["deck"] != "seed"

    def test_claims_are_optional(self) -> None:
        """Without claims the record has no scores, totals or result."""
        data = _data(_finished(), claims=False)
        assert "totals" not in data and "result" not in data
        assert all("scores" not in deal for deal in data["deals"])

    def test_tags_round_trip(self) -> None:
        """Free-text tags are kept."""
        record = record_from_state(_finished(), tags={"event": "club night"})
        assert loads(dumps(record)).tags == (("event", "club night"),)

    def test_partial_record_is_a_position(self) -> None:
        """A record that stops mid-trick is valid and replays to a match not over."""
        state = play(Rules(schedule="short"), 5, 5, 30)
        report = check(loads(dumps(record_from_state(state))))
        assert report.consistent and not report.complete
        assert report.state == state


class TestCheck:
    def test_wrong_claims_are_reported(self) -> None:
        """Claimed deal scores, totals and result that differ are each reported with a path."""
        data = _data(_finished())
        data["deals"][1]["scores"][0] += 5
        data["totals"] = [0, 0]
        winner = data["result"]["winner"]
        data["result"]["winner"] = "EW" if winner == "NS" else "NS"
        report = check(parse_record(data))
        assert [d.path for d in report.discrepancies] == ["deals[1].scores", "totals", "result"]
        assert "deal 2 claims" in report.discrepancies[0].message

    def test_claims_on_an_unfinished_match(self) -> None:
        """A result claimed for a match that is not over is a discrepancy."""
        data = _data(play(Rules(schedule="short"), 2, 2, 20))
        data["result"] = {"termination": "score", "winner": "NS"}
        report = check(parse_record(data))
        assert [d.path for d in report.discrepancies] == ["result"]

    def test_first_illegal_action_is_located(self) -> None:
        """An illegal play is reported with its path, position, action and reason."""
        state = _finished()
        data = _data(state)
        turned = state.history[0].deal.setup.turned.code
        data["deals"][0]["plays"][5] = turned
        with pytest.raises(IllegalRecord) as caught:
            check(parse_record(data))
        error = caught.value
        assert error.path == "deals[0].plays[5]"
        assert error.where == "deal 1, trick 2, card 2"
        assert error.reason is Reason.CARD_NOT_IN_HAND
        assert error.action.endswith(turned)

    def test_bid_of_fourteen_is_out_of_range(self) -> None:
        """A bid of 14 is well-formed but refused by the rules at its position."""
        data = _data(_finished())
        data["deals"][0]["bids"][2] = "14"
        with pytest.raises(IllegalRecord) as caught:
            replay(parse_record(data))
        assert caught.value.path == "deals[0].bids[2]"
        assert caught.value.where == "deal 1, bid 3"
        assert caught.value.reason is Reason.BID_OUT_OF_RANGE

    def test_actions_after_the_end(self) -> None:
        """A deal recorded after the match ended is refused as match_over."""
        data = _data(_finished())
        data["deals"].append({"deck": "seed", "bids": [], "plays": []})
        with pytest.raises(IllegalRecord) as caught:
            replay(parse_record(data))
        assert caught.value.reason is Reason.MATCH_OVER
        assert caught.value.path == f"deals[{len(data['deals']) - 1}].deck"

    def test_plays_after_a_throw_in(self) -> None:
        """A play recorded in a thrown-in deal is refused as wrong_phase."""
        state = new_match(Rules(schedule=[2]), seed=3)
        state = apply(state, legal_actions(state)[0])
        for _ in range(4):
            state = apply(state, legal_actions(state)[0])  # four passes
        data = _data(state)
        data["deals"][0]["plays"] = ["AS"]
        with pytest.raises(IllegalRecord) as caught:
            replay(parse_record(data))
        assert caught.value.reason is Reason.WRONG_PHASE
        assert caught.value.action == "AS"


def _valid() -> dict[str, Any]:
    return _data(_finished(Rules(schedule=[2, 1]), 6), decks="explicit")


def _set(path: list[Any], value: Any) -> Any:
    def mutate(data: dict[str, Any]) -> None:
        target: Any = data
        for key in path[:-1]:
            target = target[key]
        if value is _DELETE:
            del target[path[-1]]
        else:
            target[path[-1]] = value

    return mutate


_DELETE = object()
BAD = [
    (_set(["deals", 0, "plays", 3], "XS"), "deals[0].plays[3]", "unknown card 'XS'"),
    (_set(["deals", 0, "plays", 3], "as"), "deals[0].plays[3]", "write the card 'as' as 'AS'"),
    (_set(["deals", 0, "deck", 7], "AS"), "deals[0].deck[", "twice"),
    (_set(["deals", 0, "deck", 53], _DELETE), "deals[0].deck", "this one has 53"),
    (_set(["deals", 0, "bids", 0], 3), "deals[0].bids[0]", "unknown bid"),
    (_set(["deals", 0, "bids", 0], "0"), "deals[0].bids[0]", "unknown bid"),
    (_set(["deals", 0, "bids", 0], "Pass"), "deals[0].bids[0]", "unknown bid"),
    (_set(["deals", 0, "bids", 0], "pass\n"), "deals[0].bids[0]", "unknown bid"),
    (_set(["deals", 0, "deck"], "shuffled"), "deals[0].deck", "expected 'seed'"),
    (_set(["deals", 0, "scores"], [1]), "deals[0].scores", "two scores"),
    (_set(["deals", 0, "scores"], [1, "2"]), "deals[0].scores[1]", "whole number"),
    (_set(["deals", 0, "bogus"], 1), "deals[0].bogus", "unknown field"),
    (_set(["deals", 0, "plays"], _DELETE), "deals[0]", "'plays' is missing"),
    (_set(["deals"], {}), "deals", "expected an array"),
    (_set(["seed"], -1), "seed", "a seed is a whole number"),
    (_set(["seed"], 2**64), "seed", "a seed is a whole number"),
    (_set(["seed"], "7"), "seed", "a seed is a whole number"),
    (_set(["seed"], True), "seed", "a seed is a whole number"),
    (_set(["version"], 2), "version", "reads version 1"),
    (_set(["format"], "pgn"), "format", "expected 'backalley-record'"),
    (_set(["rules", "schedule"], "long"), "rules.schedule", "unknown schedule"),
    (_set(["rules", "schedule"], []), "rules.schedule", "at least one deal"),
    (_set(["rules", "schedule"], [3, 14]), "rules.schedule[1]", "hand size"),
    (_set(["rules", "tie"], "coin"), "rules.tie", "unknown tie policy"),
    (_set(["rules", "first_dealer"], "North"), "rules.first_dealer", "seat letter"),
    (_set(["totals"], [1, 2, 3]), "totals", "two scores"),
    (_set(["result", "winner"], "NW"), "result.winner", "expected 'NS', 'EW' or null"),
    (_set(["result", "termination"], "won"), "result.termination", "expected 'score'"),
    (_set(["tags"], {"event": 3}), "tags.event", "expected a string"),
    (_set(["rules"], _DELETE), "", "'rules' is missing"),
]


@pytest.mark.rule("SCHED-4", "END-2")
@pytest.mark.parametrize(
    ("rules", "path", "setting"),
    [
        ({"schedule": "long"}, "rules.schedule", {"schedule": "long"}),
        ({"schedule": []}, "rules.schedule", {"schedule": []}),
        ({"schedule": [3, 14]}, "rules.schedule[1]", {"schedule": [14]}),
        ({"schedule": [2, 0.0]}, "rules.schedule[1]", {"schedule": [0]}),
        ({"tie": "coin"}, "rules.tie", {"tie": "coin"}),
        ({"tie": 3}, "rules.tie", {"tie": 3}),
    ],
)
def test_rules_are_refused_with_the_rules_own_sentence(
    rules: dict[str, Any], path: str, setting: dict[str, Any]
) -> None:
    """A record's bad rules get the sentence ``Rules`` gives, at the JSON path of the value."""
    data = _valid()
    data["rules"].update(rules)
    with pytest.raises(RecordError) as caught:
        parse_record(data)
    with pytest.raises((TypeError, ValueError)) as direct:
        Rules(**setting)
    assert (caught.value.path, caught.value.message) == (path, str(direct.value))


class TestStructure:
    @pytest.mark.parametrize(("mutate", "path", "fragment"), BAD)
    def test_bad_records_say_what_and_where(self, mutate: Any, path: str, fragment: str) -> None:
        """Each malformed record is refused with its JSON path and a precise message."""
        data = _valid()
        mutate(data)
        with pytest.raises(RecordError) as caught:
            parse_record(data)
        # A path ending in "[" stands for any index of that array.
        assert (
            caught.value.path.startswith(path) if path.endswith("[") else caught.value.path == path
        )
        assert fragment in caught.value.message
        assert not isinstance(caught.value, IllegalRecord)

    @pytest.mark.parametrize(("mutate", "path", "fragment"), BAD)
    def test_schema_refuses_them_too(self, mutate: Any, path: str, fragment: str) -> None:
        """The published JSON Schema refuses every malformed record the library refuses."""
        data = _valid()
        mutate(data)
        assert not VALIDATOR.is_valid(data)

    @pytest.mark.parametrize("path", RECORD_FILES, ids=lambda p: p.name)
    def test_schema_accepts_the_conformance_records(self, path: Path) -> None:
        """Every record in conformance/ is valid under the schema and for the library."""
        data = json.loads(path.read_text(encoding="utf-8"))
        VALIDATOR.validate(data)
        assert _library_accepts(data)

    def test_schema_is_a_valid_schema_and_documented(self) -> None:
        """The schema itself is valid, lists every card code, and docs/ holds the same copy."""
        jsonschema.Draft202012Validator.check_schema(SCHEMA)
        assert SCHEMA["$defs"]["card"]["enum"] == [card.code for card in CARDS]
        docs_copy = json.loads((ROOT / "docs" / "record.schema.json").read_text(encoding="utf-8"))
        assert docs_copy == SCHEMA

    @given(st.data())
    def test_schema_and_library_agree_on_mutations(self, data: st.DataObject) -> None:
        """Random edits of a valid record pass the schema exactly when they pass the library."""
        record = mutated(data, _valid())
        assert VALIDATOR.is_valid(record) == _library_accepts(record)


class TestFuzz:
    @given(st.binary(max_size=300))
    def test_bytes_give_a_record_or_a_record_error(self, blob: bytes) -> None:
        """Arbitrary bytes either read as a record or raise RecordError, nothing else."""
        try:
            loads(blob)
        except RecordError as error:
            assert str(error)

    @given(st.data())
    def test_mutated_records_only_raise_record_errors(self, data: st.DataObject) -> None:
        """Mutated valid records, read and checked, raise only RecordError or its subclasses."""
        text = json.dumps(mutated(data, _valid()))
        try:
            check(loads(text))
        except RecordError as error:
            assert error.message

    @pytest.mark.parametrize(
        ("text", "fragment"),
        [
            (b"{", "not JSON: line 1, column 2"),
            (b'{"format": 1, "format": 2}', "appears twice"),
            (b'{"seed": NaN}', "NaN is not a JSON number"),
            (b"\xff\xfe{}", "not UTF-8"),
            (b"[" * 100_000, "nested too deeply"),
            (b"[]", "expected an object"),
            (b" " * (MAX_RECORD_BYTES + 1), "at most"),
        ],
    )
    def test_unreadable_input(self, text: bytes, fragment: str) -> None:
        """Input that is not a JSON record is refused with a message saying why."""
        with pytest.raises(RecordError, match=fragment):
            loads(text)


def test_record_to_json_matches_dumps() -> None:
    """dumps writes exactly the data record_to_json gives, and a Record compares by value."""
    record = record_from_state(_finished())
    assert json.loads(dumps(record)) == record_to_json(record)
    assert isinstance(loads(dumps(record)), Record)
    assert loads(dumps(record)) == record


def test_first_dealer_and_schedule_are_kept() -> None:
    """Custom schedules and first dealers survive the record."""
    rules = Rules(schedule=[2, 3], tie="tiebreak-deal", first_dealer=Seat.WEST)
    record = loads(dumps(record_from_state(_finished(rules, 8))))
    assert record.rules == rules


def test_call_pattern_matches_the_schema() -> None:
    """The library's bid pattern accepts exactly the calls the schema lists."""
    listed = set(SCHEMA["$defs"]["bid"]["enum"])
    candidates = {"pass", "board", "Pass", "0", "00", "01", "pass ", *map(str, range(150))}
    assert {call for call in candidates if CALL_PATTERN.fullmatch(call)} == listed & candidates
    assert all(CALL_PATTERN.fullmatch(call) for call in listed)


def test_a_deal_on_its_own() -> None:
    """deal_record gives a one-deal record that replays to the same deal and score."""
    tiebreak = ROOT / "conformance" / "records" / "tiebreak-deal.json"
    state = replay(loads(tiebreak.read_bytes()))
    assert state.history[-1].deal.setup.tiebreak
    for number, result in enumerate(state.history):
        if result.deal.setup.tiebreak:
            with pytest.raises(ValueError, match="tiebreak"):
                deal_record(state, number)
            continue
        report = check(loads(dumps(deal_record(state, number))))
        assert report.consistent
        alone = report.state.history[0]
        assert alone.scores == result.scores
        assert alone.deal.tricks == result.deal.tricks
        assert alone.deal.setup.hands == result.deal.setup.hands
    with pytest.raises(ValueError, match="no deal"):
        deal_record(state, len(state.history))


@given(played_states(), st.data())
def test_a_changed_play_is_never_blamed_earlier(state: MatchState, data: st.DataObject) -> None:
    """Changing one play leaves everything before it legal: any refusal is at or after it."""
    record = json.loads(dumps(record_from_state(state, claims=False)))
    places = [(d, k) for d, deal in enumerate(record["deals"]) for k in range(len(deal["plays"]))]
    if not places:
        return
    deal, play_index = data.draw(st.sampled_from(places))
    plays = record["deals"][deal]["plays"]
    plays[play_index] = data.draw(st.sampled_from([card.code for card in CARDS]))
    try:
        replay(parse_record(record))
    except IllegalRecord as error:
        blamed = [
            (d, k)
            for d, item in enumerate(record["deals"])
            for k in range(len(item["plays"]))
            if error.path == f"deals[{d}].plays[{k}]"
        ]
        assert error.path.startswith("deals[")
        if blamed:
            assert blamed[0] >= (deal, play_index)
        else:
            # A later deal or bid is refused (the deal ended differently).
            assert int(error.path[6 : error.path.index("]")]) >= deal


def test_records_say_their_rules_version_and_older_records_are_still_read() -> None:
    """A written record carries ``rules_version`` (RULES_VERSION); a record without it,
    written before it existed, reads the same; a version this library does not play is
    refused, naming the field."""
    state = apply(new_match(Rules(schedule=[1]), seed=3), Deal(CARDS))
    data = json.loads(dumps(record_from_state(state)))
    assert data["rules_version"] == RULES_VERSION == 1
    assert list(data)[:3] == ["format", "version", "rules_version"]
    older = {key: value for key, value in data.items() if key != "rules_version"}
    assert loads(json.dumps(older)) == loads(json.dumps(data))
    for wrong in (2, 0, "1", 1.5):
        with pytest.raises(RecordError, match="rules_version"):
            loads(json.dumps({**data, "rules_version": wrong}))
