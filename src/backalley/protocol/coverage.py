"""Which rules a played match puts to the test: the fuzzer's coverage, rule by rule.

A wrong engine can only be caught where its rule decides something. For each rule
an action can break (``docs/protocol.md``, "The fuzzer"), :func:`rules_reached`
says whether a finished match had a moment where the rule decides: a trick with
two cards of the led suit for CARD-2, a lead before trumps are broken by a player
holding trumps and other cards for PLAY-4, a joker played after the lead with a
trump left to follow for JOKER-4, and so on. ``docs/protocol.md`` gives the count
of each over the default run's first 200 matches, which the tests check.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Final

from ..core.cards import Card
from ..engine.state import DealState, MatchState, Termination

__all__ = ["REACHABLE_RULES", "rules_reached", "tiebreak_kinds"]

REACHABLE_RULES: Final = (
    "CARD-2",
    "CARD-3",
    "MATCH-1",
    "MATCH-2",
    "SCHED-1",
    "SCHED-2",
    "SCHED-3",
    "SCHED-4",
    "DEAL-1",
    "DEAL-2",
    "DEAL-3",
    "DEAL-4",
    "DEAL-5",
    "BID-1",
    "BID-2",
    "BID-3",
    "BID-4",
    "BID-5",
    "BID-6",
    "BID-7",
    "MATCH-3",
    "BID-8",
    "PLAY-1",
    "PLAY-2",
    "PLAY-3",
    "PLAY-4",
    "PLAY-5",
    "PLAY-6",
    "PLAY-7",
    "PLAY-8",
    "JOKER-1",
    "JOKER-2",
    "JOKER-3",
    "JOKER-4",
    "SCORE-1",
    "SCORE-2",
    "SCORE-3",
    "SCORE-4",
    "MATCH-4",
    "END-1",
    "END-2",
    "END-3",
    "END-4",
)
"""The rules an action can break, in the order of ``docs/rules.md``."""

_SCHEDULE_RULES: Final = {"standard": "SCHED-1", "twenty-five": "SCHED-2", "short": "SCHED-3"}


def rules_reached(state: MatchState) -> set[str]:
    """The rules of :data:`REACHABLE_RULES` that decided something in the match of ``state``."""
    found = {"MATCH-1", _SCHEDULE_RULES.get(state.rules.schedule_name or "", "SCHED-4")}
    history = state.history
    if len(history) > 1:
        found.add("MATCH-2")
    for result in history:
        deal = result.deal
        found |= {"DEAL-1", "DEAL-2"}
        if deal.setup.turned.is_joker:
            found.add("DEAL-3")
        if deal.setup.swap is not None:
            # A swap is what one seat knows and the others do not (DEAL-5).
            found |= {"DEAL-4", "DEAL-5"}
        if result.thrown_in:
            found |= {"BID-1", "BID-2", "MATCH-3", "MATCH-4"}
            continue
        if deal.bids:
            found |= _bidding(deal)
        found |= _play(deal)
    outcome = state.outcome
    if outcome is not None:
        found.add(
            {
                Termination.SCORE: "END-1",
                Termination.DRAW: "END-2",
                Termination.TIEBREAK_DEAL: "END-3",
            }[outcome.termination]
        )
    if any(result.setup.tiebreak for result in history):
        found.add("END-3")
        if any(r.setup.tiebreak and _level(r.deal) for r in history):
            found.add("END-4")
    return found


def _level(deal: DealState) -> bool:
    ns, ew = deal.tricks_won
    return ns == ew


def _bidding(deal: DealState) -> set[str]:
    """BID-1 to BID-8 and SCORE-1 to SCORE-4, as the deal's bids put them to the test."""
    found = {"BID-1", "BID-2", "BID-8"}
    numbers: list[int] = []
    boards = 0
    for bid in deal.bids:
        if bid.board:
            boards += 1
        elif bid.amount:
            if any(number >= bid.amount for number in numbers):
                found.add("BID-3")
            numbers.append(bid.amount)
    if boards > 1:
        found.add("BID-4")
    if deal.warnings:
        found.add("BID-7")
    contracts = deal.contracts
    if contracts is None:
        return found
    for pair, contract in enumerate(contracts):
        other = contracts[1 - pair]
        if contract.multiplier:
            found.add("SCORE-4")
            if other.multiplier > contract.multiplier:
                found.add("BID-5")
        elif contract.target == 0:
            found.add("SCORE-3")
        else:
            found.add("SCORE-2")
            if other.multiplier:
                found.add("SCORE-1")
            amounts = [bid.amount for bid in deal.bids if bid.seat % 2 == pair and not bid.board]
            if all(amounts) and len(amounts) == 2:
                found.add("BID-6")
    return found


def _play(deal: DealState) -> set[str]:
    """PLAY-1 to PLAY-8, CARD-2, CARD-3 and JOKER-1 to JOKER-4, trick by trick."""
    found: set[str] = set()
    trumps = deal.setup.trumps
    hands = list(deal.setup.hands)
    broken = False
    boards = {bid.seat for bid in deal.bids if bid.board}
    for number, trick in enumerate(deal.tricks):
        found |= {"PLAY-1", "PLAY-7"}
        if number:
            found.add("PLAY-8")
        led = trick.cards[0]
        leader_hand = hands[trick.leader]
        if not broken and leader_hand & trumps:
            if trick.leader in boards:
                found.add("PLAY-5")
            elif leader_hand & ~trumps:
                found.add("PLAY-4")
            else:
                found.add("PLAY-6")
        plays = trick.plays
        found |= _following(plays, hands, trumps)
        in_trick = [int(card) for _, card in plays]
        if sum(1 for card in in_trick if trumps >> card & 1) > 1:
            found.add("CARD-3")
        elif not any(trumps >> card & 1 for card in in_trick) and (
            sum(1 for card in in_trick if card // 13 == int(led) // 13) > 1
        ):
            found.add("CARD-2")
        for seat, card in plays:
            hands[seat] &= ~(1 << card)
        broken = broken or any(trumps >> card & 1 for card in in_trick)
    return found


def _following(plays: Iterable[tuple[int, Card]], hands: list[int], trumps: int) -> set[str]:
    """The follow rules a trick put to the test, from each follower's hand before it."""
    found: set[str] = set()
    led: Card | None = None
    joker_after_lead = False
    for seat, card in plays:
        hand = hands[seat]
        if led is None:
            led = card
            continue
        holds_trump = bool(hand & trumps)
        if led.is_joker:
            if holds_trump:
                found.add("JOKER-1" if led is Card.BIG else "JOKER-2")
            else:
                found.add("JOKER-3")
        elif trumps >> led & 1:
            if holds_trump:
                found.add("PLAY-3")
        elif hand & (0x1FFF << (13 * (int(led) // 13))):
            found.add("PLAY-2")
        if joker_after_lead and holds_trump:
            found.add("JOKER-4")
        if card.is_joker:
            joker_after_lead = True
    return found


def tiebreak_kinds(state: MatchState) -> Counter[str]:
    """The tiebreak deals of a match by the kind of schedule before them.

    A schedule whose last hand size is below its largest deals its tiebreak deal at
    a size no deal just had: the case a wrong tiebreak hand size shows in.
    """
    found: Counter[str] = Counter()
    schedule = state.rules.schedule
    for result in state.history:
        if not result.setup.tiebreak:
            continue
        if state.rules.schedule_name is not None:
            found["tiebreak deal after a named schedule"] += 1
        elif schedule[-1] < max(schedule):
            found["tiebreak deal after a schedule ending below its largest size"] += 1
        else:
            found["tiebreak deal after a schedule ending on its largest size"] += 1
    return found
