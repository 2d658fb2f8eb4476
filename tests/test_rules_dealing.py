"""Properties of schedules, dealers and the deal: hands, the turned card, trumps, the swap."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from backalley import (
    Card,
    Deal,
    MatchState,
    Phase,
    Rules,
    Seat,
    TiePolicy,
    apply,
    new_match,
    seeded_deck,
)
from backalley.core.cards import CARDS, cards_of
from backalley.core.dealing import MAX_SEED, deal_hands
from backalley.core.rules import SCHEDULES, _down_and_up
from backalley.engine.view import view
from backalley.strategies import decks, rules, seeds, states

hand_sizes = st.integers(1, 13)
seats = st.sampled_from(list(Seat))


@pytest.mark.rule("SCHED-1")
def test_standard_schedule_goes_down_to_two_ones_and_back() -> None:
    """`standard` is 13 down to 1, then 1 up to 13: 26 deals, and the default."""
    expected = [13 - i for i in range(13)] + [i + 1 for i in range(13)]
    assert list(SCHEDULES["standard"]) == expected
    assert Rules().schedule == tuple(expected) and Rules().deals == 26


@pytest.mark.rule("SCHED-2")
def test_twenty_five_has_a_single_one_card_deal() -> None:
    """`twenty-five` is 13 down to 1, then 2 up to 13: 25 deals, one of them one-card."""
    sizes = Rules(schedule="twenty-five").schedule
    assert list(sizes) == [*range(13, 0, -1), *range(2, 14)]
    assert len(sizes) == 25 and sizes.count(1) == 1


@pytest.mark.rule("SCHED-3")
def test_short_schedule_is_seven_to_one_and_back() -> None:
    """`short` is 7 down to 1, then 1 up to 7: 14 deals."""
    sizes = Rules(schedule="short").schedule
    assert list(sizes) == [7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 4, 5, 6, 7]


@pytest.mark.rule("SCHED-4")
@given(st.lists(st.integers(-2, 16), max_size=6))
def test_custom_schedules_accept_exactly_sizes_one_to_thirteen(sizes: list[int]) -> None:
    """A custom schedule is accepted iff it is non-empty and every size is 1 to 13."""
    if sizes and all(1 <= size <= 13 for size in sizes):
        assert Rules(schedule=sizes).schedule == tuple(sizes)
        assert Rules(schedule=sizes).largest_hand == max(sizes)
    else:
        with pytest.raises(ValueError, match=r"schedule|hand size"):
            Rules(schedule=sizes)


@pytest.mark.rule("SCHED-4")
@given(st.text(max_size=12))
def test_unknown_schedule_names_are_refused(name: str) -> None:
    """Only the three schedule names are known."""
    if name.strip().lower() in SCHEDULES:
        assert Rules(schedule=name).schedule == SCHEDULES[name.strip().lower()]
    else:
        with pytest.raises(ValueError, match="unknown schedule"):
            Rules(schedule=name)


@pytest.mark.rule("MATCH-1")
@given(rules(), seeds())
def test_the_first_dealer_is_the_match_setting(match_rules: Rules, seed: int) -> None:
    """The first deal is dealt by the configured first dealer, and its left bids first."""
    state = apply(new_match(match_rules, seed=seed), Deal(seeded_deck(seed, 0)))
    assert state.deal is not None
    assert state.deal.setup.dealer == match_rules.first_dealer == state.dealer
    assert state.to_move == match_rules.first_dealer.left


@pytest.mark.rule("DEAL-1")
@given(decks(), seats, hand_sizes)
def test_cards_are_dealt_one_at_a_time_from_the_dealers_left(
    deck: tuple[Card, ...], dealer: Seat, size: int
) -> None:
    """Before any swap, the k-th card goes to the seat k+1 places clockwise from the dealer."""
    setup = deal_hands(deck, dealer=dealer, hand_size=size)
    for seat in Seat:
        expected = {deck[k] for k in range(4 * size) if dealer.after(k + 1) == seat}
        held = set(cards_of(setup.hands[seat]))
        if setup.swap is not None and setup.swap.seat == seat:
            held = held - {setup.swap.received} | {setup.swap.joker}
        assert held == expected
        assert len(held) == size


@pytest.mark.rule("DEAL-1", "ENGINE-5")
@given(seeds(), st.integers(0, 2**32 - 1))
def test_seeded_deck_is_a_deterministic_permutation(seed: int, number: int) -> None:
    """A seeded deck holds each card once and is the same every time it is asked for."""
    deck = seeded_deck(seed, number)
    assert sorted(deck) == list(CARDS)
    assert seeded_deck(seed, number) == deck


@pytest.mark.rule("ENGINE-5")
@given(seeds(), st.integers(0, 2**31))
def test_seeded_decks_differ_between_deals_and_seeds(seed: int, number: int) -> None:
    """Neighbouring deals and seeds shuffle differently (a collision is 1 in 54!)."""
    deck = seeded_deck(seed, number)
    assert seeded_deck(seed, number + 1) != deck
    assert seeded_deck(seed ^ 1, number) != deck


@pytest.mark.rule("ENGINE-5")
@given(st.one_of(st.integers(max_value=-1), st.integers(min_value=MAX_SEED + 1)))
def test_out_of_range_seeds_are_refused(seed: int) -> None:
    """Seeds outside 0 .. 2**64 - 1 are refused with a ValueError."""
    with pytest.raises(ValueError, match="seed"):
        seeded_deck(seed, 0)
    with pytest.raises(ValueError, match="seed"):
        new_match(Rules(), seed=seed)


@pytest.mark.rule("DEAL-2", "DEAL-3")
@given(decks(), seats, hand_sizes)
def test_the_next_card_is_turned_and_names_trumps(
    deck: tuple[Card, ...], dealer: Seat, size: int
) -> None:
    """The card after the hands is turned; its suit is trumps, and a joker means no trumps."""
    setup = deal_hands(deck, dealer=dealer, hand_size=size)
    assert setup.turned == deck[4 * size]
    assert setup.trump == (None if deck[4 * size].is_joker else deck[4 * size].suit)


@pytest.mark.rule("DEAL-3", "DEAL-4", "DEAL-6")
@given(decks(), seats, hand_sizes, st.data())
def test_a_turned_joker_swaps_the_other_out_of_any_hand(
    deck: tuple[Card, ...], dealer: Seat, size: int, data: st.DataObject
) -> None:
    """After a turned joker, the other joker's holder takes the next undealt card instead."""
    turn_joker = data.draw(st.booleans())
    joker = data.draw(st.sampled_from([Card.BIG, Card.LITTLE]))
    turned = 4 * size
    if turn_joker:
        # Steer: turn this joker and put the other one anywhere, in a hand or not.
        cards = [card for card in deck if not card.is_joker]
        cards.insert(turned, joker)
        other = Card.BIG if joker is Card.LITTLE else Card.LITTLE
        cards.insert(data.draw(st.integers(0, 53)), other)
        deck = tuple(cards)
    setup = deal_hands(deck, dealer=dealer, hand_size=size)
    assert setup.number == 0 and not setup.tiebreak
    all_held = set().union(*(cards_of(hand) for hand in setup.hands))
    if setup.trump is None:
        other = Card.BIG if deck[turned] is Card.LITTLE else Card.LITTLE
        assert not all_held & {Card.BIG, Card.LITTLE}
        if other in deck[:turned]:
            holder = dealer.after(deck.index(other) + 1)
            assert setup.swap is not None
            assert (setup.swap.seat, setup.swap.joker, setup.swap.received) == (
                holder,
                other,
                deck[turned + 1],
            )
            assert deck[turned + 1] in cards_of(setup.hands[holder])
        else:
            assert setup.swap is None
    else:
        assert setup.swap is None
    assert all(len(cards_of(hand)) == size for hand in setup.hands)


@pytest.mark.rule("DEAL-5")
@given(states(phase=Phase.PLAY, no_trump=True))
def test_only_the_swapper_sees_the_swap(state: MatchState) -> None:
    """Each seat's view carries the joker swap only if that seat swapped; the rest see nothing."""
    assert state.deal is not None
    swap = state.deal.setup.swap
    for seat in Seat:
        seen = view(state, seat).deal
        assert seen is not None
        assert seen.swap == (swap if swap is not None and swap.seat == seat else None)
    if swap is not None:
        assert swap.joker.is_joker and not swap.received.is_joker


@pytest.mark.rule("DEAL-6")
@given(states(no_trump=True, phase=Phase.PLAY))
def test_no_trump_deals_have_no_jokers_in_play(state: MatchState) -> None:
    """In a no-trump deal no hand, trick or completed trick holds a joker."""
    assert state.trump is None
    played = [card for trick in state.completed_tricks for card in trick.cards]
    current = state.current_trick
    played += list(current.cards) if current else []
    held = [card for seat in Seat for card in state.hand(seat)]
    assert not any(card.is_joker for card in played + held)


@pytest.mark.rule("SCHED-1", "SCHED-2", "SCHED-3")
@given(st.integers(1, 13), st.sampled_from([1, 2]))
def test_down_and_up_schedules_of_any_top(top: int, ones: int) -> None:
    """The named schedules' shape: top down to 1, one or two one-card deals, back up to top."""
    sizes = list(_down_and_up(top, ones=ones))
    down = list(range(top, 0, -1))
    up = list(range(1, top + 1))
    assert sizes == down + (up if ones == 2 else up[1:])
    assert sizes.count(1) == ones and len(sizes) == 2 * top - (2 - ones)


def spec_seeded_deck(seed: int, number: int) -> list[Card]:
    """The seeded shuffle as `seeded_deck`'s docstring specifies it, written out plainly."""
    stream: list[int] = []

    def words() -> Iterator[int]:
        block = 0
        while True:
            data = b"backalley-deal-v1" + seed.to_bytes(8, "big") + number.to_bytes(4, "big")
            digest = hashlib.sha256(data + block.to_bytes(4, "big")).digest()
            for k in range(8):
                stream.append(int.from_bytes(digest[4 * k : 4 * k + 4], "big"))
                yield stream[-1]
            block += 1

    source = words()
    deck = list(CARDS)
    for i in range(53, 0, -1):
        n = i + 1
        word = next(source)
        while word >= 2**32 - 2**32 % n:
            word = next(source)
        j = word % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


@pytest.mark.rule("ENGINE-5", "DEAL-1")
@given(seeds(), st.integers(0, 2**32 - 1))
@example(0, 0)
@example(2**64 - 1, 2**32 - 1)
def test_seeded_deck_follows_its_specification(seed: int, number: int) -> None:
    """`seeded_deck` is exactly SHA-256 in counter mode feeding the documented Fisher-Yates."""
    assert list(seeded_deck(seed, number)) == spec_seeded_deck(seed, number)


@pytest.mark.rule("ENGINE-5")
@given(st.one_of(st.booleans(), st.integers(max_value=-1), st.integers(min_value=2**32)))
def test_out_of_range_deal_numbers_are_refused(number: object) -> None:
    """Deal numbers run from 0 to 2**32 - 1: anything else, a bool included, is refused."""
    with pytest.raises((TypeError, ValueError)) as refused:
        seeded_deck(1, number)  # type: ignore[arg-type]
    assert str(refused.value) == (
        f"a deal number is a whole number from 0 to 2**32 - 1, not {number!r}"
    )
    with pytest.raises((TypeError, ValueError), match="seed"):
        seeded_deck(True, 0)


@pytest.mark.rule("SCHED-4")
@given(st.one_of(st.booleans(), st.floats(1, 13), st.text(min_size=1, max_size=2)))
def test_hand_sizes_must_be_whole_numbers(size: object) -> None:
    """A custom schedule's hand sizes must be ints: a bool, float or string is a TypeError."""
    with pytest.raises(TypeError) as refused:
        Rules(schedule=[size])  # type: ignore[list-item]
    assert str(refused.value) == f"a hand size is a whole number, not {size!r}"


@pytest.mark.rule("SCHED-4", "END-2")
def test_bad_settings_are_refused_with_a_sentence() -> None:
    """Unknown names, empty or non-list schedules and unknown tie policies say what is allowed."""
    with pytest.raises(ValueError) as refused:
        Rules(schedule="long")
    assert str(refused.value) == (
        "unknown schedule 'long': use one of standard, twenty-five, short or a list of hand sizes"
    )
    with pytest.raises(ValueError) as refused:
        Rules(schedule=[])
    assert str(refused.value) == "a schedule needs at least one deal"
    with pytest.raises(TypeError) as type_refused:
        Rules(schedule=7)  # type: ignore[arg-type]
    assert str(type_refused.value) == "a schedule is a name or a list of hand sizes in order, not 7"
    with pytest.raises(ValueError) as refused:
        Rules(tie="coin")  # type: ignore[arg-type]
    assert str(refused.value) == "unknown tie policy 'coin': use 'draw' or 'tiebreak-deal'"
    with pytest.raises(TypeError) as type_refused:
        Rules(tie=3)  # type: ignore[arg-type]
    assert str(type_refused.value) == "a tie policy is 'draw' or 'tiebreak-deal', not 3"
    assert Rules(tie="draw").tie is TiePolicy.DRAW
    assert Rules(schedule=" Short ").schedule_name == "short"
    assert Rules(schedule=[3, 2]).schedule_name is None


@pytest.mark.rule("CARD-1", "ENGINE-5")
@given(decks(), st.data())
def test_a_deal_must_hold_each_card_once(deck: tuple[Card, ...], data: st.DataObject) -> None:
    """A deck with a card twice, or of the wrong length, or not a sequence, is refused clearly."""
    i, j = data.draw(st.integers(0, 53)), data.draw(st.integers(0, 53))
    assume(i != j)
    doubled = list(deck)
    doubled[j] = doubled[i]
    with pytest.raises(ValueError) as refused:
        Deal(doubled)
    assert str(refused.value) == f"the deck holds {deck[i]} twice (and so lacks another card)"
    cut = data.draw(st.integers(0, 53))
    with pytest.raises(ValueError) as refused:
        Deal(deck[:cut])
    assert str(refused.value) == f"a deck has 54 cards; this one has {cut}"
    for not_a_deck in ("AS KS", 54, b"x"):
        with pytest.raises(TypeError) as type_refused:
            Deal(not_a_deck)  # type: ignore[arg-type]
        assert str(type_refused.value) == (
            f"a deck is a sequence of 54 cards in order, not {type(not_a_deck).__name__}"
        )
    assert Deal(list(deck)).deck == deck == Deal(int(card) for card in deck).deck
