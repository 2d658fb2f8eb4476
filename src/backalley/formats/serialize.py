"""JSON for every value of the library, in one place: ``to_json(value)`` and ``from_json``.

``to_json`` gives plain JSON data (dicts, lists, strings, numbers, None) and
``from_json(kind, data)`` rebuilds an equal value; ``kind`` is one of
:data:`KINDS`. Cards are codes (``"10H"``), seats letters, pairs ``NS``/``EW``,
bids calls (``"pass"``, ``"3"``, ``"board"``), actions the notation (``"N 3"``,
``"S AS"``; a deal is ``{"deal": [54 card codes]}``).

>>> from backalley import Rules, new_match, apply, legal_actions
>>> state = new_match(Rules(schedule="short"), seed=11)
>>> for _ in range(7):
...     state = apply(state, legal_actions(state)[0])
>>> data = to_json(state)
>>> data["snapshot"]["phase"], data["snapshot"]["to_move"], data["snapshot"]["bids"]
('bid', 'W', ['pass'])
>>> from_json("match_state", data) == state
True
>>> from backalley import Contract
>>> to_json(Contract(0, 2)), from_json("action", "w board")
({'target': 0, 'multiplier': 2}, Bid(W, board))

The pieces are in :mod:`backalley.formats.codec`: the small values
(:mod:`~backalley.formats.codec.values`), records (:mod:`~backalley.formats.codec.record`),
states (:mod:`~backalley.formats.codec.state`) and seat views
(:mod:`~backalley.formats.codec.view`); this module gathers them under one pair of names.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, Final

from ..core.actions import Bid, Deal, Play
from ..core.bidding import Contract
from ..core.cards import Card, Pair, Seat, Suit
from ..core.rules import Rules
from ..core.tricks import Trick
from ..engine.state import DealResult, MatchState, Outcome
from ..engine.view import SeatView
from .codec._base import RecordError, SerializeError
from .codec.record import Record, record_to_json
from .codec.state import (
    deal_result_from_json,
    deal_result_to_json,
    snapshot,
    state_from_json,
    state_to_json,
)
from .codec.values import (
    action_from_json,
    action_to_json,
    bid_from_json,
    card_from_json,
    contract_from_json,
    contract_to_json,
    deal_from_json,
    outcome_from_json,
    outcome_to_json,
    pair_from_json,
    play_from_json,
    rules_from_json,
    rules_to_json,
    seat_from_json,
    suit_from_json,
    trick_from_json,
    trick_to_json,
)
from .codec.view import view_from_json, view_to_json

__all__ = ["KINDS", "RecordError", "SerializeError", "from_json", "snapshot", "to_json"]

_READERS: Final[dict[str, Callable[[Any, str], Any]]] = {
    # A value asked for by kind may be spelled any way the notation reads (``as``, ``n``).
    "card": partial(card_from_json, any_spelling=True),
    "seat": partial(seat_from_json, any_spelling=True),
    "suit": suit_from_json,
    "pair": pair_from_json,
    "rules": lambda data, path: rules_from_json(data, path or "rules"),
    "bid": bid_from_json,
    "play": play_from_json,
    "deal": deal_from_json,
    "action": action_from_json,
    "contract": contract_from_json,
    "trick": trick_from_json,
    "outcome": outcome_from_json,
    "deal_result": deal_result_from_json,
    "match_state": state_from_json,
    "seat_view": view_from_json,
}

KINDS: Final = tuple(_READERS)
"""The kinds ``from_json`` reads."""

_WRITERS: Final[dict[type, Callable[[Any], Any]]] = {
    Rules: rules_to_json,
    Contract: contract_to_json,
    Trick: trick_to_json,
    Outcome: outcome_to_json,
    DealResult: deal_result_to_json,
    MatchState: state_to_json,
    SeatView: view_to_json,
    Record: record_to_json,
}


def to_json(value: Any) -> Any:
    """Plain JSON data for any value of the library.

    Cards, seats, suits, pairs, rules, actions, contracts, tricks, outcomes, deal
    results, match states, seat views and records; anything else is a TypeError.
    """
    if isinstance(value, Card):
        return value.code
    if isinstance(value, Seat | Suit):
        return value.letter
    if isinstance(value, Pair):
        return value.label
    if isinstance(value, Bid | Play | Deal):
        return action_to_json(value)
    writer = _WRITERS.get(type(value))
    if writer is None:
        raise TypeError(f"no JSON form for {type(value).__name__}")
    return writer(value)


def from_json(kind: str, data: Any) -> Any:
    """Rebuild a value of ``kind`` (one of :data:`KINDS`) from its JSON data.

    Bad data raises :class:`SerializeError` (a ``ValueError`` and a
    :class:`RecordError`) naming the path of the bad value.
    """
    reader = _READERS.get(kind)
    if reader is None:
        raise ValueError(f"unknown kind {kind!r}: one of {', '.join(KINDS)}")
    try:
        return reader(data, "")
    except RecordError as error:
        # The readers raise the one error of the codec; a value asked for by kind is
        # refused as the subclass that names it, at the same path.
        raise SerializeError(error.path, error.message) from None
