"""Players: the protocol a player follows, the match driver and the computer players.

A player is any callable that takes a :class:`~backalley.engine.view.SeatView` (what
its seat may know, nothing more) and the tuple of legal actions, and returns
one of them. :func:`play_match` seats four players, deals the seeded deals,
gives each player only its own view and refuses any action that is not legal.

>>> from backalley import Rules
>>> state = play_match([HeuristicPlayer(), RandomPlayer()] * 2, Rules(schedule=[3, 2]), seed=4)
>>> state.is_over, len(state.history) >= 2
(True, True)
"""

from collections.abc import Callable

from .driver import Player, PlayerError, SeatedPlayer, play_match, player_seed
from .heuristic import HeuristicPlayer
from .montecarlo import MonteCarloPlayer, search_player
from .simple import RandomPlayer


def learned_player() -> Player:
    """The trained player, :class:`~backalley.players.learned.LearnedPlayer` (needs NumPy)."""
    from .learned import LearnedPlayer  # noqa: PLC0415 -- NumPy is an extra: loaded on use

    return LearnedPlayer()


PLAYER_KINDS: dict[str, Callable[[], Player]] = {
    "heuristic": HeuristicPlayer,
    "learned": learned_player,
    "montecarlo": MonteCarloPlayer,
    "random": RandomPlayer,
    "search": search_player,
}
"""The computer players by the names the command line uses."""

__all__ = [
    "PLAYER_KINDS",
    "HeuristicPlayer",
    "MonteCarloPlayer",
    "Player",
    "PlayerError",
    "RandomPlayer",
    "SeatedPlayer",
    "learned_player",
    "play_match",
    "player_seed",
    "search_player",
]
