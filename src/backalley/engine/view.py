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

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from ..core.actions import Bid
from ..core.bidding import Contract, Overbid, contracts, is_throw_in, overbids
from ..core.cards import SEATS, Card, Pair, Seat, Suit, trump_mask
from ..core.dealing import Swap
from ..core.rules import Rules
from ..core.tricks import Trick, tricks_per_pair
from ..pictures.text import trump_words
from .state import DealResult, DealState, MatchState, Outcome, Phase, seat_to_move

__all__ = ["DealView", "SeatView", "register_json", "view"]


@attrs.frozen
class DealView:
    """The public face of one deal, plus the swap if the viewing seat made it.

    ``leader`` leads the trick in progress (None while bidding or for a deal
    thrown in), ``trick`` holds its cards so far, ``tricks`` the completed ones;
    ``swap`` is the joker swap, present only in the swapper's own view;
    ``scores`` is what each pair scored, once the deal is finished.
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

    @property
    def trump(self) -> Suit | None:
        """The trump suit: the turned card's suit; None after a turned joker."""
        return self.turned.suit

    @property
    def trump_words(self) -> str:
        """The trump in words: ``"hearts are trumps"`` or ``"no trumps"``."""
        return trump_words(self.trump)

    @property
    def contracts(self) -> tuple[Contract, Contract] | None:
        """Each pair's contract once all four have bid (None in a tiebreak deal)."""
        return contracts(self.bids) if len(self.bids) == 4 else None

    @property
    def warnings(self) -> tuple[Overbid, ...]:
        """Pairs whose numeric target, from the bids so far, exceeds the hand size."""
        return overbids(self.bids, self.hand_size)

    @property
    def thrown_in(self) -> bool:
        """True when all four passed: the deal was thrown in."""
        return is_throw_in(self.bids)

    @property
    def current_trick(self) -> Trick | None:
        """The trick being played, or None while bidding (or after a throw-in)."""
        return None if self.leader is None else Trick(self.leader, self.trick)

    @property
    def tricks_won(self) -> tuple[int, int]:
        """Completed tricks taken by North-South and by East-West."""
        return tricks_per_pair(self.tricks)

    @property
    def trumps_broken(self) -> bool:
        """Whether a trump or joker was played to a completed trick of this deal."""
        trumps = trump_mask(self.trump)
        return any((1 << card) & trumps for trick in self.tricks for card in trick.cards)

    def bid_of(self, seat: Seat) -> Bid | None:
        """What ``seat`` bid in this deal, or None if it has not bid."""
        for bid in self.bids:
            if bid.seat == seat:
                return bid
        return None

    def plays_of(self, seat: Seat) -> tuple[Card, ...]:
        """The cards ``seat`` has played in this deal, in order."""
        current = self.current_trick
        tricks = (*self.tricks, current) if current is not None else self.tricks
        return tuple(card for trick in tricks for who, card in trick.plays if who == seat)


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
        swap=swap if swap is not None and swap.seat == seat else None,
        scores=scores,
    )


@attrs.frozen
class SeatView:
    """Everything ``seat`` may know about a match at one moment, and nothing more.

    ``hand`` is the cards the seat still holds in the current deal; ``deal`` the
    deal in progress (None between deals and after the match); ``history`` the
    finished deals, thrown-in and tiebreak deals included; ``outcome`` the result
    once the match is over.
    """

    seat: Seat
    rules: Rules
    hand: tuple[Card, ...] = ()
    deal: DealView | None = None
    history: tuple[DealView, ...] = ()
    outcome: Outcome | None = None

    @property
    def pair(self) -> Pair:
        """The viewing seat's partnership."""
        return self.seat.pair

    @property
    def partner(self) -> Seat:
        """The viewing seat's partner."""
        return self.seat.partner

    @property
    def phase(self) -> Phase:
        """DEAL, BID, PLAY or OVER, as for the match."""
        if self.outcome is not None:
            return Phase.OVER
        if self.deal is None:
            return Phase.DEAL
        return Phase.BID if self.deal.leader is None else Phase.PLAY

    @property
    def to_move(self) -> Seat | None:
        """The seat to act; None at a chance step and after the match."""
        deal = self.deal
        if self.outcome is not None or deal is None:
            return None
        return seat_to_move(deal.dealer, deal.bids, deal.leader, deal.trick)

    @property
    def trump(self) -> Suit | None:
        """The current deal's trump suit (None without trumps or between deals)."""
        return None if self.deal is None else self.deal.trump

    @property
    def bids(self) -> tuple[Bid, ...]:
        """The current deal's bids so far, in circuit order."""
        return () if self.deal is None else self.deal.bids

    @property
    def contracts(self) -> tuple[Contract, Contract] | None:
        """The current deal's contracts, once its bidding is over."""
        return None if self.deal is None else self.deal.contracts

    @property
    def tricks_won(self) -> tuple[int, int]:
        """Tricks taken so far in the current deal by North-South and East-West."""
        return (0, 0) if self.deal is None else self.deal.tricks_won

    @property
    def current_trick(self) -> Trick | None:
        """The trick being played in the current deal, or None."""
        return None if self.deal is None else self.deal.current_trick

    @property
    def completed_tricks(self) -> tuple[Trick, ...]:
        """The current deal's completed tricks, with their winners."""
        return () if self.deal is None else self.deal.tricks

    @property
    def counted_deals(self) -> int:
        """How many deals of the schedule have been played."""
        return sum(
            not deal.tiebreak and not deal.thrown_in and deal.scores is not None
            for deal in self.history
        )

    @property
    def dealer(self) -> Seat:
        """Who deals the current or next deal."""
        return SEATS[(self.rules.first_dealer + len(self.history)) % 4]

    @property
    def hand_size(self) -> int:
        """The hand size of the current or next deal."""
        if self.deal is not None:
            return self.deal.hand_size
        counted = self.counted_deals
        rules = self.rules
        return rules.schedule[counted] if counted < rules.deals else rules.largest_hand

    @property
    def totals(self) -> tuple[int, int]:
        """Running totals of North-South and East-West over the finished deals."""
        return (
            sum(deal.scores[0] for deal in self.history if deal.scores is not None),
            sum(deal.scores[1] for deal in self.history if deal.scores is not None),
        )

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
    """What ``seat`` may know of ``state``: its own hand and everything public."""
    if not isinstance(state, MatchState):
        raise TypeError(f"view needs a MatchState, not {type(state).__name__}")
    seat = Seat(seat)
    current = state.deal
    return SeatView(
        seat=seat,
        rules=state.rules,
        hand=() if current is None else current.hand(seat),
        deal=None if current is None else _deal_view(current, seat, None),
        history=tuple(_finished_view(result, seat) for result in state.history),
        outcome=state.outcome,
    )


def _finished_view(result: DealResult, seat: Seat) -> DealView:
    return _deal_view(result.deal, seat, result.scores)
