"""The batch engine's player actions per second beside OpenSpiel's ``oh_hell``, in one run.

Run: ``pip install -e '.[batch,bench]'`` then ``python benchmarks/batch.py``; on a GPU
the same command with ``JAX_PLATFORMS=cuda``.

For each batch size N (lanes of standard matches) the loop is what a random-playout
driver does, compiled whole: ``jax.lax.scan`` over ``--steps`` steps, each drawing
one uniformly random legal action per lane (``sample_legal``) and stepping every
lane (the deals that fall due dealt inside the step, on the device). A lane whose
match ends stays over, and the batch is restarted between repeats (``Env.reset``,
on the device, not timed). Counted: the player actions applied.
OpenSpiel's loop is the one of ``compare_openspiel.py`` (legal actions, a seeded
``random.Random.choice``, ``apply_action``), timed over **whole playouts**: the
chance nodes (the deals) included, as the batch engine deals inside its step, and
the clocks read once a game, not once an action (an earlier version timed each
player action on its own: the clock's cost and the jitter of microsecond intervals
made that ratio swing from 0.8 to 2.1 between repeats). Counted, on both sides: the
player actions. The two alternate within each repeat so that a noisy moment hurts
both alike; figures are medians of the repeats and the ratio is taken repeat by
repeat.

Clocks: CPU time of the process (``time.process_time``, all threads) and the wall
clock; on a GPU the wall clock is the figure (the CPU waits). Also reported: the
compile time of the rollout (the first call), the compile time of ``Env.init``
(its first call less its second), the lanes ``Env.init`` starts a second (its
second call, by the wall clock: the decks shuffled and the first deal dealt on the
device), and the bytes of state a lane holds.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time

import jax
import jax.numpy as jnp
from compare_openspiel import OPENSPIEL_GAME

from backalley import Rules
from backalley.batch import Env, sample_legal

SIZES = (1024, 4096, 16384)


def openspiel_rates(games: int, seed: int) -> tuple[float, float]:
    """OpenSpiel's player actions a second over whole playouts: by the wall clock, and CPU.

    The loop of ``compare_openspiel.py`` from the new game to its end, the deals'
    chance nodes included; both clocks are read once a game.
    """
    import random  # noqa: PLC0415

    import pyspiel  # noqa: PLC0415 -- optional: only this comparison needs it

    game = pyspiel.load_game(OPENSPIEL_GAME)
    choice = random.Random(seed).choice
    wall, cpu = time.perf_counter, time.process_time
    cpu_total = loop_total = 0.0
    players = 0
    for _ in range(games):
        state = game.new_initial_state()
        cpu_start, loop_start = cpu(), wall()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(choice(state.chance_outcomes())[0])
            else:
                state.apply_action(choice(state.legal_actions()))
                players += 1
        cpu_total += cpu() - cpu_start
        loop_total += wall() - loop_start
    return players / loop_total, players / cpu_total


def rollout(env: Env, steps: int):
    """A compiled random-playout loop of ``steps`` steps: the state and the actions applied."""

    def body(carry, key):
        state, applied = carry
        action = sample_legal(state.legal_action_mask, key)
        state = env.step(state, action)
        return (state, applied + (action >= 0).sum()), None

    @jax.jit
    def run(state, key):
        keys = jax.random.split(key, steps)
        (state, applied), _ = jax.lax.scan(body, (state, jnp.zeros((), jnp.int32)), keys)
        return state, applied

    return run


class Sized:
    """One batch size: its Env, compiled rollout and starting state."""

    def __init__(self, n: int, steps: int, record: bool) -> None:
        self.env = Env(Rules(), record=record)
        start = time.perf_counter()
        jax.block_until_ready(self.env.init(1, n=n))
        first = time.perf_counter() - start
        start = time.perf_counter()
        self.state = self.env.init(0, n=n)
        jax.block_until_ready(self.state)
        self.init_seconds = time.perf_counter() - start
        self.init_compile_seconds = first - self.init_seconds
        self.run = rollout(self.env, steps)
        start = time.perf_counter()
        jax.block_until_ready(self.run(self.state, jax.random.key(0)))
        self.compile_seconds = time.perf_counter() - start
        self.bytes_per_lane = self.env.memory_per_lane(self.state)

    def rate(self, repeat: int) -> tuple[float, float]:
        """Player actions a second, CPU and wall, of one compiled rollout from a fresh batch."""
        state = self.env.reset(self.state)
        jax.block_until_ready(state)
        cpu, wall = time.process_time(), time.perf_counter()
        state, applied = self.run(state, jax.random.key(repeat + 1))
        count = int(applied)
        return count / (time.process_time() - cpu), count / (time.perf_counter() - wall)


def main() -> None:
    """Run the repeats, alternating the batch and OpenSpiel, and print medians and ratios."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=400, help="steps of one rollout")
    parser.add_argument("--games", type=int, default=200, help="OpenSpiel games a repeat")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="*", default=list(SIZES))
    parser.add_argument("--record", action="store_true", help="keep the action logs too")
    parser.add_argument("--no-openspiel", action="store_true", help="the batch alone (a GPU)")
    args = parser.parse_args()
    sized = {n: Sized(n, args.steps, args.record) for n in args.sizes}
    theirs: list[tuple[float, float]] = []
    ours: dict[int, list[tuple[float, float]]] = {n: [] for n in args.sizes}
    ratios: dict[int, list[float]] = {n: [] for n in args.sizes}
    for repeat in range(args.repeats):
        if not args.no_openspiel:
            theirs.append(openspiel_rates(args.games, repeat))
        for n in args.sizes:
            figures = sized[n].rate(repeat)
            ours[n].append(figures)
            if theirs:
                ratios[n].append(figures[0] / theirs[-1][1])
    median = statistics.median
    print(
        f"python {platform.python_version()} on {platform.machine()}, {sys.platform}, "
        f"jax {jax.__version__} on {jax.devices()[0].platform} ({len(jax.devices())} devices), "
        f"{args.repeats} repeats, rollouts of {args.steps} steps, record={args.record}"
    )
    if theirs:
        print(
            f"OpenSpiel oh_hell player actions/s (medians): "
            f"{median(t[1] for t in theirs):,.0f} CPU, {median(t[0] for t in theirs):,.0f} wall"
        )
    header = (
        "N",
        "act/s CPU",
        "ratio CPU",
        "act/s wall",
        "compile s",
        "init comp s",
        "lanes/s init",
        "bytes/lane",
    )
    print("".join(f"{h:>14}" for h in header))
    for n in args.sizes:
        row = ours[n]
        ratio = f"{median(ratios[n]):>14.2f}" if ratios[n] else f"{'-':>14}"
        print(
            f"{n:>14}"
            f"{median(r[0] for r in row):>14,.0f}"
            f"{ratio}"
            f"{median(r[1] for r in row):>14,.0f}"
            f"{sized[n].compile_seconds:>14.1f}"
            f"{sized[n].init_compile_seconds:>14.1f}"
            f"{n / sized[n].init_seconds:>14,.0f}"
            f"{sized[n].bytes_per_lane:>14,.0f}"
        )
    for n in args.sizes:
        if ratios[n]:
            print(f"CPU ratios at N = {n}: {', '.join(f'{r:.2f}' for r in ratios[n])}")


if __name__ == "__main__":
    main()
