"""Seat views for the adapters, with the finished deals' views kept between calls.

:func:`backalley.engine.view.view` makes the views of the finished deals when
they are read; an observation reads them all (for the totals and the count of
deals played), so late in a 26-deal match it would make some twenty of them for
every action. Within a deal the finished deals do not change (successive states
share one history tuple), so their views are kept, keyed by that tuple, and
only the deal in progress is looked at afresh; the encoder keeps the sums by
the same tuple. The result equals ``view(state, seat)``; the adapters' tests
check it at every step.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from typing import Final

from ..core.cards import Seat
from ..engine.state import DealResult, MatchCore, MatchState
from ..engine.view import DealView, SeatView, view

__all__ = ["seat_view"]

_KEEP: Final = 64
"""How many histories to remember (a search visits few at a time)."""

_histories: OrderedDict[int, tuple[tuple[DealResult, ...], tuple[Sequence[DealView], ...]]]
_histories = OrderedDict()


def _history_views(
    history: tuple[DealResult, ...], state: MatchState
) -> tuple[Sequence[DealView], ...]:
    """The four seats' views of the finished deals of ``history``."""
    key = id(history)
    found = _histories.get(key)
    # The tuple itself is kept with its views, so its id cannot be reused while remembered.
    if found is not None and found[0] is history:
        _histories.move_to_end(key)
        return found[1]
    bare = MatchState(state.core, None)
    views = tuple(tuple(view(bare, seat).history) for seat in Seat)
    _histories[key] = (history, views)
    if len(_histories) > _KEEP:
        _histories.popitem(last=False)
    return views


def seat_view(state: MatchState, seat: Seat) -> SeatView:
    """``view(state, seat)``, reusing the views of the finished deals."""
    core = state.core
    history = core.history
    if not history:
        return view(state, seat)
    # The deal in progress, seen without the history; then the kept history put back.
    recent = view(
        MatchState(MatchCore(core.rules, core.seed, (), core.outcome, core.counted), state.deal),
        seat,
    )
    return SeatView(
        seat=recent.seat,
        rules=recent.rules,
        hand=recent.hand,
        deal=recent.deal,
        history=_history_views(history, state)[seat],
        outcome=recent.outcome,
    )
