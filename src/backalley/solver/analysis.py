"""Game analysis: each deal's double-dummy tricks, and every card that cost tricks.

For a deal played from its first lead, :func:`analyze_deal` values the position
before every card (:mod:`backalley.solver`) and compares the card played with
the best one: a card whose count is below the position's value cost its pair
that many tricks against best play by everyone from then on. The first
position's value is the deal's double-dummy result: the tricks each pair takes
when all four play their best with every card seen.

A finished match is analysed from its state alone (:func:`analyze_match`, what a
table that keeps its matches' states calls; :func:`analyze_result` for one
finished deal): every deal's start is rebuilt from what it dealt, its bids and
its cards.

Only the first position of a deal is solved exactly; after it, each card asks
one yes-or-no question of the search (does the card keep the value?), and only a
card that does not is counted exactly and has the cards that keep the value
found. One search, counting North-South's tricks, serves both pairs and every
position of the deal, so its table is shared by all of them.

>>> from backalley import Card, Rules, apply, legal_actions, new_match
>>> state = new_match(Rules(schedule=[2]), seed=7)
>>> state = apply(state, legal_actions(state)[0])
>>> while state.phase.value == "bid":
...     state = apply(state, legal_actions(state)[-1])
>>> deal = state.deal
>>> analysis = analyze_deal(state, [])
>>> sum(analysis.double_dummy) == deal.hand_size
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import attrs

from ..core.actions import shared_play
from ..core.cards import CARDS, SEATS, Card, Seat
from ..core.dealing import DealSetup
from ..core.position import (
    BIDS,
    BROKEN,
    HANDS,
    LEADER,
    PLAY,
    PLAYED,
    RULES,
    SIZE,
    TRICK,
    WON_NS,
    Position,
    bid,
    dealt,
    play,
    start,
    to_move,
)
from ..engine.match import apply
from ..engine.state import DealResult, MatchState
from .search import Search
from .solution import position_in_play

__all__ = [
    "CostlyCard",
    "DealAnalysis",
    "Progress",
    "SeatSummary",
    "analysis_document",
    "analyze_deal",
    "analyze_match",
    "analyze_result",
    "seat_summaries",
]

Progress = Callable[[int, int], None]
"""Told ``(cards analysed, cards in all)`` as an analysis goes on, for a progress bar."""


@attrs.frozen
class CostlyCard:
    """A card that cost its pair tricks against best play.

    ``trick`` is the trick's number in the deal (from 1), ``seat`` who played
    ``card``, ``lost`` the tricks it cost (the position's value less the card's
    count, for the player's pair), ``best`` the cards that would have kept the value.
    """

    trick: int
    seat: Seat
    card: Card
    lost: int
    best: tuple[Card, ...]


@attrs.frozen
class DealAnalysis:
    """One deal: its double-dummy tricks at the first lead, the tricks taken, the costly cards.

    ``double_dummy`` and ``taken`` are (North-South, East-West); ``taken`` counts
    the tricks completed among the cards analysed; ``plays`` is how many cards
    were analysed, by seat.
    """

    double_dummy: tuple[int, int]
    taken: tuple[int, int]
    costly: tuple[CostlyCard, ...]
    plays: tuple[int, int, int, int]


@attrs.frozen
class SeatSummary:
    """A seat over a match: cards played, how many cost tricks, and how many tricks."""

    seat: Seat
    cards: int
    costly: int
    lost: int


def analyze_deal(start: MatchState, cards: Sequence[Card]) -> DealAnalysis:
    """Analyse the deal of ``start`` (at its first lead) played on with ``cards``.

    ``cards`` are played in turn through ``apply``, which refuses an illegal one
    (before anything is solved); cards past the deal's last trick are not read.
    """
    pos = position_in_play(start)
    state = start
    finished = len(start.history)
    used = 0
    for card in cards:
        seat = SEATS[to_move(state.position)]
        state = apply(state, shared_play(seat, CARDS[card]))
        used += 1
        if len(state.history) > finished:
            break
    return _analysis(pos, [int(card) for card in cards[:used]], None, 0, used)


def analyze_result(result: DealResult) -> DealAnalysis | None:
    """Analyse a finished deal of a match from its first lead (None if it was thrown in).

    The deal's start is rebuilt from what was dealt (``result.setup``), its bids
    and its cards, all kept in ``result.position``.
    """
    return _analysis_of(result.setup, result.position, None, 0, 0)


def analyze_match(state: MatchState, progress: Progress | None = None) -> list[DealAnalysis | None]:
    """Analyse every deal of a match: its finished deals, then the deal in progress if any.

    One entry a deal, in order (thrown-in deals included): None for a deal
    without play (thrown in, or still in its bidding). ``progress`` is told
    ``(cards analysed, cards in all)`` before the first card and after each one.
    """
    parts: list[tuple[DealSetup, Position]] = [
        (result.setup, result.position) for result in state.history
    ]
    if state.setup is not None:
        parts.append((state.setup, state.position))
    total = sum(len(pos[PLAYED]) + len(pos[TRICK]) for _, pos in parts)
    if progress is not None:
        progress(0, total)
    analyses: list[DealAnalysis | None] = []
    done = 0
    for setup, pos in parts:
        analyses.append(_analysis_of(setup, pos, progress, done, total))
        done += len(pos[PLAYED]) + len(pos[TRICK])
    return analyses


def _analysis_of(
    setup: DealSetup, pos: Position, progress: Progress | None, done: int, total: int
) -> DealAnalysis | None:
    """The analysis of the deal ``setup`` dealt, from its first lead to where ``pos`` stands."""
    first = dealt(
        start(pos[RULES]),
        setup.number,
        int(setup.dealer),
        setup.hand_size,
        setup.tiebreak,
        setup.hands,
        setup.trumps,
    )
    for code in pos[BIDS] if not setup.tiebreak else ():
        first = bid(first, code)
    if first[0] != PLAY:  # PHASE: thrown in, or the bidding not over
        return None
    return _analysis(first, [*pos[PLAYED], *pos[TRICK]], progress, done, total)


def _analysis(
    pos: Position, cards: list[int], progress: Progress | None, done: int, total: int
) -> DealAnalysis:
    """The analysis of ``cards``, each allowed, played from ``pos`` (a position in play).

    ``x`` is North-South's count from the current position on under best play,
    the position's value for them; a card of theirs keeps it if they can still
    take ``x`` after it, a card of East-West's if North-South cannot take
    ``x + 1`` after it (the count of the other pair is the rest of the tricks).
    """
    size = pos[SIZE]
    search = Search.of(pos, 0)
    hands = list(pos[HANDS])
    x = search.value(hands, pos[TRICK], pos[LEADER], pos[BROKEN])
    value = pos[WON_NS] + x
    double_dummy = (value, size - value)
    costly = []
    plays = [0, 0, 0, 0]
    for card in cards:
        mover = to_move(pos)
        trick, leader, broken = pos[TRICK], pos[LEADER], pos[BROKEN]
        hands = list(pos[HANDS])
        # North-South's value to keep: theirs, or the one East-West hold them to.
        need = x if mover & 1 == 0 else x + 1
        kept = search.can_after(hands, trick, leader, broken, card, need) == (mover & 1 == 0)
        count = x
        if not kept:
            if mover & 1 == 0:
                count = search.after(hands, trick, leader, broken, card, x - 1, ceiling=x - 1)
            else:
                count = search.after(hands, trick, leader, broken, card, x + 1, floor=x + 1)
            keep = [
                other
                for run in search.equivalents(hands, trick, leader, broken)
                if search.can_after(hands, trick, leader, broken, run[0], need) == (mover & 1 == 0)
                for other in run
            ]
            seat = SEATS[mover]
            best = tuple(CARDS[other] for other in sorted(keep))
            number = len(pos[PLAYED]) // 4 + 1
            costly.append(CostlyCard(number, seat, CARDS[card], abs(x - count), best))
        plays[mover] += 1
        after = play(pos, card)
        # A completed trick leaves the count from here on: less one if North-South took it.
        x = count - (after[WON_NS] - pos[WON_NS])
        pos = after
        done += 1
        if progress is not None:
            progress(done, total)
    return DealAnalysis(
        double_dummy, (pos[10], pos[11]), tuple(costly), (plays[0], plays[1], plays[2], plays[3])
    )


def seat_summaries(deals: Sequence[DealAnalysis]) -> tuple[SeatSummary, ...]:
    """Each seat's cards, costly cards and tricks lost over ``deals``."""
    summaries = []
    for seat in SEATS:
        mine = [card for deal in deals for card in deal.costly if card.seat is seat]
        summaries.append(
            SeatSummary(
                seat,
                sum(deal.plays[seat] for deal in deals),
                len(mine),
                sum(card.lost for card in mine),
            )
        )
    return tuple(summaries)


def analysis_document(analyses: Sequence[DealAnalysis | None]) -> dict[str, object]:
    """The analyses of a match's deals as one JSON-ready document (``backalley analyze --json``).

    ``deals``: one entry a deal, in order, ``{"deal": N, "played": false}`` for a
    deal without play, else its double-dummy tricks and tricks taken (``NS``,
    ``EW``) and its costly cards (trick number, seat letter, card code, tricks
    lost, the best cards' codes); ``seats``: each seat's cards, costly cards and
    tricks lost (:func:`seat_summaries`).
    """
    deals: list[dict[str, object]] = []
    for number, analysis in enumerate(analyses, start=1):
        if analysis is None:
            deals.append({"deal": number, "played": False})
            continue
        deals.append(
            {
                "deal": number,
                "played": True,
                "double_dummy": dict(zip(("NS", "EW"), analysis.double_dummy, strict=True)),
                "taken": dict(zip(("NS", "EW"), analysis.taken, strict=True)),
                "costly": [
                    {
                        "trick": costly.trick,
                        "seat": costly.seat.letter,
                        "card": costly.card.code,
                        "lost": costly.lost,
                        "best": [card.code for card in costly.best],
                    }
                    for costly in analysis.costly
                ],
            }
        )
    seats = {
        summary.seat.letter: {
            "cards": summary.cards,
            "costly": summary.costly,
            "lost": summary.lost,
        }
        for summary in seat_summaries([a for a in analyses if a is not None])
    }
    return {"deals": deals, "seats": seats}
