"""Train the learned player (backalley.players.learned) by imitation of a teacher.

Two stages, one command:

1. **collect**: play short matches with the teacher at all four seats (the search
   player by default) from seeds ``seed * 1_000_000 + i``, and write each of its
   decisions with more than one legal action as (features, legal slots, chosen slot)
   to shards under ``--data`` (``shard-NNNN.npz``). Shards already there are kept,
   so a stopped run goes on where it stopped.
2. **fit**: a two-hidden-layer perceptron on those decisions, cross-entropy of the
   teacher's choice among the legal actions, Adam, ``--steps`` minibatches of
   ``--batch`` from a generator seeded with ``--seed``; a tenth of the shards held
   out. The curve (step, training loss, held-out loss and agreement) is printed and
   written to ``--curve``; the weights to ``--out`` (float16).

NumPy alone; run it under ``nice`` with one BLAS thread. The shipped weights came from

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/train_player.py \
        --seed 1 --matches 400 --steps 20000 --data /tmp/teacher

(docs/players.md, "The trained player", gives the curve and the strength).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path

import numpy as np

from backalley import Rules
from backalley.core.action_index import NUM_ACTION_INDICES
from backalley.players import HeuristicPlayer, play_match, search_player
from backalley.players.driver import Player
from backalley.players.learned import FEATURES, action_slot, features

TEACHERS = {"search": search_player, "heuristic": HeuristicPlayer}


class Recording:
    """A seat that plays the teacher's choice and writes it down."""

    def __init__(self, teacher: Player, sink: list[tuple[np.ndarray, list[int], int]]) -> None:
        self.teacher = teacher
        self.sink = sink

    def for_seat(self, seat, seed):  # type: ignore[no-untyped-def]
        teacher = self.teacher
        if hasattr(teacher, "for_seat"):
            teacher = teacher.for_seat(seat, seed)
        return Recording(teacher, self.sink)

    def __call__(self, view, legal):  # type: ignore[no-untyped-def]
        chosen = self.teacher(view, legal)
        if len(legal) > 1 and view.deal is not None:
            trump = None if view.deal.trump is None else int(view.deal.trump)
            slots = [action_slot(action, trump) for action in legal]
            self.sink.append((features(view), slots, slots[legal.index(chosen)]))
        return chosen


def collect(args: argparse.Namespace) -> None:
    data = Path(args.data)
    data.mkdir(parents=True, exist_ok=True)
    rules = Rules(schedule="short")
    started = time.process_time()
    per_shard = args.per_shard
    for first in range(0, args.matches, per_shard):
        shard = data / f"shard-{first // per_shard:04d}.npz"
        if shard.exists():
            continue
        if args.minutes and time.process_time() - started > args.minutes * 60:
            print(f"collect: stopped after {args.minutes} CPU minutes", flush=True)
            return
        sink: list[tuple[np.ndarray, list[int], int]] = []
        for number in range(first, min(first + per_shard, args.matches)):
            seat = Recording(TEACHERS[args.teacher](), sink)
            play_match([seat] * 4, rules, seed=args.seed * 1_000_000 + number)
        x = np.stack([row[0] for row in sink]).astype(np.float16)
        mask = np.zeros((len(sink), NUM_ACTION_INDICES), np.bool_)
        for k, (_, slots, _) in enumerate(sink):
            mask[k, slots] = True
        y = np.array([row[2] for row in sink], np.int16)
        np.savez_compressed(shard, x=x, mask=mask, y=y)
        print(
            f"collect: {shard.name} {len(sink)} decisions,"
            f" {time.process_time() - started:.0f} CPU s",
            flush=True,
        )


def _load(paths: list[Path]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    parts = [np.load(path) for path in paths]
    return (
        np.concatenate([p["x"] for p in parts]).astype(np.float32),
        np.concatenate([p["mask"] for p in parts]),
        np.concatenate([p["y"] for p in parts]).astype(np.int64),
    )


def _forward(params, x):  # type: ignore[no-untyped-def]
    acts = [x]
    h = x
    last = len(params) // 2 - 1
    for k in range(last + 1):
        h = h @ params[2 * k] + params[2 * k + 1]
        if k < last:
            h = np.maximum(h, 0.0)
        acts.append(h)
    return acts


def _loss_and_grads(params, x, mask, y):  # type: ignore[no-untyped-def]
    acts = _forward(params, x)
    logits = np.where(mask, acts[-1], -1e9)
    logits = logits - logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    n = len(y)
    loss = -np.log(p[np.arange(n), y] + 1e-12).mean()
    grad = p
    grad[np.arange(n), y] -= 1.0
    grad /= n
    grads = [None] * len(params)
    last = len(params) // 2 - 1
    for k in range(last, -1, -1):
        grads[2 * k] = acts[k].T @ grad
        grads[2 * k + 1] = grad.sum(axis=0)
        if k:
            grad = (grad @ params[2 * k].T) * (acts[k] > 0)
    return loss, grads


def _agreement(params, x, mask, y):  # type: ignore[no-untyped-def]
    logits = np.where(mask, _forward(params, x)[-1], -np.inf)
    acts = _forward(params, x)
    del acts
    return float((logits.argmax(axis=1) == y).mean())


def _split(data: str) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
    shards = sorted(Path(data).glob("shard-*.npz"))
    if len(shards) < 2:
        sys.exit(f"fit: collect at least two shards in {data} first")
    held = max(1, len(shards) // 10)
    return _load(shards[held:]), _load(shards[:held])


def fit(args: argparse.Namespace) -> None:
    rng = np.random.default_rng(args.seed)
    sizes = [FEATURES, *args.hidden, NUM_ACTION_INDICES]
    params = []
    for a, b in itertools.pairwise(sizes):
        params.append((rng.standard_normal((a, b)) * np.sqrt(2.0 / a)).astype(np.float32))
        params.append(np.zeros(b, np.float32))
    curve: list[dict[str, float | int | str]] = []
    if args.pretrain:
        # First the cheap teacher's many decisions, then the strong teacher's few.
        print(f"fit: pretraining on {args.pretrain}", flush=True)
        params = _train(
            args, rng, params, *_split(args.pretrain), args.pretrain_steps, curve, "pre"
        )
    params = _train(args, rng, params, *_split(args.data), args.steps, curve, "main")
    saved = {}
    for k in range(len(params) // 2):
        saved[f"w{k}"] = params[2 * k].astype(np.float16)
        saved[f"b{k}"] = params[2 * k + 1].astype(np.float16)
    np.savez_compressed(args.out, **saved)
    Path(args.curve).write_text(json.dumps(curve, indent=1) + "\n")
    print(f"fit: weights written to {args.out}", flush=True)


def _train(args, rng, params, train, held, steps, curve, stage):  # type: ignore[no-untyped-def]  # noqa: PLR0913, PLR0917
    """Adam on ``train`` for ``steps`` minibatches; the parameters of least held-out loss."""
    x, mask, y = train
    hx, hmask, hy = held
    print(f"fit: {len(y)} decisions to learn from, {len(hy)} held out", flush=True)
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    running = None
    best = (np.inf, [p.copy() for p in params])
    for step in range(1, steps + 1):
        rate = args.lr * 0.5 * (1 + np.cos(np.pi * step / steps))  # cosine decay
        batch = rng.integers(0, len(y), args.batch)
        loss, grads = _loss_and_grads(params, x[batch], mask[batch], y[batch])
        running = loss if running is None else 0.98 * running + 0.02 * loss
        for k, raw in enumerate(grads):
            g = raw + args.decay * params[k] if k % 2 == 0 else raw
            m[k] = beta1 * m[k] + (1 - beta1) * g
            v[k] = beta2 * v[k] + (1 - beta2) * g * g
            mh = m[k] / (1 - beta1**step)
            vh = v[k] / (1 - beta2**step)
            params[k] -= (rate * mh / (np.sqrt(vh) + eps)).astype(np.float32)
        if step % args.every == 0 or step == steps:
            held_loss, _ = _loss_and_grads(params, hx, hmask, hy)
            agree = _agreement(params, hx, hmask, hy)
            curve.append(
                {
                    "stage": stage,
                    "step": step,
                    "train_loss": float(running),
                    "held_loss": float(held_loss),
                    "held_agreement": agree,
                }
            )
            print(
                f"fit: {stage} step {step} loss {running:.4f} held-out loss {held_loss:.4f}"
                f" agreement {agree:.3f}",
                flush=True,
            )
            if held_loss < best[0]:
                best = (held_loss, [p.copy() for p in params])
    return best[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--teacher", choices=sorted(TEACHERS), default="search")
    parser.add_argument("--matches", type=int, default=400)
    parser.add_argument("--per-shard", type=int, default=5)
    parser.add_argument(
        "--minutes", type=float, default=0.0, help="CPU minutes of collecting at most (0: none)"
    )
    parser.add_argument("--data", default="teacher-data")
    parser.add_argument("--steps", type=int, default=20000)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--decay", type=float, default=1e-5)
    parser.add_argument("--hidden", type=int, nargs="+", default=[256, 128])
    parser.add_argument("--every", type=int, default=500)
    parser.add_argument("--pretrain", default="", help="shards of a cheap teacher to learn first")
    parser.add_argument("--pretrain-steps", type=int, default=5000)
    parser.add_argument("--out", default="src/backalley/players/learned.npz")
    parser.add_argument("--curve", default="learned-curve.json")
    parser.add_argument("--stage", choices=["collect", "fit", "both"], default="both")
    args = parser.parse_args()
    if args.stage in ("collect", "both"):
        collect(args)
    if args.stage in ("fit", "both"):
        fit(args)


if __name__ == "__main__":
    main()
