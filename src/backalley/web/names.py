"""The names people see at the table: the computer players' levels, and the players' own names.

:data:`LEVELS` is the one mapping from a computer player (as the library names it,
``backalley.players.PLAYER_KINDS``) to the name a player reads in the lobby, at the
seat and in the host's buttons, weakest first: reorder or rename it here and every
page follows. A person's name is their own choice, kept by their browser and sent in
each ``hello`` (or a ``name`` message): :func:`clean_name` makes it one short line of
text (at most :data:`MAX_NAME` characters, no control characters), and the pages
write it as text, never as HTML.

>>> [level.name for level in LEVELS.values()]
['Beginner', 'Steady', 'Strong', 'Expert']
>>> clean_name("  Ann" + chr(10) + "<b>Lee</b>  ")
'Ann <b>Lee</b>'
>>> clean_name("x" * 40) == "x" * MAX_NAME
True
"""

from __future__ import annotations

import unicodedata
from typing import Final

import attrs

from ..players import levels

__all__ = ["LEVELS", "MAX_NAME", "PLAY_NOW", "Level", "clean_name", "level_name"]


@attrs.frozen
class Level:
    """A computer player as players see it: a name, and a few words on how it plays."""

    name: str
    about: str


LEVELS: Final = {
    level.kind: Level(level.name, level.description.rstrip(".")) for level in levels.LEVELS
}
"""The computer players a room may seat, weakest first, by the names players read
(:data:`backalley.players.levels.LEVELS`, ordered by the strength ladder)."""

PLAY_NOW: Final = "heuristic"
"""The level of the lobby's first button, Play now: Steady, the level most people
enjoy first (the Beginner plays at random)."""

MAX_NAME: Final = 24
"""The longest name a person may give themselves, in characters."""


def level_name(player: str | None) -> str | None:
    """The level's name for a computer player (``heuristic`` -> ``Steady``), or None."""
    return None if player is None or player not in LEVELS else LEVELS[player].name


def clean_name(text: str) -> str:
    """A person's name as the table keeps it: one line, spaces collapsed, at most 24 characters.

    Control and format characters (new lines, bidi overrides) are dropped, so that a
    name can neither break a line of chat nor turn the text around it; the rest is
    kept as typed (the pages write it as text).
    """
    kept = "".join(
        " " if char.isspace() else char
        for char in text
        if char.isspace() or unicodedata.category(char)[0] != "C"
    )
    return " ".join(kept.split())[:MAX_NAME].strip()
