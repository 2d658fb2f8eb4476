"""The Monte Carlo player's inner loops on plain ints: play-outs and predicted bids.

A play-out plays a deal to its end with every seat following the seed ``001``
heuristic on card masks (or random legal cards), as
:class:`backalley.players.montecarlo.MonteCarloPlayer` describes. These are
plain functions of ints, lists and tuples, so that the compiled build
(``BACKALLEY_COMPILE=1``) compiles them with mypyc while the player stays an
ordinary Python class; interpreted, they are the same code.

Each function gives exactly what the rules core and the heuristic give, only
faster: the cards a seat may play are the rules core's ``allowed_plays``
(PLAY-1 to PLAY-6, JOKER-1 to JOKER-3) written out in the loop, the card
winning the trick is asked of ``winning_card`` for the trick a play-out starts
from and then kept up to date card by card (the same left-to-right rule: the
highest trump, else the highest card of the suit led), and a predicted bid is ``heuristic_bid`` on a
mask with the hand's count summed from a table of each card's worth, in the same
order. ``tests/test_montecarlo_playout.py`` checks each against its reference.
"""

from __future__ import annotations

import random
from typing import Final

from ..core.tricks import winning_card
from .heuristic import (
    BOARD_SHARE,
    ONE_CARD_BOARD_TWENTIETHS,
    PARTNER_BELIEF,
    ROUND_UP_FROM,
    TWENTIETHS,
)

__all__ = ["BOARD_CODE", "cheapest", "heuristic_bid_code", "play_out"]

_LITTLE: Final = 52
_BIG: Final = 53
_SUIT: Final = 0x1FFF
"""The 13 cards of one plain suit, shifted to the bottom."""
_ACES: Final = sum(1 << (13 * suit + 12) for suit in range(4))
_SUIT_MASK_OF: Final = tuple(
    _SUIT << (13 * (card // 13)) if card < _LITTLE else 0 for card in range(54)
)
"""``_SUIT_MASK_OF[card]``: the mask of the card's plain suit; 0 for a joker."""
BOARD_CODE: Final = -1
""":func:`heuristic_bid_code`'s code for Board (any other code is the amount, 0 a Pass)."""
# The heuristic's settings in whole twentieths of a trick, as it counts hands (exactly).
_BELIEF: Final[int] = round(PARTNER_BELIEF * TWENTIETHS)
_ROUND_UP: Final[int] = round(ROUND_UP_FROM * TWENTIETHS)
_BOARD_SHARE: Final[int] = round(BOARD_SHARE * TWENTIETHS)


def cheapest(mask: int, trumps: int) -> int:
    """The heuristic's cheapest card: the lowest-ranked plain card, else the lowest trump.

    Of plain cards of equal rank, the one of the lowest suit (the lowest card number).
    """
    plain = mask & ~trumps
    if plain:
        best = 13
        at = 0
        for base in (0, 13, 26, 39):
            segment = (plain >> base) & _SUIT
            if segment:
                rank = (segment & -segment).bit_length() - 1
                if rank < best:
                    best = rank
                    at = base + rank
        if best < 13:
            return at
    return (mask & -mask).bit_length() - 1


def play_out(  # noqa: PLR0913, PLR0915, PLR0917 - one loop on plain ints, for speed
    hands: list[int],
    first: int,
    leader: int,
    trick: tuple[int, ...],
    won: list[int],
    broken: bool,
    trumps: int,
    boards: tuple[bool, ...],
    needed: tuple[tuple[int, int], tuple[bool, bool]] | None,
    rng: random.Random | None,
    record: list[int] | None,
) -> list[int]:
    """Play the deal out from here; ``hands`` and ``won`` are updated and ``won`` returned.

    ``hands`` holds each seat's cards as masks, ``trick`` the cards of the trick
    in progress (led by ``leader``), ``won`` the tricks each pair has taken,
    ``broken`` whether a trump was played to an earlier trick, ``boards`` who
    bid Board. ``first`` (-1 for none) is the card the seat to move plays.
    With ``rng`` every other card is a random legal one (``rng.randrange`` over
    the legal cards, lowest first), else the heuristic's: lead a side ace, let a
    winning partner have the trick, else win as cheaply as can be, and once the
    side has made its target (``needed``: each pair's tricks needed and whether
    it bid Board; None: no target) spend no trump, unless the other pair's Board
    is still unbeaten. ``record``, if given, receives the cards played in order.
    """
    thrifty0 = thrifty1 = False
    target0 = target1 = 0
    board0 = board1 = False
    if needed is not None:
        target0, target1 = needed[0]
        board0, board1 = needed[1]
    won0 = won[0]
    won1 = won[1]
    # The trick so far: its lead, the card winning it and where (PLAY-7, the rule's
    # home, asked once a play-out), any trump in it.
    at = len(trick)
    led = best = best_at = 0
    led_suit = 0
    best_trump = False
    any_trump = False
    if trick:
        led = trick[0]
        led_suit = _SUIT_MASK_OF[led]
        best, best_at = winning_card(trick, trumps)
        best_trump = bool(1 << best & trumps)
        for card in trick:
            any_trump = any_trump or bool(1 << card & trumps)
    plain = ~trumps
    left = (hands[0] | hands[1] | hands[2] | hands[3]).bit_count()  # the hands are disjoint
    if needed is not None:
        # One trick beats a Board: until then, a trump is worth spending.
        thrifty0 = won0 >= target0 and not (board1 and won0 == 0)
        thrifty1 = won1 >= target1 and not (board0 and won1 == 0)
    while left:
        left -= 1
        seat = (leader + at) & 3
        hand = hands[seat]
        if first >= 0:
            card = first
            first = -1
        else:
            # The rules core's allowed_plays, written out.
            if at == 0:
                if broken or boards[seat] or not hand & trumps or not hand & plain:
                    allowed = hand
                else:
                    allowed = hand & plain
            elif (1 << led) & trumps:
                held = hand & trumps
                if not held:
                    allowed = hand
                elif led == _BIG:
                    allowed = 1 << (held.bit_length() - 1)
                elif led == _LITTLE:
                    allowed = held & -held
                else:
                    allowed = held
            else:
                allowed = hand & led_suit or hand
            if rng is not None:
                pick = rng.randrange(allowed.bit_count())
                for _ in range(pick):
                    allowed &= allowed - 1
                card = (allowed & -allowed).bit_length() - 1
            elif not allowed & (allowed - 1):
                card = allowed.bit_length() - 1
            else:
                if at == 0:
                    aces = allowed & _ACES & plain
                    pool = aces or allowed
                elif (leader + best_at) & 3 == seat ^ 2:
                    pool = allowed  # the partner is winning
                else:
                    above = ~((2 << best) - 1)
                    if best_trump:
                        winning = allowed & trumps & above
                    else:
                        winning = allowed & (trumps | (led_suit & above))
                    if thrifty1 if seat & 1 else thrifty0:
                        winning &= plain
                    pool = winning or allowed
                # cheapest(pool, trumps), without the call when the plain cards are of one
                # suit (as when following suit): then the lowest of them.
                low = pool & plain
                if not low:
                    card = (pool & -pool).bit_length() - 1
                else:
                    card = (low & -low).bit_length() - 1
                    if low & ~_SUIT_MASK_OF[card]:
                        card = cheapest(pool, trumps)
        bit = 1 << card
        hands[seat] = hand ^ bit
        if record is not None:
            record.append(card)
        if at == 0:
            led, best, best_at = card, card, 0
            led_suit = _SUIT_MASK_OF[card]
            best_trump = bool(bit & trumps)
        elif bit & trumps:
            if not best_trump or card > best:
                best, best_at, best_trump = card, at, True
        elif not best_trump and bit & led_suit and card > best:
            best, best_at = card, at
        any_trump = any_trump or bool(bit & trumps)
        at += 1
        if at == 4:
            leader = (leader + best_at) & 3
            if leader & 1:
                won1 += 1
            else:
                won0 += 1
            broken = broken or any_trump
            any_trump = False
            at = 0
            if needed is not None:
                thrifty0 = won0 >= target0 and not (board1 and won0 == 0)
                thrifty1 = won1 >= target1 and not (board0 and won1 == 0)
    won[0] = won0
    won[1] = won1
    return won


def heuristic_bid_code(  # noqa: PLR0913, PLR0917 - heuristic_bid's arguments, one each
    hand: int,
    worth: list[int],
    hand_size: int,
    partner_board: bool,
    partner_amount: int,
    after_three_passes: bool,
) -> int:
    """The heuristic's bid (``heuristic_bid``) for the mask ``hand``, as a code.

    ``worth[card]`` is what the card counts for in ``hand_twentieths`` (under the
    deal's trump, in twentieths of a trick); the partner's bid, if it came first, is
    ``partner_board`` or ``partner_amount`` (0 when there is none);
    ``after_three_passes`` whether the seat bids last after three passes. Returns
    ``BOARD_CODE`` for Board, else the amount (0 a Pass).
    """
    if partner_board:
        return 0
    count = 0
    while hand:
        low = hand & -hand
        count += worth[low.bit_length() - 1]
        hand ^= low
    if count >= _BOARD_SHARE * hand_size:
        return BOARD_CODE
    if hand_size == 1:
        return BOARD_CODE if after_three_passes or count >= ONE_CARD_BOARD_TWENTIETHS else 0
    side_target = (count + _BELIEF * partner_amount + TWENTIETHS - _ROUND_UP) // TWENTIETHS
    if after_three_passes:
        side_target = max(side_target, 1)
    return max(0, min(side_target - partner_amount, hand_size - 1, hand_size - partner_amount))
