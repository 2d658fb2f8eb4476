"""The flat module paths of backalley 0.1, kept working after the move into layers.

Before the layout by layers (``core``, ``engine``, ``formats``, ``pictures``,
``players``), every module sat directly in ``backalley``: ``backalley.cards``,
``backalley.match``, ``backalley.records`` and so on, and programs import them
by those names. A finder on ``sys.meta_path`` answers each old name with the
module that now holds it (the same module object, so ``backalley.cards is
backalley.core.cards``), and ``backalley.<old name>`` works as an attribute.
New code should import from ``backalley`` itself or from the layered paths.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from types import ModuleType
from typing import Final

MOVED: Final[dict[str, str]] = {
    "cards": "backalley.core.cards",
    "actions": "backalley.core.actions",
    "rules": "backalley.core.rules",
    "errors": "backalley.core.errors",
    "dealing": "backalley.core.dealing",
    "bidding": "backalley.core.bidding",
    "tricks": "backalley.core.tricks",
    "jokers": "backalley.core.jokers",
    "scoring": "backalley.core.scoring",
    "state": "backalley.engine.state",
    "match": "backalley.engine.match",
    "view": "backalley.engine.view",
    "examples": "backalley.engine.examples",
    "notation": "backalley.formats.notation",
    "serialize": "backalley.formats.serialize",
    "records": "backalley.formats.records",
    "checking": "backalley.formats.checking",
    "perft": "backalley.formats.perft",
    "text": "backalley.pictures.text",
    "svg": "backalley.pictures.svg",
    "simulation": "backalley.players.simulation",
}
"""Each old module name (under ``backalley``) and the module that holds it now."""


class _AliasLoader(importlib.abc.Loader):
    """Loads an old name as the module that now holds it, without running it twice."""

    def __init__(self, target: str) -> None:
        self._target = target
        self._own_spec: importlib.machinery.ModuleSpec | None = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module = importlib.import_module(self._target)
        self._own_spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run; give the module back its own spec."""
        # The import machinery labels the module that create_module returned with
        # the old name's spec; the module must keep its own.
        module.__spec__ = self._own_spec


class _MovedModuleFinder(importlib.abc.MetaPathFinder):
    """Finds ``backalley.<old name>`` for every name in :data:`MOVED`."""

    def find_spec(
        self,
        fullname: str,
        path: object = None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        package, _, name = fullname.rpartition(".")
        if package != "backalley" or name not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(MOVED[name]))


def install() -> None:
    """Put the finder on ``sys.meta_path`` once."""
    if not any(isinstance(finder, _MovedModuleFinder) for finder in sys.meta_path):
        sys.meta_path.append(_MovedModuleFinder())


def moved_module(name: str) -> ModuleType:
    """The module an old name stands for; ``AttributeError`` for any other name."""
    if name not in MOVED:
        raise AttributeError(f"module 'backalley' has no attribute {name!r}")
    return importlib.import_module(f"backalley.{name}")
