"""Game records: a match or a deal as a documented JSON value, the PGN of Back Alley.

A record names the rules, the match seed and, deal by deal, the deck it was
dealt from, the bids and the cards played, in order. It may also carry what the
program that wrote it claims the scores were, which
:func:`backalley.formats.checking.check` recomputes. The format is described in
``docs/records.md`` and by the JSON Schema ``schemas/record.schema.json``
shipped in this package.

A record that stops early (mid-deal, mid-trick, between deals) is valid: it
describes a position, not a finished match. Replaying and checking records is
:mod:`backalley.formats.checking`.

>>> from backalley import Rules, new_match, apply, legal_actions
>>> state = new_match(Rules(schedule=[1]), seed=7)
>>> while not state.is_over:
...     state = apply(state, legal_actions(state)[-1])
>>> record = record_from_state(state)
>>> record.deals[0].bids, [card.code for card in record.deals[0].plays]
(('board', 'board', 'board', 'board'), ['4H', 'JS', 'AD', '3H'])
>>> from backalley.formats.checking import replay
>>> replay(loads(dumps(record))) == state
True
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Final

import attrs

from ..core.cards import CARDS, PACK_SIZE, PAIRS, SEATS, Card, Pair
from ..core.dealing import MAX_SEED, seeded_deck
from ..core.rules import MAX_HAND_SIZE, MIN_HAND_SIZE, SCHEDULES, Rules, TiePolicy
from ..engine.state import MatchState, Termination

__all__ = [
    "CALL_PATTERN",
    "FORMAT",
    "MAX_RECORD_BYTES",
    "VERSION",
    "ClaimedResult",
    "Record",
    "RecordDeal",
    "RecordError",
    "deal_record",
    "dumps",
    "loads",
    "parse_record",
    "record_from_state",
    "record_to_json",
    "rules_from_json",
    "rules_to_json",
]

FORMAT: Final = "backalley-record"
VERSION: Final = 1
MAX_RECORD_BYTES: Final = 1 << 20
"""A record larger than 1 MiB is refused unread: a whole match takes a few kilobytes."""
_MAX_BIDS: Final = 4
_MAX_PLAYS: Final = 4 * MAX_HAND_SIZE

CALL_PATTERN: Final = re.compile(r"pass|board|[1-9][0-9]?")
"""A bid as written in a record, canonical and lower case; the schema lists the same calls."""
_CODES: Final = {card.code: card for card in CARDS}
_SEAT_LETTERS: Final = {seat.letter: seat for seat in SEATS}
_PAIR_LABELS: Final = {pair.label: pair for pair in PAIRS}
_TOP_FIELDS: Final = ("format", "version", "rules", "seed", "deals", "totals", "result", "tags")
_DEAL_FIELDS: Final = ("deck", "bids", "plays", "scores")


class RecordError(ValueError):
    """Input that is not a valid record: bad JSON, a missing field, an unknown card.

    ``path`` locates the problem in the JSON value (``deals[3].plays[17]``; empty
    for the whole input) and ``message`` says what is wrong.
    """

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path
        self.message = message


@attrs.frozen
class RecordDeal:
    """One deal of a record: its deck (None: the seeded deck), bids, plays, claimed scores."""

    deck: tuple[Card, ...] | None
    bids: tuple[str, ...] = ()
    plays: tuple[Card, ...] = ()
    scores: tuple[int, int] | None = None


@attrs.frozen
class ClaimedResult:
    """The result a record claims: how the match ended and the winning pair (None: a draw)."""

    termination: Termination
    winner: Pair | None


@attrs.frozen
class Record:
    """A parsed record. ``totals`` and ``result`` are claims, checked by :func:`check`."""

    rules: Rules
    seed: int
    deals: tuple[RecordDeal, ...] = ()
    totals: tuple[int, int] | None = None
    result: ClaimedResult | None = None
    tags: tuple[tuple[str, str], ...] = ()


# --- reading JSON ------------------------------------------------------------------


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise RecordError("", f"the field {key!r} appears twice in one object")
        result[key] = value
    return result


def _no_constant(name: str) -> Any:
    raise RecordError("", f"not JSON: {name} is not a JSON number")


def loads(text: str | bytes) -> Record:
    """Read a record from JSON text; RecordError says what is wrong and where."""
    if isinstance(text, bytes):
        if len(text) > MAX_RECORD_BYTES:
            raise RecordError("", _too_big())
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise RecordError("", f"byte {error.start} is not UTF-8 text") from None
    elif not isinstance(text, str):
        raise TypeError(f"a record is read from str or bytes, not {type(text).__name__}")
    if len(text) > MAX_RECORD_BYTES:
        raise RecordError("", _too_big())
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except json.JSONDecodeError as error:
        raise RecordError(
            "", f"not JSON: line {error.lineno}, column {error.colno}: {error.msg}"
        ) from None
    except RecursionError:
        raise RecordError("", "the JSON is nested too deeply") from None
    return parse_record(data)


def _too_big() -> str:
    # A stream is cut just past the limit, so "more than the limit" is all that is certain.
    return (
        f"a record may have at most {MAX_RECORD_BYTES} bytes (1 MiB) and this input has more; "
        "a whole match takes a few kilobytes"
    )


_KIND_NAMES: Final = {
    dict: "an object",
    list: "an array",
    str: "a string",
    bool: "true or false",
    int: "a number",
    float: "a number",
    type(None): "null",
}


def _found(value: Any) -> str:
    text = json.dumps(value) if isinstance(value, str | int | float | bool | None) else ""
    kind = _KIND_NAMES.get(type(value), type(value).__name__)
    return f"{kind} ({text[:40]})" if text else kind


def _at(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def _integer(value: Any) -> int | None:
    """The value as a JSON Schema integer (``3`` or ``3.0``, never ``true``), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    return None


def _object(value: Any, path: str, fields: tuple[str, ...], required: tuple[str, ...]) -> None:
    if not isinstance(value, dict):
        raise RecordError(path, f"expected an object, found {_found(value)}")
    for key in value:
        if key not in fields:
            raise RecordError(_at(path, key), f"unknown field {key!r}; known: {', '.join(fields)}")
    for key in required:
        if key not in value:
            raise RecordError(path, f"the field {key!r} is missing")


def _array(value: Any, path: str, what: str, most: int | None = None) -> list[Any]:
    if not isinstance(value, list):
        raise RecordError(path, f"expected an array of {what}, found {_found(value)}")
    if most is not None and len(value) > most:
        raise RecordError(path, f"at most {most} {what}, found {len(value)}")
    return value


def _card(value: Any, path: str) -> Card:
    if not isinstance(value, str):
        raise RecordError(path, f"expected a card code such as 'AS', found {_found(value)}")
    card = _CODES.get(value)
    if card is not None:
        return card
    try:
        spelled = Card.parse(value)
    except ValueError:
        raise RecordError(
            path,
            f"unknown card {value!r}: a card is a rank (2-10, J, Q, K, A) then a suit "
            "(C, D, H, S), or BIG or LITTLE",
        ) from None
    raise RecordError(path, f"write the card {value!r} as {spelled.code!r}: records use codes")


def _pair_of_ints(value: Any, path: str) -> tuple[int, int]:
    items = _array(value, path, "scores (North-South, East-West)")
    if len(items) != 2:
        raise RecordError(path, f"expected two scores (North-South, East-West), found {len(items)}")
    numbers = [_integer(item) for item in items]
    for index, (item, number) in enumerate(zip(items, numbers, strict=True)):
        if number is None:
            raise RecordError(_at(path, index), f"expected a whole number, found {_found(item)}")
    return (numbers[0] or 0, numbers[1] or 0)


def rules_from_json(value: Any, path: str = "rules") -> Rules:
    """The rules from their JSON: ``{"schedule", "tie", "first_dealer"}``, all required."""
    _object(value, path, ("schedule", "tie", "first_dealer"), ("schedule", "tie", "first_dealer"))
    schedule = value["schedule"]
    if isinstance(schedule, str):
        if schedule not in SCHEDULES:
            names = ", ".join(SCHEDULES)
            raise RecordError(
                _at(path, "schedule"),
                f"unknown schedule {schedule!r}: use {names} or a list of hand sizes",
            )
        sizes: Any = schedule
    else:
        items = _array(schedule, _at(path, "schedule"), "hand sizes")
        if not items:
            raise RecordError(_at(path, "schedule"), "a schedule needs at least one deal")
        sizes = []
        for index, item in enumerate(items):
            size = _integer(item)
            if size is None or not MIN_HAND_SIZE <= size <= MAX_HAND_SIZE:
                raise RecordError(
                    _at(_at(path, "schedule"), index),
                    f"a hand size is a whole number from {MIN_HAND_SIZE} to {MAX_HAND_SIZE}, "
                    f"not {_found(item)}",
                )
            sizes.append(size)
    tie = value["tie"]
    if tie not in [policy.value for policy in TiePolicy] or not isinstance(tie, str):
        raise RecordError(
            _at(path, "tie"), f"unknown tie policy {_found(tie)}: use 'draw' or 'tiebreak-deal'"
        )
    dealer = value["first_dealer"]
    if not isinstance(dealer, str) or dealer not in _SEAT_LETTERS:
        raise RecordError(
            _at(path, "first_dealer"),
            f"expected a seat letter N, E, S or W, found {_found(dealer)}",
        )
    return Rules(schedule=sizes, tie=tie, first_dealer=_SEAT_LETTERS[dealer])


def rules_to_json(rules: Rules) -> dict[str, Any]:
    """The JSON of rules: a named schedule by name, any other as its list of hand sizes."""
    return {
        "schedule": rules.schedule_name or list(rules.schedule),
        "tie": rules.tie.value,
        "first_dealer": rules.first_dealer.letter,
    }


def _deck(value: Any, path: str) -> tuple[Card, ...] | None:
    if value == "seed" and isinstance(value, str):
        return None
    if isinstance(value, str):
        raise RecordError(
            path, f"expected 'seed' or an array of {PACK_SIZE} cards, found {value!r}"
        )
    items = _array(value, path, "cards")
    if len(items) != PACK_SIZE:
        raise RecordError(path, f"a deck has {PACK_SIZE} cards; this one has {len(items)}")
    deck = tuple(_card(item, _at(path, index)) for index, item in enumerate(items))
    seen: dict[Card, int] = {}
    for index, card in enumerate(deck):
        if card in seen:
            raise RecordError(
                _at(path, index),
                f"{card.code} is in the deck twice (first at {_at(path, seen[card])})",
            )
        seen[card] = index
    return deck


def _deal(value: Any, path: str) -> RecordDeal:
    _object(value, path, _DEAL_FIELDS, ("deck", "bids", "plays"))
    deck = _deck(value["deck"], _at(path, "deck"))
    bids_path = _at(path, "bids")
    calls = []
    for index, item in enumerate(_array(value["bids"], bids_path, "bids", _MAX_BIDS)):
        if not isinstance(item, str) or not CALL_PATTERN.fullmatch(item):
            raise RecordError(
                _at(bids_path, index),
                f"unknown bid {_found(item)}: a bid is 'pass', a number such as '3', or 'board'",
            )
        calls.append(item)
    plays_path = _at(path, "plays")
    plays = tuple(
        _card(item, _at(plays_path, index))
        for index, item in enumerate(_array(value["plays"], plays_path, "cards", _MAX_PLAYS))
    )
    scores = _pair_of_ints(value["scores"], _at(path, "scores")) if "scores" in value else None
    return RecordDeal(deck, tuple(calls), plays, scores)


def _result(value: Any, path: str) -> ClaimedResult:
    _object(value, path, ("termination", "winner"), ("termination", "winner"))
    termination = value["termination"]
    if not isinstance(termination, str) or termination not in list(Termination):
        raise RecordError(
            _at(path, "termination"),
            f"expected 'score', 'draw' or 'tiebreak-deal', found {_found(termination)}",
        )
    winner = value["winner"]
    if winner is not None and (not isinstance(winner, str) or winner not in _PAIR_LABELS):
        raise RecordError(
            _at(path, "winner"), f"expected 'NS', 'EW' or null, found {_found(winner)}"
        )
    return ClaimedResult(Termination(termination), None if winner is None else _PAIR_LABELS[winner])


def parse_record(data: Any) -> Record:
    """Check plain JSON data (dicts, lists, strings, numbers) and build the Record."""
    _object(data, "", _TOP_FIELDS, ("format", "version", "rules", "seed", "deals"))
    if data["format"] != FORMAT or not isinstance(data["format"], str):
        raise RecordError("format", f"expected {FORMAT!r}, found {_found(data['format'])}")
    if _integer(data["version"]) != VERSION:
        raise RecordError(
            "version", f"this library reads version {VERSION}, found {_found(data['version'])}"
        )
    rules = rules_from_json(data["rules"])
    seed = _integer(data["seed"])
    if seed is None or not 0 <= seed <= MAX_SEED:
        raise RecordError(
            "seed", f"a seed is a whole number from 0 to 2**64 - 1, not {_found(data['seed'])}"
        )
    deals = tuple(
        _deal(item, _at("deals", index))
        for index, item in enumerate(_array(data["deals"], "deals", "deals"))
    )
    totals = _pair_of_ints(data["totals"], "totals") if "totals" in data else None
    result = _result(data["result"], "result") if "result" in data else None
    tags: list[tuple[str, str]] = []
    if "tags" in data:
        if not isinstance(data["tags"], dict):
            raise RecordError("tags", f"expected an object of texts, found {_found(data['tags'])}")
        for key, text in data["tags"].items():
            if not isinstance(text, str):
                raise RecordError(_at("tags", key), f"expected a string, found {_found(text)}")
            tags.append((key, text))
    return Record(rules, seed, deals, totals, result, tuple(tags))


# --- writing -----------------------------------------------------------------------


def record_to_json(record: Record) -> dict[str, Any]:
    """The record as plain JSON data, fields in the documented order."""
    data: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "rules": rules_to_json(record.rules),
        "seed": record.seed,
    }
    if record.tags:
        data["tags"] = dict(record.tags)
    deals = []
    for item in record.deals:
        entry: dict[str, Any] = {
            "deck": "seed" if item.deck is None else [card.code for card in item.deck],
            "bids": list(item.bids),
            "plays": [card.code for card in item.plays],
        }
        if item.scores is not None:
            entry["scores"] = list(item.scores)
        deals.append(entry)
    data["deals"] = deals
    if record.totals is not None:
        data["totals"] = list(record.totals)
    if record.result is not None:
        winner = record.result.winner
        data["result"] = {
            "termination": record.result.termination.value,
            "winner": None if winner is None else winner.label,
        }
    return data


def dumps(record: Record | dict[str, Any]) -> str:
    """Canonical JSON text: two-space indents, arrays of plain values on one line."""
    data = record_to_json(record) if isinstance(record, Record) else record
    return _pretty(data, 0) + "\n"


def _pretty(value: Any, depth: int) -> str:
    pad = "  " * (depth + 1)
    if isinstance(value, dict) and value:
        items = [
            f"{pad}{json.dumps(key)}: {_pretty(item, depth + 1)}" for key, item in value.items()
        ]
        return "{\n" + ",\n".join(items) + "\n" + "  " * depth + "}"
    if isinstance(value, list) and any(isinstance(item, dict | list) for item in value):
        items = [pad + _pretty(item, depth + 1) for item in value]
        return "[\n" + ",\n".join(items) + "\n" + "  " * depth + "]"
    return json.dumps(value, ensure_ascii=False)


def record_from_state(
    state: MatchState,
    *,
    decks: str = "auto",
    claims: bool = True,
    tags: dict[str, str] | None = None,
) -> Record:
    """The record of everything played to reach ``state`` (finished or not).

    ``decks`` is ``"auto"`` (write ``"seed"`` for a deck the seed prescribes,
    else the cards), ``"explicit"`` (always the cards) or ``"seed"`` (refuse a
    deck the seed does not give). With ``claims`` the record carries the scores,
    totals and result the library computes.
    """
    if decks not in ("auto", "explicit", "seed"):
        raise ValueError(f"decks is 'auto', 'explicit' or 'seed', not {decks!r}")
    finished = [(result.deal, result.scores) for result in state.history]
    in_progress = [] if state.deal is None else [(state.deal, None)]
    deals = []
    for deal_state, scores in (*finished, *in_progress):
        setup = deal_state.setup
        deck: tuple[Card, ...] | None = setup.deck
        if decks != "explicit" and setup.deck == seeded_deck(state.seed, setup.number):
            deck = None
        elif decks == "seed":
            raise ValueError(f"deal {setup.number + 1} was not dealt from the seed's deck")
        plays = [card for trick in deal_state.tricks for card in trick.cards]
        current = deal_state.current_trick
        if current is not None:
            plays.extend(current.cards)
        deals.append(
            RecordDeal(
                deck,
                tuple(bid.call for bid in deal_state.bids),
                tuple(plays),
                scores if claims else None,
            )
        )
    result = None
    if claims and state.outcome is not None:
        result = ClaimedResult(state.outcome.termination, state.outcome.winner)
    return Record(
        state.rules,
        state.seed,
        tuple(deals),
        state.totals if claims else None,
        result,
        tuple((tags or {}).items()),
    )


def deal_record(state: MatchState, number: int) -> Record:
    """A finished deal of a match on its own, as the record of a one-deal match.

    The rules keep the tie policy, with the deal's hand size as the whole schedule
    and its dealer as the first dealer; the deck is written card by card (the
    seed would give another deck at deal number 0) and the deal's score is
    claimed. A tiebreak deal has no bidding, which a one-deal match cannot
    reproduce, so it is refused.
    """
    if not 0 <= number < len(state.history):
        raise ValueError(f"the match has {len(state.history)} finished deals; no deal {number}")
    result = state.history[number]
    deal_state = result.deal
    setup = deal_state.setup
    if setup.tiebreak:
        raise ValueError("a tiebreak deal has no bidding and cannot stand alone as a match")
    plays = tuple(card for trick in deal_state.tricks for card in trick.cards)
    rules = Rules(schedule=[setup.hand_size], tie=state.rules.tie, first_dealer=setup.dealer)
    calls = tuple(bid.call for bid in deal_state.bids)
    return Record(
        rules,
        state.seed,
        (RecordDeal(setup.deck, calls, plays, result.scores),),
        tags=(("deal", f"deal {number + 1} of a match with seed {state.seed}"),),
    )
