"""What one seat may know: the per-seat view of a match, and its dictionary form.

A seat sees its own hand, the turned card and so the trump, the dealer, every
bid, every card played and who played it (the trick in progress, the completed
tricks of this deal and of the finished deals), the contracts, tricks per pair,
the scores and totals, the schedule, the phase and whose turn it is. It does
not see the other hands or the undealt cards.

After a turned joker the holder of the other joker swaps it for the next
undealt card, and "only that player sees the swap (nobody else learns who
swapped)" (DEAL-5; ``docs/rulings.md`` "Who sees the swap"; ``001``). So a
:class:`DealView` carries the swap only in the view of the seat that swapped;
every other seat knows only what the rules make public: a turned joker means no
jokers are in play.

This is the only thing a computer player receives (see :mod:`backalley.players`),
as boardgame.io's ``playerView`` strips secrets per player.

>>> from backalley import Rules, Seat, apply, legal_actions, new_match
>>> state = new_match(Rules(schedule=[2]), seed=7)
>>> state = apply(state, legal_actions(state)[0])
>>> seen = view(state, Seat.EAST)
>>> seen.phase.value, seen.to_move, len(seen.hand)
('bid', Seat.EAST, 2)
>>> SeatView.from_dict(seen.to_dict()) == seen
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, overload

import attrs

from ..core.actions import Bid
from ..core.cards import Card, Pair, Seat, Suit, trump_mask, trump_words
from ..core.dealing import Swap
from ..core.rules import Rules
from ..core.tricks import Trick
from ._fast import cards_in, slot_builder
from .state import (
    DealFacts,
    DealResult,
    DealState,
    MatchFacts,
    MatchState,
    Outcome,
    Read,
)
from .state import totals_of as _totals_of

__all__ = ["DealView", "FinishedDeals", "SeatView", "register_json", "view"]


@attrs.frozen
class DealView(DealFacts):
    """The public face of one deal, plus the swap if the viewing seat made it.

    ``leader`` leads the trick in progress (None while bidding or for a deal
    thrown in), ``trick`` holds its cards so far, ``tricks`` the completed ones;
    ``swap`` is the joker swap, present only in the swapper's own view;
    ``scores`` is what each pair scored, once the deal is finished. Everything
    else (phase, whose turn, contracts, tricks won, ...) is derived exactly as for
    a :class:`~backalley.engine.state.DealState`, through the same
    :class:`~backalley.engine.state.DealFacts`.
    """

    number: int
    dealer: Seat
    hand_size: int
    turned: Card
    tiebreak: bool = False
    bids: tuple[Bid, ...] = ()
    leader: Seat | None = None
    trick: tuple[Card, ...] = ()
    tricks: tuple[Trick, ...] = ()
    swap: Swap | None = None
    scores: tuple[int, int] | None = None

    trump = Read[Suit | None]("turned.suit")
    """The trump suit: the turned card's suit; None after a turned joker (DEAL-2, DEAL-3).

    The same derivation as the deal's (``dealing.deal_hands``): the turned card is public.
    """

    @property
    def trump_words(self) -> str:
        """The trump in words: ``"hearts are trumps"`` or ``"no trumps"``."""
        return trump_words(self.trump)

    @property
    def trumps_broken(self) -> bool:
        """Whether a trump or joker was played to a completed trick (the state's ``broken``)."""
        trumps = trump_mask(self.trump)
        return any((1 << card) & trumps for trick in self.tricks for card in trick.cards)


def _deal_view(deal: DealState, seat: Seat, scores: tuple[int, int] | None) -> DealView:
    core = deal.core
    setup = core.setup
    swap = setup.swap
    return _build_deal_view(
        setup.number,
        setup.dealer,
        setup.hand_size,
        setup.turned,
        setup.tiebreak,
        core.bids,
        core.leader,
        deal.trick,
        core.tricks,
        # DEAL-5: only the swapper sees the swap.
        swap if swap is not None and swap.seat == seat else None,
        scores,
    )


class FinishedDeals(Sequence[DealView]):
    """The finished deals of a match as one seat sees them, each made when first read.

    A seat view is made at every decision; making the views of all finished deals
    each time would make its cost grow with the match. This sequence holds the
    match's finished deals and makes the views when they are read, so a view
    costs the same at the first deal and the last. It equals (and hashes as) the
    tuple of the same deal views.
    """

    __slots__ = ("_results", "_seat", "_views")

    def __init__(self, results: tuple[DealResult, ...], seat: Seat) -> None:
        self._results = results
        self._seat = seat
        self._views: tuple[DealView, ...] | None = None

    def _all(self) -> tuple[DealView, ...]:
        views = self._views
        if views is None:
            seat = self._seat
            views = self._views = tuple(_finished_view(r, seat) for r in self._results)
        return views

    def __len__(self) -> int:
        return len(self._results)

    @overload
    def __getitem__(self, index: int) -> DealView: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[DealView, ...]: ...

    def __getitem__(self, index: int | slice) -> DealView | tuple[DealView, ...]:
        if isinstance(index, slice) or self._views is not None:
            return self._all()[index]
        return _finished_view(self._results[index], self._seat)

    def __iter__(self) -> Iterator[DealView]:
        return iter(self._all())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FinishedDeals | tuple | list):
            return self._all() == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._all())

    def __repr__(self) -> str:
        return repr(self._all())


@attrs.frozen
class SeatView(MatchFacts):
    """Everything ``seat`` may know about a match at one moment, and nothing more.

    ``hand`` is the cards the seat still holds in the current deal; ``deal`` the
    deal in progress (None between deals and after the match); ``history`` the
    finished deals, thrown-in and tiebreak deals included; ``outcome`` the result
    once the match is over. Everything else (phase, whose turn, trump, contracts,
    dealer, hand size, ...) is derived exactly as for a
    :class:`~backalley.engine.state.MatchState`, through the same
    :class:`~backalley.engine.state.MatchFacts`.
    """

    seat: Seat
    rules: Rules
    hand: tuple[Card, ...] = ()
    deal: DealView | None = None
    history: Sequence[DealView] = ()
    outcome: Outcome | None = None
    # The state a view made by :func:`view` was made from: its ``rules``, ``outcome``,
    # ``hand``, ``deal`` and ``history`` are left unset and made from it when first
    # read (``__getattr__``),
    # so a player that does not read them does not pay for them. Not part of the
    # value: equality, hashing and repr read the public fields.
    _state: MatchState | None = attrs.field(
        default=None, init=False, eq=False, hash=False, repr=False
    )

    if not TYPE_CHECKING:

        def __getattr__(self, name: str) -> Any:
            # Reached only when a slot is unset: a lazy field not yet read.
            fill = _LAZY.get(name)
            state = object.__getattribute__(self, "_state")
            if fill is None or state is None:
                raise AttributeError(name)
            value = fill(state, self.seat)
            _SET_LAZY[name](self, value)
            return value

    pair = Read[Pair]("seat.pair")
    """The viewing seat's partnership."""
    partner = Read[Seat]("seat.partner")
    """The viewing seat's partner."""

    @property
    def counted_deals(self) -> int:
        """How many deals of the schedule have been played."""
        return sum(deal.scores is not None and deal.counts for deal in self.history)

    @property
    def totals(self) -> tuple[int, int]:
        """Running totals of North-South and East-West over the finished deals."""
        return _totals_of(deal.scores for deal in self.history)

    def to_dict(self) -> dict[str, Any]:
        """The view as plain JSON-ready data (:mod:`backalley.formats.codec.view`)."""
        return _write_json(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SeatView:
        """Read a view written by :meth:`to_dict`; ``ValueError`` says what is wrong."""
        read: SeatView = _read_json(data)
        return read


# The view's JSON is a format, a layer above the engine: ``backalley/__init__.py``
# registers the codec's writer and reader here (imported when first used).
_write_json: Callable[[SeatView], dict[str, Any]]
_read_json: Callable[[Mapping[str, Any]], Any]


def register_json(
    write: Callable[[SeatView], dict[str, Any]], read: Callable[[Mapping[str, Any]], Any]
) -> None:
    """Make ``write`` and ``read`` the view's JSON (:meth:`SeatView.to_dict`, ``from_dict``)."""
    global _write_json, _read_json
    _write_json, _read_json = write, read


def view(state: MatchState, seat: Seat) -> SeatView:
    """What ``seat`` may know of ``state``: its own hand and everything public.

    Its cost does not grow with the match: the finished deals are seen through a
    :class:`FinishedDeals`, made when read.
    """
    if type(state) is not MatchState and not isinstance(state, MatchState):
        raise TypeError(f"view needs a MatchState, not {type(state).__name__}")
    if type(seat) is not Seat:
        seat = Seat(seat)
    return _build_seat_view(seat, state)


def _hand_of(state: MatchState, seat: Seat) -> tuple[Card, ...]:
    current = state.deal
    return () if current is None else cards_in(current.hands[seat])


def _current_view(state: MatchState, seat: Seat) -> DealView | None:
    current = state.deal
    return None if current is None else _deal_view(current, seat, None)


def _history_of(state: MatchState, seat: Seat) -> FinishedDeals:
    return FinishedDeals(state.history, seat)


def _rules_of(state: MatchState, seat: Seat) -> Rules:
    return state.rules


def _outcome_of(state: MatchState, seat: Seat) -> Outcome | None:
    return state.outcome


_LAZY: Final[dict[str, Callable[[MatchState, Seat], Any]]] = {
    "rules": _rules_of,
    "outcome": _outcome_of,
    "hand": _hand_of,
    "deal": _current_view,
    "history": _history_of,
}
_SET_LAZY: Final = {name: SeatView.__dict__[name].__set__ for name in _LAZY}


def _finished_view(result: DealResult, seat: Seat) -> DealView:
    return _deal_view(result.deal, seat, result.scores)


# A view is made at every decision of every player: its two classes are built through
# their slots (``engine._fast``), equal to the attrs constructors (tests/test_fast.py).
_build_deal_view: Final = slot_builder(DealView, *(field.name for field in attrs.fields(DealView)))
_build_seat_view: Final = slot_builder(SeatView, "seat", "_state")
