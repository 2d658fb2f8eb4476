"""The batch engine: thousands of matches stepped together as numpy arrays.

Needs the ``batch`` extra (numpy): ``pip install 'backalley[batch]'``; without it,
importing this package raises :class:`~backalley._extras.MissingExtra`, whose one-line
message names the extra. See ``docs/batch.md`` and :mod:`backalley.batch.engine`.
"""

from .._extras import require_extra

require_extra("backalley.batch", "batch", ["numpy"])

from .engine import (  # noqa: E402 -- only once the extra is known to be there
    ACCEPTED,
    BID,
    DEAL,
    NO_ACTION,
    OVER,
    PLAY,
    REASON_CODES,
    Batch,
    StepResult,
    reason_code,
    reasons,
)

__all__ = [
    "ACCEPTED",
    "BID",
    "DEAL",
    "NO_ACTION",
    "OVER",
    "PLAY",
    "REASON_CODES",
    "Batch",
    "StepResult",
    "reason_code",
    "reasons",
]
