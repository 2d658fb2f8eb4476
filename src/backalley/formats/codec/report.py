"""The JSON of what checking a record finds: a refusal, a claim that is wrong, a verdict.

``backalley check --json`` writes these. Kept out of :func:`~backalley.formats.serialize.to_json`
because a report is written with the number of deals the record holds.
"""

from __future__ import annotations

from typing import Any

from ..checking import CheckReport, Discrepancy, IllegalRecord
from ._base import RecordError
from .values import claim_to_json

__all__ = ["check_report_to_json", "discrepancy_to_json", "error_to_json"]


def error_to_json(error: RecordError) -> dict[str, Any]:
    """Where a record is refused and why; an illegal action also says what and which rule.

    ``{"path", "message"}``, or ``{"path", "where", "action", "reason", "message"}``
    for an :class:`~backalley.formats.checking.IllegalRecord`.
    """
    if isinstance(error, IllegalRecord):
        return {
            "path": error.path,
            "where": error.where,
            "action": error.action,
            "reason": error.reason.value,
            "message": error.refusal.message,
        }
    return {"path": error.path, "message": error.message}


def discrepancy_to_json(found: Discrepancy) -> dict[str, Any]:
    """A wrong claim: ``{"path", "claimed", "computed", "message"}``."""
    return {
        "path": found.path,
        "claimed": found.claimed,
        "computed": found.computed,
        "message": found.message,
    }


def check_report_to_json(report: CheckReport, deals: int) -> dict[str, Any]:
    """What a check found in a record of ``deals`` deals: completeness, totals, the rest."""
    state = report.state
    outcome = state.outcome
    return {
        "complete": report.complete,
        "deals": deals,
        "totals": list(state.totals),
        "outcome": None if outcome is None else claim_to_json(outcome.termination, outcome.winner),
        "discrepancies": [discrepancy_to_json(found) for found in report.discrepancies],
    }
