"""Our random playout, pure Python and compiled, beside OpenSpiel's ``oh_hell``, in one run.

Run: ``pip install -e '.[bench]'`` then ``python benchmarks/compare_openspiel.py``;
add ``--compiled-python PATH`` (the interpreter of a venv where the compiled wheel is
installed: ``docs/performance.md``, "Compiled build") to time the compiled build too.

Every loop does the same thing per player action: ask for the legal actions, pick
one with the same seeded ``random.Random.choice``, apply it. Each action is timed on
its own, so chance actions (our seeded deal; OpenSpiel's card-by-card deal) are
counted apart from player actions. Our builds run in worker processes (the pure one
on this checkout's ``src/``, the compiled one in its own interpreter, each checked to
be the build it claims); OpenSpiel runs here. The machine is noisy: each figure is
the median of several repeats, the loops alternate within every repeat so that a
noisy moment hurts all alike, and each ratio is taken within a repeat.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

OPENSPIEL_GAME = "oh_hell(players=4,num_tricks_fixed=12)"
CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}
"""The clocks an action can be timed by; the CPU clock ignores time spent descheduled."""
HERE = Path(__file__).resolve().parent
SOURCE = HERE.parent / "src"


def ours(matches: int, seed: int, clock: Callable[[], float]) -> dict[str, float | bool]:
    """Microseconds per player action, per chance action, and per ``apply`` of a deal."""
    from playout import playout  # noqa: PLC0415 -- the timed loop, shared with playout.py

    import backalley  # noqa: PLC0415 -- in the worker, the build under test
    from backalley import Rules, apply, new_match, seeded_deal  # noqa: PLC0415

    rules = Rules()
    rng = random.Random(seed)
    totals = [0.0, 0, 0.0, 0]
    for index in range(matches):
        for i, value in enumerate(playout(rules, seed + index, rng, clock)):
            totals[i] += value
    # ``apply`` of a Deal alone, the seeded shuffle left out: the first deal of many seeds.
    starts = [new_match(rules, seed=seed + index) for index in range(200)]
    deals = [seeded_deal(state) for state in starts]
    start = clock()
    for state, deal in zip(starts, deals, strict=True):
        apply(state, deal)
    deal_apply = (clock() - start) / len(starts)
    return {
        "compiled": backalley.__compiled__,
        "player": totals[0] / totals[1] * 1e6,
        "chance": totals[2] / totals[3] * 1e6,
        "deal_apply": deal_apply * 1e6,
    }


def worker(
    python: str, env: dict[str, str], matches: int, seed: int, clock: str
) -> dict[str, float | bool]:
    """One repeat of :func:`ours` in ``python``, as JSON over standard output."""
    command = [python, __file__, "--worker", "--matches", str(matches), "--seed", str(seed)]
    done = subprocess.run(
        [*command, "--clock", clock],
        capture_output=True,
        text=True,
        env=env,
        cwd=HERE,
        check=True,
    )
    result: dict[str, float | bool] = json.loads(done.stdout)
    return result


def openspiel(games: int, seed: int, clock: Callable[[], float]) -> tuple[float, float]:
    """The same loop on OpenSpiel's Oh Hell through pyspiel."""
    import pyspiel  # noqa: PLC0415 -- optional: only this comparison needs it

    game = pyspiel.load_game(OPENSPIEL_GAME)
    choice = random.Random(seed).choice
    player = chance = 0.0
    players = chances = 0
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            start = clock()
            if state.is_chance_node():
                state.apply_action(choice(state.chance_outcomes())[0])
                chance += clock() - start
                chances += 1
            else:
                state.apply_action(choice(state.legal_actions()))
                player += clock() - start
                players += 1
    return player / players * 1e6, chance / chances * 1e6


def _builds(compiled_python: str | None) -> dict[str, tuple[str, dict[str, str]]]:
    """Each build to time: its interpreter and environment."""
    base = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    builds = {"pure": (sys.executable, {**base, "PYTHONPATH": str(SOURCE)})}
    if compiled_python is not None:
        builds["compiled"] = (compiled_python, base)
    return builds


def main() -> None:
    """Run the loops, alternating, and print medians and the ratios."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=20, help="our 26-deal matches a repeat")
    parser.add_argument("--games", type=int, default=300, help="OpenSpiel games a repeat")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--compiled-python", help="an interpreter whose backalley is the compiled build"
    )
    parser.add_argument(
        "--clock",
        choices=sorted(CLOCKS),
        default="wall",
        help="wall: perf_counter; cpu: this process's CPU time, for a loaded machine",
    )
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    clock = CLOCKS[args.clock]
    if args.worker:
        print(json.dumps(ours(args.matches, args.seed, clock)))
        return
    builds = _builds(args.compiled_python)
    figures: dict[str, dict[str, list[float]]] = {
        name: {"player": [], "chance": [], "deal_apply": [], "ratio": []} for name in builds
    }
    theirs_player: list[float] = []
    theirs_chance: list[float] = []
    for repeat in range(args.repeats):
        seed = args.seed + repeat
        theirs = openspiel(args.games, seed, clock)
        theirs_player.append(theirs[0])
        theirs_chance.append(theirs[1])
        for name, (python, env) in builds.items():
            mine = worker(python, env, args.matches, seed, args.clock)
            if mine["compiled"] is not (name == "compiled"):
                sys.exit(f"the {name} worker ran a build with __compiled__={mine['compiled']}")
            for key in ("player", "chance", "deal_apply"):
                figures[name][key].append(float(mine[key]))
            figures[name]["ratio"].append(float(mine["player"]) / theirs[0])
    median = statistics.median
    print(
        f"python {platform.python_version()} on {platform.machine()}, {sys.platform}; "
        f"{args.repeats} repeats, {args.clock} clock"
    )
    names = list(builds)
    print(f"{'':36}" + "".join(f"{name:>12}" for name in [*names, "OpenSpiel"]))
    rows = (
        ("us per player action (median)", "player", median(theirs_player)),
        ("us per chance action (median)", "chance", median(theirs_chance)),
        ("us per apply of a Deal (median)", "deal_apply", None),
    )
    for label, key, theirs_figure in rows:
        cells = "".join(f"{median(figures[name][key]):12.2f}" for name in names)
        tail = f"{theirs_figure:12.2f}" if theirs_figure is not None else f"{'':>12}"
        print(f"{label:36}{cells}{tail}")
    for name in names:
        ratios = figures[name]["ratio"]
        print(
            f"ratio of us per player action, {name} / OpenSpiel's: {median(ratios):.2f} "
            f"(repeats: {', '.join(f'{r:.2f}' for r in ratios)})"
        )


if __name__ == "__main__":
    main()
