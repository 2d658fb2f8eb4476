"""Tests of the text notation: bids and actions read in any case, written canonically."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from backalley import Bid, Card, Play, Rules, Seat, apply, new_match, seeded_deal
from backalley.engine.examples import bid
from backalley.formats.notation import (
    NotationError,
    action_text,
    call_text,
    parse_action,
    parse_bid,
    parse_call,
    parse_card,
)

bids = st.builds(
    lambda seat, amount, board: Bid(seat, 0 if board else amount, board),
    st.sampled_from(Seat),
    st.integers(0, 13),
    st.booleans(),
)
plays = st.builds(Play, st.sampled_from(Seat), st.sampled_from(Card))


def _random_case(text: str, flips: list[bool]) -> str:
    return "".join(
        ch.swapcase() if flip else ch
        for ch, flip in zip(text, flips + [False] * len(text), strict=False)
    )


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("N 3", Bid(Seat.NORTH, 3)),
        ("e pass", Bid(Seat.EAST)),
        ("West BOARD", Bid(Seat.WEST, board=True)),
        ("s as", Play(Seat.SOUTH, Card.SA)),
        ("S th", Play(Seat.SOUTH, Card.H10)),
        ("n 10h", Play(Seat.NORTH, Card.H10)),
        ("  w   big ", Play(Seat.WEST, Card.BIG)),
        ("E Little", Play(Seat.EAST, Card.LITTLE)),
        ("N 0", Bid(Seat.NORTH)),
    ],
)
def test_parse_action_examples(text: str, action: Bid | Play) -> None:
    """Each written action reads as the expected bid or play."""
    assert parse_action(text) == action


def test_canonical_text() -> None:
    """Actions print as one-letter seat, then lower-case call or upper-case card code."""
    assert [
        action_text(a) for a in (Bid(Seat.NORTH, 3), Bid(Seat.EAST), Bid(Seat.WEST, board=True))
    ] == [
        "N 3",
        "E pass",
        "W board",
    ]
    assert action_text(Play(Seat.SOUTH, Card.H10)) == "S 10H"
    assert call_text(Bid(Seat.SOUTH)) == "pass"


@given(st.one_of(bids, plays), st.lists(st.booleans(), max_size=12))
def test_round_trip_in_any_case(action: Bid | Play, flips: list[bool]) -> None:
    """The canonical text, in any mix of cases, reads back as the same action."""
    text = action_text(action)
    assert parse_action(text) == action
    assert parse_action(_random_case(text, flips)) == action


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("X 3", "unknown seat 'X'"),
        ("N XS", "unknown card 'XS'"),
        ("N", "write a seat then a bid or a card"),
        ("N 3 4", "write a seat then a bid or a card"),
        ("N 123", "unknown bid '123'"),
        ("", "write a seat then a bid or a card"),
    ],
)
def test_parse_action_errors(text: str, fragment: str) -> None:
    """Unreadable actions raise NotationError naming what was wrong."""
    with pytest.raises(NotationError, match=fragment):
        parse_action(text)


def test_non_text_is_refused() -> None:
    """Values that are not strings are refused with a NotationError, not a crash."""
    for parse in (parse_action, parse_call, parse_card):
        with pytest.raises(NotationError):
            parse(3)  # type: ignore[arg-type]


def test_parse_call_and_bid() -> None:
    """Calls read as (amount, board) and as a seat's bid."""
    assert parse_call("PASS") == (0, False)
    assert parse_call("Board") == (0, True)
    assert parse_call("12") == (12, False)
    assert parse_bid(Seat.EAST, "7") == Bid(Seat.EAST, 7)
    with pytest.raises(NotationError, match="unknown bid 'seven'"):
        parse_call("seven")


@given(
    st.one_of(
        st.sampled_from(["pass", "Board", " 3 ", "0", "12", "99", "100", "-1", "+3", "\u0663"]),
        st.text(max_size=4),
    ),
    st.sampled_from(Seat),
)
def test_the_core_and_the_notation_read_calls_one_way(text: str, seat: Seat) -> None:
    """Bid.parse (the core's reader, which the examples use) and parse_bid agree on any text."""
    try:
        expected: Bid | str = parse_bid(seat, text)
    except NotationError as error:
        expected = str(error)
    try:
        read: Bid | str = Bid.parse(seat, text)
    except ValueError as error:
        read = str(error)
    assert read == expected


@pytest.mark.parametrize("call", ["pass", "PASS", "0", "Board", "3", "12"])
def test_the_examples_read_calls_as_the_notation_does(call: str) -> None:
    """``examples.bid`` makes the bid the notation reads, in any case."""
    state = new_match(Rules(schedule=[13]), seed=1)
    state = apply(state, seeded_deal(state))
    bidder = state.to_move
    assert bidder is not None
    assert bid(state, call).deal.bids == (parse_bid(bidder, call),)


def test_parse_card_reuses_card_codes() -> None:
    """parse_card reads exactly what Card.parse reads, and wraps its errors."""
    assert parse_card("qd") is Card.DQ
    with pytest.raises(NotationError, match="unknown card"):
        parse_card("1S")
