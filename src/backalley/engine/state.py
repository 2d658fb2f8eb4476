"""Game states: immutable values describing a match at any moment.

A :class:`MatchState` holds the rules, the seed, the finished deals and the deal
in progress (a :class:`DealState`), and the :class:`Outcome` once the match has
ended. Everything a player or a program asks of a position is read from these
values: the phase, whose turn it is, the trump, the bids and contracts, the
current trick and the completed ones, tricks per pair, the scores so far and
the outcome. The states never change; :func:`backalley.apply` makes new ones.

Hands are kept as card masks (see :mod:`backalley.core.cards`) and only the parts
that an action changes are rebuilt, so successive states share everything else,
earlier tricks and finished deals included.
"""

from __future__ import annotations

import enum
from typing import Any

import attrs

from ..core.actions import Bid
from ..core.bidding import Contract, Overbid, contracts, overbids
from ..core.cards import CARDS, PAIRS, SEATS, Card, Pair, Seat, Suit, cards_of
from ..core.dealing import DealSetup
from ..core.rules import Rules
from ..core.scoring import score
from ..core.tricks import Trick, tricks_per_pair

__all__ = [
    "DealCore",
    "DealResult",
    "DealState",
    "MatchCore",
    "MatchState",
    "Outcome",
    "Phase",
    "Termination",
    "seat_to_move",
]


def seat_to_move(
    dealer: Seat, bids: tuple[Bid, ...], leader: Seat | None, trick: tuple[Card, ...]
) -> Seat:
    """Whose turn it is in a deal.

    Bids go clockwise from the dealer's left (BID-1), then cards clockwise from the
    trick's leader (PLAY-1).
    """
    if leader is None:
        return SEATS[(dealer + 1 + len(bids)) % 4]
    return SEATS[(leader + len(trick)) % 4]


class Phase(enum.StrEnum):
    """What happens next in a match."""

    DEAL = "deal"
    """A chance step: the next deal is to be dealt (see ``backalley.Deal``)."""
    BID = "bid"
    PLAY = "play"
    OVER = "over"


class Termination(enum.StrEnum):
    """How a match ended."""

    SCORE = "score"
    """One pair had the higher total after the last deal of the schedule."""
    DRAW = "draw"
    """Equal totals under the ``draw`` tie policy."""
    TIEBREAK_DEAL = "tiebreak-deal"
    """Equal totals, decided by the tricks of a tiebreak deal."""


@attrs.frozen
class Outcome:
    """The end of a match: how it ended, the winning pair (None for a draw), the totals."""

    termination: Termination
    winner: Pair | None
    totals: tuple[int, int]


@attrs.frozen
class DealCore:
    """The part of a deal in progress that changes at most once a trick.

    ``setup`` is what was dealt; ``bids`` the bids so far in circuit order;
    ``leader`` the seat that leads the current trick (None while bidding);
    ``tricks`` the completed tricks; ``broken`` whether a trump or a joker has been
    played to a completed trick (kept rather than searched for, since every lead
    asks it).
    """

    setup: DealSetup
    bids: tuple[Bid, ...] = ()
    leader: Seat | None = None
    tricks: tuple[Trick, ...] = ()
    broken: bool = False


@attrs.frozen(repr=False)
class DealState:
    """One deal in progress.

    ``core`` holds what changes at most once a trick (the setup, the bids, the
    leader, the completed tricks, whether trumps are broken), ``hands`` the cards
    still held, as masks indexed by seat, and ``trick`` the cards played to the
    current trick so far. Splitting the deal this way means a card played inside a
    trick builds only a small new value and shares the rest. Read the parts
    through the properties (``setup``, ``bids``, ``leader``, ``tricks``, ``broken``).
    """

    core: DealCore
    hands: tuple[int, int, int, int]
    trick: tuple[Card, ...] = ()

    @property
    def setup(self) -> DealSetup:
        """What was dealt: dealer, hand size, deck, hands as dealt, turned card, trump."""
        return self.core.setup

    @property
    def bids(self) -> tuple[Bid, ...]:
        """The bids so far, in circuit order (from the dealer's left)."""
        return self.core.bids

    @property
    def leader(self) -> Seat | None:
        """The seat that leads the current trick; None while bidding."""
        return self.core.leader

    @property
    def tricks(self) -> tuple[Trick, ...]:
        """The completed tricks of the deal, with their winners."""
        return self.core.tricks

    @property
    def broken(self) -> bool:
        """Whether a trump or joker was played to a completed trick of this deal."""
        return self.core.broken

    @property
    def phase(self) -> Phase:
        """BID until the circuit is complete (never, in a tiebreak deal), then PLAY."""
        return Phase.BID if self.leader is None else Phase.PLAY

    @property
    def to_move(self) -> Seat:
        """The seat to bid or play next."""
        return seat_to_move(self.setup.dealer, self.bids, self.leader, self.trick)

    @property
    def hand_size(self) -> int:
        """Cards dealt to each player, and so the number of tricks."""
        return self.setup.hand_size

    @property
    def trump(self) -> Suit | None:
        """The trump suit, or None in a no-trump deal."""
        return self.setup.trump

    def hand(self, seat: Seat) -> tuple[Card, ...]:
        """The cards ``seat`` still holds, in card order."""
        return cards_of(self.hands[seat])

    def bid_of(self, seat: Seat) -> Bid | None:
        """What ``seat`` bid, or None if it has not bid (or there is no bidding)."""
        index = (seat - self.setup.dealer - 1) % 4
        return self.bids[index] if index < len(self.bids) else None

    @property
    def contracts(self) -> tuple[Contract, Contract] | None:
        """Each pair's contract once bidding is over; None before, and in a tiebreak deal."""
        if len(self.bids) < 4:
            return None
        return contracts(self.bids)

    @property
    def warnings(self) -> tuple[Overbid, ...]:
        """Pairs whose numeric target, from the bids so far, exceeds the hand size."""
        return overbids(self.bids, self.setup.hand_size)

    @property
    def current_trick(self) -> Trick | None:
        """The trick being played, or None while bidding."""
        return None if self.leader is None else Trick(self.leader, self.trick)

    @property
    def tricks_won(self) -> tuple[int, int]:
        """Completed tricks taken by North-South and by East-West."""
        return tricks_per_pair(self.tricks)

    @property
    def is_complete(self) -> bool:
        """Whether every trick of the deal has been played."""
        return len(self.tricks) == self.setup.hand_size

    def scores(self) -> tuple[int, int]:
        """The points each pair scores for this deal, once complete.

        A thrown-in deal and a tiebreak deal score nothing.
        """
        bid = self.contracts
        if bid is None or not self.is_complete:
            return (0, 0)
        won = self.tricks_won
        size = self.setup.hand_size
        return (
            score(bid[0], hand_size=size, tricks=won[0]),
            score(bid[1], hand_size=size, tricks=won[1]),
        )

    def __repr__(self) -> str:
        trump = self.trump.word if self.trump is not None else "no trumps"
        return (
            f"<DealState #{self.setup.number} {self.hand_size} cards, dealer "
            f"{self.setup.dealer}, {trump}, {self.phase.value}, {self.to_move} to move>"
        )

    def _repr_svg_(self) -> str:
        """The deal as a picture, for Jupyter: the table in play, or the whole finished deal."""
        from ..pictures import svg  # noqa: PLC0415 -- svg imports this module: import it when drawing

        return svg.deal_svg(self)


@attrs.frozen
class DealResult:
    """A finished deal and what each pair scored on it (North-South, East-West)."""

    deal: DealState
    scores: tuple[int, int]

    @property
    def thrown_in(self) -> bool:
        """True when all four passed: no score, and the deal does not count."""
        return not self.deal.setup.tiebreak and self.deal.leader is None

    @property
    def counts(self) -> bool:
        """True for a deal of the schedule (not thrown in, not a tiebreak deal)."""
        return not self.deal.setup.tiebreak and self.deal.leader is not None


@attrs.frozen
class MatchCore:
    """The part of a match that changes at most once a deal.

    ``rules`` and ``seed`` are fixed for the match; ``history`` holds the finished
    deals in order (thrown-in and tiebreak deals included); ``outcome`` is the
    result once the match has ended; ``counted`` is how many of the finished deals
    belong to the schedule (kept beside the history because every deal asks it,
    and counting the history each time would make a deal's cost grow with the
    match).
    """

    rules: Rules
    seed: int
    history: tuple[DealResult, ...] = ()
    outcome: Outcome | None = None
    counted: int = 0


@attrs.frozen(repr=False)
class MatchState:
    """A whole match at one moment.

    ``core`` holds what changes at most once a deal (the rules, the seed, the
    finished deals, the outcome) and ``deal`` the deal in progress (None before a
    deal and after the match). Read the parts through the properties (``rules``,
    ``seed``, ``history``, ``outcome``, and the many questions below).

    ``new_match`` and ``apply`` make every state a program needs. A state built
    by hand is not checked (``apply`` trusts its input, for speed): pass it to
    :func:`backalley.validate` first, which refuses one that play could not reach.
    """

    core: MatchCore
    deal: DealState | None = None

    @property
    def rules(self) -> Rules:
        """The match's settings: schedule, tie policy, first dealer."""
        return self.core.rules

    @property
    def seed(self) -> int:
        """The seed every seeded deal of the match is drawn from."""
        return self.core.seed

    @property
    def history(self) -> tuple[DealResult, ...]:
        """The finished deals in order, thrown-in and tiebreak deals included."""
        return self.core.history

    @property
    def outcome(self) -> Outcome | None:
        """How the match ended, or None while it goes on."""
        return self.core.outcome

    @property
    def phase(self) -> Phase:
        """DEAL, BID, PLAY or OVER."""
        if self.core.outcome is not None:
            return Phase.OVER
        if self.deal is None:
            return Phase.DEAL
        return self.deal.phase

    @property
    def is_over(self) -> bool:
        """Whether the match has ended."""
        return self.core.outcome is not None

    @property
    def to_move(self) -> Seat | None:
        """The seat to act, or None at a chance step (dealing) and after the match."""
        if self.outcome is not None or self.deal is None:
            return None
        return self.deal.to_move

    @property
    def counted_deals(self) -> int:
        """How many deals of the schedule have been played."""
        return self.core.counted

    @property
    def deal_number(self) -> int:
        """The number of the current or next deal, counting every deal from 0."""
        return len(self.history)

    @property
    def dealer(self) -> Seat:
        """Who deals the current or next deal: the deal passes clockwise after every deal."""
        return SEATS[(self.rules.first_dealer + len(self.history)) % 4]

    @property
    def in_tiebreak(self) -> bool:
        """Whether the schedule is done and a tiebreak deal is due or in progress."""
        return self.outcome is None and self.counted_deals >= self.rules.deals

    @property
    def hand_size(self) -> int:
        """The hand size of the current or next deal."""
        if self.deal is not None:
            return self.deal.setup.hand_size
        counted = self.counted_deals
        return (
            self.rules.schedule[counted] if counted < self.rules.deals else self.rules.largest_hand
        )

    @property
    def totals(self) -> tuple[int, int]:
        """Running totals of North-South and East-West over the finished deals."""
        return (
            sum(result.scores[0] for result in self.history),
            sum(result.scores[1] for result in self.history),
        )

    @property
    def trump(self) -> Suit | None:
        """The current deal's trump suit (None without trumps or between deals)."""
        return None if self.deal is None else self.deal.setup.trump

    @property
    def contracts(self) -> tuple[Contract, Contract] | None:
        """The current deal's contracts, once its bidding is over."""
        return None if self.deal is None else self.deal.contracts

    @property
    def tricks_won(self) -> tuple[int, int]:
        """Tricks taken so far in the current deal by North-South and East-West."""
        return (0, 0) if self.deal is None else self.deal.tricks_won

    @property
    def bids(self) -> tuple[Bid, ...]:
        """The current deal's bids so far, in circuit order."""
        return () if self.deal is None else self.deal.bids

    @property
    def current_trick(self) -> Trick | None:
        """The trick being played in the current deal, or None."""
        return None if self.deal is None else self.deal.current_trick

    @property
    def completed_tricks(self) -> tuple[Trick, ...]:
        """The current deal's completed tricks, with their winners."""
        return () if self.deal is None else self.deal.tricks

    def hand(self, seat: Seat) -> tuple[Card, ...]:
        """The cards ``seat`` holds in the current deal (none between deals)."""
        return () if self.deal is None else self.deal.hand(seat)

    @property
    def stock(self) -> int:
        """The mask of cards in no hand and on no trick: the turned card and the rest.

        Between deals every card is in the stock.
        """
        if self.deal is None:
            return (1 << len(CARDS)) - 1
        return self.deal.setup.stock

    def __repr__(self) -> str:
        totals = self.totals
        where = f"deal #{self.deal_number}, {self.hand_size} cards"
        who = f", {self.to_move} to move" if self.to_move is not None else ""
        return (
            f"<MatchState {where}, {self.phase.value}{who}, "
            f"{PAIRS[0]} {totals[0]} {PAIRS[1]} {totals[1]}>"
        )

    def _repr_svg_(self) -> str:
        """The match as a picture, for Jupyter: the deal in play, or the score sheet."""
        from ..pictures import svg  # noqa: PLC0415 -- svg imports this module: import it when drawing

        return svg.state_svg(self)


# --- building states on the hot path ----------------------------------------------
#
# ``apply`` builds a DealState and a MatchState for every card played. attrs' generated
# __init__ of a frozen class goes through object.__setattr__ for each field; setting the
# slots through their descriptors does the same work in about half the time. These
# builders are only for values whose fields are already known to be right (no
# converters or validators exist on these classes; tests/test_state_builders.py checks
# that each builder gives a value equal to the class's own constructor).

_new = object.__new__


def _setters(cls: type, *names: str) -> tuple[Any, ...]:
    return tuple(cls.__dict__[name].__set__ for name in names)


_SET_MATCH = _setters(MatchState, "core", "deal")
_SET_DEAL = _setters(DealState, "core", "hands", "trick")
_SET_CORE = _setters(DealCore, "setup", "bids", "leader", "tricks", "broken")


def build_match(core: MatchCore, deal: DealState | None) -> MatchState:
    """``MatchState(core, deal)``, built without attrs' ``__init__``."""
    state = _new(MatchState)
    set_core, set_deal = _SET_MATCH
    set_core(state, core)
    set_deal(state, deal)
    return state


def build_deal(
    core: DealCore, hands: tuple[int, int, int, int], trick: tuple[Card, ...]
) -> DealState:
    """``DealState(core, hands, trick)``, built without attrs' ``__init__``."""
    state = _new(DealState)
    set_core, set_hands, set_trick = _SET_DEAL
    set_core(state, core)
    set_hands(state, hands)
    set_trick(state, trick)
    return state


def build_core(
    setup: DealSetup,
    bids: tuple[Bid, ...],
    leader: Seat | None,
    tricks: tuple[Trick, ...],
    broken: bool,
) -> DealCore:
    """``DealCore(setup, bids, leader, tricks, broken)``, built without attrs' ``__init__``."""
    core = _new(DealCore)
    set_setup, set_bids, set_leader, set_tricks, set_broken = _SET_CORE
    set_setup(core, setup)
    set_bids(core, bids)
    set_leader(core, leader)
    set_tricks(core, tricks)
    set_broken(core, broken)
    return core
