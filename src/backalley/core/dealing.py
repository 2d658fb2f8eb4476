"""Shuffling and dealing: hands, the turned card, trumps and the joker swap.

The deal (``docs/rules.md`` DEAL-1 to DEAL-6; ``000`` §02, ``001``, ``002``): all 54 cards are
shuffled and dealt one at a time, clockwise, starting with the player left of
the dealer, until each player holds the hand size. The next card is turned face
up and its suit is trumps. A turned joker means no trumps for the deal; if the
other joker is in a hand, its holder replaces it with the next undealt card,
and only that player sees the swap. A no-trump deal therefore has no jokers in
play.

A deck is listed top card first. North dealing two cards each from a deck that
starts ``AS KS QS JS 10S 9S 8S 7S 6S`` gives East AS and 10S, South KS and 9S,
West QS and 8S, North JS and 7S, and turns 6S: spades are trumps.

The seeded shuffle turns a seed and a deal number into a deck with SHA-256 in
counter mode feeding an unbiased Fisher-Yates shuffle, using only operations
every language has, so other implementations can reproduce our deals.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterable, Mapping
from typing import Final

import attrs

from ._draws import draw_and_swap
from .cards import CARDS, JOKERS_MASK, PACK_SIZE, SEATS, Card, Seat, Suit, trump_mask
from .flow import first_bidder, next_seat

__all__ = ["MAX_SEED", "DealSetup", "Swap", "deal_hands", "deck_for", "seeded_deck"]

MAX_SEED: Final = 2**64 - 1
"""Seeds are unsigned 64-bit integers."""
MAX_DEAL_NUMBER: Final = 2**32 - 1

SHUFFLE_DOMAIN: Final = b"backalley-deal-v1"
"""Prefix of every hashed block, so these streams never collide with another use of SHA-256."""

_WORD_SPACE: Final = 2**32
# For a draw in [0, n): words at or above this limit are rejected, which keeps every
# outcome equally likely (the remainder 2**32 mod n would otherwise favour small values).
_LIMITS: Final = tuple(_WORD_SPACE - _WORD_SPACE % n if n else 0 for n in range(PACK_SIZE + 1))
_EIGHT_WORDS: Final = struct.Struct(">8I")
# A dict, not a tuple: hashing an IntEnum member is cheaper than converting it to an index.
_BIT_OF: Final = {card: 1 << card for card in CARDS}


# 53 draws need 53 words when none is rejected: 7 blocks of 8 words give 56, and the
# rare rejections ask for more blocks.
_FIRST_BLOCKS: Final = 7


def _block(prefix: bytes, counter: int) -> tuple[int, ...]:
    """Block ``counter`` of the stream, as eight 32-bit words."""
    digest = hashlib.sha256(prefix + counter.to_bytes(4, "big")).digest()
    return _EIGHT_WORDS.unpack(digest)


def check_whole(value: object, top: int, what: str) -> None:
    """Refuse anything but a whole number from 0 to ``top``: TypeError or ValueError."""
    # The limits are powers of two less one; people read them best written that way.
    bound = f"2**{top.bit_length()} - 1"
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{what} is a whole number from 0 to {bound}, not {value!r}")
    if not 0 <= value <= top:
        raise ValueError(f"{what} is a whole number from 0 to {bound}, not {value!r}")


def seeded_deck(seed: int, deal_number: int) -> tuple[Card, ...]:
    """The deck order for deal ``deal_number`` (0-based, thrown-in deals included) of a seed.

    The algorithm, for other implementations (``docs/dealing.md`` gives vectors):

    1. Block ``i`` (``i`` = 0, 1, 2, ...) is SHA-256 of the bytes
       ``b"backalley-deal-v1"`` + seed (8 bytes, big-endian) + deal number
       (4 bytes, big-endian) + ``i`` (4 bytes, big-endian). The stream is the
       blocks in order, read as unsigned 32-bit big-endian words.
    2. Start from the pack in card-number order (2C ... AC, 2D ... AS, LITTLE, BIG).
    3. For ``i`` from 53 down to 1: with ``n = i + 1``, take words until one is
       below ``2**32 - 2**32 mod n``; swap positions ``i`` and ``word mod n``.
    """
    check_whole(seed, MAX_SEED, "a seed")
    check_whole(deal_number, MAX_DEAL_NUMBER, "a deal number")
    prefix = SHUFFLE_DOMAIN + seed.to_bytes(8, "big") + deal_number.to_bytes(4, "big")
    words = [word for counter in range(_FIRST_BLOCKS) for word in _block(prefix, counter)]

    def more() -> None:
        words.extend(_block(prefix, len(words) // 8))

    deck = list(CARDS)
    # Steps 2 and 3, in a module the compiled build compiles (this one stays interpreted).
    draw_and_swap(deck, words, _LIMITS, more)
    return tuple(deck)


def deck_for(
    hands: Mapping[Seat, str | Iterable[Card | str]],
    *,
    dealer: Seat,
    turned: Card | str,
    hand_size: int | None = None,
    then: str | Iterable[Card | str] = (),
) -> tuple[Card, ...]:
    """The deck order that deals these hands: :func:`deal` run backwards.

    For setting up a position by hand (a worked example, a test, a puzzle).
    ``hands`` gives some or all seats some or all of their cards (cards, codes
    like ``"10H"``, or one string of codes such as ``"AS KS 10H"``); ``turned``
    is the card turned for trumps and ``then`` the cards right after it (the
    first is the card a joker swap hands out). Hands
    given short, and seats not given, are filled up to ``hand_size`` (by default
    the longest hand given) with spare cards: plain cards of the non-trump suits
    first, so that filling adds no trump or joker while others are left. The
    remaining spares end the deck.

    >>> deck = deck_for({Seat.EAST: ["AS", "KS"]}, dealer=Seat.NORTH, turned="2H")
    >>> [card.code for card in deck[:9]]
    ['AS', '4C', '6C', '2C', 'KS', '5C', '7C', '3C', '2H']
    """
    wanted = {seat: _as_cards(cards) for seat, cards in hands.items()}
    top = [_as_card(turned), *_as_cards(then)]
    size = max((len(cards) for cards in wanted.values()), default=0)
    size = size if hand_size is None else hand_size
    placed = [card for cards in wanted.values() for card in cards] + top
    if len(set(placed)) != len(placed):
        twice = sorted({card for card in placed if placed.count(card) > 1})
        raise ValueError(f"wanted twice: {' '.join(card.code for card in twice)}")
    for seat, cards in wanted.items():
        if len(cards) > size:
            raise ValueError(
                f"{seat.name.title()} is given {len(cards)} cards for a hand of {size}"
            )
    if 4 * size + len(top) > PACK_SIZE:
        raise ValueError(f"{size} cards each and {len(top)} after them do not fit in 54 cards")
    trump = top[0].suit
    # Spares in filling order: non-trump plain cards, then trumps, then the jokers.
    spares = iter(
        sorted(
            (card for card in CARDS if card not in set(placed)),
            key=lambda card: (card.is_joker, card.suit is trump and trump is not None, card),
        )
    )
    full = {
        seat: wanted.get(seat, []) + [next(spares) for _ in range(size - len(wanted.get(seat, [])))]
        for seat in SEATS
    }
    order = [full[dealer.after(1 + k % 4)][k // 4] for k in range(4 * size)]
    return (*order, *top, *spares)


def _as_card(card: Card | str) -> Card:
    return Card.parse(card) if isinstance(card, str) else card


def _as_cards(cards: str | Iterable[Card | str]) -> list[Card]:
    return [_as_card(card) for card in (cards.split() if isinstance(cards, str) else cards)]


@attrs.frozen
class Swap:
    """After a turned joker, ``seat`` gave up the other joker and took ``received``.

    Only that seat knows of the swap (DEAL-5, ``docs/rulings.md`` "Who sees the swap").
    """

    seat: Seat
    joker: Card
    received: Card


@attrs.frozen
class DealSetup:
    """What the deal produced, fixed for the whole deal.

    ``number`` counts every deal of the match from 0, thrown-in ones included;
    ``hands`` are the four hands as card masks indexed by seat, after any swap;
    ``trump`` is None in a no-trump deal; ``tiebreak`` marks the extra deal that
    breaks a tie (no bidding).
    """

    number: int
    dealer: Seat
    hand_size: int
    deck: tuple[Card, ...] = attrs.field(repr=False)
    hands: tuple[int, int, int, int] = attrs.field(repr=False)
    turned: Card
    trump: Suit | None
    swap: Swap | None = attrs.field(repr=False)
    tiebreak: bool = False
    trumps: int = attrs.field(repr=False, eq=False, init=False)
    """The trump mask (the trump suit and both jokers; 0 without trumps), asked on every play."""

    @trumps.default
    def _trumps(self) -> int:
        return trump_mask(self.trump)

    @property
    def first_bidder(self) -> Seat:
        """The player left of the dealer bids first (and leads a tiebreak deal)."""
        return first_bidder(self.dealer)

    @property
    def stock(self) -> int:
        """The mask of cards in no hand: the turned card, the undealt cards, a swapped joker."""
        held = self.hands[0] | self.hands[1] | self.hands[2] | self.hands[3]
        return ((1 << PACK_SIZE) - 1) & ~held


_DEALT_TO: Final = tuple(tuple(next_seat(dealer, 1 + k) for k in range(4)) for dealer in SEATS)
"""``_DEALT_TO[dealer]``: the seats dealt to, in order, starting left of the dealer (DEAL-1)."""


def deal_hands(
    deck: tuple[Card, ...], *, dealer: Seat, hand_size: int, number: int = 0, tiebreak: bool = False
) -> DealSetup:
    """Deal ``hand_size`` cards to each seat from ``deck`` (a validated 54-card order).

    Card ``k`` of the deck goes to the seat ``k + 1`` places clockwise from the
    dealer; card ``4 * hand_size`` is turned for trumps. After a turned joker the
    holder of the other joker, if any, swaps it for card ``4 * hand_size + 1``.
    """
    dealt = 4 * hand_size
    # The seat 1 + k places left of the dealer gets deck[k]: every fourth card from its offset.
    hands = [0, 0, 0, 0]
    for offset, seat in enumerate(_DEALT_TO[dealer]):
        hands[seat] = sum(map(_BIT_OF.__getitem__, deck[offset:dealt:4]))
    turned = deck[dealt]
    trump: Suit | None = turned.suit
    swap = None
    if trump is None:
        other = JOKERS_MASK & ~(1 << turned)
        for seat in SEATS:
            if hands[seat] & other:
                received = deck[dealt + 1]
                hands[seat] ^= other | (1 << received)
                swap = Swap(seat, CARDS[other.bit_length() - 1], received)
                break
        # DEAL-6: a no-trump deal has no jokers in play. The turned joker is not in a
        # hand and the swap above gave the other one up, so no hand holds either;
        # ``tricks.allowed_plays`` relies on it (a joker lead needs a trump suit).
        assert not (hands[0] | hands[1] | hands[2] | hands[3]) & JOKERS_MASK, "DEAL-6"
    return DealSetup(
        number=number,
        dealer=dealer,
        hand_size=hand_size,
        deck=deck,
        hands=(hands[0], hands[1], hands[2], hands[3]),
        turned=turned,
        trump=trump,
        swap=swap,
        tiebreak=tiebreak,
    )
