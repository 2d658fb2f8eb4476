"""Properties of the table and the pack: seats, partnerships, cards and their rankings."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from backalley import Card, Pair, Rank, Seat, Suit
from backalley.cards import CARDS, PACK_SIZE, cards_of, mask_of, trump_mask
from backalley.strategies import decks
from rules_oracle import is_trump, trump_rank

seats = st.sampled_from(list(Seat))
cards = st.sampled_from(CARDS)
plain_cards = cards.filter(lambda card: not card.is_joker)
suits = st.sampled_from(list(Suit))


@pytest.mark.rule("TABLE-1")
@given(seats, st.integers(-8, 8))
def test_left_is_the_next_seat_clockwise(seat: Seat, steps: int) -> None:
    """Left of a seat is the next one in N, E, S, W order, and `after` walks that circle."""
    order = [Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.WEST]
    assert seat.left == order[(order.index(seat) + 1) % 4]
    assert seat.after(steps) == order[(order.index(seat) + steps) % 4]
    assert seat.after(4) == seat
    assert Seat.parse(seat.name.lower()) == seat == Seat.parse(str(seat))


@pytest.mark.rule("TABLE-2")
@given(seats)
def test_partners_sit_opposite_in_fixed_pairs(seat: Seat) -> None:
    """A seat's partner is two seats away, in the same pair; the other pair holds the others."""
    assert seat.partner == seat.left.left
    assert seat.partner.partner == seat
    assert seat.pair == seat.partner.pair
    assert seat.pair != seat.left.pair
    assert seat in seat.pair.seats
    assert set(Pair.NORTH_SOUTH.seats) == {Seat.NORTH, Seat.SOUTH}
    assert seat.pair.other == seat.left.pair


@pytest.mark.rule("CARD-1")
@given(decks())
def test_the_pack_is_52_cards_and_two_distinct_jokers(deck: tuple[Card, ...]) -> None:
    """Every deck holds 54 different cards: 13 of each suit, BIG and LITTLE."""
    assert len(deck) == PACK_SIZE == len(set(deck))
    for suit in Suit:
        assert sorted(card.rank for card in deck if card.suit == suit) == list(Rank)
    assert [card for card in deck if card.is_joker] in (
        [Card.BIG, Card.LITTLE],
        [Card.LITTLE, Card.BIG],
    )
    assert Card.BIG != Card.LITTLE


@pytest.mark.rule("CARD-1")
@given(cards)
def test_every_card_reads_back_from_its_code(card: Card) -> None:
    """A card's code, in any case, parses back to the same card; masks round-trip."""
    assert Card.parse(card.code) == card == Card.parse(card.code.lower())
    assert cards_of(mask_of([card])) == (card,)
    if not card.is_joker:
        assert card.rank is not None and card.suit is not None
        assert Card.of(card.rank, card.suit) == card


@pytest.mark.rule("CARD-1")
@given(st.sets(cards))
def test_masks_and_card_sets_round_trip(chosen: set[Card]) -> None:
    """A hand mask holds exactly its cards, listed lowest first."""
    assert cards_of(mask_of(chosen)) == tuple(sorted(chosen))
    assert bin(mask_of(chosen)).count("1") == len(chosen)


@pytest.mark.rule("CARD-2")
@given(plain_cards, plain_cards)
def test_plain_cards_rank_ace_high_within_a_suit(a: Card, b: Card) -> None:
    """Within a suit, the card order is the rank order A K Q J 10 ... 2."""
    order = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    if a.suit == b.suit:
        assert (a < b) == (order.index(a.code[:-1]) < order.index(b.code[:-1]))


@pytest.mark.rule("CARD-3")
@given(suits, cards, cards)
def test_jokers_top_the_trump_suit(trump: Suit, a: Card, b: Card) -> None:
    """The trump mask is the trump suit plus both jokers, ranked BIG > LITTLE > A ... 2."""
    mask = trump_mask(trump)
    assert [c for c in CARDS if mask >> c & 1] == [c for c in CARDS if is_trump(c, trump)]
    assert len(cards_of(mask)) == 15
    if is_trump(a, trump) and is_trump(b, trump):
        # Card numbers rise with trump rank, which is what the engine relies on.
        assert (a < b) == (trump_rank(a) < trump_rank(b))


@pytest.mark.rule("CARD-3", "DEAL-6")
def test_no_trump_suit_has_no_trumps() -> None:
    """Without a trump suit nothing is a trump, jokers included."""
    assert trump_mask(None) == 0
