"""The system calls the table makes an action, at one or several processes behind Caddy.

Counts that the machine's load cannot move: ``perf stat`` on the kernel's syscall
tracepoints, attached to the table's processes while ``--rooms`` rooms of four bots
play the short game through Caddy (as ``table_load.py --processes N`` plays them):
disk flushes (``fdatasync``: one a commit group), turns of the event loop
(``epoll_wait``), socket sends and receives, and lock waits (``futex``), each
divided by the actions acknowledged.

    python benchmarks/table_syscalls.py --processes 1 --rooms 40
    python benchmarks/table_syscalls.py --processes 2 --rooms 40

Needs Linux's ``perf`` with access to the tracepoints (root, or
``kernel.perf_event_paranoid`` at -1) and Debian's ``caddy``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "web"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from table_helpers import ProxiedTable
from table_load import SERVER_FLAGS, _rooms

CALLS = ("fdatasync", "epoll_wait", "sendto", "recvfrom", "futex")
"""The system calls counted."""


def count(processes: int, rooms: int) -> dict[str, object]:
    """One run: the actions acknowledged and each call's count an action."""
    folder = Path(tempfile.mkdtemp())
    table = ProxiedTable(folder, processes, flags=list(SERVER_FLAGS))
    try:
        pids = ",".join(str(pid) for pid in table.children().values())
        events = ",".join(f"syscalls:sys_enter_{call}" for call in CALLS)
        perf = subprocess.Popen(
            ["perf", "stat", "-x", ",", "-e", events, "-p", pids],
            stderr=subprocess.PIPE,
            text=True,
        )
        time.sleep(0.5)  # perf attached before the first room is made
        runs = asyncio.run(_rooms(table.base, range(rooms), "short"))
        perf.send_signal(signal.SIGINT)
        _, report = perf.communicate(timeout=30)
    finally:
        table.stop()
        shutil.rmtree(folder, ignore_errors=True)
    actions = sum(len(run.latencies) for run in runs)
    counted: dict[str, object] = {"processes": processes, "rooms": rooms, "actions": actions}
    for line in report.splitlines():
        fields = line.split(",")
        if len(fields) > 2 and fields[0].strip().isdigit():
            call = fields[2].rsplit("sys_enter_", 1)[-1]
            counted[f"{call}_per_action"] = round(int(fields[0]) / actions, 3)
    return counted


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--rooms", type=int, default=40)
    args = parser.parse_args()
    if shutil.which("perf") is None:
        print("needs Linux's perf (Debian: linux-perf)", file=sys.stderr)
        return 2
    print(json.dumps(count(args.processes, args.rooms)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
