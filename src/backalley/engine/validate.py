"""Checking that a state could have been reached by play: ``validate(state)``.

:class:`~backalley.engine.state.MatchState` and its parts are plain public values:
anyone may build one by hand, and ``apply`` and ``legal_actions`` trust what they
are given (checking every state on every card would cost more than playing it).
So every reader of states from outside (the JSON codec, the record reader) calls
:func:`validate`, and so should a program that builds states itself.

A state is valid when ``new_match`` and a sequence of ``apply`` calls reach
exactly it. :func:`validate` first checks the invariants one by one, so that a
refusal names the one that is broken (an :class:`Invariant` code and a
sentence):

- ``wrong_type``: every field holds a value of its type (the position is the
  tuple ``core.position`` describes, rules are ``Rules``, hands are card masks,
  tricks are ``Trick`` values, ...);
- ``out_of_range``: the seed is 0 to 2**64 - 1, a hand size 1 to 13, a count
  not negative;
- ``cards``: each deal's deck is the 54 cards once each and deals the hands
  the deal says it dealt; the cards held, the tricks, the current trick, the
  turned card and the undealt rest are the 54 cards, each once;
- ``hand_size``: each hand holds the hand size less the cards it has played;
- ``phase``: the bids, the leader, the tricks and the current trick agree with
  one phase (fewer than four bids while bidding, no bids in a tiebreak deal,
  fewer than four cards in the current trick, ...);
- ``counted``: the count of deals of the schedule matches the finished deals;
  the position's deal number and totals are those of the finished deals;
- ``outcome``: the outcome is set only after the last deal, and then it is the
  one the totals give;
- ``history``: the finished deals, replayed from their decks, give the same
  deals, bids, tricks, winners and scores.

Last, the whole match is replayed from the decks through ``apply`` and must give
an equal state (``unreachable`` otherwise), so no inconsistency escapes the
named checks.

>>> import attrs
>>> from backalley import Rules, apply, legal_actions, new_match
>>> from backalley.core.position import COUNTED
>>> state = new_match(Rules(schedule="short"), seed=3)
>>> state = apply(state, legal_actions(state)[0])
>>> validate(state) is state
True
>>> position = list(state.position)
>>> position[COUNTED] = 99
>>> broken = attrs.evolve(state, position=tuple(position))
>>> try:
...     validate(broken)
... except InvalidState as error:
...     print(error.invariant.value, "-", error.message)
out_of_range - the count of deals of the schedule runs from 0 to 0, not 99
"""

from __future__ import annotations

import enum
from typing import Any, Final

from ..core import position as _position
from ..core.actions import Bid, Deal, Play
from ..core.bidding import BOARD, opening_leader
from ..core.cards import CARDS, PACK_SIZE, Card, Seat, Suit
from ..core.dealing import MAX_SEED, DealSetup, Swap, deal_hands
from ..core.errors import IllegalAction
from ..core.flow import thrown_in
from ..core.rules import MAX_HAND_SIZE, MIN_HAND_SIZE, Rules, TiePolicy
from ..core.tricks import Trick
from .match import apply, new_match
from .state import DealCore, DealResult, DealState, MatchState, Outcome, totals_of

__all__ = ["InvalidState", "Invariant", "validate"]

_ALL_CARDS = (1 << PACK_SIZE) - 1


class Invariant(enum.StrEnum):
    """The invariant a state breaks. The value is the stable machine-readable code."""

    WRONG_TYPE = "wrong_type"
    OUT_OF_RANGE = "out_of_range"
    CARDS = "cards"
    HAND_SIZE = "hand_size"
    PHASE = "phase"
    COUNTED = "counted"
    OUTCOME = "outcome"
    HISTORY = "history"
    UNREACHABLE = "unreachable"


class InvalidState(ValueError):
    """A state that ``new_match`` and ``apply`` could not have reached.

    ``invariant`` is the :class:`Invariant` it breaks and ``message`` the sentence
    saying where and how.
    """

    def __init__(self, invariant: Invariant, message: str) -> None:
        super().__init__(f"{message} [{invariant.value}]")
        self.invariant = invariant
        self.message = message


def validate(state: MatchState) -> MatchState:
    """``state`` itself if ``new_match`` and ``apply`` can reach it; else :class:`InvalidState`.

    See the module's description for the invariants checked, in order.
    """
    _types(state)
    for index, result in enumerate(state.history):
        _deal_invariants(result.deal, f"finished deal {index + 1}", finished=True)
    if state.deal is not None:
        _deal_invariants(state.deal, "the deal in progress", finished=False)
    _match_invariants(state)
    _replay_and_compare(state)
    return state


# --- types and ranges ------------------------------------------------------------------


def _type(value: Any, kind: type | tuple[type, ...], where: str) -> None:
    """Refuse a value that is not of ``kind`` (a bool is never taken for a whole number)."""
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _kinds(kind)):
        names = " or ".join(k.__name__ for k in _kinds(kind))
        raise InvalidState(
            Invariant.WRONG_TYPE, f"{where} must be {names}, not {type(value).__name__}"
        )


def _kinds(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _whole(value: Any, low: int, high: int, where: str) -> None:
    _type(value, int, where)
    if not low <= value <= high:
        raise InvalidState(
            Invariant.OUT_OF_RANGE, f"{where} runs from {low} to {high}, not {value}"
        )


def _tuple_of(value: Any, kind: type | tuple[type, ...], where: str) -> None:
    _type(value, tuple, where)
    for index, item in enumerate(value):
        _type(item, kind, f"{where}[{index}]")


def _masks(value: Any, where: str) -> None:
    """Four card masks, one a seat."""
    _tuple_of(value, int, where)
    if len(value) != 4:
        raise InvalidState(Invariant.WRONG_TYPE, f"{where} must hold four hands, not {len(value)}")
    for index, mask in enumerate(value):
        if not 0 <= mask <= _ALL_CARDS:
            raise InvalidState(
                Invariant.OUT_OF_RANGE, f"{where}[{index}] is not a mask of the 54 cards"
            )


def _two_ints(value: Any, where: str) -> None:
    _tuple_of(value, int, where)
    if len(value) != 2:
        raise InvalidState(
            Invariant.WRONG_TYPE, f"{where} must hold two numbers (NS, EW), not {len(value)}"
        )


def _types(state: Any) -> None:
    """Every field of the state has its type, down to the cards: nothing below may crash."""
    _type(state, MatchState, "the state")
    _position_types(state.position, "the position")
    pos = state.position
    rules = pos[_position.RULES]
    _type(rules, Rules, "the rules")
    _tuple_of(rules.schedule, int, "the rules' schedule")
    if not rules.schedule:
        raise InvalidState(Invariant.OUT_OF_RANGE, "the rules' schedule has no deal")
    for index, size in enumerate(rules.schedule):
        _whole(size, MIN_HAND_SIZE, MAX_HAND_SIZE, f"the rules' schedule[{index}]")
    _type(rules.tie, TiePolicy, "the rules' tie policy")
    _type(rules.first_dealer, Seat, "the rules' first dealer")
    _whole(state.seed, 0, MAX_SEED, "the seed")
    _tuple_of(state.history, DealResult, "the history")
    for index, result in enumerate(state.history):
        where = f"finished deal {index + 1}"
        # Its deal is made from its position and setup: both are checked first.
        _position_types(result.position, f"the position of {where}")
        _setup_types(result.setup, where)
        _position_deal(result.position)
        _deal_types(result.deal, where)
    _whole(pos[_position.COUNTED], 0, len(state.history), "the count of deals of the schedule")
    in_deal = pos[_position.PHASE] in (_position.BID, _position.PLAY)
    if state.setup is None:
        if in_deal:
            raise InvalidState(Invariant.PHASE, "a deal is in progress, yet nothing was dealt")
        return
    if not in_deal:
        raise InvalidState(Invariant.PHASE, "no deal is in progress, yet the state holds a deal")
    _setup_types(state.setup, "the deal in progress")
    _position_deal(pos)
    _deal_types(state.deal, "the deal in progress")


_POSITION_FIELDS: Final = {
    _position.PHASE: ("the phase", 0, _position.OVER),
    _position.DEALER: ("the dealer", 0, 3),
    _position.SIZE: ("the hand size", 0, MAX_HAND_SIZE),
    _position.TRUMPS: ("the trump mask", 0, _ALL_CARDS),
    _position.LEADER: ("the leader", -1, 3),
    _position.WON_NS: ("North-South's tricks", 0, MAX_HAND_SIZE),
    _position.WON_EW: ("East-West's tricks", 0, MAX_HAND_SIZE),
    _position.NUMBER: ("the deal number", 0, 2**32),
    _position.COUNTED: ("the count of deals of the schedule", 0, 2**32),
    _position.TOTAL_NS: ("North-South's total", -(2**32), 2**32),
    _position.TOTAL_EW: ("East-West's total", -(2**32), 2**32),
    _position.OUTCOME: ("the outcome code", _position.GOING_ON, _position.TIEBREAK_EW),
}
"""The position's whole-number fields: what each is and its range (``core.position``)."""


def _position_types(pos: Any, what: str) -> None:
    """The position is the tuple ``core.position`` describes, each field of its type."""
    _type(pos, tuple, what)
    if len(pos) != _position.RULES + 1:
        raise InvalidState(
            Invariant.WRONG_TYPE,
            f"{what} must hold {_position.RULES + 1} fields, not {len(pos)}",
        )
    for index, (where, low, high) in _POSITION_FIELDS.items():
        if index != _position.COUNTED:  # checked against the history, with its own sentence
            _whole(pos[index], low, high, f"{what}'s {where}")
    _type(pos[_position.TIEBREAK], bool, f"{what}'s tiebreak mark")
    _type(pos[_position.BROKEN], bool, f"{what}'s trumps-broken mark")
    _masks(pos[_position.HANDS], f"{what}'s hands")
    for field, where, longest in (
        (_position.TRICK, "current trick", 3),
        (_position.PLAYED, "completed tricks", 4 * MAX_HAND_SIZE),
    ):
        cards = pos[field]
        _tuple_of(cards, int, f"{what}'s {where}")
        if len(cards) > longest or any(not 0 <= card < PACK_SIZE for card in cards):
            raise InvalidState(
                Invariant.OUT_OF_RANGE,
                f"{what}'s {where} must be at most {longest} card numbers 0 to {PACK_SIZE - 1}",
            )
    bids = pos[_position.BIDS]
    _tuple_of(bids, int, f"{what}'s bids")
    if len(bids) > 4 or any(not 0 <= code <= BOARD for code in bids):
        raise InvalidState(
            Invariant.OUT_OF_RANGE,
            f"{what}'s bids must be at most four bid codes 0 to {BOARD}",
        )


def _position_deal(pos: _position.Position) -> None:
    """The position's deal can be read as one: its completed tricks have their leaders."""
    played = pos[_position.PLAYED]
    if len(played) % 4:
        raise InvalidState(
            Invariant.PHASE, f"{len(played)} cards in completed tricks, not a multiple of four"
        )
    bids = pos[_position.BIDS]
    leads = played or pos[_position.PHASE] == _position.PLAY
    if leads and not pos[_position.TIEBREAK] and (len(bids) != 4 or not any(bids)):
        raise InvalidState(
            Invariant.PHASE,
            "cards are played, but the bids do not name a player to lead",
        )


def _setup_types(setup: Any, where: str) -> None:
    _type(setup, DealSetup, f"the setup of {where}")
    _whole(setup.number, 0, 2**32 - 1, f"the number of {where}")
    _type(setup.dealer, Seat, f"the dealer of {where}")
    _whole(setup.hand_size, MIN_HAND_SIZE, MAX_HAND_SIZE, f"the hand size of {where}")
    _tuple_of(setup.deck, Card, f"the deck of {where}")
    _masks(setup.hands, f"the hands dealt in {where}")
    _type(setup.turned, Card, f"the turned card of {where}")
    if setup.trump is not None:
        _type(setup.trump, Suit, f"the trump of {where}")
    if setup.swap is not None:
        _type(setup.swap, Swap, f"the joker swap of {where}")
    _type(setup.tiebreak, bool, f"the tiebreak mark of {where}")


def _deal_types(value: Any, where: str) -> None:
    _type(value, DealState, where)
    _type(value.core, DealCore, f"the core of {where}")
    _setup_types(value.core.setup, where)
    _tuple_of(value.core.bids, Bid, f"the bids of {where}")
    if value.core.leader is not None:
        _type(value.core.leader, Seat, f"the leader of {where}")
    _tuple_of(value.core.tricks, Trick, f"the tricks of {where}")
    for index, trick in enumerate(value.core.tricks):
        _type(trick.leader, Seat, f"the leader of trick {index + 1} of {where}")
        _tuple_of(trick.cards, Card, f"the cards of trick {index + 1} of {where}")
        if trick.winner is not None:
            _type(trick.winner, Seat, f"the winner of trick {index + 1} of {where}")
    _type(value.core.broken, bool, f"the trumps-broken mark of {where}")
    _masks(value.hands, f"the hands of {where}")
    _tuple_of(value.trick, Card, f"the current trick of {where}")


# --- one deal ---------------------------------------------------------------------------


def _cards_text(mask: int) -> str:
    return " ".join(card.code for card in CARDS if mask >> card & 1)


def _deal_invariants(state: DealState, where: str, *, finished: bool) -> None:
    """The cards, hand sizes and phase of one deal agree with each other."""
    setup = state.setup
    size = setup.hand_size
    if len(setup.deck) != PACK_SIZE or len(set(setup.deck)) != PACK_SIZE:
        raise InvalidState(Invariant.CARDS, f"the deck of {where} is not the 54 cards, each once")
    dealt = deal_hands(
        setup.deck,
        dealer=setup.dealer,
        hand_size=size,
        number=setup.number,
        tiebreak=setup.tiebreak,
    )
    if dealt != setup:
        raise InvalidState(
            Invariant.CARDS,
            f"{where} does not hold what its deck deals (hands, turned card, trump or swap)",
        )
    played = [card for trick in state.tricks for card in trick.cards] + list(state.trick)
    seen = 0
    for card in played:
        if seen >> card & 1:
            raise InvalidState(Invariant.CARDS, f"{card.code} is played twice in {where}")
        seen |= 1 << card
    held = 0
    for seat_index, hand in enumerate(state.hands):
        if held & hand:
            raise InvalidState(
                Invariant.CARDS,
                f"{_cards_text(held & hand)} in two hands at once in {where} "
                f"(again in {Seat(seat_index).name.title()}'s)",
            )
        held |= hand
    if held & seen:
        raise InvalidState(
            Invariant.CARDS, f"{_cards_text(held & seen)} both held and played in {where}"
        )
    in_hands = setup.hands[0] | setup.hands[1] | setup.hands[2] | setup.hands[3]
    if held | seen != in_hands:
        extra = (held | seen) & ~in_hands
        lost = in_hands & ~(held | seen)
        what = f"{_cards_text(extra)} never dealt" if extra else f"{_cards_text(lost)} lost"
        raise InvalidState(
            Invariant.CARDS,
            f"the hands and tricks of {where} are not the cards dealt: {what}",
        )
    _phase_invariants(state, where, finished=finished)
    for seat in Seat:
        played_by = len(state.tricks) + (
            1 if state.leader is not None and (seat - state.leader) % 4 < len(state.trick) else 0
        )
        count = state.hands[seat].bit_count()
        if count != size - played_by:
            raise InvalidState(
                Invariant.HAND_SIZE,
                f"{seat.name.title()} holds {count} cards in {where}, not {size - played_by} "
                f"({size} dealt, {played_by} played)",
            )


def _phase_invariants(state: DealState, where: str, *, finished: bool) -> None:
    """Bids, leader, tricks and the current trick describe one moment of a deal."""
    setup = state.setup
    bids, tricks, trick = state.bids, state.tricks, state.trick

    def broken(message: str) -> InvalidState:
        return InvalidState(Invariant.PHASE, f"{where}: {message}")

    if len(bids) > 4:
        raise broken(f"{len(bids)} bids; there are four players")
    if setup.tiebreak and bids:
        raise broken("a tiebreak deal has no bidding, yet it has bids")
    if state.leader is None:
        if tricks or trick:
            raise broken("cards are played but nobody leads (the bidding is not over)")
        if setup.tiebreak:
            raise broken("a tiebreak deal is led at once, yet it has no leader")
        if finished and not thrown_in(bids):
            raise broken("a finished deal without play must be four passes (thrown in)")
        if not finished and len(bids) == 4:
            raise broken("four bids but no leader: the play should have begun")
        return
    if not setup.tiebreak:
        if len(bids) != 4:
            raise broken(f"cards are played after {len(bids)} bids, not four")
        if thrown_in(bids):
            raise broken("four passes throw the deal in, yet it is played")
        if state.leader is not None and not tricks and state.leader != opening_leader(bids):
            raise broken("the first trick is not led by the player the bids name")
    if len(trick) > 3:
        raise broken(f"{len(trick)} cards in the current trick; a fourth completes it")
    if len(tricks) > setup.hand_size:
        raise broken(f"{len(tricks)} tricks played with {setup.hand_size} cards each")
    for index, done in enumerate(tricks):
        if len(done.cards) != 4 or done.winner is None:
            raise broken(f"completed trick {index + 1} has not four cards and a winner")
    if finished and (len(tricks) != setup.hand_size or trick):
        raise broken(f"only {len(tricks)} of {setup.hand_size} tricks of a finished deal played")
    if not finished and len(tricks) == setup.hand_size:
        raise broken("every trick is played, yet the deal is still in progress")


# --- the match --------------------------------------------------------------------------


def _match_invariants(state: MatchState) -> None:
    """Counted deals, deal numbers, totals and the outcome agree with the history and the rules."""
    history = state.history
    rules = state.rules
    counted = state.counted_deals
    counts = sum(result.counts for result in history)
    if counted != counts:
        raise InvalidState(
            Invariant.COUNTED,
            f"{counted} deals of the schedule are counted, but {counts} of the finished "
            "deals count",
        )
    if counted > rules.deals:
        raise InvalidState(
            Invariant.COUNTED,
            f"{counted} deals of the schedule played; the schedule has {rules.deals}",
        )
    number = state.position[_position.NUMBER]
    if number != len(history):
        raise InvalidState(
            Invariant.COUNTED,
            f"the position is at deal number {number}, but {len(history)} deals are finished",
        )
    scored = totals_of(result.scores for result in history)
    if state.totals != scored:
        raise InvalidState(
            Invariant.COUNTED,
            f"the totals are {state.totals[0]}-{state.totals[1]}, but the finished deals "
            f"score {scored[0]}-{scored[1]}",
        )
    over = state.position[_position.PHASE] == _position.OVER
    if over != (state.position[_position.OUTCOME] != _position.GOING_ON):
        raise InvalidState(
            Invariant.OUTCOME, "the phase and the outcome disagree on whether the match is over"
        )
    if state.outcome is not None and counted < rules.deals:
        raise InvalidState(
            Invariant.OUTCOME,
            f"the match has an outcome after {counted} of the schedule's {rules.deals} deals",
        )
    if state.deal is not None and state.deal.setup.number != len(history):
        raise InvalidState(
            Invariant.HISTORY,
            f"the deal in progress is numbered {state.deal.setup.number}, but "
            f"{len(history)} deals are finished",
        )


def _replay_and_compare(state: MatchState) -> None:
    """Play the match again from its decks; it must give this very state."""
    history = state.history
    replayed = new_match(state.rules, seed=state.seed)
    deals = [result.deal for result in history]
    if state.deal is not None:
        deals.append(state.deal)
    for index, given in enumerate(deals):
        where = f"deal {index + 1}"
        if replayed.is_over:
            raise InvalidState(
                Invariant.OUTCOME, f"the match is over after deal {index}, yet {where} follows"
            )
        replayed = _step(replayed, Deal(given.setup.deck), where)
        if replayed.deal is None or replayed.deal.setup != given.setup:
            raise InvalidState(
                Invariant.HISTORY,
                f"{where} was not dealt as the match deals it (number, dealer, hand size or "
                "tiebreak)",
            )
        for number, bid in enumerate(given.bids):
            replayed = _step(replayed, bid, f"bid {number + 1} of {where}")
        cards = [card for trick in given.tricks for card in trick.cards] + list(given.trick)
        for number, card in enumerate(cards):
            seat = replayed.to_move
            if seat is None:
                raise InvalidState(
                    Invariant.HISTORY, f"card {number + 1} of {where} follows the end"
                )
            replayed = _step(replayed, Play(seat, card), f"card {number + 1} of {where}")
        finished = index < len(history)
        if finished and (
            len(replayed.history) != index + 1 or replayed.history[index] != history[index]
        ):
            raise InvalidState(
                Invariant.HISTORY,
                f"{where} replayed from its deck gives other tricks, winners or scores",
            )
    if replayed.outcome != state.outcome:
        raise InvalidState(
            Invariant.OUTCOME,
            f"the match's outcome is {_outcome_text(state.outcome)}, but its deals give "
            f"{_outcome_text(replayed.outcome)}",
        )
    if replayed != state:
        raise InvalidState(
            Invariant.UNREACHABLE,
            "play from the same decks reaches another state (its position differs: trumps "
            "broken, tricks won, the leader or the phase)",
        )


def _step(state: MatchState, action: Bid | Play | Deal, where: str) -> MatchState:
    try:
        return apply(state, action)
    except IllegalAction as refusal:
        raise InvalidState(
            Invariant.HISTORY, f"{where} could not have been played: {refusal.message}"
        ) from None


def _outcome_text(outcome: Outcome | None) -> str:
    if outcome is None:
        return "none (the match goes on)"
    who = "a draw" if outcome.winner is None else f"won by {outcome.winner.label}"
    return f"{who} ({outcome.termination.value}, totals {outcome.totals[0]}-{outcome.totals[1]})"
