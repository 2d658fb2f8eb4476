"""The player protocol and the match driver.

A :class:`Player` is a callable ``player(view, legal) -> action``: it sees only
its seat's :class:`~backalley.engine.view.SeatView` and the legal actions, and returns
one of them. A player that draws random numbers should also be a
:class:`SeatedPlayer`: the driver asks it for a copy seeded from the match seed
and its seat, so that a match is reproducible from its seed alone.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from typing import Final, Protocol, TypeAlias, runtime_checkable

from ..core.actions import Action, Bid, Play
from ..core.cards import SEATS, Seat
from ..core.errors import IllegalAction
from ..core.rules import Rules
from ..engine.match import apply, legal_actions, new_match, seeded_deal
from ..engine.state import MatchState, Phase
from ..engine.view import SeatView, view

__all__ = [
    "Player",
    "PlayerError",
    "SeatedPlayer",
    "Watcher",
    "play_match",
    "play_step",
    "player_seed",
    "seat_players",
]

MAX_THROW_INS_IN_A_ROW: Final = 200
"""Four passes redeal forever under the rules; players that always pass would never finish."""

PLAYER_SEED_DOMAIN: Final = b"backalley-player-v1"
"""Prefix of the hash that derives a player's seed, kept apart from the deals' stream."""


class Player(Protocol):
    """Chooses an action: given what its seat may know and the legal actions, one of them."""

    def __call__(self, view: SeatView, legal: tuple[Bid | Play, ...], /) -> Bid | Play:
        """One of ``legal``."""
        ...  # pragma: no cover


@runtime_checkable
class SeatedPlayer(Protocol):
    """A player that can be re-seeded: the driver seats ``player.for_seat(seat, seed)``."""

    def for_seat(self, seat: Seat, seed: int, /) -> Player:
        """The player to seat at ``seat``, its randomness drawn from ``seed``."""
        ...  # pragma: no cover


class PlayerError(ValueError):
    """Players that cannot go on: an action that is not legal (``seat`` names who), or no end.

    ``seat`` and ``action`` are None when no single player is to blame.
    """

    def __init__(self, seat: Seat | None, action: object, message: str) -> None:
        super().__init__(message)
        self.seat = seat
        self.action = action


def player_seed(match_seed: int, seat: Seat) -> int:
    """The seed of the player at ``seat`` in the match with ``match_seed`` (64 bits).

    SHA-256 of ``b"backalley-player-v1"``, the match seed (8 bytes, big-endian)
    and the seat number (1 byte); the first 8 bytes of the digest, big-endian.
    """
    digest = hashlib.sha256(
        PLAYER_SEED_DOMAIN + match_seed.to_bytes(8, "big") + bytes([seat])
    ).digest()
    return int.from_bytes(digest[:8], "big")


def _seat_players(players: Mapping[Seat, Player] | Sequence[Player]) -> tuple[Player, ...]:
    if isinstance(players, Mapping):
        missing = [seat.name.title() for seat in SEATS if seat not in players]
        if missing:
            raise ValueError(f"no player for {', '.join(missing)}: seat all four")
        return tuple(players[seat] for seat in SEATS)
    seated = tuple(players)
    if len(seated) != 4:
        raise ValueError(f"a match needs four players (N, E, S, W), not {len(seated)}")
    return seated


def seat_players(
    players: Mapping[Seat, Player] | Sequence[Player], match_seed: int
) -> tuple[Player, ...]:
    """The four players in seat order (N, E, S, W), each :class:`SeatedPlayer` seeded.

    A :class:`SeatedPlayer` is replaced by ``player.for_seat(seat, player_seed(...))``.
    """
    return tuple(
        player.for_seat(seat, player_seed(match_seed, seat))
        if isinstance(player, SeatedPlayer)
        else player
        for seat, player in zip(SEATS, _seat_players(players), strict=True)
    )


Watcher: TypeAlias = Callable[[MatchState, Action, MatchState], None]
"""Told of every action a match driver applies: the state before, the action, the state after."""


def play_step(state: MatchState, seated: Sequence[Player]) -> tuple[Action, MatchState]:
    """One action of a match not over, and the state it leads to.

    Between deals that is the seeded deal; in a deal, the action the seat to move
    chooses from its view and the legal actions (``seated`` in seat order). An
    action that is not legal raises :class:`PlayerError`.
    """
    if state.phase is Phase.DEAL:
        dealt = seeded_deal(state)
        return dealt, apply(state, dealt)
    seat = state.to_move
    assert seat is not None  # a deal is in progress, so somebody acts
    legal: tuple[Bid | Play, ...] = legal_actions(state)  # type: ignore[assignment]
    action = seated[seat](view(state, seat), legal)
    if action not in legal:
        raise PlayerError(seat, action, _refusal(state, seat, action))
    return action, apply(state, action)


def play_match(
    players: Mapping[Seat, Player] | Sequence[Player],
    rules: Rules | None = None,
    *,
    seed: int | None = None,
    start: MatchState | None = None,
    watch: Watcher | None = None,
) -> MatchState:
    """Play a whole match with the seeded deals; the final state.

    ``players`` maps each seat to its player, or lists them North, East, South,
    West. Each player sees only its own view. A returned action that is not legal
    raises :class:`PlayerError` naming the seat, the action and the reason.
    ``start`` plays on from a state (instead of a new match of ``rules`` and
    ``seed``); ``watch(before, action, after)`` is told of every action.
    """
    if start is not None and (rules is not None or seed is not None):
        raise ValueError("play_match starts from a state or from rules and a seed, not both")
    state = new_match(rules, seed=seed) if start is None else start
    seated = seat_players(players, state.seed)
    thrown_in = 0
    while not state.is_over:
        if state.phase is Phase.DEAL:
            thrown_in = thrown_in + 1 if state.history and state.history[-1].thrown_in else 0
            if thrown_in > MAX_THROW_INS_IN_A_ROW:
                raise PlayerError(
                    None,
                    None,
                    f"{thrown_in} deals in a row were thrown in: the players "
                    "always pass, so the match would never end.",
                )
        action, following = play_step(state, seated)
        if watch is not None:
            watch(state, action, following)
        state = following
    return state


def _refusal(state: MatchState, seat: Seat, action: object) -> str:
    who = f"The player at {seat.name.title()} returned {action!r}, which is not legal"
    if isinstance(action, Bid | Play):
        try:
            apply(state, action)
        except IllegalAction as refusal:
            return f"{who}: {refusal.message}"
    return f"{who}: it must return one of the legal actions it was given."
