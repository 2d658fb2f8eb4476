"""The shared action instances: ``shared_bid`` and ``shared_play`` (old names ``bid_of`` and
``play_of``) give the same values as building."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from backalley import Bid, Card, Play, Seat
from backalley.core import actions
from backalley.core.actions import PLAYS
from backalley.core.actions import shared_bid as bid_of
from backalley.core.actions import shared_play as play_of


def test_the_old_names_are_the_shared_builders():
    """``bid_of`` and ``play_of`` still import, as the same functions."""
    assert actions.bid_of is actions.shared_bid
    assert actions.play_of is actions.shared_play


@pytest.mark.rule("ENGINE-2")
@given(seat=st.sampled_from(Seat), amount=st.integers(-3, 20))
def test_bid_of_equals_a_built_bid(seat, amount):
    """Any amount, in range or not, gives the bid that ``Bid`` would build."""
    assert bid_of(seat, amount) == Bid(seat, amount)
    assert bid_of(seat, 0, board=True) == Bid(seat, board=True)


@pytest.mark.rule("ENGINE-2")
def test_bid_of_shares_the_bids_a_deal_allows():
    """Pass, 1 to 12 and Board are the same objects every time; others are built anew."""
    for seat in Seat:
        for amount in range(13):
            assert bid_of(seat, amount) is bid_of(seat, amount)
            assert bid_of(seat, amount).amount == amount
            assert bid_of(seat, amount).seat is seat
            assert not bid_of(seat, amount).board
        assert bid_of(seat, 0, board=True) is bid_of(seat, 0, board=True)
        assert bid_of(seat, 0, board=True).board
        assert bid_of(seat, 13) is not bid_of(seat, 13)
    with pytest.raises(ValueError, match="Board bid has no number"):
        bid_of(Seat.NORTH, 2, board=True)


@pytest.mark.rule("ENGINE-2")
def test_play_of_is_the_shared_play():
    """``play_of`` is ``PLAYS[seat][card]``, equal to a built ``Play``."""
    for seat in Seat:
        for card in Card:
            assert play_of(seat, card) is PLAYS[seat][card]
            assert play_of(seat, card) == Play(seat, card)
