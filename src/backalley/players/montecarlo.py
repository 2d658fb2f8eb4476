"""A Monte Carlo player: determinized search over deals sampled from its own view.

For every decision the player draws ``samples`` deals uniformly among those
consistent with what its seat knows (:mod:`backalley.engine.sampling`: its
hand, the cards played, the voids and forced joker answers they reveal, its own
joker swap), plays each legal action out to the end of the deal on every
sampled deal, and takes the action with the best average result. This is
perfect-information Monte Carlo (PIMC), the usual strong baseline of
trick-taking games.

- **Result of a deal**: the points its pair scores on the deal less the points
  the other pair scores (in a tiebreak deal, which has no contracts: tricks
  taken less tricks lost).
- **Play-outs**: every seat follows a fast policy on card masks, the heuristic
  of seed ``001`` (lead a side ace, let a winning partner have the trick, else
  win as cheaply as can be, and once the side has made its target spend no
  trump), or random legal cards (``policy="random"``, ``rollouts`` of them per
  sample and action). Legality is the rules core's ``allowed_plays`` and the
  trick's winner its ``trick_winner``, written out in one loop on plain ints
  (:mod:`backalley.players._playout`, compiled in the compiled build; a test
  plays it against the rules core). When at most ``exact_tricks`` tricks
  remain, each sampled deal is solved double dummy instead (every seat seeing
  every card, :mod:`backalley.solver`): the tricks each card gives under best
  play, turned into the score difference (which grows with the tricks, so best
  play for tricks is best play for the score).
- **Bids as evidence**: each sampled deal's results are weighed by how well
  the deal explains the bids the others made, if they bid like the heuristic
  (``bid_inference``; the sampler itself stays uniform).
- **Bidding**: on each sampled deal, the bids still to come are predicted with
  the heuristic's bidding, the deal is played out from the opening lead those
  bids give, and each candidate bid is scored on the tricks its pair took. So
  it bids Board when the samples say all tricks are likely enough to pay, and
  passes (even into a throw-in) when nothing else pays. With ``exact_bids``,
  deals of up to that many cards are solved double dummy from the opening lead
  instead of played out.
- **The match** (``match_aware``): each sampled result is valued by the chance
  of winning the match that the lead after the deal gives (:class:`_WinChance`),
  not by the deal's margin: late in a match it plays for the win.

The search player (kind ``search``, :func:`search_player`) is this player with
the double-dummy solver used from the middle of a deal on and for the bids of
small deals, twice the samples, and results valued by the chance of winning the
match (``match_aware``: a deal's margin counts through the lead it leaves, so
it takes more risk when behind late in the match and less when ahead).

Its decisions are a function of its view and its seed alone: each decision's
random generator is seeded from the player's seed and the view, so the same
view gives the same action whatever was asked before, and the hidden cards are
never read (the player receives only the view). ``time_budget`` (seconds per
decision) stops the sampling early; with it, a decision also depends on the
machine's speed.

>>> from backalley import Rules
>>> from backalley.players import HeuristicPlayer, play_match
>>> mc = MonteCarloPlayer(samples=8)
>>> play_match([mc, HeuristicPlayer()] * 2, Rules(schedule=[2, 1]), seed=3).is_over
True
"""

from __future__ import annotations

import hashlib
import math
import random
import time
from collections.abc import Sequence
from typing import Any, Final, Literal

from ..core.actions import Bid, Play
from ..core.bidding import Contract, contracts, opening_leader
from ..core.cards import CARDS, SEATS, Card, Seat, Suit, trump_mask
from ..core.flow import thrown_in
from ..core.scoring import score
from ..engine.sampling import DealSampler
from ..engine.view import SeatView
from ..solver.search import Search
from ._playout import BOARD_CODE, heuristic_bid_code, play_out
from .heuristic import card_twentieths, three_passed

__all__ = ["MonteCarloPlayer", "search_player"]

DEFAULT_SAMPLES: Final = 32
DEFAULT_EXACT_TRICKS: Final = 2
SEARCH_EXACT_TRICKS: Final = 6
"""The search player solves each sampled deal double dummy from this many tricks left.

The most whose slowest decision stays well inside the table's 5 s a decision in the pure
build (``docs/players.md``: from 7 tricks left one decision took 5.2 s of CPU, from 8, 7 s).
The compiled build would afford 8, but the depth is one for both builds, so that the
player's decisions are the same in either.
"""
SEARCH_EXACT_BIDS: Final = 4
"""The search player bids from double-dummy trick counts on deals of up to this many cards."""
SEARCH_SAMPLES: Final = 64
"""The search player's deals sampled a decision (twice the Monte Carlo player's)."""
DEFAULT_BID_INFERENCE: Final = 1.0
DEAL_SPREAD: Final = 20.0
"""Standard deviation of one deal's score margin, in points, for the match-aware value.

Between Monte Carlo pairs on the short schedule it was 13 to 22 points a deal of
two to seven cards (38 on one card, where Boards are common), in 8 matches."""
_MARGIN_WEIGHT: Final = 1e-4
"""The margin's weight beside the chance of winning: it only breaks ties."""
_BOARD_MISS: Final = 3
"""A Board where the heuristic bids a number, or the other way round, counts as three tricks."""

_WORTH: Final = {trump: [card_twentieths(card, trump) for card in CARDS] for trump in (None, *Suit)}
"""What each card counts for in the heuristic's bid, by trump, in twentieths (exact)."""
_MOVE_SEED_DOMAIN: Final = b"backalley-montecarlo-v1"

Policy = Literal["heuristic", "random"]

_SETTINGS: Final = (
    "samples",
    "rollouts",
    "time_budget",
    "exact_tricks",
    "policy",
    "bid_inference",
    "exact_bids",
    "match_aware",
)
"""The keywords of :class:`MonteCarloPlayer` besides ``seed``, in the order its repr says them."""


class MonteCarloPlayer:
    """Determinized Monte Carlo search on deals sampled from its view (see the module).

    ``samples`` deals are drawn per decision; ``rollouts`` play-outs per sample
    and action (only the ``random`` policy gains from more than one);
    ``bid_inference`` weighs each sampled deal by ``exp(-bid_inference * d)``,
    ``d`` the tricks by which the others' bids differ from the heuristic's bids
    on the sampled hands (0: no weighing);
    ``time_budget`` caps the seconds per decision (None: no cap, fully
    reproducible); ``exact_tricks`` is the number of tricks left from which
    each sample is solved exactly (0: never); ``exact_bids`` the largest hand
    size whose bids are valued by solving each sample from the opening lead (0:
    never); ``match_aware`` values each sampled result by the chance of winning
    the match it gives (:class:`_WinChance`) instead of by the margin;
    ``seed`` seeds the player.
    """

    def __init__(  # noqa: PLR0913 - the search's settings, each a keyword
        self,
        *,
        samples: int = DEFAULT_SAMPLES,
        rollouts: int = 1,
        time_budget: float | None = None,
        exact_tricks: int = DEFAULT_EXACT_TRICKS,
        policy: Policy = "heuristic",
        bid_inference: float = DEFAULT_BID_INFERENCE,
        exact_bids: int = 0,
        match_aware: bool = False,
        seed: int = 0,
    ) -> None:
        if samples < 1 or rollouts < 1:
            raise ValueError("a Monte Carlo player needs at least one sample and one rollout")
        if time_budget is not None and time_budget <= 0:
            raise ValueError(f"the time budget is a positive number of seconds, not {time_budget}")
        if bid_inference < 0:
            raise ValueError(f"the bid inference is a weight of 0 or more, not {bid_inference}")
        if policy not in ("heuristic", "random"):
            raise ValueError(f"unknown play-out policy {policy!r}: heuristic or random")
        self.samples = samples
        self.rollouts = rollouts
        self.time_budget = time_budget
        self.exact_tricks = exact_tricks
        self.policy: Policy = policy
        self.bid_inference = bid_inference
        self.exact_bids = exact_bids
        self.match_aware = match_aware
        self.seed = seed

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={value!r}" for name, value in self._settings().items())
        return f"MonteCarloPlayer({shown}, seed={self.seed})"

    def _settings(self) -> dict[str, Any]:
        """The search's settings by keyword, all but the seed: the one list of them."""
        return {name: getattr(self, name) for name in _SETTINGS}

    def for_seat(self, seat: Seat, seed: int) -> MonteCarloPlayer:
        """The same player, seeded with ``seed``."""
        return MonteCarloPlayer(**self._settings(), seed=seed)

    def __call__(self, view: SeatView, legal: tuple[Bid | Play, ...]) -> Bid | Play:
        """The legal action with the best average result over the sampled deals."""
        if len(legal) == 1 or view.deal is None:
            return legal[0]
        rng = random.Random(self._move_seed(view))
        sampler = DealSampler(view.deal, view.seat, view.hand)
        table = _Table.of(view)
        start = time.perf_counter()
        totals = [0.0] * len(legal)
        chance = _WinChance.of(view, table) if self.match_aware else None
        evidence = _evidence(view) if self.bid_inference else None
        bidding = _BidOutcomes(view, table, legal) if isinstance(legal[0], Bid) else None
        for done in range(self.samples):
            budget = self.time_budget
            if done and budget is not None and time.perf_counter() - start > budget:
                break
            extra = sampler.draw_hands(rng)
            hands = [extra[s] for s in range(4)]
            hands[view.seat] |= table.mine
            weight = 1.0 if evidence is None else self._likelihood(table, evidence, sampler, hands)
            if bidding is not None:
                values = self._bid_values(table, bidding, hands, rng)
            else:
                values = self._play_values(table, hands, legal, rng)
            if chance is not None:
                values = [chance(value) for value in values]
            for i, value in enumerate(values):
                totals[i] += weight * value
        best = max(range(len(legal)), key=lambda i: (totals[i], -i))
        return legal[best]

    def _move_seed(self, view: SeatView) -> int:
        """A seed for this decision from the player's seed and the view, nothing else."""
        deal = view.deal
        assert deal is not None
        key = repr(
            (
                self.seed,
                view.seat,
                len(view.history),
                view.totals,
                view.hand,
                deal.bids,
                deal.tricks,
                deal.trick,
                deal.swap,
            )
        )
        digest = hashlib.sha256(_MOVE_SEED_DOMAIN + key.encode()).digest()
        return int.from_bytes(digest[:8], "big")

    def _likelihood(
        self,
        table: _Table,
        evidence: list[tuple[int, int, bool, int, bool]],
        sampler: DealSampler,
        hands: list[int],
    ) -> float:
        """How well a sampled deal explains the others' bids, if they bid like the heuristic.

        Each other seat's bid is compared with the heuristic's bid on its sampled
        hand (as dealt: what it holds and what it played); every trick of
        difference (three for Board against a number) divides the weight by
        ``exp(bid_inference)``. The sampler stays uniform: this only weighs the
        samples' results. ``evidence`` is :func:`_evidence` of the view.
        """
        worth = _WORTH[table.trump]
        size = table.size
        known = sampler.known
        miss = 0
        for seat, said, partner_board, partner_amount, last in evidence:
            guess = heuristic_bid_code(
                hands[seat] | known[seat], worth, size, partner_board, partner_amount, last
            )
            if (guess == BOARD_CODE) != (said == BOARD_CODE):
                miss += _BOARD_MISS
            elif said != BOARD_CODE:
                miss += abs(guess - said)
        return math.exp(-self.bid_inference * miss)

    # --- play ---------------------------------------------------------------------

    def _play_values(
        self,
        table: _Table,
        hands: list[int],
        legal: Sequence[Bid | Play],
        rng: random.Random,
    ) -> list[float]:
        if table.tricks_left <= self.exact_tricks:
            return [float(margin) for margin in _solve(table, hands, legal)]
        values = []
        for action in legal:
            assert isinstance(action, Play)
            total = 0.0
            for _ in range(self.rollouts):
                total += table.play_out(hands, action.card, rng, self.policy)
            values.append(total / self.rollouts)
        return values

    # --- bidding ------------------------------------------------------------------

    def _bid_values(
        self,
        table: _Table,
        bidding: _BidOutcomes,
        hands: list[int],
        rng: random.Random,
    ) -> list[float]:
        """Each candidate bid's result on one sampled deal, the later bids predicted."""
        size = table.size
        worth = _WORTH[table.trump]
        # Play-outs depend on the bids only through who leads and who bid Board
        # (a Board bidder may lead trumps at once): one play-out per distinct pair.
        taken: dict[tuple[Seat | None, tuple[bool, ...]], list[int]] = {}
        values = []
        for index, said in enumerate(bidding.said):
            codes = list(said)
            predicted = []
            for seat in bidding.to_come:
                partner = codes[seat ^ 2]
                code = heuristic_bid_code(
                    hands[seat],
                    worth,
                    size,
                    partner == BOARD_CODE,
                    0 if partner is None or partner == BOARD_CODE else partner,
                    # Only the last to bid sees every other seat's code: three passes?
                    all(code == 0 for other, code in enumerate(codes) if other != seat),
                )
                codes[seat] = code
                predicted.append(code)
            outcome = bidding.outcome(index, tuple(predicted))
            if outcome is None:
                values.append(0.0)
                continue
            leader, boards, deal, margins = outcome
            key = (leader, boards)
            if key not in taken:
                if size <= self.exact_bids:
                    # Every seat at its best, every card seen: the tricks of best play.
                    search = Search(table.trumps, (*boards,), table.pair)  # type: ignore[arg-type]
                    taken[key] = [search.value(list(hands), (), int(leader), False)]
                else:
                    taken[key] = [
                        deal.tricks_after(hands, rng, self.policy) for _ in range(self.rollouts)
                    ]
            results = [margins[tricks] for tricks in taken[key]]
            values.append(sum(results) / len(results))
        return values


def _bid_code(bid: Bid) -> int:
    """A bid as :func:`~backalley.players._playout.heuristic_bid_code` codes it."""
    return BOARD_CODE if bid.board else bid.amount


def _evidence(view: SeatView) -> list[tuple[int, int, bool, int, bool]]:
    """The others' bids to explain: seat, code, partner's bid before it, three passes before."""
    deal = view.deal
    assert deal is not None
    evidence = []
    said: list[Bid] = []
    for bid in deal.bids:
        seat = bid.seat
        if seat != view.seat:
            partner = next((b for b in said if b.seat == seat.partner), None)
            partner_board = partner is not None and partner.board
            partner_amount = 0 if partner is None else partner.amount
            last = three_passed(said)
            evidence.append((int(seat), _bid_code(bid), partner_board, partner_amount, last))
        said.append(bid)
    return evidence


_Outcome = tuple[Seat, tuple[bool, ...], "_Table", tuple[int, ...]]
"""A circuit of bids as the play-out needs it: the opening leader, who bid Board,
the deal before its first card, and the margin for each number of our pair's tricks."""


class _BidOutcomes:
    """One bidding decision's candidate bids, and what each full circuit of bids gives.

    The bids still to come after a candidate are predicted on each sampled deal;
    few circuits recur over the samples, so each one's throw-in, opening leader,
    contracts and margins are worked out once, on first sight.
    """

    def __init__(self, view: SeatView, table: _Table, legal: Sequence[Bid | Play]) -> None:
        self.table = table
        self.known = view.bids
        self.legal = legal
        before: list[int | None] = [None] * 4
        for bid in self.known:
            before[bid.seat] = _bid_code(bid)
        self.said: list[tuple[int | None, ...]] = []
        """For each candidate, every seat's bid code once it is said (None: to come)."""
        for action in legal:
            assert isinstance(action, Bid)
            codes = list(before)
            codes[action.seat] = _bid_code(action)
            self.said.append(tuple(codes))
        count = len(self.known) + 1
        self.to_come = tuple((table.dealer + 1 + n) % 4 for n in range(count, 4))
        """The seats still to bid after the candidate, in order."""
        self._seen: dict[tuple[int, tuple[int, ...]], _Outcome | None] = {}

    def outcome(self, index: int, predicted: tuple[int, ...]) -> _Outcome | None:
        """What candidate ``index`` followed by the ``predicted`` codes gives (None: thrown in)."""
        key = (index, predicted)
        if key in self._seen:
            return self._seen[key]
        table = self.table
        action = self.legal[index]
        assert isinstance(action, Bid)
        bids = [*self.known, action]
        for seat, code in zip(self.to_come, predicted, strict=True):
            who = SEATS[seat]
            bids.append(Bid(who, board=True) if code == BOARD_CODE else Bid(who, code))
        found: _Outcome | None = None
        if not thrown_in(bids):
            leader = opening_leader(bids)
            assert leader is not None
            boards = tuple(bids[(s - table.dealer - 1) % 4].board for s in range(4))
            pair_contracts = contracts(bids)
            ours, theirs = pair_contracts[table.pair], pair_contracts[1 - table.pair]
            size = table.size
            margins = tuple(_margin(ours, theirs, size, tricks) for tricks in range(size + 1))
            found = (leader, boards, table.with_bids(bids, leader, boards), margins)
        self._seen[key] = found
        return found


class _WinChance:
    """A deal's margin turned into the chance of winning the match it leaves.

    The pair's lead after this deal is its lead before it plus the margin; the
    deals still to come add a margin taken as normal with mean 0 and standard
    deviation ``DEAL_SPREAD`` points a deal (``sqrt`` of their number times
    that). The chance of winning is then ``Phi(lead / spread)``, a draw counting
    one half; on the last deal it is 1, 1/2 or 0. A small multiple of the margin
    is added so that results of equal chance are still told apart by the margin
    (a lost match lost by less, a won one won by more).
    """

    def __init__(self, lead: int, deals_after: int) -> None:
        self.lead = lead
        self.spread = DEAL_SPREAD * math.sqrt(deals_after)

    @classmethod
    def of(cls, view: SeatView, table: _Table) -> _WinChance | None:
        """The chance for the deal in progress; None in a tiebreak deal (won on tricks)."""
        if view.in_tiebreak:
            return None
        totals = view.totals
        lead = totals[table.pair] - totals[1 - table.pair]
        deals_after = max(0, len(view.rules.schedule) - view.counted_deals - 1)
        return cls(lead, deals_after)

    def __call__(self, margin: float) -> float:
        lead = self.lead + margin
        if self.spread:
            chance = 0.5 * math.erfc(-lead / (self.spread * math.sqrt(2)))
        else:
            chance = 1.0 if lead > 0 else 0.5 if lead == 0 else 0.0
        return chance + _MARGIN_WEIGHT * margin


def _margin(ours: Contract, theirs: Contract, size: int, tricks: int) -> int:
    """Our score less theirs when our pair takes ``tricks`` of ``size``."""
    return score(ours, hand_size=size, tricks=tricks) - score(
        theirs, hand_size=size, tricks=size - tricks
    )


class _Table:
    """The current deal as masks: what a play-out needs, read once from the view."""

    def __init__(  # noqa: PLR0913 - the deal's parts, each one field
        self,
        *,
        seat: Seat,
        size: int,
        dealer: Seat,
        trump: Suit | None,
        bids: Sequence[Bid],
        leader: Seat,
        trick: tuple[Card, ...],
        won: tuple[int, int],
        broken: bool,
        mine: int,
        tricks_left: int,
    ) -> None:
        self.seat = seat
        self.pair = seat % 2
        self.size = size
        self.dealer = dealer
        self.trump = trump
        self.trumps = trump_mask(trump)
        self.bids = tuple(bids)
        self.leader = leader
        self.trick = trick
        self.trick_cards = tuple(int(card) for card in trick)
        self.won = won
        self.broken = broken
        self.mine = mine
        self.tricks_left = tricks_left
        # Who bid Board, by seat (a partial circuit while bidding; none in a tiebreak deal).
        said = {bid.seat: bid.board for bid in bids}
        self.boards = tuple(said.get(SEATS[s], False) for s in range(4))
        pair_contracts = contracts(bids) if len(bids) == 4 else None
        self.contracts = pair_contracts
        # Each result's margin by the tricks each pair took, worked out on first sight.
        self._margins: dict[tuple[int, int], int] = {}
        # Tricks each pair needs to make its contract, and whether it bid Board
        # (None: no contract, or every seat fights for every trick).
        self.needed: tuple[tuple[int, int], tuple[bool, bool]] | None = (
            None
            if pair_contracts is None
            else (
                (pair_contracts[0].tricks_needed(size), pair_contracts[1].tricks_needed(size)),
                (pair_contracts[0].is_board, pair_contracts[1].is_board),
            )
        )

    @classmethod
    def of(cls, view: SeatView) -> _Table:
        deal = view.deal
        assert deal is not None
        leader = deal.leader if deal.leader is not None else deal.dealer.left
        return cls(
            seat=view.seat,
            size=deal.hand_size,
            dealer=deal.dealer,
            trump=deal.trump,
            bids=deal.bids,
            leader=leader,
            trick=deal.trick,
            won=deal.tricks_won,
            broken=deal.trumps_broken,
            mine=sum(1 << card for card in view.hand),
            tricks_left=deal.hand_size - len(deal.tricks),
        )

    def with_bids(self, bids: Sequence[Bid], leader: Seat, boards: tuple[bool, ...]) -> _Table:
        """This deal, before the first card, once ``bids`` are said."""
        table = _Table(
            seat=self.seat,
            size=self.size,
            dealer=self.dealer,
            trump=self.trump,
            bids=bids,
            leader=leader,
            trick=(),
            won=(0, 0),
            broken=False,
            mine=self.mine,
            tricks_left=self.size,
        )
        # In the bidding's play-outs every seat fights for every trick.
        table.needed = None
        return table

    def result(self, won: Sequence[int]) -> int:
        """Our pair's score on the deal less the other pair's (tricks, without contracts)."""
        pair = self.pair
        if self.contracts is None:
            return won[pair] - won[1 - pair]
        key = (won[0], won[1])
        margin = self._margins.get(key)
        if margin is None:
            size = self.size
            margin = score(self.contracts[pair], hand_size=size, tricks=won[pair]) - score(
                self.contracts[1 - pair], hand_size=size, tricks=won[1 - pair]
            )
            self._margins[key] = margin
        return margin

    def play_out(
        self,
        hands: list[int],
        card: int,
        rng: random.Random,
        policy: Policy,
        record: list[int] | None = None,
    ) -> int:
        """Our margin after playing ``card`` now and the rest by the policy.

        ``record``, if given, receives the cards played, in order.
        """
        won = self._run(list(hands), card, rng, policy, record)
        return self.result(won)

    def tricks_after(self, hands: list[int], rng: random.Random, policy: Policy) -> int:
        """Tricks our pair takes when the whole deal is played by the policy."""
        return self._run(list(hands), None, rng, policy)[self.pair]

    def _run(
        self,
        hands: list[int],
        first: int | None,
        rng: random.Random,
        policy: Policy,
        record: list[int] | None = None,
    ) -> list[int]:
        """Play the deal out from here (``first``: the card the seat to move plays)."""
        return play_out(
            hands,
            -1 if first is None else first,
            int(self.leader),
            self.trick_cards,
            list(self.won),
            self.broken,
            self.trumps,
            self.boards,
            self.needed,
            rng if policy == "random" else None,
            record,
        )


def _solve(table: _Table, hands: list[int], legal: Sequence[Bid | Play]) -> list[int]:
    """Our exact margin after each legal card, every seat seeing every hand (double dummy).

    The solver counts our pair's tricks under best play; the margin grows with
    them (each pair's score grows with its own tricks), so it is the margin of
    best play too.
    """
    pair = table.pair
    search = Search(table.trumps, table.boards, pair)  # type: ignore[arg-type]
    trick = tuple(int(card) for card in table.trick)
    leader = int(table.leader)
    won = table.won
    margins = []
    counts: dict[int, int] = {}
    for action in legal:
        assert isinstance(action, Play)
        card = int(action.card)
        if card not in counts:
            counts[card] = search.after(list(hands), trick, leader, table.broken, card)
        ours = won[pair] + counts[card]
        theirs = table.size - ours
        margins.append(table.result((ours, theirs) if pair == 0 else (theirs, ours)))
    return margins


def search_player(**settings: object) -> MonteCarloPlayer:
    """The search player: the Monte Carlo player solving its samples double dummy.

    It draws ``SEARCH_SAMPLES`` deals a decision; from ``SEARCH_EXACT_TRICKS``
    tricks left each sampled deal is solved exactly, and deals of up to
    ``SEARCH_EXACT_BIDS`` cards are bid from the solved trick counts of the
    samples; each result is valued by the chance of winning the match it gives
    (``match_aware``). Any setting of :class:`MonteCarloPlayer` may be given.
    """
    chosen: dict[str, object] = {
        "samples": SEARCH_SAMPLES,
        "exact_tricks": SEARCH_EXACT_TRICKS,
        "exact_bids": SEARCH_EXACT_BIDS,
        "match_aware": True,
    }
    chosen.update(settings)
    return MonteCarloPlayer(**chosen)  # type: ignore[arg-type]
