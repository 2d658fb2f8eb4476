"""Back Alley as a PettingZoo environment and a Gymnasium one (needs the ``pettingzoo`` extra).

``backalley.pettingzoo.env()`` is the AEC environment; :class:`SeatEnv` trains one
seat against given players. See ``docs/pettingzoo.md``. Without PettingZoo and
Gymnasium installed, importing this module raises
:class:`~backalley._extras.MissingExtra`, whose one-line message names the extra.
"""

from ._extras import require_extra

require_extra("backalley.pettingzoo", "pettingzoo", ["pettingzoo", "gymnasium", "numpy"])

from .adapters import pettingzoo as _adapter  # noqa: E402 -- only once the extra is known
from .adapters.pettingzoo import *  # noqa: E402, F403 -- exactly the adapter's __all__

__all__ = list(_adapter.__all__)
