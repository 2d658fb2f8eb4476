"""The parts of the cluster runner that need no Dask: chunking, options, messages.

These run in the default suite, without the ``cluster`` extra; the runs on a
cluster are in ``test_cluster.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from backalley.cli import main
from backalley.cluster import MISSING_EXTRA, ClusterError, batches, index_chunks, require

ROOT = Path(__file__).resolve().parent.parent
RECORDS = sorted(str(path) for path in (ROOT / "conformance" / "records").glob("*.json"))


@given(total=st.integers(0, 500), size=st.integers(1, 60))
def test_index_chunks_cover_every_index_once_in_order(total, size):
    """Chunks of match indices: consecutive, in order, none empty, none over the size."""
    chunks = list(index_chunks(total, size))
    assert [index for chunk in chunks for index in chunk] == list(range(total))
    assert all(1 <= len(chunk) <= size for chunk in chunks)
    assert all(len(chunk) == size for chunk in chunks[:-1])


@given(items=st.lists(st.integers()), size=st.integers(1, 20))
def test_batches_keep_every_item_in_order(items, size):
    """Chunks of files: the same items in the same order, full chunks but for the last."""
    chunks = list(batches(items, size))
    assert [item for chunk in chunks for item in chunk] == items
    assert all(len(chunk) == size for chunk in chunks[:-1])
    assert all(1 <= len(chunk) <= size for chunk in chunks)


def test_batches_read_lazily():
    """An endless source is read one chunk at a time (a run of any length fits in memory)."""
    endless = iter(int, 1)  # zeros forever
    stream = batches(endless, 3)
    assert next(stream) == [0, 0, 0] and next(stream) == [0, 0, 0]


@pytest.mark.parametrize("size", [0, -2])
def test_empty_chunks_are_refused(size):
    """A chunk size below one is refused with a sentence."""
    with pytest.raises(ValueError, match="at least one item"):
        list(index_chunks(5, size))
    with pytest.raises(ValueError, match="at least one item"):
        list(batches([1], size))


@pytest.mark.parametrize(
    "argv",
    [
        ["simulate", "--matches", "2", "--cluster", "local"],
        ["check", RECORDS[0], "--cluster", "tcp://127.0.0.1:8786"],
    ],
)
def test_without_the_extra_cluster_names_it_in_one_line(argv, monkeypatch, capsys):
    """Without Dask, ``--cluster`` says which extra to install, in one line, status 2."""
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed now fails
    with pytest.raises(ClusterError, match="backalley\\[cluster\\]"):
        require()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err == f"backalley {argv[0]}: {MISSING_EXTRA}\n"
    assert "pip install 'backalley[cluster]'" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["simulate", "--matches", "2", "--chunk-size", "0"], "--chunk-size must be at least 1"),
        (["check", RECORDS[0], "--chunk-size", "-1"], "--chunk-size must be at least 1"),
        (["simulate", "--jobs", "2", "--cluster", "local"], "use --jobs or --cluster, not both"),
        (["check", RECORDS[0], "--ship"], "--ship sends the files to a cluster"),
    ],
)
def test_bad_cluster_options_are_refused(argv, message, capsys):
    """Bad cluster options give one line and status 2, before any cluster is started."""
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_an_interrupted_simulation_says_how_far_it_got(monkeypatch, capsys):
    """Ctrl-C in a run says how many matches were done and that no summary was printed."""

    def interrupted(*args, progress, **kwargs):
        progress(1)
        progress(2)
        raise KeyboardInterrupt

    monkeypatch.setattr("backalley.cli.simulate.simulate", interrupted)
    assert main(["simulate", "--matches", "5"]) == 130
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "backalley simulate: interrupted after 2 of 5 matches; no summary printed\n"
    )


@pytest.mark.parametrize("as_json", [False, True])
def test_an_interrupted_check_says_how_far_it_got(monkeypatch, capsys, as_json):
    """Ctrl-C in a check: the whole reports printed so far, and how many files they cover."""
    from backalley.cli import check  # noqa: PLC0415

    real = check.check_file

    def third_is_interrupted(name, **kwargs):
        if name == RECORDS[2]:
            raise KeyboardInterrupt
        return real(name, **kwargs)

    monkeypatch.setattr(check, "check_file", third_is_interrupted)
    assert main(["check", *RECORDS[:4], *(["--json"] if as_json else [])]) == 130
    captured = capsys.readouterr()
    if as_json:
        assert captured.out == ""
        assert captured.err == "backalley check: interrupted after 2 of 4 files\n"
    else:
        assert [line.split(":")[0] for line in captured.out.splitlines()] == RECORDS[:2]
        assert captured.err == (
            "backalley check: interrupted after 2 of 4 files; each line above is a whole report\n"
        )
