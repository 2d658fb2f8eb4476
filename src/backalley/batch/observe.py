"""A seat's observation tensor of one lane, in JAX, in the adapters' one layout.

The layout is :data:`backalley.adapters.encoding.OBSERVATION`, scaled to its ranges
(``TOTALS_SCALE``, ``DEALS_SCALE``: the counts as the encoding scales them); the
fields are made by name and laid end to end in the table's order, and the offsets checked
against the table, so none is stated here and a network trained on the OpenSpiel
or PettingZoo adapters reads the batch's tensors unchanged. Row ``i`` of the
batch's observation equals ``observation_tensor(view(lane_state(i), seat))``; the
tests check that at every step. A seat sees only what its view holds: its own
hand, never another's; the joker swap only if it swapped (DEAL-5); what was
played, by whom.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..adapters.encoding import DEALS_SCALE, OBSERVATION, TOTALS_SCALE
from ..core.cards import PACK_SIZE
from ..core.rules import MAX_HAND_SIZE
from .kernel import BID, PLAY, State, card_bits

__all__ = ["observe"]


def _one_hot(index: jax.Array, size: int, where: jax.Array) -> jax.Array:
    return ((jnp.arange(size) == index) & where).astype(jnp.float32)


# XLA turns a division by a constant into a product with its reciprocal, which can
# differ from the quotient in the last bit: the quotients by a constant are looked
# up, as the encoding computes them (float64, then float32).
_OVER_13 = np.array([won / MAX_HAND_SIZE for won in range(MAX_HAND_SIZE + 1)], np.float32)


def _fraction(counted: jax.Array, deals: int) -> jax.Array:
    """``counted / deals`` as the encoding computes it (looked up: see ``_OVER_13``)."""
    table = np.array([done / deals for done in range(deals + 1)], np.float32)
    return jnp.asarray(table)[jnp.clip(counted, 0, deals)]


def _squash(value: jax.Array, scale: float) -> jax.Array:
    """The encoding's ``squash`` (``value / (|value| + scale)``) in float32.

    Whole numbers of points are exact in float32, and one float32 division by a
    value that is not a constant rounds the quotient as the encoding's float64 one
    rounded to float32 does (a quotient rounded to 53 bits and then 24 is the
    quotient rounded once).
    """
    points = value.astype(jnp.float32)
    return points / (jnp.abs(points) + scale)


def observe(state: State, seat: jax.Array, deals: int) -> jax.Array:
    """The observation of ``seat`` in one lane (``deals``: the schedule's length)."""
    f32 = jnp.float32
    yes = jnp.ones((), jnp.bool_)
    phase = state.phase
    dealt = (phase == BID) | (phase == PLAY)
    leader = state.leader
    playing = dealt & (leader >= 0)
    # The trick in progress by seat: position ``at`` was played by leader + at.
    by_seat = state.trick[(jnp.arange(4) - leader) & 3]
    trick = (jnp.arange(PACK_SIZE) == by_seat[:, None]) & (by_seat[:, None] >= 0) & playing
    # A seat's cards played to completed tricks: dealt, no longer held, not in this trick.
    played = (card_bits(state.dealt & ~state.hands) == 1) & ~trick & dealt
    bids = state.bids
    fields = {
        "seat": _one_hot(seat, 4, yes),
        "to_move": _one_hot(state.current_player, 4, yes),
        "phase": _one_hot(phase, 4, yes),
        "dealer": _one_hot(state.dealer, 4, yes),
        "hand_size": _one_hot(state.hand_size - 1, MAX_HAND_SIZE, yes),
        "tiebreak": (state.tiebreak & dealt)[None].astype(f32),
        "hand": card_bits(state.hands[seat & 3]).astype(f32),
        "turned": _one_hot(state.turned, PACK_SIZE, dealt),
        "trump": _one_hot(state.trump, 5, dealt),
        # DEAL-5: only the seat that swapped sees the swap.
        "swap": _one_hot(state.swap_card, PACK_SIZE, dealt & (state.swap_seat == seat)),
        "bids": ((jnp.arange(14) == bids[:, None]) & dealt).astype(f32).reshape(-1),
        "leader": _one_hot(leader, 4, playing),
        "trick": trick.astype(f32).reshape(-1),
        "played": played.astype(f32).reshape(-1),
        "tricks_won": jnp.asarray(_OVER_13)[jnp.clip(state.won, 0, MAX_HAND_SIZE)],
        "trumps_broken": (state.broken & dealt)[None].astype(f32),
        "totals": _squash(state.totals, TOTALS_SCALE),
        "deals": jnp.stack(
            [_fraction(state.counted, deals), _squash(deals - state.counted, DEALS_SCALE)]
        ),
    }
    parts = []
    offset = 0
    for field in OBSERVATION:
        part = fields[field.name]
        assert field.offset == offset and part.shape == (field.size,), field
        parts.append(part)
        offset = field.end
    return jnp.concatenate(parts)
