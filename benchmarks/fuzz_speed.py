"""Fuzzer speed: full standard matches per CPU second of the fuzzer and the engine together.

The fuzzer and the engine share the machine, so the figure that does not depend
on other load is matches per CPU second of all the processes together (the
fuzzer's own time plus its engine's): what one core gives when it does nothing
else. Wall-clock matches a second are printed too. Engines:

- ``serve``: backalley's own server, whose replies are the reference's byte for byte;
- ``reworded``: the same server wording its refusals, spacing and ordering its replies
  its own way (``tests/wrong_engines.py reworded``), as any other engine does: every
  refusal differs in bytes and must be compared by meaning;
- ``js``: the JavaScript adapter of docs/protocol.md under Node.js, its engine calls
  answered by ``backalley serve`` (``tests/js/serve_engine.js``); the CPU of that
  server, a grandchild the fuzzer cannot wait for, is reported by the server itself.

    python benchmarks/fuzz_speed.py [--engine serve|reworded|js] [--matches 100] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import shlex
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from backalley import Rules
from backalley.protocol.fuzzer import Mode, Settings, fuzz

ROOT = Path(__file__).resolve().parent.parent


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


_TIMED_SERVE = """
import atexit, resource, sys
from backalley.protocol.server import serve
def _report():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    with open(sys.argv[1], "a") as out:
        out.write(f"{usage.ru_utime + usage.ru_stime}\\n")
atexit.register(_report)
sys.exit(serve(sys.stdin.buffer, sys.stdout.buffer))
"""


def _js_command(workdir: Path) -> tuple[str, Path]:
    """The adapter of docs/protocol.md as a Node.js command, and the file its server's CPU
    seconds are written to."""
    node = shutil.which("node")
    if node is None:
        raise SystemExit("--engine js needs Node.js (node) on the PATH")
    page = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    [example] = re.findall(r"```javascript\n(.*?)```", page, re.S)
    engine = json.dumps(str(ROOT / "tests" / "js" / "serve_engine.js"))
    script = workdir / "adapter.js"
    script.write_text(f"const engine = require({engine});\n{example}", encoding="utf-8")
    timed = workdir / "timed_serve.py"
    timed.write_text(_TIMED_SERVE, encoding="utf-8")
    cpu_file = workdir / "serve_cpu.txt"
    serve = f"{shlex.quote(sys.executable)} {shlex.quote(str(timed))} {shlex.quote(str(cpu_file))}"
    os.environ["BACKALLEY_SERVE"] = serve
    return f"{shlex.quote(node)} {shlex.quote(str(script))}", cpu_file


def _grandchild_cpu(cpu_file: Path | None) -> float:
    if cpu_file is None:
        return 0.0
    # The server writes its figure when its input closes, just after the adapter exits.
    for _ in range(100):
        if cpu_file.exists() and cpu_file.read_text().strip():
            break
        time.sleep(0.05)
    seconds = sum(float(line) for line in cpu_file.read_text().split())
    cpu_file.unlink()
    return seconds


def measure(
    command: str, matches: int, seed: int, mode: Mode, cpu_file: Path | None
) -> tuple[float, float, int]:
    """CPU seconds, wall seconds and requests for one run of ``matches`` standard matches."""
    settings = Settings(matches=matches, seed=seed, rules=Rules(), schedule_only=True, mode=mode)
    cpu, wall = _cpu(), time.perf_counter()
    result = fuzz(command, settings)
    wall = time.perf_counter() - wall
    cpu = _cpu() - cpu + _grandchild_cpu(cpu_file)
    if result.difference is not None:
        raise SystemExit(f"a difference with a right engine: {result.difference.message}")
    return cpu, wall, result.requests


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", default="serve", choices=["serve", "reworded", "js"])
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--reasons", default="strict", choices=[mode.value for mode in Mode])
    args = parser.parse_args()
    cpu_file = None
    with tempfile.TemporaryDirectory() as workdir:
        if args.engine == "serve":
            command = f"{shlex.quote(sys.executable)} -m backalley.protocol"
        elif args.engine == "reworded":
            wrong = ROOT / "tests" / "wrong_engines.py"
            command = f"{shlex.quote(sys.executable)} {shlex.quote(str(wrong))} reworded"
        else:
            command, cpu_file = _js_command(Path(workdir))
        print(
            f"{platform.python_implementation()} {platform.python_version()}, "
            f"{platform.machine()}, {os.cpu_count()} CPUs; engine {args.engine}; "
            f"{args.matches} standard matches a run"
        )
        per_cpu, per_wall = [], []
        for repeat in range(args.repeats):
            cpu, wall, requests = measure(
                command, args.matches, repeat, Mode(args.reasons), cpu_file
            )
            per_cpu.append(args.matches / cpu)
            per_wall.append(args.matches / wall)
            print(
                f"  run {repeat + 1}: {args.matches / cpu:6.1f} matches per CPU second, "
                f"{args.matches / wall:6.1f} a wall second, "
                f"{requests / args.matches:.0f} requests a match"
            )
    print(
        f"median: {statistics.median(per_cpu):.1f} matches per CPU second "
        f"(all processes), {statistics.median(per_wall):.1f} a wall second"
    )


if __name__ == "__main__":
    main()
