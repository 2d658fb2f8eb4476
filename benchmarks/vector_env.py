"""Gymnasium vector environments side by side: agent steps per second, in one run.

Run: ``pip install -e '.[batch,pettingzoo]'`` then
``JAX_PLATFORMS=cpu python benchmarks/vector_env.py``.

Both loops play South on the short schedule against uniformly random opponents
and give it a uniformly random legal action each step (chosen in NumPy from the
mask the environment returns), so each agent step is one action of South's and
about three of the others':

- ``SeatVectorEnv``: the batch engine's vector environment
  (:mod:`backalley.batch.vector`), ``--lanes`` lanes, the opponents inside the
  compiled step;
- ``SyncVectorEnv``: Gymnasium's own vector environment over ``--sync`` copies of
  ``SeatEnv`` with ``RandomPlayer`` opponents, every step through ``apply``.

The two take turns, repeat by repeat; each figure is the median of the repeats,
the ratio the median of the per-repeat ratios. Compilation is left out (a few
warm-up steps first).
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from typing import Any

import gymnasium
import numpy as np

from backalley.adapters.pettingzoo import SeatEnv
from backalley.batch.vector import SeatVectorEnv
from backalley.players import RandomPlayer


def choose(rng: np.random.Generator, masks: Any) -> Any:
    """One legal index per row of ``masks``, uniformly at random (0 for a row with none)."""
    return (rng.random(masks.shape) * masks).argmax(axis=1)


def agent_steps_per_second(env: Any, steps: int, rng: np.random.Generator) -> float:
    """Steps of ``env``, each with a random legal action a lane: agent steps a second."""
    observation, _ = env.reset(seed=int(rng.integers(0, 2**31)))
    for _ in range(3):  # warm-up: compilation and first allocations are not timed
        observation, *_ = env.step(choose(rng, observation["action_mask"]))
    start = time.perf_counter()
    for _ in range(steps):
        observation, *_ = env.step(choose(rng, observation["action_mask"]))
    return env.num_envs * steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lanes", type=int, default=1024, help="lanes of SeatVectorEnv")
    parser.add_argument("--sync", type=int, default=16, help="SeatEnv copies in SyncVectorEnv")
    parser.add_argument("--steps", type=int, default=100, help="timed steps a repeat")
    parser.add_argument("--repeats", type=int, default=5)
    options = parser.parse_args()
    rng = np.random.default_rng(2026)
    batch = SeatVectorEnv(options.lanes, schedule="short")
    sync = gymnasium.vector.SyncVectorEnv(
        [lambda: SeatEnv(RandomPlayer(), schedule="short") for _ in range(options.sync)]
    )
    batch_rates: list[float] = []
    sync_rates: list[float] = []
    for _ in range(options.repeats):
        batch_rates.append(agent_steps_per_second(batch, options.steps, rng))
        sync_rates.append(agent_steps_per_second(sync, options.steps, rng))
    ratios = [b / s for b, s in zip(batch_rates, sync_rates, strict=True)]
    print(f"{platform.processor() or platform.machine()}, Python {platform.python_version()}")
    batch_rate, sync_rate = statistics.median(batch_rates), statistics.median(sync_rates)
    print(f"SeatVectorEnv, {options.lanes} lanes: {batch_rate:,.0f} agent steps/s")
    print(f"SyncVectorEnv of {options.sync} SeatEnv: {sync_rate:,.0f} agent steps/s")
    print(f"ratio (median of {options.repeats} repeats): {statistics.median(ratios):.1f}x")


if __name__ == "__main__":
    main()
