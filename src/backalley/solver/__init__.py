"""Exact play: the double-dummy solver (every hand known, both pairs at their best).

:func:`solve` gives, for every legal card of the seat to move, the tricks its
pair will have taken in the whole deal; :mod:`backalley.solver.search` is the
search on plain ints that players build on. ``docs/solve.md`` says how it
searches and why tricks are the value.
"""

from .search import Search
from .solution import Position, Solution, SolveError, position_of, solve, solve_position

__all__ = ["Position", "Search", "Solution", "SolveError", "position_of", "solve", "solve_position"]
