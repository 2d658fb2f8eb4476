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
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Final

from ..core.rules import Rules
from ..players.simulation import (
    MatchStats,
    Summary,
    check_run,
    match_stats,
    play_numbered,
    record_text,
    store_record,
    summarize,
)
from .chunks import ItemFailure, index_chunks, run_chunks
from .connection import ClusterError

if TYPE_CHECKING:
    from distributed import Client

__all__ = ["DEFAULT_MATCH_CHUNK", "IncompleteRun", "play_matches", "simulate"]

DEFAULT_MATCH_CHUNK: Final = 20
"""Matches per chunk: a fraction of a second of work or more, against ~10 ms per chunk."""

_Settings = tuple[str, str, Rules, int, bool]
"""The players' kinds, the rules, the run's seed, whether to give back records."""


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


def play_matches(
    settings: _Settings, indices: Sequence[int]
) -> list[tuple[MatchStats, str | None]]:
    """Play the matches ``indices`` of a run on a worker: each one's figures and record text."""
    ns, ew, rules, seed, records = settings
    played: list[tuple[MatchStats, str | None]] = []
    for index in indices:
        state = play_numbered(ns, ew, rules, seed, index)
        played.append((match_stats(state), record_text(state, ns, ew, index) if records else None))
    return played


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
    check_run(ns, ew, matches, records)
    if chunk_size < 1:
        raise ValueError(f"a chunk holds at least one match, not {chunk_size}")
    play = functools.partial(play_matches, (ns, ew, rules, seed, records is not None))
    failures: list[ItemFailure[int]] = []
    stream = run_chunks(client, play, index_chunks(matches, chunk_size), progress=progress)

    def played() -> Iterator[MatchStats]:
        # Added up as they come, so memory does not grow with the number of matches.
        written = 0
        for index, result in enumerate(stream):
            if isinstance(result, ItemFailure):
                failures.append(result)
                continue
            stats, text = result
            if records is not None and text is not None:
                store_record(records, index, text, written)
                written += 1
            yield stats

    # Closed here, even on Ctrl-C, so its chunks are cancelled while the client is still open.
    with contextlib.closing(stream):
        summary = summarize(played(), (ns, ew))
    if failures:
        raise IncompleteRun(summary, failures, matches)
    return summary
