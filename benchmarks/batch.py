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
repeats and the ratio is taken repeat by repeat. Also reported: the time of one
``legal_mask()`` call and the memory of a lane.
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
from compare_openspiel import openspiel  # noqa: E402

from backalley import Rules  # noqa: E402
from backalley.batch import Batch  # noqa: E402

SIZES = (1, 64, 1024, 8192)


def batch_rate(n: int, lane_steps: int, seed: int) -> dict[str, float]:
    """Player actions a second, seconds per deal and per ``legal_mask`` call, for N lanes."""
    batch = Batch(Rules(), seeds=seed * 100_000, n=n, auto_deal=False, auto_reset=True)
    batch.deal()
    rng = np.random.default_rng(seed)
    clock = time.perf_counter
    # Warm up: the lanes leave their common start and the caches fill.
    for _ in range(20):
        batch.step(batch.sample_legal(rng))
        batch.deal()
    player = chance = masks = 0.0
    actions = deals = calls = 0
    for _ in range(max(50, lane_steps // n)):
        start = clock()
        chosen = batch.sample_legal(rng)
        batch.step(chosen)
        middle = clock()
        dealt = batch.deal()
        end = clock()
        player += middle - start
        chance += end - middle
        actions += int((chosen >= 0).sum())
        deals += dealt
        if calls < 20:
            start = clock()
            batch.legal_mask()
            masks += clock() - start
            calls += 1
    return {
        "player actions/s": actions / player,
        "all-in actions/s": actions / (player + chance),
        "us per deal": chance / max(deals, 1) * 1e6,
        "us per legal_mask": masks / calls * 1e6,
    }


def bytes_per_lane(n: int = 1024) -> float:
    """The arrays of a batch, divided by its lanes (after a standard match's worth of log)."""
    batch = Batch(Rules(), seeds=1, n=n)
    rng = np.random.default_rng(1)
    while not batch.terminated.all():
        batch.step(batch.sample_legal(rng))
    total = sum(value.nbytes for value in vars(batch).values() if isinstance(value, np.ndarray))
    return total / n


def main() -> None:
    """Run the repeats, alternating the batch and OpenSpiel, and print medians and ratios."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lane-steps", type=int, default=200_000, help="lane-steps a size")
    parser.add_argument("--games", type=int, default=200, help="OpenSpiel games a repeat")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    ours: dict[int, list[dict[str, float]]] = {n: [] for n in SIZES}
    theirs: list[float] = []
    ratios: dict[int, list[float]] = {n: [] for n in SIZES}
    for repeat in range(args.repeats):
        their_rate = 1e6 / openspiel(args.games, args.seed + repeat)[0]
        theirs.append(their_rate)
        for n in SIZES:
            figures = batch_rate(n, args.lane_steps, args.seed + repeat)
            ours[n].append(figures)
            ratios[n].append(figures["player actions/s"] / their_rate)
    median = statistics.median
    print(
        f"python {platform.python_version()} on {platform.machine()}, {sys.platform}, "
        f"numpy {np.__version__}, {args.repeats} repeats"
    )
    print(f"OpenSpiel oh_hell player actions/s (median): {median(theirs):,.0f}")
    header = ("N", "player act/s", "ratio", "all-in act/s", "us/deal", "us/legal_mask")
    print("".join(f"{h:>15}" for h in header))
    for n in SIZES:
        row = ours[n]
        print(
            f"{n:>15}"
            f"{median(r['player actions/s'] for r in row):>15,.0f}"
            f"{median(ratios[n]):>15.2f}"
            f"{median(r['all-in actions/s'] for r in row):>15,.0f}"
            f"{median(r['us per deal'] for r in row):>15.1f}"
            f"{median(r['us per legal_mask'] for r in row):>15.1f}"
        )
    for n in SIZES:
        print(f"ratios at N = {n}: {', '.join(f'{r:.2f}' for r in ratios[n])}")
    print(
        f"bytes per lane (arrays and the action log of a finished standard match): "
        f"{bytes_per_lane():,.0f}"
    )


if __name__ == "__main__":
    main()
