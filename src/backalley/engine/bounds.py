"""The bound on a match that does not end: throw-ins in a row, and tiebreak deals.

The rules put no limit on either. Four passes throw a deal in and it is dealt
again (MATCH-3), as often as the players pass; equal totals after the schedule
call for a tiebreak deal (END-3), as often as the totals stay equal. Players
that always pass, or a rule made wrong (a Board counted as a pass), would so
play forever. Every loop that plays matches, in the library and in its tests,
asks :func:`playing` before each action: it says whether the match goes on,
and raises :class:`EndlessMatch` once a match has thrown in more than
:data:`MAX_THROW_INS_IN_A_ROW` deals in a row or played more than
:data:`MAX_TIEBREAK_DEALS` tiebreak deals, far more than any real match does
(a tenth of a second of play each). A test sets them small to see the bound hold.

>>> from backalley import Bid, Rules, apply, legal_actions, new_match
>>> state = new_match(Rules(schedule=[1]), seed=1)
>>> try:
...     while playing(state):
...         state = apply(state, legal_actions(state)[0])   # always the first: pass
... except EndlessMatch as stopped:
...     print(str(stopped).partition(":")[0])
201 deals in a row were thrown in, more than the bound of 200
"""

from __future__ import annotations

from typing import Final

from .state import MatchState

EXTRA_DEALS: Final = 8
"""The learning environments' one truncation rule: thrown-in and tiebreak deals a match may have.

Every environment (PettingZoo's and Gymnasium's ``max_extra_deals``, OpenSpiel's
game parameter of that name, the batch engine's ``spare_deals``) lets a match
deal this many deals beyond its schedule's (throw-ins, MATCH-3, and tiebreak
deals, END-3) and stops it, truncated, when it would need one more
(:func:`out_of_deals`): a match that ends has at most this many. The batch
engine holds a deck for each of them in every lane (54 bytes each), so the
number is kept small: eight leave a truncation to the rare match that throws in
deal after deal.
"""

__all__ = [
    "EXTRA_DEALS",
    "MAX_THROW_INS_IN_A_ROW",
    "MAX_TIEBREAK_DEALS",
    "EndlessMatch",
    "check_bounds",
    "out_of_deals",
    "playing",
]

# Not Final: a test sets them small (they are read at each call, compiled or not).
MAX_THROW_INS_IN_A_ROW = 200
"""Deals thrown in one after the other before a match is called endless (MATCH-3)."""

MAX_TIEBREAK_DEALS = 200
"""Tiebreak deals in one match before it is called endless (END-3)."""


class EndlessMatch(ValueError):
    """A match past a bound of :mod:`backalley.engine.bounds`: it would never end."""


def out_of_deals(state: MatchState, extra_deals: int = EXTRA_DEALS) -> bool:
    """Whether a match whose next deal is due has dealt all the deals it may.

    A match may deal its schedule's deals and ``extra_deals`` more (thrown-in and
    tiebreak deals): the batch engine's decks, one a deal. The environments truncate
    a match for which this is true (see :data:`EXTRA_DEALS`).
    """
    return len(state.history) >= state.rules.deals + extra_deals


def playing(state: MatchState) -> bool:
    """Whether the match goes on: True until it is over; :class:`EndlessMatch` past a bound.

    The bounds are looked at between deals only, so the call costs little in a loop
    that asks it before every action.
    """
    if state.is_over:
        return False
    if state.setup is None:
        check_bounds(state)
    return True


def check_bounds(state: MatchState) -> None:
    """Raise :class:`EndlessMatch` if ``state`` is past a bound; else nothing."""
    history = state.history
    throw_ins = MAX_THROW_INS_IN_A_ROW
    run = 0
    for result in reversed(history):
        if not result.thrown_in:
            break
        run += 1
    if run > throw_ins:
        raise EndlessMatch(
            f"{run} deals in a row were thrown in, more than the bound of {throw_ins}: the "
            "match would never end (the players always pass, or the throw-in rule is wrong)."
        )
    if state.counted_deals < state.rules.deals:
        return
    tiebreaks = MAX_TIEBREAK_DEALS
    played = 0
    for result in reversed(history):
        if not result.deal.setup.tiebreak:
            break
        played += 1
    if played > tiebreaks:
        raise EndlessMatch(
            f"{played} tiebreak deals were played, more than the bound of {tiebreaks}: the "
            "match would never end (the totals stay equal, or the tiebreak rule is wrong)."
        )
