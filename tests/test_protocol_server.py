"""The engine protocol's server: every request, its replies, the schemas, the CLI command."""

from __future__ import annotations

import io
import json
import random
import re
import runpy
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator, ValidationError
from referencing import Registry, Resource

from backalley import (
    Bid,
    IllegalAction,
    Reason,
    Rules,
    apply,
    legal_actions,
    new_match,
    seeded_deck,
)
from backalley.core.action_index import NUM_ACTION_INDICES, index_action
from backalley.core.actions import Deal, Play
from backalley.core.cards import CARDS, SEATS
from backalley.engine.bounds import playing
from backalley.engine.state import Phase
from backalley.formats.serialize import to_json
from backalley.protocol import fuzzer
from backalley.protocol import server as server_module
from backalley.protocol.cases import PROBE_DECK, apply_line
from backalley.protocol.messages import (
    ACTION_SLOTS,
    APPLY_LINES,
    APPLY_REQUESTS,
    ERROR_CODES,
    FACT_RULES,
    MESSAGE_SCHEMAS,
    QUOTED,
    RULE_OF_REASON,
    action_slot,
    action_text,
    encode,
    facts,
    facts_line,
    legal_line,
    legal_play_line,
    parse_action,
    schema,
    seat_view,
    view_line,
)
from backalley.protocol.server import MAX_LINE_BYTES, Session, serve
from backalley.strategies import actions, states

ROOT = Path(__file__).resolve().parent.parent
RULES_JSON = {"schedule": [2, 1], "tie": "tiebreak-deal", "first_dealer": "N"}


def _registry() -> Registry:
    record = json.loads(
        resources.files("backalley").joinpath("schemas/record.schema.json").read_text()
    )
    resources_ = [(record["$id"], Resource.from_contents(record))]
    for name in MESSAGE_SCHEMAS:
        found = schema(name)
        resources_.append((found["$id"], Resource.from_contents(found)))
    return Registry().with_resources(resources_)


REGISTRY = _registry()


def validate(direction: str, message: dict) -> None:
    """Validate a message against the schema of its type (request or reply)."""
    found = schema(f"{direction}.{message['type']}")
    Draft202012Validator(found, registry=REGISTRY).validate(message)


def _no_check(direction: str, message: dict) -> None:
    """No schema check: the differential test validates the first matches only."""


def _session() -> Session:
    session = Session()
    reply = session.handle({"type": "new_match", "rules": RULES_JSON, "seed": 3})
    assert reply["type"] == "facts"
    return session


def test_hello_names_the_protocol_version_and_capabilities():
    reply = Session().handle(
        {"type": "hello", "protocol": "backalley-protocol", "versions": [1, 2]}
    )
    assert reply["version"] == 1
    assert set(reply["capabilities"]) == {"legal", "reasons", "view"}
    validate("reply", reply)


@pytest.mark.parametrize(
    ("request_", "words"),
    [
        ({"type": "hello", "protocol": "other", "versions": [1]}, "protocol"),
        ({"type": "hello", "protocol": "backalley-protocol", "versions": [7]}, "version 1"),
        ({"type": "legal"}, "send new_match first"),
        ({"type": "fly"}, "unknown request type"),
        ([1, 2], "a request is a JSON object"),
        ({"type": "new_match"}, "'rules' is missing"),
        ({"type": "new_match", "rules": {"schedule": [14]}}, "new_match"),
        ({"type": "new_match", "rules": RULES_JSON, "seed": -1}, "seed"),
        ({"type": "new_match", "rules": RULES_JSON, "colour": 1}, "unknown field 'colour'"),
    ],
)
def test_requests_that_are_not_messages_get_an_error_reply(request_, words):
    reply = Session().handle(request_)
    assert reply["type"] == "error"
    assert words in reply["message"]
    validate("reply", reply)


def test_bad_actions_are_errors_not_refusals():
    session = _session()
    for action in ("N seven", "X 3", {"deal": ["AS"] * 54}, {"deal": ["AS"]}, 5):
        reply = session.handle({"type": "apply", "action": action})
        assert reply["type"] == "error", action
        assert reply["message"].startswith("action"), reply
    assert session.handle({"type": "apply"})["type"] == "error"


def test_refusals_carry_the_reason_and_leave_the_position_alone():
    session = _session()
    before = session.handle({"type": "facts"})
    reply = session.handle({"type": "apply", "action": "E 1"})
    assert reply["type"] == "refused"
    assert reply["reason"] == "wrong_phase"
    validate("reply", reply)
    assert session.handle({"type": "facts"}) == before


def test_a_session_agrees_with_the_engine_at_every_step():
    """Differential: legal actions, refusals and facts against apply, twenty-five matches."""
    chooser = random.Random(5)
    for seed in range(25):
        check = validate if seed < 5 else _no_check
        rules = Rules(schedule=[chooser.randint(1, 6) for _ in range(2)], tie="tiebreak-deal")
        session = Session()
        request = {
            "type": "new_match",
            "rules": {**RULES_JSON, "schedule": list(rules.schedule)},
            "seed": seed,
        }
        check("request", request)
        reply = session.handle(request)
        state = new_match(rules, seed=seed)
        assert reply == {"type": "facts", "facts": facts(state)}
        check("reply", reply)
        while playing(state):
            legal = session.handle({"type": "legal"})
            check("reply", legal)
            if state.deal is None:
                assert legal["actions"] == []
                action = legal_actions(state)[0]
            else:
                assert [parse_action(a) for a in legal["actions"]] == list(legal_actions(state))
                action = chooser.choice(legal_actions(state))
            request = {"type": "apply", "action": action_text(action)}
            check("request", request)
            reply = session.handle(request)
            assert reply == {"type": "ok"}
            state = apply(state, action)
            shown = session.handle({"type": "facts"})
            check("reply", shown)
            assert shown["facts"] == facts(state)
        refused = session.handle({"type": "apply", "action": "N pass"})
        assert refused["reason"] == "match_over"
        assert shown["facts"]["outcome"]["termination"] == state.outcome.termination.value


def _plain_apply(action: Bid | Play | Deal) -> bytes:
    return encode({"type": "apply", "action": to_json(action)})


def _plain_legal(actions: tuple[Bid | Play | Deal, ...]) -> bytes:
    return encode({"type": "legal", "actions": [to_json(action) for action in actions]})


def test_the_action_tables_equal_the_plain_construction_for_every_bid_and_play():
    """QUOTED and APPLY_LINES, at each action's slot, are json.dumps and encode of its text."""
    assert len(QUOTED) == len(APPLY_LINES) == ACTION_SLOTS == len(SEATS) * NUM_ACTION_INDICES
    for seat in SEATS:
        for index in range(NUM_ACTION_INDICES):
            shared = index_action(index, seat)
            # A value built afresh is found as the shared instance is: the lookup is by value.
            fresh = (
                Play(seat, shared.card)
                if type(shared) is Play
                else Bid(seat, shared.amount, shared.board)
            )
            for action in (shared, fresh):
                slot = action_slot(action)
                assert slot == seat * NUM_ACTION_INDICES + index
                assert QUOTED[slot] == json.dumps(to_json(action)).encode()
                assert APPLY_LINES[slot] == _plain_apply(action)
                assert apply_line(action) == _plain_apply(action)
                assert APPLY_REQUESTS[APPLY_LINES[slot].rstrip(b"\n")] == action
                assert legal_line((action,)) == _plain_legal((action,))


def test_actions_outside_the_tables_are_written_the_plain_way():
    """Bids no deal allows and the deal have no slot, and are encoded as any message."""
    outside = (
        Bid(SEATS[1], 13),
        Bid(SEATS[2], 99),
        Bid(SEATS[3], -1),
        PROBE_DECK,
        Deal(CARDS[::-1]),
    )
    for action in outside:
        assert action_slot(action) == -1
        assert apply_line(action) == _plain_apply(action)
    mixed = (*(index_action(index, SEATS[1]) for index in range(14)), *outside)
    assert legal_line(mixed) == _plain_legal(mixed)


def test_legal_lines_equal_the_plain_construction_through_random_matches():
    """The ``legal`` reply at every decision of several matches, against encode()."""
    chooser = random.Random(11)
    for seat in SEATS:
        every = tuple(index_action(index, seat) for index in range(NUM_ACTION_INDICES))
        assert legal_line(every) == _plain_legal(every)
    assert legal_line(()) == _plain_legal(())
    for seed in range(4):
        state = new_match(Rules(schedule=[chooser.randint(1, 13) for _ in range(3)]), seed=seed)
        while playing(state):
            legal = legal_actions(state)
            if state.deal is not None:
                assert legal_line(legal) == _plain_legal(legal)
            state = apply(state, chooser.choice(legal))


def test_serve_answers_every_line_in_order_and_stops_at_bye():
    lines = [
        json.dumps({"type": "hello", "protocol": "backalley-protocol", "versions": [1]}),
        json.dumps({"type": "new_match", "rules": RULES_JSON}),
        "",
        "not json",
        json.dumps({"type": "legal"}),
        json.dumps({"type": "bye"}),
        json.dumps({"type": "legal"}),
    ]
    out = io.BytesIO()
    assert serve(io.BytesIO("\n".join(lines).encode() + b"\n"), out) == 0
    replies = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [reply["type"] for reply in replies] == ["hello", "facts", "error", "legal", "bye"]


def test_backalley_serve_speaks_the_protocol():
    requests = "\n".join(
        json.dumps(request)
        for request in (
            {"type": "hello", "protocol": "backalley-protocol", "versions": [1]},
            {"type": "new_match", "rules": RULES_JSON, "seed": 1},
            {"type": "apply", "action": "N pass"},
            {"type": "bye"},
        )
    )
    for command in (["-m", "backalley", "serve"], ["-m", "backalley.protocol"]):
        done = subprocess.run(
            [sys.executable, *command],
            input=requests.encode(),
            capture_output=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0
        replies = [json.loads(line) for line in done.stdout.splitlines()]
        assert [reply["type"] for reply in replies] == ["hello", "facts", "refused", "bye"]
        assert done.stderr == b""


def test_every_reason_has_a_rule_and_every_cited_rule_exists():
    ids = set(re.findall(r"^### ([A-Z]+-\d+) ", (ROOT / "docs/rules.md").read_text(), re.M))
    assert set(RULE_OF_REASON) == set(Reason)
    assert set(RULE_OF_REASON.values()) <= ids
    assert set(FACT_RULES.values()) <= ids
    assert {"BID-1", "BID-8", "PLAY-8", "DEAL-1", "BID-2", "END-3", "SCORE-4"} <= ids


def test_the_schemas_in_docs_are_the_packaged_ones_and_the_script_writes_them():
    protocol_schemas = runpy.run_path(str(ROOT / "scripts/protocol_schemas.py"))
    for name in MESSAGE_SCHEMAS:
        packaged = schema(name)
        assert packaged == protocol_schemas["MESSAGES"][name]
        docs = json.loads((ROOT / f"docs/schemas/protocol/{name}.schema.json").read_text())
        assert docs == packaged
        Draft202012Validator.check_schema(packaged)


def test_the_schemas_refuse_malformed_messages():
    bad = [
        ("request", {"type": "apply", "action": "N 100"}),
        ("request", {"type": "apply", "action": {"deal": ["AS"] * 54}}),
        ("request", {"type": "legal", "extra": 1}),
        ("reply", {"type": "refused", "reason": "because", "message": "no"}),
        ("reply", {"type": "legal", "actions": ["N AS", "N AS"]}),
    ]
    for direction, message in bad:
        with pytest.raises(ValidationError):
            validate(direction, message)


@given(st.data(), states())
def test_the_server_answers_every_action_as_apply_does(data, state):
    """Differential, with Hypothesis: any action in any reachable state, through the
    server's fast paths (looked-up request lines, ready-made legal replies) and apply."""
    action = data.draw(actions(state))
    assume(not isinstance(action, Bid) or 0 <= action.amount <= 99)
    session = Session()
    session.state = state
    line = json.dumps({"type": "apply", "action": action_text(action)}, separators=(",", ":"))
    reply = json.loads(session.answer(line.encode()))
    try:
        after = apply(state, action)
    except IllegalAction as error:
        assert reply == {"type": "refused", "reason": error.reason.value, "message": error.message}
        assert session.state is state
    else:
        assert reply == {"type": "ok"}
        assert session.state == after
    session.state = state
    legal = json.loads(session.answer(b'{"type":"legal"}'))["actions"]
    expected = legal_actions(state) if state.deal is not None else ()
    assert [parse_action(text) for text in legal] == list(expected)


# --- every documented error, through the command, and the one strict grammar -----------

HELLO = json.dumps({"type": "hello", "protocol": "backalley-protocol", "versions": [1]})
NEW_MATCH = json.dumps({"type": "new_match", "rules": RULES_JSON})

_SEEDED = '{"type": "new_match", "rules": {"schedule": [2], "tie": "draw", "first_dealer": "N"}, '

# A request that is not a message, the error code serve gives it, and words of its message.
DOCUMENTED_ERRORS = [
    ("not json", "not_json", "not JSON"),
    (b"\xff\xfe{}".decode("latin-1"), "not_json", "not JSON"),
    ('{"type": "legal", "type": "facts"}', "not_json", "twice"),
    ('{"type": "apply", "action": NaN}', "not_json", "NaN"),
    ("[1, 2]", "not_a_request", "a JSON object"),
    ('{"type": "fly"}', "not_a_request", "unknown request type"),
    ('{"kind": "legal"}', "missing_field", "'type'"),
    ('{"type": "legal", "extra": 1}', "unknown_field", "'extra'"),
    ('{"type": "apply"}', "missing_field", "'action'"),
    ('{"type": "new_match"}', "missing_field", "'rules'"),
    ('{"type": "hello", "protocol": "other", "versions": [1]}', "bad_hello", "protocol"),
    ('{"type": "hello", "protocol": "backalley-protocol", "versions": [2]}', "bad_hello", "1"),
    ('{"type": "new_match", "rules": {"schedule": [14]}}', "bad_rules", "new_match"),
    (
        _SEEDED + '"seed": -1}',
        "bad_seed",
        "seed",
    ),
    (
        _SEEDED + '"seed": true}',
        "bad_seed",
        "true",
    ),
    (
        _SEEDED + '"seed": 1.5}',
        "bad_seed",
        "1.5",
    ),
    (
        _SEEDED + '"seed": 18446744073709551616}',
        "bad_seed",
        "2**64",
    ),
    ('{"type": "apply", "action": "E 0"}', "bad_action", '"E pass"'),
    ('{"type": "apply", "action": {"deal": ["AS"]}}', "bad_action", "action.deal"),
    ('{"type": "view", "seat": "X"}', "bad_seat", "view.seat"),
    ('{"type": "view", "seat": 0}', "bad_seat", "N, E, S or W"),
    ('{"type": "view"}', "missing_field", "'seat'"),
]


def _serve(lines: list[str | bytes]) -> subprocess.CompletedProcess[bytes]:
    data = b"".join(
        (line if isinstance(line, bytes) else line.encode("latin-1")) + b"\n" for line in lines
    )
    return subprocess.run(
        [sys.executable, "-m", "backalley", "serve"],
        input=data,
        capture_output=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize(("line", "code", "words"), DOCUMENTED_ERRORS)
def test_serve_answers_each_documented_error_and_goes_on(line, code, words):
    """Each error path of docs/protocol.md through `backalley serve`: the replies before
    it are written, the error reply names its code and field, the session goes on, and
    the exit status is 0."""
    done = _serve([HELLO, line, NEW_MATCH, '{"type":"legal"}', '{"type":"bye"}'])
    assert done.returncode == 0, done.stderr
    assert done.stderr == b""
    replies = [json.loads(reply) for reply in done.stdout.splitlines()]
    assert [reply["type"] for reply in replies] == ["hello", "error", "facts", "legal", "bye"]
    error = replies[1]
    validate("reply", error)
    assert error["code"] == code
    assert words in error["message"]


@pytest.mark.parametrize(
    "request_", ['{"type":"legal"}', '{"type":"facts"}', '{"type":"apply","action":"N pass"}']
)
def test_requests_before_new_match_get_a_no_match_error_after_the_hello_reply(request_):
    """The issue's case: `serve` used to exit 2 here, losing even the hello reply."""
    done = _serve([HELLO, request_])
    assert done.returncode == 0
    replies = [json.loads(reply) for reply in done.stdout.splitlines()]
    assert [reply["type"] for reply in replies] == ["hello", "error"]
    assert replies[1]["code"] == "no_match"


def test_a_bad_action_before_new_match_is_bad_action_not_no_match():
    [reply] = [
        json.loads(line) for line in _serve(['{"type":"apply","action":"N 0"}']).stdout.splitlines()
    ]
    assert reply["code"] == "bad_action"


def test_an_overlong_line_gets_one_error_and_the_session_goes_on():
    long = '{"type":"legal","pad":"' + "x" * (MAX_LINE_BYTES + 10) + '"}'
    out = io.BytesIO()
    data = "\n".join([HELLO, long, NEW_MATCH, '{"type":"bye"}']).encode() + b"\n"
    assert serve(io.BytesIO(data), out) == 0
    replies = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [reply["type"] for reply in replies] == ["hello", "error", "facts", "bye"]
    assert replies[1]["code"] == "line_too_long"


def test_the_end_of_input_without_bye_is_exit_0_with_every_reply_written():
    done = _serve([HELLO, NEW_MATCH, "not json"])
    assert done.returncode == 0
    assert [json.loads(line)["type"] for line in done.stdout.splitlines()] == [
        "hello",
        "facts",
        "error",
    ]


def test_an_internal_failure_is_an_error_reply_and_the_session_goes_on(monkeypatch):
    session = _session()
    assert session.state is not None
    [deal] = legal_actions(session.state)
    assert session.apply(deal) == b'{"type":"ok"}\n'

    def broken(state):
        raise RuntimeError("boom")

    # A bug in the engine under the server's quickest path (legal without parsing).
    monkeypatch.setattr(server_module, "legal_actions", broken)
    reply = json.loads(session.answer(b'{"type":"legal"}'))
    assert reply["code"] == "internal"
    assert "boom" in reply["message"]
    assert session.handle({"type": "facts"})["type"] == "facts"


def test_the_error_codes_are_one_list_in_the_code_the_schema_and_the_docs():
    script = runpy.run_path(str(ROOT / "scripts/protocol_schemas.py"))
    assert tuple(script["ERROR_CODES"]) == ERROR_CODES
    page = (ROOT / "docs/protocol.md").read_text()
    section = page[page.index("\n## Errors\n") : page.index("\n### Exit status of")]
    documented = re.findall(r"^\| `([a-z_]+)` \| ", section, re.M)
    assert tuple(documented) == ERROR_CODES
    assert {code for _, code, _ in DOCUMENTED_ERRORS} | {
        "line_too_long",
        "no_match",
        "internal",
    } == set(ERROR_CODES)


_ACTION_PATTERN = re.compile(
    runpy.run_path(str(ROOT / "scripts/protocol_schemas.py"))["ACTION_TEXT"]
)
_PIECES = st.sampled_from(
    [
        "N",
        "E",
        "S",
        "W",
        "n",
        "east",
        " ",
        "  ",
        "pass",
        "Pass",
        "PASS",
        "board",
        "Board",
        "0",
        "00",
        "05",
        "5",
        "13",
        "99",
        "100",
        "-1",
        "+3",
        "AS",
        "as",
        "10H",
        "TH",
        "10h",
        "BIG",
        "big",
        "LITTLE",
        "Little",
        "KS",
        "ks",
        "\t",
        "\n",
        "x",
    ]
)


@given(st.lists(_PIECES, min_size=1, max_size=4).map("".join))
def test_serve_reads_exactly_the_strings_the_schema_allows(text):
    """One strict grammar: the server takes an action string if and only if the
    request schema's pattern (docs/protocol.md, ACTION) matches it."""
    session = _session()
    reply = session.handle({"type": "apply", "action": text})
    if _ACTION_PATTERN.fullmatch(text):
        assert reply["type"] in ("ok", "refused"), (text, reply)
        assert action_text(parse_action(text)) == text
    else:
        assert reply["type"] == "error", (text, reply)
        assert reply["code"] == "bad_action"
        assert reply["message"].startswith("action: ")


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("E 0", "E pass"),
        ("E 05", "E 5"),
        ("E Pass", "E pass"),
        ("E ks", "E KS"),
        ("east pass", "E pass"),
        ("E pass ", "E pass"),
        (" E 3", "E 3"),
        ("S TH", "S 10H"),
        ("W Board", "W board"),
        ("N little", "N LITTLE"),
    ],
)
def test_a_lenient_spelling_is_refused_with_the_canonical_one(text, canonical):
    reply = _session().handle({"type": "apply", "action": text})
    assert reply["code"] == "bad_action"
    assert f"write {json.dumps(canonical)}" in reply["message"]


def test_a_deal_is_read_in_canonical_codes_only():
    deck = [card.code for card in seeded_deck(1, 0)]
    session = _session()
    for bad, where in [
        ([*deck[:3], deck[3].lower(), *deck[4:]], "action.deal[3]"),
        ([*deck[:53], deck[0]], "action.deal[53]"),
        (deck[:53], "54 cards"),
    ]:
        reply = session.handle({"type": "apply", "action": {"deal": bad}})
        assert reply["code"] == "bad_action"
        assert where in reply["message"]
    reply = session.handle({"type": "apply", "action": {"deal": deck, "cut": 3}})
    assert "unknown field 'cut'" in reply["message"]
    assert session.handle({"type": "apply", "action": {"deal": deck}}) == {"type": "ok"}


def test_the_fuzzer_sends_seeds_a_double_reads_exactly(monkeypatch):
    """Seeds below 2**53 survive JavaScript's JSON.parse (docs/protocol.md, RULES)."""
    sent = []
    monkeypatch.setattr(fuzzer, "_fuzz_match", lambda engine, case, source, run: sent.append(case))
    fuzzer.fuzz(f"{sys.executable} -m backalley.protocol", fuzzer.Settings(matches=200, seed=4))
    seeds = [case.seed for case in sent]
    assert len(seeds) == 200
    assert all(0 <= seed < 2**53 and float(seed) == seed for seed in seeds)
    assert max(seeds) > 2**50  # drawn from the whole safe range


# --- one rule for numbers in requests ---------------------------------------------------

# Each numeric field of a request, as (a request with the number NUMBER in it, what serve
# answers when it reads the whole number that NUMBER writes).
_NUMERIC_FIELDS = [
    (_SEEDED + '"seed": NUMBER}', "facts"),
    (
        '{"type": "new_match", "rules": {"schedule": [NUMBER], "tie": "draw", '
        '"first_dealer": "N"}}',
        "facts",
    ),
    ('{"type": "hello", "protocol": "backalley-protocol", "versions": [NUMBER]}', "hello"),
]


def _answer(line: str) -> dict:
    return json.loads(Session().answer(line.encode()))


@pytest.mark.parametrize(("template", "kind"), _NUMERIC_FIELDS)
@pytest.mark.parametrize("written", ["1", "1.0", "1e0", "10e-1", "1.000"])
def test_every_numeric_field_reads_a_zero_fraction_as_its_whole_number(template, kind, written):
    """JSON Schema's integer: 1, 1.0 and 1e0 are the same number, in every field alike,
    and the request is valid under the published schema exactly when serve accepts it."""
    line = template.replace("NUMBER", written)
    validate("request", json.loads(line))
    reply = _answer(line)
    assert reply["type"] == kind, reply
    reference = _answer(template.replace("NUMBER", "1"))
    assert reply == reference


@pytest.mark.parametrize(("template", "kind"), _NUMERIC_FIELDS)
@pytest.mark.parametrize(
    "written", ["1.5", "true", '"1"', "0.999999999999999999999", "1e999999999"]
)
def test_every_numeric_field_refuses_what_the_schema_refuses(template, kind, written):
    """A fraction, a boolean, a string, a fraction too small for a double to see and a
    number too large for any field are refused in every field, and the schema agrees."""
    line = template.replace("NUMBER", written)
    with pytest.raises(ValidationError):
        validate("request", json.loads(line, parse_float=__import__("decimal").Decimal))
    reply = _answer(line)
    assert reply["type"] == "error", reply
    assert reply["code"] in {"bad_seed", "bad_rules", "bad_hello"}


def test_a_seed_with_a_zero_fraction_is_read_exactly_above_two_to_the_53():
    """2**53 + 1 written with a fraction is that seed, not the double next to it."""
    exact = _answer(_SEEDED + '"seed": 9007199254740993}')
    assert _answer(_SEEDED + '"seed": 9007199254740993.0}') == exact
    session = Session()
    session.answer((_SEEDED + '"seed": 9007199254740993.0}').encode())
    assert session.state is not None and session.state.seed == 2**53 + 1


@given(
    st.integers(0, 2**64 - 1),
    st.sampled_from(["{n}", "{n}.0", "{n}e0", "{n}E+0", "{n}.0e0", "{n}.000"]),
)
def test_a_seed_is_the_whole_number_its_text_writes_however_written(n, spelling):
    """Any seed of the schema's range, written as a whole number in any JSON spelling, is
    read exactly: the match's seed is that number."""
    session = Session()
    reply = json.loads(session.answer((_SEEDED + f'"seed": {spelling.format(n=n)}}}').encode()))
    assert reply["type"] == "facts", reply
    assert session.state is not None and session.state.seed == n


@given(states())
def test_the_facts_line_is_the_encoded_facts_message(state):
    """The facts reply written field by field is, byte for byte, ``encode`` of its message."""
    assert facts_line(state) == encode({"type": "facts", "facts": facts(state)})


@given(st.one_of(states(phase=Phase.OVER), states(tiebreak=True), states(throw_in=True)))
def test_the_facts_line_of_finished_tiebreak_and_thrown_in_states(state):
    """The rarer values too: an outcome with or without a winner, no hand size, a tiebreak
    deal's empty bids, a thrown-in deal's scores."""
    assert facts_line(state) == encode({"type": "facts", "facts": facts(state)})


@given(st.one_of(states(phase=Phase.PLAY), states(joker_lead=True), states(no_trump=True)))
def test_the_legal_reply_in_play_is_read_off_the_mask_as_legal_line_writes_it(state):
    """The quick legal reply of the server in play is, byte for byte, ``legal_line`` of
    the engine's legal actions, and the server gives it to a legal request."""
    assume(state.phase is Phase.PLAY)
    line = legal_line(legal_actions(state))
    assert legal_play_line(state) == line
    session = Session()
    session.state = state
    assert session.answer(b'{"type":"legal"}') == line
    assert session.answer(b'{ "type": "legal" }') == line


@given(st.one_of(states(), states(phase=Phase.OVER), states(no_trump=True)), st.sampled_from(SEATS))
def test_the_view_line_is_the_encoded_view_message(state, seat):
    """The view reply written out is, byte for byte, ``encode`` of its message; the server
    answers a compact view request on its quick path with that line."""
    line = view_line(state, seat)
    assert line == encode({"type": "view", "view": seat_view(state, seat)})
    session = Session()
    session.state = state
    assert session.answer(encode({"type": "view", "seat": seat.letter})[:-1]) == line
    assert session.answer(b'{ "type": "view", "seat": "' + seat.letter.encode() + b'" }') == line


@pytest.mark.rule("DEAL-5")
def test_a_view_shows_the_seat_its_hand_and_its_own_swap_alone():
    """After a turned joker (BIG turned, East dealt LITTLE and swapping it for the next
    card), East's view shows its swap and every other seat's shows none; each view holds
    that seat's hand in card-number order, and every request and reply fits its schema."""
    head = ["LITTLE", "KS", "JH", "9H", "2C", "3C", "4C", "5C", "BIG", "AS"]
    deck = head + [card.code for card in CARDS if card.code not in head]
    session = Session()
    session.handle(json.loads(_SEEDED + '"seed": 1}'))
    before = session.handle({"type": "view", "seat": "E"})
    assert before["view"] == {"seat": "E", "hand": [], "swap": None}
    assert session.handle({"type": "apply", "action": {"deal": deck}})["type"] == "ok"
    views = {}
    for letter in "NESW":
        request = {"type": "view", "seat": letter}
        validate("request", request)
        reply = session.handle(request)
        validate("reply", reply)
        views[letter] = reply["view"]
    assert views["E"] == {
        "seat": "E",
        "hand": ["2C", "AS"],
        "swap": {"gave": "LITTLE", "took": "AS"},
    }
    assert views["S"] == {"seat": "S", "hand": ["3C", "KS"], "swap": None}
    assert [views[letter]["swap"] for letter in "NSW"] == [None, None, None]
    # The hands together are the dealt cards, LITTLE given up for the ace of spades.
    held = sorted(code for view in views.values() for code in view["hand"])
    assert held == sorted(["AS", *head[1:8]])
