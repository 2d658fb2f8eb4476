"""Shrinking a fuzz case to a small one on which the engine still disagrees.

Delta debugging (Zeller's ddmin, greedily): first the fewest deals, then the
fewest actions. A candidate drops some earlier deals (the schedule is rebuilt
from the hand sizes of the deals kept, and the first dealer made the dealer of
the first deal kept) or some probes of illegal actions. Moves are action
indices, not seats, so a deal dealt by another dealer plays the same way. Each
candidate is run through the engine; one that still shows a difference
replaces the case, cut at its first difference. Every loop is bounded by the
budget of engine runs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import attrs

from ..core.cards import SEATS
from ..core.rules import Rules
from ..engine.state import MatchState
from .cases import Case

__all__ = ["shrink", "with_deals"]


def with_deals(case: Case, kept: Sequence[int]) -> Case | None:
    """The case with only the deals at the positions ``kept``; None if it cannot be a match."""
    deals = [case.deals[index] for index in kept]
    if not deals:
        return None
    sizes = [script.hand_size for script in deals if script.kind == "counted"]
    last = deals[-1]
    if last.kind in ("thrown", "open") and not last.tiebreak:
        # The last deal must still be due: a thrown-in or unfinished deal of its size.
        sizes.append(last.hand_size)
    if not sizes:
        return None
    dealer = SEATS[(case.rules.first_dealer + kept[0]) % 4]
    rules = Rules(schedule=sizes, tie=case.rules.tie, first_dealer=dealer)
    return attrs.evolve(case, rules=rules, deals=tuple(deals))


def _without_probes(case: Case, dropped: set[tuple[int, int]]) -> Case:
    deals = []
    for number, script in enumerate(case.deals):
        steps = tuple(
            step for index, step in enumerate(script.steps) if (number, index) not in dropped
        )
        deals.append(attrs.evolve(script, steps=steps))
    return attrs.evolve(case, deals=tuple(deals))


def _probes(case: Case) -> list[tuple[int, int]]:
    return [
        (number, index)
        for number, script in enumerate(case.deals)
        for index, step in enumerate(script.steps)
        if step[0] == "probe"
    ]


def shrink(
    found: tuple[Case, str, MatchState],
    attempt: Callable[[Case], tuple[Case, str, MatchState] | None],
    budget: int,
) -> tuple[Case, str, MatchState]:
    """The smallest failing case found from ``found`` within ``budget`` engine runs.

    ``attempt(case)`` runs a candidate: the case cut at its first difference (with
    the message and the position), or None if the engine agrees or the case does
    not fit.
    """
    best = found
    runs = 0

    def run(candidate: Case | None) -> bool:
        nonlocal best, runs
        if candidate is None or runs >= budget:
            return False
        runs += 1
        result = attempt(candidate)
        if result is None:
            return False
        best = result
        return True

    # Fewest deals: drop chunks of the earlier deals, halving the chunk size (ddmin).
    chunk = max(1, len(best[0].deals) - 1)
    while chunk >= 1 and runs < budget:
        case = best[0]
        earlier = len(case.deals) - 1
        progress = False
        for start in range(0, earlier, chunk):
            kept = [i for i in range(len(case.deals)) if not start <= i < start + chunk]
            if run(with_deals(case, kept)):
                progress = True
                break
        if not progress:
            chunk //= 2
        else:
            chunk = min(chunk, max(1, len(best[0].deals) - 1))
    # Fewest actions: drop probes the same way.
    probes = _probes(best[0])
    chunk = max(1, len(probes))
    while probes and chunk >= 1 and runs < budget:
        progress = False
        for start in range(0, len(probes), chunk):
            dropped = set(probes[start : start + chunk])
            if run(_without_probes(best[0], dropped)):
                progress = True
                break
        probes = _probes(best[0])
        if not progress:
            chunk //= 2
        else:
            chunk = min(chunk, max(1, len(probes)))
    return best
