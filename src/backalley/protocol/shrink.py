"""Shrinking a fuzz case to a small one on which the engine still disagrees.

Delta debugging (Zeller's ddmin, greedily): first the fewest deals, then the
fewest actions. A candidate drops some earlier deals (the schedule is rebuilt
from the hand sizes of the deals kept, and the first dealer made the dealer of
the first deal kept), deals the last deal again from a later trick, or drops
some probes of illegal actions. Moves are action
indices, not seats, so a deal dealt by another dealer plays the same way. Each
candidate is run through the engine; one that still shows a difference
replaces the case, cut at its first difference, if its message cites the same
rule as the case found (another rule's difference is another fault). Every loop
is bounded by the budget of engine runs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Final

import attrs

from ..core.action_index import BOARD_INDEX, index_action
from ..core.actions import Deal
from ..core.cards import SEATS
from ..core.dealing import deck_for
from ..core.rules import Rules
from ..engine.match import apply
from ..engine.state import MatchState
from .cases import Case, DealScript, Invalid, ScriptSource, new_match_line, walk_deal
from .server import Session

__all__ = ["cited_rule", "shrink", "with_deals"]

_CITED: Final = re.compile(r"\(([A-Z]+-[0-9]+)\)$")


def cited_rule(message: str) -> str | None:
    """The rule ID a difference's message cites at its end, or None."""
    found = _CITED.search(message.rstrip())
    return None if found is None else found.group(1)


def with_deals(case: Case, kept: Sequence[int] | range) -> Case | None:
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


def _later_starts(case: Case) -> list[Case]:
    """The last deal dealt again from the start of one of its later tricks.

    Each player is dealt just the cards they held then (``deck_for``), the
    seat that led that trick bids 1 (or Board) and the others pass, so that it
    leads again; the rest of the deal's steps follow. Latest tricks first: the
    fewest actions. Whether such a deal still shows the difference (trumps may
    be broken in the original and not here) is for the engine run to say.
    """
    last = case.deals[-1]
    if last.tiebreak or not last.steps:
        return []
    session = Session()
    session.answer(new_match_line(case.rules, case.seed))
    try:
        for script in case.deals[:-1]:
            walk_deal(session, ScriptSource(script.steps), with_legal=False)
    except Invalid:
        return []
    state = session.state
    assert state is not None
    starts: list[tuple[MatchState, int]] = []
    for index, step in enumerate(last.steps):
        if step[0] == "deal":
            state = apply(state, Deal(step[1]))
        elif step[0] == "move" and state.to_move is not None:
            state = apply(state, index_action(step[1], state.to_move))
        current = state.deal
        if current is not None and current.tricks and not current.trick and step[0] == "move":
            starts.append((state, index + 1))
    candidates = []
    for start, following in reversed(starts):
        current = start.deal
        assert current is not None and current.leader is not None
        setup = current.setup
        if setup.trump is None:
            continue
        size = len(current.tricks and start.hand(current.leader))
        hands = {seat: start.hand(seat) for seat in SEATS}
        try:
            deck = deck_for(hands, dealer=setup.dealer, turned=setup.turned, hand_size=size)
        except ValueError:
            continue
        biddings = [
            [
                ("move", call if setup.dealer.after(1 + turn) == current.leader else 0)
                for turn in range(4)
            ]
            for call in ((1, BOARD_INDEX) if size > 1 else (BOARD_INDEX,))
        ]
        # The deal's own bids too, which keep its contracts (for a wrong score).
        biddings.append([step for step in last.steps if step[0] == "move"][:4])
        for bids in biddings:
            steps = (("deal", deck), *bids, *last.steps[following:])
            script = DealScript(steps, size, "open")
            candidate = with_deals(
                attrs.evolve(case, deals=(*case.deals[:-1], script)), range(len(case.deals))
            )
            if candidate is not None:
                candidates.append(candidate)
    return candidates


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
    rule = cited_rule(found[1])

    def run(candidate: Case | None) -> bool:
        nonlocal best, runs
        if candidate is None or runs >= budget:
            return False
        runs += 1
        result = attempt(candidate)
        if result is None or (rule is not None and cited_rule(result[1]) != rule):
            # A smaller case that shows another difference is not this one made smaller:
            # a wrong joker rank must not end as a one-card deal's wrong score.
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
    # Fewest actions: deal the last deal again from a later trick, then drop probes.
    progress = True
    while progress and runs < budget:
        progress = any(run(candidate) for candidate in _later_starts(best[0]))
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
