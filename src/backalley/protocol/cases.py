"""Fuzz cases: what the fuzzer plays, and the messages and expected replies it makes.

A :class:`Case` is the rules and, deal by deal, a script of steps: the deck
dealt, the moves chosen (by action index, so that a deal replays the same way
whoever deals it) and the illegal actions probed. :func:`walk_deal` runs one
deal's script, or chooses it as it goes, through the reference
:class:`~backalley.protocol.server.Session`, and gives the request lines for the
engine with the reply the reference gives to each.
"""

from __future__ import annotations

from typing import Any, Final, Literal, NamedTuple, Protocol

import attrs

from ..core.action_index import NUM_ACTION_INDICES, action_index, index_action
from ..core.actions import Bid, Deal, Play, shared_bid, shared_play
from ..core.cards import CARDS, SEATS, Card
from ..core.position import TRICK, WON_EW, WON_NS
from ..core.rules import Rules
from ..engine.match import apply, legal_actions
from ..engine.state import MatchState
from ._codec import rules_to_json
from .messages import (
    APPLY_LINES,
    LEGAL_REQUEST,
    NO_LEGAL_LINE,
    OK_LINE,
    action_slot,
    action_text,
    encode,
    facts_line,
    legal_line,
    view_line,
)
from .server import Session

__all__ = [
    "PROBE_DECK",
    "Case",
    "DealScript",
    "Invalid",
    "Item",
    "Step",
    "Walked",
    "probe_action",
    "walk_deal",
]

Step = tuple[Any, ...]
"""``("deal", deck)``, ``("move", action index)`` or ``("probe", offset, kind, value)``.

A probe is an action the rules refuse: ``kind`` is ``"bid"`` (``value`` the
amount, -1 for Board), ``"play"`` (``value`` the card number) or ``"deal"``; it
is made by the seat ``offset`` places clockwise from the seat to move (from the
first bidder between deals).
"""

PROBE_DECK: Final = Deal(CARDS)
"""The deck of a probing deal: every card in card order."""

DealKind = Literal["counted", "thrown", "tiebreak", "open"]


@attrs.frozen
class DealScript:
    """One deal of a case: its steps, its hand size and how it ended."""

    steps: tuple[Step, ...]
    hand_size: int
    kind: DealKind
    tiebreak: bool = False


@attrs.frozen
class Case:
    """A match to play through an engine: the rules, the seed and each deal's script."""

    rules: Rules
    seed: int
    deals: tuple[DealScript, ...]

    @property
    def actions(self) -> int:
        """How many actions the case sends: deals, moves and probes."""
        return sum(len(script.steps) for script in self.deals)

    def request_lines(self, *, with_legal: bool = True, with_view: bool = False) -> list[bytes]:
        """The requests of the case, as the fuzzer sends them (after ``hello``)."""
        lines = [new_match_line(self.rules, self.seed)]
        session = Session()
        session.answer(lines[0])
        for script in self.deals:
            source = ScriptSource(script.steps)
            lines += walk_deal(session, source, with_legal=with_legal, with_view=with_view).lines
        return lines


class Invalid(Exception):
    """A script that does not fit the match it is played in (during shrinking)."""


class Item(NamedTuple):
    """One request, the reference's reply and where it was sent.

    ``kind`` is ``"apply"``, ``"legal"``, ``"facts"``, ``"view"`` or ``"probe"``
    (an apply the rules refuse); ``expected`` the reference's reply line; ``before`` the
    reference state the request was sent in; ``steps`` how many steps of the
    deal's script had been sent with it.
    """

    kind: str
    line: bytes
    expected: bytes
    action: Bid | Play | Deal | None
    before: MatchState
    steps: int


def new_match_line(rules: Rules, seed: int) -> bytes:
    """The ``new_match`` request line."""
    return encode({"type": "new_match", "rules": rules_to_json(rules), "seed": seed})


_LEGAL_LINE: Final = LEGAL_REQUEST + b"\n"
_FACTS_LINE: Final = encode({"type": "facts"})
_VIEW_LINES: Final = tuple(encode({"type": "view", "seat": seat.letter}) for seat in SEATS)


def apply_line(action: Bid | Play | Deal) -> bytes:
    """The ``apply`` request line of an action (a bid or play's from ``APPLY_LINES``)."""
    slot = action_slot(action)
    if slot < 0:
        return encode({"type": "apply", "action": action_text(action)})
    return APPLY_LINES[slot]


def probe_action(state: MatchState, offset: int, kind: str, value: int) -> Bid | Play | Deal:
    """The action a probe step stands for in ``state``."""
    if kind == "deal":
        return PROBE_DECK
    base = state.to_move
    if base is None:
        base = SEATS[(state.dealer + 1) % 4]
    seat = SEATS[(base + offset) % 4]
    if kind == "bid":
        return shared_bid(seat, 0, board=True) if value < 0 else shared_bid(seat, value)
    return shared_play(seat, CARDS[value])


class Source(Protocol):
    """Where a deal's steps come from: a script, or a chooser making them up."""

    def before_deal(self, state: MatchState) -> list[Step]:
        """Probes before the deal (or after the match)."""

    def deck(self, state: MatchState) -> tuple[Card, ...] | None:
        """The deck to deal, or None to stop here."""

    def probes(self, state: MatchState, legal: tuple[Bid | Play | Deal, ...]) -> list[Step]:
        """Probes at a decision point."""

    def move(self, state: MatchState, legal: tuple[Bid | Play | Deal, ...]) -> Bid | Play | None:
        """The move to make (one of ``legal``), or None to stop here."""

    def done(self) -> bool:
        """Whether every step was used (a script) or nothing more is wanted."""


class ScriptSource:
    """The steps of a script, in order; a step that does not fit raises :class:`Invalid`."""

    def __init__(self, steps: tuple[Step, ...]) -> None:
        self._steps = steps
        self._next = 0

    def _probes(self) -> list[Step]:
        found = []
        while self._next < len(self._steps) and self._steps[self._next][0] == "probe":
            found.append(self._steps[self._next])
            self._next += 1
        return found

    def before_deal(self, state: MatchState) -> list[Step]:
        return self._probes()

    def _take(self, kind: str, misfit: str) -> Step | None:
        """The next step, a ``kind`` step or ``Invalid(misfit)``; None after the last."""
        if self._next >= len(self._steps):
            return None
        step = self._steps[self._next]
        if step[0] != kind:
            raise Invalid(misfit)
        self._next += 1
        return step

    def deck(self, state: MatchState) -> tuple[Card, ...] | None:
        step = self._take("deal", "a move where a deal is due")
        if step is None:
            return None
        deck: tuple[Card, ...] = step[1]
        return deck

    def probes(self, state: MatchState, legal: tuple[Bid | Play | Deal, ...]) -> list[Step]:
        return self._probes()

    def move(self, state: MatchState, legal: tuple[Bid | Play | Deal, ...]) -> Bid | Play | None:
        step = self._take("move", "a deal where a move is due")
        if step is None:
            return None
        action = index_action(step[1], state.to_move)  # type: ignore[arg-type]
        if action not in legal:
            raise Invalid(f"{action} is not legal here")
        return action

    def done(self) -> bool:
        return self._next >= len(self._steps)


class Walked(NamedTuple):
    """One deal as walked: its script, the request lines and the reference's reply lines.

    ``items`` has the details of each request (with ``detail=True``), which are
    needed only to explain a difference.
    """

    script: DealScript
    lines: list[bytes]
    expected: list[bytes]
    items: list[Item] | None


class _Walk:
    """The steps, lines and items of one deal as it is walked."""

    def __init__(self, session: Session, detail: bool, with_view: bool = False) -> None:
        self.session = session
        self.with_view = with_view
        self.steps: list[Step] = []
        self.lines: list[bytes] = []
        self.expected: list[bytes] = []
        self.items: list[Item] | None = [] if detail else None

    def state(self) -> MatchState:
        state = self.session.state
        assert state is not None
        return state

    def add(
        self,
        kind: str,
        line: bytes,
        reply: bytes,
        action: Bid | Play | Deal | None,
        before: MatchState,
    ) -> None:
        self.lines.append(line)
        self.expected.append(reply)
        if self.items is not None:
            self.items.append(Item(kind, line, reply, action, before, len(self.steps)))

    def probe(self, step: Step) -> None:
        before = self.state()
        action = probe_action(before, step[1], step[2], step[3])
        reply = self.session.apply(action)
        if reply is OK_LINE:
            raise Invalid(f"the probe {action} is legal")
        self.steps.append(step)
        self.add("probe", apply_line(action), reply, action, before)

    def observe(self) -> None:
        after = self.state()
        self.add("facts", _FACTS_LINE, encode_facts(after), None, after)

    def views(self, seats: tuple[int, ...]) -> None:
        """What each of ``seats`` may know now (DEAL-5), when the engine answers ``view``."""
        if not self.with_view:
            return
        after = self.state()
        for seat in seats:
            self.add("view", _VIEW_LINES[seat], view_line(after, SEATS[seat]), None, after)

    def deal(self, deck: tuple[Card, ...]) -> None:
        before = self.state()
        action = Deal(deck)
        if self.session.apply(action) is not OK_LINE:
            raise Invalid("no deal is due")
        self.steps.append(("deal", deck))
        self.add("apply", apply_line(action), OK_LINE, action, before)
        self.observe()
        # Every seat's view once the cards are dealt: the swapper's differs (DEAL-5).
        self.views((0, 1, 2, 3))

    def done(self, hand_size: int, kind: DealKind, tiebreak: bool = False) -> Walked:
        script = DealScript(tuple(self.steps), hand_size, kind, tiebreak)
        return Walked(script, self.lines, self.expected, self.items)


def walk_deal(
    session: Session,
    source: Source,
    *,
    with_legal: bool = True,
    detail: bool = False,
    with_view: bool = False,
) -> Walked:
    """Play one deal (or the probes after the match) through the reference ``session``.

    The deal's script as played, and the requests to send with the reference's
    replies: the legal actions at every decision point (with ``with_legal``),
    each action, and the facts once the deal is dealt, after each trick and once it
    is over; with ``with_view``, every seat's view once the deal is dealt, the
    view of the seat to move after the first trick and one seat's after the deal.
    (Whose turn it is and what each player holds show in every list of legal
    actions.) The reference state moves on; a script that does not fit raises
    :class:`Invalid`. Walking the same script again from the same state gives
    the same requests, so ``detail`` is asked for only to explain a difference.
    """
    walk = _Walk(session, detail, with_view)
    lines, expected, items = walk.lines, walk.expected, walk.items
    state = walk.state()
    hand_size = state.hand_size
    if with_legal:
        walk.add("legal", _LEGAL_LINE, NO_LEGAL_LINE, None, state)
    for step in source.before_deal(state):
        walk.probe(step)
    deck = None if state.is_over else source.deck(state)
    if deck is None:
        return walk.done(hand_size, "open")
    walk.deal(deck)
    tiebreak = walk.state().setup.tiebreak  # type: ignore[union-attr]
    steps = walk.steps
    # The hot loop of the fuzzer: the appends are written out rather than calls of add.
    state = walk.state()
    while state.setup is not None:  # the deal goes on
        legal = legal_actions(state)
        if with_legal:
            lines.append(_LEGAL_LINE)
            reply = legal_line(legal)
            expected.append(reply)
            if items is not None:
                items.append(Item("legal", _LEGAL_LINE, reply, None, state, len(steps)))
        for step in source.probes(state, legal):
            walk.probe(step)
        move = source.move(state, legal)
        if move is None:
            return walk.done(hand_size, "open", tiebreak)
        # A legal move: applied without the refusal handling of Session.apply.
        session.state = after = apply(state, move)
        index = action_index(move)
        steps.append(("move", index))
        # apply_line(move) from the index at hand: a legal move is always in the table.
        line = APPLY_LINES[move.seat * NUM_ACTION_INDICES + index]
        lines.append(line)
        expected.append(OK_LINE)
        if items is not None:
            items.append(Item("apply", line, OK_LINE, move, state, len(steps)))
        if after.setup is None:  # the deal is over
            walk.observe()
            walk.views((after.deal_number % 4,))
        elif type(move) is Play and not after.position[TRICK]:
            # A trick is complete: its winner shows in the facts before the next lead,
            # so a wrong winner (CARD-2, CARD-3, PLAY-7) is told from a wrong leader (PLAY-8).
            walk.observe()
            pos = after.position
            if walk.with_view and pos[WON_NS] + pos[WON_EW] == 1 and after.to_move is not None:
                walk.views((after.to_move,))
        state = after
    if tiebreak:
        return walk.done(hand_size, "tiebreak", tiebreak)
    thrown = walk.state().history[-1].thrown_in
    return walk.done(hand_size, "thrown" if thrown else "counted")


def encode_facts(state: MatchState) -> bytes:
    """The ``facts`` reply for a state."""
    return facts_line(state)
