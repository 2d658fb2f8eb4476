"""The compact position as a class with slots: the design measured against the tuple.

Not used by the package: ``benchmarks/position_designs.py`` times it beside
``backalley.core.position`` (a plain tuple), interpreted and compiled by mypyc,
where a final class with slots becomes a native class. The same fields and the same
rules calls as the tuple; the designs' figures are in ``docs/architecture.md``.
"""

from __future__ import annotations

from typing import Final, final

from backalley.core.bidding import BOARD, contract_terms, opening_seat
from backalley.core.flow import dealer_of_deal, hand_size_of_deal, in_tiebreak, thrown_in_codes
from backalley.core.rules import Rules, TiePolicy
from backalley.core.scoring import score_terms
from backalley.core.tricks import allowed_plays, winning_card

AROUND: Final = (0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3)
LEGAL_BIDS: Final = tuple((*range(size), BOARD) for size in range(14))
DEAL: Final = 0
BID: Final = 1
PLAY: Final = 2
OVER: Final = 3


@final
class Pos:
    """A position; fields as in ``backalley.core.position``."""

    __slots__ = (
        "bids",
        "broken",
        "counted",
        "dealer",
        "hands",
        "leader",
        "number",
        "outcome",
        "phase",
        "played",
        "rules",
        "size",
        "tiebreak",
        "total_ew",
        "total_ns",
        "trick",
        "trumps",
        "won_ew",
        "won_ns",
    )

    def __init__(  # noqa: PLR0913, PLR0917 -- one argument a field, as the tuple has
        self,
        phase: int,
        dealer: int,
        size: int,
        trumps: int,
        tiebreak: bool,
        hands: tuple[int, int, int, int],
        trick: tuple[int, ...],
        leader: int,
        bids: tuple[int, ...],
        broken: bool,
        won_ns: int,
        won_ew: int,
        played: tuple[int, ...],
        number: int,
        counted: int,
        total_ns: int,
        total_ew: int,
        outcome: int,
        rules: Rules,
    ) -> None:
        self.phase = phase
        self.dealer = dealer
        self.size = size
        self.trumps = trumps
        self.tiebreak = tiebreak
        self.hands = hands
        self.trick = trick
        self.leader = leader
        self.bids = bids
        self.broken = broken
        self.won_ns = won_ns
        self.won_ew = won_ew
        self.played = played
        self.number = number
        self.counted = counted
        self.total_ns = total_ns
        self.total_ew = total_ew
        self.outcome = outcome
        self.rules = rules


def start(rules: Rules) -> Pos:
    hands = (0, 0, 0, 0)
    return Pos(DEAL, 0, 0, 0, False, hands, (), -1, (), False, 0, 0, (), 0, 0, 0, 0, -1, rules)


def to_move(pos: Pos) -> int:
    if pos.phase == PLAY:
        return AROUND[pos.leader + len(pos.trick)]
    if pos.phase == BID:
        return AROUND[pos.dealer + 1 + len(pos.bids)]
    return -1


def next_deal(pos: Pos) -> tuple[int, int, int, bool]:
    rules = pos.rules
    return (
        pos.number,
        int(dealer_of_deal(rules, pos.number)),
        hand_size_of_deal(rules, pos.counted),
        in_tiebreak(rules, pos.counted),
    )


def deal(pos: Pos, hands: tuple[int, int, int, int], trumps: int) -> Pos:
    number, dealer, size, tiebreak = next_deal(pos)
    phase, leader = BID, -1
    if tiebreak:
        phase, leader = PLAY, AROUND[dealer + 1]
    return Pos(
        phase, dealer, size, trumps, tiebreak, hands, (), leader, (), False, 0, 0, (),
        number, pos.counted, pos.total_ns, pos.total_ew, -1, pos.rules,
    )  # fmt: skip


def legal_bids(pos: Pos) -> tuple[int, ...]:
    return LEGAL_BIDS[pos.size]


def bid(pos: Pos, code: int) -> Pos:
    bids = (*pos.bids, code)
    phase, leader, number = pos.phase, pos.leader, pos.number
    if len(bids) == 4:
        if thrown_in_codes(bids):
            phase, number = DEAL, number + 1
        else:
            first = pos.dealer + 1
            opener = opening_seat((AROUND[first + i], bids[i]) for i in range(4))
            assert opener is not None
            phase, leader = PLAY, opener
    return Pos(
        phase, pos.dealer, pos.size, pos.trumps, pos.tiebreak, pos.hands, pos.trick, leader,
        bids, pos.broken, pos.won_ns, pos.won_ew, pos.played, number, pos.counted,
        pos.total_ns, pos.total_ew, pos.outcome, pos.rules,
    )  # fmt: skip


def allowed(pos: Pos) -> int:
    trick = pos.trick
    seat = AROUND[pos.leader + len(trick)]
    broken = pos.broken
    bids = pos.bids
    bid_board = (
        not trick and not broken and len(bids) == 4 and bids[(seat - pos.dealer - 1) % 4] == BOARD
    )
    return allowed_plays(pos.hands[seat], trick, pos.trumps, broken, bid_board)[0]


def play(pos: Pos, card: int) -> Pos:
    leader = pos.leader
    trick = pos.trick
    seat = AROUND[leader + len(trick)]
    bit = 1 << card
    h0, h1, h2, h3 = pos.hands
    if seat == 0:
        hands = (h0 ^ bit, h1, h2, h3)
    elif seat == 1:
        hands = (h0, h1 ^ bit, h2, h3)
    elif seat == 2:
        hands = (h0, h1, h2 ^ bit, h3)
    else:
        hands = (h0, h1, h2, h3 ^ bit)
    trick = (*trick, card)
    broken, won_ns, won_ew, played = pos.broken, pos.won_ns, pos.won_ew, pos.played
    trumps = pos.trumps
    if len(trick) == 4:
        a, b, c, d = trick
        leader = AROUND[leader + winning_card(trick, trumps)[1]]
        broken = broken or bool(((1 << a) | (1 << b) | (1 << c) | (1 << d)) & trumps)
        if leader % 2:
            won_ew += 1
        else:
            won_ns += 1
        played = played + trick
        trick = ()
    following = Pos(
        pos.phase, pos.dealer, pos.size, trumps, pos.tiebreak, hands, trick, leader, pos.bids,
        broken, won_ns, won_ew, played, pos.number, pos.counted, pos.total_ns, pos.total_ew,
        pos.outcome, pos.rules,
    )  # fmt: skip
    if won_ns + won_ew == pos.size and not trick:
        return _finish(following)
    return following


def _finish(pos: Pos) -> Pos:
    number = pos.number + 1
    phase, outcome = DEAL, pos.outcome
    total_ns, total_ew, counted = pos.total_ns, pos.total_ew, pos.counted
    rules = pos.rules
    if pos.tiebreak:
        if pos.won_ns != pos.won_ew:
            phase, outcome = OVER, (3 if pos.won_ns > pos.won_ew else 4)
    else:
        if len(pos.bids) == 4:
            first = pos.dealer + 1
            ns, ew = contract_terms((AROUND[first + i], pos.bids[i]) for i in range(4))
            total_ns += score_terms(ns[0], ns[1], pos.size, pos.won_ns)
            total_ew += score_terms(ew[0], ew[1], pos.size, pos.won_ew)
        counted += 1
        if counted >= rules.deals:
            if total_ns != total_ew:
                phase, outcome = OVER, (0 if total_ns > total_ew else 1)
            elif rules.tie is TiePolicy.DRAW:
                phase, outcome = OVER, 2
    return Pos(
        phase, pos.dealer, pos.size, pos.trumps, pos.tiebreak, pos.hands, pos.trick, pos.leader,
        pos.bids, pos.broken, pos.won_ns, pos.won_ew, pos.played, number, counted, total_ns,
        total_ew, outcome, rules,
    )  # fmt: skip
