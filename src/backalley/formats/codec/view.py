"""The JSON of a seat's view (:class:`~backalley.engine.view.SeatView`), format 1.

Cards are codes such as ``"AS"`` and ``"BIG"``, seats ``"N"``, pairs ``"NS"``,
bids ``"pass"``, ``"3"`` or ``"board"``. The keys ``phase``, ``to_move`` and
``totals`` are derived, for readers' convenience; the reader checks that they
agree. The rules are written with the schedule as its hand sizes, always.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ...engine.view import DealView, SeatView
from ._base import RecordError, array, at, obj, two_ints, whole
from .values import (
    call_bid_from_json,
    card_from_json,
    cards_from_json,
    cards_to_json,
    outcome_from_json,
    outcome_to_json,
    rules_from_json,
    rules_to_json,
    seat_from_json,
    swap_from_json,
    swap_to_json,
    trick_from_json,
    trick_to_json,
)

__all__ = ["VIEW_FORMAT", "deal_to_json", "view_from_json", "view_to_json"]

VIEW_FORMAT: Final = 1
"""Version of the view's JSON, written as ``"format"``; bumped on incompatible change."""

_VIEW_FIELDS: Final = ("format", "seat", "rules", "hand", "deal", "history", "outcome")
_VIEW_DERIVED: Final = ("phase", "to_move", "totals")
"""Keys the writer adds for readers' convenience; the reader checks them against the rest."""
_DEAL_FIELDS: Final = (
    *("number", "dealer", "hand_size", "turned", "tiebreak", "bids"),
    *("leader", "trick", "tricks", "swap", "scores"),
)


def view_to_json(
    seen: SeatView, *, history: bool = True, totals: tuple[int, int] | None = None
) -> dict[str, Any]:
    """The view as plain JSON-ready data, with the canonical text codes.

    ``history=False`` leaves the finished deals out (``"history"`` is ``None``), for a
    writer that keeps their JSON from one view to the next (:func:`deal_to_json` each);
    such a writer may pass the running ``totals`` it keeps too (they are summed over the
    finished deals, as :attr:`~backalley.engine.view.SeatView.totals`).
    """
    outcome = seen.outcome
    to_move = seen.to_move
    return {
        "format": VIEW_FORMAT,
        "seat": seen.seat.letter,
        "rules": rules_to_json(seen.rules, by_name=False),
        "phase": seen.phase.value,
        "to_move": None if to_move is None else to_move.letter,
        "hand": cards_to_json(seen.hand),
        "deal": None if seen.deal is None else _deal_to_json(seen.deal),
        "history": [_deal_to_json(deal) for deal in seen.history] if history else None,
        "totals": list(seen.totals if totals is None else totals),
        "outcome": None if outcome is None else outcome_to_json(outcome),
    }


def deal_to_json(deal: DealView) -> dict[str, Any]:
    """One deal of a view (current or finished) as JSON-ready data."""
    return _deal_to_json(deal)


def _deal_to_json(deal: DealView) -> dict[str, Any]:
    return {
        "number": deal.number,
        "dealer": deal.dealer.letter,
        "hand_size": deal.hand_size,
        "turned": deal.turned.code,
        "trump": None if deal.trump is None else deal.trump.letter,
        "trump_words": deal.trump_words,
        "tiebreak": deal.tiebreak,
        "bids": [{"seat": bid.seat.letter, "bid": bid.call} for bid in deal.bids],
        "leader": None if deal.leader is None else deal.leader.letter,
        "trick": cards_to_json(deal.trick),
        "tricks": [trick_to_json(trick) for trick in deal.tricks],
        "swap": swap_to_json(deal.swap),
        "scores": None if deal.scores is None else list(deal.scores),
    }


def view_from_json(data: Mapping[str, Any], path: str = "") -> SeatView:
    """Read a view written by :func:`view_to_json`; RecordError says what is wrong, where."""
    data = dict(data) if isinstance(data, Mapping) else data
    fields = obj(data, path, (*_VIEW_FIELDS, *_VIEW_DERIVED), _VIEW_FIELDS)
    if fields["format"] != VIEW_FORMAT:
        raise RecordError(
            at(path, "format"),
            f"unknown view format {fields['format']!r}; expected {VIEW_FORMAT}",
        )
    outcome = fields["outcome"]
    history = array(fields["history"], at(path, "history"), "deals")
    result = SeatView(
        seat=seat_from_json(fields["seat"], at(path, "seat"), any_spelling=True),
        rules=rules_from_json(fields["rules"], at(path, "rules")),
        hand=cards_from_json(fields["hand"], at(path, "hand"), any_spelling=True),
        deal=None if fields["deal"] is None else _deal_from_json(fields["deal"], at(path, "deal")),
        history=tuple(
            _deal_from_json(deal, at(at(path, "history"), index))
            for index, deal in enumerate(history)
        ),
        outcome=None if outcome is None else outcome_from_json(outcome, at(path, "outcome")),
    )
    written = view_to_json(result)
    for key in _VIEW_DERIVED:
        if fields.get(key) != written[key]:
            raise RecordError(
                at(path, key),
                f"the view's {key!r} is {fields.get(key)!r}, but its deals give {written[key]!r}",
            )
    return result


def _deal_from_json(data: Any, path: str) -> DealView:
    fields = obj(data, path, (*_DEAL_FIELDS, "trump", "trump_words"), _DEAL_FIELDS)
    leader = fields["leader"]
    bids = []
    for index, item in enumerate(array(fields["bids"], at(path, "bids"), "bids")):
        where = at(at(path, "bids"), index)
        said = obj(item, where, ("seat", "bid"), ("seat", "bid"))
        seat = seat_from_json(said["seat"], at(where, "seat"), any_spelling=True)
        bids.append(call_bid_from_json(seat, said["bid"], at(where, "bid")))
    tricks = array(fields["tricks"], at(path, "tricks"), "tricks")
    scores = fields["scores"]

    def seat_at(key: str) -> Any:
        return seat_from_json(fields[key], at(path, key), any_spelling=True)

    deal = DealView(
        number=whole(fields["number"], at(path, "number")),
        dealer=seat_at("dealer"),
        hand_size=whole(fields["hand_size"], at(path, "hand_size")),
        turned=card_from_json(fields["turned"], at(path, "turned"), any_spelling=True),
        tiebreak=bool(fields["tiebreak"]),
        bids=tuple(bids),
        leader=None if leader is None else seat_at("leader"),
        trick=cards_from_json(fields["trick"], at(path, "trick"), any_spelling=True),
        tricks=tuple(
            trick_from_json(trick, at(at(path, "tricks"), index))
            for index, trick in enumerate(tricks)
        ),
        swap=swap_from_json(fields["swap"], at(path, "swap")),
        scores=None if scores is None else two_ints(scores, at(path, "scores")),
    )
    trump = fields.get("trump")
    if trump != (None if deal.trump is None else deal.trump.letter):
        raise RecordError(
            at(path, "trump"), f"deal {deal.number}: trump {trump!r} does not match the turned card"
        )
    return deal
