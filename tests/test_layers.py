"""The import layering of ``src/backalley``: a module imports only from its own part or below.

The rule is the table ``LAYERS`` (drawn in ``docs/architecture.md``): each row is
one layer, lowest first, and a part (a package, or a module at the top of
``backalley``) may import itself and any part of a *lower* row; never a part of
its own row or above. Every import counts, lazy ones inside functions and
``TYPE_CHECKING`` ones included. A new package or top-level module must be given
a row here, or this test says so.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "backalley"

LAYERS: tuple[tuple[str, ...], ...] = (
    # 0. Helpers that import nothing of backalley.
    ("_extras",),
    # 1. The rules core: cards, actions, rules, flow, dealing, bidding, tricks, scoring.
    ("core",),
    # 2. The engine: states, apply and legal_actions, the seat view.
    ("engine",),
    # 3. Formats: notation, JSON, records, checking, perft.
    ("formats",),
    # 4. Users of the engine and formats: pictures, players, test strategies.
    ("pictures", "players", "strategies"),
    # 5. Bridges to other programs: protocol, framework adapters, cluster.
    ("protocol", "adapters", "cluster"),
    # 6. Users of the adapters: their short import paths (``backalley.openspiel``,
    #    ``backalley.pettingzoo``) and the batch engine (it vectorizes the adapters'
    #    observation encoding, whose field table it reads).
    ("openspiel", "pettingzoo", "batch"),
    # 7. The command line.
    ("cli",),
    # 8. The package itself (the public names, the notebook pictures it registers) and
    #    ``python -m backalley``.
    ("__init__", "__main__"),
)
"""Each row one layer, lowest first; a part may import only its own part and lower rows."""

RANK = {part: row for row, parts in enumerate(LAYERS) for part in parts}


def _part(module: str) -> str:
    """The part a dotted module name (``backalley.engine.state``) belongs to."""
    names = module.split(".")
    return "__init__" if len(names) == 1 else names[1]


def _modules() -> list[tuple[str, Path]]:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        relative = path.relative_to(SRC.parent).with_suffix("")
        names = list(relative.parts)
        if names[-1] == "__init__" and len(names) > 1:
            names.pop()
        found.append((".".join(names), path))
    return found


def _imports(module: str, path: Path) -> set[str]:
    """The backalley modules that ``module`` imports (absolute dotted names)."""
    is_package = path.name == "__init__.py"
    package = module if is_package else module.rpartition(".")[0]
    imported = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            # ``from . import x`` and ``from .pkg import mod`` may name modules.
            imported.add(target)
            imported.update(f"{target}.{alias.name}" for alias in node.names)
    # ``from x import name`` names a module or an attribute: keep the modules.
    return {name for name in imported if name == "backalley" or name in MODULE_NAMES}


MODULES = _modules()
MODULE_NAMES = frozenset(module for module, _ in MODULES)


def test_every_part_has_a_layer() -> None:
    """A new package or top-level module needs a row in LAYERS."""
    unplaced = sorted({_part(module) for module, _ in MODULES} - RANK.keys())
    assert not unplaced, f"give these a row in tests/test_layers.py LAYERS: {unplaced}"


@pytest.mark.parametrize(("module", "path"), MODULES, ids=[module for module, _ in MODULES])
def test_imports_go_down_the_layers(module: str, path: Path) -> None:
    """Each import goes to the module's own part or to a lower layer."""
    part = _part(module)
    if part not in RANK:
        pytest.skip("not placed yet (see test_every_part_has_a_layer)")
    wrong = []
    for target in sorted(_imports(module, path)):
        other = _part(target)
        if target == "backalley":
            # The package itself: Python runs its __init__ before any submodule anyway,
            # and ``from .. import name`` is judged by the name (``backalley.name``).
            continue
        if other != part and RANK.get(other, len(LAYERS)) >= RANK[part]:
            wrong.append(f"{target} (layer {RANK.get(other, '?')}: {other})")
    assert not wrong, f"{module} (layer {RANK[part]}: {part}) imports upward or sideways: {wrong}"


def test_the_checker_sees_an_upward_import(tmp_path: Path) -> None:
    """The check itself: a lazy upward import inside a function is found."""
    source = tmp_path / "state.py"
    source.write_text("def f():\n    from ..pictures import svg\n    return svg\n")
    assert _imports("backalley.engine.state", source) == {
        "backalley.pictures",
        "backalley.pictures.svg",
    }
    package = tmp_path / "__init__.py"
    package.write_text("from .state import X\nfrom .. import cli\nimport backalley.players\n")
    assert _imports("backalley.engine", package) == {
        "backalley",
        "backalley.cli",
        "backalley.engine.state",
        "backalley.players",
    }


def test_the_engine_does_not_import_the_pictures() -> None:
    """The one import circle of old (state -> pictures.svg for notebooks) is gone."""
    for module, path in MODULES:
        if _part(module) in {"core", "engine"}:
            assert not any(_part(t) == "pictures" for t in _imports(module, path)), module
