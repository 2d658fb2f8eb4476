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
import operator
from collections.abc import Callable, Iterable, Sequence
from operator import attrgetter
from typing import TYPE_CHECKING, Final, Generic, TypeVar, cast, overload

import attrs

from ..core import position as _position
from ..core.actions import Bid
from ..core.bidding import Contract, Overbid, bid_of_code, contracts, opening_leader, overbids
from ..core.cards import CARDS, PAIRS, SEATS, Card, Pair, Seat, Suit, cards_of
from ..core.dealing import DealSetup
from ..core.flow import (
    bid_position,
    counts,
    counts_codes,
    dealer_of_deal,
    hand_size_of_deal,
    in_tiebreak,
    seat_to_move,
    thrown_in,
    thrown_in_codes,
)
from ..core.rules import Rules
from ..core.scoring import score
from ..core.tricks import Trick, tricks_per_pair
from .display import svg_of

T = TypeVar("T")

__all__ = [
    "DealCore",
    "DealFacts",
    "DealResult",
    "DealState",
    "MatchFacts",
    "MatchState",
    "Outcome",
    "Phase",
    "Read",
    "Termination",
    "deal_of_position",
    "totals_of",
]


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


if TYPE_CHECKING:

    class Read(Generic[T]):
        """How type checkers see :class:`Read`: a read-only attribute of type ``T``."""

        def __init__(self, path: str) -> None: ...

        @overload
        def __get__(self, instance: None, owner: type) -> Read[T]: ...

        @overload
        def __get__(self, instance: object, owner: type) -> T: ...

        def __get__(self, instance: object, owner: type) -> T | Read[T]: ...

else:

    class Read:
        """A read-only attribute read along a path (``"core.setup"``), such as a core's part.

        The states keep what changes rarely in a shared core; ``Read[T](path)`` shows
        a part as the state's own without a property written out for each: a
        ``property`` whose getter is an ``operator.attrgetter`` (as fast to read as the
        written-out property).
        """

        def __class_getitem__(cls, item: object) -> type:
            return cls

        def __new__(cls, path: str) -> property:
            """The property reading ``path`` (not an instance of this class)."""
            return property(attrgetter(path))


class DealFacts:
    """What follows from a deal's public parts: the one derivation of each such fact.

    Shared by :class:`DealState` and the seat view's ``DealView``, so the two
    cannot disagree. A subclass provides ``dealer``, ``hand_size``, ``trump``,
    ``tiebreak``, ``bids``, ``leader``, ``trick`` (the cards of the trick in
    progress) and ``tricks`` (the completed ones).
    """

    __slots__ = ()

    # The parts a subclass provides, as fields or as properties.
    if TYPE_CHECKING:
        dealer: Seat
        hand_size: int
        tiebreak: bool
        bids: tuple[Bid, ...]
        leader: Seat | None
        trick: tuple[Card, ...]
        tricks: tuple[Trick, ...]

        @property
        def trump(self) -> Suit | None: ...  # noqa: D102 -- a declaration for type checkers

    # What follows from them.

    @property
    def phase(self) -> Phase:
        """BID until the circuit is complete (never, in a tiebreak deal), then PLAY."""
        return Phase.BID if self.leader is None else Phase.PLAY

    @property
    def to_move(self) -> Seat:
        """The seat to bid or play next."""
        leader = self.leader
        return seat_to_move(
            self.dealer, len(self.bids), -1 if leader is None else leader, len(self.trick)
        )

    def bid_of(self, seat: Seat) -> Bid | None:
        """What ``seat`` bid, or None if it has not bid (or there is no bidding)."""
        index = bid_position(self.dealer, seat)
        bids = self.bids
        return bids[index] if index < len(bids) else None

    @property
    def contracts(self) -> tuple[Contract, Contract] | None:
        """Each pair's contract once bidding is over; None before, and in a tiebreak deal."""
        bids = self.bids
        return contracts(bids) if len(bids) == 4 else None

    @property
    def warnings(self) -> tuple[Overbid, ...]:
        """Pairs whose numeric target, from the bids so far, exceeds the hand size."""
        return overbids(self.bids, self.hand_size)

    @property
    def thrown_in(self) -> bool:
        """True when all four passed: the deal is thrown in (MATCH-3)."""
        return thrown_in(self.bids)

    @property
    def counts(self) -> bool:
        """Whether the deal belongs to the schedule: not a tiebreak deal, not thrown in."""
        return counts(self.tiebreak, self.bids)

    @property
    def current_trick(self) -> Trick | None:
        """The trick being played, or None while bidding (or after a throw-in)."""
        leader = self.leader
        return None if leader is None else Trick(leader, self.trick)

    @property
    def tricks_won(self) -> tuple[int, int]:
        """Completed tricks taken by North-South and by East-West."""
        return tricks_per_pair(self.tricks)

    @property
    def is_complete(self) -> bool:
        """Whether every trick of the deal has been played."""
        return len(self.tricks) == self.hand_size

    def plays_of(self, seat: Seat) -> tuple[Card, ...]:
        """The cards ``seat`` has played in this deal, in order."""
        current = self.current_trick
        tricks = (*self.tricks, current) if current is not None else self.tricks
        return tuple(card for trick in tricks for who, card in trick.plays if who == seat)


def totals_of(scores: Iterable[tuple[int, int] | None]) -> tuple[int, int]:
    """The running totals of North-South and East-West: the sum of each deal's scores."""
    ns = ew = 0
    for pair in scores:
        if pair is not None:
            ns += pair[0]
            ew += pair[1]
    return (ns, ew)


@attrs.frozen(repr=False)
class DealState(DealFacts):
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

    setup = Read[DealSetup]("core.setup")
    """What was dealt: dealer, hand size, deck, hands as dealt, turned card, trump."""

    bids = Read[tuple[Bid, ...]]("core.bids")
    """The bids so far, in circuit order (from the dealer's left)."""

    leader = Read[Seat | None]("core.leader")
    """The seat that leads the current trick; None while bidding."""

    tricks = Read[tuple[Trick, ...]]("core.tricks")
    """The completed tricks of the deal, with their winners."""

    broken = Read[bool]("core.broken")
    """Whether a trump or joker was played to a completed trick of this deal."""

    dealer = Read[Seat]("core.setup.dealer")
    """Who dealt this deal."""

    hand_size = Read[int]("core.setup.hand_size")
    """Cards dealt to each player, and so the number of tricks."""

    trump = Read[Suit | None]("core.setup.trump")
    """The trump suit, or None in a no-trump deal."""

    tiebreak = Read[bool]("core.setup.tiebreak")
    """Whether this is a tiebreak deal (no bidding)."""

    def hand(self, seat: Seat) -> tuple[Card, ...]:
        """The cards ``seat`` still holds, in card order."""
        return cards_of(self.hands[seat])

    def settle(self) -> tuple[int, int]:
        """The points each pair scores for this deal, once complete (SCORE-1).

        Each pair is settled on its own contract; a thrown-in deal and a tiebreak
        deal score nothing. A finished deal keeps them as ``DealResult.scores``.
        """
        bid = self.contracts
        if bid is None or not self.is_complete:
            return (0, 0)
        won = self.tricks_won
        size = self.hand_size
        return (
            score(bid[0], hand_size=size, tricks=won[0]),
            score(bid[1], hand_size=size, tricks=won[1]),
        )

    def __repr__(self) -> str:
        trump = self.trump.word if self.trump is not None else "no trumps"
        return (
            f"<DealState #{self.setup.number} {self.hand_size} cards, dealer "
            f"{self.dealer}, {trump}, {self.phase.value}, {self.to_move} to move>"
        )

    def _repr_svg_(self) -> str | None:
        """The deal as a picture, for Jupyter: the table in play, or the whole finished deal."""
        return svg_of(self)


class _Kept:
    """Slots for values a state makes when first read and keeps: none of its fields.

    A frozen attrs class keeps such a value (``functools.cached_property`` would) in a
    slot of this base, which attrs does not know of, so the value is no part of the
    state's fields, equality, hash, repr or pickle. Why not ``cached_property``: attrs
    keeps one in a slotted class through a ``__getattr__`` hook, and a class with that
    hook has every attribute read go through it, which costs ``apply`` a few hundred
    instructions on each of its reads (docs/performance.md, "Public classes that read
    fast"). :func:`_setter` gives the way in past the class's frozen ``__setattr__``.
    """

    __slots__ = ()


def _setter(owner: type, slot: str) -> Callable[[object, object], None]:
    """The function setting ``slot`` of an instance of ``owner``, past a frozen ``__setattr__``."""
    setter: Callable[[object, object], None] = owner.__dict__[slot].__set__
    return setter


class _DealResultKept(_Kept):
    __slots__ = ("_deal", "_scores")
    _scores: tuple[int, int]
    _deal: DealState


@attrs.frozen(repr=False)
class DealResult(_DealResultKept):
    """A finished deal and what each pair scored on it (North-South, East-West).

    ``position`` is the match's compact position just after the deal's last card
    (or its fourth pass), which keeps the deal's bids, cards and tricks won;
    ``setup`` what was dealt. The deal itself (``deal``, a :class:`DealState`) and
    what each pair scored (``scores``) are made from them when first read and kept:
    a match's finished deals are many and few of them are ever read.
    """

    position: _position.Position = attrs.field(eq=operator.itemgetter(slice(1, 13)))
    """Compared (and hashed) by the deal's own fields only, ``DEALER`` to ``PLAYED``: the
    match's counts and totals around it are no part of the finished deal."""
    setup: DealSetup

    @property
    def scores(self) -> tuple[int, int]:
        """What each pair scored on the deal, North-South and East-West (SCORE-1).

        ``position.deal_scores`` of the deal's last position: nothing for a thrown-in
        deal (MATCH-3) or a tiebreak deal (END-3). Made when first read, and kept.
        """
        try:
            return self._scores
        except AttributeError:
            scores = _position.deal_scores(self.position)
            _SET_RESULT_SCORES(self, scores)
            return scores

    @property
    def deal(self) -> DealState:
        """The finished deal, as it stood after its last card (or its fourth pass).

        Made when first read, and kept.
        """
        try:
            return self._deal
        except AttributeError:
            deal = deal_of_position(self.position, self.setup)
            _SET_RESULT_DEAL(self, deal)
            return deal

    @property
    def thrown_in(self) -> bool:
        """True when all four passed: no score, and the deal does not count (MATCH-3)."""
        return thrown_in_codes(self.position[8])  # BIDS

    @property
    def counts(self) -> bool:
        """True for a deal of the schedule (not thrown in, not a tiebreak deal; MATCH-4)."""
        return counts_codes(self.position[4], self.position[8])  # TIEBREAK, BIDS

    def __repr__(self) -> str:
        return f"DealResult(deal={self.deal!r}, scores={self.scores!r})"


_SET_RESULT_SCORES: Final = _setter(_DealResultKept, "_scores")
_SET_RESULT_DEAL: Final = _setter(_DealResultKept, "_deal")


class MatchFacts:
    """What follows from a match's public parts: the one derivation of each such fact.

    Shared by :class:`MatchState` and the seat view's ``SeatView``, so the two
    cannot disagree. A subclass provides ``rules``, ``outcome``, ``deal`` (the
    deal in progress, a :class:`DealFacts`, or None), ``history`` (the finished
    deals), ``counted_deals`` and ``totals``.
    """

    __slots__ = ()

    # The parts a subclass provides, as fields or as properties.
    if TYPE_CHECKING:

        @property
        def rules(self) -> Rules: ...  # noqa: D102 -- a declaration for type checkers

        @property
        def outcome(self) -> Outcome | None: ...  # noqa: D102 -- a declaration for type checkers

        @property
        def deal(self) -> DealFacts | None: ...  # noqa: D102 -- a declaration for type checkers

        @property
        def history(self) -> Sequence[object]: ...  # noqa: D102 -- a declaration for type checkers

        @property
        def counted_deals(self) -> int: ...  # noqa: D102 -- a declaration for type checkers

        @property
        def totals(self) -> tuple[int, int]: ...  # noqa: D102 -- a declaration for type checkers

    # What follows from them.
    @property
    def phase(self) -> Phase:
        """DEAL, BID, PLAY or OVER."""
        if self.outcome is not None:
            return Phase.OVER
        if self.deal is None:
            return Phase.DEAL
        return self.deal.phase

    @property
    def is_over(self) -> bool:
        """Whether the match has ended."""
        return self.outcome is not None

    @property
    def to_move(self) -> Seat | None:
        """The seat to act, or None at a chance step (dealing) and after the match."""
        if self.outcome is not None or self.deal is None:
            return None
        return self.deal.to_move

    @property
    def deal_number(self) -> int:
        """The number of the current or next deal, counting every deal from 0."""
        return len(self.history)

    @property
    def dealer(self) -> Seat:
        """Who deals the current or next deal: the deal passes clockwise after every deal."""
        return dealer_of_deal(self.rules, len(self.history))

    @property
    def in_tiebreak(self) -> bool:
        """Whether the schedule is done and a tiebreak deal is due or in progress."""
        return self.outcome is None and in_tiebreak(self.rules, self.counted_deals)

    @property
    def hand_size(self) -> int:
        """The hand size of the current or next deal."""
        if self.deal is not None:
            return self.deal.hand_size
        return hand_size_of_deal(self.rules, self.counted_deals)

    @property
    def trump(self) -> Suit | None:
        """The current deal's trump suit (None without trumps or between deals)."""
        return None if self.deal is None else self.deal.trump

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


class _MatchStateKept(MatchFacts, _Kept):
    __slots__ = ("_deal",)
    _deal: DealState | None


@attrs.frozen(repr=False)
class MatchState(_MatchStateKept):
    """A whole match at one moment.

    ``position`` is the match in progress as the engine's compact position
    (``core.position``: the phase, the hands as masks, the trick, the bids as
    codes, the leader, the deal counts, the totals, the outcome, the rules): all
    the rules need to go on, and what ``apply`` changes, one tuple an action.
    ``seed`` is the seed every seeded deal is drawn from, ``history`` the finished
    deals in order, ``setup`` what was dealt for the deal in progress (None between
    deals and after the match). Everything else is made from these when read: the
    deal in progress (``deal``, a :class:`DealState`, made once a state and kept),
    the outcome, the totals, and the many questions below.

    ``new_match`` and ``apply`` make every state a program needs. A state built
    by hand is not checked (``apply`` trusts its input, for speed): pass it to
    :func:`backalley.validate` first, which refuses one that play could not reach.
    """

    position: _position.Position
    seed: int
    history: tuple[DealResult, ...] = ()
    """The finished deals in order, thrown-in and tiebreak deals included."""
    setup: DealSetup | None = None
    """What was dealt for the deal in progress; None between deals and after the match."""

    @property
    def rules(self) -> Rules:
        """The match's settings: schedule, tie policy, first dealer."""
        return self.position[18]  # RULES

    @property
    def deal(self) -> DealState | None:
        """The deal in progress (None before a deal and after the match), made from the position.

        Made when first read and kept with the state (a state never changes).
        """
        try:
            return self._deal
        except AttributeError:
            setup = self.setup
            deal = None if setup is None else deal_of_position(self.position, setup)
            _SET_STATE_DEAL(self, deal)
            return deal

    @property
    def outcome(self) -> Outcome | None:
        """How the match ended, or None while it goes on."""
        pos = self.position
        code = pos[17]  # OUTCOME
        return None if code == _position.GOING_ON else _OUTCOMES[code](pos)

    # What every playing loop asks once an action, read off the position at once rather
    # than through the deal made from it (MatchFacts' derivations, which the seat view
    # uses; tests/test_view.py checks the two agree at every step).

    @property
    def phase(self) -> Phase:
        """DEAL, BID, PLAY or OVER."""
        return _PHASES[self.position[0]]  # PHASE

    @property
    def to_move(self) -> Seat | None:
        """The seat to act, or None at a chance step (dealing) and after the match."""
        seat = _position.to_move(self.position)
        return None if seat < 0 else SEATS[seat]

    @property
    def hand_size(self) -> int:
        """The hand size of the current or next deal."""
        if self.setup is not None:
            return self.position[2]  # SIZE
        return hand_size_of_deal(self.rules, self.position[14])  # COUNTED

    @property
    def tricks_won(self) -> tuple[int, int]:
        """Tricks taken so far in the current deal by North-South and East-West."""
        if self.setup is None:
            return (0, 0)
        pos = self.position
        return (pos[10], pos[11])  # WON_NS, WON_EW

    @property
    def counted_deals(self) -> int:
        """How many deals of the schedule have been played."""
        return self.position[14]  # COUNTED

    @property
    def totals(self) -> tuple[int, int]:
        """Running totals of North-South and East-West over the finished deals."""
        pos = self.position
        return (pos[15], pos[16])  # TOTAL_NS, TOTAL_EW

    @property
    def is_over(self) -> bool:
        """Whether the match has ended (as ``MatchFacts.is_over``, read from the position).

        Every playing loop asks it once an action, so it reads the position at once
        rather than through ``outcome``; ``tests/test_view.py`` checks the two agree.
        """
        return self.position[17] != _position.GOING_ON  # OUTCOME

    def hand(self, seat: Seat) -> tuple[Card, ...]:
        """The cards ``seat`` holds in the current deal (none between deals)."""
        return () if self.setup is None else cards_of(self.position[5][seat])  # HANDS

    @property
    def stock(self) -> int:
        """The mask of cards in no hand and on no trick: the turned card and the rest.

        Between deals every card is in the stock.
        """
        if self.setup is None:
            return (1 << len(CARDS)) - 1
        return self.setup.stock

    def __repr__(self) -> str:
        totals = self.totals
        where = f"deal #{self.deal_number}, {self.hand_size} cards"
        who = f", {self.to_move} to move" if self.to_move is not None else ""
        return (
            f"<MatchState {where}, {self.phase.value}{who}, "
            f"{PAIRS[0]} {totals[0]} {PAIRS[1]} {totals[1]}>"
        )

    def _repr_svg_(self) -> str | None:
        """The match as a picture, for Jupyter: the deal in play, or the score sheet."""
        return svg_of(self)


_SET_STATE_DEAL: Final = _setter(_MatchStateKept, "_deal")


def _ended(
    termination: Termination, winner: Pair | None
) -> Callable[[_position.Position], Outcome]:
    def outcome(pos: _position.Position) -> Outcome:
        return Outcome(termination, winner, (pos[15], pos[16]))  # TOTAL_NS, TOTAL_EW

    return outcome


_PHASES: Final = (Phase.DEAL, Phase.BID, Phase.PLAY, Phase.OVER)
"""The phase of each ``core.position`` phase code."""

_OUTCOMES: Final[dict[int, Callable[[_position.Position], Outcome]]] = {
    _position.SCORE_NS: _ended(Termination.SCORE, Pair.NORTH_SOUTH),
    _position.SCORE_EW: _ended(Termination.SCORE, Pair.EAST_WEST),
    _position.DRAW: _ended(Termination.DRAW, None),
    _position.TIEBREAK_NS: _ended(Termination.TIEBREAK_DEAL, Pair.NORTH_SOUTH),
    _position.TIEBREAK_EW: _ended(Termination.TIEBREAK_DEAL, Pair.EAST_WEST),
}
"""The outcome of each ``core.position`` outcome code, with the position's totals."""


def deal_of_position(pos: _position.Position, setup: DealSetup) -> DealState:
    """The :class:`DealState` of the deal of ``pos``, dealt as ``setup``.

    Made from the position's bid codes (as ``Bid`` values, ``bidding.bid_of_code``),
    leader, hands and cards: the completed tricks are the cards of ``PLAYED`` four at
    a time, the first led by the opening leader (BID-8; in a tiebreak deal the
    dealer's left, END-3) and each next one by the last one's winner (PLAY-7, PLAY-8).
    Also the deal of a position just after its last card, or its fourth pass, whose
    deal's fields the position keeps until the next deal.
    """
    # The position's hands are four masks, typed as a tuple of any length (see Hands).
    hands = cast(tuple[int, int, int, int], pos[5])  # HANDS
    return DealState(_core_of(pos, setup), hands, tuple(map(CARDS.__getitem__, pos[6])))


_made_core: tuple[DealSetup | None, tuple[int, ...], int, tuple[int, ...], bool, DealCore | None]
_made_core = (None, (), -1, (), False, None)
"""The deal's core last made: its setup, bid codes, leader, cards played and trumps broken."""


def _core_of(pos: _position.Position, setup: DealSetup) -> DealCore:
    """The :class:`DealCore` of the deal of ``pos`` (:func:`deal_of_position`).

    A match is read state after state, and the states of one trick share their core:
    so the core last made is kept (one entry, compared by value, so never a wrong
    answer) and reused rather than made again on every read. ``tests/test_fast.py``
    checks the deals made this way equal the plain construction at every step.
    """
    global _made_core  # noqa: PLW0603 - the one-entry memo described above
    known, codes, leader, played, broken, core = _made_core
    if (
        core is not None
        and pos[8] == codes  # BIDS
        and pos[7] == leader  # LEADER
        and pos[12] == played  # PLAYED
        and pos[9] == broken  # BROKEN
        and (setup is known or setup == known)
    ):
        return core
    dealer = pos[1]  # DEALER
    codes = pos[8]  # BIDS
    bids = tuple(
        bid_of_code(SEATS[(dealer + 1 + index) % 4], code) for index, code in enumerate(codes)
    )
    leader = pos[7]  # LEADER
    played = pos[12]  # PLAYED
    tricks: tuple[Trick, ...] = ()
    if played:
        # TIEBREAK; a played deal that is no tiebreak has an opening leader.
        lead = int(setup.first_bidder if pos[4] else cast(Seat, opening_leader(bids)))
        tricks = _tricks_of(played, lead, pos[3])  # TRUMPS
    core = DealCore(setup, bids, None if leader < 0 else SEATS[leader], tricks, pos[9])
    _made_core = (setup, codes, leader, played, pos[9], core)
    return core


_made_tricks: tuple[tuple[int, ...], int, int, tuple[Trick, ...]] = ((), -1, 0, ())
"""The completed tricks last made: their cards, first leader, trump mask and ``Trick`` values."""


def _tricks_of(played: tuple[int, ...], lead: int, trumps: int) -> tuple[Trick, ...]:
    """The completed tricks of the cards ``played``, four a trick, the first led by ``lead``.

    Each trick is won as ``position.trick_winner`` says (PLAY-7) and its winner leads
    the next (PLAY-8). A match is read state after state, and the states of one deal
    share their completed tricks: so the tricks last made are kept (one entry, compared
    by value, so never a wrong answer) and reused, with the new trick added if there is
    one, rather than made again on every read. ``tests/test_fast.py`` checks the deals
    made this way equal the plain construction at every step.
    """
    global _made_tricks  # noqa: PLW0603 - the one-entry memo described above
    known, first, known_trumps, tricks = _made_tricks
    count = len(known)
    if lead != first or trumps != known_trumps or played[:count] != known:
        tricks, count = (), 0
    elif len(played) == count:
        return tricks
    first = lead
    if count:
        lead = int(tricks[-1].winner)  # type: ignore[arg-type]  # a completed trick has one
    made = list(tricks)
    for start in range(count, len(played), 4):
        cards = played[start : start + 4]
        winner = _position.trick_winner(lead, cards, trumps)
        made.append(Trick(SEATS[lead], tuple(map(CARDS.__getitem__, cards)), SEATS[winner]))
        lead = winner
    tricks = tuple(made)
    _made_tricks = (played, first, trumps, tricks)
    return tricks
