"""Comparing an engine's replies with the reference's, and saying where and which rule.

:func:`compare` takes one request's details (:class:`~.cases.Item`) and the
engine's reply line: None if they agree, else a sentence ("you allow N 3C, the
rules forbid it: must_follow_suit (PLAY-2)"); :func:`locate` says where a
position is ("deal 3 (5 cards), trick 2, card 2, after 2H by East"). A reply of
the wrong kind is a broken protocol, not a difference.
"""

from __future__ import annotations

import enum
import json
from typing import Any, Final

from ..core.actions import Bid, Deal, Play
from ..core.cards import SEATS, Card
from ..core.errors import Reason
from ..core.rules import TiePolicy
from ..engine.match import apply
from ..engine.state import MatchState
from .cases import (
    Item,
)
from .client import ProtocolBroken
from .messages import (
    FACT_RULES,
    RULE_OF_REASON,
    action_text,
    lenient_action,
    parse_action,
)

__all__ = ["Mode", "compare", "locate", "rule_of"]


class Mode(enum.StrEnum):
    """How refusals are compared (``--reasons``)."""

    STRICT = "strict"
    """Illegal actions are probed; the engine must refuse them with the same reason code."""
    LEGALITY = "legality"
    """Illegal actions are probed; the engine must refuse them, for any reason."""
    OFF = "off"
    """No illegal actions are sent."""


_FACT_ORDER: Final = (
    # The facts that say most come first: a wrong score also makes a wrong phase.
    "deal_scores",
    "tricks_won",
    "totals",
    "outcome",
    "trump",
    "turned",
    "dealer",
    "hand_size",
    "bids",
    "trick",
    "to_move",
    "deal_number",
    "counted_deals",
    "phase",
)
_SEAT_NAMES: Final = tuple(seat.name.title() for seat in SEATS)
_MISSING: Final = object()


# --- where, and which rule ------------------------------------------------------


def _played_by(state: MatchState) -> tuple[str, int] | None:
    """The last action of the current deal, as its JSON and its seat."""
    current = state.deal
    if current is None:
        return None
    if current.trick:
        leader = current.leader
        assert leader is not None
        return current.trick[-1].code, (leader + len(current.trick) - 1) % 4
    if current.tricks:
        last = current.tricks[-1]
        return last.cards[-1].code, (last.leader + 3) % 4
    if current.bids:
        return current.bids[-1].call, (current.setup.dealer + len(current.bids)) % 4
    return None


def locate(state: MatchState) -> str:
    """Where a state is, for people: deals, bids, tricks and cards counted from 1."""
    number = state.deal_number + 1
    if state.is_over:
        return f"after the last deal (deal {state.deal_number}), the match over"
    current = state.deal
    if current is None:
        if state.deal_number:
            return f"after deal {state.deal_number}"
        return "before deal 1"
    setup = current.setup
    cards = "one card" if setup.hand_size == 1 else f"{setup.hand_size} cards"
    head = f"deal {number} ({cards}{', tiebreak' if setup.tiebreak else ''})"
    if current.leader is None:
        where = f"bid {len(current.bids) + 1}"
    else:
        where = f"trick {len(current.tricks) + 1}, card {len(current.trick) + 1}"
    last = _played_by(state)
    if last is None:
        after = "after the deal"
    elif current.leader is None or not (current.trick or current.tricks):
        after = f"after {_SEAT_NAMES[last[1]]} bid {last[0]}"
    else:
        after = f"after {last[0]} by {_SEAT_NAMES[last[1]]}"
    return f"{head}, {where}, {after}"


def rule_of(reason: Reason, action: object, state: MatchState | None = None) -> str:
    """The rule ID a refusal cites (RULE_OF_REASON), made precise by the position.

    A bid out of turn is BID-1; a card led out of turn breaks the opening-lead
    rule (BID-8) on the first trick and the winner-leads rule (PLAY-8) later.
    """
    if reason is Reason.NOT_YOUR_TURN:
        if isinstance(action, Bid):
            return "BID-1"
        current = None if state is None else state.deal
        if current is not None and current.leader is not None and not current.trick:
            return "PLAY-8" if current.tricks else "BID-8"
    return RULE_OF_REASON[reason]


def _allowing_rule(state: MatchState, action: object) -> str:
    """The rule that allows a legal action the engine refuses."""
    current = state.deal
    if isinstance(action, Deal) or current is None:
        return "DEAL-1"
    if isinstance(action, Bid):
        return "BID-2"
    assert isinstance(action, Play)
    trick = current.trick
    trumps = current.setup.trumps
    if not trick:
        return "PLAY-4" if trumps >> action.card & 1 else "PLAY-1"
    led = trick[0]
    if led is Card.BIG:
        return "JOKER-1"
    if led is Card.LITTLE:
        return "JOKER-2"
    return "PLAY-3" if trumps >> led & 1 else "PLAY-2"


def _text(data: Any) -> str:
    return data if isinstance(data, str) else json.dumps(data)


def _show(action: Bid | Play | Deal | None) -> str:
    if action is None:
        # The only request with a reply of its own and no action: new_match.
        return "the new match"
    return "the deal" if isinstance(action, Deal) else str(action)


def _broken(item: Item, number: int, what: str) -> ProtocolBroken:
    return ProtocolBroken(f"reply {number} ({item.line.decode().strip()}): {what}")


def _parsed(item: Item, raw: bytes, number: int) -> dict[str, Any]:
    try:
        reply = json.loads(raw)
    except ValueError as error:
        shown = raw[:120].decode("utf-8", "replace").rstrip()
        raise _broken(item, number, f"the reply is not JSON ({error}): {shown!r}") from None
    if not isinstance(reply, dict) or not isinstance(reply.get("type"), str):
        raise _broken(item, number, f"the reply is not a message: {raw[:120]!r}")
    return reply


def compare(item: Item, raw: bytes, mode: Mode, number: int) -> str | None:
    """What differs between the engine's reply line and the reference's, or None.

    A reply of the wrong type is not a difference of rules but a broken
    protocol: :class:`ProtocolBroken`.
    """
    if raw == item.expected:
        return None
    reply = _parsed(item, raw, number)
    expected = json.loads(item.expected)
    kind = reply["type"]
    if kind == "error":
        raise _broken(item, number, f"the engine answers with an error: {reply.get('message')}")
    if item.kind == "legal":
        actions = reply.get("actions")
        if kind != "legal" or not isinstance(actions, list):
            raise _broken(item, number, f"expected a legal reply, found {_text(reply)[:200]}")
        return _compare_legal(item, actions, expected["actions"])
    if item.kind == "facts":
        if kind != "facts" or not isinstance(reply.get("facts"), dict):
            raise _broken(item, number, f"expected a facts reply, found {_text(reply)[:200]}")
        return _compare_facts(item, reply["facts"], expected["facts"])
    if kind not in ("ok", "refused", "facts"):
        raise _broken(item, number, f"expected ok or a refusal, found {_text(reply)[:200]}")
    action = item.action
    if expected["type"] == "refused":
        reason = Reason(expected["reason"])
        rule = rule_of(reason, action, item.before)
        if kind != "refused":
            return f"you accept {_show(action)}, the rules forbid it: {reason.value} ({rule})"
        if mode is Mode.STRICT and reply.get("reason") != reason.value:
            return (
                f"you refuse {_show(action)} with {_text(reply.get('reason'))}, "
                f"the rules refuse it with {reason.value} ({rule})"
            )
        return None
    if kind == "refused":
        return (
            f"you refuse {_show(action)} ({_text(reply.get('reason'))}: "
            f"{_text(reply.get('message'))}), the rules allow it "
            f"({_allowing_rule(item.before, action)})"
        )
    if expected["type"] == "facts":
        # The reply to new_match.
        return _compare_facts(item, reply.get("facts"), expected["facts"])
    return None


def _fact_rule(key: str, state: MatchState) -> str:
    """The rule a wrong fact concerns (FACT_RULES), made precise by the position."""
    history = state.history
    if key == "deal_scores" and history:
        last = history[-1]
        if last.thrown_in:
            return "MATCH-3"
        contracts = last.deal.contracts
        if contracts is not None and any(contract.multiplier for contract in contracts):
            return "SCORE-4"
        return "SCORE-2"
    if key == "dealer" and not history:
        return "MATCH-1"
    if key == "outcome" and state.rules.tie is TiePolicy.TIEBREAK_DEAL:
        outcome = state.outcome
        if outcome is None or outcome.termination.value == "tiebreak-deal":
            return "END-3"
    return FACT_RULES[key]


def _swap_rule(state: MatchState, action: object, rule: str) -> str:
    """DEAL-4 when the card in question is one a joker swap moved, else ``rule``."""
    current = state.deal
    swap = None if current is None else current.setup.swap
    if swap is not None and isinstance(action, Play) and action.card in (swap.joker, swap.received):
        return "DEAL-4"
    return rule


def _compare_facts(item: Item, got: Any, want: dict[str, Any]) -> str | None:
    if got == want:
        return None
    if not isinstance(got, dict):
        return "you give no facts"
    for key in _FACT_ORDER:
        value = want[key]
        found = got.get(key, _MISSING)
        if found != value:
            shown = "nothing" if found is _MISSING else json.dumps(found)
            rule = _fact_rule(key, item.before)
            return f"you say {key} is {shown}, the rules give {json.dumps(value)} ({rule})"
    extra = sorted(set(got) - set(want))
    return f"you give facts the protocol does not have: {', '.join(extra)}"


def _compare_legal(item: Item, actions: list[Any], want: list[str]) -> str | None:
    if len(actions) == len(want) and set(map(_text, actions)) == set(want):
        return None
    expected = set(want)
    seen: set[str] = set()
    for data in actions:
        text = _text(data)
        if text in seen:
            return f"you list {text} twice among the legal actions"
        seen.add(text)
        if text in expected:
            continue
        meant = lenient_action(data)
        if meant is None:
            return f"you list {text!r} as legal, which is not an action"
        action = meant
        refusal = _refusal(item.before, action)
        if refusal is None:
            return f"you list {text} as legal in a different spelling; write {action_json(action)}"
        rule = _swap_rule(item.before, action, rule_of(refusal, action, item.before))
        return f"you allow {text}, the rules forbid it: {refusal.value} ({rule})"
    for text in want:
        if text not in seen:
            action = parse_action(text)
            rule = _swap_rule(item.before, action, _allowing_rule(item.before, action))
            return f"you forbid {text}, the rules allow it ({rule})"
    return None


def action_json(action: Bid | Play | Deal) -> str:
    """The canonical JSON text of an action."""
    return json.dumps(action_text(action))


def _refusal(state: MatchState, action: Bid | Play | Deal) -> Reason | None:
    try:
        apply(state, action)
    except ValueError as error:
        reason = getattr(error, "reason", None)
        return reason if isinstance(reason, Reason) else Reason.WRONG_PHASE
    return None


# --- running items through the engine ---------------------------------------------
