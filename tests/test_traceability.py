"""Every rule of docs/rules.md has a test, every test cites real rules, and the table says so."""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load_rule_table():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("rule_table", ROOT / "scripts" / "rule_table.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["rule_table"] = module
    spec.loader.exec_module(module)
    return module


rule_table = _load_rule_table()
PAGE = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")


def test_every_rule_has_a_test_and_every_cited_rule_exists() -> None:
    """No rule ID of docs/rules.md lacks a marked test, and no marker cites an unknown ID."""
    assert rule_table.rule_ids(PAGE), "docs/rules.md lists no rules"
    assert rule_table.problems(PAGE, rule_table.markers()) == []


def test_the_tests_column_is_up_to_date() -> None:
    """The Tests column equals what scripts/rule_table.py would write: it cannot rot."""
    assert rule_table.render(PAGE, rule_table.markers()) == PAGE, (
        "run `python scripts/rule_table.py` to refresh the Tests column of docs/rules.md"
    )


def test_problems_names_missing_and_unknown_rules() -> None:
    """The checker reports a rule without tests and a test citing an unknown rule."""
    found = {"test_x.py::test_a": ["NOPE-1"]}
    messages = rule_table.problems(PAGE, found)
    assert any("NOPE-1" in message for message in messages)
    assert any("TABLE-1 has no test" in message for message in messages)


def test_render_only_touches_the_tests_column() -> None:
    """Rewriting the column leaves every other cell and line as it was."""
    rendered = rule_table.render(PAGE, {"test_x.py::test_a": ["CARD-1"]})
    before, after = PAGE.splitlines(), rendered.splitlines()
    assert len(before) == len(after)
    for old, new in zip(before, after, strict=True):
        if old != new:
            assert old.split("|")[:-2] == new.split("|")[:-2]
        if new.startswith("| CARD-1 |"):
            assert new.split("|")[-2].strip() == "`test_x.py::test_a`"


def test_markers_must_be_literal_ids(tmp_path: Path) -> None:
    """A marker whose ID is not a string literal is an error, never silently skipped."""
    (tmp_path / "test_bad.py").write_text(
        "import pytest\nRULE = 'CARD-1'\n@pytest.mark.rule(RULE)\ndef test_x():\n    pass\n"
    )
    with pytest.raises(rule_table.MarkerError):
        rule_table.markers(tmp_path)


def test_markers_are_read_from_functions_classes_and_modules(tmp_path: Path) -> None:
    """Function, class and module-level ``pytestmark`` markers are all found."""
    (tmp_path / "test_ok.py").write_text(
        "import pytest\n"
        "pytestmark = [pytest.mark.rule('CARD-1')]\n"
        "@pytest.mark.rule('PLAY-1', 'PLAY-2')\ndef test_f():\n    pass\n"
        "@pytest.mark.rule('END-1')\nclass TestC:\n    pass\n"
    )
    assert rule_table.markers(tmp_path) == {
        "test_ok.py": ["CARD-1"],
        "test_ok.py::test_f": ["PLAY-1", "PLAY-2"],
        "test_ok.py::TestC": ["END-1"],
    }
    ast.parse((tmp_path / "test_ok.py").read_text())
