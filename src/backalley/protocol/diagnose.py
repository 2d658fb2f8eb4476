"""Telling apart the rules a wrong Board score can break, by asking the engine again.

One wrong Board score can come from three rules: which Board has which multiplier
(BID-4), which of a pair's Boards counts (BID-5), or how a made or failed Board
scores (SCORE-4). A score of -10·h for a failed ×2 Board fits an engine that
scores every Board ×1 and one that forgets the multiplier of a failed Board
alike. So, once a difference in a Board's score is found, the engine is asked
three one-card deals whose scores only one reading gets wrong each
(:data:`EXPERIMENTS`), and the citation follows the first it gets wrong:

- ``made ×2``: a pair's lone ×2 Board made. Wrong: the multipliers (BID-4).
- ``failed ×2``: a pair's lone ×2 Board failed. Wrong, the made one right: how a
  failed Board scores (SCORE-4).
- ``two Boards``: partners each bid Board, ×1 and ×2, and make it. Wrong, the
  lone Boards right: which of the pair's Boards counts (BID-5).

When the engine scores all three right, the citation of :mod:`.compare` stands.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Final, NamedTuple

from ..core.actions import Deal, shared_bid, shared_play
from ..core.cards import CARDS, SEATS, Card
from ..core.rules import Rules
from .cases import apply_line, new_match_line
from .client import EngineProcess
from .messages import encode
from .server import Session

__all__ = ["BOARD_RULES", "EXPERIMENTS", "Experiment", "board_rule", "experiment_lines"]

BOARD_RULES: Final = frozenset({"BID-4", "BID-5", "SCORE-4"})
"""The rules a wrong Board score may cite, which :func:`board_rule` tells apart."""


class Experiment(NamedTuple):
    """A one-card deal dealt by North: East, South, West and North bid in that order.

    ``cards`` are East's, South's, West's and North's cards and the turned card
    (spades trumps: the 2 of spades); ``calls`` the bids (-1 Board, 0 Pass);
    ``pair`` the pair whose score is looked at (0 North-South, 1 East-West).
    """

    name: str
    cards: tuple[Card, Card, Card, Card, Card]
    calls: tuple[int, int, int, int]
    pair: int
    rule: str
    says: str


_BOARD: Final = -1
_TURNED: Final = Card.parse("2S")

EXPERIMENTS: Final = (
    # East Board x1, South Board x2 and leads BIG: South's lone x2 Board is made.
    Experiment(
        "made ×2",
        (Card.parse("3C"), Card.BIG, Card.parse("4C"), Card.parse("5C"), _TURNED),
        (_BOARD, _BOARD, 0, 0),
        0,
        "BID-4",
        "you score a lone ×2 Board, made, at another multiplier",
    ),
    # The same bids, but East holds BIG: South's lone x2 Board fails.
    Experiment(
        "failed ×2",
        (Card.BIG, Card.parse("3C"), Card.parse("4C"), Card.parse("5C"), _TURNED),
        (_BOARD, _BOARD, 0, 0),
        0,
        "SCORE-4",
        "you score a lone ×2 Board right made and wrong failed",
    ),
    # East Board x1, West Board x2 and leads BIG: East-West's two Boards, made.
    Experiment(
        "two Boards",
        (Card.parse("3C"), Card.parse("4C"), Card.BIG, Card.parse("5C"), _TURNED),
        (_BOARD, 0, _BOARD, 0),
        1,
        "BID-5",
        "you score lone Boards right and a pair's two Boards wrong",
    ),
)
"""The one-card deals asked, in order: the first the engine scores wrong decides."""

_RULES: Final = Rules(schedule=[1], first_dealer=SEATS[0])


def experiment_lines(experiment: Experiment) -> list[bytes]:
    """The requests of an experiment: the match, the deal, the bids, the card, the facts."""
    head = list(experiment.cards)
    deck = Deal((*head, *(card for card in CARDS if card not in head)))
    lines = [new_match_line(_RULES, 0), apply_line(deck)]
    for index, call in enumerate(experiment.calls):
        seat = SEATS[(1 + index) % 4]
        bid = shared_bid(seat, 0, board=True) if call == _BOARD else shared_bid(seat, call)
        lines.append(apply_line(bid))
    # The last Board bidder leads (BID-8), then clockwise, one card each.
    leader = max(index for index, call in enumerate(experiment.calls) if call == _BOARD)
    for turn in range(4):
        at = (leader + turn) % 4
        lines.append(apply_line(shared_play(SEATS[(1 + at) % 4], head[at])))
    lines.append(encode({"type": "facts"}))
    return lines


def _score(replies: list[bytes], pair: int) -> object:
    try:
        facts = json.loads(replies[-1])["facts"]
        return facts["deal_scores"][pair]
    except (ValueError, KeyError, IndexError, TypeError):
        return None


def board_rule(
    command: str, timeout: float, handshake_with: Callable[[EngineProcess], object]
) -> str | None:
    """The rule the first experiment the engine gets wrong points to, or None.

    ``handshake_with`` says hello to a fresh engine process (``fuzzer.handshake``).
    An engine that breaks the protocol here, or scores every experiment right,
    gives None: the first citation stands.
    """
    engine = EngineProcess(command, timeout=timeout)
    try:
        handshake_with(engine)
        for experiment in EXPERIMENTS:
            lines = experiment_lines(experiment)
            reference = Session()
            want = [reference.answer(line.rstrip(b"\n")) for line in lines]
            got = engine.exchange(lines)
            if _score(got, experiment.pair) != _score(want, experiment.pair):
                return experiment.rule
    except Exception:  # any failure here leaves the first citation as it was
        return None
    finally:
        engine.close()
    return None
