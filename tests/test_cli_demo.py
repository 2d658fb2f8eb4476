"""The ``backalley demo`` command: a seeded match printed deal by deal."""

import subprocess
import sys

import pytest

from backalley.cli import main


@pytest.mark.rule("ENGINE-5", "SCHED-3")
def test_demo_is_reproducible_from_its_seed(capsys):
    """The same seed prints the same match; another seed prints another."""
    assert main(["demo", "--schedule", "short", "--seed", "5"]) == 0
    first = capsys.readouterr().out
    assert main(["demo", "--schedule", "short", "--seed", "5"]) == 0
    assert capsys.readouterr().out == first
    assert main(["demo", "--schedule", "short", "--seed", "6"]) == 0
    assert capsys.readouterr().out != first
    assert "short schedule (14 deals)" in first
    assert first.count("\nDeal ") >= 14
    assert "Score sheet" in first
    assert "Result: " in first


@pytest.mark.rule("SCHED-4")
@pytest.mark.parametrize(
    ("options", "complaint"),
    [
        (["--schedule", "0,3"], "hand size 0 is impossible"),
        (["--schedule", "3,14"], "hand size 14 is impossible"),
        (["--schedule", "2,x"], "cannot read the schedule"),
        (["--schedule", "longest"], "unknown schedule"),
        (["--seed", "-1"], "seed"),
        (["--first-dealer", "Q"], "unknown seat"),
    ],
)
def test_demo_refuses_bad_options_in_one_line(capsys, options, complaint):
    """Bad options give exit status 2 and one line on standard error, no traceback."""
    assert main(["demo", *options]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert complaint in captured.err
    assert "Traceback" not in captured.err
    assert captured.err.count("\n") == 1


def test_console_entry_point_runs_as_a_module():
    """``python -m backalley demo`` works and survives its reader closing the pipe early."""
    done = subprocess.run(
        [sys.executable, "-m", "backalley", "demo", "--schedule", "2,1"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Back Alley, custom schedule (2 deals)")
    # The reader goes away after one line: no BrokenPipeError traceback.
    piped = subprocess.run(
        f"{sys.executable} -m backalley demo | head -n 1",
        shell=True,
        capture_output=True,
        text=True,
        check=False,
    )
    assert piped.stdout.count("\n") == 1
    assert "Traceback" not in piped.stderr


def test_no_command_prints_help(capsys):
    """``backalley`` alone explains itself and exits 0."""
    assert main([]) == 0
    assert "demo" in capsys.readouterr().out
