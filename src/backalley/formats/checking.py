"""Replaying and checking game records: every action through ``apply``, every claim recomputed.

:func:`replay` turns a :class:`~backalley.formats.records.Record` into the state it
reaches; the first action the rules refuse raises :class:`IllegalRecord`, which
says where it is twice over: as a JSON path (``deals[3].plays[17]``, numbered
from 0) and for people (``deal 4, trick 5, card 2``, numbered from 1).
:func:`check` also compares the scores, totals and result the record claims
with the replay's.

A record that stops early is a position: :attr:`CheckReport.complete` is False.

>>> from backalley import Rules, apply, legal_actions, new_match
>>> from backalley.formats.records import record_from_state
>>> state = new_match(Rules(schedule=[2, 1]), seed=4)
>>> while not state.is_over:
...     state = apply(state, legal_actions(state)[-1])
>>> report = check(record_from_state(state))
>>> report.complete, report.consistent, report.state == state
(True, True, True)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import attrs

from ..core.actions import Bid, Deal, Play, deal_of_permutation, shared_bid, shared_play
from ..core.bidding import BOARD
from ..core.cards import Seat
from ..core.dealing import seeded_deck
from ..core.errors import IllegalAction, Reason
from ..engine.match import apply, new_match, replay_deal
from ..engine.state import MatchState, Phase
from .codec._base import at as _at
from .codec.values import claim_to_json
from .notation import NotationError, parse_call
from .records import Record, RecordError

__all__ = ["CheckReport", "Discrepancy", "IllegalRecord", "Step", "check", "replay", "replay_steps"]


class IllegalRecord(RecordError):
    """A well-formed record whose action at ``path`` the rules refuse.

    ``where`` is the position for people (``deal 4, trick 5, card 2``),
    ``action`` the refused action's text, ``reason`` the refusal's code.
    """

    def __init__(self, path: str, where: str, action: str, refusal: IllegalAction) -> None:
        super().__init__(path, f"{where}: {action} is illegal [{refusal.reason}] {refusal.message}")
        self.where = where
        self.action = action
        self.reason: Reason = refusal.reason
        self.refusal = refusal


# --- replaying ---------------------------------------------------------------------


@attrs.frozen
class Step:
    """One action of a record: where it is (``path``, ``where``) and the action."""

    path: str
    where: str
    action: Bid | Play | Deal

    @property
    def text(self) -> str:
        """The action in the notation (``N 3``, ``S AS``; ``deal`` for a deal)."""
        return "deal" if isinstance(self.action, Deal) else str(self.action)


def replay_steps(
    record: Record, visit: Callable[[Step, MatchState], None] | None = None
) -> MatchState:
    """Replay ``record`` action by action; the final state.

    ``visit(step, state)`` is called with each step and the state after it.
    The first illegal action raises :class:`IllegalRecord`.
    """
    state = new_match(record.rules, seed=record.seed)
    for index, item in enumerate(record.deals):
        # A seeded deck holds each card once by its making: its Deal is built unchecked
        # (``deal_of_permutation``, as ``seeded_deal`` builds it); a written deck is checked.
        if item.deck is None:
            deal = deal_of_permutation(seeded_deck(record.seed, index))
        else:
            deal = Deal(item.deck)
        state = _apply(state, deal, visit, (index, "deck", 0))
        calls = None if visit is not None else _codes(item.bids)
        if calls is None:
            # Every step visited (or a call that is not one): action by action through apply.
            for number, call in enumerate(item.bids):
                amount, board = parse_call(call)
                action = shared_bid(_seat(state), amount, board)
                state = _apply(state, action, visit, (index, "bids", number))
            for number, card in enumerate(item.plays):
                state = _apply(
                    state, shared_play(_seat(state), card), visit, (index, "plays", number)
                )
            continue
        # The deal replayed on the compact position, its state built once (``replay_deal``);
        # the first action it does not accept goes to ``apply``, which refuses it.
        state, done = replay_deal(state, calls, item.plays)
        if done < len(calls):
            amount, board = parse_call(item.bids[done])
            _apply(state, shared_bid(_seat(state), amount, board), None, (index, "bids", done))
        elif done < len(calls) + len(item.plays):
            number = done - len(calls)
            play = shared_play(_seat(state), item.plays[number])
            _apply(state, play, None, (index, "plays", number))
        else:
            continue
        raise AssertionError(f"apply accepted an action that replay_deal refused ({index})")
    return state


def _code(call: str) -> int | None:
    """The bid code of a call (``bidding.BOARD`` for Board); None if it is no call."""
    try:
        amount, board = parse_call(call)
    except NotationError:
        return None
    # A number of 13 or more is never legal; -1 keeps it from reading as Board's code.
    return BOARD if board else amount if amount < BOARD else -1


_WRITTEN_CODES: Final = {
    call: _code(call) for call in ("pass", "board", *(str(amount) for amount in range(1, BOARD)))
}
"""The codes of the calls as records write them (``Bid.call``), looked up, not parsed."""


def _codes(calls: tuple[str, ...]) -> list[int] | None:
    """The bid codes of a deal's calls (``bidding.BOARD`` for Board); None if one is no call."""
    codes = []
    for call in calls:
        code = _WRITTEN_CODES.get(call)
        if code is None:
            code = _code(call)
            if code is None:
                return None
        codes.append(code)
    return codes


def _seat(state: MatchState) -> Seat:
    """The seat to act; North where nobody may act (``apply`` then refuses the action)."""
    seat = state.to_move
    return Seat.NORTH if seat is None else seat


_Place = tuple[int, str, int]
"""Deal index, part of the deal (``deck``, ``bids``, ``plays``) and number within it."""


def _step(action: Bid | Play | Deal, place: _Place) -> Step:
    """Where an action stands in a record; built only when somebody asks."""
    index, part, number = place
    path = _at("deals", index)
    if part == "deck":
        return Step(_at(path, "deck"), f"deal {index + 1}", action)
    path = _at(_at(path, part), number)
    if part == "bids":
        return Step(path, f"deal {index + 1}, bid {number + 1}", action)
    where = f"deal {index + 1}, trick {number // 4 + 1}, card {number % 4 + 1}"
    return Step(path, where, action)


def _apply(
    state: MatchState,
    action: Bid | Play | Deal,
    visit: Callable[[Step, MatchState], None] | None,
    place: _Place,
) -> MatchState:
    try:
        following = apply(state, action)
    except IllegalAction as refusal:
        step = _step(action, place)
        # With nobody to move (between deals, after the match) the seat is meaningless.
        text = step.text
        if state.to_move is None and isinstance(action, Bid):
            text = action.call
        elif state.to_move is None and isinstance(action, Play):
            text = action.card.code
        raise IllegalRecord(step.path, step.where, text, refusal) from None
    if visit is not None:
        visit(_step(action, place), following)
    return following


def replay(record: Record) -> MatchState:
    """The state a record reaches; IllegalRecord at the first illegal action.

    A record is validated once, action by action: ``new_match`` checks its rules and
    seed, ``apply`` every action it replays. The state it reaches is therefore one
    that play reaches, and is not given to :func:`~backalley.engine.validate.validate`,
    which would replay the whole match a second time (``tests/test_records.py``
    checks that replayed states pass it).
    """
    return replay_steps(record)


# --- checking ----------------------------------------------------------------------


@attrs.frozen
class Discrepancy:
    """A claim of the record that the replay does not bear out."""

    path: str
    claimed: Any
    computed: Any
    message: str


@attrs.frozen
class CheckReport:
    """What :func:`check` found: the final state and every claim that differs."""

    state: MatchState
    discrepancies: tuple[Discrepancy, ...]

    @property
    def complete(self) -> bool:
        """Whether the record reaches the end of the match."""
        return self.state.phase is Phase.OVER

    @property
    def consistent(self) -> bool:
        """Whether every claimed score and result agrees with the replay."""
        return not self.discrepancies


def _scores_text(scores: tuple[int, int] | list[int]) -> str:
    return f"NS {scores[0]}, EW {scores[1]}"


def check(record: Record) -> CheckReport:
    """Replay ``record`` and compare its claims; IllegalRecord at the first illegal action."""
    state = replay(record)
    found: list[Discrepancy] = []
    for index, item in enumerate(record.deals):
        if item.scores is None:
            continue
        path = _at(_at("deals", index), "scores")
        if index >= len(state.history):
            found.append(
                Discrepancy(path, list(item.scores), None, f"deal {index + 1} is not finished")
            )
            continue
        computed = state.history[index].scores
        if computed != item.scores:
            found.append(
                Discrepancy(
                    path,
                    list(item.scores),
                    list(computed),
                    f"deal {index + 1} claims {_scores_text(item.scores)}; "
                    f"it scores {_scores_text(computed)}",
                )
            )
    if record.totals is not None and record.totals != state.totals:
        found.append(
            Discrepancy(
                "totals",
                list(record.totals),
                list(state.totals),
                f"the totals are claimed as {_scores_text(record.totals)}; "
                f"they are {_scores_text(state.totals)}",
            )
        )
    if record.result is not None:
        claimed = claim_to_json(record.result.termination, record.result.winner)
        outcome = state.outcome
        if outcome is None:
            found.append(
                Discrepancy(
                    "result", claimed, None, "a result is claimed but the match is not over"
                )
            )
        elif (outcome.termination, outcome.winner) != (
            record.result.termination,
            record.result.winner,
        ):
            actual = claim_to_json(outcome.termination, outcome.winner)
            found.append(
                Discrepancy(
                    "result",
                    claimed,
                    actual,
                    f"the result is claimed as {_result_words(claimed)}; "
                    f"it is {_result_words(actual)}",
                )
            )
    return CheckReport(state, tuple(found))


def _result_words(result: dict[str, Any]) -> str:
    if result["winner"] is None:
        return "a draw"
    return f"{result['winner']} win ({result['termination']})"
