"""Tests of ``backalley check``, ``replay`` and ``perft`` on real and damaged records."""

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from backalley.cli import main
from backalley.formats.checking import replay
from backalley.formats.records import MAX_RECORD_BYTES, parse_record

ROOT = Path(__file__).resolve().parent.parent
RECORD_FILES = sorted((ROOT / "conformance" / "records").glob("*.json"))


def _write(tmp_path: Path, name: str, data: Any) -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


def _corrupt(data: dict[str, Any]) -> tuple[dict[str, Any], str, str]:
    """The record with one play replaced by the deal's turned card, which nobody holds.

    Returns the damaged data, the JSON path of the damage and its position for people.
    """
    state = replay(parse_record(data))
    deals = [result.deal for result in state.history] + ([state.deal] if state.deal else [])
    index = max(i for i, item in enumerate(data["deals"]) if item["plays"])
    plays = data["deals"][index]["plays"]
    card = len(plays) // 2
    damaged = json.loads(json.dumps(data))
    damaged["deals"][index]["plays"][card] = deals[index].setup.turned.code
    where = f"deal {index + 1}, trick {card // 4 + 1}, card {card % 4 + 1}"
    return damaged, f"deals[{index}].plays[{card}]", where


@pytest.mark.parametrize("path", RECORD_FILES, ids=lambda p: p.name)
def test_every_conformance_record_passes(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """check accepts every record of the conformance vectors."""
    assert main(["check", str(path)]) == 0
    assert ": valid: " in capsys.readouterr().out


@pytest.mark.parametrize("path", RECORD_FILES, ids=lambda p: p.name)
def test_every_corrupted_record_fails_where_damaged(
    path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A corrupted copy of each record fails with card_not_in_hand at the damaged play."""
    damaged, where_path, where = _corrupt(json.loads(path.read_text(encoding="utf-8")))
    name = _write(tmp_path, path.name, damaged)
    assert main(["check", "--json", name]) == 1
    (report,) = json.loads(capsys.readouterr().out)
    assert report["status"] == "illegal"
    assert report["error"]["reason"] == "card_not_in_hand"
    assert report["error"]["path"] == where_path
    assert report["error"]["where"] == where
    assert main(["check", name]) == 1
    out = capsys.readouterr().out
    assert f"illegal: {where_path} ({where})" in out and "[card_not_in_hand]" in out


def test_wrong_claimed_score(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A claimed deal score that differs is reported with claimed and computed values."""
    data = json.loads((ROOT / "conformance/records/short.json").read_text(encoding="utf-8"))
    data["deals"][2]["scores"][1] += 1
    name = _write(tmp_path, "wrong.json", data)
    assert main(["check", "--json", name]) == 1
    (report,) = json.loads(capsys.readouterr().out)
    assert report["status"] == "inconsistent"
    (found,) = report["discrepancies"]
    assert found["path"] == "deals[2].scores"
    assert found["claimed"][1] == found["computed"][1] + 1
    assert main(["check", name]) == 1
    assert "inconsistent: deals[2].scores: deal 3 claims" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ("{not json", "not a record: not JSON: line 1, column 2"),
        ('{"format": "backalley-record"}', "the field 'version' is missing"),
        ("[1, 2]", "expected an object"),
        ("", "not JSON"),
    ],
)
def test_not_a_record(
    tmp_path: Path, content: str, fragment: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Input that is not a record exits 2 with the reason on standard error, and no traceback."""
    name = _write(tmp_path, "bad.json", content)
    assert main(["check", name]) == 2
    captured = capsys.readouterr()
    assert fragment in captured.err
    assert captured.out == ""
    assert "Traceback" not in captured.out + captured.err


def test_missing_directory_and_huge_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A missing file, a directory and a file over the size limit each exit 2 with a reason."""
    huge = tmp_path / "huge.json"
    with huge.open("wb") as handle:
        handle.truncate(MAX_RECORD_BYTES + 10)
    assert main(["check", str(tmp_path / "absent.json"), str(tmp_path), str(huge)]) == 2
    err = capsys.readouterr().err
    assert "no such file" in err and "directory" in err and "a record may have at most" in err


def test_worst_status_wins(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """With several records the exit status is the worst one; each gets its own line."""
    good = str(RECORD_FILES[0])
    damaged, _, _ = _corrupt(json.loads(RECORD_FILES[0].read_text(encoding="utf-8")))
    bad = _write(tmp_path, "bad.json", damaged)
    assert main(["check", good, bad]) == 1
    assert main(["check", good, bad, _write(tmp_path, "junk.json", "junk")]) == 2
    captured = capsys.readouterr()
    assert len(captured.out.strip().splitlines()) == 4
    assert len(captured.err.strip().splitlines()) == 1


def test_partial_record(capsys: pytest.CaptureFixture[str]) -> None:
    """A partial record is valid but reported as such, and fails under --complete."""
    partial = str(ROOT / "conformance/records/partial.json")
    assert main(["check", partial]) == 0
    assert "a partial record" in capsys.readouterr().out
    assert main(["check", "--complete", "--json", partial]) == 1
    (report,) = json.loads(capsys.readouterr().out)
    assert report["status"] == "incomplete" and report["complete"] is False


def test_replay_transcript(capsys: pytest.CaptureFixture[str]) -> None:
    """replay prints every deal with hands, bids, tricks and winners, then the result."""
    assert main(["replay", str(ROOT / "conformance/records/short.json")]) == 0
    out = capsys.readouterr().out
    assert out.count("\nDeal ") == 14
    assert "Trick 1: " in out and "wins" in out and "Bids: " in out
    assert out.strip().splitlines()[-1].startswith("Result: ")


def test_replay_stops_at_an_illegal_action(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """replay prints up to the first illegal action, then the refusal, and exits 1."""
    damaged, where_path, _ = _corrupt(json.loads(RECORD_FILES[0].read_text(encoding="utf-8")))
    assert main(["replay", _write(tmp_path, "bad.json", damaged)]) == 1
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith(f"Illegal at {where_path}") and "card_not_in_hand" in last


def test_replay_refuses_non_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """replay of something that is not a record exits 2 with one line on stderr."""
    assert main(["replay", _write(tmp_path, "x.json", "{}")]) == 2
    err = capsys.readouterr().err
    assert "not a record" in err and "Traceback" not in err


def test_perft_matches_the_vectors(capsys: pytest.CaptureFixture[str]) -> None:
    """perft on a new standard match prints the counts of conformance/perft.json."""
    vectors = json.loads((ROOT / "conformance/perft.json").read_text(encoding="utf-8"))
    start = next(p for p in vectors["positions"] if p["name"] == "match-start")
    assert main(["perft", "--depth", "4", "--seed", "0"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert [int(line.split(": ")[1]) for line in lines] == start["counts"][:5]


def test_perft_divide_from_a_record(capsys: pytest.CaptureFixture[str]) -> None:
    """perft --divide from a record splits the count by first action and sums to perft."""
    partial = str(ROOT / "conformance/records/partial.json")
    assert main(["perft", "--record", partial, "--depth", "3"]) == 0
    deepest = int(capsys.readouterr().out.strip().splitlines()[-1].split(": ")[1])
    assert main(["perft", "--record", partial, "--depth", "3", "--divide"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[-1] == f"total: {deepest}"
    assert sum(int(line.split(": ")[1]) for line in lines[:-1]) == deepest


def test_perft_bad_depth(capsys: pytest.CaptureFixture[str]) -> None:
    """An impossible depth is refused with exit status 2."""
    assert main(["perft", "--depth", "-1"]) == 2
    assert "--depth runs from 0" in capsys.readouterr().err


def test_console_script_runs_check() -> None:
    """The installed console script checks a record in a real subprocess."""
    script = Path(sys.executable).with_name("backalley")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "backalley"]
    record = str(ROOT / "conformance/records/short.json")
    done = subprocess.run(
        [*command, "check", record],
        capture_output=True,
        text=True,
        check=False,
        env=os.environ.copy(),
    )
    assert done.returncode == 0, done.stderr
    assert "valid: a complete match, 14 deals" in done.stdout
    junk = subprocess.run(
        [*command, "check", str(ROOT / "README.md")], capture_output=True, text=True, check=False
    )
    assert junk.returncode == 2 and "Traceback" not in junk.stderr


def _embedded_records() -> list[tuple[str, dict[str, Any]]]:
    """Every record inside the bundled vector files, named by file and entry."""
    found = []
    for name, key in (
        ("positions.json", "positions"),
        ("deals.json", "deals"),
        ("perft.json", "positions"),
    ):
        bundle = json.loads((ROOT / "conformance" / name).read_text(encoding="utf-8"))
        found.extend((f"{name}:{entry['name']}", entry["record"]) for entry in bundle[key])
    return found


def test_every_embedded_record_passes_and_fails_when_corrupted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each record inside the vector bundles passes check; a damaged copy fails where damaged."""
    damaged_count = 0
    for index, (label, record) in enumerate(_embedded_records()):
        good = _write(tmp_path, f"good{index}.json", record)
        assert main(["check", good]) == 0, label
        capsys.readouterr()
        if not any(deal["plays"] for deal in record["deals"]):
            continue
        damaged, where_path, where = _corrupt(record)
        assert main(["check", "--json", _write(tmp_path, f"bad{index}.json", damaged)]) == 1, label
        (report,) = json.loads(capsys.readouterr().out)
        assert (report["error"]["path"], report["error"]["where"]) == (where_path, where), label
        assert report["error"]["reason"] == "card_not_in_hand"
        damaged_count += 1
    assert damaged_count >= 30


def test_check_reads_standard_input(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """check - reads the record from standard input."""

    data = (ROOT / "conformance/records/short.json").read_bytes()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["check", "-"]) == 0
    assert capsys.readouterr().out.startswith("-: valid: a complete match")


def test_check_json_for_non_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--json reports input that is not a record with its path and message."""
    name = _write(tmp_path, "bad.json", {"format": "backalley-record", "version": 1, "rules": 3})
    assert main(["check", "--json", name]) == 2
    (report,) = json.loads(capsys.readouterr().out)
    assert report["status"] == "not_a_record"
    assert report["error"]["path"] in ("", "rules")


def test_replay_of_a_partial_record(capsys: pytest.CaptureFixture[str]) -> None:
    """replay of a partial record shows the unfinished trick and says the record stops."""
    assert main(["replay", str(ROOT / "conformance/records/partial.json")]) == 0
    out = capsys.readouterr().out
    assert "(unfinished)" in out
    assert out.strip().splitlines()[-1].startswith("The record stops here")


def test_check_jobs_gives_the_reports_of_one_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """--jobs 2 checks files in two processes: the same reports, in the order given."""
    damaged, _, _ = _corrupt(json.loads(RECORD_FILES[0].read_text(encoding="utf-8")))
    names = [str(path) for path in RECORD_FILES[:3]]
    names += [_write(tmp_path, "bad.json", damaged), _write(tmp_path, "junk.json", "[1]"), "-"]
    data = (ROOT / "conformance/records/short.json").read_bytes()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))
    alone = main(["check", "--json", *names])
    one = json.loads(capsys.readouterr().out)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["check", "--json", "--jobs", "2", *names]) == alone == 2
    assert json.loads(capsys.readouterr().out) == one
    assert [report["file"] for report in one] == names
    assert main(["check", "--jobs", "0", names[0]]) == 2
    assert "--jobs must be at least 1" in capsys.readouterr().err
