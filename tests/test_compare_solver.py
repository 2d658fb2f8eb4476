"""scripts/compare_solver.py: the record of the solver's answers, read back, and the minimax check.

The script is how a change to the search is checked against the search before it
(docs/performance.md): these tests make sure it sees a changed count, draws the same
positions again from a record, and agrees with the minimax over ``apply``.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from backalley.core import position as P

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "compare_solver", ROOT / "scripts" / "compare_solver.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(script: ModuleType, monkeypatch: pytest.MonkeyPatch, *args: str) -> int:
    monkeypatch.setattr(sys, "argv", ["compare_solver.py", *args])
    return int(script.main())


def test_a_record_checks_clean_and_a_changed_count_is_found(
    script: ModuleType,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    record = tmp_path / "record.jsonl"
    args = ["--positions", "12", "--sizes", "3", "4", "--seed", "7"]
    assert _run(script, monkeypatch, "record", str(record), *args) == 0
    assert _run(script, monkeypatch, "check", str(record)) == 0
    assert "12 positions, 0 differing" in capsys.readouterr().out
    # One count off by one in the record: the check names that position and fails.
    lines = record.read_text(encoding="utf-8").splitlines()
    entry = json.loads(lines[5])
    card = next(iter(entry["counts"]))
    entry["counts"][card] += 1
    lines[5] = json.dumps(entry)
    record.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert _run(script, monkeypatch, "check", str(record)) == 1
    out = capsys.readouterr().out
    assert f"seed {entry['seed']}:" in out
    assert "12 positions, 1 differing" in out


def test_the_positions_are_drawn_again_the_same_and_vary(script: ModuleType) -> None:
    first = [state for _, state in script.positions(3, 20, [4, 5])]
    again = [state for _, state in script.positions(3, 20, [4, 5])]
    assert first == again
    # Both sizes, every point of a trick, and deals with and without a trump suit.
    assert {state.hand_size for state in first} == {4, 5}
    assert {len(state.position[P.TRICK]) for state in first} == {0, 1, 2, 3}
    assert {bool(state.position[P.TRUMPS]) for state in first} == {True, False}


def test_the_solver_agrees_with_the_minimax(
    script: ModuleType, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--positions", "30", "--sizes", "2", "3", "4", "--seed", "11"]
    assert _run(script, monkeypatch, "minimax", *args) == 0
    assert "30 positions, 0 differing" in capsys.readouterr().out
