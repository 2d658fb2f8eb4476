"""Game records as JSON: the record's data, its reader and its writer.

The reader is ``parse_record`` (and ``loads`` for text), the writer
``record_to_json`` (and ``dumps``). The format is ``docs/records.md`` and the JSON
Schema ``schemas/record.schema.json``; :mod:`backalley.formats.records` makes records
from states.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any, Final

import attrs

from ...core.cards import PACK_SIZE, Card, Pair
from ...core.dealing import MAX_SEED
from ...core.rules import MAX_HAND_SIZE, RULES_VERSION, Rules
from ...engine.state import Termination
from ._base import RecordError, array, at, found, integer, obj, two_ints
from .values import (
    card_from_json,
    cards_of_codes,
    cards_to_json,
    claim_to_json,
    rules_from_json,
    rules_to_json,
    termination_from_json,
    winner_from_json,
)

__all__ = [
    "ClaimedResult",
    "Record",
    "RecordDeal",
    "dumps",
    "loads",
    "parse_record",
    "record_to_json",
]

FORMAT: Final = "backalley-record"
VERSION: Final = 1
MAX_RECORD_BYTES: Final = 1 << 20
"""A record larger than 1 MiB is refused unread: a whole match takes a few kilobytes."""
_MAX_BIDS: Final = 4
_MAX_PLAYS: Final = 4 * MAX_HAND_SIZE

CALL_PATTERN: Final = re.compile(r"pass|board|[1-9][0-9]?")
"""A bid as written in a record, canonical and lower case; the schema lists the same calls."""
_TOP_FIELDS: Final = (
    "format",
    "version",
    "rules_version",
    "rules",
    "seed",
    "deals",
    "totals",
    "result",
    "tags",
)
_DEAL_FIELDS: Final = ("deck", "bids", "plays", "scores")


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
    except RecordError:
        # Raised by the hooks above (a key twice, NaN): already says what is wrong.
        raise
    except ValueError:
        # Python refuses to read integers of more than 4300 digits (sys.int_info): a record
        # never needs one, so it is a bad record, not a failure of the reader.
        raise RecordError(
            "", f"a number has more than {sys.get_int_max_str_digits()} digits; no record needs one"
        ) from None
    return parse_record(data)


def _too_big() -> str:
    # A stream is cut just past the limit, so "more than the limit" is all that is certain.
    return (
        f"a record may have at most {MAX_RECORD_BYTES} bytes (1 MiB) and this input has more; "
        "a whole match takes a few kilobytes"
    )


def _deck(value: Any, path: str) -> tuple[Card, ...] | None:
    if value == "seed" and isinstance(value, str):
        return None
    if isinstance(value, str):
        raise RecordError(
            path, f"expected 'seed' or an array of {PACK_SIZE} cards, found {value!r}"
        )
    items = array(value, path, "cards")
    if len(items) != PACK_SIZE:
        raise RecordError(path, f"a deck has {PACK_SIZE} cards; this one has {len(items)}")
    deck = tuple(card_from_json(item, at(path, index)) for index, item in enumerate(items))
    seen: dict[Card, int] = {}
    for index, card in enumerate(deck):
        if card in seen:
            raise RecordError(
                at(path, index),
                f"{card.code} is in the deck twice (first at {at(path, seen[card])})",
            )
        seen[card] = index
    return deck


def _deal(value: Any, path: str) -> RecordDeal:
    obj(value, path, _DEAL_FIELDS, ("deck", "bids", "plays"))
    deck = _deck(value["deck"], at(path, "deck"))
    bids_path = at(path, "bids")
    calls = []
    for index, item in enumerate(array(value["bids"], bids_path, "bids", _MAX_BIDS)):
        if not isinstance(item, str) or not CALL_PATTERN.fullmatch(item):
            raise RecordError(
                at(bids_path, index),
                f"unknown bid {found(item)}: a bid is 'pass', a number such as '3', or 'board'",
            )
        calls.append(item)
    plays_path = at(path, "plays")
    plays = cards_of_codes(array(value["plays"], plays_path, "cards", _MAX_PLAYS), plays_path)
    scores = two_ints(value["scores"], at(path, "scores")) if "scores" in value else None
    return RecordDeal(deck, tuple(calls), plays, scores)


def _result(value: Any, path: str) -> ClaimedResult:
    obj(value, path, ("termination", "winner"), ("termination", "winner"))
    return ClaimedResult(
        termination_from_json(value["termination"], at(path, "termination")),
        winner_from_json(value["winner"], at(path, "winner")),
    )


def parse_record(data: Any) -> Record:
    """Check plain JSON data (dicts, lists, strings, numbers) and build the Record."""
    obj(data, "", _TOP_FIELDS, ("format", "version", "rules", "seed", "deals"))
    if data["format"] != FORMAT or not isinstance(data["format"], str):
        raise RecordError("format", f"expected {FORMAT!r}, found {found(data['format'])}")
    if integer(data["version"]) != VERSION:
        raise RecordError(
            "version", f"this library reads version {VERSION}, found {found(data['version'])}"
        )
    if "rules_version" in data:
        # Absent in records written before it existed: those follow version 1.
        written = integer(data["rules_version"])
        if written is None or not 1 <= written <= RULES_VERSION:
            raise RecordError(
                "rules_version",
                f"this library plays the rules of version {RULES_VERSION}, "
                f"found {found(data['rules_version'])}",
            )
    rules = rules_from_json(data["rules"])
    seed = integer(data["seed"])
    if seed is None or not 0 <= seed <= MAX_SEED:
        raise RecordError(
            "seed", f"a seed is a whole number from 0 to 2**64 - 1, not {found(data['seed'])}"
        )
    deals = tuple(
        _deal(item, at("deals", index))
        for index, item in enumerate(array(data["deals"], "deals", "deals"))
    )
    totals = two_ints(data["totals"], "totals") if "totals" in data else None
    result = _result(data["result"], "result") if "result" in data else None
    tags: list[tuple[str, str]] = []
    if "tags" in data:
        if not isinstance(data["tags"], dict):
            raise RecordError("tags", f"expected an object of texts, found {found(data['tags'])}")
        for key, text in data["tags"].items():
            if not isinstance(text, str):
                raise RecordError(at("tags", key), f"expected a string, found {found(text)}")
            tags.append((key, text))
    return Record(rules, seed, deals, totals, result, tuple(tags))


# --- writing -----------------------------------------------------------------------


def record_to_json(record: Record) -> dict[str, Any]:
    """The record as plain JSON data, fields in the documented order."""
    data: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "rules_version": RULES_VERSION,
        "rules": rules_to_json(record.rules),
        "seed": record.seed,
    }
    if record.tags:
        data["tags"] = dict(record.tags)
    deals = []
    for item in record.deals:
        entry: dict[str, Any] = {
            "deck": "seed" if item.deck is None else cards_to_json(item.deck),
            "bids": list(item.bids),
            "plays": cards_to_json(item.plays),
        }
        if item.scores is not None:
            entry["scores"] = list(item.scores)
        deals.append(entry)
    data["deals"] = deals
    if record.totals is not None:
        data["totals"] = list(record.totals)
    if record.result is not None:
        data["result"] = claim_to_json(record.result.termination, record.result.winner)
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
