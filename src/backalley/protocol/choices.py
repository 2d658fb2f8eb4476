"""The fuzzer's choices: rules, decks, moves and illegal actions, biased to reach rare rules.

:class:`RandomSource` deals decks with turned jokers (and the swap), hands of
nothing but trumps and jokers in hand; bids Board often and sometimes passes
four times; leads jokers and trumps whenever it may; plans level deals so that
tiebreak deals are played; and probes illegal actions. :func:`draw_rules` draws
each match's rules, small schedules often (one-card deals, quick ties).
"""

from __future__ import annotations

import functools
import itertools
import random
from typing import Any, Final

import attrs

from ..core.actions import Bid, Deal, Play, shared_bid
from ..core.bidding import Contract
from ..core.cards import CARDS, SEATS, Card, Pair, Seat
from ..core.position import TRICK, tricks_won
from ..core.rules import SCHEDULES, Rules, TiePolicy
from ..core.scoring import score
from ..engine.match import apply, legal_actions
from ..engine.state import MatchState
from .cases import (
    Step,
)

__all__ = ["RandomSource", "draw_rules"]


@attrs.define
class RandomSource:
    """Biased random choices that reach the rare rules, and the probes of illegal actions."""

    rng: random.Random
    per_deal: int
    """About how many illegal actions to probe in each deal (0: none)."""
    rate: float = 0.0
    all_pass: bool = False
    plan: list[Bid | Play] = attrs.Factory(list)
    """Moves chosen ahead (last first), to reach a tiebreak deal."""

    def before_deal(self, state: MatchState) -> list[Step]:
        """Sometimes an action before the deal; always one after the match."""
        if not self.per_deal:
            return []
        if state.is_over:
            return [self._any_probe()]
        if self.rng.random() < 0.2:
            return [self._any_probe(deals=False)]
        return []

    def _any_probe(self, *, deals: bool = True) -> Step:
        rng = self.rng
        kind = rng.choice(("bid", "play", "deal") if deals else ("bid", "play"))
        value = rng.randrange(len(CARDS)) if kind == "play" else rng.randrange(-1, 4)
        return ("probe", rng.randrange(4), kind, value)

    def deck(self, state: MatchState) -> tuple[Card, ...]:
        """A biased deck; before a match's last deal, often one planned to end level."""
        rules = state.rules
        self.plan = []
        tiebreak = rules.tie is TiePolicy.TIEBREAK_DEAL
        rate = _PLAN_RATE if tiebreak else _DRAW_PLAN_RATE
        last = state.counted_deals >= rules.deals - 1
        # In short tiebreak-policy matches the deals before the last are often kept level
        # too: one deal cannot close a wide gap.
        early = tiebreak and rules.deals <= _SHORT_MATCH and self.rng.random() < _EARLY_RATE
        if (last or early) and self.rng.random() < rate:
            planned = self._plan_level(state)
            if planned is not None:
                return planned
        return self._deck(state)

    def _plan_level(self, state: MatchState) -> tuple[Card, ...] | None:
        """A deck and moves that leave the match level, so that a tiebreak deal follows.

        Level means tied totals after the last deal (END-3), or equal tricks in a
        tiebreak deal (END-4). A deal is played ahead on the reference with the
        opening leader bidding alone; then bids are chosen, keeping that leader,
        that level the totals with the tricks each pair took (:func:`_level_bids`).
        Tiebreak deals (no bidding) and one-card deals are tried until level.
        """
        if state.is_over or not _within_reach(state):
            return None
        if state.in_tiebreak and _tiebreak_deals(state) >= _MOST_LEVEL_TIEBREAKS:
            # Enough level tiebreak deals in a row: let the match end.
            return None
        for _ in range(_PLAN_TRIES):
            deck = self._deck(state)
            playing = apply(state, Deal(deck))
            current = playing.deal
            assert current is not None
            size = current.setup.hand_size
            steer = not current.setup.tiebreak
            bids: list[Bid] = []
            if steer:
                leader_at = self.rng.randrange(4)
                first = SEATS[(current.setup.dealer + 1) % 4]
                for index in range(4):
                    # The leader bids alone: 1, or Board with one card (BID-8).
                    lone = _BOARD if size == 1 else 1
                    bids.append(_bid(first.after(index), lone if index == leader_at else 0))
                    playing = apply(playing, bids[-1])
            moves: list[Bid | Play] = list(bids)
            while playing.setup is not None:
                move = self._choose(playing, legal_actions(playing))
                moves.append(move)
                playing = apply(playing, move)
            if steer:
                won = tricks_won(playing.history[-1].position)
                first = bids[0].seat
                pairs = [first.after(index).pair for index in range(4)]
                chosen = _level_bids(state.totals, size, won, (leader_at, pairs), self.rng)
                if chosen is None:
                    continue
                moves[:4] = [_bid(first.after(index), call) for index, call in enumerate(chosen)]
                # Checked on the reference: the planned deal must be legal and end level.
                playing = apply(state, Deal(deck))
                for move in moves:
                    playing = apply(playing, move)
            if not _level(playing):
                continue
            moves.reverse()
            self.plan = moves
            # The probes are drawn as if this were any other deal.
            self.rate = self.per_deal / (4 + 4 * size)
            return deck
        return None

    def _deck(self, state: MatchState) -> tuple[Card, ...]:
        rng = self.rng
        size = state.hand_size
        dealt = 4 * size
        deck = list(CARDS)
        rng.shuffle(deck)

        def put(card: Card, position: int) -> None:
            where = deck.index(card)
            deck[where], deck[position] = deck[position], deck[where]

        roll = rng.random()
        if roll < 0.15:
            # A turned joker: no trumps, and the other joker, if dealt, is swapped.
            joker, other = rng.choice(((Card.BIG, Card.LITTLE), (Card.LITTLE, Card.BIG)))
            put(joker, dealt)
            if rng.random() < 0.7:
                put(other, rng.randrange(dealt))
        elif roll < 0.3:
            # One hand of nothing but trumps (jokers included).
            turned = CARDS[rng.randrange(52)]
            put(turned, dealt)
            suit = turned.suit
            trumps = [c for c in CARDS if c.suit is suit and c is not turned]
            trumps += [Card.BIG, Card.LITTLE]
            rng.shuffle(trumps)
            offset = rng.randrange(4)
            for index in range(size):
                put(trumps[index], offset + 4 * index)
        elif roll < 0.6:
            for joker in (Card.BIG, Card.LITTLE):
                if rng.random() < 0.7:
                    put(joker, rng.randrange(dealt))
        self.all_pass = rng.random() < 0.08
        self.rate = self.per_deal / (4 + dealt)
        return tuple(deck)

    def probes(self, state: MatchState, legal: tuple[Bid | Play | Deal, ...]) -> list[Step]:
        """Now and then an illegal action: most often a held card a play rule forbids.

        Between them, the probes put every pair of refusal reasons that can meet to
        the test (``docs/conformance.md``, "The order of refusal reasons"): a bid out
        of range by a seat not to bid, a card not held played out of turn or during
        bidding, a bid of any amount during play by any seat.
        """
        rng = self.rng
        if not self.per_deal or rng.random() >= self.rate:
            return []
        current = state.deal
        assert current is not None and state.to_move is not None
        roll = rng.random()
        size = current.setup.hand_size
        if current.leader is None:
            if roll < 0.3:
                return [("probe", 0, "bid", rng.randrange(size, min(size + 3, 99) + 1))]
            if roll < 0.6:
                # Out of turn, and now and then out of range too.
                return [("probe", rng.randrange(1, 4), "bid", rng.randrange(-1, size + 2))]
            if roll < 0.75:
                held = current.hands[state.to_move]
                return [("probe", 0, "play", rng.choice(_bits(held)))]
            if roll < 0.9:
                # A card during bidding by any seat, held or not.
                return [("probe", rng.randrange(4), "play", rng.randrange(len(CARDS)))]
            return [("probe", 0, "deal", 0)]
        held = current.hands[state.to_move]
        allowed = 0
        for action in legal:
            allowed |= 1 << action.card  # type: ignore[union-attr]
        refused = held & ~allowed
        if refused and roll < 0.55:
            return [("probe", 0, "play", rng.choice(_bits(refused)))]
        if roll < 0.7:
            offset = rng.randrange(1, 4)
            other = current.hands[(state.to_move + offset) % 4]
            if rng.random() < 0.3:
                # Out of turn, and a card that seat does not hold.
                other = _ALL_CARDS & ~other
            if other:
                return [("probe", offset, "play", rng.choice(_bits(other)))]
        if roll < 0.85:
            missing = _ALL_CARDS & ~held
            return [("probe", 0, "play", rng.choice(_bits(missing)))]
        if roll < 0.95:
            # A bid during play, by any seat, of any amount (in range or not).
            return [("probe", rng.randrange(4), "bid", rng.randrange(-1, size + 2))]
        return [("probe", 0, "deal", 0)]

    def move(self, state: MatchState, legal: tuple[Bid | Play | Deal, ...]) -> Bid | Play:
        """The planned move, or a biased random one."""
        if self.plan:
            return self.plan.pop()
        return self._choose(state, legal)

    def _choose(self, state: MatchState, legal: tuple[Bid | Play | Deal, ...]) -> Bid | Play:
        random_ = self.rng.random
        first = legal[0]
        count = len(legal)
        if type(first) is Bid:
            if self.all_pass:
                return first
            roll = random_()
            if roll < 0.15:
                return legal[-1]  # type: ignore[return-value]
            if roll < 0.45:
                return first
            return legal[int(random_() * count)]  # type: ignore[return-value]
        if count == 1:
            return first  # type: ignore[return-value]
        # Plays come in card order, so the jokers, if any, are last.
        last = legal[-1]
        if last.card >= _LITTLE and random_() < 0.5:  # type: ignore[union-attr]
            if legal[-2].card >= _LITTLE and random_() < 0.5:  # type: ignore[union-attr]
                return legal[-2]  # type: ignore[return-value]
            return last  # type: ignore[return-value]
        setup = state.setup
        assert setup is not None
        if not state.position[TRICK] and random_() < 0.3:
            trumps = setup.trumps
            leads = [a for a in legal if trumps >> a.card & 1]  # type: ignore[union-attr]
            if leads:
                return leads[int(random_() * len(leads))]  # type: ignore[return-value]
        return legal[int(random_() * count)]  # type: ignore[return-value]

    def done(self) -> bool:
        """Always: random choices never run out."""
        return True


_LITTLE: Final = min(Card.LITTLE, Card.BIG)
_ALL_CARDS: Final = (1 << len(CARDS)) - 1
_PLAN_RATE: Final = 0.9
"""How often the last deal of a tiebreak-policy match is planned to end level."""
_MOST_LEVEL_TIEBREAKS: Final = 3
"""Level tiebreak deals planned in a row at most (END-4 needs one)."""
_SHORT_MATCH: Final = 4
_EARLY_RATE: Final = 0.5
"""How often a deal before the last of a short tiebreak-policy match is planned level."""
_DRAW_PLAN_RATE: Final = 0.2
"""How often the last deal of a ``draw`` match is planned to end level (END-2)."""
_PLAN_TRIES: Final = 12


_BOARD: Final = -1
"""A Board among the planner's bids (the others are numbers, 0 for Pass)."""


def _bid(seat: Seat, call: int) -> Bid:
    return shared_bid(seat, 0, board=True) if call == _BOARD else shared_bid(seat, call)


def _level_boards(
    totals: tuple[int, int],
    won: tuple[int, int],
    bidders: tuple[int, list[Pair]],
    rng: random.Random,
) -> list[int] | None:
    """Passes and Boards for a one-card deal that leave ``totals`` level (BID-4, SCORE-3/4).

    The bidder at ``leader_at`` bids the last Board, so that it still leads.
    """
    leader_at, pair_of = bidders
    found = []
    for pattern in itertools.product((0, _BOARD), repeat=4):
        if pattern[leader_at] != _BOARD or _BOARD in pattern[leader_at + 1 :]:
            continue
        best = [0, 0]
        boards = 0
        for at, call in enumerate(pattern):
            if call == _BOARD:
                boards += 1
                best[pair_of[at]] = boards
        points = [
            (10 * best[pair] if won[pair] == 1 else -10 * best[pair]) if best[pair] else won[pair]
            for pair in (0, 1)
        ]
        if totals[0] + points[0] == totals[1] + points[1]:
            found.append(list(pattern))
    return rng.choice(found) if found else None


def _tiebreak_deals(state: MatchState) -> int:
    return sum(1 for result in state.history if result.setup.tiebreak)


def _within_reach(state: MatchState) -> bool:
    """Whether one deal of numeric bids can close the gap between the totals.

    A pair scores at most ``_points(2h - 2, h)`` and at least ``-5 (2h - 2)`` with
    numeric bids (SCORE-2); one-card and tiebreak deals are always tried.
    """
    size = state.hand_size
    if size == 1 or state.in_tiebreak:
        return True
    most = 2 * size - 2
    ns, ew = state.totals
    return abs(ns - ew) <= _points(most, size) - _points(most, 0)


def _level(state: MatchState) -> bool:
    """Whether the deal just played leaves the match level.

    Level: equal totals and the match going on (a tiebreak deal follows the last
    deal, or another follows a tiebreak deal with equal tricks), or a draw.
    """
    outcome = state.outcome
    if outcome is None:
        ns, ew = state.totals
        return ns == ew
    return outcome.termination.value == "draw"


@functools.cache
def _points(target: int, tricks: int) -> int:
    """SCORE-2 and SCORE-3 (the rule is ``core.scoring``'s; the planner needs it by target)."""
    return score(Contract(target, 0), hand_size=13, tricks=tricks)


def _level_bids(
    totals: tuple[int, int],
    size: int,
    won: tuple[int, int],
    bidders: tuple[int, list[Pair]],
    rng: random.Random,
) -> list[int] | None:
    """Numeric bids, in bidding order, that leave ``totals`` level after tricks ``won``.

    The bidder at ``leader_at`` must still lead (BID-8): its bid is the highest, and
    higher than every earlier one. ``bidders`` is ``leader_at`` and the pair of each
    bidder in bidding order.
    """
    leader_at, pair_of = bidders
    if size == 1:
        return _level_boards(totals, won, bidders, rng)
    leader_pair = pair_of[leader_at]
    partner = (leader_at + 2) % 4
    others = [at for at in range(4) if pair_of[at] != leader_pair]
    # The other pair's total for each target it may reach, looked up by value.
    theirs: dict[int, list[int]] = {}
    for target in range(2 * size - 1):
        total = _points(target, won[1 - leader_pair]) + totals[1 - leader_pair]
        theirs.setdefault(total, []).append(target)
    found = []
    for lead in range(1, size):
        caps = [lead if at > leader_at else lead - 1 for at in range(4)]
        caps[leader_at] = lead
        other_cap = caps[others[0]] + caps[others[1]]
        for mate in range(caps[partner] + 1):
            mine = _points(lead + mate, won[leader_pair]) + totals[leader_pair]
            found += [(lead, mate, t) for t in theirs.get(mine, ()) if t <= other_cap]
    if not found:
        return None
    lead, mate, target = rng.choice(found)
    bids = [0, 0, 0, 0]
    bids[leader_at] = lead
    bids[(leader_at + 2) % 4] = mate
    others = [at for at in range(4) if pair_of[at] != leader_pair]
    first = min(target, [lead if at > leader_at else lead - 1 for at in range(4)][others[0]])
    bids[others[0]] = first
    bids[others[1]] = target - first
    return bids


def _bits(mask: int) -> list[int]:
    return [index for index in range(len(CARDS)) if mask >> index & 1]


_MIXED_SCHEDULES: Final = ("standard", "short", "twenty-five")
_ANY_TOP: Final = 0.8
"""How often a custom schedule holds a hand size drawn evenly from 1 to 13."""
_BELOW_TOP: Final = 0.35
_TOP_STEP: Final = 5
"""How far the largest hand size moves from one match to the next (5 and 13 are coprime,
so every size comes round)."""
"""How often such a schedule ends on a smaller deal after its largest."""


def draw_rules(
    rng: random.Random, rules: Rules | None, schedule_only: bool, number: int = 0
) -> Rules:
    """The rules of match ``number`` of a run: as set, or drawn (small schedules often).

    A custom schedule's largest hand size, the tiebreak deal's, goes round 1 to 13
    with the match number, so that a run of a few hundred matches plays tiebreak
    deals of every size rather than leaving it to chance.
    """
    tie = rng.choice((TiePolicy.DRAW, TiePolicy.TIEBREAK_DEAL))
    dealer = rng.choice(SEATS)
    if rules is not None:
        if not schedule_only:
            return rules
        return Rules(schedule=rules.schedule, tie=tie, first_dealer=dealer)
    roll = rng.random()
    if roll < 0.25:
        schedule: Any = SCHEDULES[rng.choice(_MIXED_SCHEDULES)]
    else:
        length = rng.randint(1, 4)
        schedule = [min(13, int(rng.expovariate(0.3)) + 1) for _ in range(length)]
        if rng.random() < _ANY_TOP:
            # The largest hand size is the tiebreak deal's: each from 1 to 13 is reached.
            # It comes last, where the widest range of scores can level the totals (and
            # one-card deals only tie over two deals or more).
            top = 1 + (number * _TOP_STEP + rng.randrange(2)) % 13
            schedule = [min(size, top) for size in schedule] * (2 if top == 1 else 1)
            schedule[-1] = top
            if top > 1 and rng.random() < _BELOW_TOP:
                # Sometimes a smaller deal follows: the tiebreak deal is then dealt at a
                # size the last deal did not have, where a wrong tiebreak size shows (END-3).
                schedule.append(rng.randint(1, top - 1))
    return Rules(schedule=schedule, tie=tie, first_dealer=dealer)
