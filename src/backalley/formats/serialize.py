"""JSON for every value of the library: ``to_json(value)`` and ``from_json(kind, data)``.

``to_json`` gives plain JSON data (dicts, lists, strings, numbers, None) and
``from_json(kind, data)`` rebuilds an equal value; ``kind`` is one of
:data:`KINDS`. Cards are codes (``"10H"``), seats letters, pairs ``NS``/``EW``,
bids calls (``"pass"``, ``"3"``, ``"board"``), actions the notation (``"N 3"``,
``"S AS"``; a deal is ``{"deal": [54 card codes]}``).

A match state is written as the record that reaches it (rules, seed, each
deal's deck, bids and plays; see :mod:`backalley.formats.records`) plus a readable
snapshot (phase, whose turn, trump, hands, bids, tricks, totals, outcome) for
programs in other languages. Reading replays the record through ``apply`` and
checks the snapshot agrees, so the JSON never depends on how states are stored.

>>> from backalley import Rules, new_match, apply, legal_actions
>>> state = new_match(Rules(schedule="short"), seed=11)
>>> for _ in range(7):
...     state = apply(state, legal_actions(state)[0])
>>> data = to_json(state)
>>> data["snapshot"]["phase"], data["snapshot"]["to_move"], data["snapshot"]["bids"]
('bid', 'W', ['pass'])
>>> from_json("match_state", data) == state
True
>>> to_json(Contract(0, 2)), from_json("action", "w board")
({'target': 0, 'multiplier': 2}, Bid(W, board))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from ..core.actions import Bid, Deal, Play
from ..core.bidding import Contract
from ..core.cards import PAIRS, SEATS, Card, Pair, Seat, Suit
from ..core.dealing import deal
from ..core.rules import Rules
from ..core.tricks import Trick
from ..engine.match import apply
from ..engine.state import (
    DealCore,
    DealResult,
    DealState,
    MatchCore,
    MatchState,
    Outcome,
    Termination,
)
from .checking import replay
from .notation import NotationError, action_text, parse_action, parse_call
from .records import (
    RecordError,
    parse_record,
    record_from_state,
    record_to_json,
    rules_from_json,
    rules_to_json,
)

__all__ = ["KINDS", "SerializeError", "from_json", "snapshot", "to_json"]


class SerializeError(RecordError):
    """JSON data that does not describe a value of the asked kind; ``path`` says where."""


def _fail(path: str, message: str) -> SerializeError:
    return SerializeError(path, message)


def _at(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def _card(data: Any, path: str) -> Card:
    try:
        return Card.parse(data)
    except (ValueError, TypeError) as error:
        raise _fail(path, str(error)) from None


def _seat(data: Any, path: str) -> Seat:
    try:
        return Seat.parse(data)
    except (ValueError, TypeError) as error:
        raise _fail(path, str(error)) from None


def _pair(data: Any, path: str) -> Pair:
    for pair in PAIRS:
        if data == pair.label:
            return pair
    raise _fail(path, f"unknown pair {data!r}: pairs are 'NS' and 'EW'")


def _suit(data: Any, path: str) -> Suit:
    try:
        return Suit.parse(data)
    except (ValueError, TypeError) as error:
        raise _fail(path, str(error)) from None


def _fields(data: Any, path: str, names: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise _fail(
            path, f"expected an object with {', '.join(names)}, found {type(data).__name__}"
        )
    for name in names:
        if name not in data:
            raise _fail(path, f"the field {name!r} is missing")
    return data


def _int(data: Any, path: str) -> int:
    if not isinstance(data, int) or isinstance(data, bool):
        raise _fail(path, f"expected a whole number, found {data!r}")
    return data


def _two_ints(data: Any, path: str) -> tuple[int, int]:
    if not isinstance(data, list) or len(data) != 2:
        raise _fail(path, f"expected two numbers (North-South, East-West), found {data!r}")
    return (_int(data[0], _at(path, 0)), _int(data[1], _at(path, 1)))


def _cards(data: Any, path: str) -> tuple[Card, ...]:
    if not isinstance(data, list):
        raise _fail(path, f"expected an array of card codes, found {type(data).__name__}")
    return tuple(_card(item, _at(path, index)) for index, item in enumerate(data))


# --- actions -----------------------------------------------------------------------


def _action_to_json(action: Bid | Play | Deal) -> Any:
    if isinstance(action, Deal):
        return {"deal": [card.code for card in action.deck]}
    return action_text(action)


def _action_from_json(data: Any, path: str) -> Bid | Play | Deal:
    if isinstance(data, dict):
        fields = _fields(data, path, ("deal",))
        try:
            return Deal(_cards(fields["deal"], _at(path, "deal")))
        except (ValueError, TypeError) as error:
            if isinstance(error, SerializeError):
                raise
            raise _fail(_at(path, "deal"), str(error)) from None
    try:
        return parse_action(data)
    except NotationError as error:
        raise _fail(path, str(error)) from None


def _bid_from_json(data: Any, path: str) -> Bid:
    action = _action_from_json(data, path)
    if not isinstance(action, Bid):
        raise _fail(path, f"expected a bid such as 'N 3', found {data!r}")
    return action


def _play_from_json(data: Any, path: str) -> Play:
    action = _action_from_json(data, path)
    if not isinstance(action, Play):
        raise _fail(path, f"expected a play such as 'S AS', found {data!r}")
    return action


def _deal_from_json(data: Any, path: str) -> Deal:
    action = _action_from_json(data, path)
    if not isinstance(action, Deal):
        raise _fail(path, f"expected a deal such as {{'deal': [54 cards]}}, found {data!r}")
    return action


# --- small values ------------------------------------------------------------------


def _contract_to_json(contract: Contract) -> dict[str, Any]:
    return {"target": contract.target, "multiplier": contract.multiplier}


def _contract_from_json(data: Any, path: str) -> Contract:
    fields = _fields(data, path, ("target", "multiplier"))
    return Contract(
        _int(fields["target"], _at(path, "target")),
        _int(fields["multiplier"], _at(path, "multiplier")),
    )


def _trick_to_json(trick: Trick) -> dict[str, Any]:
    return {
        "leader": trick.leader.letter,
        "cards": [card.code for card in trick.cards],
        "winner": None if trick.winner is None else trick.winner.letter,
    }


def _trick_from_json(data: Any, path: str) -> Trick:
    fields = _fields(data, path, ("leader", "cards", "winner"))
    winner = fields["winner"]
    return Trick(
        _seat(fields["leader"], _at(path, "leader")),
        _cards(fields["cards"], _at(path, "cards")),
        None if winner is None else _seat(winner, _at(path, "winner")),
    )


def _outcome_to_json(outcome: Outcome) -> dict[str, Any]:
    return {
        "termination": outcome.termination.value,
        "winner": None if outcome.winner is None else outcome.winner.label,
        "totals": list(outcome.totals),
    }


def _outcome_from_json(data: Any, path: str) -> Outcome:
    fields = _fields(data, path, ("termination", "winner", "totals"))
    try:
        termination = Termination(fields["termination"])
    except ValueError:
        raise _fail(
            _at(path, "termination"),
            f"unknown termination {fields['termination']!r}: 'score', 'draw' or 'tiebreak-deal'",
        ) from None
    winner = fields["winner"]
    return Outcome(
        termination,
        None if winner is None else _pair(winner, _at(path, "winner")),
        _two_ints(fields["totals"], _at(path, "totals")),
    )


def _rules_from_json(data: Any, path: str) -> Rules:
    return rules_from_json(data, path or "rules")


# --- deal results ------------------------------------------------------------------


def _deal_result_to_json(result: DealResult) -> dict[str, Any]:
    deal_state = result.deal
    setup = deal_state.setup
    return {
        "number": setup.number,
        "dealer": setup.dealer.letter,
        "hand_size": setup.hand_size,
        "tiebreak": setup.tiebreak,
        "deck": [card.code for card in setup.deck],
        "bids": [bid.call for bid in deal_state.bids],
        "plays": [card.code for trick in deal_state.tricks for card in trick.cards],
        "scores": list(result.scores),
    }


def _deal_result_from_json(data: Any, path: str) -> DealResult:
    """Rebuild a finished deal by playing it again, alone, from its deck.

    A one-deal match is set up at the deal's number and dealer, then its bids and
    plays go through ``apply``, so the rebuilt deal is exactly what play produces.
    """
    names = ("number", "dealer", "hand_size", "tiebreak", "deck", "bids", "plays", "scores")
    fields = _fields(data, path, names)
    number = _int(fields["number"], _at(path, "number"))
    hand_size = _int(fields["hand_size"], _at(path, "hand_size"))
    tiebreak = fields["tiebreak"]
    if not isinstance(tiebreak, bool):
        raise _fail(_at(path, "tiebreak"), f"expected true or false, found {tiebreak!r}")
    dealer = _seat(fields["dealer"], _at(path, "dealer"))
    try:
        rules = Rules(schedule=[hand_size], first_dealer=dealer)
        setup = deal(
            Deal(_cards(fields["deck"], _at(path, "deck"))).deck,
            dealer=dealer,
            hand_size=hand_size,
            number=number,
            tiebreak=tiebreak,
        )
    except SerializeError:
        raise
    except (ValueError, TypeError) as error:
        raise _fail(path, str(error)) from None
    # The one place that builds a deal state by hand: the deal stands alone, outside
    # any match, so there is no history to replay it from.
    leader = setup.first_bidder if tiebreak else None
    state = MatchState(MatchCore(rules, 0), DealState(DealCore(setup, leader=leader), setup.hands))
    bids = fields["bids"]
    plays = fields["plays"]
    if not isinstance(bids, list) or not isinstance(plays, list):
        raise _fail(path, "bids and plays are arrays")
    for index, call in enumerate(bids):
        where = _at(_at(path, "bids"), index)
        state = _replay_one(state, _bid_call(call, where, state), where)
    for index, code in enumerate(plays):
        card = _card(code, _at(_at(path, "plays"), index))
        state = _replay_one(
            state, Play(state.to_move or SEATS[0], card), _at(_at(path, "plays"), index)
        )
    if len(state.history) != 1:
        raise _fail(path, "the bids and plays do not finish the deal")
    result = state.history[0]
    claimed = _two_ints(fields["scores"], _at(path, "scores"))
    if claimed != result.scores:
        raise _fail(
            _at(path, "scores"), f"the deal scores {list(result.scores)}, not {list(claimed)}"
        )
    return result


def _bid_call(call: Any, path: str, state: MatchState) -> Bid:
    try:
        amount, board = parse_call(call)
    except NotationError as error:
        raise _fail(path, str(error)) from None
    return Bid(state.to_move or SEATS[0], amount, board)


def _replay_one(state: MatchState, action: Bid | Play, path: str) -> MatchState:
    try:
        return apply(state, action)
    except ValueError as error:
        raise _fail(path, f"{action} is illegal: {error}") from None


# --- match states ------------------------------------------------------------------


def snapshot(state: MatchState) -> dict[str, Any]:
    """A readable picture of a state, for other languages: what a table shows, and more."""
    current = state.current_trick
    contracts = state.contracts
    return {
        "phase": state.phase.value,
        "deal_number": state.deal_number,
        "counted_deals": state.counted_deals,
        "dealer": state.dealer.letter,
        "hand_size": state.hand_size,
        "to_move": None if state.to_move is None else state.to_move.letter,
        "trump": None if state.trump is None else state.trump.letter,
        "turned": None if state.deal is None else state.deal.setup.turned.code,
        "hands": {seat.letter: [card.code for card in state.hand(seat)] for seat in SEATS},
        "bids": [bid.call for bid in state.bids],
        "contracts": None if contracts is None else [_contract_to_json(c) for c in contracts],
        "tricks": [_trick_to_json(trick) for trick in state.completed_tricks],
        "current_trick": None if current is None else _trick_to_json(current),
        "tricks_won": list(state.tricks_won),
        "totals": list(state.totals),
        "outcome": None if state.outcome is None else _outcome_to_json(state.outcome),
    }


def _state_to_json(state: MatchState) -> dict[str, Any]:
    return {"record": record_to_json(record_from_state(state)), "snapshot": snapshot(state)}


def _state_from_json(data: Any, path: str) -> MatchState:
    fields = _fields(data, path, ("record", "snapshot"))
    try:
        state = replay(parse_record(fields["record"]))
    except RecordError as error:
        # Say where in this value the record's problem is: under "record".
        raise _fail(
            _at(_at(path, "record"), error.path) if error.path else _at(path, "record"),
            error.message,
        ) from None
    expected = snapshot(state)
    given = fields["snapshot"]
    if not isinstance(given, dict):
        raise _fail(_at(path, "snapshot"), "expected an object")
    for key, value in expected.items():
        if key not in given:
            raise _fail(_at(path, "snapshot"), f"the field {key!r} is missing")
        if given[key] != value:
            raise _fail(
                _at(_at(path, "snapshot"), key),
                f"the record reaches {value!r}, the snapshot says {given[key]!r}",
            )
    return state


# --- the two entry points ----------------------------------------------------------

_READERS: Final[dict[str, Callable[[Any, str], Any]]] = {
    "card": _card,
    "seat": _seat,
    "suit": _suit,
    "pair": _pair,
    "rules": _rules_from_json,
    "bid": _bid_from_json,
    "play": _play_from_json,
    "deal": _deal_from_json,
    "action": _action_from_json,
    "contract": _contract_from_json,
    "trick": _trick_from_json,
    "outcome": _outcome_from_json,
    "deal_result": _deal_result_from_json,
    "match_state": _state_from_json,
}

KINDS: Final = tuple(_READERS)
"""The kinds ``from_json`` reads."""


def to_json(value: Any) -> Any:
    """Plain JSON data for any value of the library.

    Cards, seats, suits, pairs, rules, actions, contracts, tricks, outcomes, deal
    results and match states; anything else is a TypeError.
    """
    if isinstance(value, Card):
        return value.code
    if isinstance(value, Seat | Suit):
        return value.letter
    if isinstance(value, Pair):
        return value.label
    if isinstance(value, Bid | Play | Deal):
        return _action_to_json(value)
    writers: dict[type, Callable[[Any], Any]] = {
        Rules: rules_to_json,
        Contract: _contract_to_json,
        Trick: _trick_to_json,
        Outcome: _outcome_to_json,
        DealResult: _deal_result_to_json,
        MatchState: _state_to_json,
    }
    writer = writers.get(type(value))
    if writer is None:
        raise TypeError(f"no JSON form for {type(value).__name__}")
    return writer(value)


def from_json(kind: str, data: Any) -> Any:
    """Rebuild a value of ``kind`` (one of :data:`KINDS`) from its JSON data.

    Bad data raises :class:`SerializeError` (a ``ValueError``) naming the path.
    """
    reader = _READERS.get(kind)
    if reader is None:
        raise ValueError(f"unknown kind {kind!r}: one of {', '.join(KINDS)}")
    return reader(data, "")
