"""The batch engine's player actions per second beside OpenSpiel's ``oh_hell``, in one run.

Run: ``pip install -e '.[batch,bench]'`` then ``python benchmarks/batch.py``.

For each batch size N (1, 64, 1,024 and 8,192 lanes of standard matches, restarted
as they end) the loop is what a random-playout driver does: draw one uniformly
random legal action per lane (``sample_legal``), then ``step``. Chance steps (the
seeded deals) are dealt by ``deal()`` and timed apart, as the OpenSpiel loop times
its chance actions apart; the all-in rate counts both. OpenSpiel's loop is the one
of ``compare_openspiel.py``: legal actions, a seeded ``random.Random.choice``,
``apply_action``, each player action timed on its own. The two alternate within
each repeat so that a noisy moment hurts both alike; figures are medians of the
repeats and the ratio is taken repeat by repeat.

Clocks: a batch step lasts milliseconds, long enough to be preempted on a shared
machine, so the batch is timed in CPU time (``time.process_time``), with the wall
clock beside it; an OpenSpiel action lasts about a microsecond and is timed by the
wall clock, as in ``compare_openspiel.py`` (an interval that short is rarely
preempted) and in CPU time read once a game (see ``openspiel_rates``). Two
ratios: CPU time over CPU time, and wall clock over wall clock. Also reported:
the all-in rate (player actions over the time of steps and deals), the CPU time
of a deal and of one ``legal_mask()`` call, and the memory of a lane.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

# One core: numpy must not spread its work over threads.
for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(name, "1")

import numpy as np  # noqa: E402
from compare_openspiel import OPENSPIEL_GAME  # noqa: E402

from backalley import Rules  # noqa: E402
from backalley.batch import Batch  # noqa: E402
from backalley.batch import _tables as T  # noqa: E402

SIZES = (1, 64, 1024, 8192)


def openspiel_rates(games: int, seed: int) -> tuple[float, float]:
    """OpenSpiel's player actions a second: by the wall clock, and in CPU time.

    The loop of ``compare_openspiel.py``, each player action timed by the wall clock.
    Reading the CPU clock costs microseconds here, more than an action, so CPU time
    is read once a game; the player actions' share of it is the share of the game's
    wall-clock time that their timed intervals take.
    """
    import random  # noqa: PLC0415

    import pyspiel  # noqa: PLC0415 -- optional: only this comparison needs it

    game = pyspiel.load_game(OPENSPIEL_GAME)
    choice = random.Random(seed).choice
    wall, cpu = time.perf_counter, time.process_time
    player = cpu_total = loop_total = 0.0
    players = 0
    for _ in range(games):
        state = game.new_initial_state()
        cpu_start, loop_start = cpu(), wall()
        while not state.is_terminal():
            start = wall()
            if state.is_chance_node():
                state.apply_action(choice(state.chance_outcomes())[0])
            else:
                state.apply_action(choice(state.legal_actions()))
                player += wall() - start
                players += 1
        cpu_total += cpu() - cpu_start
        loop_total += wall() - loop_start
    return players / player, players / (cpu_total * player / loop_total)


def batch_rate(n: int, lane_steps: int, seed: int) -> dict[str, float]:
    """Player actions a second (CPU and wall), deals and ``legal_mask`` calls, for N lanes."""
    batch = Batch(Rules(), seeds=seed * 100_000, n=n, auto_deal=False, auto_reset=True)
    batch.deal()
    rng = np.random.default_rng(seed)
    cpu, wall = time.process_time, time.perf_counter
    # Warm up: the lanes leave their common start and the caches fill.
    for _ in range(20):
        batch.step(batch.sample_legal(rng))
        batch.deal()
    player = player_wall = chance = masks = 0.0
    actions = deals = calls = 0
    for _ in range(max(50, min(3_000, lane_steps // n))):
        start, start_wall = cpu(), wall()
        chosen = batch.sample_legal(rng)
        batch.step(chosen)
        middle, middle_wall = cpu(), wall()
        dealt = batch.deal()
        end = cpu()
        player += middle - start
        player_wall += middle_wall - start_wall
        chance += end - middle
        actions += int((chosen >= 0).sum())
        deals += dealt
        if calls < 20:
            start = cpu()
            batch.legal_mask()
            masks += cpu() - start
            calls += 1
    return {
        "player actions/s": actions / player,
        "player actions/s, wall": actions / player_wall,
        "all-in actions/s": actions / (player + chance),
        "us per deal": chance / max(deals, 1) * 1e6,
        "us per legal_mask": masks / calls * 1e6,
    }


def memory(n: int = 1024) -> tuple[float, float, int]:
    """Bytes a lane: state and scratch, then the action log (a finished standard match).

    Also the bytes of the lookup tables, built once per process and shared.
    """
    batch = Batch(Rules(), seeds=1, n=n)
    rng = np.random.default_rng(1)
    while not batch.terminated.all():
        batch.step(batch.sample_legal(rng))
    # Arrays with a row per lane that own their memory (views are counted once).
    owned = [
        value
        for value in vars(batch).values()
        if isinstance(value, np.ndarray) and value.base is None and value.shape[:1] == (n,)
    ]
    log = batch._log_spare.nbytes
    state = sum(value.nbytes for value in owned) - log
    circuit = T.circuit_table()
    tables = [*circuit, T.score_table(), *T.forced_tables(), T.bid_legal_table(), T.TRICK_KEYS]
    return state / n, log / n, sum(table.nbytes for table in tables)


def main() -> None:
    """Run the repeats, alternating the batch and OpenSpiel, and print medians and ratios."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lane-steps", type=int, default=200_000, help="lane-steps a size")
    parser.add_argument("--games", type=int, default=200, help="OpenSpiel games a repeat")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    ours: dict[int, list[dict[str, float]]] = {n: [] for n in SIZES}
    theirs: list[tuple[float, float]] = []
    ratios: dict[int, list[float]] = {n: [] for n in SIZES}
    wall_ratios: dict[int, list[float]] = {n: [] for n in SIZES}
    for repeat in range(args.repeats):
        their_wall, their_cpu = openspiel_rates(args.games, args.seed + repeat)
        theirs.append((their_wall, their_cpu))
        for n in SIZES:
            figures = batch_rate(n, args.lane_steps, args.seed + repeat)
            ours[n].append(figures)
            ratios[n].append(figures["player actions/s"] / their_cpu)
            wall_ratios[n].append(figures["player actions/s, wall"] / their_wall)
    median = statistics.median
    print(
        f"python {platform.python_version()} on {platform.machine()}, {sys.platform}, "
        f"numpy {np.__version__}, {args.repeats} repeats"
    )
    print(
        f"OpenSpiel oh_hell player actions/s (medians): "
        f"{median(t[1] for t in theirs):,.0f} CPU, {median(t[0] for t in theirs):,.0f} wall"
    )
    header = ("N", "act/s CPU", "ratio CPU", "act/s wall", "ratio wall", "all-in CPU")
    header += ("us/deal", "us/mask")
    print("".join(f"{h:>14}" for h in header))
    for n in SIZES:
        row = ours[n]
        print(
            f"{n:>14}"
            f"{median(r['player actions/s'] for r in row):>14,.0f}"
            f"{median(ratios[n]):>14.2f}"
            f"{median(r['player actions/s, wall'] for r in row):>14,.0f}"
            f"{median(wall_ratios[n]):>14.2f}"
            f"{median(r['all-in actions/s'] for r in row):>14,.0f}"
            f"{median(r['us per deal'] for r in row):>14.1f}"
            f"{median(r['us per legal_mask'] for r in row):>14.1f}"
        )
    for n in SIZES:
        print(
            f"CPU ratios at N = {n}: {', '.join(f'{r:.2f}' for r in ratios[n])}; "
            f"wall: {', '.join(f'{r:.2f}' for r in wall_ratios[n])}"
        )
    state, log, tables = memory()
    print(
        f"bytes per lane: {state:,.0f} of state and scratch, {log:,.0f} of action log "
        f"(a finished standard match); lookup tables, shared: {tables:,}"
    )


if __name__ == "__main__":
    main()
