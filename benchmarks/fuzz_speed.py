"""Fuzzer speed with backalley's own server as the engine: full standard matches a second.

The fuzzer and the server share the machine, so the figure that does not
depend on other load is matches per CPU second of both processes together
(the fuzzer's own time plus its child's): what one core gives when it does
nothing else. Wall-clock matches a second are printed too.

    python benchmarks/fuzz_speed.py [--matches 100] [--repeats 5]
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import sys
import time

from backalley import Rules
from backalley.protocol.fuzzer import Mode, Settings, fuzz


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def measure(matches: int, seed: int, mode: Mode) -> tuple[float, float, int]:
    """CPU seconds, wall seconds and requests for one run of ``matches`` standard matches."""
    command = f"{sys.executable} -m backalley.protocol"
    settings = Settings(matches=matches, seed=seed, rules=Rules(), schedule_only=True, mode=mode)
    cpu, wall = _cpu(), time.perf_counter()
    result = fuzz(command, settings)
    cpu, wall = _cpu() - cpu, time.perf_counter() - wall
    if result.difference is not None:
        raise SystemExit(f"a difference with our own server: {result.difference.message}")
    return cpu, wall, result.requests


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--reasons", default="strict", choices=[mode.value for mode in Mode])
    args = parser.parse_args()
    print(
        f"{platform.python_implementation()} {platform.python_version()}, "
        f"{platform.machine()}, {os.cpu_count()} CPUs; {args.matches} standard matches a run"
    )
    per_cpu, per_wall = [], []
    for repeat in range(args.repeats):
        cpu, wall, requests = measure(args.matches, repeat, Mode(args.reasons))
        per_cpu.append(args.matches / cpu)
        per_wall.append(args.matches / wall)
        print(
            f"  run {repeat + 1}: {args.matches / cpu:6.1f} matches per CPU second, "
            f"{args.matches / wall:6.1f} a wall second, "
            f"{requests / args.matches:.0f} requests a match"
        )
    print(
        f"median: {statistics.median(per_cpu):.1f} matches per CPU second "
        f"(both processes), {statistics.median(per_wall):.1f} a wall second"
    )


if __name__ == "__main__":
    main()
