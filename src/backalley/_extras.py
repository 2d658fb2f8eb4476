"""Optional extras: the one-line error a feature gives when its extra is not installed.

The core needs only attrs. The framework adapters need their frameworks, which
are installed as extras (``pip install 'backalley[openspiel]'``). Importing such
a feature without its extra raises :class:`MissingExtra`, an ``ImportError``
whose message is one sentence naming the command that installs it; the command
line prints that sentence alone.

>>> try:
...     require_extra("backalley.example", "example", ["surely_no_such_module_here"])
... except MissingExtra as missing:
...     print(missing)
backalley.example needs the 'example' extra: pip install 'backalley[example]'
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable

__all__ = ["MissingExtra", "require_extra"]


class MissingExtra(ImportError):
    """A feature whose optional extra is not installed; the message names the extra."""

    def __init__(self, feature: str, extra: str) -> None:
        super().__init__(f"{feature} needs the {extra!r} extra: pip install 'backalley[{extra}]'")
        self.feature = feature
        self.extra = extra


def require_extra(feature: str, extra: str, modules: Iterable[str]) -> None:
    """Raise :class:`MissingExtra` unless every one of ``modules`` can be imported."""
    for module in modules:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            raise MissingExtra(feature, extra)
