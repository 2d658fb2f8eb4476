"""The JSON of the library's small values: cards, seats, pairs, actions, tricks, outcomes, rules.

Each value has one writer (``*_to_json``) and one reader (``*_from_json(data, path)``);
the readers raise :class:`~._base.RecordError` with the JSON path of the bad value,
and are where a check of an impossible value belongs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, TypeVar

from ...core.actions import Bid, Deal, Play
from ...core.bidding import MAX_MULTIPLIER, MAX_TARGET, Contract
from ...core.cards import CARDS, PAIRS, SEATS, Card, Pair, Seat, Suit
from ...core.dealing import Swap
from ...core.rules import (
    MAX_HAND_SIZE,
    Rules,
    named_schedule,
    to_hand_size,
    to_schedule,
    to_tie_policy,
)
from ...core.tricks import Trick
from ...engine.state import Outcome, Termination
from ..notation import NotationError, action_text, parse_action, parse_call
from ._base import RecordError, array, at, found, integer, obj, two_ints, whole

__all__ = [
    "action_from_json",
    "action_to_json",
    "bid_from_json",
    "call_bid_from_json",
    "card_from_json",
    "cards_from_json",
    "cards_to_json",
    "claim_to_json",
    "contract_from_json",
    "contract_to_json",
    "deal_from_json",
    "outcome_from_json",
    "outcome_problem",
    "outcome_to_json",
    "pair_from_json",
    "play_from_json",
    "rules_from_json",
    "rules_to_json",
    "seat_from_json",
    "suit_from_json",
    "swap_from_json",
    "swap_to_json",
    "termination_from_json",
    "trick_from_json",
    "trick_to_json",
    "winner_from_json",
]

_CODES: Final = {card.code: card for card in CARDS}
_SEAT_LETTERS: Final = {seat.letter: seat for seat in SEATS}
_PAIR_LABELS: Final = {pair.label: pair for pair in PAIRS}
_T = TypeVar("_T")


# --- cards, seats, suits, pairs ---------------------------------------------------------


def _spelled(parse: Callable[[Any], _T], value: Any, path: str) -> _T:
    """``parse(value)`` (a card, seat or suit, or a setting of the rules), refused at ``path``."""
    try:
        return parse(value)
    except (ValueError, TypeError) as problem:
        raise RecordError(path, str(problem)) from None


def cards_of_codes(items: list[Any], path: str) -> tuple[Card, ...]:
    """Cards from their codes (``items`` the JSON array at ``path``), in order.

    The same as ``card_from_json`` of each item at ``path[index]``; a record holds
    hundreds of cards, so the item paths are made only when an item is no card code.
    """
    try:
        return tuple(map(_CODES.__getitem__, items))
    except (KeyError, TypeError):
        return tuple(card_from_json(item, at(path, index)) for index, item in enumerate(items))


def card_from_json(value: Any, path: str, *, any_spelling: bool = False) -> Card:
    """A card from its code; ``any_spelling`` also reads ``as``, ``TH``, ``big``."""
    if any_spelling:
        return _spelled(Card.parse, value, path)
    if not isinstance(value, str):
        raise RecordError(path, f"expected a card code such as 'AS', found {found(value)}")
    card = _CODES.get(value)
    if card is not None:
        return card
    try:
        spelled = Card.parse(value)
    except ValueError:
        raise RecordError(
            path,
            f"unknown card {value!r}: a card is a rank (2-10, J, Q, K, A) then a suit "
            "(C, D, H, S), or BIG or LITTLE",
        ) from None
    raise RecordError(path, f"write the card {value!r} as {spelled.code!r}: records use codes")


def cards_to_json(cards: tuple[Card, ...] | list[Card]) -> list[str]:
    """Cards as a list of codes."""
    return [card.code for card in cards]


def cards_from_json(value: Any, path: str, *, any_spelling: bool = False) -> tuple[Card, ...]:
    """An array of card codes."""
    items = array(value, path, "card codes")
    if not any_spelling:
        return cards_of_codes(items, path)
    return tuple(
        card_from_json(item, at(path, index), any_spelling=any_spelling)
        for index, item in enumerate(items)
    )


def seat_from_json(value: Any, path: str, *, any_spelling: bool = False) -> Seat:
    """A seat from its letter; ``any_spelling`` also reads ``n`` or ``North``."""
    if any_spelling:
        return _spelled(Seat.parse, value, path)
    if not isinstance(value, str) or value not in _SEAT_LETTERS:
        raise RecordError(path, f"expected a seat letter N, E, S or W, found {found(value)}")
    return _SEAT_LETTERS[value]


def suit_from_json(value: Any, path: str) -> Suit:
    """A suit from its letter (any spelling :meth:`Suit.parse` reads)."""
    return _spelled(Suit.parse, value, path)


def pair_from_json(value: Any, path: str) -> Pair:
    """A pair from its label, ``NS`` or ``EW``."""
    if isinstance(value, str) and value in _PAIR_LABELS:
        return _PAIR_LABELS[value]
    raise RecordError(path, f"unknown pair {found(value)}: pairs are 'NS' and 'EW'")


# --- actions ------------------------------------------------------------------------------


def action_to_json(action: Bid | Play | Deal) -> Any:
    """An action in the notation (``"N 3"``, ``"S AS"``); a deal as ``{"deal": [54 codes]}``."""
    if isinstance(action, Deal):
        return {"deal": cards_to_json(action.deck)}
    return action_text(action)


def action_from_json(data: Any, path: str) -> Bid | Play | Deal:
    """An action from its notation, or a deal from ``{"deal": [...]}``."""
    if isinstance(data, dict):
        fields = obj(data, path, ("deal",), ("deal",))
        cards = cards_from_json(fields["deal"], at(path, "deal"), any_spelling=True)
        try:
            return Deal(cards)
        except (ValueError, TypeError) as problem:
            raise RecordError(at(path, "deal"), str(problem)) from None
    try:
        return parse_action(data)
    except NotationError as problem:
        raise RecordError(path, str(problem)) from None


def bid_from_json(data: Any, path: str) -> Bid:
    """A bid action, ``"N 3"``."""
    action = action_from_json(data, path)
    if not isinstance(action, Bid):
        raise RecordError(path, f"expected a bid such as 'N 3', found {data!r}")
    return action


def play_from_json(data: Any, path: str) -> Play:
    """A play action, ``"S AS"``."""
    action = action_from_json(data, path)
    if not isinstance(action, Play):
        raise RecordError(path, f"expected a play such as 'S AS', found {data!r}")
    return action


def deal_from_json(data: Any, path: str) -> Deal:
    """A deal action, ``{"deal": [54 card codes]}``."""
    action = action_from_json(data, path)
    if not isinstance(action, Deal):
        raise RecordError(path, f"expected a deal such as {{'deal': [54 cards]}}, found {data!r}")
    return action


def call_bid_from_json(seat: Seat, value: Any, path: str) -> Bid:
    """The bid ``seat`` makes with the call ``value`` (``"pass"``, ``"3"``, ``"board"``)."""
    try:
        amount, board = parse_call(value)
    except NotationError as problem:
        raise RecordError(path, str(problem)) from None
    return Bid(seat, amount, board)


# --- contracts, tricks, swaps -------------------------------------------------------------


def contract_to_json(contract: Contract) -> dict[str, Any]:
    """``{"target", "multiplier"}``."""
    return {"target": contract.target, "multiplier": contract.multiplier}


def contract_from_json(data: Any, path: str) -> Contract:
    """A contract from ``{"target", "multiplier"}``."""
    names = ("target", "multiplier")
    fields = obj(data, path, names, names)
    target = whole(fields["target"], at(path, "target"))
    multiplier = whole(fields["multiplier"], at(path, "multiplier"))
    # Two bids of at most hand size - 1 make a target; the k-th Board of four is worth k.
    if not 0 <= target <= MAX_TARGET:
        raise RecordError(
            at(path, "target"),
            f"a pair's target is a whole number from 0 to {MAX_TARGET} (two bids of at most "
            f"{MAX_HAND_SIZE - 1}), not {target}",
        )
    if not 0 <= multiplier <= MAX_MULTIPLIER:
        raise RecordError(
            at(path, "multiplier"),
            f"a Board's multiplier is 1 to {MAX_MULTIPLIER} (0 for no Board), not {multiplier}",
        )
    if multiplier and target:
        raise RecordError(path, "a Board contract has no numeric target: the target must be 0")
    return Contract(target, multiplier)


def trick_to_json(trick: Trick) -> dict[str, Any]:
    """``{"leader", "cards", "winner"}`` (the winner null while the trick is open)."""
    return {
        "leader": trick.leader.letter,
        "cards": cards_to_json(trick.cards),
        "winner": None if trick.winner is None else trick.winner.letter,
    }


def trick_from_json(data: Any, path: str) -> Trick:
    """A trick from ``{"leader", "cards", "winner"}``."""
    names = ("leader", "cards", "winner")
    fields = obj(data, path, names, names)
    winner = fields["winner"]
    cards_path = at(path, "cards")
    array(fields["cards"], cards_path, "cards (one a player)", 4)
    cards = cards_from_json(fields["cards"], cards_path, any_spelling=True)
    for index, card in enumerate(cards):
        if card in cards[:index]:
            raise RecordError(at(cards_path, index), f"{card.code} is played twice in one trick")
    if (winner is None) != (len(cards) < 4):
        raise RecordError(
            at(path, "winner"),
            "a trick of four cards has a winner and an unfinished trick none; this one has "
            f"{len(cards)} cards and {'no' if winner is None else 'a'} winner",
        )
    return Trick(
        seat_from_json(fields["leader"], at(path, "leader"), any_spelling=True),
        cards,
        None if winner is None else seat_from_json(winner, at(path, "winner"), any_spelling=True),
    )


def swap_to_json(swap: Swap | None) -> dict[str, Any] | None:
    """``{"seat", "joker", "received"}``, or None for no swap."""
    if swap is None:
        return None
    return {"seat": swap.seat.letter, "joker": swap.joker.code, "received": swap.received.code}


def swap_from_json(data: Any, path: str) -> Swap | None:
    """A joker swap from ``{"seat", "joker", "received"}``, or None from null."""
    if data is None:
        return None
    names = ("seat", "joker", "received")
    fields = obj(data, path, names, names)
    joker = card_from_json(fields["joker"], at(path, "joker"), any_spelling=True)
    received = card_from_json(fields["received"], at(path, "received"), any_spelling=True)
    # The turned card is one joker, so the swap gives up the other and takes a plain card.
    if not joker.is_joker:
        raise RecordError(at(path, "joker"), f"only a joker is swapped, not {joker.code}")
    if received.is_joker:
        raise RecordError(at(path, "received"), "the card taken for a joker is a plain card")
    return Swap(
        seat_from_json(fields["seat"], at(path, "seat"), any_spelling=True),
        joker,
        received,
    )


# --- outcomes -----------------------------------------------------------------------------


def claim_to_json(termination: Termination, winner: Pair | None) -> dict[str, Any]:
    """How a match ended, ``{"termination", "winner"}``: a record's result, a report's."""
    return {"termination": termination.value, "winner": None if winner is None else winner.label}


def outcome_to_json(outcome: Outcome) -> dict[str, Any]:
    """``{"termination", "winner", "totals"}``."""
    return {**claim_to_json(outcome.termination, outcome.winner), "totals": list(outcome.totals)}


def termination_from_json(value: Any, path: str) -> Termination:
    """How a match ended: ``score``, ``draw`` or ``tiebreak-deal``."""
    if not isinstance(value, str) or value not in list(Termination):
        raise RecordError(
            path,
            f"unknown termination {found(value)}: expected 'score', 'draw' or 'tiebreak-deal'",
        )
    return Termination(value)


def winner_from_json(value: Any, path: str) -> Pair | None:
    """The winning pair, or None (null) for a draw."""
    if value is not None and (not isinstance(value, str) or value not in _PAIR_LABELS):
        raise RecordError(path, f"expected 'NS', 'EW' or null, found {found(value)}")
    return None if value is None else _PAIR_LABELS[value]


def outcome_from_json(data: Any, path: str) -> Outcome:
    """An outcome from ``{"termination", "winner", "totals"}``."""
    names = ("termination", "winner", "totals")
    fields = obj(data, path, names, names)
    termination = termination_from_json(fields["termination"], at(path, "termination"))
    winner = winner_from_json(fields["winner"], at(path, "winner"))
    totals = two_ints(fields["totals"], at(path, "totals"))
    problem = outcome_problem(termination, winner, totals)
    if problem is not None:
        raise RecordError(path, problem)
    return Outcome(termination, winner, totals)


def outcome_problem(
    termination: Termination, winner: Pair | None, totals: tuple[int, int]
) -> str | None:
    """Why no match can end so, or None (END-1 to END-4: who wins with which totals)."""
    ns, ew = totals
    if termination is Termination.DRAW:
        if winner is not None:
            return "a draw has no winner"
        if ns != ew:
            return f"a draw needs equal totals, not {ns} and {ew}"
        return None
    if winner is None:
        return f"a match ended by {termination.value} has a winner"
    if termination is Termination.TIEBREAK_DEAL:
        if ns != ew:
            return f"a tiebreak deal is played only on equal totals, not {ns} and {ew}"
        return None
    if ns == ew or (ns > ew) != (winner is Pair.NORTH_SOUTH):
        return f"{winner.label} does not win on totals of {ns} (NS) and {ew} (EW)"
    return None


# --- rules --------------------------------------------------------------------------------


def rules_to_json(rules: Rules, *, by_name: bool = True) -> dict[str, Any]:
    """The JSON of rules: a named schedule by name (unless not ``by_name``), else its sizes."""
    return {
        "schedule": (rules.schedule_name if by_name else None) or list(rules.schedule),
        "tie": rules.tie.value,
        "first_dealer": rules.first_dealer.letter,
    }


def rules_from_json(value: Any, path: str = "rules") -> Rules:
    """The rules from their JSON: ``{"schedule", "tie", "first_dealer"}``, all required."""
    names = ("schedule", "tie", "first_dealer")
    obj(value, path, names, names)
    # The ranges are checked by core.rules, the one check of rules; the reader adds where.
    schedule, where = value["schedule"], at(path, "schedule")
    if isinstance(schedule, str):
        # A record names its schedule exactly as written here, in no other case or spacing.
        sizes = _spelled(named_schedule, schedule, where)
    else:
        items = array(schedule, where, "hand sizes")
        sizes = tuple(
            _spelled(to_hand_size, _hand_size(item, at(where, index)), at(where, index))
            for index, item in enumerate(items)
        )
        sizes = _spelled(to_schedule, sizes, where)  # refuses an empty schedule
    tie = _spelled(to_tie_policy, value["tie"], at(path, "tie"))
    dealer = seat_from_json(value["first_dealer"], at(path, "first_dealer"))
    return Rules(schedule=sizes, tie=tie, first_dealer=dealer)


def _hand_size(value: Any, path: str) -> int:
    """A hand size's JSON number (``3`` or ``3.0``) as an int; its range is the rules' check."""
    size = integer(value)
    if size is None:
        raise RecordError(path, f"a hand size is a whole number, not {found(value)}")
    return size
