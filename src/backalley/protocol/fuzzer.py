"""The differential fuzzer: random and adversarial matches, played through an engine and ours.

Each match is played deal by deal through the reference
(:class:`~backalley.protocol.server.Session`) and through the engine under
test, with choices biased towards the rare rules: jokers led and jokers
turned (with the swap), Boards, four passes, one-card deals, tiebreak deals
and hands of nothing but trumps. At every decision point it compares the legal
actions, probes actions the rules refuse (wrong seat, wrong phase, a card not
held, each play rule) and compares the refusals, and after every action it
compares the facts (phase, whose turn, trump, bids, tricks, deal scores,
totals, outcome). The first difference is shrunk (:mod:`.shrink`) and reported
with its position and the rule of ``docs/rules.md`` it concerns.
"""

from __future__ import annotations

import enum
import json
import random
import time
from collections.abc import Callable
from typing import Any, Final

import attrs

from ..core.actions import Bid, Deal, Play
from ..core.cards import CARDS, SEATS, Card
from ..core.errors import Reason
from ..core.rules import SCHEDULES, Rules, TiePolicy
from ..engine.match import apply, legal_actions
from ..engine.state import MatchState
from ._codec import record_text
from .cases import (
    Case,
    DealScript,
    Invalid,
    Item,
    ScriptSource,
    Source,
    Step,
    Walked,
    new_match_line,
    walk_deal,
)
from .client import EngineProcess, ProtocolBroken
from .messages import (
    FACT_RULES,
    OK_LINE,
    PROTOCOL,
    RULE_OF_REASON,
    VERSION,
    action_text,
    parse_action,
)
from .server import Session
from .shrink import shrink

__all__ = [
    "Difference",
    "FuzzResult",
    "Mode",
    "RandomSource",
    "Settings",
    "describe",
    "draw_rules",
    "fuzz",
    "handshake",
    "locate",
    "replay_lines",
    "rule_of",
    "run_case",
]


class Mode(enum.StrEnum):
    """How refusals are compared (``--reasons``)."""

    STRICT = "strict"
    """Illegal actions are probed; the engine must refuse them with the same reason code."""
    LEGALITY = "legality"
    """Illegal actions are probed; the engine must refuse them, for any reason."""
    OFF = "off"
    """No illegal actions are sent."""


@attrs.frozen
class Settings:
    """What to fuzz: ``rules`` None draws rules for each match (``mixed``)."""

    matches: int = 100
    probes: int = 3
    seed: int = 0
    rules: Rules | None = None
    schedule_only: bool = False
    """With ``rules`` given as a schedule only: the tie policy and first dealer vary."""
    mode: Mode = Mode.STRICT
    shrink_budget: int = 400


@attrs.frozen
class Difference:
    """Where the engine and the rules first disagree, shrunk.

    ``message`` is located ("deal 1 (3 cards), trick 1, card 2, after 5H by
    East: you allow 4S, the rules forbid it: must_follow_suit (PLAY-2)"),
    ``case`` the shrunk case and ``record`` the game record of the position.
    """

    message: str
    case: Case
    record: str
    requests: tuple[bytes, ...]
    """The request lines that show the difference, after ``hello``."""
    found_actions: int
    """How many actions the case had before shrinking."""


@attrs.frozen
class FuzzResult:
    """What a fuzzing run did and found."""

    matches: int
    requests: int
    seconds: float
    difference: Difference | None


_FACT_ORDER: Final = (
    # The facts that say most come first: a wrong score also makes a wrong phase.
    "deal_scores",
    "tricks_won",
    "totals",
    "outcome",
    "trump",
    "turned",
    "dealer",
    "hand_size",
    "bids",
    "trick",
    "to_move",
    "deal_number",
    "counted_deals",
    "phase",
)
STARTUP_TIMEOUT: Final = 20.0
"""Seconds an engine may take to start and answer ``hello``."""
_SEAT_NAMES: Final = tuple(seat.name.title() for seat in SEATS)
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


def locate(state: MatchState) -> str:
    """Where a state is, for people: deals, bids, tricks and cards counted from 1."""
    number = state.deal_number + 1
    if state.is_over:
        return f"after the last deal (deal {state.deal_number}), the match over"
    current = state.deal
    if current is None:
        if state.deal_number:
            return f"after deal {state.deal_number}"
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


def rule_of(reason: Reason, action: object, state: MatchState | None = None) -> str:
    """The rule ID a refusal cites (RULE_OF_REASON), made precise by the position.

    A bid out of turn is BID-1; a card led out of turn breaks the opening-lead
    rule (BID-8) on the first trick and the winner-leads rule (PLAY-8) later.
    """
    if reason is Reason.NOT_YOUR_TURN:
        if isinstance(action, Bid):
            return "BID-1"
        current = None if state is None else state.deal
        if current is not None and current.leader is not None and not current.trick:
            return "PLAY-8" if current.tricks else "BID-8"
    return RULE_OF_REASON[reason]


def _allowing_rule(state: MatchState, action: object) -> str:
    """The rule that allows a legal action the engine refuses."""
    current = state.deal
    if isinstance(action, Deal) or current is None:
        return "DEAL-1"
    if isinstance(action, Bid):
        return "BID-2"
    assert isinstance(action, Play)
    trick = current.trick
    trumps = current.setup.trumps
    if not trick:
        return "PLAY-4" if trumps >> action.card & 1 else "PLAY-1"
    led = trick[0]
    if led is Card.BIG:
        return "JOKER-1"
    if led is Card.LITTLE:
        return "JOKER-2"
    return "PLAY-3" if trumps >> led & 1 else "PLAY-2"


def _text(data: Any) -> str:
    return data if isinstance(data, str) else json.dumps(data)


def _show(action: Bid | Play | Deal | None) -> str:
    if action is None:
        return "?"
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
    if kind not in ("ok", "refused", "facts"):
        raise _broken(item, number, f"expected ok or a refusal, found {_text(reply)[:200]}")
    action = item.action
    if expected["type"] == "refused":
        reason = Reason(expected["reason"])
        rule = rule_of(reason, action, item.before)
        if kind != "refused":
            return f"you accept {_show(action)}, the rules forbid it: {reason.value} ({rule})"
        if mode is Mode.STRICT and reply.get("reason") != reason.value:
            return (
                f"you refuse {_show(action)} with {_text(reply.get('reason'))}, "
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


def _fact_rule(key: str, state: MatchState) -> str:
    """The rule a wrong fact concerns (FACT_RULES), made precise by the position."""
    history = state.history
    if key == "deal_scores" and history:
        last = history[-1]
        if last.thrown_in:
            return "MATCH-3"
        contracts = last.deal.contracts
        if contracts is not None and any(contract.multiplier for contract in contracts):
            return "SCORE-4"
        return "SCORE-2"
    if key == "outcome" and state.rules.tie is TiePolicy.TIEBREAK_DEAL:
        outcome = state.outcome
        if outcome is None or outcome.termination.value == "tiebreak-deal":
            return "END-3"
    return FACT_RULES[key]


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
            rule = _fact_rule(key, item.before)
            return f"you say {key} is {shown}, the rules give {json.dumps(value)} ({rule})"
    extra = sorted(set(got) - set(want))
    return f"you give facts the protocol does not have: {', '.join(extra)}"


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
        try:
            action = parse_action(data)
        except ValueError:
            return f"you list {text!r} as legal, which is not an action"
        refusal = _refusal(item.before, action)
        if refusal is None:
            return f"you list {text} as legal in a different spelling; write {action_json(action)}"
        rule = _swap_rule(item.before, action, rule_of(refusal, action, item.before))
        return f"you allow {text}, the rules forbid it: {refusal.value} ({rule})"
    for text in want:
        if text not in seen:
            action = parse_action(text)
            rule = _swap_rule(item.before, action, _allowing_rule(item.before, action))
            return f"you forbid {text}, the rules allow it ({rule})"
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


def handshake(engine: EngineProcess) -> frozenset[str]:
    """Say hello; the engine's capabilities. A wrong answer is :class:`ProtocolBroken`."""
    hello = {"type": "hello", "protocol": PROTOCOL, "versions": [VERSION]}
    # The first reply also waits for the engine to start (an interpreter, a JIT).
    timeout = engine.timeout
    engine.timeout = max(timeout, STARTUP_TIMEOUT)
    try:
        [raw] = engine.exchange([json.dumps(hello).encode() + b"\n"])
    finally:
        engine.timeout = timeout
    try:
        reply = json.loads(raw)
    except ValueError:
        raise engine.broken(f"the engine's hello is not JSON: {raw[:120]!r}") from None
    if not isinstance(reply, dict):
        raise engine.broken(f"the engine's hello is not a message: {raw[:120]!r}")
    if reply.get("type") != "hello" or reply.get("protocol") != PROTOCOL:
        raise ProtocolBroken(f"the engine does not say hello in {PROTOCOL}: {_text(reply)[:200]}")
    if reply.get("version") != VERSION:
        raise ProtocolBroken(f"the engine speaks version {reply.get('version')!r}, not {VERSION}")
    capabilities = reply.get("capabilities", [])
    if not isinstance(capabilities, list):
        raise ProtocolBroken("the engine's capabilities are not a list")
    return frozenset(str(name) for name in capabilities)


def _check(
    engine: EngineProcess,
    lines: list[bytes],
    expected: list[bytes],
    details: Callable[[], list[Item]],
    mode: Mode,
) -> tuple[Item, str] | None:
    """Send request lines; the request and the text of the first difference, or None.

    ``details()`` gives the requests' details, asked only when a reply is not
    byte for byte the reference's.
    """
    if not lines:
        return None
    first = engine.sent + 1
    replies = engine.exchange(lines)
    if replies == expected:
        # The common case, compared in one go.
        return None
    items = details()
    try:
        for index, item in enumerate(items):
            if replies[index] == expected[index]:
                continue
            found = compare(item, replies[index], mode, first + index)
            if found is not None:
                return item, f"{locate(item.before)}: {found}"
    except ProtocolBroken as error:
        raise engine.broken(error.message) from None
    return None


def _truncated(case: Case, deals: list[DealScript], script: DealScript, steps: int) -> Case:
    cut = DealScript(script.steps[:steps], script.hand_size, "open", script.tiebreak)
    return attrs.evolve(case, deals=(*deals, cut))


def _drive(
    engine: EngineProcess,
    case: Case,
    sources: Callable[[int], Source | None],
    mode: Mode,
    with_legal: bool,
) -> tuple[Case, str, MatchState] | None:
    """Play a match deal by deal, each deal's steps from ``sources(deal number)``.

    The case as played, cut at its first difference, with the message and the
    reference position there; None if the engine agrees throughout.
    """
    session = Session()
    line = new_match_line(case.rules, case.seed)
    reply = session.answer(line)
    assert session.state is not None
    head = [Item("apply", line, reply, None, session.state, 0)]
    lines, expected = [line], [reply]
    played: list[DealScript] = []
    number = 0
    while (source := sources(number)) is not None:
        before = session.state
        walked = walk_deal(session, source, with_legal=with_legal)
        if isinstance(source, ScriptSource) and not source.done():
            raise Invalid("the script does not fit the match")

        def details(
            walked: Walked = walked, before: MatchState | None = before, head: list[Item] = head
        ) -> list[Item]:
            again = Session()
            again.state = before
            steps = ScriptSource(walked.script.steps)
            items = walk_deal(again, steps, with_legal=with_legal, detail=True).items
            assert items is not None
            return head + items

        found = _check(engine, lines + walked.lines, expected + walked.expected, details, mode)
        if found is not None:
            item, message = found
            return _truncated(case, played, walked.script, item.steps), message, item.before
        head, lines, expected = [], [], []
        played.append(walked.script)
        number += 1
        if walked.script.kind == "open":
            break
    return None


def run_case(
    engine: EngineProcess, case: Case, mode: Mode, *, with_legal: bool = True
) -> tuple[Case, str, MatchState] | None:
    """Play a case through the engine; None if the engine agrees throughout.

    Otherwise the case cut at its first difference, the message and the
    reference position there. A case that does not fit its rules raises
    :class:`Invalid`.
    """
    last = len(case.deals) - 1

    def sources(number: int) -> Source | None:
        return ScriptSource(case.deals[number].steps) if number <= last else None

    return _drive(engine, case, sources, mode, with_legal)


@attrs.define
class RandomSource:
    """Biased random choices that reach the rare rules, and the probes of illegal actions."""

    rng: random.Random
    per_deal: int
    """About how many illegal actions to probe in each deal (0: none)."""
    rate: float = 0.0
    all_pass: bool = False
    plan: list[Bid | Play] = attrs.Factory(list)
    """Moves chosen ahead (last first), to reach a tiebreak deal."""

    def before_deal(self, state: MatchState) -> list[Step]:
        """Sometimes an action before the deal; always one after the match."""
        if not self.per_deal:
            return []
        if state.is_over:
            return [self._any_probe()]
        if self.rng.random() < 0.2:
            return [self._any_probe(deals=False)]
        return []

    def _any_probe(self, *, deals: bool = True) -> Step:
        rng = self.rng
        kind = rng.choice(("bid", "play", "deal") if deals else ("bid", "play"))
        value = rng.randrange(len(CARDS)) if kind == "play" else rng.randrange(-1, 4)
        return ("probe", rng.randrange(4), kind, value)

    def deck(self, state: MatchState) -> tuple[Card, ...]:
        """A biased deck; before a match's last deal, sometimes one planned to end level."""
        rules = state.rules
        self.plan = []
        if (
            rules.tie is TiePolicy.TIEBREAK_DEAL
            and state.counted_deals >= rules.deals - 1
            and state.hand_size <= _PLANNED_HAND_SIZE
            and self.rng.random() < 0.5
        ):
            planned = self._plan_level(state)
            if planned is not None:
                return planned
        return self._deck(state)

    def _plan_level(self, state: MatchState) -> tuple[Card, ...] | None:
        """A deck and moves that leave the match level, so that a tiebreak deal follows.

        Level means tied totals after the last deal, or equal tricks in a tiebreak
        deal; found by playing random deals ahead on the reference.
        """
        for _ in range(_PLAN_TRIES):
            deck = self._deck(state)
            moves: list[Bid | Play] = []
            playing = apply(state, Deal(deck))
            while playing.deal is not None:
                move = self._choose(playing, legal_actions(playing))
                moves.append(move)
                playing = apply(playing, move)
            if playing.outcome is None and playing.counted_deals >= state.rules.deals:
                moves.reverse()
                self.plan = moves
                # The probes are drawn as if this were any other deal.
                self.rate = self.per_deal / (4 + 4 * state.hand_size)
                return deck
        return None

    def _deck(self, state: MatchState) -> tuple[Card, ...]:
        rng = self.rng
        size = state.hand_size
        dealt = 4 * size
        deck = list(CARDS)
        rng.shuffle(deck)

        def put(card: Card, position: int) -> None:
            where = deck.index(card)
            deck[where], deck[position] = deck[position], deck[where]

        roll = rng.random()
        if roll < 0.15:
            # A turned joker: no trumps, and the other joker, if dealt, is swapped.
            joker, other = rng.choice(((Card.BIG, Card.LITTLE), (Card.LITTLE, Card.BIG)))
            put(joker, dealt)
            if rng.random() < 0.7:
                put(other, rng.randrange(dealt))
        elif roll < 0.3:
            # One hand of nothing but trumps (jokers included).
            turned = CARDS[rng.randrange(52)]
            put(turned, dealt)
            suit = turned.suit
            trumps = [c for c in CARDS if c.suit is suit and c is not turned]
            trumps += [Card.BIG, Card.LITTLE]
            rng.shuffle(trumps)
            offset = rng.randrange(4)
            for index in range(size):
                put(trumps[index], offset + 4 * index)
        elif roll < 0.6:
            for joker in (Card.BIG, Card.LITTLE):
                if rng.random() < 0.7:
                    put(joker, rng.randrange(dealt))
        self.all_pass = rng.random() < 0.08
        self.rate = self.per_deal / (4 + dealt)
        return tuple(deck)

    def probes(self, state: MatchState, legal: tuple[Bid | Play | Deal, ...]) -> list[Step]:
        """Now and then an illegal action: most often a held card a play rule forbids."""
        rng = self.rng
        if not self.per_deal or rng.random() >= self.rate:
            return []
        current = state.deal
        assert current is not None and state.to_move is not None
        roll = rng.random()
        if current.leader is None:
            size = current.setup.hand_size
            if roll < 0.35:
                return [("probe", 0, "bid", rng.randrange(size, min(size + 3, 99) + 1))]
            if roll < 0.7:
                return [("probe", rng.randrange(1, 4), "bid", rng.randrange(-1, size))]
            if roll < 0.9:
                held = current.hands[state.to_move]
                return [("probe", 0, "play", rng.choice(_bits(held)))]
            return [("probe", 0, "deal", 0)]
        held = current.hands[state.to_move]
        allowed = 0
        for action in legal:
            allowed |= 1 << action.card  # type: ignore[union-attr]
        refused = held & ~allowed
        if refused and roll < 0.6:
            return [("probe", 0, "play", rng.choice(_bits(refused)))]
        if roll < 0.75:
            offset = rng.randrange(1, 4)
            other = current.hands[(state.to_move + offset) % 4]
            if other:
                return [("probe", offset, "play", rng.choice(_bits(other)))]
        if roll < 0.9:
            missing = ((1 << len(CARDS)) - 1) & ~held
            return [("probe", 0, "play", rng.choice(_bits(missing)))]
        if roll < 0.95:
            return [("probe", 0, "bid", 0)]
        return [("probe", 0, "deal", 0)]

    def move(self, state: MatchState, legal: tuple[Bid | Play | Deal, ...]) -> Bid | Play:
        """The planned move, or a biased random one."""
        if self.plan:
            return self.plan.pop()
        return self._choose(state, legal)

    def _choose(self, state: MatchState, legal: tuple[Bid | Play | Deal, ...]) -> Bid | Play:
        random_ = self.rng.random
        first = legal[0]
        count = len(legal)
        if type(first) is Bid:
            if self.all_pass:
                return first
            roll = random_()
            if roll < 0.15:
                return legal[-1]  # type: ignore[return-value]
            if roll < 0.45:
                return first
            return legal[int(random_() * count)]  # type: ignore[return-value]
        if count == 1:
            return first  # type: ignore[return-value]
        # Plays come in card order, so the jokers, if any, are last.
        last = legal[-1]
        if last.card >= _LITTLE and random_() < 0.5:  # type: ignore[union-attr]
            if legal[-2].card >= _LITTLE and random_() < 0.5:  # type: ignore[union-attr]
                return legal[-2]  # type: ignore[return-value]
            return last  # type: ignore[return-value]
        current = state.deal
        assert current is not None
        if not current.trick and random_() < 0.3:
            trumps = current.setup.trumps
            leads = [a for a in legal if trumps >> a.card & 1]  # type: ignore[union-attr]
            if leads:
                return leads[int(random_() * len(leads))]  # type: ignore[return-value]
        return legal[int(random_() * count)]  # type: ignore[return-value]

    def done(self) -> bool:
        """Always: random choices never run out."""
        return True


_LITTLE: Final = min(Card.LITTLE, Card.BIG)
_PLANNED_HAND_SIZE: Final = 7
"""Level deals are looked for up to this hand size, where they are likely enough."""
_PLAN_TRIES: Final = 30


def _bits(mask: int) -> list[int]:
    return [index for index in range(len(CARDS)) if mask >> index & 1]


_MIXED_SCHEDULES: Final = ("standard", "short", "twenty-five")


def draw_rules(rng: random.Random, settings: Settings) -> Rules:
    """The rules of the next match: as set, or drawn (small schedules often)."""
    tie = rng.choice((TiePolicy.DRAW, TiePolicy.TIEBREAK_DEAL))
    dealer = rng.choice(SEATS)
    if settings.rules is not None:
        if not settings.schedule_only:
            return settings.rules
        return Rules(schedule=settings.rules.schedule, tie=tie, first_dealer=dealer)
    roll = rng.random()
    if roll < 0.25:
        schedule: Any = SCHEDULES[rng.choice(_MIXED_SCHEDULES)]
    else:
        length = rng.randint(1, 4)
        schedule = [min(13, int(rng.expovariate(0.3)) + 1) for _ in range(length)]
    return Rules(schedule=schedule, tie=tie, first_dealer=dealer)


@attrs.frozen
class _Run:
    """What every match of a run shares: the engine command and how to compare."""

    command: str
    mode: Mode
    with_legal: bool
    timeout: float
    shrink_budget: int


def fuzz(
    engine_command: str,
    settings: Settings,
    *,
    timeout: float = 10.0,
    progress: Callable[[int, int, float], None] | None = None,
) -> FuzzResult:
    """Fuzz an engine command; a difference is shrunk before it is returned.

    Raises :class:`ProtocolBroken` if the engine breaks the protocol.
    ``progress(matches, requests, seconds)`` is called after each match.
    """
    rng = random.Random(settings.seed)
    started = time.perf_counter()
    engine = EngineProcess(engine_command, timeout=timeout)
    try:
        capabilities = handshake(engine)
        mode = settings.mode
        if mode is Mode.STRICT and "reasons" not in capabilities:
            raise ProtocolBroken(
                "the engine does not announce the 'reasons' capability: "
                "use --reasons legality or off"
            )
        run = _Run(engine_command, mode, "legal" in capabilities, timeout, settings.shrink_budget)
        probes = 0 if mode is Mode.OFF else settings.probes
        for played in range(settings.matches):
            rules = draw_rules(rng, settings)
            case = Case(rules, rng.randrange(1 << 63), ())
            found = _fuzz_match(engine, case, RandomSource(rng, probes), run)
            if found is not None:
                difference = _shrunk(found, run)
                return FuzzResult(
                    played + 1, engine.sent, time.perf_counter() - started, difference
                )
            if progress is not None:
                progress(played + 1, engine.sent, time.perf_counter() - started)
        return FuzzResult(settings.matches, engine.sent, time.perf_counter() - started, None)
    finally:
        engine.close()


def _fuzz_match(
    engine: EngineProcess, case: Case, source: RandomSource, run: _Run
) -> tuple[Case, str, MatchState] | None:
    return _drive(engine, case, lambda _: source, run.mode, run.with_legal)


def _shrunk(found: tuple[Case, str, MatchState], run: _Run) -> Difference:
    engines: list[EngineProcess] = []

    def attempt(candidate: Case) -> tuple[Case, str, MatchState] | None:
        # A fresh engine process for the shrinking, restarted whenever a candidate
        # crashes it: a crash on another case is not the difference being shrunk.
        if not engines:
            engines.append(EngineProcess(run.command, timeout=run.timeout))
            handshake(engines[0])
        try:
            return run_case(engines[0], candidate, run.mode, with_legal=run.with_legal)
        except Invalid:
            return None
        except ProtocolBroken:
            engines.pop().close()
            return None

    try:
        case, message, state = shrink(found, attempt, run.shrink_budget)
    finally:
        for engine in engines:
            engine.close()
    requests = tuple(case.request_lines(with_legal=run.with_legal))
    return Difference(message, case, record_text(state), requests, found[0].actions)


def replay_lines(engine: EngineProcess, lines: list[bytes], mode: Mode) -> str | None:
    """Send recorded request lines to the engine and to the reference; the first difference.

    ``hello`` and ``bye`` lines are skipped; a line that is not a request of
    the protocol is a ValueError.
    """
    session = Session()
    items: list[Item] = []
    for given in lines:
        if not given.strip():
            continue
        line = given.rstrip(b"\r\n") + b"\n"
        before = session.state
        reply = session.answer(line[:-1])
        request = json.loads(line)
        if json.loads(reply)["type"] == "error":
            raise ValueError(f"not a request of the protocol: {line[:120]!r}")
        kind = request["type"]
        if kind in ("hello", "bye"):
            continue
        action = parse_action(request["action"]) if kind == "apply" else None
        if kind == "apply" and reply is not OK_LINE:
            kind = "probe"
        if kind == "new_match":
            kind = "apply"
        state = session.state if before is None or kind == "facts" else before
        assert state is not None
        items.append(Item(kind, line, reply, action, state, 0))
    lines = [item.line for item in items]
    expected = [item.expected for item in items]
    found = _check(engine, lines, expected, lambda: items, mode)
    return None if found is None else found[1]


def describe(case: Case) -> str:
    """A case in a few words: its deals and actions."""
    deals = len([script for script in case.deals if script.steps])
    return f"{deals} deal{'s' if deals != 1 else ''}, {case.actions} actions"
