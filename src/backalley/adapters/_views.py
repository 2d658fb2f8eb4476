"""Seat views for the adapters, with the finished deals' views kept between calls.

:func:`backalley.engine.view.view` makes the views of the finished deals when
they are read; an observation reads them all (for the totals and the count of
deals played), so late in a 26-deal match it would make some twenty of them for
every action. Within a deal the finished deals do not change, so their views
are kept, found by the value of the finished deals (:class:`Kept`), and only
the deal in progress is looked at afresh; the encoder keeps the sums the same
way. The result equals ``view(state, seat)``; the adapters' tests check it at
every step.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Sequence
from typing import Final, Generic, Protocol, TypeVar

from ..core.cards import Seat
from ..engine.state import DealResult, MatchState
from ..engine.view import DealView, SeatView, view

__all__ = ["Kept", "seat_view"]

_V = TypeVar("_V")


class _Finished(Protocol):
    @property
    def scores(self) -> tuple[int, int] | None: ...


class Kept(Generic[_V]):
    """What was made from a match's finished deals, for the last ``size`` histories.

    The one home of the adapters' speed trick (an observation late in a match
    would otherwise cost what twenty finished deals cost to view). A history is
    found by its value, not by its identity: by a short key (``tag``, how many
    deals, the last deal's scores), then by ``==`` with the history kept. Python
    compares a tuple's identical items without calling ``__eq__``, so the states
    of one deal, which share their finished deals, are matched at the cost of a
    pointer comparison a deal; an equal history held by other objects is matched
    too, at the cost of comparing the deals. Two histories with the same key
    take turns in one place (a miss, never a wrong value).
    """

    def __init__(self, size: int) -> None:
        self._size = size
        self._kept: OrderedDict[Hashable, tuple[tuple[_Finished, ...], _V]] = OrderedDict()

    def get(self, history: tuple[_Finished, ...], tag: Hashable = None) -> _V | None:
        """The value kept for a history equal to ``history`` (and ``tag``), or None."""
        key = tag, len(history), history[-1].scores if history else None
        found = self._kept.get(key)
        if found is None or found[0] != history:
            return None
        self._kept.move_to_end(key)
        return found[1]

    def put(self, history: tuple[_Finished, ...], value: _V, tag: Hashable = None) -> None:
        """Keep ``value`` for ``history``, forgetting the least recently used beyond ``size``."""
        key = tag, len(history), history[-1].scores if history else None
        self._kept[key] = (history, value)
        self._kept.move_to_end(key)
        if len(self._kept) > self._size:
            self._kept.popitem(last=False)


_HISTORY_VIEWS: Final[Kept[tuple[Sequence[DealView], ...]]] = Kept(64)
"""The four seats' views of recent histories (a search visits few at a time)."""


def _history_views(
    history: tuple[DealResult, ...], state: MatchState
) -> tuple[Sequence[DealView], ...]:
    """The four seats' views of the finished deals of ``history``."""
    seed = state.seed
    views = _HISTORY_VIEWS.get(history, seed)
    if views is None:
        bare = MatchState(state.position, seed, history)
        views = tuple(tuple(view(bare, seat).history) for seat in Seat)
        _HISTORY_VIEWS.put(history, views, seed)
    return views


def seat_view(state: MatchState, seat: Seat) -> SeatView:
    """``view(state, seat)``, reusing the views of the finished deals."""
    history = state.history
    if not history:
        return view(state, seat)
    # The deal in progress as the seat sees it; then the kept history put in.
    recent = view(state, seat)
    return SeatView(
        seat=recent.seat,
        rules=recent.rules,
        hand=recent.hand,
        deal=recent.deal,
        history=_history_views(history, state)[seat],
        outcome=recent.outcome,
    )
