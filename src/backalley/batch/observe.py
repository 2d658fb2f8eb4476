"""Per-seat observation tensors of a whole batch, in the adapters' one layout.

The layout is :data:`backalley.adapters.encoding.OBSERVATION`, field by field (every
offset below is read from that table; none is stated here), so a network trained
on the OpenSpiel or PettingZoo adapters reads the batch's tensors unchanged. Row
``i`` of ``observe(batch, seat)`` equals
``observation_tensor(view(batch.lane_state(i), seat))``; the tests check that at
every step. A seat sees only what its view holds: its own hand, never another's;
the joker swap only if it swapped; what was played, by whom.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt

from ..adapters.encoding import DEALS_SCALE, OBSERVATION, TOTALS_SCALE
from ..core.cards import PACK_SIZE
from ..core.rules import MAX_HAND_SIZE
from ._tables import U64

if TYPE_CHECKING:
    from .engine import Batch

__all__ = ["observe"]

_F: Final = {field.name: field.offset for field in OBSERVATION}
_DEAL, _BID, _PLAY, _OVER = 0, 1, 2, 3


def _cards(masks: U64) -> npt.NDArray[np.uint8]:
    """Hand masks (any shape) as 0/1 card rows: shape + (54,)."""
    octets = masks.astype("<u8").view(np.uint8).reshape(*masks.shape, 8)
    bits = np.unpackbits(octets, axis=-1, bitorder="little")
    return bits[..., :PACK_SIZE]


def _write_counts(batch: Batch, out: npt.NDArray[np.float32]) -> None:
    """The scaled counts: tricks won, totals, deals (the encoding's ranges, ``RANGES``).

    Computed in float64, as :mod:`backalley.adapters.encoding` computes them, then
    stored as float32 like every adapter's tensor; tricks won are 0 between deals.
    """
    won = _F["tricks_won"]
    out[:, won : won + 2] = batch.won / MAX_HAND_SIZE
    totals = _F["totals"]
    points = batch.totals.astype(np.float64)
    out[:, totals : totals + 2] = points / (np.abs(points) + TOTALS_SCALE)
    counted = batch.counted.astype(np.float64)
    deals = batch.rules.deals
    out[:, _F["deals"]] = counted / deals
    left = deals - counted
    out[:, _F["deals"] + 1] = left / (left + DEALS_SCALE)


def observe(batch: Batch, seats: int | npt.NDArray[np.integer]) -> npt.NDArray[np.float32]:
    """The observation of ``seats`` (one seat for every lane, or one per lane): (N, size)."""
    n = batch.n
    lanes = np.arange(n)
    seat = np.broadcast_to(np.asarray(seats, dtype=np.intp), (n,))
    if seat.min(initial=0) < 0 or seat.max(initial=0) > 3:
        raise ValueError("seats run from 0 to 3 (North, East, South, West)")
    out = np.zeros((n, OBSERVATION.size), dtype=np.float32)

    def one_hot(field: str, index: npt.NDArray[np.integer], where: npt.NDArray[np.bool_]) -> None:
        out[lanes[where], _F[field] + index[where]] = 1.0

    everywhere = np.ones(n, dtype=np.bool_)
    phase = batch.phase.astype(np.intp)
    dealt = (phase == _BID) | (phase == _PLAY)
    one_hot("seat", seat, everywhere)
    to_move = batch.to_move.astype(np.intp)
    one_hot("to_move", to_move, to_move >= 0)
    one_hot("phase", phase, everywhere)
    one_hot("dealer", batch.dealer.astype(np.intp), everywhere)
    one_hot("hand_size", batch.hand_size.astype(np.intp) - 1, everywhere)
    hand = batch.hands[lanes, seat]
    out[:, _F["hand"] : _F["hand"] + PACK_SIZE] = _cards(hand)
    _write_counts(batch, out)
    # The deal in play (none at a chance step or after the match).
    out[:, _F["tiebreak"]] = batch.tiebreak & dealt
    one_hot("turned", batch.turned.astype(np.intp), dealt)
    one_hot("trump", batch.trump.astype(np.intp), dealt)
    # DEAL-5: only the seat that swapped sees the swap.
    one_hot("swap", batch.swap_card.astype(np.intp), dealt & (batch.swap_seat == seat))
    bids = batch.bids.astype(np.intp)
    for who in range(4):
        said = dealt & (bids[:, who] >= 0)
        one_hot("bids", who * 14 + bids[:, who], said)
    leader = batch.leader.astype(np.intp)
    playing = dealt & (leader >= 0)
    one_hot("leader", leader, playing)
    trick = batch.trick.astype(np.intp)
    in_trick = np.zeros((n, 4), dtype=np.uint64)
    for at in range(4):
        card = trick[:, at]
        player = (leader + at) % 4
        placed = playing & (card >= 0)
        one_hot("trick", player * PACK_SIZE + card, placed)
        in_trick[lanes[placed], player[placed]] = np.uint64(1) << card[placed].astype(np.uint64)
    # A seat's cards played to completed tricks: dealt, no longer held, not in this trick.
    played = batch.dealt & ~batch.hands & ~in_trick
    played[~dealt] = 0
    start = _F["played"]
    out[:, start : start + 4 * PACK_SIZE] = _cards(played).reshape(n, 4 * PACK_SIZE)
    out[:, _F["trumps_broken"]] = batch.broken & dealt
    return out
