"""Load on the online table: many rooms of four scripted friends played at once to the end.

Starts ``backalley table`` as a process on 127.0.0.1 (a fresh database, no pacing, the
per-address limits raised since every bot comes from 127.0.0.1), plays ``--rooms`` rooms
of the short game at once through ``backalley.web.scripted`` (four WebSocket clients a
room, each choosing at random among the bids and cards its frame offers), downloads every
finished match's record and checks it with the library's checker, and reports the
acknowledged actions per second (each acknowledged once its commit has returned) and the
time from an action sent to its acknowledgement: median, 95th percentile, slowest; with
the load average of the machine before and after, the server's and the clients' CPU time
an action, and the bytes the server sent an action (read off the wire by the clients:
compressed frames with their headers).

    python benchmarks/table_load.py --rooms 100 --repeats 3

The clients run in ``--clients`` processes (one by default), so that the server is not
measured against one process's worth of client work only. The bots read their sockets
through ``scripted.play_seat_light`` (the ``websockets`` library's sans-I/O protocol,
each message answered in the event loop's callback) unless ``--bots websockets`` (the
library's asyncio client, the bots before 2026-12-05 13:00 UTC).

With ``--processes N`` the table is ``backalley table --processes N`` behind Caddy (the
Caddyfile ``--print-caddyfile`` writes, over plain HTTP on loopback), and the bots play
through Caddy: the server's CPU is the N processes' together, Caddy's is reported apart.

    python benchmarks/table_load.py --rooms 100 --processes 2 --repeats 3
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "web"))

from table_helpers import ProxiedTable, Server

from backalley.formats.checking import check
from backalley.formats.records import loads
from backalley.web.scripted import RoomRun, play_friends_room

SERVER_FLAGS = (
    "--sockets-per-address",
    "100000",
    "--rooms-per-minute",
    "100000",
    "--requests-per-second",
    "100000",
)
"""Every bot comes from 127.0.0.1: the per-address limits would refuse most of them."""


async def _rooms(base: str, seeds: range, schedule: str, light: bool = True) -> list[RoomRun]:
    return await asyncio.gather(
        *(play_friends_room(base, seed, schedule=schedule, light=light) for seed in seeds)
    )


def _client(
    base: str, seeds: range, schedule: str, light: bool
) -> tuple[list[tuple[str, list[float]]], int, float]:
    """One client process's rooms: each host token and latencies; bytes received; its CPU."""
    before = time.process_time()
    runs = asyncio.run(_rooms(base, seeds, schedule, light))
    cpu = time.process_time() - before
    received = sum(run.received_bytes for run in runs)
    return [(run.host_token, run.latencies) for run in runs], received, cpu


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _started(folder: Path, processes: int | None, flags: list[str]) -> tuple[str, list[int], int]:
    """The table started: its address, its processes' ids, Caddy's id (0 without it)."""
    if processes is None:
        server = Server(folder / "rooms.db", flags=flags)
        _running.append(server.stop)
        return server.base, [server.process.pid], 0
    table = ProxiedTable(folder, processes, flags=flags)
    _running.append(table.stop)
    return table.base, list(table.children().values()), table.caddy.pid


_running: list[Callable[[], None]] = []
"""How to stop what :func:`_started` started."""


def run_once(  # noqa: PLR0913, PLR0917 -- what one run is made of
    rooms: int,
    schedule: str,
    clients: int,
    flags: list[str],
    processes: int | None = None,
    bots: str = "light",
) -> dict[str, object]:
    """One run: a fresh table (``processes`` behind Caddy, or one alone) and database."""
    with tempfile.TemporaryDirectory() as folder:
        base, pids, caddy = _started(Path(folder), processes, [*SERVER_FLAGS, *flags])
        try:
            load_before = os.getloadavg()[0]
            cpu_before = sum(_cpu_seconds(pid) for pid in pids)
            caddy_before = _cpu_seconds(caddy) if caddy else 0.0
            started = time.perf_counter()
            shares = [range(i, rooms, clients) for i in range(clients)]
            if clients == 1:
                results = [_client(base, shares[0], schedule, bots == "light")]
            else:
                with multiprocessing.get_context("spawn").Pool(clients) as pool:
                    results = pool.starmap(
                        _client, [(base, share, schedule, bots == "light") for share in shares]
                    )
            elapsed = time.perf_counter() - started
            cpu = sum(_cpu_seconds(pid) for pid in pids) - cpu_before
            caddy_cpu = _cpu_seconds(caddy) - caddy_before if caddy else 0.0
            # The clients' CPU: each client process's own, while it played its rooms.
            client_cpu = sum(cpu for _, _, cpu in results)
            # What the server sent the bots' sockets: the bytes they read off the wire.
            received = sum(count for _, count, _ in results)
            load_after = os.getloadavg()[0]
            runs = [run for result, _, _ in results for run in result]
            valid = 0
            for host, _ in runs:
                with urllib.request.urlopen(f"{base}/record/{host}") as answer:
                    report = check(loads(answer.read().decode()))
                valid += report.complete and report.consistent
        finally:
            _running.pop()()
    latencies = sorted(latency for _, run in runs for latency in run)
    p95 = latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))]
    return {
        "rooms": rooms,
        "schedule": schedule,
        "server_flags": " ".join(flags),
        "processes": processes or "1, no proxy",
        "clients": clients,
        "bots": bots,
        "actions_acknowledged": len(latencies),
        "records_valid": valid,
        "seconds": round(elapsed, 1),
        "acks_per_second": round(len(latencies) / elapsed),
        "ack_ms_median": round(statistics.median(latencies) * 1000, 1),
        "ack_ms_p95": round(p95 * 1000, 1),
        "ack_ms_max": round(latencies[-1] * 1000, 1),
        "server_cpu_share": round(cpu / elapsed, 2),
        # Less noisy than the rate on a shared machine: the server's CPU an action, and
        # so the rate one core to itself would allow.
        "server_cpu_ms_per_action": round(1000 * cpu / len(latencies), 3),
        "proxy_cpu_ms_per_action": round(1000 * caddy_cpu / len(latencies), 3),
        "client_cpu_share": round(client_cpu / elapsed, 2),
        "client_cpu_ms_per_action": round(1000 * client_cpu / len(latencies), 3),
        "bytes_per_action": round(received / len(latencies)),
        "load_before": round(load_before, 1),
        "load_after": round(load_after, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rooms", type=int, default=100)
    parser.add_argument("--schedule", default="short")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--clients", type=int, default=1, help="client processes")
    parser.add_argument("--no-compression", action="store_true", help="serve with --no-compression")
    parser.add_argument("--websocket", default=None, help="serve with this --websocket")
    parser.add_argument(
        "--compression-level", type=int, default=None, help="serve with this --compression-level"
    )
    parser.add_argument(
        "--processes",
        type=int,
        default=None,
        help="serve with --processes N behind Caddy (default: one process, no proxy)",
    )
    parser.add_argument(
        "--bots",
        choices=("light", "websockets"),
        default="light",
        help="the bots' client: the sans-I/O one read in callbacks (default), or the "
        "websockets library's asyncio client",
    )
    args = parser.parse_args()
    flags = ["--no-compression"] if args.no_compression else []
    if args.compression_level is not None:
        flags += ["--compression-level", str(args.compression_level)]
    if args.websocket:
        flags += ["--websocket", args.websocket]
    results = []
    for _ in range(args.repeats):
        result = run_once(args.rooms, args.schedule, args.clients, flags, args.processes, args.bots)
        print(json.dumps(result), flush=True)
        results.append(result)
    if args.repeats > 1:
        summary = {
            key: statistics.median(float(r[key]) for r in results)  # type: ignore[arg-type]
            for key in (
                "acks_per_second",
                "ack_ms_median",
                "ack_ms_p95",
                "server_cpu_ms_per_action",
                "proxy_cpu_ms_per_action",
                "client_cpu_ms_per_action",
                "bytes_per_action",
                "load_before",
            )
        }
        print(json.dumps({"median_of": args.repeats, **summary}))
    return 0 if all(r["records_valid"] == args.rooms for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
