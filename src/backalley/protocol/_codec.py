"""The one place the protocol takes its JSON forms from: the record and action JSON.

The protocol writes actions, rules and outcomes exactly as game records do
(``docs/records.md``), through :mod:`backalley.formats.codec`: this module
imports the few functions it needs, so the rest of the package never depends on
where they live.
"""

from __future__ import annotations

from typing import Any

from ..core.actions import Bid, Deal, Play
from ..engine.state import MatchState, Outcome
from ..formats.codec._base import RecordError, integer
from ..formats.codec.record import dumps
from ..formats.codec.values import claim_to_json, rules_from_json, rules_to_json
from ..formats.records import record_from_state
from ..formats.serialize import from_json, to_json

__all__ = [
    "RecordError",
    "action_from_json",
    "action_to_json",
    "integer",
    "outcome_json",
    "record_text",
    "rules_from_json",
    "rules_to_json",
]


def action_to_json(action: Bid | Play | Deal) -> Any:
    """An action's JSON: ``"N 3"``, ``"S AS"``, or ``{"deal": [54 card codes]}``."""
    return to_json(action)


def action_from_json(data: Any) -> Bid | Play | Deal:
    """The action of its JSON (any spelling the notation reads); RecordError if it is none."""
    action: Bid | Play | Deal = from_json("action", data)
    return action


def outcome_json(outcome: Outcome) -> dict[str, Any]:
    """How a match ended, as a record's result says it: ``{"termination", "winner"}``."""
    return claim_to_json(outcome.termination, outcome.winner)


def record_text(state: MatchState) -> str:
    """The game record (decks written out card by card) that reaches ``state``."""
    return dumps(record_from_state(state, decks="explicit", claims=False))
