"""Optional extras: the one-line error a feature gives when its extra is not installed.

The core needs only attrs. The framework adapters need their frameworks, which
are installed as extras (``pip install 'backalley[openspiel]'``). Importing such
a feature without its extra raises :class:`MissingExtra`, an ``ImportError``
whose message is one sentence naming the commands that install it, from the
package index and from a clone of the repository (where ``backalley`` is not
the name of anything pip can find); the command line prints that sentence alone.

>>> try:
...     require_extra("backalley.example", "example", ["surely_no_such_module_here"])
... except MissingExtra as missing:
...     print(missing.feature, "needs", missing.extra)
backalley.example needs example
>>> print(install_command("web"))
pip install 'backalley[web]' (in a clone of the repository: pip install -e '.[web]')
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable

__all__ = ["MissingExtra", "install_command", "require_extra"]


def install_command(extra: str) -> str:
    """The commands installing ``extra``: from the package index, and in a clone.

    In a clone, ``pip install 'backalley[web]'`` would look for the package on the
    index instead of the checkout at hand, so the editable install of ``.`` is named too.
    """
    return (
        f"pip install 'backalley[{extra}]' "
        f"(in a clone of the repository: pip install -e '.[{extra}]')"
    )


class MissingExtra(ImportError):
    """A feature whose optional extra is not installed; the message names the extra."""

    def __init__(self, feature: str, extra: str) -> None:
        super().__init__(f"{feature} needs the {extra!r} extra: {install_command(extra)}")
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
