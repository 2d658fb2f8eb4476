"""Fill the Tests column of docs/rules.md from the ``@pytest.mark.rule`` markers in tests/.

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
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES_PAGE = ROOT / "docs" / "rules.md"
TESTS_DIR = ROOT / "tests"
RULE_ID = re.compile(r"^[A-Z]+-\d+$")
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


def rule_ids(page: str) -> list[str]:
    """The rule IDs of the page's tables, in page order."""
    return [cells[0] for cells, _ in _rule_rows(page)]


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
        elif tests_column is not None and RULE_ID.match(cells[0]):
            if len(cells) <= tests_column:
                raise ValueError(f"rule row {cells[0]} has no Tests cell: {line!r}")
            rows.append((cells, tests_column))
    return rows


def tests_by_rule(found: dict[str, list[str]]) -> dict[str, list[str]]:
    """The tests citing each rule ID, sorted."""
    cited: dict[str, list[str]] = defaultdict(list)
    for test, ids in found.items():
        for rule in dict.fromkeys(ids):
            cited[rule].append(test)
    return {rule: sorted(tests) for rule, tests in cited.items()}


def render(page: str, found: dict[str, list[str]]) -> str:
    """The page with every rule row's Tests cell listing the tests that cite it."""
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
        if "Tests" in cells:
            tests_column = cells.index("Tests")
        elif tests_column is not None and RULE_ID.match(cells[0]):
            tests = cited.get(cells[0], [])
            cells[tests_column] = SEPARATOR.join(f"`{test}`" for test in tests)
            body = "| " + " | ".join(cells) + " |"
            out.append(body.replace("  |", " |") + ("\n" if line.endswith("\n") else ""))
            continue
        out.append(line)
    return "".join(out)


def problems(page: str, found: dict[str, list[str]]) -> list[str]:
    """Rules without a test and tests citing unknown rules, as sentences."""
    known = set(rule_ids(page))
    cited = tests_by_rule(found)
    messages = [
        f"rule {rule} has no test carrying its marker"
        for rule in rule_ids(page)
        if rule not in cited
    ]
    messages += [
        f"{test} cites {rule}, which docs/rules.md does not define"
        for test, ids in sorted(found.items())
        for rule in ids
        if rule not in known
    ]
    return messages


def main(argv: list[str] | None = None) -> int:
    """Rewrite the Tests column, or with ``--check`` report whether it is stale."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the column is stale")
    args = parser.parse_args(argv)
    page = RULES_PAGE.read_text(encoding="utf-8")
    found = markers()
    for message in problems(page, found):
        print(f"warning: {message}", file=sys.stderr)
    updated = render(page, found)
    if args.check:
        if updated != page:
            print("docs/rules.md: the Tests column is out of date; run scripts/rule_table.py")
            return 1
        return 0
    if updated != page:
        RULES_PAGE.write_text(updated, encoding="utf-8")
        print("docs/rules.md: Tests column updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
