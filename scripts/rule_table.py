"""Fill the Tests column of docs/traceability.md from the ``@pytest.mark.rule`` markers.

The rules of the game are defined by docs/rules.md, one heading per rule
(``### PLAY-4 · ... { #PLAY-4 }``); the library's own promises (``ENGINE-1`` ...) by
docs/engine.md, in the same form. docs/traceability.md has one row per rule, in the
rules page's order, then, in a group of its own, one row per promise, in the promises
page's order: each with the names that enforce it and the tests that check it.

Usage, from the repository root::

    python scripts/rule_table.py           # rewrite the Tests column in place
    python scripts/rule_table.py --check   # exit 1 if the column is out of date

Markers are found by reading the test files' syntax trees, not by running
pytest, so the answer does not depend on which tests a run selects. A marker
with no IDs (a test about the rules page itself) cites nothing; a marker
on a class counts for the class; ``pytestmark = pytest.mark.rule(...)`` counts
for the module. Rule IDs must be written as string literals: anything else is
an error, so no marker is silently missed. Only the Tests column is rewritten;
every other cell of the page is left as it is.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES_PAGE = ROOT / "docs" / "rules.md"
PROMISES_PAGE = ROOT / "docs" / "engine.md"
TRACE_PAGE = ROOT / "docs" / "traceability.md"
TESTS_DIR = ROOT / "tests"
RULE_HEADING = re.compile(r"^### ([A-Z]+-\d+) · .+ \{ #\1 \}$", re.MULTILINE)
"""A rule of the rules page: its heading, whose anchor is its ID."""
PROMISE_PREFIX = "ENGINE-"
"""The IDs of the library's promises, which docs/engine.md defines and docs/rules.md must not."""
RULE_CELL = re.compile(r"^\[([A-Z]+-\d+)\]\(((?:rules|engine)\.md)#\1\)$")
"""A row of the traceability page: its first cell links to the rule (or promise)."""
SEPARATOR = "<br>"


class MarkerError(ValueError):
    """A rule marker the scanner cannot read (an ID that is not a string literal)."""


def _is_rule_mark(node: ast.expr) -> bool:
    """Whether ``node`` is ``pytest.mark.rule(...)`` (or ``mark.rule(...)``)."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "rule"
        and isinstance(func.value, ast.Attribute)
        and func.value.attr == "mark"
    )


def _ids(call: ast.Call, where: str) -> list[str]:
    ids = []
    for arg in call.args:
        if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
            raise MarkerError(f"{where}: rule IDs must be string literals, not {ast.unparse(arg)}")
        ids.append(arg.value)
    return ids


def markers(tests_dir: Path = TESTS_DIR) -> dict[str, list[str]]:
    """Each test (``file.py::name``) and the rule IDs its markers cite, in the order cited."""
    found: dict[str, list[str]] = {}
    for path in sorted(tests_dir.glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets
            ):
                marks = node.value.elts if isinstance(node.value, ast.List) else [node.value]
                for mark in marks:
                    if _is_rule_mark(mark):
                        assert isinstance(mark, ast.Call)
                        ids = _ids(mark, path.name)
                        if ids:
                            found.setdefault(path.name, []).extend(ids)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = f"{path.name}::{node.name}"
                for decorator in node.decorator_list:
                    if _is_rule_mark(decorator):
                        assert isinstance(decorator, ast.Call)
                        # An empty marker (a test about the page itself) cites nothing.
                        ids = _ids(decorator, name)
                        if ids:
                            found.setdefault(name, []).extend(ids)
    return found


def rule_ids(rules_page: str) -> list[str]:
    """The rule IDs the rules page (or the promises page) defines, in page order."""
    return RULE_HEADING.findall(rules_page)


def trace_ids(trace_page: str) -> list[str]:
    """The rule IDs of the traceability table's rows, in page order."""
    return [_rule_of(cells) or "" for cells, _ in _rule_rows(trace_page)]


def trace_links(trace_page: str) -> list[tuple[str, str]]:
    """Each row's rule ID and the page its first cell links to, in page order."""
    links = []
    for cells, _ in _rule_rows(trace_page):
        found = RULE_CELL.match(cells[0])
        assert found is not None
        links.append((found.group(1), found.group(2)))
    return links


def _rule_of(cells: list[str]) -> str | None:
    found = RULE_CELL.match(cells[0])
    return found.group(1) if found else None


def _rule_rows(page: str) -> list[tuple[list[str], int]]:
    """Each rule row's cells and the index of its Tests column."""
    rows = []
    tests_column = None
    for line in page.splitlines():
        if not line.startswith("|"):
            tests_column = None
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if "Tests" in cells:
            tests_column = cells.index("Tests")
        elif tests_column is not None and _rule_of(cells):
            if len(cells) <= tests_column:
                raise ValueError(f"rule row {cells[0]} has no Tests cell: {line!r}")
            rows.append((cells, tests_column))
    return rows


def enforced_names(trace_page: str) -> dict[str, list[str]]:
    """The names of each row's "Enforced in" cell (the backquoted ones)."""
    return {
        _rule_of(cells) or "": re.findall(r"`([^`]+)`", cells[1])
        for cells, _ in _rule_rows(trace_page)
    }


def missing_name(name: str) -> str | None:
    """Why ``name`` (``core.tricks.allowed_plays``, under ``backalley``) names nothing, or None."""
    parts = name.split(".")
    for split in range(len(parts), 0, -1):
        module_name = "backalley." + ".".join(parts[:split])
        try:
            found: object = importlib.import_module(module_name)
        except ImportError:
            continue
        for index, part in enumerate(parts[split:], split):
            if not hasattr(found, part):
                return f"{'.'.join(parts[:index])} has no {part!r}"
            found = getattr(found, part)
        return None
    return f"no module backalley.{parts[0]}"


def tests_by_rule(found: dict[str, list[str]]) -> dict[str, list[str]]:
    """The tests citing each rule ID, sorted."""
    cited: dict[str, list[str]] = defaultdict(list)
    for test, ids in found.items():
        for rule in dict.fromkeys(ids):
            cited[rule].append(test)
    return {rule: sorted(tests) for rule, tests in cited.items()}


def render(page: str, found: dict[str, list[str]]) -> str:
    """The traceability page with every rule row's Tests cell listing the tests citing it."""
    cited = tests_by_rule(found)
    out = []
    tests_column = None
    for line in page.splitlines(keepends=True):
        body = line.rstrip("\n")
        if not body.startswith("|"):
            tests_column = None
            out.append(line)
            continue
        cells = [cell.strip() for cell in body.strip().strip("|").split("|")]
        rule = _rule_of(cells)
        if "Tests" in cells:
            tests_column = cells.index("Tests")
        elif tests_column is not None and rule:
            tests = cited.get(rule, [])
            cells[tests_column] = SEPARATOR.join(f"`{test}`" for test in tests)
            body = "| " + " | ".join(cells) + " |"
            out.append(body.replace("  |", " |") + ("\n" if line.endswith("\n") else ""))
            continue
        out.append(line)
    return "".join(out)


def problems(
    rules_page: str, trace_page: str, found: dict[str, list[str]], promises_page: str
) -> list[str]:
    """What is stale, as sentences.

    Rules (and promises) without a row, a test or an existing name, tests citing
    unknown rules, and a promise on the rules page or a rule on the promises page.
    """
    game = rule_ids(rules_page)
    promises = rule_ids(promises_page)
    ids = game + promises
    known = set(ids)
    cited = tests_by_rule(found)
    messages = [
        f"docs/rules.md defines {rule}, a promise of the library: it belongs on docs/engine.md"
        for rule in game
        if rule.startswith(PROMISE_PREFIX)
    ]
    messages += [
        f"docs/engine.md defines {rule}, which is not a promise ({PROMISE_PREFIX}n)"
        for rule in promises
        if not rule.startswith(PROMISE_PREFIX)
    ]
    expected = [(rule, "rules.md") for rule in game] + [(rule, "engine.md") for rule in promises]
    links = trace_links(trace_page)
    rows = [rule for rule, _ in links]
    if rows != ids:
        messages.append(
            "docs/traceability.md's rows are not the rules of docs/rules.md then the promises "
            f"of docs/engine.md, in order: missing {sorted(known - set(rows))}, "
            f"unknown {sorted(set(rows) - known)}"
        )
    elif links != expected:
        messages += [
            f"docs/traceability.md's row {rule} links to {page}, not {want}"
            for (rule, page), (_, want) in zip(links, expected, strict=True)
            if page != want
        ]
    for rule, names in enforced_names(trace_page).items():
        if not names:
            messages.append(f"rule {rule} names nothing that enforces it")
        for name in names:
            why = missing_name(name)
            if why is not None:
                messages.append(f"rule {rule} is enforced in {name}, which does not exist: {why}")
    messages += [
        f"rule {rule} has no test carrying its marker" for rule in ids if rule not in cited
    ]
    messages += [
        f"{test} cites {rule}, which neither docs/rules.md nor docs/engine.md defines"
        for test, ids_ in sorted(found.items())
        for rule in ids_
        if rule not in known
    ]
    return messages


def main(argv: list[str] | None = None) -> int:
    """Rewrite the Tests column, or with ``--check`` report whether it is stale."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the column is stale")
    args = parser.parse_args(argv)
    rules_page = RULES_PAGE.read_text(encoding="utf-8")
    promises_page = PROMISES_PAGE.read_text(encoding="utf-8")
    page = TRACE_PAGE.read_text(encoding="utf-8")
    found = markers()
    for message in problems(rules_page, page, found, promises_page):
        print(f"warning: {message}", file=sys.stderr)
    updated = render(page, found)
    if args.check:
        if updated != page:
            print("docs/traceability.md: the Tests column is stale; run scripts/rule_table.py")
            return 1
        return 0
    if updated != page:
        TRACE_PAGE.write_text(updated, encoding="utf-8")
        print("docs/traceability.md: Tests column updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
