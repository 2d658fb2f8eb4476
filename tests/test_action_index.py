"""Tests for backalley.core.action_index: the fixed action numbering of the adapters."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from backalley import Bid, Card, Play, Seat
from backalley.core.action_index import (
    BOARD_INDEX,
    NUM_ACTION_INDICES,
    action_index,
    index_action,
)

seats = st.sampled_from(list(Seat))


@given(seats, st.integers(0, NUM_ACTION_INDICES - 1))
def test_every_index_names_one_action_and_reads_back(seat: Seat, index: int) -> None:
    """Each of the 68 indices stands for one action of the seat, whose index it is."""
    action = index_action(index, seat)
    assert action.seat is seat
    assert action_index(action) == index


def test_the_numbering_is_pass_bids_board_then_cards() -> None:
    """Pass is 0, a bid of n is n, Board is 13, card c is 14 + c."""
    assert action_index(Bid(Seat.NORTH)) == 0
    assert action_index(Bid(Seat.NORTH, 12)) == 12
    assert action_index(Bid(Seat.NORTH, board=True)) == BOARD_INDEX == 13
    assert action_index(Play(Seat.NORTH, Card.C2)) == 14
    assert action_index(Play(Seat.NORTH, Card.BIG)) == 67
    assert NUM_ACTION_INDICES == 68
    assert len({index_action(i, Seat.EAST) for i in range(NUM_ACTION_INDICES)}) == 68


@pytest.mark.parametrize("index", [-1, 68, 1000])
def test_indices_out_of_range_are_refused(index: int) -> None:
    """An index outside 0-67 is a ValueError naming the range."""
    with pytest.raises(ValueError, match="0-67"):
        index_action(index, Seat.SOUTH)


def test_non_integers_are_refused() -> None:
    """A bool or a text is not an index; a deal has no index."""
    with pytest.raises(TypeError):
        index_action(True, Seat.SOUTH)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        index_action("3", Seat.SOUTH)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="only bids and card plays"):
        action_index("3")  # type: ignore[arg-type]
