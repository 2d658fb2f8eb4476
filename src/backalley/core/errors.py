"""Refusals: the one exception for an illegal action, and its reason codes.

``apply`` refuses an action the rules forbid by raising :class:`IllegalAction`,
a :class:`ValueError` subclass, so callers may catch either. It carries a
machine-readable :class:`Reason`, the refused action, and a sentence a player
understands. Framework refusals (whose turn, which phase) are kept apart from
the game's own rules, as boardgame.io does with its ``action/...`` codes.

Bad input that is not an action of the game at all (a string instead of an
action, a 53-card deck, a hand size of 14) is refused with a plain
``TypeError`` or ``ValueError`` saying what was wrong: there is no rule to cite.
"""

from __future__ import annotations

import enum

__all__ = ["IllegalAction", "Reason"]


class Reason(enum.StrEnum):
    """Why an action was refused. The value is the stable machine-readable code."""

    # Framework: who may act, and when.
    NOT_YOUR_TURN = "not_your_turn"
    WRONG_PHASE = "wrong_phase"
    MATCH_OVER = "match_over"
    # Bidding.
    BID_OUT_OF_RANGE = "bid_out_of_range"
    # Play.
    CARD_NOT_IN_HAND = "card_not_in_hand"
    MUST_FOLLOW_SUIT = "must_follow_suit"
    MUST_FOLLOW_TRUMP = "must_follow_trump"
    TRUMPS_NOT_BROKEN = "trumps_not_broken"
    BIG_JOKER_FORCES_HIGHEST = "big_joker_forces_highest"
    LITTLE_JOKER_FORCES_LOWEST = "little_joker_forces_lowest"

    @property
    def framework(self) -> bool:
        """True for refusals about turn order and phase rather than a rule of play."""
        return self in _FRAMEWORK


_FRAMEWORK = frozenset({Reason.NOT_YOUR_TURN, Reason.WRONG_PHASE, Reason.MATCH_OVER})


class IllegalAction(ValueError):
    """An action the rules do not allow in this state.

    ``reason`` is the machine-readable :class:`Reason`, ``action`` the refused
    action and ``message`` the sentence for a player.
    """

    def __init__(self, reason: Reason, action: object, message: str) -> None:
        super().__init__(f"{message} [{reason.value}]")
        self.reason = reason
        self.action = action
        self.message = message
