"""Load on the online table: many rooms of four scripted friends played at once to the end.

Starts ``backalley table`` as a process on 127.0.0.1 (a fresh database, no pacing),
plays ``--rooms`` rooms of the short game at once through
``backalley.web.scripted`` (four WebSocket clients a room, each choosing at random
among the bids and cards its frame offers), downloads every finished match's record
and checks it with the library's checker, and reports the time from an action sent to
its acknowledgement (the action stored): median, 95th percentile, slowest.

    python benchmarks/table_load.py --rooms 50
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "web"))

from table_helpers import Server

from backalley.formats.checking import check
from backalley.formats.records import loads
from backalley.web.scripted import play_friends_room


async def _rooms(base: str, count: int, schedule: str) -> list:
    return await asyncio.gather(
        *(play_friends_room(base, seed, schedule=schedule) for seed in range(count))
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=50)
    parser.add_argument("--schedule", default="short")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        server = Server(Path(folder) / "rooms.db")
        try:
            started = time.perf_counter()
            runs = asyncio.run(_rooms(server.base, args.rooms, args.schedule))
            elapsed = time.perf_counter() - started
            valid = 0
            for run in runs:
                with urllib.request.urlopen(f"{server.base}/record/{run.host_token}") as answer:
                    report = check(loads(answer.read().decode()))
                valid += report.complete and report.consistent
        finally:
            server.stop()
    latencies = sorted(latency for run in runs for latency in run.latencies)
    p95 = latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))]
    result = {
        "rooms": args.rooms,
        "schedule": args.schedule,
        "actions_acknowledged": len(latencies),
        "records_valid": valid,
        "seconds": round(elapsed, 1),
        "ack_ms_median": round(statistics.median(latencies) * 1000, 1),
        "ack_ms_p95": round(p95 * 1000, 1),
        "ack_ms_max": round(latencies[-1] * 1000, 1),
    }
    print(json.dumps(result))
    return 0 if valid == args.rooms else 1


if __name__ == "__main__":
    sys.exit(main())
