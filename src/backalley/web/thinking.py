"""The slow computer players choose in worker processes, never on the event loop.

The Monte Carlo and search players (the levels marked ``slow`` in
:mod:`backalley.players.levels`) take tens of milliseconds to seconds a
decision: on the event loop they would stall every room of the server. Their
choices are made in a pool of ``think_workers`` processes (``Limits``), and each
decision has a cap of ``think_seconds``: the player is made with that
``time_budget`` (it stops sampling there), and if no choice has come back by the
cap (a busy pool, a slow machine), the seat plays the heuristic's choice instead
(microseconds, on the loop), so that a room never waits longer than the cap for
its computer. The fast players (random, heuristic) choose on the loop.

A decision is a function of the kind, the seat's seed and its view (the
players' own rule), so it does not matter which worker makes it, nor that a
worker makes a new player for each decision.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Final

from ..core.actions import Bid, Play
from ..core.cards import Seat
from ..engine.state import Phase
from ..engine.view import SeatView, view
from ..players import PLAYER_KINDS, HeuristicPlayer, Player, SeatedPlayer, player_seed
from ..players.levels import LEVELS
from .rooms import Room

__all__ = ["SLOW_KINDS", "Thinker"]

log = logging.getLogger("backalley.web")

SLOW_KINDS: Final = frozenset(level.kind for level in LEVELS if level.slow)
"""The player kinds that choose in a worker process."""

_CONTEXT: Final = multiprocessing.get_context("spawn")
"""A fresh interpreter for each worker: nothing of the server's loop or sockets is forked."""

_FALLBACK: Final = HeuristicPlayer()


def choose(  # noqa: PLR0913, PLR0917 - one decision, each part an argument (pickled)
    factory: Callable[..., Player],
    seat: Seat,
    seed: int,
    seen: SeatView,
    legal: tuple[Bid | Play, ...],
    budget: float,
) -> Bid | Play:
    """One decision, made in a worker: the player of ``factory`` seated at ``seat``."""
    try:
        player = factory(time_budget=budget)
    except TypeError:  # a player without a time budget: the cap alone bounds it
        player = factory()
    if isinstance(player, SeatedPlayer):
        player = player.for_seat(seat, seed)
    return player(seen, legal)


class Thinker:
    """The worker processes of the slow players, and the cap on each decision."""

    def __init__(self, workers: int, cap: float, executor: Executor | None = None) -> None:
        self.workers = workers
        self.cap = cap
        self._executor = executor

    def _pool(self) -> Executor:
        if self._executor is None:
            self._executor = ProcessPoolExecutor(self.workers, mp_context=_CONTEXT)
        return self._executor

    def slow_seat(self, room: Room) -> Seat | None:
        """The seat whose slow computer is to choose now, if any."""
        state = room.state
        if not room.automatic_due or state.phase is Phase.DEAL:
            return None
        seat = state.to_move
        if seat is None or room.seats[seat].player not in SLOW_KINDS:
            return None
        return seat

    async def think(self, room: Room) -> Bid | Play | None:
        """The slow computer's choice for the room now (None: no slow computer to move).

        Made in a worker; past the cap, the heuristic's choice.
        """
        seat = self.slow_seat(room)
        if seat is None:
            return None
        kind = room.seats[seat].player
        assert kind is not None
        seen = view(room.state, seat)
        legal = room.legal_choices()
        if len(legal) == 1:
            return legal[0]
        job = asyncio.get_running_loop().run_in_executor(
            self._pool(),
            choose,
            PLAYER_KINDS[kind],
            seat,
            player_seed(room.seed, seat),
            seen,
            legal,
            self.cap,
        )
        try:
            return await asyncio.wait_for(job, self.cap)
        except TimeoutError:
            log.warning(
                "room %s: %s at %s passed %.1f s; it plays the heuristic's choice",
                room.id,
                kind,
                seat.name,
                self.cap,
            )
        except Exception:
            log.exception(
                "room %s: %s at %s failed; it plays the heuristic's choice",
                room.id,
                kind,
                seat.name,
            )
        return _FALLBACK(seen, legal)

    def stop(self) -> None:
        """End the workers (a decision under way is dropped: its room replays it)."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
