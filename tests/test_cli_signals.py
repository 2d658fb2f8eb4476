"""SIGTERM and SIGHUP stop ``simulate --jobs 2`` and ``check --jobs 2`` as Ctrl-C does.

One line on standard error, the exit status 128 plus the signal (143, 129), and no
process of the command left behind: the test counts the processes of the command's
session before and after the signal.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from backalley import Rules, apply, legal_actions, new_match
from backalley.engine.bounds import playing
from backalley.formats.records import dumps, record_from_state

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/stat").exists(), reason="counts processes through /proc"
)

SIGNALS = [signal.SIGTERM, signal.SIGHUP]


def _session_processes(session: int) -> list[int]:
    """The live (not zombie) processes whose session is ``session``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            text = (entry / "stat").read_text()
        except OSError:
            continue  # gone while we looked
        # The command name is in parentheses and may hold spaces: read after the last one.
        fields = text[text.rindex(")") + 2 :].split()
        state, session_id = fields[0], int(fields[3])
        if session_id == session and state != "Z":
            found.append(int(entry.name))
    return found


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    try:
        return [int(child) for child in path.read_text().split()]
    except OSError:
        return []


def _stop(command: list[str], signum: int, tmp_path: Path) -> tuple[int, str, int]:
    """Start ``backalley COMMAND`` in its own session, signal it once its two workers run.

    The exit status, standard error, and how many of its processes are left a few
    seconds after it ended.
    """
    process = subprocess.Popen(
        [sys.executable, "-m", "backalley", *command],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while len(_children(process.pid)) < 2:
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            assert time.monotonic() < deadline, "the two workers never started"
            time.sleep(0.05)
        assert len(_session_processes(process.pid)) >= 3
        time.sleep(0.3)  # well into the run
        process.send_signal(signum)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:  # pragma: no cover - only if the test failed
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    left = _session_processes(process.pid)
    deadline = time.monotonic() + 10
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = _session_processes(process.pid)
    return process.returncode, err, len(left)


@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_a_signal_stops_simulate_and_its_workers(signum: int, tmp_path: Path) -> None:
    """``simulate --jobs 2`` stopped by the signal: one line, 128 + signal, no process left."""
    status, err, left = _stop(
        ["simulate", "--jobs", "2", "--matches", "100000", "--schedule", "standard"],
        signum,
        tmp_path,
    )
    name = signal.Signals(signum).name
    assert status == 128 + signum
    assert err.endswith(" matches; no summary printed\n")
    assert err.startswith(f"backalley simulate: stopped by {name} after ")
    assert err.count("\n") == 1
    assert left == 0


@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_a_signal_stops_check_and_its_workers(signum: int, tmp_path: Path) -> None:
    """``check --jobs 2`` stopped by the signal: one line, 128 + signal, no process left."""
    state = new_match(Rules(schedule="standard"), seed=9)
    while playing(state):
        state = apply(state, legal_actions(state)[1 if state.phase.value == "bid" else 0])
    text = dumps(record_from_state(state))
    names = []
    for index in range(4000):
        name = f"match-{index:05d}.json"
        (tmp_path / name).write_text(text, encoding="utf-8")
        names.append(name)
    status, err, left = _stop(["check", "--jobs", "2", *names], signum, tmp_path)
    name = signal.Signals(signum).name
    assert status == 128 + signum
    assert err.startswith(f"backalley check: stopped by {name} after ")
    assert err.endswith(" of 4000 files; each line above is a whole report\n")
    assert err.count("\n") == 1
    assert left == 0
