"""What the table's server does an action, in counts the machine's load cannot move.

Starts ``backalley table`` on 127.0.0.1 (one process, no proxy, a fresh database),
plays one room of four scripted friends to warm it (imports, caches), then
``--rooms`` rooms of the short game at once, and reports, divided by the actions
acknowledged:

- ``instructions``: the server's instructions (valgrind's callgrind, user space,
  every thread), counted from after the warming room (``callgrind_control -z``) to
  the end of the rooms (``callgrind_control -d``);
- with ``--syscalls`` instead, the server run natively: its system calls by kind
  (``perf stat`` on the kernel's syscall tracepoints, attached to the server while
  the rooms play; root, or ``kernel.perf_event_paranoid`` at -1).

    python benchmarks/table_instructions.py --rooms 3
    python benchmarks/table_instructions.py --rooms 20 --syscalls

The bots are ``scripted.play_friends_room``'s (``--bots light`` for the lighter
client). Run with ``PYTHONPATH`` naming another tree's ``src``, it counts that code's
server (and bots). Needs Debian's ``valgrind`` (or ``perf`` for ``--syscalls``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from backalley.web.scripted import RoomRun, play_friends_room

sys.path.insert(0, str(Path(__file__).resolve().parent))
from table_load import SERVER_FLAGS

SYSCALLS = ("sendto", "recvfrom", "epoll_wait", "epoll_ctl", "futex", "fdatasync")
"""The system calls counted with ``--syscalls``."""

FLAGS = ("--pace", "0", *SERVER_FLAGS, "--messages-per-second", "100000")
"""Every bot comes from 127.0.0.1, and a few rooms alone play fast: limits raised."""


async def _play(base: str, seeds: range, light: bool) -> list[RoomRun]:
    # ``light`` named only when asked: the code before the lighter client is counted too.
    extra = {"light": True} if light else {}
    return await asyncio.gather(*(play_friends_room(base, seed, **extra) for seed in seeds))


def count(rooms: int, *, syscalls: bool, light: bool) -> dict[str, object]:
    """One run: the server started (under callgrind unless ``syscalls``), the counts."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "callgrind.out"
        server = [sys.executable, "-m", "backalley", "table", "--port", "0"]
        server += ["--db", str(Path(folder) / "rooms.db"), *FLAGS]
        if not syscalls:
            server = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *server]
        process = subprocess.Popen(
            server, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
        )
        try:
            assert process.stdout is not None
            found = re.search(r"127\.0\.0\.1:(\d+)/", process.stdout.readline())
            if found is None:
                raise RuntimeError("the server did not start")
            base = f"http://127.0.0.1:{found.group(1)}"
            asyncio.run(_play(base, range(10_000, 10_001), light))
            if syscalls:
                events = ",".join(f"syscalls:sys_enter_{name}" for name in SYSCALLS)
                perf = subprocess.Popen(
                    ["perf", "stat", "-x", ",", "-e", events, "-p", str(process.pid)],
                    stderr=subprocess.PIPE,
                    text=True,
                )
                time.sleep(0.5)  # perf attached before the rooms start
            else:
                subprocess.run(
                    ["callgrind_control", "-z", str(process.pid)], check=True, capture_output=True
                )
            runs = asyncio.run(_play(base, range(rooms), light))
            actions = sum(len(run.latencies) for run in runs)
            result: dict[str, object] = {"rooms": rooms, "actions": actions}
            if syscalls:
                perf.send_signal(signal.SIGINT)
                _, report = perf.communicate(timeout=60)
                for line in report.splitlines():
                    fields = line.split(",")
                    if len(fields) > 2 and "sys_enter_" in fields[2]:
                        name = fields[2].split("sys_enter_", 1)[1]
                        result[name] = round(int(fields[0]) / actions, 3)
            else:
                subprocess.run(
                    ["callgrind_control", "-d", str(process.pid)], check=True, capture_output=True
                )
                dumped = sorted(Path(folder).glob("callgrind.out.*"))
                text = dumped[-1].read_text()
                total = re.search(r"^(?:totals|summary): (\d+)", text, re.MULTILINE)
                assert total is not None
                result["instructions"] = round(int(total.group(1)) / actions)
        finally:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=120)
            except subprocess.TimeoutExpired:
                process.kill()
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rooms", type=int, default=3)
    parser.add_argument("--syscalls", action="store_true", help="count system calls (perf)")
    parser.add_argument("--bots", choices=("websockets", "light"), default="websockets")
    args = parser.parse_args()
    print(json.dumps(count(args.rooms, syscalls=args.syscalls, light=args.bots == "light")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
