"""Run the default test suite against a rule made wrong, and time how long it takes to fail.

The mutant (issue 25): the throw-in test counts a Board as a pass, so every deal
in which nobody bids a number, every one-card deal among them, is thrown in and
dealt again, forever. A suite that fails fast ends, failing, well inside its
time limit; one whose loops have no bound runs into the per-test timeout again
and again. ``docs/testing.md`` says how this was checked.

    .venv/bin/python scripts/mutant_run.py            # the whole default suite
    .venv/bin/python scripts/mutant_run.py -- -x      # extra pytest arguments

The working tree is copied (the files git tracks, as they are now) into a
temporary folder, the rule is changed there, and pytest runs there with that
copy first on the import path; the working tree is never changed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parent.parent
FLOW: Final = Path("src/backalley/core/flow.py")
RIGHT: Final = "return thrown_in_codes([0 if bid.is_pass else 1 for bid in bids])"
WRONG: Final = "return thrown_in_codes([0 if bid.is_pass or bid.board else 1 for bid in bids])"


def copy_tree(target: Path) -> None:
    """The files git tracks (and untracked ones it does not ignore), as they are now."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, listed):
        source = ROOT / os.fsdecode(name)
        if source.is_file():
            (target / os.fsdecode(name)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / os.fsdecode(name))


def main() -> int:
    """Copy, break the rule, run pytest; print the time it took and pytest's last lines."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pytest_args", nargs="*", help="extra arguments for pytest")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="backalley-mutant-") as folder:
        copy = Path(folder)
        copy_tree(copy)
        source = (copy / FLOW).read_text(encoding="utf-8")
        if source.count(RIGHT) != 1:
            print(f"the throw-in rule is no longer written as {RIGHT!r} in {FLOW}")
            return 2
        (copy / FLOW).write_text(source.replace(RIGHT, WRONG), encoding="utf-8")
        env = {**os.environ, "PYTHONPATH": str(copy / "src")}
        started = time.monotonic()
        # pytest's lines are passed on as they come, so a long run can be watched.
        lines: list[str] = []
        with subprocess.Popen(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args.pytest_args],
            cwd=copy,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        ) as run:
            assert run.stdout is not None
            for line in run.stdout:
                print(line, end="", flush=True)
                lines.append(line.rstrip("\n"))
        elapsed = time.monotonic() - started
    failed = [line for line in lines if line.startswith(("FAILED", "ERROR"))]
    timeouts = [line for line in failed if "Timeout" in line]
    print(
        f"mutant suite: exit status {run.returncode}, {elapsed:.0f} s, "
        f"{len(failed)} failing, {len(timeouts)} by timeout"
    )
    # The mutant must be caught: a passing suite under it is the failure here.
    return 0 if run.returncode == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
