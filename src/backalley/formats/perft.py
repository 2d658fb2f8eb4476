"""Perft: how many distinct legal action sequences of a given length start from a state.

As in chess engines, ``perft(state, depth)`` walks every sequence of ``depth``
actions that :func:`backalley.legal_actions` allows and counts those that reach
full length; a sequence that ends the match early is not counted. Dealing is
one action (the seeded deal), so a walk through the end of a deal continues
into the next one. Two implementations agree on the rules only if they agree on
these counts, which makes perft a sharp conformance test (``conformance/perft.json``).

On a fresh match (the chance step first) with 13 cards, each of the four
players has 14 bids (Pass, 1 to 12, Board):

>>> from backalley import new_match
>>> [perft(new_match(seed=1), depth) for depth in range(5)]
[1, 1, 14, 196, 2744]
"""

from __future__ import annotations

from ..core.actions import Deal
from ..engine.match import apply, legal_actions
from ..engine.state import MatchState
from .notation import action_text

__all__ = ["divide", "perft"]


def perft(state: MatchState, depth: int) -> int:
    """The number of legal action sequences of exactly ``depth`` actions from ``state``."""
    if depth < 0:
        raise ValueError(f"a perft depth is 0 or more, not {depth}")
    if depth == 0:
        return 1
    actions = legal_actions(state)
    if depth == 1:
        return len(actions)
    return sum(perft(apply(state, action), depth - 1) for action in actions)


def divide(state: MatchState, depth: int) -> dict[str, int]:
    """Perft split by first action: each legal action's text and the count below it.

    A deal is written ``deal``. Comparing two implementations' divides finds the
    first action where they disagree.
    """
    if depth < 1:
        raise ValueError(f"a perft divide needs a depth of 1 or more, not {depth}")
    counts: dict[str, int] = {}
    for action in legal_actions(state):
        name = "deal" if isinstance(action, Deal) else action_text(action)
        counts[name] = perft(apply(state, action), depth - 1)
    return counts
