"""The options that send ``simulate`` and ``check`` to a Dask cluster (``--cluster``)."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING

from ..cluster import LOCAL, ClusterError, connect
from ._common import CommandError

if TYPE_CHECKING:
    from distributed import Client

__all__ = ["add_cluster_options", "cluster_client"]


def add_cluster_options(parser: argparse.ArgumentParser, unit: str, default_chunk: int) -> None:
    """``--cluster ADDRESS|local`` and ``--chunk-size N`` (``unit``: what a chunk holds)."""
    parser.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help=f"run on a Dask cluster: a scheduler's address (tcp://host:8786) or '{LOCAL}' "
        "to start one on this machine; the output is the same (needs the 'cluster' extra)",
    )
    parser.add_argument(
        "--chunk-size",
        type=int,
        default=default_chunk,
        metavar="N",
        help=f"{unit} per cluster task (default {default_chunk}); see docs/cluster.md",
    )


@contextmanager
def cluster_client(args: argparse.Namespace) -> Iterator[Client | None]:
    """A client for ``--cluster``, or None without it; its problems as one-line errors."""
    if args.chunk_size < 1:
        raise CommandError(f"--chunk-size must be at least 1, not {args.chunk_size}")
    if args.cluster is None:
        if getattr(args, "ship", False):
            raise CommandError("--ship sends the files to a cluster: it goes with --cluster")
        yield None
        return
    if getattr(args, "jobs", 1) != 1:
        raise CommandError("use --jobs or --cluster, not both")
    with ExitStack() as stack:
        try:
            client = stack.enter_context(connect(args.cluster))
        except ClusterError as error:
            raise CommandError(str(error)) from None
        yield client
