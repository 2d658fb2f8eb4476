"""``solve(state)``: the double-dummy value of every legal card, as a :class:`Solution`.

The public side of the solver: it reads a match state in the play phase (every
hand known), turns it into plain ints (:func:`position_of`) and asks the search
(:mod:`backalley.solver.search`) for each legal card. The count is the number of
tricks the mover's pair will have taken in the whole deal, the tricks already
taken included, when both pairs play their best from here on; why tricks and
not points is the right value for Back Alley's scoring is in ``docs/solve.md``.

>>> from backalley import Rules, apply, legal_actions, new_match
>>> state = new_match(Rules(schedule=[3]), seed=7)
>>> state = apply(state, legal_actions(state)[0])
>>> while state.phase.value == "bid":
...     state = apply(state, legal_actions(state)[-1])   # Board, Board, ...
>>> solution = solve(state)
>>> list(solution) == list(legal_actions(state))
True
>>> solution.value == max(solution[play] for play in solution)
True
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import attrs

from ..core.actions import Play, shared_play
from ..core.cards import CARDS, SEATS, Seat
from ..engine.state import MatchState, Phase
from .search import Search

__all__ = ["Position", "Solution", "SolveError", "position_of", "solve"]


class SolveError(ValueError):
    """A state the solver cannot solve, with a reason code and a sentence saying why.

    ``reason`` is ``"not_a_state"`` (the argument is not a match state) or
    ``"not_in_play"`` (the match is not in the play phase of a deal).
    """

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


@attrs.frozen
class Position:
    """A position in play as plain ints: what the search reads.

    ``hands`` the four seats' cards as masks (by seat), ``trick`` the card
    numbers of the current trick, ``leader`` its leader, ``broken`` whether a
    trump or joker was played to an earlier trick, ``trumps`` the deal's trump
    mask (jokers included), ``boards`` whether each seat bid Board, ``won`` the
    tricks each pair has taken.
    """

    hands: tuple[int, int, int, int]
    trick: tuple[int, ...]
    leader: int
    broken: bool
    trumps: int
    boards: tuple[bool, bool, bool, bool]
    won: tuple[int, int]

    @property
    def mover(self) -> int:
        """The seat to play next."""
        return (self.leader + len(self.trick)) % 4


def position_of(state: MatchState) -> Position:
    """The position of ``state`` (a match in the play phase) as plain ints.

    Raises :class:`SolveError` for anything else.
    """
    if not isinstance(state, MatchState):
        raise SolveError(
            "not_a_state",
            f"solve needs a MatchState in the play phase, not {type(state).__name__}.",
        )
    deal = state.deal
    if state.phase is not Phase.PLAY or deal is None or deal.leader is None:
        raise SolveError(
            "not_in_play",
            "solve needs a deal in its play phase; "
            f"this match is in its {state.phase.value} phase.",
        )
    boards = tuple(bid is not None and bid.board for bid in (deal.bid_of(seat) for seat in SEATS))
    return Position(
        hands=deal.hands,
        trick=tuple(int(card) for card in deal.trick),
        leader=int(deal.leader),
        broken=deal.broken,
        trumps=deal.setup.trumps,
        boards=(boards[0], boards[1], boards[2], boards[3]),
        won=deal.tricks_won,
    )


@attrs.frozen
class Solution(Mapping[Play, int]):
    """The double-dummy count of every legal card of the seat to move.

    ``solution[play]`` is the number of tricks the mover's pair will have taken
    in the whole deal (those already taken included) if ``play`` is made now and
    both pairs then play their best; iterating gives the legal plays in card
    order; ``value`` is the best count, the position's value for the mover's pair.
    """

    seat: Seat
    counts: tuple[tuple[Play, int], ...]

    def __getitem__(self, play: Play) -> int:
        for known, count in self.counts:
            if known == play:
                return count
        raise KeyError(play)

    def __iter__(self) -> Iterator[Play]:
        return (play for play, _ in self.counts)

    def __len__(self) -> int:
        return len(self.counts)

    @property
    def value(self) -> int:
        """The best count: the tricks the mover's pair takes in the deal under best play."""
        return max(count for _, count in self.counts)

    @property
    def best(self) -> tuple[Play, ...]:
        """The plays that keep the value."""
        top = self.value
        return tuple(play for play, count in self.counts if count == top)


def solve(state: MatchState) -> Solution:
    """Every legal card's double-dummy count for the seat to move (see :class:`Solution`)."""
    position = position_of(state)
    seat = SEATS[position.mover]
    return Solution(seat, solve_position(position))


def solve_position(
    position: Position, search: Search | None = None
) -> tuple[tuple[Play, int], ...]:
    """Each allowed card of the mover with the tricks its pair takes in the deal, best play."""
    mover = position.mover
    pair = mover % 2
    if search is None:
        search = Search(position.trumps, position.boards, pair)
    hands = list(position.hands)
    trick, leader, broken = position.trick, position.leader, position.broken
    taken = position.won[pair]
    counts: dict[int, int] = {}
    guess = -1
    for run in search.equivalents(hands, trick, leader, broken):
        count = search.after(hands, trick, leader, broken, run[0], guess)
        guess = count
        for card in run:
            counts[card] = taken + count
    seat = SEATS[mover]
    return tuple((shared_play(seat, CARDS[card]), counts[card]) for card in sorted(counts))
