"""Match settings: the schedule of hand sizes, the tie policy and the first dealer.

Schedules (``docs/rules.md`` SCHED-1 to SCHED-4):

- ``standard`` (the default; ``000`` §02, ``001``): 13, 12, ..., 2, 1, 1, 2, ..., 13,
  26 deals;
- ``twenty-five`` (``002``, ``000`` §07): 13, ..., 2, 1, 2, ..., 13, one one-card deal;
- ``short`` (``001``): 7, ..., 1, 1, ..., 7, 14 deals;
- any other non-empty sequence of hand sizes from 1 to 13.

A hand size runs from 1 to 13: four hands, the turned card and the card that
replaces a joker after a turned joker must fit in 54 cards (4 x 13 + 2 = 54).

Ties (``docs/rules.md`` END-2, END-3): ``draw`` (default, ``000`` §05) or
``tiebreak-deal`` (``001``): one more deal without bidding decides.

>>> Rules().schedule_name, len(Rules().schedule)
('standard', 26)
>>> Rules(schedule="short", tie="tiebreak-deal").schedule[:3]
(7, 6, 5)
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Set
from typing import Any, Final

import attrs

from .cards import Seat, to_seat

__all__ = [
    "MAX_HAND_SIZE",
    "MIN_HAND_SIZE",
    "RULES_VERSION",
    "SCHEDULES",
    "Rules",
    "TiePolicy",
    "named_schedule",
    "to_hand_size",
    "to_schedule",
    "to_tie_policy",
]

MIN_HAND_SIZE: Final = 1
MAX_HAND_SIZE: Final = 13

RULES_VERSION: Final = 1
"""The version of the rules this library plays (``docs/rules.md`` and its rulings).

Raised whenever a rule or ruling changes what is legal or how a deal scores, so
that a game record, and an engine's ``hello``, say which rules they follow.
Game records carry it as ``rules_version``; a record without one was written
before it existed and is read as version 1.
"""
"""4 hands of 13, the turned card and one replacement card use all 54 cards."""


def _down_and_up(top: int, *, ones: int) -> tuple[int, ...]:
    """``top`` down to 1, then back up to ``top``, with one or two one-card deals."""
    return tuple(range(top, 0, -1)) + tuple(range(3 - ones, top + 1))


SCHEDULES: Final[dict[str, tuple[int, ...]]] = {
    "standard": _down_and_up(13, ones=2),
    "twenty-five": _down_and_up(13, ones=1),
    "short": _down_and_up(7, ones=2),
}
"""The named schedules: hand size of each counted deal, in order."""


class TiePolicy(enum.StrEnum):
    """What equal totals after the last deal mean."""

    DRAW = "draw"
    """The match is drawn (``000`` §05, the default)."""
    TIEBREAK_DEAL = "tiebreak-deal"
    """One more deal without bidding; the pair taking more tricks wins (``001``)."""


def named_schedule(name: str) -> tuple[int, ...]:
    """The hand sizes of the schedule called exactly ``name`` (SCHED-4), else a ValueError."""
    try:
        return SCHEDULES[name]
    except KeyError:
        names = ", ".join(SCHEDULES)
        raise ValueError(
            f"unknown schedule {name!r}: use one of {names} or a list of hand sizes"
        ) from None


def to_hand_size(size: Any) -> int:
    """A hand size: a whole number from 1 to 13 (SCHED-4), else a TypeError or ValueError."""
    if not isinstance(size, int) or isinstance(size, bool):
        raise TypeError(f"a hand size is a whole number, not {size!r}")
    if not MIN_HAND_SIZE <= size <= MAX_HAND_SIZE:
        raise ValueError(
            f"hand size {size} is impossible: hand sizes run from {MIN_HAND_SIZE} to "
            f"{MAX_HAND_SIZE} (four hands, the turned card and a replacement fit in 54 cards)"
        )
    return size


def to_schedule(value: Any) -> tuple[int, ...]:
    """A schedule: a name in any case and spacing, or a non-empty list of hand sizes (SCHED-4).

    The one check of a schedule: :class:`Rules` converts with it, and the JSON reader
    calls it and :func:`named_schedule` and :func:`to_hand_size` to say where the bad
    value is.
    """
    if isinstance(value, str):
        # A name is read in any case and spacing; the refusal quotes it as written.
        return SCHEDULES.get(value.strip().lower()) or named_schedule(value)
    if isinstance(value, bytes | Set | Mapping) or not isinstance(value, Iterable):
        raise TypeError(f"a schedule is a name or a list of hand sizes in order, not {value!r}")
    sizes = tuple(map(to_hand_size, value))
    if not sizes:
        raise ValueError("a schedule needs at least one deal")
    return sizes


def to_tie_policy(value: Any) -> TiePolicy:
    """A tie policy from its value, ``draw`` or ``tiebreak-deal`` (END-2), else an error."""
    if not isinstance(value, str):
        raise TypeError(f"a tie policy is 'draw' or 'tiebreak-deal', not {value!r}")
    try:
        return TiePolicy(value)
    except ValueError:
        raise ValueError(f"unknown tie policy {value!r}: use 'draw' or 'tiebreak-deal'") from None


@attrs.frozen
class Rules:
    """The settings of a match.

    ``schedule`` is a schedule name or the hand sizes of the counted deals;
    ``tie`` the :class:`TiePolicy`; ``first_dealer`` who deals the first deal
    (a match setting, ``000`` §02; North unless chosen).
    """

    schedule: tuple[int, ...] = attrs.field(default="standard", converter=to_schedule)
    tie: TiePolicy = attrs.field(default=TiePolicy.DRAW, converter=to_tie_policy)
    first_dealer: Seat = attrs.field(default=Seat.NORTH, converter=to_seat)

    @property
    def schedule_name(self) -> str | None:
        """The schedule's name if it is a named one, else None."""
        for name, sizes in SCHEDULES.items():
            if sizes == self.schedule:
                return name
        return None

    @property
    def largest_hand(self) -> int:
        """The schedule's largest hand size: the size of a tiebreak deal."""
        return max(self.schedule)

    @property
    def deals(self) -> int:
        """How many counted deals the schedule has."""
        return len(self.schedule)
