"""The messages of the engine protocol: their names, the facts of a position, the rule table.

The protocol (``docs/protocol.md``) is JSON lines: one request per line on the
engine's standard input, one reply per line on its standard output, in order.
Actions and rules are written as in game records (``docs/records.md``). Every
message has a JSON Schema in ``backalley/schemas/protocol/``.

>>> from backalley import Rules, new_match
>>> facts(new_match(Rules(schedule=[2, 1]), seed=1))["phase"]
'deal'
>>> RULE_OF_REASON[Reason.MUST_FOLLOW_SUIT]
'PLAY-2'
"""

from __future__ import annotations

import contextlib
import json
from importlib import resources
from typing import Any, Final

from .. import __version__
from ..core.actions import PLAYS, Bid, Deal, Play, shared_bid
from ..core.cards import CARDS, SEATS, Suit
from ..core.errors import Reason
from ..engine.state import MatchState, Phase
from ._codec import CodecError, action_from_json, action_to_json, outcome_json

__all__ = [
    "APPLY_REQUESTS",
    "CAPABILITIES",
    "ENGINE_NAME",
    "FACT_RULES",
    "MESSAGE_SCHEMAS",
    "OK_LINE",
    "PROTOCOL",
    "REQUEST_TYPES",
    "RULE_OF_REASON",
    "VERSION",
    "MessageError",
    "action_text",
    "encode",
    "facts",
    "legal_line",
    "parse_action",
    "schema",
]

PROTOCOL: Final = "backalley-protocol"
"""The protocol's name, said in both hello messages."""

VERSION: Final = 1
"""The protocol version this page and this module describe."""

CAPABILITIES: Final = ("legal", "reasons")
"""What an engine may support beyond the required requests.

``legal``: it answers ``legal`` requests. ``reasons``: its refusals carry the
reason codes of :class:`~backalley.core.errors.Reason`.
"""

REQUEST_TYPES: Final = ("hello", "new_match", "apply", "legal", "facts", "bye")
"""The requests a client may send."""

REPLY_TYPES: Final = ("hello", "ok", "facts", "refused", "legal", "bye", "error")
"""The replies an engine sends."""

MESSAGE_SCHEMAS: Final = tuple(f"request.{name}" for name in REQUEST_TYPES) + tuple(
    f"reply.{name}" for name in REPLY_TYPES
)
"""The name of every message's schema: ``schemas/protocol/NAME.schema.json``."""

ENGINE_NAME: Final = f"backalley {__version__}"

RULE_OF_REASON: Final[dict[Reason, str]] = {
    Reason.NOT_YOUR_TURN: "PLAY-1",
    Reason.WRONG_PHASE: "BID-1",
    Reason.MATCH_OVER: "END-1",
    Reason.BID_OUT_OF_RANGE: "BID-2",
    Reason.CARD_NOT_IN_HAND: "PLAY-1",
    Reason.MUST_FOLLOW_SUIT: "PLAY-2",
    Reason.MUST_FOLLOW_TRUMP: "PLAY-3",
    Reason.TRUMPS_NOT_BROKEN: "PLAY-4",
    Reason.BIG_JOKER_FORCES_HIGHEST: "JOKER-1",
    Reason.LITTLE_JOKER_FORCES_LOWEST: "JOKER-2",
}
"""The rule of ``docs/rules.md`` that each refusal enforces: the one table of them.

``not_your_turn`` and ``card_not_in_hand`` cite PLAY-1 (the leader then each
player clockwise plays a card); an out-of-turn bid is BID-1, which the fuzzer
says when the refused action is a bid. ``wrong_phase`` cites BID-1 (one circuit
of bids, then the play).
"""

FACT_RULES: Final[dict[str, str]] = {
    "phase": "MATCH-3",
    "deal_number": "MATCH-2",
    "counted_deals": "MATCH-4",
    "dealer": "MATCH-2",
    "hand_size": "SCHED-1",
    "to_move": "PLAY-8",
    "trump": "DEAL-2",
    "turned": "DEAL-2",
    "bids": "BID-1",
    "trick": "PLAY-1",
    "tricks_won": "PLAY-7",
    "deal_scores": "SCORE-1",
    "totals": "SCORE-1",
    "outcome": "END-1",
}
"""The rule a wrong value of each fact most likely breaks, cited by the fuzzer."""


class MessageError(ValueError):
    """A request that is not a message of the protocol (answered with an ``error`` reply)."""


# Canonical action texts are looked up, not parsed: the fuzzer and the server exchange
# hundreds of thousands of them. Anything else goes through the record codec.
_TEXTS: Final[dict[Bid | Play, str]] = {}
for _seat in SEATS:
    for _play in PLAYS[_seat]:
        _TEXTS[_play] = action_to_json(_play)
    for _amount in range(100):
        _bid = shared_bid(_seat, _amount)
        _TEXTS[_bid] = action_to_json(_bid)
    _board = shared_bid(_seat, 0, board=True)
    _TEXTS[_board] = action_to_json(_board)
_ACTIONS: Final[dict[str, Bid | Play]] = {text: action for action, text in _TEXTS.items()}
_CARD_CODES: Final = {card.code: card for card in CARDS}
_QUOTED: Final[dict[Bid | Play, bytes]] = {
    action: json.dumps(text).encode() for action, text in _TEXTS.items()
}

APPLY_REQUESTS: Final[dict[bytes, Bid | Play]] = {
    b'{"type":"apply","action":' + quoted + b"}": action for action, quoted in _QUOTED.items()
}
"""Every bid and play's ``apply`` request in compact JSON (no newline), to its action."""

OK_LINE: Final = b'{"type":"ok"}\n'
"""The reply to an action the rules accept."""


def encode(message: dict[str, Any]) -> bytes:
    """A message as one line of compact JSON, ending in a newline."""
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


# Keyed by identity too: legal_actions gives the shared instances of core.actions, and
# looking one up by id() skips hashing a frozen attrs value.
_QUOTED_BY_ID: Final = {id(action): quoted for action, quoted in _QUOTED.items()}


def legal_line(actions: tuple[Bid | Play | Deal, ...]) -> bytes:
    """The ``legal`` reply listing ``actions`` (bids and plays), byte for byte as ``encode``."""
    try:
        quoted = b",".join(map(_QUOTED_BY_ID.__getitem__, map(id, actions)))
    except KeyError:
        quoted = b",".join(map(_QUOTED.__getitem__, actions))  # type: ignore[arg-type]
    return b'{"type":"legal","actions":[' + quoted + b"]}\n"


def quoted(action: Bid | Play) -> bytes:
    """The JSON text of a bid or a play, as bytes."""
    found = _QUOTED_BY_ID.get(id(action))
    return found if found is not None else _QUOTED[action]


def action_text(action: Bid | Play | Deal) -> Any:
    """The JSON of an action, as in records: ``"N 3"``, ``"S AS"``, ``{"deal": [...]}``."""
    text = _TEXTS.get(action) if type(action) is not Deal else None  # type: ignore[arg-type]
    return text if text is not None else action_to_json(action)


def parse_action(data: Any) -> Bid | Play | Deal:
    """The action of its JSON, or MessageError saying what is wrong with it."""
    if type(data) is str:
        found = _ACTIONS.get(data)
        if found is not None:
            return found
    elif type(data) is dict and len(data) == 1 and type(data.get("deal")) is list:
        # A deal in canonical codes is read by lookup; anything else gets the full reader.
        with contextlib.suppress(KeyError, TypeError, ValueError):
            return Deal([_CARD_CODES[code] for code in data["deal"]])
    try:
        return action_from_json(data)
    except CodecError as error:
        where = f"action.{error.path}: " if error.path else "action: "
        raise MessageError(where + error.message) from None


_SEAT: Final = tuple(seat.letter for seat in SEATS)
_SUIT: Final = {suit: suit.letter for suit in Suit}
_CODE: Final = tuple(card.code for card in CARDS)
_PHASE: Final = {phase: phase.value for phase in Phase}


def facts(state: MatchState) -> dict[str, Any]:
    """The public facts of a position, as the ``facts`` reply gives them.

    Nothing private: no hands and no swap (DEAL-5). ``deal_scores`` is the score
    of the last finished deal (``[0, 0]`` for a thrown-in or tiebreak deal).
    """
    current = state.deal
    core = state.core
    history = core.history
    outcome = core.outcome
    if current is None:
        to_move = trump = turned = None
        bids: list[str] = []
        trick: list[str] = []
        tricks_won = [0, 0]
    else:
        setup = current.setup
        to_move = _SEAT[current.to_move]
        trump = None if setup.trump is None else _SUIT[setup.trump]
        turned = _CODE[setup.turned]
        bids = [bid.call for bid in current.bids]
        trick = [_CODE[card] for card in current.trick]
        tricks_won = list(current.tricks_won)
    return {
        "phase": _PHASE[state.phase],
        "deal_number": len(history),
        "counted_deals": core.counted,
        "dealer": _SEAT[(core.rules.first_dealer + len(history)) % 4],
        "hand_size": None if outcome is not None else state.hand_size,
        "to_move": to_move,
        "trump": trump,
        "turned": turned,
        "bids": bids,
        "trick": trick,
        "tricks_won": tricks_won,
        "deal_scores": list(history[-1].scores) if history else None,
        "totals": list(state.totals),
        "outcome": None if outcome is None else outcome_json(outcome),
    }


def schema(name: str) -> dict[str, Any]:
    """The JSON Schema of a message, by name: ``request.apply``, ``reply.facts``, ..."""
    if name not in MESSAGE_SCHEMAS:
        raise ValueError(f"unknown message {name!r}: one of {', '.join(MESSAGE_SCHEMAS)}")
    text = (
        resources.files("backalley")
        .joinpath(f"schemas/protocol/{name}.schema.json")
        .read_text(encoding="utf-8")
    )
    loaded: dict[str, Any] = json.loads(text)
    return loaded
