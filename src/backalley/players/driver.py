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
from ..engine.bounds import EndlessMatch, playing
from ..engine.match import apply, new_match, seeded_deal, turn
from ..engine.state import MatchState
from ..engine.view import SeatView, view
from .simple import RandomPlayer

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
    asked = turn(state)
    if asked is None:
        # Nobody acts in a match not over: it is between deals, and the seed deals.
        dealt = seeded_deal(state)
        return dealt, apply(state, dealt)
    seat, legal = asked
    action = seated[seat](view(state, seat), legal)
    return action, _judged(state, seat, action)


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
    raises :class:`PlayerError` naming the seat, the action and the reason; so does a
    match past a bound of :mod:`backalley.engine.bounds` (throw-ins without end).
    ``start`` plays on from a state (instead of a new match of ``rules`` and
    ``seed``); ``watch(before, action, after)`` is told of every action.
    """
    if start is not None and (rules is not None or seed is not None):
        raise ValueError("play_match starts from a state or from rules and a seed, not both")
    state = new_match(rules, seed=seed) if start is None else start
    seated = seat_players(players, state.seed)
    blind = tuple(map(_blind_choice, seated))
    # What play_step does, with its calls made here: this loop runs at every action of
    # every simulated match. ``turn`` is None exactly between deals and after the match,
    # where ``playing`` looks at the bounds (inside a deal it has nothing to look at).
    try:
        while True:
            asked = turn(state)
            if asked is None:
                if not playing(state):
                    break
                action: Action = seeded_deal(state)
                following = apply(state, action)
            else:
                seat, legal = asked
                choose = blind[seat]
                action = seated[seat](view(state, seat), legal) if choose is None else choose(legal)
                following = _judged(state, seat, action)
            if watch is not None:
                watch(state, action, following)
            state = following
    except EndlessMatch as endless:
        # Players that always pass never end a match: no single one of them is to blame.
        raise PlayerError(None, None, str(endless)) from None
    return state


def _blind_choice(player: Player) -> Callable[[tuple[Bid | Play, ...]], Bid | Play] | None:
    """What ``player`` chooses with, given only the legal actions, if it never reads its view.

    A :class:`~backalley.players.simple.RandomPlayer` (that exact class: a subclass may
    read the view) answers ``player(view, legal)`` with its generator's ``choice(legal)``
    alone, so the driver calls that and builds no view for it: the same action, drawn
    from the same generator. None for any other player.
    """
    if type(player) is RandomPlayer:
        # The seated copy is the driver's own (``for_seat``): nobody else holds its generator.
        return player._rng.choice
    return None


def _judged(state: MatchState, seat: Seat, action: object) -> MatchState:
    """The state after the action a player chose; PlayerError if the rules refuse it.

    ``apply`` is the judge, as for any action: it accepts exactly the actions that
    ``legal_actions`` lists for the player to move, so no second look through the
    legal actions is needed, and a refusal carries the rules' own reason.
    """
    kind = type(action)
    if kind is Bid or kind is Play:
        try:
            return apply(state, action)  # type: ignore[arg-type]
        except IllegalAction as refusal:
            raise PlayerError(seat, action, f"{_who(seat, action)}: {refusal.message}") from None
    raise PlayerError(
        seat, action, f"{_who(seat, action)}: it must return one of the legal actions it was given."
    )


def _who(seat: Seat, action: object) -> str:
    return f"The player at {seat.name.title()} returned {action!r}, which is not legal"
