"""Joker leads: BIG forces the highest trump, LITTLE the lowest.

The rule (``docs/rules.md`` JOKER-1 to JOKER-4; ``000`` §04, ``001``, ``002``): when BIG is led,
every other player who holds a trump must play their highest trump (LITTLE if
they hold it). When LITTLE is led, every other player who holds a trump must
play their lowest trump (BIG if it is their only trump). A player without a
trump plays any card. A joker played to a trick it did not lead obliges nobody.

Worked examples (``001``): hearts are trumps and you hold 5♥ K♥ 9♠ 2♣. BIG led:
you must play K♥; LITTLE led: you must play 5♥. And (``000`` §06) with spades
trumps North leads LITTLE; East's only trump is BIG, so East must play it, and
BIG beats LITTLE: requiring the lowest trump does not make LITTLE win.

Because a hand is a mask whose trump bits rise in rank order (2 ... A, then
LITTLE, then BIG), the highest trump is the top bit of the hand's trumps and
the lowest is the bottom bit.

>>> from backalley.core.cards import Card, Suit, mask_of, trump_mask
>>> hand = mask_of([Card.H5, Card.HK, Card.S9, Card.C2])
>>> forced_by_joker_lead(Card.BIG, hand, trump_mask(Suit.HEARTS)) == 1 << Card.HK
True
>>> forced_by_joker_lead(Card.LITTLE, hand, trump_mask(Suit.HEARTS)) == 1 << Card.H5
True
"""

from __future__ import annotations

from typing import Final

from .cards import Card

__all__ = ["forced_by_joker_lead"]

# The jokers' numbers bound by ``Final``: compiled, plain ints in C statics, where
# ``Card.LITTLE`` (the card classes stay interpreted) is a lookup and a boxed comparison.
_LITTLE: Final = int(Card.LITTLE)
_BIG: Final = int(Card.BIG)


def forced_by_joker_lead(led: int, hand: int, trumps: int) -> int:
    """The mask of the one card a joker lead forces from ``hand``, or 0 if it forces nothing.

    ``led`` is the card that led the trick and ``trumps`` the deal's trump mask.
    Nothing is forced when the lead is not a joker or the hand holds no trump.
    """
    held = hand & trumps
    if not held or led < _LITTLE:
        return 0
    if led == _BIG:
        return 1 << (held.bit_length() - 1)
    return held & -held
