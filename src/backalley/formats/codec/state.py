"""The JSON of deal results and match states: a state is the record reaching it and a snapshot.

A match state is written as the record that reaches it (see :mod:`.record`) plus a
readable snapshot (phase, whose turn, trump, hands, bids, tricks, totals, outcome)
for programs in other languages. Reading replays the record through ``apply`` and
checks the snapshot agrees, so the JSON never depends on how states are stored.
"""

from __future__ import annotations

from typing import Any

from ...core import position
from ...core.actions import Bid, Deal, Play
from ...core.cards import SEATS, Seat
from ...core.dealing import deal_hands
from ...core.rules import Rules
from ...engine.match import apply
from ...engine.state import DealResult, MatchState
from ..checking import check
from ..records import record_from_state
from ._base import RecordError, at, integer, obj, two_ints, whole
from .record import parse_record, record_to_json
from .values import (
    call_bid_from_json,
    card_from_json,
    cards_from_json,
    cards_to_json,
    claim_to_json,
    contract_to_json,
    seat_from_json,
    trick_to_json,
)

__all__ = [
    "deal_result_from_json",
    "deal_result_to_json",
    "snapshot",
    "state_from_json",
    "state_to_json",
]


# --- deal results ------------------------------------------------------------------


def deal_result_to_json(result: DealResult) -> dict[str, Any]:
    """A finished deal: number, dealer, size, deck, bids, plays and scores."""
    deal_state = result.deal
    setup = deal_state.setup
    return {
        "number": setup.number,
        "dealer": setup.dealer.letter,
        "hand_size": setup.hand_size,
        "tiebreak": setup.tiebreak,
        "deck": cards_to_json(setup.deck),
        "bids": [bid.call for bid in deal_state.bids],
        "plays": [card.code for trick in deal_state.tricks for card in trick.cards],
        "scores": list(result.scores),
    }


def deal_result_from_json(data: Any, path: str) -> DealResult:
    """Rebuild a finished deal by playing it again, alone, from its deck.

    A one-deal match is set up at the deal's number and dealer, then its bids and
    plays go through ``apply``, so the rebuilt deal is exactly what play produces.
    """
    names = ("number", "dealer", "hand_size", "tiebreak", "deck", "bids", "plays", "scores")
    fields = obj(data, path, names, names)
    number = whole(fields["number"], at(path, "number"))
    hand_size = whole(fields["hand_size"], at(path, "hand_size"))
    tiebreak = fields["tiebreak"]
    if not isinstance(tiebreak, bool):
        raise RecordError(at(path, "tiebreak"), f"expected true or false, found {tiebreak!r}")
    dealer = seat_from_json(fields["dealer"], at(path, "dealer"), any_spelling=True)
    try:
        rules = Rules(schedule=[hand_size], first_dealer=dealer)
        setup = deal_hands(
            Deal(cards_from_json(fields["deck"], at(path, "deck"), any_spelling=True)).deck,
            dealer=dealer,
            hand_size=hand_size,
            number=number,
            tiebreak=tiebreak,
        )
    except RecordError:
        raise
    except (ValueError, TypeError) as error:
        raise RecordError(path, str(error)) from None
    # The one place that builds a deal state by hand: the deal stands alone, outside
    # any match, so there is no history to replay it from.
    dealt = position.dealt(
        position.start(rules), number, int(dealer), hand_size, tiebreak, setup.hands, setup.trumps
    )
    state = MatchState(dealt, 0, (), setup)
    bids = fields["bids"]
    plays = fields["plays"]
    if not isinstance(bids, list) or not isinstance(plays, list):
        raise RecordError(path, "bids and plays are arrays")
    for index, call in enumerate(bids):
        where = at(at(path, "bids"), index)
        bid = call_bid_from_json(_mover(state), call, where)
        state = _replay_one(state, bid, where)
    for index, code in enumerate(plays):
        card = card_from_json(code, at(at(path, "plays"), index), any_spelling=True)
        state = _replay_one(state, Play(_mover(state), card), at(at(path, "plays"), index))
    if len(state.history) != 1:
        raise RecordError(path, "the bids and plays do not finish the deal")

    result = state.history[0]
    claimed = two_ints(fields["scores"], at(path, "scores"))
    if claimed != result.scores:
        raise RecordError(
            at(path, "scores"), f"the deal scores {list(result.scores)}, not {list(claimed)}"
        )
    return result


def _mover(state: MatchState) -> Seat:
    """The seat to move, or North when nobody is (``apply`` then says why the action is refused).

    Compared with None, never tested for truth: North is seat 0.
    """
    return SEATS[0] if state.to_move is None else state.to_move


def _replay_one(state: MatchState, action: Bid | Play, path: str) -> MatchState:
    try:
        return apply(state, action)
    except ValueError as error:
        raise RecordError(path, f"{action} is illegal: {error}") from None


# --- match states ------------------------------------------------------------------


def snapshot(state: MatchState) -> dict[str, Any]:
    """A readable picture of a state, for other languages: what a table shows, and more."""
    current = state.current_trick
    contracts = state.contracts
    return {
        "phase": state.phase.value,
        "deal_number": state.deal_number,
        "counted_deals": state.counted_deals,
        "dealer": state.dealer.letter,
        # As the protocol's facts: no hand size once the match is over.
        "hand_size": None if state.outcome is not None else state.hand_size,
        "to_move": None if state.to_move is None else state.to_move.letter,
        "trump": None if state.trump is None else state.trump.letter,
        "turned": None if state.deal is None else state.deal.setup.turned.code,
        "hands": {seat.letter: cards_to_json(state.hand(seat)) for seat in SEATS},
        "bids": [bid.call for bid in state.bids],
        "contracts": None if contracts is None else [contract_to_json(c) for c in contracts],
        "tricks": [trick_to_json(trick) for trick in state.completed_tricks],
        "current_trick": None if current is None else trick_to_json(current),
        "tricks_won": list(state.tricks_won),
        "totals": list(state.totals),
        # How the match ended, as a record's result and the protocol's facts say it; the
        # totals are the snapshot's own field.
        "outcome": None
        if state.outcome is None
        else claim_to_json(state.outcome.termination, state.outcome.winner),
    }


def state_to_json(state: MatchState) -> dict[str, Any]:
    """The record reaching ``state`` and its snapshot."""
    return {"record": record_to_json(record_from_state(state)), "snapshot": snapshot(state)}


def state_from_json(data: Any, path: str) -> MatchState:
    """The state a ``{"record", "snapshot"}`` reaches, its snapshot checked."""
    fields = obj(
        data,
        path,
        ("record", "snapshot"),
        ("record", "snapshot"),
    )
    try:
        report = check(parse_record(fields["record"]))
    except RecordError as error:
        # Say where in this value the record's problem is: under "record".
        raise RecordError(
            at(at(path, "record"), error.path) if error.path else at(path, "record"),
            error.message,
        ) from None
    # The record's claimed scores, totals and result must be the replay's: a state's JSON
    # never carries a claim that is false.
    for wrong in report.discrepancies:
        raise RecordError(at(at(path, "record"), wrong.path), wrong.message)
    state = report.state
    expected = snapshot(state)
    given = obj(
        fields["snapshot"],
        at(path, "snapshot"),
        tuple(expected),
        tuple(expected),
    )
    for key, value in expected.items():
        if not _same(given[key], value):
            raise RecordError(
                at(at(path, "snapshot"), key),
                f"the record reaches {value!r}, the snapshot says {given[key]!r}",
            )
    # ``check`` replays the record through ``apply`` from ``new_match``: the state it
    # reached is one play reaches, validated action by action, never a second time.
    return state


def _same(given: Any, expected: Any) -> bool:
    """JSON equality that tells ``true`` from ``1`` (Python's ``==`` does not)."""
    if isinstance(given, bool) or isinstance(expected, bool):
        return type(given) is type(expected) and given == expected
    if isinstance(expected, dict):
        return (
            isinstance(given, dict)
            and given.keys() == expected.keys()
            and all(_same(given[key], expected[key]) for key in expected)
        )
    if isinstance(expected, list):
        return (
            isinstance(given, list)
            and len(given) == len(expected)
            and all(_same(a, b) for a, b in zip(given, expected, strict=True))
        )
    if isinstance(expected, int) and not isinstance(given, int):
        return integer(given) == expected
    return type(given) is type(expected) and bool(given == expected)
