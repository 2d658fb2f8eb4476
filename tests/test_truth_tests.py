"""No truth tests of seats, suits, cards or pairs in src/ and scripts/, found in the AST.

``Seat.NORTH``, ``Suit.CLUBS``, ``Card.C2`` and ``Pair.NORTH_SOUTH`` are 0, so
``if winner:`` or ``x if trump else "none"`` silently treats them as missing (the
conformance file once lost North's tricks, the score sheet clubs as trumps). This
test reads every module and refuses a truth test (``if``, ``while``, ``and``/``or``,
``not``, a conditional expression, a comprehension's ``if``, ``assert``, ``bool()``)
of a name the project gives such values; ``tests/truth_guard.py`` makes the truth
test of the values themselves raise during the whole run.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import truth_guard
from backalley import Card, Seat, Suit
from backalley.core.cards import Pair

ROOT = Path(__file__).resolve().parent.parent

NAMES = re.compile(
    r"^(?:seat|suit|trump|card|winner|leader|dealer|to_move|mover|joker|led|turned|received"
    r"|pair|partner|first_dealer|holder|swapper|bidder)$"
    r"|_(?:seat|suit|card|dealer|leader|winner|pair)$"
)
"""Names (variables, attributes, calls) that hold a Seat, Suit, Card or Pair, or None."""


def _name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Call):
        return _name(node.func)
    return None


def _tested(tree: ast.AST):
    """Every expression whose truth the code tests."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
            yield node.test
        elif isinstance(node, ast.BoolOp):
            yield from node.values
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            yield node.operand
        elif isinstance(node, ast.comprehension):
            yield from node.ifs
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "bool"
            and node.args
        ):
            yield node.args[0]


def truth_tests(source: str) -> list[str]:
    """``line: expression`` of each truth test of a seat, suit, card or pair in ``source``."""
    found = []
    for expression in _tested(ast.parse(source)):
        name = _name(expression)
        if name is not None and NAMES.search(name):
            found.append(f"{expression.lineno}: {ast.unparse(expression)}")
    return found


@pytest.mark.parametrize(
    ("source", "count"),
    [
        ('x = f"{t.symbol}" if trump else "none"', 1),
        ("w = [t.winner.letter for t in tricks if t.winner]", 1),
        ("s = state.to_move or SEATS[0]", 1),
        ("if not deal.leader:\n    pass", 1),
        ("ok = bool(first_seat) and card", 2),
        ("while led:\n    break", 1),
        # Comparisons, booleans named for what they say, and collections are fine.
        ('x = "none" if trump is None else trump.word', 0),
        ("if card.is_joker and cards and not trumps:\n    pass", 0),
        ("w = [t.winner for t in tricks if t.winner is not None]", 0),
    ],
)
def test_the_check_finds_truth_tests_and_only_those(source, count):
    assert len(truth_tests(source)) == count


@pytest.mark.parametrize("folder", ["src", "scripts", "benchmarks"])
def test_no_module_tests_the_truth_of_a_seat_suit_card_or_pair(folder):
    found = [
        f"{path.relative_to(ROOT)}:{where}"
        for path in sorted((ROOT / folder).rglob("*.py"))
        for where in truth_tests(path.read_text(encoding="utf-8"))
    ]
    assert not found, "compare with None or a value instead:\n" + "\n".join(found)


@pytest.mark.parametrize("value", [Seat.NORTH, Suit.CLUBS, Card(0), Pair.NORTH_SOUTH, Seat.WEST])
def test_the_run_refuses_the_truth_test_of_any_such_value(value):
    with pytest.raises(truth_guard.TruthTestError, match="tested for truth"):
        bool(value)
    assert value == value.value  # comparisons still work
