"""``simulate`` on a Dask cluster: the same matches, the same summary, byte for byte.

The run's matches are numbered from 0 and split into chunks of consecutive
indices; match ``i`` is played from its own seed (:func:`match_seed` of the
run seed and ``i``), so where a chunk runs changes nothing. The results come
back in index order (:func:`~backalley.cluster.chunks.run_chunks`), so the
summary adds them up in the order one process does. Records, when asked for,
are written by the client as the matches come back: the workers need no shared
folder, and a worker killed mid-write leaves no half file.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Generator, Sequence
from typing import TYPE_CHECKING, Final

from ..core.rules import Rules
from ..players.simulation import Played, RunSettings, Summary, play_one
from ..players.simulation import simulate as simulate_here
from .chunks import ItemFailure, index_chunks, run_chunks
from .connection import ClusterError

if TYPE_CHECKING:
    from distributed import Client

__all__ = ["DEFAULT_MATCH_CHUNK", "IncompleteRun", "play_matches", "simulate"]

DEFAULT_MATCH_CHUNK: Final = 20
"""Matches per chunk: a fraction of a second of work or more, against ~10 ms per chunk."""


class IncompleteRun(ClusterError):
    """Some matches failed: ``failures`` names each, ``summary`` covers only the others."""

    def __init__(self, summary: Summary, failures: list[ItemFailure[int]], matches: int) -> None:
        first = failures[0]
        rest = f"the summary covers the other {summary.matches}" if summary.matches else "no other"
        super().__init__(
            f"{len(failures)} of {matches} matches failed (match {first.item + 1}: "
            f"{first.reason}); {rest}"
        )
        self.summary = summary
        self.failures = failures


def play_matches(settings: RunSettings, indices: Sequence[int]) -> list[Played]:
    """Play the matches ``indices`` of a run on a worker: each one's number, figures, record."""
    ns, ew, rules, seed, records = settings
    return [play_one((ns, ew, rules, seed, index, records, None)) for index in indices]


class _OnCluster:
    """A :data:`~backalley.players.simulation.Runner` on a cluster; it keeps the failures."""

    def __init__(
        self, client: Client, chunk_size: int, progress: Callable[[int], None] | None
    ) -> None:
        self.client = client
        self.chunk_size = chunk_size
        self.progress = progress
        self.failures: list[ItemFailure[int]] = []

    def __call__(
        self, settings: RunSettings, matches: int, duplicate: bool
    ) -> Generator[Played, None, None]:
        if duplicate:
            raise ValueError("a duplicate run is played on this machine only")
        play = functools.partial(play_matches, settings)
        chunks = index_chunks(matches, self.chunk_size)
        stream = run_chunks(self.client, play, chunks, progress=self.progress)
        # Closed here, even on Ctrl-C, so its chunks are cancelled while the client is open.
        with contextlib.closing(stream):
            for result in stream:
                if isinstance(result, ItemFailure):
                    self.failures.append(result)
                else:
                    yield result


def simulate(  # noqa: PLR0913 - the run's settings, keyword-only after the players
    ns: str,
    ew: str,
    rules: Rules,
    *,
    seed: int,
    matches: int,
    client: Client,
    chunk_size: int = DEFAULT_MATCH_CHUNK,
    progress: Callable[[int], None] | None = None,
    records: str | None = None,
) -> Summary:
    """:func:`backalley.players.simulation.simulate`, the matches played on ``client``'s cluster.

    The summary, and each record written to ``records``, are exactly those of a
    run in one process. ``progress`` is told how many matches are done as
    chunks finish. Matches that raise are named in :class:`IncompleteRun`,
    raised after every other match is played.
    """
    if chunk_size < 1:
        raise ValueError(f"a chunk holds at least one match, not {chunk_size}")
    runner = _OnCluster(client, chunk_size, progress)
    summary = simulate_here(
        ns, ew, rules, seed=seed, matches=matches, records=records, runner=runner
    )
    if runner.failures:
        raise IncompleteRun(summary, runner.failures, matches)
    return summary
