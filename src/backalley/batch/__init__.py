"""The batch engine: thousands of matches stepped together, compiled with JAX.

Needs the ``batch`` extra (JAX): ``pip install 'backalley[batch]'``; without it,
importing this package raises :class:`~backalley._extras.MissingExtra`, whose one-line
message names the extra. See ``docs/batch.md`` and :mod:`backalley.batch.engine`.
"""

from .._extras import require_extra

require_extra("backalley.batch", "batch", ["jax", "numpy"])

# The names are listed once, in the engine's ``__all__``; the package re-exports them.
from . import engine as _engine  # noqa: E402 -- only once the extra is known to be there
from ._cache import use_compilation_cache  # noqa: E402
from .engine import *  # noqa: E402, F403 -- exactly the engine's __all__

# Compiled programs are kept on disk between processes (``_cache`` says when not).
use_compilation_cache()

__all__ = list(_engine.__all__)
