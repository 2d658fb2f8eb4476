"""Deliberately wrong engines for the fuzzer's tests: ours with one rule changed.

Run as a command, ``python tests/wrong_engines.py NAME`` serves the engine
protocol on stdin/stdout after changing one rule (``WRONG_RULES``), or
misbehaves at the protocol level (``BROKEN``). The test process keeps the
right rules: only this child process is patched.
"""

from __future__ import annotations

import json
import sys
import time

import attrs

import backalley.engine.state as state_module
from backalley.core import dealing
from backalley.core.cards import Card, Seat
from backalley.core.errors import Reason
from backalley.core.scoring import score
from backalley.core.tricks import allowed_plays
from backalley.engine import match
from backalley.engine.state import Termination
from backalley.protocol import server
from backalley.protocol.messages import OK_LINE, encode
from backalley.protocol.server import Session, serve

_allowed = match._allowed


def _replace(module, name, new):
    """Put ``new`` in the place of ``module.name``, which must exist (a renamed function
    would otherwise be patched in vain, and the engine would not be wrong at all)."""
    if not hasattr(module, name):
        raise SystemExit(f"wrong_engines: {module.__name__} has no {name} to replace")
    setattr(module, name, new)


def _ignoring(reason: Reason):
    """``_allowed`` that lets any held card through where ``reason`` would refuse."""

    def allowed(current, seat):
        cards, why = _allowed(current, seat)
        if why is reason:
            return current.hands[seat], None
        return cards, why

    return allowed


def _no_swap(deck, **kwargs):
    setup = dealing.deal_hands(deck, **kwargs)
    if setup.swap is None:
        return setup
    hands = list(setup.hands)
    hands[setup.swap.seat] ^= (1 << setup.swap.joker) | (1 << setup.swap.received)
    return attrs.evolve(setup, hands=tuple(hands), swap=None)


def _board_ignores_multiplier(contract, *, hand_size, tricks):
    if contract.multiplier > 1:
        contract = attrs.evolve(contract, multiplier=1)
    return score(contract, hand_size=hand_size, tricks=tricks)


def _first_board_leads(bids):
    boards = [index for index, bid in enumerate(bids) if bid.board]
    if len(boards) >= 2:
        dealer_left = bids[0].seat
        return dealer_left.after(boards[0])
    return _opening_leader(bids)


_opening_leader = match.opening_leader
_finish_deal = match._finish_deal


def _tie_is_a_draw(core, finished):
    following = _finish_deal(core, finished)
    if following.outcome is None and following.in_tiebreak:
        return match._ended(following, Termination.DRAW, None)
    return following


def _little_beats_big(leader, trick, trump):
    cards = tuple(
        Card.BIG if card is Card.LITTLE else Card.LITTLE if card is Card.BIG else card
        for card in trick
    )
    return _trick_winner(leader, cards, trump)


_trick_winner = match.trick_winner
_not_your_turn = match._not_your_turn


def _wrong_phase_for_turn(action, seat):
    """Refuse an action out of turn, but give the reason code of the wrong phase."""
    error = _not_your_turn(action, seat)
    error.reason = Reason.WRONG_PHASE
    return error


def _level_tiebreak_is_a_draw(core, finished):
    """END-4 broken: a tiebreak deal with equal tricks ends the match as a draw."""
    following = _finish_deal(core, finished)
    if finished.setup.tiebreak and following.outcome is None:
        return match._ended(following, Termination.DRAW, None)
    return following


def _lone_big_not_forced(current, seat):
    """JOKER-2 broken: after a LITTLE lead, a player whose only trump is BIG plays anything."""
    cards, why = _allowed(current, seat)
    if why is Reason.LITTLE_JOKER_FORCES_LOWEST and cards == 1 << Card.BIG:
        return current.hands[seat], None
    return cards, why


def _board_bidder_banned(current, seat):
    """PLAY-5 broken: a Board bidder may not lead trumps before they are broken."""
    core = current.core
    return allowed_plays(current.hands[seat], current.trick, core.setup.trumps, core.broken, False)


_settle = state_module.DealState.settle


def _passing_pair_against_a_board(self):
    """SCORE-3 broken: a pair that passed twice scores nothing when the other pair bid Board."""
    scores = list(_settle(self))
    contracts = self.contracts
    if contracts is not None and self.is_complete:
        for pair in (0, 1):
            mine, theirs = contracts[pair], contracts[1 - pair]
            if mine.multiplier == 0 and mine.target == 0 and theirs.multiplier:
                scores[pair] = 0
    return tuple(scores)


def _settle_wrongly():
    _replace(state_module.DealState, "settle", _passing_pair_against_a_board)
    state_module.DealState.scores = _passing_pair_against_a_board


_rules_from_json = server.rules_from_json


def _north_deals_first(data, path="rules"):
    return attrs.evolve(_rules_from_json(data, path), first_dealer=Seat.NORTH)


WRONG_RULES = {
    "north_deals_first": (
        "MATCH-1",
        lambda: _replace(server, "rules_from_json", _north_deals_first),
    ),
    "follow_suit": (
        "PLAY-2",
        lambda: _replace(match, "_allowed", _ignoring(Reason.MUST_FOLLOW_SUIT)),
    ),
    "follow_trump": (
        "PLAY-3",
        lambda: _replace(match, "_allowed", _ignoring(Reason.MUST_FOLLOW_TRUMP)),
    ),
    "trumps_broken": (
        "PLAY-4",
        lambda: _replace(match, "_allowed", _ignoring(Reason.TRUMPS_NOT_BROKEN)),
    ),
    "big_joker": (
        "JOKER-1",
        lambda: _replace(match, "_allowed", _ignoring(Reason.BIG_JOKER_FORCES_HIGHEST)),
    ),
    "little_joker": (
        "JOKER-2",
        lambda: _replace(match, "_allowed", _ignoring(Reason.LITTLE_JOKER_FORCES_LOWEST)),
    ),
    "no_swap": ("DEAL-4", lambda: _replace(match, "deal_hands", _no_swap)),
    "board_multiplier": (
        "SCORE-4",
        lambda: _replace(state_module, "score", _board_ignores_multiplier),
    ),
    "no_throw_in": ("MATCH-3", lambda: _replace(match, "thrown_in", lambda bids: False)),
    "first_board_leads": ("BID-8", lambda: _replace(match, "opening_leader", _first_board_leads)),
    "no_tiebreak": ("END-3", lambda: _replace(match, "_finish_deal", _tie_is_a_draw)),
    "level_tiebreak_draw": (
        "END-4",
        lambda: _replace(match, "_finish_deal", _level_tiebreak_is_a_draw),
    ),
    "lone_big_not_forced": ("JOKER-2", lambda: _replace(match, "_allowed", _lone_big_not_forced)),
    "board_bidder_banned": ("PLAY-5", lambda: _replace(match, "_allowed", _board_bidder_banned)),
    "passing_pair_vs_board": ("SCORE-3", _settle_wrongly),
    "little_beats_big": ("PLAY-8", lambda: _replace(match, "trick_winner", _little_beats_big)),
    "wrong_reasons": ("", lambda: _replace(match, "_not_your_turn", _wrong_phase_for_turn)),
}
"""Each wrong engine: the rule it breaks, and how."""


def _minimal() -> None:
    """A right engine with no capabilities: no legal request, refusals without reasons."""
    server._HELLO = {**server._HELLO, "capabilities": []}
    right_apply = Session.apply

    def apply(self, action):
        reply = right_apply(self, action)
        if reply is OK_LINE:
            return reply
        return encode({**json.loads(reply), "reason": None})

    def legal(self):
        return encode({"type": "error", "message": "legal is not supported"})

    Session.apply = apply
    Session._legal = legal


CORRECT = {"minimal": _minimal}
"""Right engines that support only part of the protocol."""

BROKEN = ("garbage", "hang", "exit", "crash_later", "no_hello", "twice")


def _misbehave(name: str) -> None:
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    if name == "no_hello":
        stdin.readline()
        stdout.write(b'{"type":"facts"}\n')
        stdout.flush()
        time.sleep(30)
    if name == "exit":
        print("engine: giving up at once", file=sys.stderr)
        sys.exit(3)
    hello = stdin.readline()
    session = Session()
    stdout.write(session.answer(hello.rstrip(b"\n")))
    stdout.flush()
    if name == "garbage":
        stdin.readline()
        stdout.write(b"this is not json\n")
        stdout.flush()
        time.sleep(30)
    if name == "hang":
        # Reads everything, answers nothing, and never ends by itself.
        while stdin.readline():
            pass
        time.sleep(30)
    if name == "twice":
        # Every reply sent twice: the replies no longer match the requests.
        while line := stdin.readline():
            reply = session.answer(line.rstrip(b"\n"))
            stdout.write(reply + reply)
            stdout.flush()
    if name == "crash_later":
        for _ in range(200):
            line = stdin.readline()
            stdout.write(session.answer(line.rstrip(b"\n")))
        stdout.flush()
        raise RuntimeError("engine: an internal error after 200 requests")


def main(name: str) -> int:
    if name in WRONG_RULES:
        WRONG_RULES[name][1]()
        return serve(sys.stdin.buffer, sys.stdout.buffer)
    if name in CORRECT:
        CORRECT[name]()
        return serve(sys.stdin.buffer, sys.stdout.buffer)
    if name in BROKEN:
        _misbehave(name)
        return 0
    print(f"unknown engine {name!r}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
