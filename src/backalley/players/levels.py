"""The computer players by level: the names a person weighs, weakest first.

A person choosing an opponent cannot weigh "heuristic" against "Monte Carlo";
they can weigh Beginner against Expert. :data:`LEVELS` names each computer
player of :data:`backalley.players.PLAYER_KINDS` that is offered as a level, in
the order the strength ladder (``benchmarks/ladder.py``, its table in
``docs/players.md``) ranks them, weakest first. The table (``backalley.web``)
seats its computers from this registry, and the ladder labels its rows with it,
so a new player joins both by one entry here (and its kind in ``PLAYER_KINDS``).

>>> [level.name for level in LEVELS]
['Beginner', 'Steady', 'Strong', 'Expert']
>>> level_named("steady").kind
'heuristic'
>>> level_of_kind("search").name
'Expert'
"""

from __future__ import annotations

from typing import Final

import attrs

from . import PLAYER_KINDS
from .driver import Player

__all__ = ["LEVELS", "Level", "UnknownLevel", "level_named", "level_of_kind"]


@attrs.frozen
class Level:
    """One level of computer player: its name, the player kind behind it, and in words."""

    name: str
    """What a person reads: ``Beginner``, ``Steady``, ``Strong``, ``Expert``."""
    kind: str
    """The player kind (a key of :data:`backalley.players.PLAYER_KINDS`)."""
    description: str
    """One sentence on how it plays."""
    slow: bool = False
    """Whether it thinks long enough (a sampled search) to need a worker process at a table."""

    def make(self) -> Player:
        """A new player of this level."""
        return PLAYER_KINDS[self.kind]()


LEVELS: Final[tuple[Level, ...]] = (
    Level("Beginner", "random", "Plays any legal bid or card, at random."),
    Level(
        "Steady",
        "heuristic",
        "Counts its hand card by card, bids for its side and plays its cheapest winning card.",
    ),
    Level(
        "Strong",
        "montecarlo",
        "Samples the hidden hands and plays each choice out to the end of the deal.",
        slow=True,
    ),
    Level(
        "Expert",
        "search",
        "Samples twice as many deals and solves the last tricks exactly.",
        slow=True,
    ),
)
"""The levels, weakest first, as the strength ladder ranks them (``docs/players.md``)."""


class UnknownLevel(ValueError):
    """A level or player kind that is not in :data:`LEVELS`."""


def level_named(name: str) -> Level:
    """The level called ``name`` (any case), or :class:`UnknownLevel` saying which exist."""
    for level in LEVELS:
        if level.name.lower() == name.lower():
            return level
    known = ", ".join(level.name for level in LEVELS)
    raise UnknownLevel(f"there is no computer level {name!r}; the levels are {known}")


def level_of_kind(kind: str) -> Level:
    """The level whose player kind is ``kind``, or :class:`UnknownLevel` saying which exist."""
    for level in LEVELS:
        if level.kind == kind:
            return level
    known = ", ".join(level.kind for level in LEVELS)
    raise UnknownLevel(f"no computer level plays as {kind!r}; the kinds are {known}")
