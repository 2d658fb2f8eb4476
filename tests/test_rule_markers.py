"""The promise of docs/rules.md: every rule has a test, and every test cites real rule IDs.

A test names the rules it checks with ``@pytest.mark.rule("ID", ...)`` (or a
module-wide ``pytestmark``). The markers are read from the test sources, so the
check needs no test to run first.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
RULES_PAGE = TESTS.parent / "docs" / "rules.md"
ROW = re.compile(r"^\| ([A-Z]+-\d+) \|", re.MULTILINE)


def rule_ids() -> set[str]:
    """The IDs of docs/rules.md: the first cell of each table row."""
    return set(ROW.findall(RULES_PAGE.read_text(encoding="utf-8")))


def _is_rule_marker(node: ast.expr) -> bool:
    """Whether ``node`` is ``pytest.mark.rule``."""
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "rule"
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "mark"
    )


def cited_ids() -> dict[str, set[str]]:
    """Each rule ID cited by a ``rule`` marker in tests/, with the files citing it."""
    cited: dict[str, set[str]] = {}
    for path in sorted(TESTS.glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _is_rule_marker(node.func):
                for arg in node.args:
                    assert isinstance(arg, ast.Constant) and isinstance(arg.value, str), (
                        f"{path.name}:{node.lineno}: rule IDs are written as string literals"
                    )
                    cited.setdefault(arg.value, set()).add(path.name)
    return cited


@pytest.mark.rule()  # about the rules page as a whole, not one rule
def test_rules_page_lists_ids_once() -> None:
    """docs/rules.md names each rule ID in exactly one row."""
    ids = ROW.findall(RULES_PAGE.read_text(encoding="utf-8"))
    assert ids, "docs/rules.md has no rule rows"
    assert len(ids) == len(set(ids))


@pytest.mark.rule()  # about the rules page as a whole, not one rule
def test_every_cited_rule_id_exists() -> None:
    """No test cites a rule ID that docs/rules.md does not have."""
    unknown = {rule: files for rule, files in cited_ids().items() if rule not in rule_ids()}
    assert not unknown, f"rule markers citing IDs not in docs/rules.md: {unknown}"


@pytest.mark.rule()  # about the rules page as a whole, not one rule
def test_every_rule_has_a_test() -> None:
    """Every rule ID of docs/rules.md is cited by at least one test."""
    missing = sorted(rule_ids() - set(cited_ids()))
    assert not missing, f"rules with no test citing them: {missing}"
