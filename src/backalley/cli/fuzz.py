"""``backalley fuzz --engine COMMAND``: differential fuzzing of another engine against this one.

The command is started and spoken to in the engine protocol
(``docs/protocol.md``). Random and adversarial matches are played through it
and through backalley side by side; the first difference is shrunk to a small
case, written to ``--out`` as a game record, the requests that show it and a
one-line command that replays them, and reported with its position and the
rule of ``docs/rules.md`` it concerns.

Exit status: 0 no difference, 1 a difference, 2 the engine broke the protocol
(bad JSON, a timeout, a crash; its standard error's last lines are shown) or
the options are wrong.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path

from ..core.rules import Rules
from ..protocol._codec import RecordError, rules_from_json
from ..protocol.client import DEFAULT_TIMEOUT, EngineProcess, ProtocolBroken
from ..protocol.fuzzer import Difference, Mode, Settings, describe, fuzz, handshake, replay_lines
from ._common import (
    EXIT_INVALID,
    EXIT_OK,
    EXIT_USAGE,
    CommandError,
    Commands,
    add_command,
    add_seed_option,
    rules_from,
    write_lines,
)

__all__ = ["add_parser", "run"]

_PROGRESS_SECONDS = 5.0


HELP = "play random matches through another engine and report the first difference"
"""The command's line in ``backalley --help``."""
DESCRIPTION = """\
Start an engine that speaks the engine protocol (docs/protocol.md), play random and
adversarial matches through it and through backalley side by side, and report the first
difference, shrunk to a small case. Exit 0 if none, 1 on a difference, 2 if the engine
breaks the protocol."""


def add_parser(commands: Commands) -> None:
    """Register ``backalley fuzz``."""
    parser = add_command(commands, "fuzz", run, HELP, DESCRIPTION)
    parser.add_argument(
        "--engine", required=True, metavar="COMMAND", help="the command that starts the engine"
    )
    parser.add_argument("--matches", type=int, default=100, help="matches to play (default 100)")
    parser.add_argument(
        "--probes", type=int, default=3, help="illegal actions to try in each deal (default 3)"
    )
    add_seed_option(parser, 0, "the run's seed: the same seed plays the same matches")
    parser.add_argument(
        "--rules",
        default="mixed",
        help="mixed (default: drawn for each match), a schedule (standard, short, "
        "twenty-five, or hand sizes such as 3,2,1; tie and first dealer vary), or the "
        'rules as JSON, e.g. \'{"schedule": "short", "tie": "draw", "first_dealer": "N"}\'',
    )
    parser.add_argument(
        "--reasons",
        default="strict",
        choices=[mode.value for mode in Mode],
        help="strict: refusals must give our reason codes; legality: only refuse; "
        "off: no illegal actions are sent (default strict)",
    )
    parser.add_argument(
        "--out",
        default="fuzz-out",
        metavar="DIR",
        help="where a difference is written (default fuzz-out)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        help=f"seconds the engine may take over one reply (default {DEFAULT_TIMEOUT:g})",
    )
    parser.add_argument(
        "--replay",
        metavar="FILE",
        help="send the requests of FILE (written by an earlier run) instead of fuzzing",
    )


def parse_rules(text: str) -> tuple[Rules | None, bool]:
    """The rules of ``--rules`` and whether only the schedule is fixed."""
    if text == "mixed":
        return None, False
    if text.lstrip().startswith("{"):
        try:
            return rules_from_json(json.loads(text)), False
        except (ValueError, RecordError) as error:
            raise CommandError(f"--rules: {error}") from None
    # A schedule as --schedule reads it; the tie policy and first dealer are drawn per match.
    given = argparse.Namespace(schedule=text, tie="draw", first_dealer="N")
    try:
        return rules_from(given), True
    except ValueError as error:
        raise CommandError(f"--rules: {error}") from None


def _broken(error: ProtocolBroken) -> int:
    print(f"backalley fuzz: the engine broke the protocol: {error.message}", file=sys.stderr)
    tail = error.stderr_tail.strip()
    if tail:
        print("the engine's standard error ended with:", file=sys.stderr)
        for line in tail.splitlines()[-15:]:
            print(f"  {line}", file=sys.stderr)
    return EXIT_USAGE


def write_difference(out: Path, engine: str, difference: Difference) -> str:
    """Write the record, the requests and the command of a difference; the command."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "difference.record.json").write_text(difference.record, encoding="utf-8")
    requests = out / "difference.jsonl"
    requests.write_bytes(b"".join(difference.requests))
    command = f"backalley fuzz --engine {shlex.quote(engine)} --replay {shlex.quote(str(requests))}"
    (out / "difference.txt").write_text(
        f"{difference.message}\n\nreplay: {command}\n", encoding="utf-8"
    )
    return command


def run(args: argparse.Namespace) -> int:
    """Fuzz the engine, or replay a file of requests through it."""
    for name in ("matches", "probes"):
        if getattr(args, name) < 0:
            raise CommandError(f"--{name} must not be negative")
    if args.timeout <= 0:
        raise CommandError("--timeout must be positive")
    if args.replay is not None:
        return _replay(args)
    rules, schedule_only = parse_rules(args.rules)
    settings = Settings(
        matches=args.matches,
        probes=args.probes,
        seed=args.seed,
        rules=rules,
        schedule_only=schedule_only,
        mode=Mode(args.reasons),
    )
    shown = [time.perf_counter()]

    def progress(matches: int, requests: int, seconds: float) -> None:
        now = time.perf_counter()
        if now - shown[0] >= _PROGRESS_SECONDS:
            shown[0] = now
            print(
                f"fuzz: {matches}/{args.matches} matches, {requests:,} requests, "
                f"{matches / seconds:.1f} matches/s, no difference so far",
                file=sys.stderr,
                flush=True,
            )

    try:
        result = fuzz(args.engine, settings, timeout=args.timeout, progress=progress)
    except ProtocolBroken as error:
        return _broken(error)
    if result.difference is None:
        write_lines(
            [
                f"fuzz: no difference in {result.matches} matches "
                f"({result.requests:,} requests, {result.seconds:.1f} s)"
            ]
        )
        return EXIT_OK
    difference = result.difference
    command = write_difference(Path(args.out), args.engine, difference)
    write_lines(
        [
            f"fuzz: difference in match {result.matches}: {difference.message}",
            f"  shrunk from {difference.found_actions} actions to {describe(difference.case)}; "
            f"record and requests in {args.out}/",
            f"  replay: {command}",
        ]
    )
    return EXIT_INVALID


def _replay(args: argparse.Namespace) -> int:
    try:
        lines = Path(args.replay).read_bytes().splitlines(keepends=True)
    except OSError as error:
        raise CommandError(f"cannot read {args.replay}: {error.strerror}") from None
    try:
        engine = EngineProcess(args.engine, timeout=args.timeout)
    except ProtocolBroken as error:
        return _broken(error)
    try:
        capabilities = handshake(engine)
        mode = Mode(args.reasons)
        if mode is Mode.STRICT and "reasons" not in capabilities:
            mode = Mode.LEGALITY
        found = replay_lines(engine, lines, mode)
    except ProtocolBroken as error:
        return _broken(error)
    except ValueError as error:
        raise CommandError(f"{args.replay}: {error}") from None
    finally:
        engine.close()
    if found is None:
        write_lines([f"fuzz: no difference replaying {args.replay}"])
        return EXIT_OK
    write_lines([f"fuzz: difference: {found}"])
    return EXIT_INVALID
