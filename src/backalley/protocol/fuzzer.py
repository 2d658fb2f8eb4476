"""The differential fuzzer: matches played through an engine under test and through ours.

Each match is played deal by deal through the reference
(:class:`~backalley.protocol.server.Session`) and through the engine, with
the biased choices and illegal-action probes of :mod:`.choices`. Every deal's
requests are sent at once; the replies are compared with the reference's
(:mod:`.compare`): the legal actions at every decision point, every accepted
action and refusal, and the facts after every deal is dealt and after it ends.
The first difference is shrunk (:mod:`.shrink`) and reported with its position
and the rule of ``docs/rules.md`` it concerns.
"""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Final

import attrs

from ..core.cards import Card
from ..core.rules import Rules
from ..engine.bounds import check_bounds
from ..engine.state import MatchState
from ._codec import record_text
from .cases import (
    Case,
    DealScript,
    Invalid,
    Item,
    ScriptSource,
    Source,
    Walked,
    new_match_line,
    walk_deal,
)
from .choices import RandomSource, draw_rules
from .client import EngineProcess, ProtocolBroken
from .compare import Mode, compare, locate, rule_of, same_meaning
from .diagnose import BOARD_RULES, EXPERIMENTS, board_rule
from .messages import (
    OK_LINE,
    PROTOCOL,
    VERSION,
    parse_action,
)
from .server import Session
from .shrink import cited_rule, shrink

__all__ = [
    "RARE_EVENTS",
    "SAFE_SEEDS",
    "STARTUP_TIMEOUT",
    "Difference",
    "FuzzResult",
    "Mode",
    "Settings",
    "describe",
    "fuzz",
    "handshake",
    "locate",
    "rare_events",
    "reference_matches",
    "replay_lines",
    "rule_of",
    "run_case",
]

SAFE_SEEDS: Final = 1 << 53
"""The fuzzer's match seeds are below 2**53: a JSON reader that makes numbers doubles
(JavaScript's ``JSON.parse``) still reads them exactly (``docs/protocol.md``, RULES)."""

STARTUP_TIMEOUT: Final = 20.0
"""Seconds an engine may take to start and answer ``hello``."""


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
        raise ProtocolBroken(
            f"the engine does not say hello in {PROTOCOL}: {json.dumps(reply)[:200]}"
        )
    if reply == hello or "version" not in reply:
        # A hello reply names the one version the engine chose; the request lists them.
        echoed = " (it sent the request back, as `cat` does)" if reply == hello else ""
        raise ProtocolBroken(f"the engine's reply to hello was not a hello{echoed}: no version")
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
    replies = engine.exchange_expecting(lines, b"".join(expected))
    if replies is None or replies == expected:
        # The common case, compared in one go.
        return None
    # Replies that differ in bytes only (a refusal's message, spacing, the order of the
    # legal actions) are compared by meaning first: the deal is replayed on the reference
    # for its details only when one differs in meaning, not for every reworded refusal.
    if all(
        got == want or same_meaning(got, want, mode)
        for got, want in zip(replies, expected, strict=True)
    ):
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


def _drive(  # noqa: PLR0913 - the run's settings, passed down as the callers hold them
    engine: EngineProcess,
    case: Case,
    sources: Callable[[int], Source | None],
    mode: Mode,
    with_legal: bool,
    *,
    with_view: bool = False,
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
        # A match of throw-ins or tiebreaks without end is stopped here, between deals.
        check_bounds(before)
        walked = walk_deal(session, source, with_legal=with_legal, with_view=with_view)
        if isinstance(source, ScriptSource) and not source.done():
            raise Invalid("the script does not fit the match")

        def details(
            walked: Walked = walked, before: MatchState | None = before, head: list[Item] = head
        ) -> list[Item]:
            again = Session()
            again.state = before
            steps = ScriptSource(walked.script.steps)
            items = walk_deal(
                again, steps, with_legal=with_legal, detail=True, with_view=with_view
            ).items
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
    engine: EngineProcess,
    case: Case,
    mode: Mode,
    *,
    with_legal: bool = True,
    with_view: bool = False,
) -> tuple[Case, str, MatchState] | None:
    """Play a case through the engine; None if the engine agrees throughout.

    Otherwise the case cut at its first difference, the message and the
    reference position there. A case that does not fit its rules raises
    :class:`Invalid`.
    """
    last = len(case.deals) - 1

    def sources(number: int) -> Source | None:
        return ScriptSource(case.deals[number].steps) if number <= last else None

    return _drive(engine, case, sources, mode, with_legal, with_view=with_view)


@attrs.frozen
class _Run:
    """What every match of a run shares: the engine command and how to compare."""

    command: str
    mode: Mode
    with_legal: bool
    timeout: float
    shrink_budget: int
    with_view: bool = False
    """Whether the engine answers ``view`` (capability ``view``): every seat's is compared."""


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
        run = _Run(
            engine_command,
            mode,
            "legal" in capabilities,
            timeout,
            settings.shrink_budget,
            "view" in capabilities,
        )
        probes = 0 if mode is Mode.OFF else settings.probes
        for played in range(settings.matches):
            rules = draw_rules(rng, settings.rules, settings.schedule_only, played)
            case = Case(rules, rng.randrange(SAFE_SEEDS), ())
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


def reference_matches(settings: Settings) -> Iterator[MatchState]:
    """The final states of the matches a run with ``settings`` plays, on the reference alone.

    The same random draws as :func:`fuzz` against an engine that agrees throughout,
    so the coverage of a run (``rare_events``) is measured without an engine.
    """
    rng = random.Random(settings.seed)
    probes = 0 if settings.mode is Mode.OFF else settings.probes
    for number in range(settings.matches):
        rules = draw_rules(rng, settings.rules, settings.schedule_only, number)
        seed = rng.randrange(SAFE_SEEDS)
        session = Session()
        session.answer(new_match_line(rules, seed))
        source = RandomSource(rng, probes)
        while walk_deal(session, source).script.kind != "open":
            assert session.state is not None
            # A match of throw-ins or tiebreaks without end is stopped here, between deals.
            check_bounds(session.state)
        assert session.state is not None
        yield session.state


RARE_EVENTS: Final = (
    "tiebreak deal of 1 card",
    *(f"tiebreak deal of {size} cards" for size in range(2, 14)),
    "level tiebreak deal (END-4)",
    "level totals under draw (END-2)",
    "four Boards",
    "two throw-ins in a row",
    "joker turned",
    "joker swapped",
    "a lone BIG after a LITTLE lead",
)
"""The rare endings and deals the default run must reach (``docs/protocol.md``)."""


def rare_events(state: MatchState) -> Counter[str]:
    """How often each of :data:`RARE_EVENTS` happens in a finished match."""
    found: Counter[str] = Counter()
    thrown_before = False
    for result in state.history:
        deal = result.deal
        setup = deal.setup
        if setup.tiebreak:
            size = setup.hand_size
            found["tiebreak deal of 1 card" if size == 1 else f"tiebreak deal of {size} cards"] += 1
            ns, ew = deal.tricks_won
            if ns == ew:
                found["level tiebreak deal (END-4)"] += 1
        if deal.bids and all(bid.board for bid in deal.bids) and len(deal.bids) == 4:
            found["four Boards"] += 1
        if result.thrown_in and thrown_before:
            found["two throw-ins in a row"] += 1
        thrown_before = result.thrown_in
        if setup.turned.is_joker:
            found["joker turned"] += 1
        if setup.swap is not None:
            found["joker swapped"] += 1
        for trick in deal.tricks:
            if trick.cards[0] is Card.LITTLE and Card.BIG in trick.cards:
                found["a lone BIG after a LITTLE lead"] += 1
    outcome = state.outcome
    if outcome is not None and outcome.termination.value == "draw":
        found["level totals under draw (END-2)"] += 1
    return found


def _fuzz_match(
    engine: EngineProcess, case: Case, source: RandomSource, run: _Run
) -> tuple[Case, str, MatchState] | None:
    return _drive(engine, case, lambda _: source, run.mode, run.with_legal, with_view=run.with_view)


def _shrunk(found: tuple[Case, str, MatchState], run: _Run) -> Difference:
    engines: list[EngineProcess] = []

    def attempt(candidate: Case) -> tuple[Case, str, MatchState] | None:
        # A fresh engine process for the shrinking, restarted whenever a candidate
        # crashes it: a crash on another case is not the difference being shrunk.
        if not engines:
            engines.append(EngineProcess(run.command, timeout=run.timeout))
            handshake(engines[0])
        try:
            return run_case(
                engines[0],
                candidate,
                run.mode,
                with_legal=run.with_legal,
                with_view=run.with_view,
            )
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
    requests = tuple(case.request_lines(with_legal=run.with_legal, with_view=run.with_view))
    message = _diagnosed(message, run)
    return Difference(message, case, record_text(state), requests, found[0].actions)


def _diagnosed(message: str, run: _Run) -> str:
    """The message, its rule made sure by one-card deals when it is a Board's score.

    A wrong Board score fits several rules (:mod:`.diagnose`); the engine is asked
    the deals that tell them apart, and the first it scores wrong names the rule.
    """
    rule = cited_rule(message)
    if rule not in BOARD_RULES or "deal_scores" not in message:
        return message
    found = board_rule(run.command, run.timeout, handshake)
    if found is None or found == rule:
        return message
    says = next(test.says for test in EXPERIMENTS if test.rule == found)
    head = message.rstrip()[: -len(f" ({rule})")]
    return f"{head}; on one-card deals, {says} ({found})"


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
        state = session.state if before is None or kind in ("facts", "view") else before
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
