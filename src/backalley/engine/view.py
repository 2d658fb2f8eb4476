"""What one seat may know: the per-seat view of a match, and its dictionary form.

A seat sees its own hand, the turned card and so the trump, the dealer, every
bid, every card played and who played it (the trick in progress, the completed
tricks of this deal and of the finished deals), the contracts, tricks per pair,
the scores and totals, the schedule, the phase and whose turn it is. It does
not see the other hands or the undealt cards.

After a turned joker the holder of the other joker swaps it for the next
undealt card, and "only that player sees the swap (nobody else learns who
swapped)" (RULINGS.md "The deal"; ``001``). So a :class:`DealView` carries the
swap only in the view of the seat that swapped; every other seat knows only
what the rules make public: a turned joker means no jokers are in play.

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

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final, overload

import attrs

from ..core.actions import Bid
from ..core.cards import Card, Pair, Seat, Suit, trump_mask, trump_words
from ..core.dealing import Swap
from ..core.rules import Rules, TiePolicy
from ..core.tricks import Trick
from .state import (
    DealFacts,
    DealResult,
    DealState,
    MatchFacts,
    MatchState,
    Outcome,
    Read,
    Termination,
)
from .state import totals_of as _totals_of

__all__ = ["DealView", "FinishedDeals", "SeatView", "view"]

VIEW_FORMAT: Final = 1
"""Version of the dictionary form, written as ``"format"``; bumped on incompatible change."""


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
    setup = deal.setup
    swap = setup.swap
    return DealView(
        number=setup.number,
        dealer=setup.dealer,
        hand_size=setup.hand_size,
        turned=setup.turned,
        tiebreak=setup.tiebreak,
        bids=deal.bids,
        leader=deal.leader,
        trick=deal.trick,
        tricks=deal.tricks,
        # DEAL-5: only the swapper sees the swap.
        swap=swap if swap is not None and swap.seat == seat else None,
        scores=scores,
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
        """The view as plain JSON-ready data, with the canonical text codes.

        Cards are codes such as ``"AS"`` and ``"BIG"``, seats ``"N"``, pairs
        ``"NS"``, bids ``"pass"``, ``"3"`` or ``"board"``. The keys ``phase``,
        ``to_move`` and ``totals`` are derived, for readers' convenience;
        :meth:`from_dict` checks that they agree.
        """
        outcome = self.outcome
        to_move = self.to_move
        return {
            "format": VIEW_FORMAT,
            "seat": self.seat.letter,
            "rules": {
                "schedule": list(self.rules.schedule),
                "tie": self.rules.tie.value,
                "first_dealer": self.rules.first_dealer.letter,
            },
            "phase": self.phase.value,
            "to_move": None if to_move is None else to_move.letter,
            "hand": [card.code for card in self.hand],
            "deal": None if self.deal is None else _deal_to_dict(self.deal),
            "history": [_deal_to_dict(deal) for deal in self.history],
            "totals": list(self.totals),
            "outcome": None
            if outcome is None
            else {
                "termination": outcome.termination.value,
                "winner": None if outcome.winner is None else outcome.winner.label,
                "totals": list(outcome.totals),
            },
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SeatView:
        """Read a view written by :meth:`to_dict`; ``ValueError`` says what is wrong."""
        try:
            if data["format"] != VIEW_FORMAT:
                raise ValueError(f"unknown view format {data['format']!r}; expected {VIEW_FORMAT}")
            seat = Seat.parse(data["seat"])
            rules_data = data["rules"]
            rules = Rules(
                schedule=rules_data["schedule"],
                tie=TiePolicy(rules_data["tie"]),
                first_dealer=Seat.parse(rules_data["first_dealer"]),
            )
            outcome_data = data["outcome"]
            outcome = None
            if outcome_data is not None:
                winner = outcome_data["winner"]
                outcome = Outcome(
                    Termination(outcome_data["termination"]),
                    None if winner is None else _parse_pair(winner),
                    _pair_of_ints(outcome_data["totals"]),
                )
            result = cls(
                seat=seat,
                rules=rules,
                hand=tuple(Card.parse(code) for code in data["hand"]),
                deal=None if data["deal"] is None else _deal_from_dict(data["deal"]),
                history=tuple(_deal_from_dict(deal) for deal in data["history"]),
                outcome=outcome,
            )
        except KeyError as missing:
            raise ValueError(f"a seat view needs the key {missing.args[0]!r}") from None
        except TypeError as error:
            raise ValueError(f"not a seat view: {error}") from None
        written = result.to_dict()
        for key in ("phase", "to_move", "totals"):
            if data.get(key) != written[key]:
                raise ValueError(
                    f"the view's {key!r} is {data.get(key)!r}, but its deals give {written[key]!r}"
                )
        return result


def view(state: MatchState, seat: Seat) -> SeatView:
    """What ``seat`` may know of ``state``: its own hand and everything public.

    Its cost does not grow with the match: the finished deals are seen through a
    :class:`FinishedDeals`, made when read.
    """
    if not isinstance(state, MatchState):
        raise TypeError(f"view needs a MatchState, not {type(state).__name__}")
    seat = Seat(seat)
    current = state.deal
    return SeatView(
        seat=seat,
        rules=state.rules,
        hand=() if current is None else current.hand(seat),
        deal=None if current is None else _deal_view(current, seat, None),
        history=FinishedDeals(state.history, seat),
        outcome=state.outcome,
    )


def _finished_view(result: DealResult, seat: Seat) -> DealView:
    return _deal_view(result.deal, seat, result.scores)


# --- the dictionary form --------------------------------------------------------


def _deal_to_dict(deal: DealView) -> dict[str, Any]:
    swap = deal.swap
    return {
        "number": deal.number,
        "dealer": deal.dealer.letter,
        "hand_size": deal.hand_size,
        "turned": deal.turned.code,
        "trump": None if deal.trump is None else deal.trump.letter,
        "trump_words": deal.trump_words,
        "tiebreak": deal.tiebreak,
        "bids": [{"seat": bid.seat.letter, "bid": bid.call} for bid in deal.bids],
        "leader": None if deal.leader is None else deal.leader.letter,
        "trick": [card.code for card in deal.trick],
        "tricks": [
            {
                "leader": trick.leader.letter,
                "cards": [card.code for card in trick.cards],
                "winner": None if trick.winner is None else trick.winner.letter,
            }
            for trick in deal.tricks
        ],
        "swap": None
        if swap is None
        else {"seat": swap.seat.letter, "joker": swap.joker.code, "received": swap.received.code},
        "scores": None if deal.scores is None else list(deal.scores),
    }


def _deal_from_dict(data: Mapping[str, Any]) -> DealView:
    swap_data = data["swap"]
    swap = None
    if swap_data is not None:
        swap = Swap(
            Seat.parse(swap_data["seat"]),
            Card.parse(swap_data["joker"]),
            Card.parse(swap_data["received"]),
        )
    leader = data["leader"]
    deal = DealView(
        number=_whole(data["number"], "deal number"),
        dealer=Seat.parse(data["dealer"]),
        hand_size=_whole(data["hand_size"], "hand size"),
        turned=Card.parse(data["turned"]),
        tiebreak=bool(data["tiebreak"]),
        bids=tuple(parse_bid(Seat.parse(bid["seat"]), bid["bid"]) for bid in data["bids"]),
        leader=None if leader is None else Seat.parse(leader),
        trick=tuple(Card.parse(code) for code in data["trick"]),
        tricks=tuple(
            Trick(
                Seat.parse(trick["leader"]),
                tuple(Card.parse(code) for code in trick["cards"]),
                None if trick["winner"] is None else Seat.parse(trick["winner"]),
            )
            for trick in data["tricks"]
        ),
        swap=swap,
        scores=None if data["scores"] is None else _pair_of_ints(data["scores"]),
    )
    trump = data.get("trump")
    if trump != (None if deal.trump is None else deal.trump.letter):
        raise ValueError(f"deal {deal.number}: trump {trump!r} does not match the turned card")
    return deal


def parse_bid(seat: Seat, text: str) -> Bid:
    """A bid from its call: ``"pass"``, a number such as ``"3"``, or ``"board"``."""
    if not isinstance(text, str):
        raise ValueError(f"a bid is written 'pass', a number or 'board', not {text!r}")
    key = text.strip().lower()
    if key == "pass":
        return Bid(seat)
    if key == "board":
        return Bid(seat, board=True)
    if key.isdigit():
        return Bid(seat, int(key))
    raise ValueError(f"unknown bid {text!r}: say pass, a number of tricks, or board")


def _parse_pair(text: str) -> Pair:
    for pair in Pair:
        if text == pair.label:
            return pair
    raise ValueError(f"unknown pair {text!r}: pairs are NS and EW")


def _whole(value: Any, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"the {what} must be a whole number, not {value!r}")
    return value


def _pair_of_ints(value: Any) -> tuple[int, int]:
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise ValueError(f"expected two numbers (NS, EW), not {value!r}")
    return (_whole(value[0], "score"), _whole(value[1], "score"))
