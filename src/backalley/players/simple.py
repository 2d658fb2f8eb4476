"""The simplest computer player: one that picks a legal action at random."""

from __future__ import annotations

import random

from ..core.actions import Bid, Play
from ..core.cards import Seat
from ..engine.view import SeatView

__all__ = ["RandomPlayer"]


class RandomPlayer:
    """Picks one of the legal actions at random, from its own seeded generator."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self._rng = random.Random(seed)

    def for_seat(self, seat: Seat, seed: int) -> RandomPlayer:
        """A fresh random player drawing from ``seed``."""
        return RandomPlayer(seed)

    def __call__(self, view: SeatView, legal: tuple[Bid | Play, ...]) -> Bid | Play:
        """A legal action chosen at random."""
        return self._rng.choice(legal)

    def __repr__(self) -> str:
        return f"RandomPlayer(seed={self.seed!r})"
