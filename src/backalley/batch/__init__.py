"""The batch engine: thousands of matches stepped together as numpy arrays.

Needs the ``batch`` extra (numpy): ``pip install 'backalley[batch]'``. See
``docs/batch.md`` and :mod:`backalley.batch.engine`.
"""

try:
    import numpy  # noqa: F401 -- only to say which extra is missing
except ModuleNotFoundError:  # pragma: no cover - the message is tested without numpy
    raise ModuleNotFoundError(
        "backalley.batch needs numpy: install the extra with pip install 'backalley[batch]'"
    ) from None

from .engine import (
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
