"""The batch engine: thousands of matches stepped together, compiled with JAX.

Needs the ``batch`` extra (JAX): ``pip install 'backalley[batch]'``; without it,
importing this package raises :class:`~backalley._extras.MissingExtra`, whose one-line
message names the extra. See ``docs/batch.md`` and :mod:`backalley.batch.engine`.
"""

from .._extras import require_extra

require_extra("backalley.batch", "batch", ["jax", "numpy"])

from .engine import (  # noqa: E402 -- only once the extra is known to be there
    ACCEPTED,
    BID,
    DEAL,
    NO_ACTION,
    NOT_AN_ACTION,
    OVER,
    PLAY,
    REASON_CODES,
    Env,
    State,
    reason_code,
    reasons,
    sample_legal,
)

__all__ = [
    "ACCEPTED",
    "BID",
    "DEAL",
    "NOT_AN_ACTION",
    "NO_ACTION",
    "OVER",
    "PLAY",
    "REASON_CODES",
    "Env",
    "State",
    "reason_code",
    "reasons",
    "sample_legal",
]
