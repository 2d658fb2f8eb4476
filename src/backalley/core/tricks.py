"""Tricks: following suit, jokers as trumps, the trump-lead ban and the winner.

The rules (``docs/rules.md`` "Play", PLAY-1 to PLAY-8; ``000`` §04, ``001``, ``002``):

- The leader plays any legal card, then the others play clockwise.
- Follow the led suit if you can; if you cannot, play any card. When a trump or
  a joker is led, the led suit is trumps and the jokers count as trumps.
- No trump lead (jokers included) until a trump or joker was played to an
  earlier trick of this deal, except: a player who personally bid Board may
  lead trumps at once; a player holding only trumps may lead one.
- A joker lead forces the highest or lowest trump (see :mod:`backalley.core.jokers`).
- The highest trump in the trick wins; with no trump in it, the highest card of
  the led suit wins. The winner leads the next trick.

Every constraint on a card has exactly one reason, so :func:`allowed_plays`
returns the allowed cards and the reason any other card of the hand is refused;
``legal_actions`` and ``apply`` both use it, which is why they cannot disagree.

>>> from backalley.core.cards import Card, Seat, Suit
>>> Trick(Seat.NORTH, (Card.H5, Card.HK, Card.S2, Card.HA)).winner_under(Suit.SPADES)
Seat.SOUTH
>>> Trick(Seat.NORTH, (Card.H5, Card.HK, Card.C2, Card.HA)).winner_under(Suit.SPADES)
Seat.WEST
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import attrs

from .cards import CARDS, PACK_SIZE, SUIT_MASKS, Card, Seat, Suit, trump_mask
from .errors import Reason
from .flow import CLOCKWISE, player_to_move
from .jokers import forced_by_joker_lead

__all__ = [
    "FOLLOWERS",
    "Trick",
    "allowed_plays",
    "trick_winner",
    "tricks_per_pair",
    "winning_card",
]

_SUIT_MASK_OF: Final = tuple(
    SUIT_MASKS[card // 13] if card < Card.LITTLE else 0 for card in range(PACK_SIZE)
)
"""``_SUIT_MASK_OF[card]``: the mask of the card's plain suit; 0 for a joker, which has none.

A joker has a suit only as a trump. A deal without trumps has no joker in play
(DEAL-6, asserted by ``dealing.deal_hands``), but the table makes a joker led there
oblige nobody instead of failing on a missing suit.
"""

# What allowed_plays names at each call (the BIG joker, the reasons), bound by ``Final``:
# compiled, C statics, where an enum member is a lookup of its class and an attribute read.
_BIG: Final = int(Card.BIG)
_TRUMPS_NOT_BROKEN: Final = Reason.TRUMPS_NOT_BROKEN
_MUST_FOLLOW_SUIT: Final = Reason.MUST_FOLLOW_SUIT
_MUST_FOLLOW_TRUMP: Final = Reason.MUST_FOLLOW_TRUMP
_BIG_JOKER_FORCES_HIGHEST: Final = Reason.BIG_JOKER_FORCES_HIGHEST
_LITTLE_JOKER_FORCES_LOWEST: Final = Reason.LITTLE_JOKER_FORCES_LOWEST

FOLLOWERS: Final = _SUIT_MASK_OF
"""``FOLLOWERS[led]``: the cards that follow ``led``, always allowed to the trick it leads.

A card of the plain suit led follows suit, which no rule refuses: a plain lead asks
for its suit (PLAY-2), a trump lead for a trump or a joker (PLAY-3), and only a
joker lead forces a particular card (JOKER-1, JOKER-2), so a joker has no followers
here. Asked before the whole rule where that is cheaper (``apply``, the replay of
a record); ``tests/test_fast.py`` checks that every such card is in the mask
:func:`allowed_plays` gives.
"""


def allowed_plays(
    hand: int, trick: Sequence[int], trumps: int, broken: bool, bid_board: bool
) -> tuple[int, Reason | None]:
    """The cards of ``hand`` that may be played to ``trick``, and why the others may not.

    ``trumps`` is the deal's trump mask (0 without trumps), ``broken`` whether a
    trump or joker was played to an earlier trick, ``bid_board`` whether this
    player personally bid Board. The reason is None when the whole hand is allowed.
    """
    if not trick:
        if broken or bid_board or not hand & trumps or not hand & ~trumps:
            return hand, None
        return hand & ~trumps, _TRUMPS_NOT_BROKEN
    led = trick[0]
    if (1 << led) & trumps:
        forced = forced_by_joker_lead(led, hand, trumps)
        if forced:
            reason = _BIG_JOKER_FORCES_HIGHEST if led == _BIG else _LITTLE_JOKER_FORCES_LOWEST
            return forced, reason
        follow, reason = hand & trumps, _MUST_FOLLOW_TRUMP
    else:
        follow, reason = hand & _SUIT_MASK_OF[led], _MUST_FOLLOW_SUIT
    # A hand that holds nothing else may play anything: no card is refused, so no reason.
    # (Two returns, not one conditional expression: compiled, its two kinds of tuple would be
    # boxed into one object and unboxed again.)
    if follow and follow != hand:
        return follow, reason
    return hand, None


def trick_winner(leader: Seat, cards: tuple[Card, ...], trump: Suit | None) -> Seat:
    """The seat that wins a complete trick led by ``leader``.

    The highest trump wins (BIG > LITTLE > A ... 2 of trumps, which is card-number
    order); with no trump in the trick, the highest card of the led suit. A joker
    lead makes trumps the led suit, and a joker is a trump, so it needs no case of
    its own.
    """
    best_at = winning_card(cards, trump_mask(trump))[1]
    return CLOCKWISE[leader + best_at]  # player_to_move(leader, best_at), without a call


def winning_card(cards: Sequence[int], trumps: int) -> tuple[int, int]:
    """The card winning a trick so far, and its place in the trick (0 for the lead).

    The rule of :func:`trick_winner` on card numbers and a mask of the trumps (jokers
    included), for a trick complete or not: the highest trump, else the highest card
    of the led suit. Search players that play tricks on masks use it too.
    """
    best = cards[0]
    best_at = 0
    best_trumps = (1 << best) & trumps
    led_suit = _SUIT_MASK_OF[best]
    for at in range(1, len(cards)):
        card = cards[at]
        bit = 1 << card
        if bit & trumps:
            if not best_trumps or card > best:
                best, best_at, best_trumps = card, at, bit
        elif not best_trumps and bit & led_suit and card > best:
            best, best_at = card, at
    return best, best_at


def tricks_per_pair(tricks: tuple[Trick, ...]) -> tuple[int, int]:
    """How many of these completed tricks North-South and East-West each won."""
    east_west = sum(trick.winner is not None and trick.winner % 2 for trick in tricks)
    return (len(tricks) - east_west, east_west)


@attrs.frozen
class Trick:
    """A trick: who led it, the cards in the order played, and who won it once complete."""

    leader: Seat
    cards: tuple[Card, ...]
    winner: Seat | None = None

    @property
    def plays(self) -> tuple[tuple[Seat, Card], ...]:
        """Each card with the seat that played it, in play order."""
        return tuple(
            (player_to_move(self.leader, i), CARDS[card]) for i, card in enumerate(self.cards)
        )

    @property
    def led(self) -> Card | None:
        """The card that led the trick, or None before the lead."""
        return self.cards[0] if self.cards else None

    def winner_under(self, trump: Suit | None) -> Seat:
        """Who wins this trick (four cards) with ``trump`` as the trump suit."""
        if len(self.cards) != 4:
            raise ValueError("only a trick of four cards has a winner")
        return trick_winner(self.leader, self.cards, trump)
