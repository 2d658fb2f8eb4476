"""The import layering of ``src/backalley``: a module imports only from its own part or below.

The rule is the table ``LAYERS`` (drawn in ``docs/architecture.md``): each row is
one layer, lowest first, and a part (a package, or a module at the top of
``backalley``) may import itself and any part of a *lower* row; never a part of
its own row or above. Every import counts, lazy ones inside functions and
``TYPE_CHECKING`` ones included. A new package or top-level module must be given
a row here, or this test says so.

Below the parts, the modules themselves: no import circle among them (lazy imports
and the packages an import runs included), and every lazy import is listed in
``LAZY`` with the reason it waits.
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
    # 3. Formats: notation, JSON, records, checking, perft; the double-dummy solver.
    ("formats", "solver"),
    # 4. Users of the engine and formats: pictures, players, test strategies.
    ("pictures", "players", "strategies"),
    # 5. Bridges to other programs: protocol, framework adapters, cluster, the web table.
    ("protocol", "adapters", "cluster", "web"),
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


def _targets(module: str, path: Path, node: ast.Import | ast.ImportFrom) -> set[str]:
    """The backalley modules one import statement of ``module`` names."""
    if isinstance(node, ast.Import):
        imported = {alias.name for alias in node.names}
    else:
        is_package = path.name == "__init__.py"
        package = module if is_package else module.rpartition(".")[0]
        if node.level:
            base = package.split(".")[: len(package.split(".")) - node.level + 1]
            target = ".".join(base + ([node.module] if node.module else []))
        else:
            target = node.module or ""
        # ``from . import x`` and ``from .pkg import mod`` may name modules.
        imported = {target, *(f"{target}.{alias.name}" for alias in node.names)}
    # ``from x import name`` names a module or an attribute: keep the modules.
    return {name for name in imported if name == "backalley" or name in MODULE_NAMES}


def _statements(path: Path) -> list[tuple[ast.Import | ast.ImportFrom, str]]:
    """Each import statement of a file and when it runs: ``load``, ``lazy`` or ``never``.

    ``lazy``: inside a function; ``never``: under ``if TYPE_CHECKING:`` (for mypy only).
    """
    tree = ast.parse(path.read_text(encoding="utf-8"))
    when: dict[int, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            when.update((id(inner), "lazy") for inner in ast.walk(node))
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            when.update((id(inner), "never") for inner in ast.walk(node))
    return [
        (node, when.get(id(node), "load"))
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
    ]


def _imports(module: str, path: Path, *, running: bool = False) -> set[str]:
    """The backalley modules that ``module`` imports (only those that run, if ``running``)."""
    return {
        target
        for node, when in _statements(path)
        if not (running and when == "never")
        for target in _targets(module, path, node)
    }


def _lazy_imports(module: str, path: Path) -> set[str]:
    """The backalley modules that ``module`` imports inside a function."""
    return {
        target
        for node, when in _statements(path)
        if when == "lazy"
        for target in _targets(module, path, node)
    }


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


LAZY: dict[tuple[str, str], str] = {
    # The package registers the pictures and the view's JSON with the engine (see
    # docs/architecture.md); they load when first used, so ``import backalley`` stays light.
    ("backalley", "backalley.pictures.svg"): "a state's picture, drawn in a notebook",
    ("backalley", "backalley.formats.serialize"): "a seat view's to_dict and from_dict",
    # `backalley table` needs the web extra: the command checks for it first, so that
    # without it the user reads one line naming the extra, and the other commands never
    # import the table's server.
    ("backalley.cli.table", "backalley.web.app"): "the table's server (the web extra)",
    ("backalley.cli.table", "backalley.web.rooms"): "the table's rooms, with its server",
    ("backalley.cli.table", "backalley.web.store"): "the table's database, with its server",
    ("backalley.cli.table", "backalley.web.logs"): "the server's log lines, with its server",
    # The trained player needs NumPy (the learned extra): the players' package and its
    # names load without it.
    ("backalley.players", "backalley.players.learned"): "the trained player (NumPy)",
}
"""Every lazy import of one backalley module by another, and why it waits."""


def test_every_lazy_import_is_counted() -> None:
    """The lazy imports in ``src`` are exactly those of ``LAZY``: none added unseen."""
    found = {
        (module, target)
        for module, path in MODULES
        for target in _lazy_imports(module, path)
        if target != "backalley"
    }
    assert found == set(LAZY), (
        f"lazy imports not in LAZY: {sorted(found - set(LAZY))}; "
        f"listed but gone: {sorted(set(LAZY) - found)}"
    )


def _runs(importer: str, target: str) -> set[str]:
    """The modules importing ``target`` from ``importer`` runs: it and its packages.

    ``import a.b.c`` runs ``a`` and ``a.b`` first, except the packages that hold
    ``importer`` (they are already running).
    """
    names = target.split(".")
    ran = {".".join(names[:length]) for length in range(1, len(names) + 1)}
    parts = importer.split(".")
    holding = {".".join(parts[:length]) for length in range(1, len(parts) + 1)}
    return {name for name in ran - holding if name in MODULE_NAMES}


def import_graph() -> dict[str, set[str]]:
    """Each module and the modules its imports run (lazy ones included)."""
    return {
        module: {
            ran
            for target in _imports(module, path, running=True)
            if target != "backalley"
            for ran in _runs(module, target)
        }
        for module, path in MODULES
    }


def find_circle(graph: dict[str, set[str]]) -> list[str] | None:
    """An import circle of ``graph`` (its modules in order, the first repeated), or None."""
    done: set[str] = set()
    for start in sorted(graph):
        if start in done:
            continue
        path = [start]
        branches = [iter(sorted(graph[start]))]
        while branches:
            step = next(branches[-1], None)
            if step is None:
                done.add(path.pop())
                branches.pop()
            elif step in path:
                return [*path[path.index(step) :], step]
            elif step not in done and step in graph:
                path.append(step)
                branches.append(iter(sorted(graph[step])))
    return None


def test_no_import_circle() -> None:
    """No module imports, lazily or not, one that imports it back, however far round."""
    circle = find_circle(import_graph())
    assert circle is None, f"import circle: {' -> '.join(circle)}"


def test_the_circle_finder_finds_a_circle() -> None:
    """The check itself: a circle three modules round is found, a tree is not."""
    assert find_circle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert find_circle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_a_submodule_import_runs_its_packages() -> None:
    """Importing ``formats.codec.values`` from outside the codec runs ``formats.codec`` too."""
    runs = _runs("backalley.formats.checking", "backalley.formats.codec.values")
    assert runs == {"backalley.formats.codec", "backalley.formats.codec.values"}
    assert _runs("backalley.formats.codec.state", "backalley.formats.codec.values") == {
        "backalley.formats.codec.values"
    }


def test_the_package_shows_only_its_public_names() -> None:
    """``dir(backalley)`` is ``__all__`` and the dunders: no helper or import leaks."""
    import backalley  # noqa: PLC0415 -- the package under test, imported where it is judged

    dunders = {name for name in vars(backalley) if name.startswith("__") and name.endswith("__")}
    assert dir(backalley) == sorted({*backalley.__all__, *dunders})
    assert "SeatView" not in dir(backalley) and "Mapping" not in dir(backalley)
