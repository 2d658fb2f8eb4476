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

from backalley import Bid, IllegalAction, Reason, Rules, apply, legal_actions, new_match
from backalley.engine.bounds import playing
from backalley.protocol.messages import (
    FACT_RULES,
    MESSAGE_SCHEMAS,
    RULE_OF_REASON,
    action_text,
    facts,
    parse_action,
    schema,
)
from backalley.protocol.server import Session, serve
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
    assert set(reply["capabilities"]) == {"legal", "reasons"}
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
    ids = set(re.findall(r"^\| ([A-Z]+-\d+) \|", (ROOT / "docs/rules.md").read_text(), re.M))
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
