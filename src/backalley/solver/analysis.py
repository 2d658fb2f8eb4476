"""Game analysis: each deal's double-dummy tricks, and every card that cost tricks.

For a deal played from its first lead, :func:`analyze_deal` solves the position
before every card (:mod:`backalley.solver`) and compares the card played with
the best one: a card whose count is below the position's value cost its pair
that many tricks against best play by everyone from then on. The first
position's value is the deal's double-dummy result: the tricks each pair takes
when all four play their best with every card seen.

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

from collections.abc import Sequence

import attrs

from ..core.actions import Play, shared_play
from ..core.cards import CARDS, SEATS, Card, Seat
from ..core.position import to_move
from ..engine.match import apply
from ..engine.state import MatchState
from .search import Search
from .solution import position_in_play, solve_position

__all__ = ["CostlyCard", "DealAnalysis", "SeatSummary", "analyze_deal", "seat_summaries"]


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

    ``cards`` are played in turn through ``apply``, which refuses an illegal one.
    """
    pos = position_in_play(start)
    deal = start.deal
    assert deal is not None  # position_in_play refuses a state out of play
    size = deal.hand_size
    # One search per pair for the whole deal: later positions meet its table again.
    searches = (Search.of(pos, 0), Search.of(pos, 1))
    ours = to_move(pos) % 2
    first = solve_position(pos, searches[ours])
    value = max(count for _, count in first)
    double_dummy = (value, size - value) if ours == 0 else (size - value, value)
    costly = []
    plays = [0, 0, 0, 0]
    state = start
    counts = first
    finished = len(start.history)
    taken = deal.tricks_won
    for index, card in enumerate(cards):
        pos = state.position  # still in the play phase of the deal: checked above
        mover = to_move(pos)
        if index:
            counts = solve_position(pos, searches[mover % 2])
        seat = SEATS[mover]
        play: Play = shared_play(seat, CARDS[card])
        best = max(count for _, count in counts)
        got = next((count for known, count in counts if known == play), None)
        plays[mover] += 1
        if got is not None and got < best:
            keep = tuple(known.card for known, count in counts if count == best)
            costly.append(CostlyCard(index // 4 + 1, seat, CARDS[card], best - got, keep))
        state = apply(state, play)
        if len(state.history) > finished:
            taken = state.history[-1].deal.tricks_won
            break
        current = state.deal
        assert current is not None
        taken = current.tricks_won
    return DealAnalysis(
        double_dummy, taken, tuple(costly), (plays[0], plays[1], plays[2], plays[3])
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
