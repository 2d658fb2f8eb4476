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

import json
from importlib import resources
from typing import Any, Final, NamedTuple

from .. import __version__
from ..core import position
from ..core.action_index import (
    FIRST_CARD_INDEX,
    MAX_BID_INDEX,
    NUM_ACTION_INDICES,
    action_index,
    index_action,
)
from ..core.actions import PLAYS, Bid, Deal, Play, shared_bid
from ..core.bidding import BOARD, bid_of_code
from ..core.cards import CARDS, SEATS, Card, Seat, Suit
from ..core.errors import Reason
from ..core.flow import dealer_of_deal
from ..engine._fast import chunked, picked
from ..engine.state import MatchState, Outcome, Phase
from ._codec import RecordError, action_from_json, action_to_json, outcome_json

__all__ = [
    "ACTION_SLOTS",
    "APPLY_LINES",
    "APPLY_REQUESTS",
    "CAPABILITIES",
    "ENGINE_NAME",
    "ERROR_CODES",
    "FACT_RULES",
    "LEGAL_REQUEST",
    "MESSAGE_SCHEMAS",
    "NO_LEGAL_LINE",
    "OK_LINE",
    "PROTOCOL",
    "QUOTED",
    "REQUEST_TYPES",
    "RULE_OF_REASON",
    "VERSION",
    "VIEW_NAMES",
    "VIEW_REQUESTS",
    "MessageError",
    "action_slot",
    "action_text",
    "encode",
    "facts",
    "facts_line",
    "legal_line",
    "legal_play_line",
    "lenient_action",
    "parse_action",
    "schema",
    "seat_view",
    "shown",
    "view_line",
]

PROTOCOL: Final = "backalley-protocol"
"""The protocol's name, said in both hello messages."""

VERSION: Final = 1
"""The protocol version this page and this module describe."""

CAPABILITIES: Final = ("legal", "reasons", "view")
"""What an engine may support beyond the required requests.

``legal``: it answers ``legal`` requests. ``reasons``: its refusals carry the
reason codes of :class:`~backalley.core.errors.Reason`. ``view``: it answers
``view`` requests, what one seat may know (DEAL-5).
"""

REQUEST_TYPES: Final = ("hello", "new_match", "apply", "legal", "facts", "view", "bye")
"""The requests a client may send."""

REPLY_TYPES: Final = ("hello", "ok", "facts", "refused", "legal", "view", "bye", "error")
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


ERROR_CODES: Final = (
    "not_json",
    "line_too_long",
    "not_a_request",
    "unknown_field",
    "missing_field",
    "bad_hello",
    "bad_rules",
    "bad_seed",
    "bad_action",
    "bad_seat",
    "no_match",
    "internal",
)
"""The codes of ``error`` replies (``docs/protocol.md``, "Errors"): what is wrong with a request.

``not_json`` a line that is not UTF-8 JSON (or has a key twice, or NaN);
``line_too_long`` a line over 1 MiB; ``not_a_request`` not an object, or an
unknown ``type``; ``unknown_field`` and ``missing_field``; ``bad_hello`` the
wrong protocol or no version in common; ``bad_rules`` and ``bad_seed`` in
``new_match``; ``bad_action`` an action not written as ACTION says (canonical
spelling only); ``bad_seat`` a ``view`` of no seat; ``no_match`` ``apply``,
``legal``, ``facts`` or ``view`` before the first
``new_match``; ``internal`` a failure of the engine itself (a bug: please report it).
"""


class MessageError(ValueError):
    """A request that is not a message of the protocol (answered with an ``error`` reply).

    ``code`` is one of :data:`ERROR_CODES`; the message names the field and says why.
    """

    def __init__(self, message: str, code: str = "not_a_request") -> None:
        super().__init__(message)
        self.code = code


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


def _quote(text: str) -> bytes:
    return json.dumps(text).encode()


_APPLY_PREFIX: Final = b'{"type":"apply","action":'

APPLY_REQUESTS: Final[dict[bytes, Bid | Play]] = {
    _APPLY_PREFIX + _quote(text) + b"}": action for action, text in _TEXTS.items()
}
"""Every bid and play's ``apply`` request in compact JSON (no newline), to its action."""

LEGAL_REQUEST: Final = b'{"type":"legal"}'
"""The ``legal`` request in compact JSON (no newline), as ``APPLY_REQUESTS`` writes applies."""

OK_LINE: Final = b'{"type":"ok"}\n'
"""The reply to an action the rules accept."""


def encode(message: dict[str, Any]) -> bytes:
    """A message as one line of compact JSON, ending in a newline."""
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


ACTION_SLOTS: Final = len(SEATS) * NUM_ACTION_INDICES
"""How many slots :data:`QUOTED` and :data:`APPLY_LINES` have: every seat's indexed actions."""


def action_slot(action: Bid | Play | Deal) -> int:
    """Where a bid or play is in :data:`QUOTED` and :data:`APPLY_LINES`, or -1 if it is not.

    The slot is ``seat * NUM_ACTION_INDICES + action_index(action)``
    (``backalley.core.action_index``): every play, and every bid a deal can allow
    (Pass, 1 to 12, Board). A larger or negative amount has no index, and a deal
    no slot.
    """
    if type(action) is Play or (type(action) is Bid and 0 <= action.amount <= MAX_BID_INDEX):
        return action.seat * NUM_ACTION_INDICES + action_index(action)
    return -1


# The fuzzer and the server write hundreds of thousands of these: each is made once
# here, from the action's position in the fixed action numbering, and looked up by
# slot (a few integer operations) rather than by hashing the action (attrs' hash of
# a frozen value runs in Python) or serialising it. tests/test_protocol_server.py checks
# every entry against encode() and json.dumps of the action's record text.
_SLOT_ACTIONS: Final = tuple(
    index_action(index, seat) for seat in SEATS for index in range(NUM_ACTION_INDICES)
)

QUOTED: Final[tuple[bytes, ...]] = tuple(_quote(_TEXTS[action]) for action in _SLOT_ACTIONS)
"""The JSON text of each bid and play, as bytes, at its :func:`action_slot`."""

APPLY_LINES: Final[tuple[bytes, ...]] = tuple(_APPLY_PREFIX + quoted + b"}\n" for quoted in QUOTED)
"""Each bid and play's ``apply`` request line (with its newline), at its :func:`action_slot`."""


# QUOTED with None at slot -1, which action_slot gives an action outside the table.
_QUOTED_OR_NONE: Final = (*QUOTED, None)


def legal_line(actions: tuple[Bid | Play | Deal, ...]) -> bytes:
    """The ``legal`` reply listing ``actions`` (bids and plays), byte for byte as ``encode``."""
    found = _QUOTED_OR_NONE
    # A play's slot written out (action_slot's sum for a Play) rather than called: a
    # list of legal plays is written at nearly every decision, by the fuzzer and the
    # server alike, and two calls an action cost them some 6 % of their instructions.
    texts = [
        found[action.seat * NUM_ACTION_INDICES + FIRST_CARD_INDEX + action.card]
        if type(action) is Play
        else found[action_slot(action)]
        for action in actions
    ]
    if None in texts:
        return encode({"type": "legal", "actions": [action_text(action) for action in actions]})
    return b'{"type":"legal","actions":[' + b",".join(texts) + b"]}\n"  # type: ignore[arg-type]


NO_LEGAL_LINE: Final = legal_line(())
"""The ``legal`` reply between deals and after the match: no action is legal."""

# The quoted plays of each seat, cut as engine._fast cuts card masks: the legal reply
# in play is read off the allowed-card mask, with no Play made or looked up.
_QUOTED_PLAYS: Final = tuple(
    chunked(QUOTED[seat * NUM_ACTION_INDICES + FIRST_CARD_INDEX : (seat + 1) * NUM_ACTION_INDICES])
    for seat in range(len(SEATS))
)


def legal_play_line(state: MatchState) -> bytes:
    """The ``legal`` reply for a state in play, read off the allowed-card mask.

    ``legal_line(legal_actions(state))`` with no Play made or looked up: the
    allowed cards (``position.allowed_of``) pick their quoted texts. The server
    answers every ``legal`` request in play with it; the test suite checks it
    against ``legal_line(legal_actions(state))`` on any state in play.
    """
    pos = state.position
    trick = pos[position.TRICK]
    seat = position.to_move(pos)
    allowed = position.allowed_of(pos, seat, trick)[0]
    texts = picked(allowed, _QUOTED_PLAYS[seat])
    return b'{"type":"legal","actions":[' + b",".join(texts) + b"]}\n"


def action_text(action: Bid | Play | Deal) -> Any:
    """The JSON of an action, as in records: ``"N 3"``, ``"S AS"``, ``{"deal": [...]}``."""
    text = _TEXTS.get(action) if type(action) is not Deal else None  # type: ignore[arg-type]
    return text if text is not None else action_to_json(action)


def parse_action(data: Any) -> Bid | Play | Deal:
    """The action of its JSON in the canonical spelling of ACTION, or MessageError.

    The protocol's grammar is strict (``docs/protocol.md``, ACTION): a seat
    letter, one space, then ``pass``, ``board``, a number 1 to 99 without
    leading zeros, or an upper-case card code; or ``{"deal": [54 card codes]}``.
    The notation's lenient spellings (``E 0``, ``E Pass``, ``east pass``,
    ``S ks``, spaces around) are refused with code ``bad_action``, and the
    message gives the canonical spelling when there is one.
    """
    if type(data) is str:
        found = _ACTIONS.get(data)
        if found is not None:
            return found
        raise MessageError("action: " + _not_canonical(data), "bad_action")
    if type(data) is dict:
        return _parse_deal(data)
    raise MessageError(
        'action: an action is a string such as "N 3" or "E AS", or {"deal": [54 card codes]},'
        f" not {shown(data)}",
        "bad_action",
    )


def shown(data: Any) -> str:
    """A request's value as a message quotes it: its JSON, at most 60 characters.

    The server reads fractions as :class:`~decimal.Decimal`; they are shown as numbers.
    """
    return json.dumps(data, default=float)[:60]


def _not_canonical(text: str) -> str:
    """Why a string is not an action of the protocol, with its canonical spelling if any."""
    try:
        meant = action_from_json(text)
    except RecordError as error:
        return f"{shown(text)} is not an action: {error.message}"
    if type(meant) is Bid and not meant.board and meant.amount > 99:
        return f"{shown(text)} is not an action: a bid is a number 1 to 99, pass or board"
    return (
        f"{shown(text)} is not written as the protocol writes actions: "
        f"write {shown(action_to_json(meant))} (a seat letter, one space, then pass, board, "
        "a number 1 to 99 without leading zeros, or an upper-case card code)"
    )


def _parse_deal(data: dict[Any, Any]) -> Deal:
    deck = data.get("deal")
    if len(data) == 1 and type(deck) is list and len(deck) == len(CARDS):
        # The common case, canonical codes each once, by lookup; anything else is explained.
        try:
            cards = [_CARD_CODES[code] for code in deck]
        except (KeyError, TypeError):
            pass
        else:
            if len(set(cards)) == len(CARDS):
                return Deal(cards)
    if set(data) != {"deal"}:
        extra = sorted(str(key) for key in data if key != "deal")
        if extra:
            raise MessageError(f"action: unknown field {extra[0]!r} in a deal", "bad_action")
        raise MessageError('action: a deal is {"deal": [54 card codes]}', "bad_action")
    deck = data["deal"]
    if type(deck) is not list:
        raise MessageError(f"action.deal: a list of 54 card codes, not {shown(deck)}", "bad_action")
    if len(deck) != len(CARDS):
        raise MessageError(
            f"action.deal: a deck has {len(CARDS)} cards, not {len(deck)}", "bad_action"
        )
    cards = []
    for index, code in enumerate(deck):
        card = _CARD_CODES.get(code) if type(code) is str else None
        if card is None:
            raise MessageError(
                f"action.deal[{index}]: {shown(code)} is not a card code as the protocol "
                "writes them (2-10, J, Q, K, A then C, D, H, S, upper case; BIG, LITTLE)",
                "bad_action",
            )
        cards.append(card)
    if len(set(cards)) != len(cards):
        seen: set[Card] = set()
        for index, card in enumerate(cards):
            if card in seen:
                raise MessageError(
                    f"action.deal[{index}]: {card.code} is in the deck twice", "bad_action"
                )
            seen.add(card)
    return Deal(cards)


def lenient_action(data: Any) -> Bid | Play | Deal | None:
    """The action a string means in the notation's lenient spelling, or None.

    Only for explaining a difference (an engine listing ``"E Pass"`` as legal is
    told the canonical spelling); requests are read by :func:`parse_action`.
    """
    try:
        return action_from_json(data)
    except RecordError:
        return None


_SEAT: Final = tuple(seat.letter for seat in SEATS)
_SUIT: Final = {suit: suit.letter for suit in Suit}
_CODE: Final = tuple(card.code for card in CARDS)
_CALLS: Final = tuple(bid_of_code(SEATS[0], code).call for code in range(BOARD + 1))
"""The call of each bid code (``bidding.bid_code``): ``pass``, ``1`` ... ``board``."""
_PHASE: Final = {phase: phase.value for phase in Phase}


class _Facts(NamedTuple):
    """The facts of a position as values: the ``facts`` reply's fields, in its order."""

    phase: str
    deal_number: int
    counted_deals: int
    dealer: str
    hand_size: int | None
    to_move: str | None
    trump: str | None
    turned: str | None
    bids: list[str]
    trick: list[str]
    tricks_won: tuple[int, int]
    deal_scores: tuple[int, int] | None
    totals: tuple[int, int]
    outcome: Outcome | None


FACT_NAMES: Final = _Facts._fields
"""The fields of the ``facts`` reply, in the order the reply writes them."""


def _fact_values(state: MatchState) -> _Facts:
    """The facts of a position as values (the outcome not yet JSON)."""
    # Read off the state's position and setup: the fuzzer asks this after every trick.
    setup = state.setup
    history = state.history
    outcome = state.outcome
    if setup is None:
        to_move = trump = turned = None
        bids: list[str] = []
        trick: list[str] = []
        tricks_won: tuple[int, int] = (0, 0)
    else:
        pos = state.position
        to_move = _SEAT[position.to_move(pos)]
        trump = None if setup.trump is None else _SUIT[setup.trump]
        turned = _CODE[setup.turned]
        bids = [_CALLS[code] for code in pos[position.BIDS]]
        trick = [_CODE[card] for card in pos[position.TRICK]]
        tricks_won = position.tricks_won(pos)
    return _Facts(
        _PHASE[state.phase],
        len(history),
        state.counted_deals,
        _SEAT[dealer_of_deal(state.rules, len(history))],
        None if outcome is not None else state.hand_size,
        to_move,
        trump,
        turned,
        bids,
        trick,
        tricks_won,
        history[-1].scores if history else None,
        state.totals,
        outcome,
    )


def facts(state: MatchState) -> dict[str, Any]:
    """The public facts of a position, as the ``facts`` reply gives them.

    Nothing private: no hands and no swap (DEAL-5). ``deal_scores`` is the score
    of the last finished deal (``[0, 0]`` for a thrown-in or tiebreak deal).
    """
    found = _fact_values(state)._asdict()
    for name in ("tricks_won", "deal_scores", "totals"):
        if found[name] is not None:
            found[name] = list(found[name])
    outcome = found["outcome"]
    found["outcome"] = None if outcome is None else outcome_json(outcome)
    return found


def _text(value: str | None) -> str:
    # The facts' strings are codes, letters and names: none needs escaping in JSON.
    return "null" if value is None else f'"{value}"'


def _texts(values: list[str]) -> str:
    return '["' + '","'.join(values) + '"]' if values else "[]"


def _two(values: tuple[int, int] | None) -> str:
    return "null" if values is None else f"[{values[0]},{values[1]}]"


def facts_line(state: MatchState) -> bytes:
    """The ``facts`` reply for a state as its line: ``encode`` of its message, written out.

    Both sides of a fuzzing run write one after every trick and deal, so it is
    formatted field by field from the facts' values rather than through ``facts``
    and ``json.dumps`` (a third of the time); the test suite checks it against
    ``encode`` on any state.
    """
    fact = _fact_values(state)
    outcome = fact.outcome
    if outcome is None:
        ended = "null"
    else:
        claim = outcome_json(outcome)
        ended = f'{{"termination":"{claim["termination"]}","winner":{_text(claim["winner"])}}}'
    return (
        f'{{"type":"facts","facts":{{"phase":"{fact.phase}",'
        f'"deal_number":{fact.deal_number},"counted_deals":{fact.counted_deals},'
        f'"dealer":"{fact.dealer}",'
        f'"hand_size":{"null" if fact.hand_size is None else fact.hand_size},'
        f'"to_move":{_text(fact.to_move)},"trump":{_text(fact.trump)},'
        f'"turned":{_text(fact.turned)},"bids":{_texts(fact.bids)},'
        f'"trick":{_texts(fact.trick)},"tricks_won":{_two(fact.tricks_won)},'
        f'"deal_scores":{_two(fact.deal_scores)},"totals":{_two(fact.totals)},'
        f'"outcome":{ended}}}}}\n'
    ).encode()


VIEW_NAMES: Final = ("seat", "hand", "swap")
"""The fields of the ``view`` reply's ``view``, in the order the reply writes them."""


def seat_view(state: MatchState, seat: Seat) -> dict[str, Any]:
    """What ``seat`` may know beyond the public facts, as the ``view`` reply gives it (DEAL-5).

    ``hand``: the cards the seat holds in the deal in progress, in card-number
    order (``[]`` between deals and after the match). ``swap``: after a turned
    joker, the joker the seat gave up and the card it took, ``{"gave": "BIG",
    "took": "5H"}``, for the seat that swapped alone; ``null`` for every other
    seat, in a deal without a swap and between deals. Nothing else: no other
    hand, no stock, and no seat learns who swapped.
    """
    current = state.deal
    hand: list[str] = []
    swap = None
    if current is not None:
        held = current.hands[seat]
        hand = [_CODE[card] for card in range(len(CARDS)) if held >> card & 1]
        made = current.setup.swap
        if made is not None and made.seat == seat:
            swap = {"gave": _CODE[made.joker], "took": _CODE[made.received]}
    return {"seat": _SEAT[seat], "hand": hand, "swap": swap}


def view_line(state: MatchState, seat: Seat) -> bytes:
    """The ``view`` reply for ``seat`` in ``state``: ``encode`` of its message, written out.

    The fuzzer and the server write several a deal; the test suite checks the line
    against ``encode`` of :func:`seat_view` on any state.
    """
    current = state.deal
    if current is None:
        return _EMPTY_VIEWS[seat]
    held = current.hands[seat]
    hand = _texts([_CODE[card] for card in range(len(CARDS)) if held >> card & 1])
    made = current.setup.swap
    swap = "null"
    if made is not None and made.seat == seat:
        swap = f'{{"gave":"{_CODE[made.joker]}","took":"{_CODE[made.received]}"}}'
    return (
        f'{{"type":"view","view":{{"seat":"{_SEAT[seat]}","hand":{hand},"swap":{swap}}}}}\n'
    ).encode()


_EMPTY_VIEWS: Final = tuple(
    encode({"type": "view", "view": {"seat": seat.letter, "hand": [], "swap": None}})
    for seat in SEATS
)

VIEW_REQUESTS: Final[dict[bytes, Seat]] = {
    encode({"type": "view", "seat": seat.letter})[:-1]: seat for seat in SEATS
}
"""Every seat's ``view`` request in compact JSON (no newline), to its seat."""


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
