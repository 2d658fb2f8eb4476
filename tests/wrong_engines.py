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

from backalley.core import bidding, dealing, position
from backalley.core.bidding import BOARD, contract_terms
from backalley.core.cards import Card, Seat
from backalley.core.errors import Reason
from backalley.core.position import (
    BIDS,
    COUNTED,
    DEALER,
    DRAW,
    GOING_ON,
    HANDS,
    OUTCOME,
    OVER,
    PLAY,
    RULES,
    TIEBREAK,
    TRUMPS,
)
from backalley.core.tricks import allowed_plays
from backalley.engine import match
from backalley.protocol import server
from backalley.protocol.messages import OK_LINE, encode
from backalley.protocol.server import Session, serve

# The rules are applied on the compact position (``core.position``): each wrong engine
# replaces one of the functions it calls, as a module attribute, so that the engine,
# its legal actions and the public state made from the position all follow the change.
_allowed_of = position.allowed_of


def _replace(module, name, new):
    """Put ``new`` in the place of ``module.name``, which must exist (a renamed function
    would otherwise be patched in vain, and the engine would not be wrong at all)."""
    if not hasattr(module, name):
        raise SystemExit(f"wrong_engines: {module.__name__} has no {name} to replace")
    setattr(module, name, new)


def _with(pos, **fields):
    changed = list(pos)
    for name, value in fields.items():
        changed[getattr(position, name.upper())] = value
    return tuple(changed)


def _ignoring(reason: Reason):
    """``allowed_of`` that lets any held card through where ``reason`` would refuse."""

    def allowed(pos, seat, trick):
        cards, why = _allowed_of(pos, seat, trick)
        if why is reason:
            return pos[HANDS][seat], None
        return cards, why

    return allowed


def _no_swap(deck, **kwargs):
    setup = dealing.deal_hands(deck, **kwargs)
    if setup.swap is None:
        return setup
    hands = list(setup.hands)
    hands[setup.swap.seat] ^= (1 << setup.swap.joker) | (1 << setup.swap.received)
    return attrs.evolve(setup, hands=tuple(hands), swap=None)


_score_terms = position.score_terms


def _board_ignores_multiplier(target, multiplier, hand_size, tricks):
    return _score_terms(target, min(multiplier, 1), hand_size, tricks)


_opening_seat = bidding.opening_seat


def _first_board_leads(said):
    said = list(said)
    boards = [seat for seat, code in said if code == BOARD]
    if len(boards) >= 2:
        return boards[0]
    return _opening_seat(said)


def _first_board_leads_everywhere():
    # The position finds the opening leader, and so does the public deal made from it.
    _replace(position, "opening_seat", _first_board_leads)
    _replace(bidding, "opening_seat", _first_board_leads)


_bid = position.bid


def _four_passes_played(pos, code):
    """MATCH-3 broken: four passes do not throw the deal in; the dealer's left leads."""
    if len(pos[BIDS]) == 3 and code == 0 and not any(pos[BIDS]):
        return _with(pos, bids=(0, 0, 0, 0), phase=PLAY, leader=(pos[DEALER] + 1) % 4)
    return _bid(pos, code)


_finish = position._finish


def _tie_is_a_draw(pos):
    """END-3 broken: equal totals after the schedule are a draw, with no tiebreak deal."""
    following = _finish(pos)
    if following[OUTCOME] == GOING_ON and following[COUNTED] >= following[RULES].deals:
        return _with(following, phase=OVER, outcome=DRAW)
    return following


def _level_tiebreak_is_a_draw(pos):
    """END-4 broken: a tiebreak deal with equal tricks ends the match as a draw."""
    following = _finish(pos)
    if pos[TIEBREAK] and following[OUTCOME] == GOING_ON:
        return _with(following, phase=OVER, outcome=DRAW)
    return following


_winning_card = position.winning_card


def _little_beats_big(cards, trumps):
    swapped = tuple(
        Card.BIG if card == Card.LITTLE else Card.LITTLE if card == Card.BIG else card
        for card in cards
    )
    return _winning_card(swapped, trumps)


_not_your_turn = match._not_your_turn


def _wrong_phase_for_turn(action, seat):
    """Refuse an action out of turn, but give the reason code of the wrong phase."""
    error = _not_your_turn(action, seat)
    error.reason = Reason.WRONG_PHASE
    return error


def _lone_big_not_forced(pos, seat, trick):
    """JOKER-2 broken: after a LITTLE lead, a player whose only trump is BIG plays anything."""
    cards, why = _allowed_of(pos, seat, trick)
    if why is Reason.LITTLE_JOKER_FORCES_LOWEST and cards == 1 << Card.BIG:
        return pos[HANDS][seat], None
    return cards, why


def _board_bidder_banned(pos, seat, trick):
    """PLAY-5 broken: a Board bidder may not lead trumps before they are broken."""
    return allowed_plays(pos[HANDS][seat], trick, pos[TRUMPS], pos[position.BROKEN], False)


_deal_scores = position.deal_scores


def _passing_pair_against_a_board(pos):
    """SCORE-3 broken: a pair that passed twice scores nothing when the other pair bid Board."""
    scores = list(_deal_scores(pos))
    bids = pos[BIDS]
    if len(bids) == 4:
        first = pos[DEALER] + 1
        terms = contract_terms(((first + i) % 4, bids[i]) for i in range(4))
        for pair in (0, 1):
            (target, multiplier), theirs = terms[pair], terms[1 - pair]
            if multiplier == 0 and target == 0 and theirs[1]:
                scores[pair] = 0
    return tuple(scores)


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
        lambda: _replace(position, "allowed_of", _ignoring(Reason.MUST_FOLLOW_SUIT)),
    ),
    "follow_trump": (
        "PLAY-3",
        lambda: _replace(position, "allowed_of", _ignoring(Reason.MUST_FOLLOW_TRUMP)),
    ),
    "trumps_broken": (
        "PLAY-4",
        lambda: _replace(position, "allowed_of", _ignoring(Reason.TRUMPS_NOT_BROKEN)),
    ),
    "big_joker": (
        "JOKER-1",
        lambda: _replace(position, "allowed_of", _ignoring(Reason.BIG_JOKER_FORCES_HIGHEST)),
    ),
    "little_joker": (
        "JOKER-2",
        lambda: _replace(position, "allowed_of", _ignoring(Reason.LITTLE_JOKER_FORCES_LOWEST)),
    ),
    "no_swap": ("DEAL-4", lambda: _replace(match, "deal_hands", _no_swap)),
    "board_multiplier": (
        "SCORE-4",
        lambda: _replace(position, "score_terms", _board_ignores_multiplier),
    ),
    "no_throw_in": ("MATCH-3", lambda: _replace(position, "bid", _four_passes_played)),
    "first_board_leads": ("BID-8", _first_board_leads_everywhere),
    "no_tiebreak": ("END-3", lambda: _replace(position, "_finish", _tie_is_a_draw)),
    "level_tiebreak_draw": (
        "END-4",
        lambda: _replace(position, "_finish", _level_tiebreak_is_a_draw),
    ),
    "lone_big_not_forced": (
        "JOKER-2",
        lambda: _replace(position, "allowed_of", _lone_big_not_forced),
    ),
    "board_bidder_banned": (
        "PLAY-5",
        lambda: _replace(position, "allowed_of", _board_bidder_banned),
    ),
    "passing_pair_vs_board": (
        "SCORE-3",
        lambda: _replace(position, "deal_scores", _passing_pair_against_a_board),
    ),
    "little_beats_big": ("PLAY-8", lambda: _replace(position, "winning_card", _little_beats_big)),
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


def _reworded() -> None:
    """A right engine that words everything its own way: refusal messages of its own, keys
    in another order, spaces after separators, legal actions in reverse."""
    right_answer = Session.answer

    def answer(self, line):
        reply = json.loads(right_answer(self, line))
        if reply["type"] == "refused":
            reply = {
                "message": f"no: {reply['reason']}",
                "reason": reply["reason"],
                "type": "refused",
            }
        if reply["type"] == "legal":
            reply["actions"].reverse()
        return json.dumps(reply, separators=(", ", ": ")).encode() + b"\n"

    Session.answer = answer


CORRECT = {"minimal": _minimal, "reworded": _reworded}
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
