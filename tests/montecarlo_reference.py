"""The Monte Carlo player's play-out as first written, on the rules core: the reference.

``backalley.players._playout`` plays the same policy with the rules written out in
one loop; ``test_montecarlo_playout.py`` checks that both play the same cards. This
one asks the rules core for every card: ``allowed_plays`` for the cards a seat may
play, ``winning_card`` and ``trick_winner`` for who is winning the trick. The
bidding's values and the bids' evidence are here as first written too, on ``Bid``
objects and ``heuristic_bid``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Final

from backalley.core.actions import Bid, Play
from backalley.core.bidding import contracts, opening_leader
from backalley.core.cards import SEATS, SUIT_MASKS, Card, Seat, Suit, cards_of
from backalley.core.flow import thrown_in
from backalley.core.tricks import allowed_plays, trick_winner, winning_card
from backalley.engine.sampling import DealSampler
from backalley.engine.view import SeatView
from backalley.players.heuristic import heuristic_bid, three_passed
from backalley.players.montecarlo import Policy, _margin, _Table
from backalley.solver.search import Search

_ACES: Final = sum(1 << (13 * suit + 12) for suit in range(4))
# RANK_MASKS[r]: the four plain cards of rank r + 2, for "the lowest-ranked plain card".
_RANK_MASKS: Final = tuple(sum(1 << (13 * suit + r) for suit in range(4)) for r in range(13))

Needed = tuple[tuple[int, int], tuple[bool, bool]] | None


def reference_run(  # noqa: PLR0917 - the position's parts, as the player keeps them
    hands: list[int],
    first: int | None,
    rng: random.Random,
    policy: str,
    leader: int,
    trick: tuple[int, ...],
    won: list[int],
    broken: bool,
    trump: Suit | None,
    trumps: int,
    boards: tuple[bool, ...],
    needed: Needed,
    record: list[int],
) -> list[int]:
    """Play the deal out from here (``first``: the card the seat to move plays)."""
    while hands[0] | hands[1] | hands[2] | hands[3]:
        seat = (leader + len(trick)) % 4
        if first is not None:
            card, first = first, None
        else:
            allowed = allowed_plays(hands[seat], trick, trumps, broken, boards[seat])[0]
            if policy == "random":
                choices = cards_of(allowed)
                card = choices[rng.randrange(len(choices))]
            else:
                card = reference_choose(seat, allowed, trick, leader, trumps, won, needed)
        hands[seat] ^= 1 << card
        record.append(card)
        trick = (*trick, card)
        if len(trick) == 4:
            winner = trick_winner(SEATS[leader], trick, trump)  # type: ignore[arg-type]
            won[winner % 2] += 1
            broken = broken or any((1 << c) & trumps for c in trick)
            leader = int(winner)
            trick = ()
    return won


def reference_cheapest(mask: int, trumps: int) -> int:
    """The heuristic's cheapest card: the lowest-ranked plain card, else the lowest trump."""
    plain = mask & ~trumps
    if plain:
        for rank in _RANK_MASKS:
            low = plain & rank
            if low:
                return (low & -low).bit_length() - 1
    return (mask & -mask).bit_length() - 1


def beating(allowed: int, trick: tuple[int, ...], best: int, trumps: int) -> int:
    """The cards of ``allowed`` that would beat ``best``, the card winning the trick."""
    above = ~((1 << (best + 1)) - 1)
    if (1 << best) & trumps:
        return allowed & trumps & above
    led = trick[0]
    suit = SUIT_MASKS[led // 13] if led < Card.LITTLE else 0
    return allowed & (trumps | (suit & above))


def reference_choose(  # noqa: PLR0917 - the position as plain ints
    seat: int,
    allowed: int,
    trick: tuple[int, ...],
    leader: int,
    trumps: int,
    won: list[int],
    needed: Needed,
) -> int:
    """The seed ``001`` heuristic's card, on masks."""
    if not allowed & (allowed - 1):
        return allowed.bit_length() - 1
    if not trick:
        aces = allowed & _ACES & ~trumps
        return reference_cheapest(aces or allowed, trumps)
    best, at = winning_card(trick, trumps)
    if (leader + at) % 4 == (seat + 2) % 4:
        return reference_cheapest(allowed, trumps)  # the partner is winning
    winning = beating(allowed, trick, best, trumps)
    if needed is not None:
        pair = seat % 2
        targets, boards = needed
        # One trick beats a Board: until then, a trump is worth spending.
        their_board_unbeaten = boards[1 - pair] and won[pair] == 0
        if won[pair] >= targets[pair] and not their_board_unbeaten:
            winning &= ~trumps
    return reference_cheapest(winning or allowed, trumps)


def reference_bid_values(
    view: SeatView,
    table: _Table,
    hands: list[int],
    legal: Sequence[Bid | Play],
    rng: random.Random,
    *,
    policy: Policy,
    rollouts: int,
    exact_bids: int,
) -> list[float]:
    """Each candidate bid's result on one sampled deal, the later bids predicted."""
    size = table.size
    known = view.bids
    taken: dict[tuple[Seat | None, tuple[bool, ...]], list[int]] = {}
    values = []
    for action in legal:
        assert isinstance(action, Bid)
        bids = [*known, action]
        while len(bids) < 4:
            seat = SEATS[(table.dealer + 1 + len(bids)) % 4]
            partner = next((bid for bid in bids if bid.seat == seat.partner), None)
            hand = cards_of(hands[seat])
            last = three_passed(bids)
            bids.append(
                heuristic_bid(seat, hand, table.trump, size, partner, after_three_passes=last)
            )
        if thrown_in(bids):
            values.append(0.0)
            continue
        leader = opening_leader(bids)
        boards = tuple(bids[(s - table.dealer - 1) % 4].board for s in range(4))
        key = (leader, boards)
        if key not in taken:
            assert leader is not None
            if size <= exact_bids:
                search = Search(table.trumps, (*boards,), table.pair)  # type: ignore[arg-type]
                taken[key] = [search.value(list(hands), (), int(leader), False)]
            else:
                deal = table.with_bids(bids, leader, boards)
                taken[key] = [deal.tricks_after(hands, rng, policy) for _ in range(rollouts)]
        pair_contracts = contracts(bids)
        ours, theirs = pair_contracts[table.pair], pair_contracts[1 - table.pair]
        margins = [_margin(ours, theirs, size, tricks) for tricks in taken[key]]
        values.append(sum(margins) / len(margins))
    return values


def reference_likelihood(
    view: SeatView, sampler: DealSampler, hands: list[int], bid_inference: float
) -> float:
    """How well a sampled deal explains the others' bids, if they bid like the heuristic."""
    deal = view.deal
    assert deal is not None
    miss = 0
    said: list[Bid] = []
    for bid in deal.bids:
        seat = bid.seat
        if seat != view.seat:
            partner = next((b for b in said if b.seat == seat.partner), None)
            hand = cards_of(hands[seat] | sampler.known[seat])
            last = three_passed(said)
            guess = heuristic_bid(
                seat, hand, deal.trump, deal.hand_size, partner, after_three_passes=last
            )
            if guess.board != bid.board:
                miss += 3
            else:
                miss += abs(guess.amount - bid.amount)
        said.append(bid)
    return math.exp(-bid_inference * miss)
