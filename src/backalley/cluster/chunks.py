"""Work split into numbered chunks, run on a Dask cluster, given back in order.

:func:`run_chunks` sends each chunk (a sequence of items: match indices, record
files) to the cluster as one task and yields one result per item, **in item
order**, as soon as every earlier chunk is in: whatever the number of workers
and the order in which chunks finish, the stream is the one a single process
gives. Only a bounded window of chunks is in flight, so the chunks may come
from a lazy, even endless, iterator and memory does not grow with the run.

Faults:

- A worker that dies takes its running chunks with it; the scheduler runs them
  again elsewhere. Each chunk has one key and its result is taken once, so
  nothing is lost and nothing counted twice.
- A chunk that raises is run again item by item, so the items that work still
  give their results and the one that fails is named: it gives an
  :class:`ItemFailure` with the reason, in its place in the stream.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Final, Generic, TypeVar

import attrs

from .connection import require

if TYPE_CHECKING:
    from distributed import Client

__all__ = ["ItemFailure", "batches", "index_chunks", "run_chunks"]

T = TypeVar("T")
R = TypeVar("R")

WINDOW_PER_THREAD: Final = 3
"""Chunks in flight per worker thread: enough that no worker waits for the next one."""


@attrs.frozen
class ItemFailure(Generic[T]):
    """An item whose work raised: the item and why (the exception's type and message)."""

    item: T
    reason: str


def index_chunks(total: int, size: int) -> Iterator[range]:
    """The indices ``0 .. total - 1`` in consecutive ranges of ``size`` (the last may be short).

    >>> list(index_chunks(7, 3))
    [range(0, 3), range(3, 6), range(6, 7)]
    """
    if size < 1:
        raise ValueError(f"a chunk holds at least one item, not {size}")
    return (range(start, min(start + size, total)) for start in range(0, total, size))


def batches(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """``items`` in consecutive lists of ``size`` (the last may be short), read lazily.

    >>> list(batches("abcde", 2))
    [['a', 'b'], ['c', 'd'], ['e']]
    """
    if size < 1:
        raise ValueError(f"a chunk holds at least one item, not {size}")
    source = iter(items)
    while batch := list(itertools.islice(source, size)):
        yield batch


def _reason(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__


def _failure(future: Any) -> str:
    """Why a task failed: its exception, or that it was cancelled (by a scheduler restart)."""
    if future.status == "error":
        return _reason(future.exception())
    return f"the task was {future.status} on the cluster"


@attrs.define
class _Chunk(Generic[T, R]):
    """A chunk in flight: its items, and its results as its parts come in."""

    items: Sequence[T]
    results: list[R | ItemFailure[T] | None]
    missing: int


class _OrderedRun(Generic[T, R]):
    """The bookkeeping of one :func:`run_chunks`: what is in flight, what is given back."""

    def __init__(self, client: Any, function: Callable[[Sequence[T]], list[R]], width: int) -> None:
        self.client = client
        self.function = function
        self.width = width
        # One key per chunk and run: the scheduler never mixes two runs, and a chunk run
        # again after a worker died keeps its key, so its result is taken once.
        self.run = uuid.uuid4().hex[:12]
        self.flying: dict[int, _Chunk[T, R]] = {}
        self.meta: dict[Any, tuple[int, int | None]] = {}
        self.finished = require().as_completed()
        self.next_index = 0  # the first chunk not yet given back

    def submit(self, index: int, part: int | None, items: Sequence[T]) -> None:
        """Send ``items`` (the chunk ``index``, or its item ``part``) to the cluster."""
        key = f"backalley-{self.run}-{index}" + ("" if part is None else f"-{part}")
        future = self.client.submit(self.function, items, key=key, pure=False)
        self.meta[future] = (index, part)
        self.finished.add(future)

    def top_up(self, source: Iterator[tuple[int, Sequence[T]]]) -> None:
        """Send chunks until ``width`` are in flight or waiting to be given back."""
        for index, items in itertools.islice(source, max(0, self.width - len(self.flying))):
            self.flying[index] = _Chunk(items, [None] * len(items), len(items))
            self.submit(index, None, items)

    def take(self, future: Any) -> int:
        """Record a finished task; how many items it settled (0 when it is split up)."""
        index, part = self.meta.pop(future)
        chunk = self.flying[index]
        first = 0 if part is None else part
        items = chunk.items if part is None else chunk.items[part : part + 1]
        outcome: list[R | ItemFailure[T]]
        if future.status == "finished":
            outcome = list(future.result())
            if len(outcome) != len(items):
                raise ValueError(
                    f"chunk {index} gave {len(outcome)} results for {len(items)} items"
                )
        elif part is None and len(items) > 1:
            # Find the item that fails: the others still give their results.
            for offset, item in enumerate(items):
                self.submit(index, offset, [item])
            return 0
        else:
            outcome = [ItemFailure(items[0], _failure(future))]
        future.release()
        chunk.results[first : first + len(outcome)] = outcome
        chunk.missing -= len(outcome)
        return len(outcome)

    def ready(self) -> Iterator[R | ItemFailure[T]]:
        """The results of the chunks complete from the first not yet given back."""
        while self.next_index in self.flying and self.flying[self.next_index].missing == 0:
            for result in self.flying.pop(self.next_index).results:
                assert result is not None
                yield result
            self.next_index += 1


def run_chunks(
    client: Client,
    function: Callable[[Sequence[T]], list[R]],
    chunks: Iterable[Sequence[T]],
    *,
    window: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> Generator[R | ItemFailure[T], None, None]:
    """``function(chunk)`` for each chunk on the cluster; its items' results, in order.

    ``function`` takes a chunk's items and returns one result per item; it must
    be importable by the workers (a module-level function, or a
    ``functools.partial`` of one). ``window`` bounds the chunks in flight
    (default three per worker thread). ``progress`` is told how many items are
    done as chunks finish, in any order. Leaving the iterator early (an
    interrupt, ``break``) cancels the chunks still on the cluster.
    """
    dask: Any = client
    threads = sum(dask.nthreads().values()) or 1
    width = window if window is not None else max(2, WINDOW_PER_THREAD * threads)
    if width < 1:
        raise ValueError(f"keep at least one chunk in flight, not {width}")
    run = _OrderedRun(dask, function, width)
    source = enumerate(chunks)
    done = 0
    try:
        run.top_up(source)
        for future in run.finished:
            settled = run.take(future)
            if settled:
                done += settled
                if progress is not None:
                    progress(done)
                yield from run.ready()
                run.top_up(source)
    finally:
        # Only an open client has anything to cancel (a closed one took its tasks with it).
        if run.meta and dask.status == "running":
            dask.cancel(list(run.meta))
    if run.flying:
        # as_completed ran dry with chunks unfinished: a lost connection, never silence.
        raise RuntimeError(f"chunk {run.next_index} never came back from the cluster")
