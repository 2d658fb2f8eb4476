"""The table's frames: bytes and deflate CPU a message at each zlib level, and the frames' making.

Plays ``--matches`` whole matches of four friends (the short game, random legal
actions) through ``backalley.web.messages.FrameCache`` as the server does, every
seat's frame made at every version: the whole frame first, then each change. Reports
the CPU to make the frames of an action (four seats, best of ``--repeats``), the
messages' sizes, and, for no compression and each zlib level, the bytes and the
deflate CPU a message, each seat's messages through one compressor as
permessage-deflate keeps it (a 4 KiB window, ``memLevel`` 5: uvicorn's settings).

    python benchmarks/table_frames.py --matches 6

Run against the code before frames carried what changed (``PYTHONPATH`` naming its
``src``), it measures that code's whole frames, every one sent, the same way.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
import zlib
from pathlib import Path

from backalley.core.cards import Seat
from backalley.core.rules import Rules
from backalley.engine.match import legal_actions
from backalley.web.messages import FrameCache
from backalley.web.rooms import Room, Tables
from backalley.web.store import Store

LEVELS = (None, 1, 2, 3, 4, 6, 9)
"""No compression, then zlib's levels (6 is zlib's default, and uvicorn's)."""


def _match(folder: Path, seed: int) -> tuple[Room, list[tuple[object, int]]]:
    """A whole match of friends; the room and its states with their versions."""
    tables = Tables(Store(folder / f"rooms-{seed}.db"))
    room, _ = tables.create("friends", Rules(schedule="short"))
    for seat in room.seats:
        if seat is not Seat.SOUTH:
            tables.claim(room, seat)
    rng = random.Random(seed)
    states = []
    for _ in range(5000):
        while tables.step(room) is not None:
            pass
        states.append((room.state, room.version))
        if room.is_over:
            break
        action = rng.choice(legal_actions(room.state))
        field = "bid" if hasattr(action, "call") else "play"
        value = action.call if field == "bid" else action.card.code  # type: ignore[attr-defined]
        tables.act(room, room.state.to_move, room.version, field, value)
    tables.store.close()
    return room, states


def _frames(room: Room, states: list[tuple[object, int]]) -> tuple[float, dict[Seat, list[str]]]:
    """Each seat's messages (whole frame, then changes); the CPU it took."""
    cache = FrameCache()
    sent: dict[Seat, list[str]] = {seat: [] for seat in Seat}
    started = time.process_time()
    for state, version in states:
        room.state, room.version = state, version  # type: ignore[assignment]
        for seat in Seat:
            if not hasattr(cache, "update"):
                # The code before frames carried what changed: every frame whole.
                sent[seat].append(cache.text(room, seat, connected=frozenset(Seat)))
                continue
            _, change = cache.update(room, seat, connected=frozenset(Seat))
            if not sent[seat]:
                sent[seat].append(cache.full_text(seat))
            elif change is not None:
                sent[seat].append(change)
    return time.process_time() - started, sent


def _deflated(streams: list[list[str]], level: int | None) -> int:
    total = 0
    for stream in streams:
        if level is None:
            total += sum(len(text.encode()) for text in stream)
            continue
        deflate = zlib.compressobj(level, zlib.DEFLATED, -12, 5)
        for text in stream:
            # As permessage-deflate sends a message: flushed, the empty block's tail cut.
            total += len(deflate.compress(text.encode()) + deflate.flush(zlib.Z_SYNC_FLUSH)) - 4
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--matches", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    streams: list[list[str]] = []
    making = []
    actions = 0
    with tempfile.TemporaryDirectory() as folder:
        for seed in range(args.matches):
            room, states = _match(Path(folder), seed)
            actions += len(states)
            best = None
            for _ in range(args.repeats):
                cpu, sent = _frames(room, states)
                best = cpu if best is None else min(best, cpu)
            assert best is not None
            making.append(best / len(states))
            streams.extend(sent.values())
    messages = sum(len(stream) for stream in streams)
    changes = sorted(len(text) for stream in streams for text in stream[1:])
    print(
        json.dumps(
            {
                "matches": args.matches,
                "actions": actions,
                "messages": messages,
                "frames_us_per_action": round(1e6 * statistics.median(making)),
                "change_bytes_median": changes[len(changes) // 2],
                "change_bytes_p90": changes[int(0.9 * len(changes))],
            }
        )
    )
    for level in LEVELS:
        best = None
        for _ in range(args.repeats):
            started = time.process_time()
            total = _deflated(streams, level)
            cpu = time.process_time() - started
            best = cpu if best is None else min(best, cpu)
        assert best is not None
        print(
            json.dumps(
                {
                    "level": level,
                    "bytes_per_message": round(total / messages),
                    "deflate_us_per_message": round(1e6 * best / messages, 1),
                }
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
