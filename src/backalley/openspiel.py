"""Back Alley as an OpenSpiel game, ``python_back_alley`` (needs the ``openspiel`` extra).

Importing this module registers the game with ``pyspiel``; see ``docs/openspiel.md``.
Without OpenSpiel installed it raises :class:`~backalley._extras.MissingExtra`,
whose one-line message names the extra to install.
"""

from ._extras import require_extra

require_extra("backalley.openspiel", "openspiel", ["pyspiel", "numpy"])

# The names are listed once, in the adapter's ``__all__``; this module re-exports them.
from .adapters import openspiel as _adapter  # noqa: E402 -- only once the extra is known
from .adapters.openspiel import *  # noqa: E402, F403 -- exactly the adapter's __all__

__all__ = list(_adapter.__all__)
