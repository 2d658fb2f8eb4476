"""The shared action instances: ``shared_bid`` and ``shared_play`` give the same values as
building."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from backalley import Bid, Card, Play, Seat
from backalley.core import actions
from backalley.core.actions import PLAYS, shared_bid, shared_play


def test_the_old_names_are_gone():
    """One name each: the builders are ``shared_bid`` and ``shared_play`` only."""
    assert not hasattr(actions, "bid_of")
    assert not hasattr(actions, "play_of")


@pytest.mark.rule("ENGINE-2")
@given(seat=st.sampled_from(Seat), amount=st.integers(-3, 20))
def test_shared_bid_equals_a_built_bid(seat, amount):
    """Any amount, in range or not, gives the bid that ``Bid`` would build."""
    assert shared_bid(seat, amount) == Bid(seat, amount)
    assert shared_bid(seat, 0, board=True) == Bid(seat, board=True)


@pytest.mark.rule("ENGINE-2")
def test_shared_bid_shares_the_bids_a_deal_allows():
    """Pass, 1 to 12 and Board are the same objects every time; others are built anew."""
    for seat in Seat:
        for amount in range(13):
            assert shared_bid(seat, amount) is shared_bid(seat, amount)
            assert shared_bid(seat, amount).amount == amount
            assert shared_bid(seat, amount).seat is seat
            assert not shared_bid(seat, amount).board
        assert shared_bid(seat, 0, board=True) is shared_bid(seat, 0, board=True)
        assert shared_bid(seat, 0, board=True).board
        assert shared_bid(seat, 13) is not shared_bid(seat, 13)
    with pytest.raises(ValueError, match="Board bid has no number"):
        shared_bid(Seat.NORTH, 2, board=True)


@pytest.mark.rule("ENGINE-2")
def test_shared_play_is_the_shared_play():
    """``shared_play`` is ``PLAYS[seat][card]``, equal to a built ``Play``."""
    for seat in Seat:
        for card in Card:
            assert shared_play(seat, card) is PLAYS[seat][card]
            assert shared_play(seat, card) == Play(seat, card)
