"""Properties of the table and the pack: seats, partnerships, cards and their rankings."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from backalley import Card, Pair, Rank, Seat, Suit
from backalley.core.cards import CARDS, PACK_SIZE, cards_of, mask_of, trump_mask
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


@pytest.mark.rule("TABLE-1")
@given(seats, st.sampled_from(["", " ", "  "]), st.booleans())
def test_seats_parse_from_letter_or_name_in_any_case(seat: Seat, pad: str, lower: bool) -> None:
    """`Seat.parse` reads "N", "north", " North " alike and refuses anything else clearly."""
    for name in (seat.letter, seat.name, seat.name.title()):
        text = name.lower() if lower else name
        assert Seat.parse(pad + text + pad) is seat
    assert str(seat) == seat.letter and repr(seat) == f"Seat.{seat.name}"


@pytest.mark.rule("TABLE-1")
@given(st.text(max_size=6))
def test_unknown_seat_names_are_refused(text: str) -> None:
    """Text that names no seat raises ValueError naming the seats."""
    names = {s.letter for s in Seat} | {s.name for s in Seat}
    if text.strip().upper() in names:
        assert Seat.parse(text).letter == text.strip().upper()[0]
    else:
        with pytest.raises(ValueError, match="seats are N, E, S and W"):
            Seat.parse(text)


@pytest.mark.rule("TABLE-1", "CARD-1")
@given(st.one_of(st.integers(), st.none(), st.binary(max_size=2)))
def test_parsers_refuse_non_text(value: object) -> None:
    """Seats, suits and cards parse only from strings; anything else is a TypeError."""
    for parse in (Seat.parse, Suit.parse, Card.parse):
        with pytest.raises(TypeError, match="string"):
            parse(value)  # type: ignore[arg-type]


@pytest.mark.rule("CARD-1")
@given(suits, st.sampled_from(["", " "]), st.booleans())
def test_suits_parse_from_letter_symbol_and_name(suit: Suit, pad: str, lower: bool) -> None:
    """`Suit.parse` reads "H", "♥", "hearts" and "heart", in any case."""
    for name in (suit.letter, suit.symbol, suit.name, suit.name[:-1], suit.word):
        text = name.lower() if lower else name
        assert Suit.parse(pad + text + pad) is suit
    assert str(suit) == suit.letter and suit.word == suit.name.lower()
    assert suit.symbol == "♣♦♥♠"[suit] and repr(suit) == f"Suit.{suit.name}"


@pytest.mark.rule("CARD-1")
@given(st.text(max_size=4))
def test_unknown_suits_and_cards_are_refused(text: str) -> None:
    """Text that is not a suit or a card code raises ValueError with the accepted forms."""
    suit_words = {w for s in Suit for w in (s.letter, s.name, s.symbol, s.name[:-1])}
    if text.strip().upper() not in suit_words:
        with pytest.raises(ValueError, match="suits are C, D, H and S"):
            Suit.parse(text)
    codes = {c.code for c in CARDS} | {c.code.replace("10", "T") for c in CARDS}
    codes |= {rank + s.symbol for c in CARDS for s in Suit for rank in (c.code[:-1],)}
    codes |= {f"T{s.symbol}" for s in Suit}
    if text.strip().upper() not in codes:
        with pytest.raises(ValueError) as refused:
            Card.parse(text)
        message = str(refused.value)
        assert message.startswith(("unknown card", "unknown suit"))
        if message.startswith("unknown card"):
            assert message == (
                f"unknown card {text!r}: write a rank (2-10, J, Q, K, A) then a suit "
                "(C, D, H, S), or BIG or LITTLE"
            )


@pytest.mark.rule("CARD-1")
@given(plain_cards, st.sampled_from(["", " "]))
@example(Card.H10, "")
def test_cards_parse_from_rank_and_suit_codes(card: Card, pad: str) -> None:
    """ "10h", "TH", " 10H " and the suit symbol all read as the ten of hearts, and so on."""
    code = card.code
    assert Card.parse(pad + code.lower() + pad) is card
    assert Card.parse(code.replace("10", "T")) is card
    assert Card.parse(code[:-1] + card.suit.symbol) is card  # type: ignore[union-attr]
    rank = card.rank
    assert rank is not None
    assert card.symbol == code[:-1] + card.suit.symbol  # type: ignore[union-attr]
    assert card.words == f"the {rank.name.lower()} of {card.suit.word}"  # type: ignore[union-attr]
    assert rank.code == code[:-1] and repr(rank) == f"Rank.{rank.name}"
    assert str(card) == code and repr(card) == f"Card.{card.name}"


@pytest.mark.rule("CARD-1")
def test_jokers_have_names_not_suits() -> None:
    """BIG and LITTLE have no suit or rank and are shown by name."""
    for joker in (Card.BIG, Card.LITTLE):
        assert joker.is_joker and joker.suit is None and joker.rank is None
        assert joker.code == joker.symbol == joker.name
        assert joker.words == f"the {joker.name} joker"
        assert Card.parse(joker.name.lower()) is joker


@pytest.mark.rule("TABLE-2")
@given(st.sampled_from(list(Pair)))
def test_pairs_have_labels_and_two_seats(pair: Pair) -> None:
    """A pair is labelled NS or EW and holds the seats with its parity."""
    assert pair.label == ("NS" if pair is Pair.NORTH_SOUTH else "EW") == str(pair)
    assert [int(seat) % 2 for seat in pair.seats] == [int(pair)] * 2
    assert pair.other.other is pair and pair.other is not pair
    assert repr(pair) == f"Pair.{pair.name}"


def test_each_plain_cards_rank_and_suit_name_it_and_jokers_have_no_rank() -> None:
    """``Card.rank`` (a table looked up) is the rank its name spells: ``Card.of`` of a
    card's rank and suit is that card, for every plain card; a joker has no rank."""
    for card in Card:
        if card.is_joker:
            assert card.rank is None
            continue
        rank = card.rank
        assert type(rank) is Rank
        assert card.suit is not None and Card.of(rank, card.suit) is card
        assert card.code == f"{_RANK_CODES[rank]}{card.suit.name[0]}"


_RANK_CODES = {Rank(n): str(n) for n in range(2, 11)} | {
    Rank.JACK: "J",
    Rank.QUEEN: "Q",
    Rank.KING: "K",
    Rank.ACE: "A",
}
