"""``solve(state)``: the double-dummy value of every legal card, as a :class:`Solution`.

The public side of the solver: it reads a match state in the play phase (every
hand known) as the engine's compact position (``core.position``, the
state's ``position``; :func:`position_in_play` refuses anything else)
and asks the search (:mod:`backalley.solver.search`) for each legal card. The
count is the number of tricks the mover's pair will have taken in the whole
deal, the tricks already taken included, when both pairs play their best from
here on; why tricks and not points is the right value for Back Alley's scoring
is in ``docs/solve.md``.

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
from ..core.position import BROKEN, HANDS, LEADER, TRICK, Position, to_move, tricks_won
from ..engine.state import MatchState, Phase
from .search import Search

__all__ = ["Solution", "SolveError", "position_in_play", "solve", "solve_position"]


class SolveError(ValueError):
    """A state the solver cannot solve, with a reason code and a sentence saying why.

    ``reason`` is ``"not_a_state"`` (the argument is not a match state) or
    ``"not_in_play"`` (the match is not in the play phase of a deal).
    """

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


def position_in_play(state: MatchState) -> Position:
    """The compact position (``core.position``) of ``state``, a match in the play phase.

    The state's own ``position``; raises :class:`SolveError` for anything
    but a match state in the play phase of a deal.
    """
    if not isinstance(state, MatchState):
        raise SolveError(
            "not_a_state",
            f"solve needs a MatchState in the play phase, not {type(state).__name__}.",
        )
    if state.phase is not Phase.PLAY or state.deal is None or state.deal.leader is None:
        raise SolveError(
            "not_in_play",
            "solve needs a deal in its play phase; "
            f"this match is in its {state.phase.value} phase.",
        )
    return state.position


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
    pos = position_in_play(state)
    return Solution(SEATS[to_move(pos)], solve_position(pos))


def solve_position(pos: Position, search: Search | None = None) -> tuple[tuple[Play, int], ...]:
    """Each allowed card of the mover with the tricks its pair takes in the deal, best play.

    ``pos`` is a compact position in the play phase; ``search`` a search of its
    deal for the mover's pair (one is made when None), whose table it then shares.
    """
    mover = to_move(pos)
    pair = mover % 2
    if search is None:
        search = Search.of(pos, pair)
    hands = list(pos[HANDS])
    trick, leader, broken = pos[TRICK], pos[LEADER], pos[BROKEN]
    taken = tricks_won(pos)[pair]
    counts: dict[int, int] = {}
    guess = -1
    for run in search.equivalents(hands, trick, leader, broken):
        count = search.after(hands, trick, leader, broken, run[0], guess)
        guess = count
        for card in run:
            counts[card] = taken + count
    seat = SEATS[mover]
    return tuple((shared_play(seat, CARDS[card]), counts[card]) for card in sorted(counts))
