"""The reader's ground floor: errors that say where, JSON paths, and the plain JSON shapes.

Every value's reader (:mod:`.values`, :mod:`.record`, :mod:`.state`, :mod:`.view`) is
built from these, so a path is written one way (``deals[3].plays[17]``) and a
shape refused with one sentence wherever it is read.
"""

from __future__ import annotations

import json
import math
from decimal import Decimal
from typing import Any, Final

__all__ = [
    "RecordError",
    "SerializeError",
    "array",
    "at",
    "found",
    "integer",
    "obj",
    "two_ints",
    "whole",
]


class RecordError(ValueError):
    """Input that is not a valid record: bad JSON, a missing field, an unknown card.

    ``path`` locates the problem in the JSON value (``deals[3].plays[17]``; empty
    for the whole input) and ``message`` says what is wrong.
    """

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path
        self.message = message


class SerializeError(RecordError):
    """JSON data that does not describe a value of the asked kind; ``path`` says where."""


def at(path: str, key: str | int) -> str:
    """The JSON path of ``key`` inside ``path``: ``deals[3]``, ``deals[3].plays``."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


_KIND_NAMES: Final = {
    dict: "an object",
    list: "an array",
    str: "a string",
    bool: "true or false",
    int: "a number",
    float: "a number",
    Decimal: "a number",
    type(None): "null",
}


def found(value: Any) -> str:
    """What a JSON value is, for a message: ``a string ("7")``, ``an array``."""
    if isinstance(value, Decimal):
        text = str(value)  # as written: the protocol server reads fractions exactly
    else:
        text = json.dumps(value) if isinstance(value, str | int | float | bool | None) else ""
    kind = _KIND_NAMES.get(type(value), type(value).__name__)
    return f"{kind} ({text[:40]})" if text else kind


_HUGE: Final = 10**40
"""Stands for any whole number of more than 40 digits: out of every range read here."""


def integer(value: Any) -> int | None:
    """The value as a JSON Schema integer (``3``, ``3.0`` or ``3e0``, never ``true``), else None.

    JSON Schema counts a number with a zero fraction as an integer, so every
    reader takes it as the whole number it writes. A reader that parses
    fractions as :class:`~decimal.Decimal` (the protocol server) has them exactly;
    a whole number written with an exponent too large to be a count or a seed
    (``1e999999999``) stands as ``10**40``, out of range, rather than being
    written out digit by digit.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    if isinstance(value, Decimal) and value.is_finite():
        if value.adjusted() >= 40:
            return _HUGE if value > 0 else -_HUGE
        if value == value.to_integral_value():
            return int(value)
    return None


def whole(value: Any, path: str) -> int:
    """A whole number (a JSON Schema integer), else a :class:`RecordError` at ``path``."""
    number = integer(value)
    if number is None:
        raise RecordError(path, f"expected a whole number, found {found(value)}")
    return number


def obj(
    value: Any,
    path: str,
    fields: tuple[str, ...],
    required: tuple[str, ...],
    *,
    closed: bool = True,
) -> dict[str, Any]:
    """An object with the ``required`` fields (and, if ``closed``, no others than ``fields``)."""
    if not isinstance(value, dict):
        raise RecordError(path, f"expected an object, found {found(value)}")
    if closed:
        for key in value:
            if key not in fields:
                raise RecordError(
                    at(path, key), f"unknown field {key!r}; known: {', '.join(fields)}"
                )
    for key in required:
        if key not in value:
            raise RecordError(path, f"the field {key!r} is missing")
    return value


def array(value: Any, path: str, what: str, most: int | None = None) -> list[Any]:
    """An array (of at most ``most`` items of ``what``), else a :class:`RecordError` at ``path``."""
    if not isinstance(value, list):
        raise RecordError(path, f"expected an array of {what}, found {found(value)}")
    if most is not None and len(value) > most:
        raise RecordError(path, f"at most {most} {what}, found {len(value)}")
    return value


def two_ints(value: Any, path: str) -> tuple[int, int]:
    """Two whole numbers, North-South's then East-West's (scores, totals, tricks)."""
    items = array(value, path, "scores (North-South, East-West)")
    if len(items) != 2:
        raise RecordError(path, f"expected two scores (North-South, East-West), found {len(items)}")
    return (whole(items[0], at(path, 0)), whole(items[1], at(path, 1)))
