"""Every rule of docs/rules.md and every promise of docs/engine.md has a row on
docs/traceability.md naming code that exists and tests that cite it; every test cites real
rules; the rules page reads as rules, and holds no promise of the library."""

from __future__ import annotations

import ast
import importlib.util
import re
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
RULES = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
PROMISES = (ROOT / "docs" / "engine.md").read_text(encoding="utf-8")
PAGE = (ROOT / "docs" / "traceability.md").read_text(encoding="utf-8")


def test_every_rule_has_a_test_and_every_cited_rule_exists() -> None:
    """No rule ID of docs/rules.md lacks a marked test, and no marker cites an unknown ID."""
    assert rule_table.rule_ids(RULES), "docs/rules.md lists no rules"
    assert rule_table.rule_ids(PROMISES), "docs/engine.md lists no promises"
    assert rule_table.problems(RULES, PAGE, rule_table.markers(), PROMISES) == []


def test_the_rules_page_holds_the_game_and_the_promises_page_the_library() -> None:
    """ENGINE-1 ... are on docs/engine.md, in their own group of the traceability page;
    docs/rules.md states the game's rules only, and links to the promises."""
    assert rule_table.rule_ids(PROMISES) == [f"ENGINE-{n}" for n in range(1, 8)]
    assert not any(rule.startswith("ENGINE-") for rule in rule_table.rule_ids(RULES))
    assert "(engine.md)" in RULES
    game, promises = PAGE.split("\n## What the engine promises\n")
    assert "engine.md#" not in game and "rules.md#" not in promises
    assert rule_table.trace_ids(promises) == rule_table.rule_ids(PROMISES)


def test_a_promise_on_the_rules_page_or_linked_there_is_reported() -> None:
    """A promise moved back among the rules, or a row linking to the wrong page, fails."""
    heading = "### ENGINE-1 · `apply` is pure { #ENGINE-1 }"
    assert heading in PROMISES
    moved = rule_table.problems(
        RULES + "\n" + heading + "\n\nPure.\n",
        PAGE,
        rule_table.markers(),
        PROMISES.replace(heading, "### ENGINE-0 · Gone { #ENGINE-0 }"),
    )
    assert (
        "docs/rules.md defines ENGINE-1, a promise of the library: it belongs on docs/engine.md"
        in moved
    )
    relinked = PAGE.replace("[ENGINE-2](engine.md#ENGINE-2)", "[ENGINE-2](rules.md#ENGINE-2)")
    assert relinked != PAGE
    assert rule_table.problems(RULES, relinked, rule_table.markers(), PROMISES) == [
        "docs/traceability.md's row ENGINE-2 links to rules.md, not engine.md"
    ]


def test_the_tests_column_is_up_to_date() -> None:
    """The Tests column equals what scripts/rule_table.py would write: it cannot rot."""
    assert rule_table.render(PAGE, rule_table.markers()) == PAGE, (
        "run `python scripts/rule_table.py` to refresh the Tests column of docs/traceability.md"
    )


def test_problems_names_missing_and_unknown_rules() -> None:
    """The checker reports a rule without tests and a test citing an unknown rule."""
    found = {"test_x.py::test_a": ["NOPE-1"]}
    messages = rule_table.problems(RULES, PAGE, found, PROMISES)
    assert any("NOPE-1" in message for message in messages)
    assert any("TABLE-1 has no test" in message for message in messages)


def test_a_name_that_no_longer_exists_is_reported() -> None:
    """A renamed or removed function in "Enforced in" fails the check, naming what is gone."""
    stale = PAGE.replace("`core.bidding.board_multipliers`", "`engine.match._finish_deal`")
    assert stale != PAGE
    messages = rule_table.problems(RULES, stale, rule_table.markers(), PROMISES)
    assert messages == [
        "rule BID-4 is enforced in engine.match._finish_deal, which does not exist: "
        "engine.match has no '_finish_deal'"
    ]
    assert rule_table.missing_name("nowhere.thing") == "no module backalley.nowhere"
    assert rule_table.missing_name("core.tricks.allowed_plays") is None


def test_a_rule_missing_from_the_traceability_page_is_reported() -> None:
    row = next(line for line in PAGE.splitlines() if line.startswith("| [PLAY-4]"))
    messages = rule_table.problems(
        RULES, PAGE.replace(row + "\n", ""), rule_table.markers(), PROMISES
    )
    assert len(messages) == 1
    assert "missing ['PLAY-4']" in messages[0]


def test_every_rule_has_an_anchor_one_sentence_and_its_sources() -> None:
    """Each rule heading carries its ID as anchor, is followed by the rule as one sentence
    and a line of sources; a "Sources differ" says which reading the project takes. Each
    promise of docs/engine.md has its anchor and one sentence too (no sources: it is the
    library's own)."""
    ids = rule_table.rule_ids(RULES) + rule_table.rule_ids(PROMISES)
    assert len(ids) == len(set(ids)) >= 50
    sections = re.split(r"^### ", RULES, flags=re.M)[1:]
    promises = re.split(r"^### ", PROMISES, flags=re.M)[1:]
    for section in sections + promises:
        heading, _, body = section.partition("\n")
        rule = heading.split(" ", 1)[0]
        assert heading.endswith(f"{{ #{rule} }}"), heading
        paragraphs = [p for p in body.strip().split("\n\n") if p.strip()]
        sentence = " ".join(paragraphs[0].split())
        assert sentence.endswith("."), rule
        assert sentence.count(". ") == 0, (rule, sentence)  # one sentence
        if section not in promises:
            assert any(p.startswith("*Sources:*") for p in paragraphs), rule
        for paragraph in paragraphs:
            if paragraph.startswith("*Sources differ:*"):
                # What each source says, then the reading the project takes.
                assert re.search(r"`00[012]`", paragraph), rule
                assert re.search(r"project (takes|counts|generalises|deals)", paragraph), rule


def test_links_to_rules_and_rulings_name_real_anchors() -> None:
    """Every link to rules.md#ID, engine.md#ID or rulings.md#anchor, on any page, names an
    anchor that exists."""
    rulings = (ROOT / "docs" / "rulings.md").read_text(encoding="utf-8")
    anchors = {
        "rules.md": set(rule_table.rule_ids(RULES)),
        "engine.md": set(rule_table.rule_ids(PROMISES)),
        "rulings.md": set(re.findall(r"\{ #([a-z0-9-]+) \}$", rulings, re.M)),
    }
    for path in sorted((ROOT / "docs").glob("*.md")):
        text = path.read_text(encoding="utf-8")
        pattern = r"\]\((rules\.md|engine\.md|rulings\.md)#([^)]+)\)"
        for page, anchor in re.findall(pattern, text):
            assert anchor in anchors[page], (path.name, page, anchor)


def test_render_only_touches_the_tests_column() -> None:
    """Rewriting the column leaves every other cell and line as it was."""
    rendered = rule_table.render(PAGE, {"test_x.py::test_a": ["CARD-1"]})
    assert rendered != PAGE
    before, after = PAGE.splitlines(), rendered.splitlines()
    assert len(before) == len(after)
    for old, new in zip(before, after, strict=True):
        if old != new:
            assert old.split("|")[:-2] == new.split("|")[:-2]
        if new.startswith("| [CARD-1]"):
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
