"""Back Alley as an OpenSpiel game, ``python_back_alley`` (needs the ``openspiel`` extra).

Importing this module registers the game with ``pyspiel``; see ``docs/openspiel.md``.
Without OpenSpiel installed it raises :class:`~backalley._extras.MissingExtra`,
whose one-line message names the extra to install.
"""

from ._extras import require_extra

require_extra("backalley.openspiel", "openspiel", ["pyspiel", "numpy"])

from .adapters.openspiel import (  # noqa: E402 -- only once the extra is known to be there
    CHANCE_OFFSET,
    GAME_TYPE,
    PARAMETERS,
    BackAlleyGame,
    BackAlleyObserver,
    BackAlleyState,
    PlayerBot,
    chance_action,
    resample,
    resampler,
    state_from_match,
)

__all__ = [
    "CHANCE_OFFSET",
    "GAME_TYPE",
    "PARAMETERS",
    "BackAlleyGame",
    "BackAlleyObserver",
    "BackAlleyState",
    "PlayerBot",
    "chance_action",
    "resample",
    "resampler",
    "state_from_match",
]
