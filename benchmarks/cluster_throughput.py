"""Throughput of simulate and check: one process, two, and a Dask LocalCluster.

Prints matches per second for ``simulate`` (``--jobs 1``, ``--jobs 2``,
``--cluster local``), records per second for ``check`` (one process, the
cluster with shared files, the cluster with ``--ship``), the cost of one chunk
on the cluster, and ``simulate`` at several chunk sizes. Medians of
``--repeats`` runs; the cluster is started once and its start-up is reported
on its own. Needs the ``cluster`` extra.

    .venv/bin/python benchmarks/cluster_throughput.py
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from backalley import Rules
from backalley.cli.check import check_files
from backalley.cluster import connect, index_chunks, local_workers, run_chunks
from backalley.cluster import simulate as simulate_on
from backalley.players.simulation import simulate


def median_seconds(work: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def echo(items: Sequence[int]) -> list[int]:
    """A chunk that does nothing: what is left is the cluster's own cost."""
    return list(items)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--records", type=int, default=400)
    parser.add_argument("--schedule", default="short")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rules = Rules(schedule=args.schedule)
    n, repeats = args.matches, args.repeats
    print(
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}, load {os.getloadavg()[0]:.1f}; "
        f"{n} matches heuristic v random, {args.schedule} schedule; "
        f"median of {repeats}"
    )

    def run(jobs: int) -> None:
        simulate("heuristic", "random", rules, seed=1, matches=n, jobs=jobs)

    for jobs in (1, 2):
        seconds = median_seconds(lambda jobs=jobs: run(jobs), repeats)
        print(f"simulate --jobs {jobs}: {n / seconds:8.1f} matches/s")

    with tempfile.TemporaryDirectory() as folder:
        simulate("heuristic", "random", rules, seed=2, matches=args.records, jobs=2, records=folder)
        files = sorted(str(path) for path in Path(folder).iterdir())
        seconds = median_seconds(lambda: list(check_files(files)), repeats)
        print(f"check, one process:  {len(files) / seconds:8.1f} records/s")

        start = time.perf_counter()
        with connect("local") as client:
            print(
                f"--cluster local: {local_workers()} workers, started in "
                f"{time.perf_counter() - start:.1f} s (not counted below)"
            )
            seconds = median_seconds(
                lambda: simulate_on("heuristic", "random", rules, seed=1, matches=n, client=client),
                repeats,
            )
            print(f"simulate --cluster local: {n / seconds:8.1f} matches/s (default chunks)")
            for ship in (False, True):
                seconds = median_seconds(
                    lambda ship=ship: list(check_files(files, client=client, ship=ship)),
                    repeats,
                )
                how = "--ship" if ship else "shared files"
                print(f"check --cluster local, {how}: {len(files) / seconds:8.1f} records/s")
            chunks = 200
            seconds = median_seconds(
                lambda: list(run_chunks(client, echo, index_chunks(chunks, 1))), repeats
            )
            print(f"one empty chunk on the cluster: {1000 * seconds / chunks:.2f} ms")
            for size in (1, 5, 20, 50, 200):
                seconds = median_seconds(
                    lambda size=size: simulate_on(
                        "heuristic",
                        "random",
                        rules,
                        seed=1,
                        matches=n,
                        client=client,
                        chunk_size=size,
                    ),
                    repeats,
                )
                print(f"simulate --cluster local --chunk-size {size}: {n / seconds:8.1f} matches/s")


if __name__ == "__main__":
    main()
