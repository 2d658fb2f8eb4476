"""Comparing an engine's replies with the reference's, and saying where and which rule.

:func:`compare` takes one request's details (:class:`~.cases.Item`) and the
engine's reply line: None if they agree, else a sentence ("you allow N 3C, the
rules forbid it: must_follow_suit (PLAY-2)"); :func:`locate` says where a
position is ("deal 3 (5 cards), trick 2, card 2, after 2H by East"). A reply of
the wrong kind is a broken protocol, not a difference.
"""

from __future__ import annotations

import enum
import json
from typing import Any, Final, cast

from ..core.actions import Bid, Deal, Play
from ..core.bidding import board_multipliers
from ..core.cards import CARDS, SEATS, Card
from ..core.errors import Reason
from ..core.position import HANDS, TRICK, Position, allowed_of, tricks_won
from ..core.rules import TiePolicy
from ..core.scoring import score
from ..core.tricks import Trick
from ..engine.match import apply
from ..engine.state import DealResult, DealState, MatchState
from .cases import (
    Item,
)
from .client import ProtocolBroken
from .messages import (
    FACT_RULES,
    RULE_OF_REASON,
    VIEW_NAMES,
    action_text,
    lenient_action,
    parse_action,
)

__all__ = ["FACT_DIFFERENCE_RULES", "Mode", "compare", "locate", "rule_of", "same_meaning"]


class Mode(enum.StrEnum):
    """How refusals are compared (``--reasons``)."""

    STRICT = "strict"
    """Illegal actions are probed; the engine must refuse them with the same reason code."""
    LEGALITY = "legality"
    """Illegal actions are probed; the engine must refuse them, for any reason."""
    OFF = "off"
    """No illegal actions are sent."""


_FACT_ORDER: Final = (
    # The facts that say most come first: a wrong score also makes a wrong phase.
    # Tricks decide scores; whether a deal counts decides the next hand size, and the
    # dealer and the hand size decide which card is turned, and so trumps. The hand
    # size comes before the outcome: a schedule one deal short ends the match early,
    # which the next hand size shows as a schedule rule, not the match's end (END-1);
    # whether a deal counts (MATCH-4) decides the next hand size in turn.
    "tricks_won",
    "deal_scores",
    "totals",
    "counted_deals",
    "hand_size",
    "outcome",
    "dealer",
    "turned",
    "trump",
    "bids",
    "trick",
    "to_move",
    "deal_number",
    "phase",
)
_SEAT_NAMES: Final = tuple(seat.name.title() for seat in SEATS)
_SEAT_LETTERS: Final = tuple(seat.letter for seat in SEATS)
_MISSING: Final = object()


# --- where, and which rule ------------------------------------------------------


def _played_by(state: MatchState) -> tuple[str, int] | None:
    """The last action of the current deal, as its JSON and its seat."""
    current = state.deal
    if current is None:
        return None
    if current.trick:
        leader = current.leader
        assert leader is not None
        return current.trick[-1].code, (leader + len(current.trick) - 1) % 4
    if current.tricks:
        last = current.tricks[-1]
        return last.cards[-1].code, (last.leader + 3) % 4
    if current.bids:
        return current.bids[-1].call, (current.setup.dealer + len(current.bids)) % 4
    return None


def _finished_deal(state: MatchState) -> str:
    """The last finished deal, numbered as the record lists it, with its kind."""
    last = state.history[-1]
    kind = ""
    if last.thrown_in:
        kind = ", thrown in"
    elif last.setup.tiebreak:
        kind = ", a tiebreak deal"
    return f"deal {len(state.history)} of the record{kind}"


def locate(state: MatchState) -> str:
    """Where a state is, for people: deals, bids, tricks and cards counted from 1.

    Deals are numbered as the game record lists them: every deal dealt, thrown-in
    and tiebreak deals included (``deal_number + 1``).
    """
    number = state.deal_number + 1
    if state.is_over:
        return f"after the last deal ({_finished_deal(state)}), the match over"
    current = state.deal
    if current is None:
        if state.history:
            return f"after {_finished_deal(state)}"
        return "before deal 1"
    setup = current.setup
    cards = "one card" if setup.hand_size == 1 else f"{setup.hand_size} cards"
    head = f"deal {number} ({cards}{', tiebreak' if setup.tiebreak else ''})"
    if current.leader is None:
        where = f"bid {len(current.bids) + 1}"
    else:
        where = f"trick {len(current.tricks) + 1}, card {len(current.trick) + 1}"
    last = _played_by(state)
    if last is None:
        after = "after the deal"
    elif current.leader is None or not (current.trick or current.tricks):
        after = f"after {_SEAT_NAMES[last[1]]} bid {last[0]}"
    else:
        after = f"after {last[0]} by {_SEAT_NAMES[last[1]]}"
    return f"{head}, {where}, {after}"


def rule_of(
    reason: Reason, action: object, state: MatchState | None = None, *, ranked: bool = False
) -> str:
    """The rule that decides a refusal the engine does not make.

    RULE_OF_REASON, made precise by the position. A bid out of turn is BID-1; a
    card led out of turn breaks the opening-lead rule (BID-8) on the first trick,
    END-3 in a tiebreak deal, and later the winner-leads rule (PLAY-8). Anything out
    of phase or turn in a tiebreak deal before its first card is END-3 (no bidding,
    the dealer's left leads). A card the player does not hold is DEAL-4 when a joker
    swap decides who holds it, DEAL-1 when the deal gave it elsewhere, and PLAY-1
    when the player has played it. A trump led by the partner of a Board bidder is
    PLAY-5: only the bidder personally is exempt. With ``ranked`` (the engine gave
    another reason that also applies), a card not held is PLAY-1's: the engine
    ranked a rule of play above the holding, not dealt the card elsewhere.
    """
    current = None if state is None else state.deal
    if current is None or not isinstance(action, Bid | Play):
        return RULE_OF_REASON[reason]
    opening = current.leader is not None and not current.trick and not current.tricks
    if (
        current.setup.tiebreak
        and (current.leader is None or opening)
        and reason in (Reason.NOT_YOUR_TURN, Reason.WRONG_PHASE)
    ):
        return "END-3"
    if reason is Reason.NOT_YOUR_TURN:
        if isinstance(action, Bid):
            return "BID-1"
        if current.leader is not None and not current.trick:
            return "PLAY-8" if current.tricks else "BID-8"
    if reason is Reason.CARD_NOT_IN_HAND and isinstance(action, Play):
        return "PLAY-1" if ranked else _holding_rule(current, action)
    if reason is Reason.TRUMPS_NOT_BROKEN and isinstance(action, Play):
        partner = current.bid_of(action.seat.after(2))
        if partner is not None and partner.board:
            return "PLAY-5"
    return RULE_OF_REASON[reason]


def _also_applies(state: MatchState, action: object, given: object) -> bool:
    """Whether the reason ``given`` by the engine also applies to ``action`` in ``state``.

    A reason applies when its rule alone would refuse the action
    (``docs/conformance.md``, "The order of refusal reasons"): a bid out of range
    whoever bids it, a rule of play judged for the seat as if it played next and
    held the card.
    """
    current = state.deal
    if not isinstance(given, str) or current is None or state.is_over:
        return False
    try:
        reason = Reason(given)
    except ValueError:
        return False
    playing = current.leader is not None
    if reason is Reason.WRONG_PHASE:
        return isinstance(action, Deal) or isinstance(action, Bid) == playing
    if reason is Reason.NOT_YOUR_TURN:
        return isinstance(action, Bid | Play) and action.seat != state.to_move
    if reason is Reason.BID_OUT_OF_RANGE:
        return (
            isinstance(action, Bid)
            and not action.board
            and not (0 <= action.amount < current.setup.hand_size)
        )
    if not isinstance(action, Play) or not playing:
        return False
    if reason is Reason.CARD_NOT_IN_HAND:
        return not current.hands[action.seat] >> action.card & 1
    held = list(current.hands)
    held[action.seat] |= 1 << action.card
    pos = list(state.position)
    pos[HANDS] = tuple(held)
    trick = state.position[TRICK]
    allowed, why = allowed_of(cast("Position", tuple(pos)), action.seat, trick)
    return not allowed >> action.card & 1 and why is reason


def _holding_rule(current: DealState, action: Play) -> str:
    """Why a seat does not hold a card: the swap (DEAL-4), the deal (DEAL-1) or its play.

    After a turned joker, a joker or a card of the stock (the turned card, the undealt
    cards) in the wrong hand is the swap's doing: which card replaces the joker.
    """
    setup = current.setup
    card = action.card
    if setup.turned.is_joker and (card.is_joker or setup.stock >> card & 1):
        return "DEAL-4"
    if setup.hands[action.seat] >> card & 1:
        return "PLAY-1"  # dealt to this seat and played already
    return "DEAL-1"


def _allowing_rule(state: MatchState, action: object) -> str:
    """The rule that allows a legal action the engine refuses.

    A numeric bid is allowed by BID-7 when it takes the pair's target past the hand
    size, by BID-3 when it is not above an earlier bid, else by BID-2. A trump led
    before trumps are broken is allowed by PLAY-5 (the leader bid Board) or PLAY-6
    (the leader holds only trumps); once broken, by PLAY-4. A card after a joker
    that did not lead is JOKER-4's; after a joker lead, a seat without trumps is
    JOKER-3's, BIG as the only trump after a LITTLE lead JOKER-2's own case.
    """
    current = state.deal
    if isinstance(action, Deal) or current is None:
        return "DEAL-1"
    if isinstance(action, Bid):
        return _bid_rule(current, action)
    assert isinstance(action, Play)
    trick = current.trick
    trumps = current.setup.trumps
    if not trick:
        if not current.tricks and current.setup.tiebreak:
            return "END-3"
        if not trumps >> action.card & 1:
            return "PLAY-1"
        if current.broken:
            return "PLAY-4"
        seat = action.seat
        bid = current.bid_of(seat)
        if bid is not None and bid.board:
            return "PLAY-5"
        if not current.hands[seat] & ~trumps:
            return "PLAY-6"
        return "PLAY-4"
    led = trick[0]
    if led.is_joker:
        if not current.hands[action.seat] & trumps:
            return "JOKER-3"
        return "JOKER-1" if led is Card.BIG else "JOKER-2"
    if any(card.is_joker for card in trick[1:]):
        return "JOKER-4"
    return "PLAY-3" if trumps >> led & 1 else "PLAY-2"


def _bid_rule(current: DealState, action: Bid, missing: frozenset[int] | None = None) -> str:
    """The rule that allows a numeric bid: BID-7, BID-3 or BID-2.

    ``missing`` is every amount the engine forbids here, when its legal list is
    known. A dealer's bid that makes the table's bids add up to the hand size (the
    "hook" of other games) is BID-2's: nothing forbids it. When the engine forbids
    just that amount, or when the legal list is not known, the hook is what it
    breaks; a bid refused for not being above earlier bids is BID-3.
    """
    if action.board or not action.amount:
        return "BID-2"
    size = current.setup.hand_size
    if len(current.bids) == 3:
        total = sum(bid.amount for bid in current.bids if not bid.board)
        if total + action.amount == size and (missing is None or missing == {action.amount}):
            return "BID-2"
    partner = current.bid_of(action.seat.after(2))
    size = current.setup.hand_size
    if partner is not None and not partner.board and partner.amount + action.amount > size:
        return "BID-7"
    if any(not bid.board and bid.amount >= action.amount for bid in current.bids):
        return "BID-3"
    return "BID-2"


def _text(data: Any) -> str:
    return data if isinstance(data, str) else json.dumps(data)


def _show(action: Bid | Play | Deal | None) -> str:
    if action is None:
        # The only request with a reply of its own and no action: new_match.
        return "the new match"
    return "the deal" if isinstance(action, Deal) else str(action)


def _broken(item: Item, number: int, what: str) -> ProtocolBroken:
    return ProtocolBroken(f"reply {number} ({item.line.decode().strip()}): {what}")


def _parsed(item: Item, raw: bytes, number: int) -> dict[str, Any]:
    try:
        reply = json.loads(raw)
    except ValueError as error:
        shown = raw[:120].decode("utf-8", "replace").rstrip()
        raise _broken(item, number, f"the reply is not JSON ({error}): {shown!r}") from None
    if not isinstance(reply, dict) or not isinstance(reply.get("type"), str):
        raise _broken(item, number, f"the reply is not a message: {raw[:120]!r}")
    return reply


def same_meaning(raw: bytes, expected: bytes, mode: Mode) -> bool:
    """Whether a reply line means what the reference's means, as the protocol compares them.

    A refusal is compared by its reason code (under ``--reasons strict``; by its type
    alone otherwise), never by its message; legal actions as a set; anything else as
    JSON values, so spacing and key order do not matter. False when in doubt (a reply
    that is not JSON): :func:`compare` then says what is wrong.
    """
    try:
        reply = json.loads(raw)
        want = json.loads(expected)
    except ValueError:
        return False
    if not isinstance(reply, dict):
        return False
    kind = want["type"]
    if kind == "refused":
        return reply.get("type") == "refused" and (
            mode is not Mode.STRICT or reply.get("reason") == want["reason"]
        )
    if kind == "legal":
        actions = reply.get("actions")
        return (
            reply.get("type") == "legal"
            and isinstance(actions, list)
            and all(isinstance(action, str) for action in actions)
            and len(actions) == len(want["actions"])
            and set(actions) == set(want["actions"])
        )
    return bool(reply == want)


def compare(item: Item, raw: bytes, mode: Mode, number: int) -> str | None:
    """What differs between the engine's reply line and the reference's, or None.

    A reply of the wrong type is not a difference of rules but a broken
    protocol: :class:`ProtocolBroken`.
    """
    if raw == item.expected:
        return None
    reply = _parsed(item, raw, number)
    expected = json.loads(item.expected)
    kind = reply["type"]
    if kind == "error":
        raise _broken(item, number, f"the engine answers with an error: {reply.get('message')}")
    if item.kind == "legal":
        actions = reply.get("actions")
        if kind != "legal" or not isinstance(actions, list):
            raise _broken(item, number, f"expected a legal reply, found {_text(reply)[:200]}")
        return _compare_legal(item, actions, expected["actions"])
    if item.kind == "facts":
        if kind != "facts" or not isinstance(reply.get("facts"), dict):
            raise _broken(item, number, f"expected a facts reply, found {_text(reply)[:200]}")
        return _compare_facts(item, reply["facts"], expected["facts"])
    if item.kind == "view":
        if kind != "view" or not isinstance(reply.get("view"), dict):
            raise _broken(item, number, f"expected a view reply, found {_text(reply)[:200]}")
        return _compare_view(item.before, reply["view"], expected["view"])
    if kind not in ("ok", "refused", "facts"):
        raise _broken(item, number, f"expected ok or a refusal, found {_text(reply)[:200]}")
    action = item.action
    if expected["type"] == "refused":
        reason = Reason(expected["reason"])
        rule = rule_of(reason, action, item.before)
        if kind != "refused":
            return f"you accept {_show(action)}, the rules forbid it: {reason.value} ({rule})"
        if mode is Mode.STRICT and reply.get("reason") != reason.value:
            given = reply.get("reason")
            if _also_applies(item.before, action, given):
                # Both reasons apply: the engine ranks them in another order. The
                # reason due is the rule's own (a card not held is PLAY-1's, not the
                # deal's: the engine knows who holds it, as its play reason shows).
                rule = rule_of(reason, action, item.before, ranked=True)
                return (
                    f"you refuse {_show(action)} with {_text(given)}, the rules refuse "
                    f"it with {reason.value}, which comes first in the order of refusal "
                    f"reasons ({rule})"
                )
            return (
                f"you refuse {_show(action)} with {_text(given)}, "
                f"the rules refuse it with {reason.value} ({rule})"
            )
        return None
    if kind == "refused":
        return (
            f"you refuse {_show(action)} ({_text(reply.get('reason'))}: "
            f"{_text(reply.get('message'))}), the rules allow it "
            f"({_allowing_rule(item.before, action)})"
        )
    if expected["type"] == "facts":
        # The reply to new_match.
        return _compare_facts(item, reply.get("facts"), expected["facts"])
    return None


FACT_DIFFERENCE_RULES: Final = {
    # The rule each kind of wrong fact cites, made precise by the position (_fact_rule).
    "deal_scores, thrown-in deal": "MATCH-3",
    "deal_scores, tiebreak deal": "END-3",
    "deal_scores, a pair's two Boards": "BID-5",
    "deal_scores, a failed Board": "SCORE-4",
    "deal_scores, a Board of another multiplier": "BID-4",
    "deal_scores, a Board with the other pair's higher multiplier": "BID-5",
    "deal_scores, a pair's Board": "SCORE-4",
    "deal_scores, a pair that passed twice": "SCORE-3",
    "deal_scores, nothing against a Board": "SCORE-1",
    "deal_scores, the target of one bid": "BID-6",
    "deal_scores, a pair's numeric target": "SCORE-2",
    "dealer, first deal": "MATCH-1",
    "hand_size, tiebreak deal": "END-3",
    "hand_size, after a level tiebreak deal": "END-4",
    "hand_size, after a throw-in": "MATCH-3",
    "hand_size, standard": "SCHED-1",
    "hand_size, twenty-five": "SCHED-2",
    "hand_size, short": "SCHED-3",
    "hand_size, a schedule of its own": "SCHED-4",
    "trump, joker turned": "DEAL-3",
    "to_move, bidding": "BID-1",
    "to_move, tiebreak deal": "END-3",
    "tricks_won, a trump beaten by a trump": "CARD-3",
    "tricks_won, a card of the led suit beaten by one": "CARD-2",
    "tricks_won, any other trick": "PLAY-7",
    "outcome, after a level tiebreak deal": "END-4",
    "outcome, tiebreak deal decided": "END-3",
    "outcome, level totals under tiebreak-deal": "END-3",
    "outcome, level totals under draw": "END-2",
    "outcome, the schedule finished": "END-1",
}
"""The table from each compared fact (in its situation) to the rule whose outcome it is.

Any other wrong fact cites ``messages.FACT_RULES``.
"""

_SCHEDULE_RULES: Final = {
    "standard": "hand_size, standard",
    "twenty-five": "hand_size, twenty-five",
    "short": "hand_size, short",
}


def _fact_rule(key: str, state: MatchState, got: Any = None, want: Any = None) -> str:
    """The rule a wrong fact concerns (FACT_DIFFERENCE_RULES, else FACT_RULES).

    ``state`` is the reference position the facts describe; ``got`` and ``want``
    the engine's and the rules' values, to tell which pair's score differs.
    """
    table = FACT_DIFFERENCE_RULES
    history = state.history
    last = history[-1] if history else None
    current = state.deal
    if key == "tricks_won":
        deal = current if current is not None else (last.deal if last is not None else None)
        if deal is not None and deal.tricks:
            return table[_pair_kind(deal.tricks[-1], deal.setup.trumps, got, want)]
    if key == "deal_scores" and last is not None:
        if last.thrown_in:
            return table["deal_scores, thrown-in deal"]
        if last.setup.tiebreak:
            return table["deal_scores, tiebreak deal"]
        won = _last_trick_turned(last.deal, got, want)
        if won is not None:
            return table[won]
        return table[_score_kind(last.deal, got, want, history[:-1])]
    if key == "dealer" and not history:
        return table["dealer, first deal"]
    if key == "hand_size":
        return _hand_size_rule(state, last)
    if key == "trump" and current is not None and current.setup.turned.is_joker:
        return table["trump, joker turned"]
    if key == "to_move" and current is not None:
        if current.setup.tiebreak and not current.tricks:
            return table["to_move, tiebreak deal"]
        if current.leader is None:
            return table["to_move, bidding"]
        if current.tricks and not current.trick and got in _SEAT_LETTERS:
            # The right pair took the trick, but another seat leads: its partner's card
            # won in the engine's reading (a winner rule), or nobody's did (PLAY-8).
            trick = current.tricks[-1]
            leads = _SEAT_LETTERS.index(got)
            if trick.winner is not None and leads % 2 == trick.winner % 2:
                card = next(card for seat, card in trick.plays if seat == leads)
                return table[_trick_kind(trick, current.setup.trumps, [int(card)])]
    if key == "outcome":
        return _outcome_rule(state, last)
    return FACT_RULES[key]


def _last_trick_turned(deal: DealState, got: Any, want: Any) -> str | None:
    """The trick rule, when the engine's scores are the deal's with its last trick turned.

    The facts after a deal show no tricks (the deal is over), so a last trick won
    by the wrong pair shows only in the scores: scores of both pairs that match the
    other pair taking it are that trick's rule (:func:`_trick_kind`), not a scoring
    rule.
    """
    contracts = deal.contracts
    if contracts is None or not deal.tricks or not isinstance(got, list):
        return None
    last = deal.tricks[-1]
    if last.winner is None:
        return None
    size = deal.setup.hand_size
    won = list(deal.tricks_won)
    taker = last.winner % 2
    won[taker] -= 1
    won[1 - taker] += 1
    turned = [score(contracts[pair], hand_size=size, tricks=won[pair]) for pair in (0, 1)]
    if got != turned or any(turned[pair] == _at(want, pair) for pair in (0, 1)):
        # Both pairs' scores must show the trick: one alone fits a scoring rule as well
        # (a target of 6 made with 7 tricks scored 30 is the overtrick, or a trick).
        return None
    cards = [int(card) for seat, card in last.plays if seat % 2 != taker]
    return _trick_kind(last, deal.setup.trumps, cards)


def _hand_size_rule(state: MatchState, last: Any) -> str:
    """The rule a wrong hand size breaks: the schedule's, or the match's end.

    A tiebreak deal due is END-3 (END-4 after a level one); a match the rules end on
    level totals, or after a tiebreak deal, is its outcome's rule; otherwise the hand
    size is the schedule's, whether the engine ends the match too early or too late
    (a schedule short of its last deal is SCHED-1, not END-1).
    """
    table = FACT_DIFFERENCE_RULES
    if state.in_tiebreak:
        if last is not None and last.setup.tiebreak:
            return table["hand_size, after a level tiebreak deal"]
        return table["hand_size, tiebreak deal"]
    if state.is_over:
        ns, ew = state.totals
        if ns == ew or (last is not None and last.setup.tiebreak):
            return _outcome_rule(state, last)
    if state.deal is None and last is not None and last.thrown_in:
        return table["hand_size, after a throw-in"]
    name = state.rules.schedule_name or ""
    return table[_SCHEDULE_RULES.get(name, "hand_size, a schedule of its own")]


def _pair_kind(trick: Trick, trumps: int, got: Any, want: Any) -> str:
    """Which rule gave the last trick to another pair in the engine's count.

    The engine's winning pair is the one it credits with more tricks than the rules
    do; :func:`_trick_kind` judges its cards.
    """
    pairs = [p for p in (0, 1) if isinstance(_at(got, p), int) and _at(got, p) > _at(want, p)]
    if not pairs:
        return "tricks_won, any other trick"
    cards = [int(card) for seat, card in trick.plays if seat % 2 == pairs[0]]
    return _trick_kind(trick, trumps, cards)


def _trick_kind(trick: Trick, trumps: int, mine: list[int]) -> str:
    """Which rule made one of the cards ``mine`` win the trick in the engine's reading.

    A trump that lost to a higher trump is the trump order (CARD-3); a card of the
    led suit that lost to a higher one, with no card of another suit ranking above
    the winner, the plain order (CARD-2); anything else, which card wins a trick
    (PLAY-7).
    """
    winner = trick.winner
    if winner is None:
        return "tricks_won, any other trick"
    best = int(next(card for seat, card in trick.plays if seat == winner))
    if any(trumps >> card & 1 for card in mine):
        return "tricks_won, a trump beaten by a trump"
    if trumps >> best & 1:
        return "tricks_won, any other trick"
    led = int(trick.cards[0])
    following = [card for card in mine if card // 13 == led // 13]
    above = [card for card in mine if card // 13 != led // 13 and card % 13 > best % 13]
    if following and not above:
        return "tricks_won, a card of the led suit beaten by one"
    return "tricks_won, any other trick"


def _numeric_score(target: int, tricks: int) -> int:
    """SCORE-2 as the fuzzer reads it, to recognise a score made from another target."""
    return 5 * target + (tricks - target) if tricks >= target else -5 * target


def _score_kind(deal: DealState, got: Any, want: Any, earlier: tuple[DealResult, ...] = ()) -> str:
    """Which rule makes a pair's deal score: its multiplier, contract or scoring.

    A Board scored as the pair's other Board (or both together) is BID-5, as is one
    scored at the other pair's higher multiplier; a Board scored ±10·h·k for another
    k, with the sign its tricks give, BID-4 (which Board has which multiplier),
    unless a pair's lone Board of a multiplier above one with the other result was scored
    right, in this deal or an earlier one (``earlier``, which the engine scored as
    the rules do): then the multipliers are right and the fault is how a made or a
    failed Board scores, SCORE-4. Any other wrong Board score is SCORE-4. A
    numeric pair scored nothing against a Board is SCORE-1; scored as if its target
    were one of its bids (or their larger), BID-6; anything else SCORE-2.
    """
    contracts = deal.contracts
    if contracts is None:
        return "deal_scores, a pair's numeric target"
    pairs = [p for p in (0, 1) if _at(got, p) != _at(want, p)] or [0, 1]
    pair = pairs[0]
    contract, other = contracts[pair], contracts[1 - pair]
    score = _at(got, pair)
    taken = deal.tricks_won[pair]
    if contract.multiplier:
        return _board_kind(deal, pair, score, pairs, earlier)
    if contract.target == 0:
        return "deal_scores, a pair that passed twice"
    if other.multiplier and score == 0:
        return "deal_scores, nothing against a Board"
    amounts = [
        bid.amount
        for bid in (deal.bid_of(SEATS[pair]), deal.bid_of(SEATS[pair + 2]))
        if bid is not None
    ]
    others = {*amounts, max(amounts, default=0)} - {contract.target}
    if any(score == _numeric_score(target, taken) for target in others):
        return "deal_scores, the target of one bid"
    return "deal_scores, a pair's numeric target"


def _board_kind(
    deal: DealState, pair: int, score: Any, wrong: list[int], earlier: tuple[DealResult, ...]
) -> str:
    """Which rule a wrong Board score breaks: BID-4, BID-5 or SCORE-4 (see _score_kind)."""
    contracts = deal.contracts
    assert contracts is not None
    contract, other = contracts[pair], contracts[1 - pair]
    size = deal.setup.hand_size
    made = deal.tricks_won[pair] == size
    if not isinstance(score, int) or not score or score % (10 * size):
        return "deal_scores, a failed Board"
    times = abs(score) // (10 * size)
    if (score > 0) != made or times == contract.multiplier or times > 10:
        # The sign or the size of the score is not a multiplier's: how a Board scores.
        return "deal_scores, a failed Board"
    mine = [
        multiplier for seat, multiplier in board_multipliers(deal.bids).items() if seat.pair == pair
    ]
    if len(mine) == 2 and times in (min(mine), sum(mine)):
        return "deal_scores, a pair's two Boards"
    if times == other.multiplier and times > contract.multiplier:
        return "deal_scores, a Board with the other pair's higher multiplier"
    if times > 4:
        return "deal_scores, a failed Board"
    shown = [(deal, 1 - pair)] if 1 - pair not in wrong else []
    shown += [(result.deal, side) for result in earlier for side in (0, 1)]
    if any(_right_board(seen, side, not made) for seen, side in shown):
        # A Board of this multiplier with the other result was scored right: the
        # engine's multipliers are right, and its fault is how this result scores.
        return "deal_scores, a failed Board"
    return "deal_scores, a Board of another multiplier"


def _right_board(deal: DealState, pair: int, made: bool) -> bool:
    """Whether ``pair`` bid one Board alone in ``deal``, at a multiplier above one, made or not.

    A deal the engine scored right with such a Board shows its multipliers right.
    """
    if deal.setup.tiebreak or len(deal.bids) < 4:
        return False
    contracts = deal.contracts
    if contracts is None or contracts[pair].multiplier < 2:
        return False
    boards = [bid for bid in deal.bids if bid.board and bid.seat.pair == pair]
    taken = deal.tricks_won[pair] == deal.setup.hand_size
    return len(boards) == 1 and taken == made


def _at(value: Any, index: int) -> Any:
    return value[index] if isinstance(value, list) and len(value) == 2 else None


def _outcome_rule(state: MatchState, last: Any) -> str:
    table = FACT_DIFFERENCE_RULES
    if last is not None and last.setup.tiebreak:
        ns, ew = tricks_won(last.position)
        if ns == ew:
            return table["outcome, after a level tiebreak deal"]
        return table["outcome, tiebreak deal decided"]
    if state.counted_deals >= state.rules.deals or state.in_tiebreak:
        ns, ew = state.totals
        if ns == ew:
            if state.rules.tie is TiePolicy.TIEBREAK_DEAL:
                return table["outcome, level totals under tiebreak-deal"]
            return table["outcome, level totals under draw"]
        return table["outcome, the schedule finished"]
    return FACT_RULES["outcome"]


def _swap_rule(state: MatchState, action: object, rule: str) -> str:
    """DEAL-4 when the card in question is one a joker swap moved, else ``rule``."""
    current = state.deal
    swap = None if current is None else current.setup.swap
    if swap is not None and isinstance(action, Play) and action.card in (swap.joker, swap.received):
        return "DEAL-4"
    return rule


def _compare_facts(item: Item, got: Any, want: dict[str, Any]) -> str | None:
    if got == want:
        return None
    if not isinstance(got, dict):
        return "you give no facts"
    for key in _FACT_ORDER:
        value = want[key]
        found = got.get(key, _MISSING)
        if found != value:
            shown = "nothing" if found is _MISSING else json.dumps(found)
            rule = _fact_rule(key, item.before, found, value)
            return f"you say {key} is {shown}, the rules give {json.dumps(value)} ({rule})"
    extra = sorted(set(got) - set(want))
    return f"you give facts the protocol does not have: {', '.join(extra)}"


def _compare_view(state: MatchState, got: dict[str, Any], want: dict[str, Any]) -> str | None:
    """What differs in a seat's view, and the rule: DEAL-5 for what the seat may not know.

    A field the view does not have, or another seat's swap shown, is what the seat
    may not know (DEAL-5); a swap the rules do not make, or not as they make it,
    is DEAL-4; a hand that differs is the deal's (DEAL-1), or the swap's (DEAL-4)
    when every card in question is a joker, the card taken for one or of the stock
    after a turned joker.
    """
    if got == want:
        return None
    seat = want["seat"]
    extra = sorted(set(got) - set(want))
    if extra:
        return (
            f"you show {seat} {', '.join(extra)}, which the view does not have: "
            "a seat knows its own hand and its own swap alone (DEAL-5)"
        )
    current = state.deal
    swap = None if current is None else current.setup.swap
    for key in VIEW_NAMES:
        found = got.get(key, _MISSING)
        value = want[key]
        if found == value:
            continue
        shown = "nothing" if found is _MISSING else json.dumps(found)
        head = f"you say {seat}'s {key} is {shown}, the rules give {json.dumps(value)}"
        if key == "swap":
            leaked = (
                value is None
                and swap is not None
                and found == {"gave": swap.joker.code, "took": swap.received.code}
            )
            return f"{head} ({'DEAL-5' if leaked else 'DEAL-4'})"
        if key == "hand" and isinstance(found, list) and current is not None:
            codes = {card.code: card for card in CARDS}
            cards = {codes.get(text) for text in found} ^ {codes[text] for text in value}
            setup = current.setup
            taken = None if swap is None else swap.received
            swapped = setup.turned.is_joker and all(
                card is not None and (card.is_joker or card is taken or setup.stock >> card & 1)
                for card in cards
            )
            return f"{head} ({'DEAL-4' if swapped else 'DEAL-1'})"
        return f"{head} (DEAL-5)"
    return None


def _compare_legal(item: Item, actions: list[Any], want: list[str]) -> str | None:
    if len(actions) == len(want) and set(map(_text, actions)) == set(want):
        return None
    expected = set(want)
    seen: set[str] = set()
    for data in actions:
        text = _text(data)
        if text in seen:
            return f"you list {text} twice among the legal actions"
        seen.add(text)
        if text in expected:
            continue
        meant = lenient_action(data)
        if meant is None:
            return f"you list {text!r} as legal, which is not an action"
        action = meant
        refusal = _refusal(item.before, action)
        if refusal is None:
            return f"you list {text} as legal in a different spelling; write {action_json(action)}"
        rule = _swap_rule(item.before, action, rule_of(refusal, action, item.before))
        return f"you allow {text}, the rules forbid it: {refusal.value} ({rule})"
    missing = [parse_action(text) for text in want if text not in seen]
    amounts = frozenset(
        action.amount for action in missing if isinstance(action, Bid) and not action.board
    )
    for action in missing:
        if isinstance(action, Bid) and item.before.deal is not None:
            rule = _bid_rule(item.before.deal, action, amounts)
        else:
            rule = _swap_rule(item.before, action, _allowing_rule(item.before, action))
        return f"you forbid {action_json(action)}, the rules allow it ({rule})"
    return None


def action_json(action: Bid | Play | Deal) -> str:
    """The canonical JSON text of an action."""
    return json.dumps(action_text(action))


def _refusal(state: MatchState, action: Bid | Play | Deal) -> Reason | None:
    try:
        apply(state, action)
    except ValueError as error:
        reason = getattr(error, "reason", None)
        return reason if isinstance(reason, Reason) else Reason.WRONG_PHASE
    return None


# --- running items through the engine ---------------------------------------------
