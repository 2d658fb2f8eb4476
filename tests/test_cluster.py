"""Tests of ``simulate`` and ``check`` on a Dask cluster (the ``cluster`` extra).

Every run is compared with the same run in one process, byte for byte: the
summary, the records written, the check reports. A LocalCluster of worker
processes stands in for a cluster; one test kills a worker in the middle of a
run. Without the extra the whole module is skipped (``test_cluster_chunks.py``
covers what needs no Dask).
"""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")
import cloudpickle  # noqa: E402 - comes with distributed

from backalley import Rules  # noqa: E402
from backalley.cli import main  # noqa: E402
from backalley.cluster import (  # noqa: E402
    IncompleteRun,
    ItemFailure,
    connect,
    index_chunks,
    play_matches,
    run_chunks,
)
from backalley.cluster import simulate as simulate_on  # noqa: E402
from backalley.players.simulation import (  # noqa: E402
    RecordsNotWritten,
    match_stats,
    play_numbered,
    simulate,
    summarize,
)

ROOT = Path(__file__).resolve().parent.parent
RECORDS = sorted(str(path) for path in (ROOT / "conformance" / "records").glob("*.json"))
SHORT = Rules(schedule=[3, 2, 1])

# The helpers below run on the workers, which cannot import this test module: send them by value.
cloudpickle.register_pickle_by_value(sys.modules[__name__])


@pytest.fixture(scope="module")
def client() -> Iterator[distributed.Client]:
    """A cluster of two worker processes, one thread each, shared by the module's tests."""
    with connect("local", workers=2) as dask_client:
        yield dask_client


def _late_first(items: Sequence[int]) -> list[tuple[int, float]]:
    """Each item's square and when it was done; the first chunks take the longest."""
    time.sleep(0.1 * max(0, 8 - items[0]))
    return [(item * item, time.monotonic()) for item in items]


def _first_finishes_last(items: Sequence[int]) -> list[tuple[int, float]]:
    """Each item's square and when it was done; the first chunk takes far the longest.

    Two seconds against none: on a loaded machine, chunks whose times differed by a
    tenth of a second were seen to finish in order after all, submitted one by one.
    """
    time.sleep(2.0 if items[0] == 0 else 0.0)
    return [(item * item, time.monotonic()) for item in items]


def _fail_on_five(items: Sequence[int]) -> list[int]:
    """Each item doubled, except that item 5 raises."""
    if 5 in items:
        raise ValueError("five is right out")
    return [2 * item for item in items]


def _tasks_on_scheduler(dask_scheduler: object) -> int:
    return len(dask_scheduler.tasks)  # type: ignore[attr-defined]


# --- the chunk runner -------------------------------------------------------------------


def test_results_come_in_order_whatever_order_chunks_finish(client):
    """Chunks that finish last-first are still given back first-first, one result per item."""
    results = list(run_chunks(client, _first_finishes_last, index_chunks(8, 1), window=8))
    assert [square for square, _ in results] == [index * index for index in range(8)]
    finished = [when for _, when in results]
    # The chunks really did finish out of order: the later ones first.
    assert finished != sorted(finished)


def _late_last(items: Sequence[int]) -> list[float]:
    """When each item was done; the later chunks take longer."""
    time.sleep(0.1 * items[0])
    return [time.monotonic() for _ in items]


def test_results_stream_before_the_run_ends(client):
    """The first chunk's results are given back while later chunks are still running."""
    stream = run_chunks(client, _late_last, index_chunks(6, 1), window=6)
    next(stream)
    first_given = time.monotonic()
    finished = [next(stream) for _ in range(5)]
    assert first_given < finished[-1]


def test_a_failing_chunk_names_its_item_and_the_rest_completes(client):
    """A chunk that raises is retried item by item: the bad item is named, the others give."""
    results = list(run_chunks(client, _fail_on_five, index_chunks(9, 4)))
    assert len(results) == 9
    failure = results[5]
    assert isinstance(failure, ItemFailure)
    assert failure.item == 5 and failure.reason == "ValueError: five is right out"
    assert [r for i, r in enumerate(results) if i != 5] == [2 * i for i in range(9) if i != 5]


def test_progress_counts_every_item_once(client):
    """``progress`` is told the number of items done, up to the whole run."""
    seen: list[int] = []
    list(run_chunks(client, _fail_on_five, index_chunks(9, 2), progress=seen.append))
    assert seen == sorted(seen) and seen[-1] == 9 and len(set(seen)) == len(seen)


def test_leaving_early_cancels_the_work_in_flight(client):
    """An interrupted run leaves nothing running on the cluster."""
    stream = run_chunks(client, _late_first, index_chunks(40, 1), window=6)
    assert next(stream)[0] == 0
    stream.close()
    deadline = time.monotonic() + 10
    while client.run_on_scheduler(_tasks_on_scheduler) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert client.run_on_scheduler(_tasks_on_scheduler) == 0


def test_lazy_chunks_are_read_only_as_the_window_allows(client):
    """Only a window of chunks is taken from the source ahead of the results given back."""
    taken: list[int] = []

    def source() -> Iterator[range]:
        for chunk in index_chunks(30, 1):
            taken.append(chunk[0])
            yield chunk

    stream = run_chunks(client, _fail_on_five, source(), window=3)
    next(stream)
    assert len(taken) <= 4
    stream.close()


# --- simulate ---------------------------------------------------------------------------


@pytest.mark.parametrize("chunk_size", [1, 3, 50])
def test_simulate_on_a_cluster_equals_one_process(client, tmp_path, chunk_size):
    """Same summary and the same record files, byte for byte, whatever the chunk size."""
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    one = simulate("heuristic", "random", SHORT, seed=11, matches=13, records=str(here))
    many = simulate_on(
        "heuristic",
        "random",
        SHORT,
        seed=11,
        matches=13,
        client=client,
        chunk_size=chunk_size,
        records=str(there),
    )
    assert many == one
    names = sorted(path.name for path in here.iterdir())
    assert names == sorted(path.name for path in there.iterdir()) and len(names) == 13
    for name in names:
        assert (here / name).read_bytes() == (there / name).read_bytes()


def test_simulate_command_on_a_cluster_prints_what_one_process_prints(client, capsys):
    """``--cluster ADDRESS`` prints exactly the output of ``--jobs 1``."""
    args = ["simulate", "--schedule", "3,1", "--matches", "9", "--seed", "4"]
    assert main([*args, "--jobs", "1"]) == 0
    one = capsys.readouterr().out
    address = client.scheduler.address
    assert main([*args, "--cluster", address, "--chunk-size", "2"]) == 0
    assert capsys.readouterr().out == one


def test_simulate_command_starts_a_local_cluster(capsys):
    """``--cluster local`` starts its own cluster and prints what one process prints."""
    args = ["simulate", "--schedule", "2,1", "--matches", "5", "--seed", "8"]
    assert main(args) == 0
    one = capsys.readouterr().out
    assert main([*args, "--cluster", "local", "--chunk-size", "2"]) == 0
    captured = capsys.readouterr()
    assert captured.out == one and "Traceback" not in captured.err


def test_a_failing_match_is_named_and_the_summary_says_it_is_partial(client, monkeypatch, capsys):
    """A match that raises is named on standard error; the summary is headed PARTIAL."""

    def fails(*args: object, **kwargs: object) -> None:
        summary = simulate("random", "random", SHORT, seed=1, matches=2)
        raise IncompleteRun(summary, [ItemFailure(2, "RuntimeError: boom")], 3)

    monkeypatch.setattr("backalley.cli.simulate.simulate_on_cluster", fails)
    status = main(["simulate", "--matches", "3", "--cluster", client.scheduler.address])
    captured = capsys.readouterr()
    assert status == 1
    assert "match 3 failed: RuntimeError: boom" in captured.err
    assert captured.out.startswith("PARTIAL (1 of 3 matches failed (match 3: RuntimeError: boom)")
    assert "the summary covers the other 2" in captured.out


def _play_but_not_match_five(settings, indices):
    """The real chunk of matches, except that match 5 (index 4) raises."""
    if 4 in indices:
        raise RuntimeError("the player fell over")
    return play_matches(settings, indices)


def test_a_match_that_raises_is_named_and_the_others_summed(client, monkeypatch):
    """A match whose play raises is reported by index; the other matches are summed."""
    monkeypatch.setattr("backalley.cluster.simulation.play_matches", _play_but_not_match_five)
    with pytest.raises(IncompleteRun) as caught:
        simulate_on("random", "random", SHORT, seed=3, matches=7, client=client, chunk_size=3)
    error = caught.value
    assert [failure.item for failure in error.failures] == [4]
    assert "match 5: RuntimeError: the player fell over" in str(error)
    others = [play_numbered("random", "random", SHORT, 3, index) for index in (0, 1, 2, 3, 5, 6)]
    assert error.summary == summarize([match_stats(s) for s in others], ("random", "random"))


def test_a_killed_worker_loses_and_duplicates_nothing(tmp_path):
    """Kill a worker in the middle of a run: the summary and records still equal one process's."""
    rules = Rules(schedule="short")
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    killed: list[int] = []
    with connect("local", workers=2) as dask_client:

        def kill_a_busy_worker(done: int) -> None:
            if killed:
                return
            busy = [worker for worker, keys in dask_client.processing().items() if keys]
            pids = dask_client.run(os.getpid, workers=busy[:1])
            pid = next(iter(pids.values()))
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

        many = simulate_on(
            "heuristic",
            "random",
            rules,
            seed=21,
            matches=60,
            client=dask_client,
            chunk_size=5,
            progress=kill_a_busy_worker,
            records=str(there),
        )
        assert killed, "no worker was killed"
        assert killed[0] not in dask_client.run(os.getpid).values()
        # The worker started in place of the killed one leaves Ctrl-C to the client too.
        assert set(dask_client.run(_sigint_ignored).values()) == {True}
    one = simulate("heuristic", "random", rules, seed=21, matches=60, records=str(here))
    assert many == one
    assert not _sigint_ignored()  # this process still takes Ctrl-C
    assert sorted(p.name for p in there.iterdir()) == sorted(p.name for p in here.iterdir())
    for path in here.iterdir():
        assert (there / path.name).read_bytes() == path.read_bytes()


# --- check ------------------------------------------------------------------------------


def _bad_files(tmp_path: Path) -> list[str]:
    huge = tmp_path / "huge.json"
    huge.write_text('{"format":' + "9" * 5000 + "}")
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    return [str(huge), str(broken), str(tmp_path / "missing.json")]


@pytest.mark.parametrize("ship", [False, True])
def test_check_on_a_cluster_prints_what_one_process_prints(client, capsys, ship):
    """The same lines and the same JSON, in the same order, shared path or shipped."""
    files = RECORDS * 3
    assert main(["check", *files]) == 0
    one = capsys.readouterr().out
    options = ["--cluster", client.scheduler.address, "--chunk-size", "2"]
    assert main(["check", *files, *options, *(["--ship"] if ship else [])]) == 0
    assert capsys.readouterr().out == one
    assert main(["check", "--json", *files]) == 0
    one_json = capsys.readouterr().out
    assert main(["check", "--json", *files, *options]) == 0
    assert capsys.readouterr().out == one_json


def test_bad_records_are_named_and_the_rest_checked(client, capsys, tmp_path):
    """Each bad file gets its own line, as one process gives it; every other file its report."""
    huge, broken, missing = _bad_files(tmp_path)
    files = [RECORDS[0], huge, RECORDS[1], broken, missing, RECORDS[2]]
    options = ["--cluster", client.scheduler.address, "--chunk-size", "3"]
    assert main(["check", *files, *options]) == 2
    captured = capsys.readouterr()
    assert main(["check", *files]) == 2
    assert capsys.readouterr() == captured
    verdicts, errors = captured.out.splitlines(), captured.err.splitlines()
    assert len(verdicts) == 3 and len(errors) == 3
    assert errors[0].startswith(f"backalley check: {huge}: not a record: a number has more")
    assert errors[2] == f"backalley check: {missing}: not a record: no such file"
    assert main(["check", "--json", *files, *options]) == 2
    reports = json.loads(capsys.readouterr().out)
    assert [report["file"] for report in reports] == files
    assert [reports[index]["status"] for index in (1, 3, 4)] == ["not_a_record"] * 3


def test_a_check_that_raises_on_a_worker_is_an_error_line(capsys, monkeypatch):
    """A file whose check raised on the cluster (an ItemFailure) is an error, on standard error."""
    from backalley.cli import check as check_command  # noqa: PLC0415 -- patched below

    def failing(names, **_):
        yield check_command._failed(names[0], "RuntimeError: boom")
        yield check_command.check_file(names[1])

    monkeypatch.setattr(check_command, "check_files", failing)
    assert main(["check", "odd.json", RECORDS[0]]) == 2
    captured = capsys.readouterr()
    assert (
        captured.err == "backalley check: odd.json: error: the check failed: RuntimeError: boom\n"
    )
    assert captured.out.startswith(f"{RECORDS[0]}: valid: ")


def test_standard_input_is_shipped(client, capsys, monkeypatch):
    """``-`` is read here and sent: the workers cannot read this process's standard input."""
    data = Path(RECORDS[0]).read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["check", "-", "--cluster", client.scheduler.address]) == 0
    assert capsys.readouterr().out.startswith("-: valid: a complete match")


def test_unreachable_scheduler_is_one_line(capsys, monkeypatch):
    """A scheduler that does not answer gives one line and status 2, no traceback."""
    monkeypatch.setattr("backalley.cluster.connection.CONNECT_TIMEOUT", 1)
    assert main(["check", RECORDS[0], "--cluster", "tcp://127.0.0.1:9"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("backalley check: cannot reach a Dask scheduler at 'tcp://127.0.0.1:9'")
    assert err.count("\n") == 1 and "Traceback" not in err


def _sigint_ignored() -> bool:
    return signal.getsignal(signal.SIGINT) == signal.SIG_IGN


def test_local_workers_leave_ctrl_c_to_the_client(client):
    """The workers of a local cluster ignore Ctrl-C: only the command reports it."""
    assert set(client.run(_sigint_ignored).values()) == {True}


_WITH_CTRL_C = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])"
)


def test_ctrl_c_stops_a_cluster_run_with_one_line(tmp_path):
    """Ctrl-C to the whole process group: status 130, one line saying how far, no traceback."""
    folder = tmp_path / "records"
    folder.mkdir()
    # Through exec with Ctrl-C back to its default: a job started in the background
    # (as CI may start this suite) inherits SIGINT ignored.
    command = [sys.executable, "-c", _WITH_CTRL_C, "-m", "backalley", "simulate"]
    command += ["--schedule", "short"]
    command += ["--matches", "100000", "--cluster", "local", "--records", str(folder)]
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not any(folder.iterdir()):
            # A run that ended before its first record (every match failing, say) is a
            # failure to report now, not a minute later.
            assert process.poll() is None, process.communicate()[1]
            assert time.monotonic() < deadline, "no match was played within a minute"
            time.sleep(0.1)
        os.killpg(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
    assert process.returncode == 130
    assert out == ""
    assert re.fullmatch(
        r"backalley simulate: interrupted after \d+ of 100000 matches; no summary printed\n", err
    ), err


def test_workers_read_shared_files_at_their_absolute_paths(client, capsys, monkeypatch, tmp_path):
    """Names relative to this process's folder reach the workers as absolute paths."""
    name = "copy.json"
    (tmp_path / name).write_bytes(Path(RECORDS[0]).read_bytes())
    monkeypatch.chdir(tmp_path)  # the workers stay in the folder they started in
    assert main(["check", name, "--cluster", client.scheduler.address]) == 0
    assert capsys.readouterr().out.startswith("copy.json: valid: a complete match")


def test_no_summary_when_every_match_failed(client, monkeypatch, capsys):
    """With every match failed there is nothing to sum: one line, status 1, no table."""

    def fails(*args: object, **kwargs: object) -> None:
        empty = summarize([], ("random", "random"))
        raise IncompleteRun(empty, [ItemFailure(0, "RuntimeError: boom")], 1)

    monkeypatch.setattr("backalley.cli.simulate.simulate_on_cluster", fails)
    assert main(["simulate", "--matches", "1", "--cluster", client.scheduler.address]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "backalley simulate: no match could be played: 1 of 1 matches failed "
        "(match 1: RuntimeError: boom); no other\n"
    )


def test_a_record_that_cannot_be_written_stops_a_cluster_run(client, tmp_path):
    """As in one process: the records before it written whole, none after, the count said."""
    (tmp_path / "match-00003.json").mkdir()
    with pytest.raises(RecordsNotWritten, match="and 2 records were written") as caught:
        simulate_on(
            "random",
            "random",
            SHORT,
            seed=3,
            matches=6,
            client=client,
            chunk_size=2,
            records=str(tmp_path),
        )
    assert caught.value.path == tmp_path / "match-00003.json"
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "match-00001.json",
        "match-00002.json",
        "match-00003.json",
    ]
