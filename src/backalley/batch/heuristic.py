"""The heuristic player of seed ``001`` as a JAX function: an opponent inside the compiled step.

:func:`heuristic_opponent` makes, in every lane, the choice
:class:`~backalley.players.HeuristicPlayer` makes from the same seat's view: it
counts the hand (in whole twentieths of a trick, as the player does, so no bid
depends on rounding), bids for its side and half believes its partner's bid,
bids Board on any trump in a one-card deal, never throws a deal in as the last
bidder after three passes, leads a side ace, lets a winning partner have the
trick, and otherwise wins as
cheaply as it can, sparing its trumps once the side has made its target (unless
the opponents bid Board and have no trick yet). It reads only what the seat to
move can see: its hand, the trump, the bids, the trick, the tricks won.

What each card counts for and costs is looked up in tables the player's own
functions fill (:func:`~backalley.players.heuristic.card_twentieths`,
:func:`~backalley.players.heuristic.card_cost`), and the trick's strengths are
the kernel's (:func:`~backalley.batch._tables.trick_keys`), so nothing is
restated. ``tests/adapters/test_vector.py`` checks it against the player on
every decision of many matches.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Final

import jax
import jax.numpy as jnp
import numpy as np

from ..core.action_index import BOARD_INDEX, FIRST_CARD_INDEX
from ..core.cards import CARDS, Card, Rank, Suit, trump_mask
from ..players.heuristic import (
    BOARD_SHARE,
    ONE_CARD_BOARD_TWENTIETHS,
    PARTNER_BELIEF,
    ROUND_UP_FROM,
    TWENTIETHS,
    card_cost,
    card_twentieths,
)
from . import _tables as T
from .kernel import PLAY, State, card_bits

__all__ = ["heuristic_opponent"]

Array = jax.Array

_NOT_CHOSEN: Final = 1 << 30
"""An order past every card's: what is not a candidate."""

_TRUMPS: Final = (*Suit, None)
"""The trump of each trump kind of the kernel: suits 0-3, then none (kind 4)."""

_WORTH: Final = np.array(
    [[card_twentieths(card, trump) for card in CARDS] for trump in _TRUMPS], np.int32
)
"""``[trump kind, card]``: what the card counts for in a hand, in twentieths."""


def _order(card: Card, trump: Suit | None) -> int:
    if card.suit is None and not (1 << card) & trump_mask(trump):
        # A joker that is no trump: never in play (a no-trump deal swaps the other joker
        # out, DEAL-4), so never a candidate.
        return _NOT_CHOSEN
    return card_cost(card, trump) * 64 + card


_ORDER: Final = np.array([[_order(card, trump) for card in CARDS] for trump in _TRUMPS], np.int32)
"""``[trump kind, card]``: the player's order of cheapness, (cost, card) as one number."""

_SIDE_ACE: Final = np.array(
    [
        [card.rank is Rank.ACE and not (1 << card) & trump_mask(trump) for card in CARDS]
        for trump in _TRUMPS
    ],
    np.bool_,
)
"""``[trump kind, card]``: an ace that is not a trump."""

_IS_TRUMP: Final = np.array(
    [[bool((1 << card) & trump_mask(trump)) for card in CARDS] for trump in _TRUMPS], np.bool_
)

_KEYS: Final = T.trick_keys().astype(np.int32)
_SUIT_OF: Final = T.SUIT_OF_CARD


_MOST_TWENTIETHS: Final = 512
"""Above any sum the bid rounds: a count short of Board (under 13 tricks), half a partner's
bid of at most 12, and one trick, in twentieths."""


def _exact_twentieths(value: float) -> int:
    scaled = Fraction(value) * TWENTIETHS
    assert scaled.denominator == 1, f"{value} is not a whole number of twentieths"
    return int(scaled)


def heuristic_opponent(round_up_from: float = ROUND_UP_FROM) -> _Heuristic:
    """The opponent that plays as ``HeuristicPlayer(round_up_from)`` in every lane.

    ``round_up_from`` is a number from 0 to 1. The player rounds with it exactly
    (as the fraction its float is); the compiled twin looks the rounded side
    target up in a table the same arithmetic fills, so they agree for any value.
    """
    if isinstance(round_up_from, bool) or not isinstance(round_up_from, int | float):
        raise TypeError(f"round_up_from is a number from 0 to 1, not {round_up_from!r}")
    if not 0 <= round_up_from <= 1:
        raise ValueError(f"round_up_from is a number from 0 to 1, not {round_up_from!r}")
    return _Heuristic(round_up_from)


class _Heuristic:
    """The compiled heuristic with its rounding: (batch state, key) -> an action per lane."""

    def __init__(self, round_up_from: float) -> None:
        self.round_up_from = round_up_from
        self.belief = _exact_twentieths(PARTNER_BELIEF)
        self.board_share = _exact_twentieths(BOARD_SHARE)
        # heuristic_bid's floor(count + belief * said + 1 - round_up_from), by the sum
        # count + belief * said + 1 in twentieths: exact, as the player computes it.
        self.rounded = np.array(
            [
                math.floor(Fraction(total, TWENTIETHS) - Fraction(round_up_from))
                for total in range(_MOST_TWENTIETHS)
            ],
            np.int32,
        )

    def __repr__(self) -> str:
        return f"heuristic_opponent(round_up_from={self.round_up_from!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Heuristic) and other.round_up_from == self.round_up_from

    def __hash__(self) -> int:
        return hash((_Heuristic, self.round_up_from))

    def __call__(self, state: State, key: Array) -> Array:
        """One action index per lane: the heuristic's choice for the seat to move."""
        del key  # the heuristic is deterministic
        chosen: Array = jax.vmap(self._lane)(state)
        return chosen

    def _lane(self, state: State) -> Array:
        seat = state.current_player & 3
        kind = jnp.clip(state.trump, 0, T.NO_TRUMP)
        held = card_bits(state.hands[seat]) == 1
        legal = state.legal_action_mask
        bid = self._bid(state, seat, kind, held, legal[:FIRST_CARD_INDEX])
        card = self._card(state, seat, kind, legal[FIRST_CARD_INDEX:])
        return jnp.where(state.phase == PLAY, FIRST_CARD_INDEX + card, bid).astype(jnp.int32)

    def _bid(self, state: State, seat: Array, kind: Array, held: Array, legal: Array) -> Array:
        """``heuristic_bid`` in twentieths, then the player's ``_pick`` among the legal bids."""
        size = state.hand_size
        partner = state.bids[seat ^ 2]
        partner_board = partner == BOARD_INDEX
        said = jnp.where((partner >= 0) & ~partner_board, partner, 0)
        count = jnp.sum(jnp.where(held, jnp.asarray(_WORTH)[kind], 0))
        # three_passed: the seat bids last and every other seat passed (MATCH-3 averted).
        last = jnp.sum((state.bids == 0) & (jnp.arange(4) != seat)) == 3
        one_card = (size == 1) & (last | (count >= ONE_CARD_BOARD_TWENTIETHS))
        board = (count >= self.board_share * size) | one_card
        total = jnp.clip(count + self.belief * said + TWENTIETHS, 0, _MOST_TWENTIETHS - 1)
        target = jnp.asarray(self.rounded)[total]
        target = jnp.where(last, jnp.maximum(target, 1), target)
        amount = jnp.maximum(0, jnp.minimum(jnp.minimum(target - said, size - 1), size - said))
        wanted = jnp.where(partner_board, 0, jnp.where(board, BOARD_INDEX, amount))
        # _pick: the wanted bid if legal, else the legal bid nearest it (Board last).
        indices = jnp.arange(FIRST_CARD_INDEX)
        amounts = jnp.where(indices == BOARD_INDEX, 0, indices)
        wanted_amount = jnp.where(wanted == BOARD_INDEX, 0, wanted)
        distance = jnp.abs(amounts - wanted_amount) + 100 * (indices == BOARD_INDEX)
        nearest = jnp.argmin(jnp.where(legal, distance, _NOT_CHOSEN))
        return jnp.where(legal[wanted], wanted, nearest)

    def _card(self, state: State, seat: Array, kind: Array, legal: Array) -> Array:
        """The player's ``play``: a side ace to lead, cheap for a winning partner, else win."""
        order = jnp.asarray(_ORDER)[kind]

        def cheapest(choice: Array) -> Array:
            return jnp.argmin(jnp.where(choice, order, _NOT_CHOSEN))

        aces = legal & jnp.asarray(_SIDE_ACE)[kind]
        lead = jnp.where(aces.any(), cheapest(aces), cheapest(legal))
        # The trick so far: the strongest card and who played it (PLAY-7).
        played = jnp.arange(4) < state.ntrick
        cards = jnp.clip(state.trick, 0, len(CARDS) - 1)
        led = jnp.asarray(_SUIT_OF)[cards[0]]
        strengths = jnp.where(played, jnp.asarray(_KEYS)[kind, led, cards], -2)
        best = strengths.max()
        winner = (state.leader + jnp.argmax(strengths)) & 3
        winning = legal & (jnp.asarray(_KEYS)[kind, led] > best)
        pair = seat & 1
        won = state.won[pair]
        needed = jnp.where(state.multiplier[pair] > 0, state.hand_size, state.target[pair])
        board_unbeaten = (state.multiplier[1 - pair] > 0) & (won == 0)
        # _target_made: never in a tiebreak deal, where every trick counts.
        made = ~state.tiebreak & ~board_unbeaten & (won >= needed)
        winning = jnp.where(made, winning & ~jnp.asarray(_IS_TRUMP)[kind], winning)
        win = jnp.where(winning.any(), cheapest(winning), cheapest(legal))
        follow = jnp.where(winner == (seat ^ 2), cheapest(legal), win)
        return jnp.where(state.ntrick == 0, lead, follow)
