"""Bad input at the command line: one located report each, no half results, no traceback.

A table per kind of failure, the reproductions of the reports that found them
included: ``check`` on files that break the reader in every way, streams that
close or fill up, ``play`` left unfinished, and ``simulate`` writing records into
a folder it cannot use.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from backalley import Rules
from backalley.cli import main
from backalley.cli._common import available_cpus
from backalley.players import simulation
from backalley.players.simulation import MAX_MATCHES, simulate

ROOT = Path(__file__).resolve().parent.parent
SHORT = str(ROOT / "conformance" / "records" / "short.json")
PARTIAL = str(ROOT / "conformance" / "records" / "partial.json")


def _run(*args: str, stdin: str = "", timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``python -m backalley ARGS`` in a subprocess, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "backalley", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _shell(command: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """A shell pipeline, for the streams only a shell sets up (``| head -1``)."""
    return subprocess.run(
        ["bash", "-c", f"set -o pipefail; {command}"],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


# --- check: each file on its own, whatever the failure -----------------------------------

BAD_FILES: list[tuple[str, Any, str]] = [
    ("digits", '{"format":' + "9" * 5000 + "}", "more than 4300 digits"),
    ("deep", "[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ("binary", b"\xff\xfe\x00garbage\x80", "not UTF-8"),
    ("not-json", "{not json", "not JSON"),
    ("empty", "", "not JSON"),
    ("truncated", Path(SHORT).read_text(encoding="utf-8")[:200], "not JSON"),
    ("wrong-shape", "[1, 2]", "expected an object"),
    ("directory", None, "a directory"),
    ("absent", "absent", "no such file"),
]


@pytest.mark.parametrize(("kind", "content", "says"), BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_check_reports_a_bad_file_and_goes_on(
    kind: str, content: Any, says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The bad file between two good ones is named with its reason; both good ones reported."""
    bad = tmp_path / f"{kind}.json"
    if content is None:
        bad.mkdir()
    elif isinstance(content, bytes):
        bad.write_bytes(content)
    elif content != "absent":
        bad.write_text(content, encoding="utf-8")
    assert main(["check", SHORT, str(bad), PARTIAL]) == 2
    captured = capsys.readouterr()
    (error,) = captured.err.strip().splitlines()
    assert error.startswith(f"backalley check: {bad}: not a record: ")
    assert says in error
    verdicts = captured.out.strip().splitlines()
    assert [line.split(": ")[0] for line in verdicts] == [SHORT, PARTIAL]
    assert all(": valid: " in line for line in verdicts)

    assert main(["check", "--json", SHORT, str(bad), PARTIAL]) == 2
    captured = capsys.readouterr()
    reports = json.loads(captured.out)
    assert [report["status"] for report in reports] == ["valid", "not_a_record", "valid"]
    assert reports[1]["file"] == str(bad) and says in reports[1]["error"]["message"]


def test_check_reproduction_of_the_digit_limit(tmp_path: Path) -> None:
    """The report's reproduction, run as a user runs it: no traceback, each file reported."""
    huge = tmp_path / "huge.json"
    huge.write_text('{"format":' + "9" * 5000 + "}", encoding="utf-8")
    done = _run("check", SHORT, str(huge), PARTIAL)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert f"{huge}: not a record: a number has more than" in done.stderr
    assert done.stdout.count(": valid: ") == 2
    done = _run("check", "--json", SHORT, str(huge), PARTIAL)
    assert [report["status"] for report in json.loads(done.stdout)] == [
        "valid",
        "not_a_record",
        "valid",
    ]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_check_reports_an_unreadable_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    locked = tmp_path / "locked.json"
    locked.write_text("{}", encoding="utf-8")
    locked.chmod(0)
    assert main(["check", str(locked), SHORT]) == 2
    captured = capsys.readouterr()
    assert "cannot read the file" in captured.err and ": valid: " in captured.out


@pytest.mark.parametrize(
    ("files", "status"),
    [
        ([SHORT], 0),
        ([SHORT, "illegal"], 1),
        (["illegal", "junk"], 2),
        (["junk", SHORT], 2),
    ],
)
def test_check_exit_status_is_the_worst_seen(
    files: list[str], status: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(Path(SHORT).read_text(encoding="utf-8"))
    data["deals"][0]["plays"][0] = "BIG" if data["deals"][0]["plays"][0] != "BIG" else "2C"
    (tmp_path / "illegal").write_text(json.dumps(data), encoding="utf-8")
    (tmp_path / "junk").write_text("junk", encoding="utf-8")
    names = [name if name == SHORT else str(tmp_path / name) for name in files]
    assert main(["check", *names]) == status
    captured = capsys.readouterr()
    assert len(captured.out.splitlines()) + len(captured.err.splitlines()) == len(files)
    assert main(["check", "--json", *names]) == status
    assert len(json.loads(capsys.readouterr().out)) == len(files)


# --- streams that close or fill up -----------------------------------------------------------

STREAMS = [
    ("demo > /dev/full", "demo --schedule 3,2", 2, "No space left on device"),
    ("check > /dev/full", f"check {SHORT}", 2, "No space left on device"),
    ("simulate > /dev/full", "simulate --matches 2 --schedule 1", 2, "No space left"),
    # 300 deals print about 90 kB, more than a pipe holds, so the writer meets the closed pipe.
    ("demo | head -1", "demo --schedule " + ",".join(["13"] * 300), 0, ""),
    ("check | head -1", f"check {SHORT} {PARTIAL} {SHORT}", 0, ""),
    ("perft | head -1", "perft --depth 3 --schedule 1", 0, ""),
]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize(("name", "args", "status", "says"), STREAMS, ids=[s[0] for s in STREAMS])
def test_a_closed_or_full_output_ends_quietly(name: str, args: str, status: int, says: str) -> None:
    """No traceback; a full disk is one line on standard error; a reader gone is no error."""
    command = f"{sys.executable} -m backalley {args}"
    if "/dev/full" in name:
        done = _shell(f"{command} > /dev/full")
        assert done.returncode == status
        assert says in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
    else:
        done = _shell(f"{command} | head -1")
        assert done.returncode == status
        assert done.stderr == ""
        assert len(done.stdout.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr


def test_check_keeps_its_status_when_the_reader_goes(tmp_path: Path) -> None:
    """``| head -1`` drops the rest of the output, not the verdict: a bad record still exits 1."""
    data = json.loads(Path(SHORT).read_text(encoding="utf-8"))
    data["totals"][0] += 1
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps(data), encoding="utf-8")
    done = _shell(f"{sys.executable} -m backalley check {SHORT} {wrong} | head -1")
    assert done.returncode == 1
    assert done.stderr == ""


# --- play: an unfinished match is not a success ----------------------------------------------

PLAY = ["play", "--schedule", "2,1", "--seed", "5", "--seat", "S"]


@pytest.mark.parametrize(
    ("stdin", "says", "status"),
    [
        ("", "End of input: the match is left unfinished.", 1),
        ("?\n", "End of input: the match is left unfinished.", 1),
        # Leaving is the person's choice, not a failure.
        ("quit\n", "You leave the table: the match is left unfinished.", 0),
    ],
    ids=["no input", "input ends mid-match", "quit"],
)
def test_play_left_unfinished_exits_1_unless_quit(stdin: str, says: str, status: int) -> None:
    done = _run(*PLAY, stdin=stdin)
    assert done.returncode == status
    assert says in done.stdout
    assert "Traceback" not in done.stderr


def test_play_to_the_end_exits_0() -> None:
    """Answers the table always accepts (``?`` then each legal action) finish the match: 0."""
    # A script cannot read the legal actions, so it passes and tries every card in turn;
    # the table refuses the wrong ones and asks again.
    ranks = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
    cards = [f"{rank}{suit}" for suit in "CDHS" for rank in ranks] + ["big", "little"]
    answers = ["pass", *cards] * 60
    done = _run(*PLAY, stdin="\n".join(answers) + "\n")
    assert done.returncode == 0, done.stdout[-500:]
    assert "Match over:" in done.stdout


def test_play_with_a_bad_option_exits_2() -> None:
    done = _run("play", "--seat", "X")
    assert done.returncode == 2
    assert done.stderr.startswith("backalley play: ") and done.stdout == ""


# --- simulate: records whole or not at all, bounded processes and memory ----------------------

SIMULATE = ["simulate", "--matches", "5", "--schedule", "1", "--ns", "random"]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_simulate_stops_at_a_record_it_cannot_write(tmp_path: Path, jobs: str) -> None:
    """The report's reproduction: a target name that is a folder stops the run there."""
    out = tmp_path / "out"
    (out / "match-00003.json").mkdir(parents=True)
    done = _run(*SIMULATE, "--records", str(out), "--jobs", jobs)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()[-1:]
    assert line == (
        f"backalley simulate: cannot write {out / 'match-00003.json'}: Is a directory; "
        "the run stopped there and 2 records were written"
    )
    assert done.stdout == ""
    # The records before the failure, whole; none after it, and no temporary file left.
    assert sorted(path.name for path in out.iterdir()) == [
        "match-00001.json",
        "match-00002.json",
        "match-00003.json",
    ]
    assert main(["check", str(out / "match-00001.json"), str(out / "match-00002.json")]) == 0


@pytest.mark.parametrize(
    ("folder", "says"),
    [
        ("absent", "no folder"),
        ("/proc", "cannot write in the folder '/proc'"),
        ("a-file", "no folder"),
    ],
)
def test_simulate_checks_the_folder_before_the_first_match(
    folder: str, says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a-file").write_text("", encoding="utf-8")
    where = folder if folder.startswith("/") else str(tmp_path / folder)
    played: list[object] = []
    with pytest.MonkeyPatch.context() as patch:
        # No match is played before the refusal.
        patch.setattr(simulation, "play_one", played.append)
        assert main([*SIMULATE, "--records", where]) == 2
    assert says in capsys.readouterr().err
    assert played == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes in any folder")
def test_simulate_refuses_a_read_only_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tmp_path.chmod(0o555)
    try:
        assert main([*SIMULATE, "--records", str(tmp_path)]) == 2
    finally:
        tmp_path.chmod(0o755)
    assert "cannot write in the folder" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_a_record_is_written_whole_or_not_at_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write that fails half-way leaves neither half a record nor its temporary file."""
    target = tmp_path / "match-00001.json"
    simulation.write_record(str(tmp_path), 0, "whole")
    assert target.read_text(encoding="utf-8") == "whole\n"

    def full_disk(*_: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(simulation.os, "replace", full_disk)
    with pytest.raises(OSError, match="No space left"):
        simulation.write_record(str(tmp_path), 1, "lost")
    with pytest.raises(OSError):
        simulation.write_record(str(tmp_path), 0, "new")
    assert target.read_text(encoding="utf-8") == "whole\n"
    assert [path.name for path in tmp_path.iterdir()] == ["match-00001.json"]
    with pytest.raises(simulation.RecordsNotWritten, match="and 1 record was written"):
        simulation.store_record(str(tmp_path), 1, "lost", 1)


def test_jobs_are_capped_at_the_cpus(capsys: pytest.CaptureFixture[str]) -> None:
    """``--jobs 100000`` says it was lowered and plays exactly what one process plays."""
    assert main([*SIMULATE, "--jobs", "100000"]) == 0
    capped = capsys.readouterr()
    cpus = available_cpus()
    assert capped.err == (
        f"backalley simulate: --jobs 100000 lowered to {cpus}, the CPUs available\n"
    )
    assert main([*SIMULATE, "--jobs", "1"]) == 0
    assert capsys.readouterr().out == capped.out


@pytest.mark.parametrize("matches", ["0", "-3", "4294967297", "99999999999999999999"])
def test_simulate_refuses_a_number_of_matches_out_of_range(
    matches: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["simulate", "--matches", matches]) == 2
    assert "--matches runs from 1 to 4294967296" in capsys.readouterr().err


def test_matches_are_made_as_they_are_played() -> None:
    """A run of 2**32 matches starts at once: nothing is built for the matches to come."""

    class Enough(Exception):
        pass

    def stop_after_three(done: int) -> None:
        if done == 3:
            raise Enough

    for jobs in (1, 2):
        with pytest.raises(Enough):
            simulate(
                "random",
                "random",
                Rules(schedule=[1]),
                seed=1,
                matches=MAX_MATCHES,
                jobs=jobs,
                progress=stop_after_three,
            )


_PEAK = """
import resource, sys
from backalley import Rules
from backalley.players.simulation import simulate
rules = Rules(schedule=[1])
simulate("random", "random", rules, seed=1, matches=300)  # warm the engine's caches
simulate("random", "random", rules, seed=2, matches=int(sys.argv[1]))
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def test_memory_does_not_grow_with_the_number_of_matches() -> None:
    """The peak memory of 10 and of 10,000 matches agree within 10 %, each in its own process.

    (Before matches were made lazily and added up in one pass, 10,000 took 21 % more.)
    """
    peaks = []
    for matches in (10, 10_000):
        done = subprocess.run(
            [sys.executable, "-c", _PEAK, str(matches)],
            capture_output=True,
            text=True,
            timeout=110,
            check=True,
        )
        peaks.append(int(done.stdout))
    small, large = peaks
    assert abs(large - small) <= 0.10 * small, peaks
