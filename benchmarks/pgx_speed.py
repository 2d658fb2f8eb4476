"""The pgx env beside the batch Env's own scan, at the same lanes, in one run.

Three compiled random playouts of ``--steps`` steps over N lanes of short-schedule
matches, each a ``jax.lax.scan`` drawing one uniformly random legal action per
lane (``sample_legal``): the batch engine's ``Env.step``; the same with the
mover's observation made at each step (as pgx's step makes it); pgx's ``BackAlley.step``
``jax.vmap``-ped, as pgx's users batch it; and the same under pgx's
``auto_reset`` (every step checks for an ended match and starts the next from a
new key, ``init`` inside the compiled step), and ``BackAlley.auto_reset_step``,
the same states without an ``init`` of every lane at every step. Reported: player actions a second
by the wall clock and in CPU time (medians of ``--repeats``, the three alternating
within a repeat), each pgx figure's ratio to the Env's, and each loop's first
call (its compile).

    pip install -e '.[batch,pgx]'
    JAX_PLATFORMS=cpu python benchmarks/pgx_speed.py --lanes 1024 --steps 200
"""

from __future__ import annotations

import argparse
import statistics
import time

import jax
import jax.numpy as jnp
from pgx.experimental import auto_reset

from backalley import Rules
from backalley.adapters.encoding import OBSERVATION
from backalley.batch import Env, sample_legal
from backalley.batch.pgx_env import BackAlley


def loops(lanes: int, steps: int) -> dict[str, tuple[object, object]]:
    """Each loop's compiled function and its starting state."""
    rules = Rules(schedule="short")
    env = Env(rules)  # the log kept, as the pgx env keeps it
    game = BackAlley(rules)
    step = jax.vmap(game.step)
    resetting = jax.vmap(auto_reset(game.step, game.init))
    ours = jax.vmap(game.auto_reset_step)

    def scan(advance):
        def run(state, key):
            def body(carry, key):
                state, count = carry
                action = sample_legal(state.legal_action_mask, key)
                state = advance(state, action, jax.random.split(key, lanes))
                return (state, count + (action >= 0).sum()), None

            (state, count), _ = jax.lax.scan(
                body, (state, jnp.zeros((), jnp.int32)), jax.random.split(key, steps)
            )
            return state, count

        return jax.jit(run)

    def observed(state, action, keys):
        # The step and the mover's observation, carried (as pgx's state carries it).
        state, _ = state
        state = env.step(state, action)
        return state, env.observe(state, jnp.maximum(state.current_player, 0))

    def scan_observed():
        def run(carry, key):
            def body(carry, key):
                (state, seen), count = carry
                action = sample_legal(state.legal_action_mask, key)
                state, seen = observed((state, seen), action, None)
                return ((state, seen), count + (action >= 0).sum()), None

            (carry, count), _ = jax.lax.scan(
                body, (carry, jnp.zeros((), jnp.int32)), jax.random.split(key, steps)
            )
            return carry, count

        return jax.jit(run)

    start_pgx = jax.jit(jax.vmap(game.init))(jax.random.split(jax.random.key(0), lanes))
    return {
        "Env": (scan(lambda state, action, keys: env.step(state, action)), env.init(0, n=lanes)),
        "Env + observation": (
            scan_observed(),
            (env.init(0, n=lanes), jnp.zeros((lanes, OBSERVATION.size), jnp.float32)),
        ),
        "pgx": (scan(step), start_pgx),
        "pgx auto_reset": (scan(resetting), start_pgx),
        "auto_reset_step": (scan(ours), start_pgx),
    }


def main() -> None:
    """Run the repeats and print medians and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lanes", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    made = loops(args.lanes, args.steps)
    compiles = {}
    for name, (run, state) in made.items():
        start = time.perf_counter()
        jax.block_until_ready(run(state, jax.random.key(0)))
        compiles[name] = time.perf_counter() - start
    rates: dict[str, list[tuple[float, float]]] = {name: [] for name in made}
    for repeat in range(args.repeats):
        for name, (run, state) in made.items():
            cpu, wall = time.process_time(), time.perf_counter()
            _, count = jax.block_until_ready(run(state, jax.random.key(repeat + 1)))
            done = int(count)
            rates[name].append(
                (done / (time.process_time() - cpu), done / (time.perf_counter() - wall))
            )
    print(
        f"jax {jax.__version__} on {jax.devices()[0].platform}, {args.lanes} lanes, "
        f"{args.steps} steps, medians of {args.repeats} repeats"
    )
    base = statistics.median(rate[1] for rate in rates["Env"])
    for name, figures in rates.items():
        wall = statistics.median(rate[1] for rate in figures)
        cpu = statistics.median(rate[0] for rate in figures)
        print(
            f"{name:>16}: {wall:>12,.0f} actions/s wall, {cpu:>12,.0f} CPU, "
            f"Env / this {base / wall:5.2f}, first call {compiles[name]:5.1f} s"
        )


if __name__ == "__main__":
    main()
