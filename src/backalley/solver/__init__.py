"""Exact play: the double-dummy solver (every hand known, both pairs at their best).

:func:`solve` gives, for every legal card of the seat to move, the tricks its
pair will have taken in the whole deal, read from the engine's compact position
(``core.position``); :mod:`backalley.solver.search` is the search on plain ints
that players build on. ``docs/solve.md`` says how it searches and why tricks
are the value.
"""

from .search import Search
from .solution import Solution, SolveError, position_in_play, solve, solve_position

__all__ = ["Search", "Solution", "SolveError", "position_in_play", "solve", "solve_position"]
