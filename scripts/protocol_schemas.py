"""Write the JSON Schemas of the engine protocol's messages (package and docs copies).

    python scripts/protocol_schemas.py

The messages are described in docs/protocol.md; tests/test_protocol_schemas.py
checks that the files are what this script writes and that every message our
server sends validates.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from backalley.core.errors import Reason
from backalley.protocol import messages

ROOT = Path(__file__).resolve().parent.parent
BASE = "https://backalley.invalid/schemas/"
RECORD = "../record.schema.json"
CARD = "(?:10|[2-9JQKA])[CDHS]|BIG|LITTLE"
ACTION_TEXT = f"^[NESW] (?:pass|board|[1-9][0-9]?|{CARD})$"
# The codes come from their one home in the library; the schemas list them in that order.
REASONS = [reason.value for reason in Reason]
ERROR_CODES = list(messages.ERROR_CODES)


def _message(
    name: str, title: str, description: str, properties: dict[str, Any], required: list[str]
) -> dict[str, Any]:
    kind = name.split(".")[1]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        # The $id ends in the file's own name, so that a validator's registry and the
        # files on disk name each schema alike.
        "$id": f"{BASE}protocol/{name}.schema.json",
        "title": title,
        "description": description,
        "type": "object",
        "required": ["type", *required],
        "additionalProperties": False,
        "properties": {"type": {"const": kind}, **properties},
    }


def _pair_numbers() -> dict[str, Any]:
    return {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2}


FACTS = {
    "type": "object",
    "additionalProperties": False,
    "required": list(messages.FACT_NAMES),
    "properties": {
        "phase": {"enum": ["deal", "bid", "play", "over"]},
        "deal_number": {
            "type": "integer",
            "minimum": 0,
            "description": "The current or next deal, counting every deal from 0.",
        },
        "counted_deals": {
            "type": "integer",
            "minimum": 0,
            "description": "Deals of the schedule finished (not thrown in).",
        },
        "dealer": {"$ref": f"{RECORD}#/$defs/seat"},
        "hand_size": {
            "type": ["integer", "null"],
            "minimum": 1,
            "maximum": 13,
            "description": "Of the current or next deal; null after the match.",
        },
        "to_move": {"oneOf": [{"$ref": f"{RECORD}#/$defs/seat"}, {"type": "null"}]},
        "trump": {"enum": ["C", "D", "H", "S", None]},
        "turned": {"oneOf": [{"$ref": f"{RECORD}#/$defs/card"}, {"type": "null"}]},
        "bids": {"type": "array", "items": {"$ref": f"{RECORD}#/$defs/bid"}, "maxItems": 4},
        "trick": {"type": "array", "items": {"$ref": f"{RECORD}#/$defs/card"}, "maxItems": 3},
        "tricks_won": _pair_numbers(),
        "deal_scores": {
            "oneOf": [_pair_numbers(), {"type": "null"}],
            "description": "The last finished deal's score [NS, EW].",
        },
        "totals": _pair_numbers(),
        "outcome": {
            "oneOf": [
                {"type": "null"},
                {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["termination", "winner"],
                    "properties": {
                        "termination": {"enum": ["score", "draw", "tiebreak-deal"]},
                        "winner": {"enum": ["NS", "EW", None]},
                    },
                },
            ]
        },
    },
}

VIEW = {
    "type": "object",
    "additionalProperties": False,
    "required": list(messages.VIEW_NAMES),
    "properties": {
        "seat": {"$ref": f"{RECORD}#/$defs/seat"},
        "hand": {
            "type": "array",
            "items": {"$ref": f"{RECORD}#/$defs/card"},
            "maxItems": 13,
            "uniqueItems": True,
            "description": "The seat's cards in card-number order; [] between deals.",
        },
        "swap": {
            "oneOf": [
                {"type": "null"},
                {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["gave", "took"],
                    "properties": {
                        "gave": {"enum": ["BIG", "LITTLE"]},
                        "took": {"$ref": f"{RECORD}#/$defs/card"},
                    },
                },
            ],
            "description": "The joker swap, in the swapper's own view alone.",
        },
    },
}

ACTION = {
    "oneOf": [
        {
            "type": "string",
            "pattern": ACTION_TEXT,
            "description": "A bid or a play: a seat, a space, then a bid or a card code.",
        },
        {
            "type": "object",
            "additionalProperties": False,
            "required": ["deal"],
            "properties": {
                "deal": {
                    "type": "array",
                    "items": {"$ref": f"{RECORD}#/$defs/card"},
                    "minItems": 54,
                    "maxItems": 54,
                    "uniqueItems": True,
                }
            },
            "description": "The deal: the 54 cards, top card first.",
        },
    ]
}

MESSAGES = {
    "request.hello": _message(
        "request.hello",
        "hello (request)",
        "The client's first message: protocol and versions.",
        {
            "protocol": {"const": "backalley-protocol"},
            "versions": {"type": "array", "items": {"type": "integer"}, "minItems": 1},
        },
        ["protocol", "versions"],
    ),
    "request.new_match": _message(
        "request.new_match",
        "new_match",
        "Start a match; the engine forgets any other.",
        {
            "rules": {"$ref": f"{RECORD}#/$defs/rules"},
            "seed": {"type": "integer", "minimum": 0, "maximum": 18446744073709551615},
        },
        ["rules"],
    ),
    "request.apply": _message(
        "request.apply",
        "apply",
        "Apply an action: a deal, a bid or a play.",
        {"action": ACTION},
        ["action"],
    ),
    "request.legal": _message("request.legal", "legal", "Ask the legal bids or plays.", {}, []),
    "request.facts": _message("request.facts", "facts (request)", "Ask the facts.", {}, []),
    "request.view": _message(
        "request.view",
        "view (request)",
        "Ask what one seat may know (capability view).",
        {"seat": {"$ref": f"{RECORD}#/$defs/seat"}},
        ["seat"],
    ),
    "request.bye": _message("request.bye", "bye (request)", "End the session.", {}, []),
    "reply.hello": _message(
        "reply.hello",
        "hello (reply)",
        "The engine's answer to hello.",
        {
            "protocol": {"const": "backalley-protocol"},
            "version": {"type": "integer"},
            "engine": {"type": "string"},
            "capabilities": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
            "rules_version": {
                "type": "integer",
                "minimum": 1,
                "description": "The version of docs/rules.md the engine plays (optional).",
            },
        },
        ["protocol", "version", "engine", "capabilities"],
    ),
    "reply.ok": _message("reply.ok", "ok", "The action was applied.", {}, []),
    "reply.facts": _message(
        "reply.facts",
        "facts (reply)",
        "The public facts of the position.",
        {"facts": FACTS},
        ["facts"],
    ),
    "reply.refused": _message(
        "reply.refused",
        "refused",
        "The rules refuse the action; nothing changed.",
        {"reason": {"oneOf": [{"enum": REASONS}, {"type": "null"}]}, "message": {"type": "string"}},
        ["reason", "message"],
    ),
    "reply.legal": _message(
        "reply.legal",
        "legal (reply)",
        "The legal bids or plays, in any order; none between deals.",
        {
            "actions": {
                "type": "array",
                "items": {"type": "string", "pattern": ACTION_TEXT},
                "uniqueItems": True,
            }
        },
        ["actions"],
    ),
    "reply.view": _message(
        "reply.view",
        "view (reply)",
        "What one seat may know beyond the facts: its hand and its own swap (DEAL-5).",
        {"view": VIEW},
        ["view"],
    ),
    "reply.bye": _message("reply.bye", "bye (reply)", "The engine ends the session.", {}, []),
    "reply.error": _message(
        "reply.error",
        "error",
        "The request is not a message of the protocol; code says why (optional for an engine).",
        {"code": {"enum": ERROR_CODES}, "message": {"type": "string"}},
        ["message"],
    ),
}


def write() -> None:
    """Write every schema to the package and to docs."""
    for folder in (ROOT / "src/backalley/schemas/protocol", ROOT / "docs/schemas/protocol"):
        folder.mkdir(parents=True, exist_ok=True)
        for name, schema in MESSAGES.items():
            text = json.dumps(schema, indent=2) + "\n"
            (folder / f"{name}.schema.json").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    write()
