"""Running ``simulate`` and ``check`` on a Dask cluster (the ``cluster`` extra).

A layer above the players and the formats, below the command line. The work is
split into deterministic chunks (match indices, record files) and given back in
chunk order, so a cluster run prints exactly what one process prints. Dask is
imported only when a cluster is used: without the extra, :func:`require` and
:func:`connect` raise :class:`ClusterError` naming it. The guide is
``docs/cluster.md``.
"""

from __future__ import annotations

from .chunks import ItemFailure, batches, index_chunks, run_chunks
from .connection import LOCAL, MISSING_EXTRA, ClusterError, connect, local_workers, require
from .simulation import DEFAULT_MATCH_CHUNK, IncompleteRun, play_matches, simulate

__all__ = [
    "DEFAULT_MATCH_CHUNK",
    "LOCAL",
    "MISSING_EXTRA",
    "ClusterError",
    "IncompleteRun",
    "ItemFailure",
    "batches",
    "connect",
    "index_chunks",
    "local_workers",
    "play_matches",
    "require",
    "run_chunks",
    "simulate",
]
