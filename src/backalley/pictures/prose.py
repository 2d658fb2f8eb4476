"""The words a match is told in: the result sentence, the score sheet's rows, deal headings.

The command line, the text renderer and the SVG captions lay these out each in
their own way (a terminal table, an SVG table, a caption), but what they say
comes from here: who won and how, which deals count and the running totals, a
deal's size, dealer, turned card and trump.

>>> from backalley import Outcome, Pair, Seat, Termination
>>> outcome = Outcome(Termination.TIEBREAK_DEAL, Pair.EAST_WEST, (40, 40))
>>> result_sentence(outcome)
'East-West win on the tiebreak deal, NS 40 to EW 40'
>>> result_sentence(outcome, seat=Seat.NORTH)
'East-West win on the tiebreak deal (your side loses), North-South 40 to East-West 40'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final, Literal

import attrs

from ..core.bidding import Contract
from ..core.cards import Card, Pair, Seat, Suit, trump_words
from ..core.dealing import DealSetup
from ..core.scoring import BOARD_POINTS_PER_TRICK, POINTS_PER_TRICK_BID, score
from ..engine.state import MatchState, Outcome, Termination

if TYPE_CHECKING:  # the view module names the trump through this one
    from ..engine.view import SeatView

__all__ = [
    "PAIR_NAMES",
    "SheetRow",
    "counted",
    "deal_heading",
    "deals_sentence",
    "result_sentence",
    "score_rows",
    "score_working",
    "sheet_lines",
    "throw_in_sentence",
]

PAIR_NAMES: Final = {Pair.NORTH_SOUTH: "North-South", Pair.EAST_WEST: "East-West"}
"""The pairs' names in sentences."""


def result_sentence(outcome: Outcome, *, seat: Seat | None = None) -> str:
    """How a match ended: ``a draw, 67 all`` or ``North-South win, NS 80 to EW 67``.

    A win on the tiebreak deal says so; told to ``seat``, the sentence says
    whether that seat's side won, and names the sides in words (it is for a player,
    not a log).
    """
    ns, ew = outcome.totals
    if outcome.winner is None:
        return f"a draw, {ns} all"
    how = " on the tiebreak deal" if outcome.termination is Termination.TIEBREAK_DEAL else ""
    yours = ""
    if seat is not None:
        yours = " (your side wins)" if outcome.winner == seat.pair else " (your side loses)"
    if seat is not None:
        return f"{PAIR_NAMES[outcome.winner]} win{how}{yours}, North-South {ns} to East-West {ew}"
    return f"{PAIR_NAMES[outcome.winner]} win{how}{yours}, NS {ns} to EW {ew}"


@attrs.frozen
class SheetRow:
    """One finished deal on the score sheet.

    ``kind`` is ``scored``, ``thrown in`` (all four passed: no score, not counted)
    or ``tiebreak`` (no score: only the tricks decide). ``totals`` are the
    running totals after this deal. ``number`` counts every deal dealt, from 1;
    ``scheduled`` is the deal's place in the schedule (deal N of M, docs/rules.md
    MATCH-3 and MATCH-4: a thrown-in deal is dealt again at the same place), and
    ``redeal`` says it was dealt again after a throw-in.
    """

    number: int
    hand_size: int
    dealer: Seat
    trump: Suit | None
    kind: Literal["scored", "thrown in", "tiebreak"]
    scores: tuple[int, int]
    tricks: tuple[int, int]
    totals: tuple[int, int]
    scheduled: int = 0
    redeal: bool = False

    @property
    def label(self) -> str:
        """The deal as people number it: ``3``, ``3 (re-deal)``, or ``tiebreak``."""
        if self.kind == "tiebreak":
            return "tiebreak"
        return f"{self.scheduled} (re-deal)" if self.redeal else str(self.scheduled)

    @property
    def trump_word(self) -> str:
        """The trump suit's name (``hearts``), or ``none``."""
        return "none" if self.trump is None else self.trump.word

    def tail(self, scored: str) -> str:
        """What the row says after its trump: a tiebreak's tricks, or ``scored`` filled in.

        ``scored`` is a format of the two scores then the two running totals.
        """
        if self.kind == "tiebreak":
            return f"  tiebreak: NS {self.tricks[0]} tricks, EW {self.tricks[1]} tricks"
        return scored.format(*self.scores, *self.totals)


def score_rows(match: MatchState | SeatView) -> list[SheetRow]:
    """The score sheet of the finished deals of a match, or of those a seat has seen."""
    rows = []
    ns = ew = 0
    if isinstance(match, MatchState):
        deals = [
            (
                s.number,
                s.hand_size,
                s.dealer,
                s.trump,
                result.thrown_in,
                s.tiebreak,
                result.scores,
                result.deal.tricks_won,
            )
            for result in match.history
            for s in (result.deal.setup,)
        ]
    else:
        deals = [
            (
                deal.number,
                deal.hand_size,
                deal.dealer,
                deal.trump,
                deal.thrown_in,
                deal.tiebreak,
                deal.scores or (0, 0),
                deal.tricks_won,
            )
            for deal in match.history
        ]
    played = 0
    redeal = False
    for number, size, dealer, trump, thrown_in, tiebreak, scores, tricks in deals:
        kind: Literal["scored", "thrown in", "tiebreak"] = "scored"
        if thrown_in:
            kind = "thrown in"
        elif tiebreak:
            kind = "tiebreak"
        else:
            ns += scores[0]
            ew += scores[1]
        row = SheetRow(
            number + 1, size, dealer, trump, kind, scores, tricks, (ns, ew), played + 1, redeal
        )
        rows.append(row)
        # A thrown-in deal is dealt again at the same place in the schedule.
        redeal = thrown_in
        played += kind == "scored"
    return rows


def sheet_lines(
    rows: list[SheetRow], head: Callable[[SheetRow], str], *, thrown_in: str, scored: str
) -> list[str]:
    """A score sheet's lines: ``head(row)``, then ``thrown_in`` or :meth:`SheetRow.tail`."""
    return [
        head(row) + (thrown_in if row.kind == "thrown in" else row.tail(scored)) for row in rows
    ]


def deals_sentence(state: MatchState) -> str:
    """How many deals a match had, numbered as people count them (deal N of M).

    ``14 deals of 14``; with throw-ins, ``14 deals of 14 (3 thrown in and dealt
    again)``; with a tiebreak, ``... and a tiebreak deal``. Thrown-in deals are
    not deals of the schedule: the same deal is dealt again (docs/rules.md MATCH-3,
    MATCH-4).
    """
    thrown = sum(result.thrown_in for result in state.history)
    tiebreak = any(result.deal.setup.tiebreak for result in state.history)
    text = f"{counted(state.counted_deals, 'deal')} of {state.rules.deals}"
    if thrown:
        text += f" ({thrown} thrown in and dealt again)"
    return text + (" and a tiebreak deal" if tiebreak else "")


def throw_in_sentence(next_dealer: Seat, hand_size: int) -> str:
    """What a thrown-in deal means: nobody scores, and who deals the same deal again.

    Seed ``001``: "If all four pass, the cards are thrown in and the next dealer
    deals the same number again" (docs/rules.md MATCH-3: four passes
    throw the deal in).

    >>> throw_in_sentence(Seat.EAST, 1)
    'All four passed: the cards are thrown in, nobody scores, and East deals again, 1 card each.'
    """
    return (
        "All four passed: the cards are thrown in, nobody scores, and "
        f"{next_dealer.name.title()} deals again, {counted(hand_size, 'card')} each."
    )


def score_working(contract: Contract, *, hand_size: int, tricks: int) -> str:
    """A pair's score worked out in words, ending in :func:`~backalley.core.scoring.score`.

    The rules are docs/rules.md "Scoring" (SCORE-1..4, seed ``001``'s worked deal):

    >>> score_working(Contract(3), hand_size=5, tricks=4)
    'target 3, took 4: made it, 5 × 3 + 1 extra = 16'
    >>> score_working(Contract(3), hand_size=5, tricks=2)
    'target 3, took 2: missed, −5 × 3 = −15'
    >>> score_working(Contract(0), hand_size=5, tricks=2)
    'both passed, took 2: 1 point a trick = 2'
    >>> score_working(Contract(0, multiplier=2), hand_size=5, tricks=5)
    'double Board, took all 5: 10 × 5 × 2 = 100'
    """
    points = score(contract, hand_size=hand_size, tricks=tricks)
    shown = f"{points}" if points >= 0 else f"−{-points}"
    if contract.is_board:
        names = {1: "Board", 2: "double Board", 3: "triple Board", 4: "quadruple Board"}
        name = names.get(contract.multiplier, f"Board ×{contract.multiplier}")
        times = "" if contract.multiplier == 1 else f" × {contract.multiplier}"
        per = f"{BOARD_POINTS_PER_TRICK} × {hand_size}{times}"
        if tricks == hand_size:
            return f"{name}, took all {hand_size}: {per} = {shown}"
        return f"{name}, took {tricks} of {hand_size}: missed, −{per} = {shown}"
    target = contract.target
    if target == 0:
        return f"both passed, took {tricks}: 1 point a trick = {shown}"
    took = f"target {target}, took {tricks}"
    if tricks < target:
        return f"{took}: missed, −{POINTS_PER_TRICK_BID} × {target} = {shown}"
    extra = tricks - target
    more = f" + {extra} extra" if extra else ""
    return f"{took}: made it, {POINTS_PER_TRICK_BID} × {target}{more} = {shown}"


def counted(count: int, noun: str) -> str:
    """A count and its noun, singular for one: ``1 card``, ``7 cards``, ``1 deal``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def deal_label(scheduled: int, deals: int, *, redeal: bool, tiebreak: bool) -> str:
    """A deal as the table numbers it: ``Deal 3 of 14 (re-deal)`` or ``Tiebreak deal``.

    ``scheduled`` is the deal's place in the schedule (a thrown-in deal is dealt again
    at the same place, RULINGS.md "Schedule and dealer"), ``deals`` the schedule's length.

    >>> deal_label(8, 14, redeal=True, tiebreak=False)
    'Deal 8 of 14 (re-deal)'
    """
    if tiebreak:
        return "Tiebreak deal"
    return f"Deal {scheduled} of {deals}" + (" (re-deal)" if redeal else "")


def deal_labels(match: MatchState) -> list[str]:
    """The label of each deal of a match as the table shows it.

    The finished deals in order, then the deal in play (if any).
    """
    deals = match.rules.deals
    rows = score_rows(match)
    labels = [
        deal_label(row.scheduled, deals, redeal=row.redeal, tiebreak=row.kind == "tiebreak")
        for row in rows
    ]
    if match.deal is not None:
        scored = sum(row.kind == "scored" for row in rows)
        redeal = bool(rows) and rows[-1].kind == "thrown in"
        labels.append(
            deal_label(scored + 1, deals, redeal=redeal, tiebreak=match.deal.setup.tiebreak)
        )
    return labels


def deal_heading(
    setup: DealSetup,
    *,
    label: str | None = None,
    tiebreak: str = " (tiebreak)",
    dealer: Callable[[Seat], str] = str,
    turned: Callable[[Card], str] = lambda card: card.symbol,
) -> str:
    """``Deal 3: 5 cards, dealer N, turned 7♥: hearts are trumps``.

    The callers choose how to write the tiebreak mark, the dealer and the
    turned card: a terminal line is terse, an SVG caption spells
    them out. ``label`` (:func:`deal_label`) numbers the deal as the table does
    instead of counting every deal dealt.
    """
    name = label or f"Deal {setup.number + 1}{tiebreak if setup.tiebreak else ''}"
    return (
        f"{name}: "
        f"{counted(setup.hand_size, 'card')}, dealer {dealer(setup.dealer)}, "
        f"turned {turned(setup.turned)}: {trump_words(setup.trump)}"
    )
