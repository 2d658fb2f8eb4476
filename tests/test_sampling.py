"""Tests for information-set sampling: consistent with the view, legal, and uniform."""

from __future__ import annotations

import functools
import itertools
import math
import random
from collections import Counter
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from backalley import (
    Bid,
    Card,
    Deal,
    MatchState,
    Phase,
    Play,
    Rules,
    Seat,
    Swap,
    apply,
    legal_actions,
    new_match,
    sample_state,
)
from backalley.core.cards import CARDS
from backalley.core.dealing import deal_hands as deal_deck
from backalley.core.tricks import allowed_plays
from backalley.engine._shuffle import shuffle
from backalley.engine.sampling import InformationSet
from backalley.engine.view import view
from backalley.strategies import states

seats = st.sampled_from(list(Seat))


def _check_sample(state: MatchState, seat: Seat, seed: int) -> MatchState:
    seen = view(state, seat)
    sample = sample_state(seen, random.Random(seed))
    assert view(sample, seat) == seen
    # The sample is a legal history: replaying its own actions from scratch gives it.
    assert _replayed(sample) == sample
    return sample


def _replayed(state: MatchState) -> MatchState:
    """The state rebuilt from the rules, the seed and the recorded actions alone."""
    again = new_match(state.rules, seed=state.seed)
    deals = [result.deal for result in state.history]
    if state.deal is not None:
        deals.append(state.deal)
    for deal in deals:
        again = apply(again, Deal(deal.setup.deck))
        for bid in deal.bids:
            again = apply(again, bid)
        tricks = list(deal.tricks)
        if deal.current_trick is not None:
            tricks.append(deal.current_trick)
        for trick in tricks:
            for who, card in trick.plays:
                again = apply(again, _play(who, card))
    return again


def _play(seat: Seat, card: Card) -> Play:
    return Play(seat, card)


@pytest.mark.rule("DEAL-5")
@given(state=states(), seat=seats, seed=st.integers(0, 2**32))
def test_a_sample_shows_the_seat_exactly_its_view(state: MatchState, seat: Seat, seed: int) -> None:
    _check_sample(state, seat, seed)


@pytest.mark.rule("DEAL-4", "DEAL-5", "DEAL-6")
@given(
    state=states(no_trump=True, phase=Phase.PLAY, throw_in=True), seat=seats, seed=st.integers(0)
)
def test_samples_after_a_turned_joker_are_consistent(
    state: MatchState, seat: Seat, seed: int
) -> None:
    _check_sample(state, seat, seed)


@pytest.mark.rule("JOKER-1", "JOKER-2", "JOKER-3")
@given(state=states(joker_lead=True), seat=seats, seed=st.integers(0))
def test_samples_after_a_joker_lead_keep_the_forced_answers(
    state: MatchState, seat: Seat, seed: int
) -> None:
    sample = _check_sample(state, seat, seed)
    assert sample.deal is not None
    # The trick's forced answers replay, so each answering hand obeys the joker.
    assert sample.deal.trick == state.deal.trick  # type: ignore[union-attr]


@given(state=states(tiebreak=True), seat=seats, seed=st.integers(0))
def test_samples_in_and_after_a_tiebreak_deal_are_consistent(
    state: MatchState, seat: Seat, seed: int
) -> None:
    _check_sample(state, seat, seed)


@given(state=states(phase=Phase.PLAY), seat=seats, seed=st.integers(0))
def test_the_same_generator_gives_the_same_sample(state: MatchState, seat: Seat, seed: int) -> None:
    seen = view(state, seat)
    assert sample_state(seen, random.Random(seed)) == sample_state(seen, random.Random(seed))


@given(state=states(phase=Phase.PLAY), seat=seats, seed=st.integers(0))
def test_the_seat_keeps_its_hand_and_the_others_hold_what_they_may(
    state: MatchState, seat: Seat, seed: int
) -> None:
    sample = _check_sample(state, seat, seed)
    assert sample.deal is not None and state.deal is not None
    assert sample.deal.hands[seat] == state.deal.hands[seat]
    # Each other seat holds as many cards as it truly does, and the unseen cards are
    # shared out: whatever the seat saw is where it was.
    for other in Seat:
        assert bin(sample.deal.hands[other]).count("1") == bin(state.deal.hands[other]).count("1")
    assert sample.deal.setup.turned == state.deal.setup.turned


def test_a_view_no_deal_can_give_is_refused() -> None:
    state = _position(1399, 42)
    seen = view(state, Seat.EAST)
    assert seen.deal is not None
    # East claims a card that was already played to a trick.
    played = seen.deal.tricks[0].cards[0]
    forged = type(seen)(seen.seat, seen.rules, (*seen.hand[1:], played), seen.deal, seen.history)
    with pytest.raises(ValueError, match="already played"):
        sample_state(forged, random.Random(1))


def test_an_information_set_needs_a_view() -> None:
    with pytest.raises(TypeError, match="SeatView"):
        InformationSet(new_match())  # type: ignore[arg-type]


# --- exact enumeration on small positions -----------------------------------------
#
# Late in a thirteen-card deal only a handful of cards are unseen (the turned card is
# the 53rd, so the stock is one card), and every deck that gives the seat its view can
# be listed. Deck orders that put the same cards in the same hands and the same card
# after the turned one are equally many, so each such class counts once. The listing
# does not use the sampler's reasoning: it tries every class in which each seat's
# plays are in its hand or are the card after the turned one, and keeps those whose
# replay through ``apply`` shows the seat the same view.


def _position(seed: int, plays: int) -> MatchState:
    """A thirteen-card deal dealt from ``seed`` and played at random for ``plays`` cards."""
    rng = random.Random(seed)
    state = new_match(Rules(schedule=[13]), seed=seed)
    state = apply(state, legal_actions(state)[0])
    while state.deal is not None and 4 * len(state.deal.tricks) + len(state.deal.trick) < plays:
        state = apply(state, rng.choice(legal_actions(state)))
    assert state.deal is not None
    return state


def _public_actions(state: MatchState) -> list[object]:
    deal = state.deal
    assert deal is not None
    actions: list[object] = list(deal.bids)
    tricks = [*deal.tricks, *([deal.current_trick] if deal.current_trick is not None else [])]
    for trick in tricks:
        actions.extend(_play(who, card) for who, card in trick.plays)
    return actions


def _splits(pool: list[Card], sizes: list[int]) -> Iterator[list[tuple[Card, ...]]]:
    """Every way to choose disjoint groups of these sizes from ``pool`` (the rest left over)."""
    if not sizes:
        yield []
        return
    for chosen in itertools.combinations(pool, sizes[0]):
        rest = [card for card in pool if card not in chosen]
        for others in _splits(rest, sizes[1:]):
            yield [chosen, *others]


@functools.cache
def _exact(seed: int, plays: int, seat: Seat) -> Counter[tuple[object, ...]]:
    """The exact outcomes of a small position (listed once per test run)."""
    return _enumerate(_position(seed, plays), seat)


def _enumerate(state: MatchState, seat: Seat) -> Counter[tuple[object, ...]]:
    """Each outcome (hands now, swap) with the number of deck classes that give it."""
    deal = state.deal
    assert deal is not None
    setup = deal.setup
    size, dealer, deck = setup.hand_size, setup.dealer, setup.deck
    seen = view(state, seat)
    actions = _public_actions(state)
    mine = [deck[k] for k in range(4 * size) if (dealer + 1 + k) % 4 == seat]
    played = {s: [] for s in Seat}  # type: dict[Seat, list[Card]]
    for action in actions:
        if hasattr(action, "card"):
            played[action.seat].append(action.card)  # type: ignore[attr-defined]
    others = [s for s in Seat if s != seat]
    seat_at = [Seat((dealer + 1 + k) % 4) for k in range(4 * size)]
    bids = [action for action in actions if isinstance(action, Bid)]
    plays = [
        (int(a.seat), int(a.card), bool(bids) and bids[(a.seat - dealer - 1) % 4].board)
        for a in actions
        if isinstance(a, Play)
    ]
    pool = [c for c in CARDS if c not in mine and c != setup.turned]
    seat_swapped = setup.swap is not None and setup.swap.seat == seat
    afters = [deck[4 * size + 1]] if seat_swapped else pool
    outcomes: Counter[tuple[object, ...]] = Counter()
    for after in afters:
        needed = {s: [c for c in played[s] if c != after] for s in others}
        fixed = {c for s in others for c in needed[s]} | {after}
        if sum(len(cards) for cards in needed.values()) + 1 != len(fixed):
            continue  # a card needed by two seats
        free = [c for c in pool if c not in fixed]
        sizes = [size - len(needed[s]) for s in others]
        if min(sizes) < 0 or sum(sizes) != len(free) - (54 - 4 * size - 2):
            continue
        for groups in _splits(free, sizes):
            hands = {seat: mine} | {
                s: [*needed[s], *g] for s, g in zip(others, groups, strict=True)
            }
            taken = {c for g in groups for c in g}
            rest = [c for c in free if c not in taken]
            order = [hands[seat_at[k]][k // 4] for k in range(4 * size)]
            candidate = (*order, setup.turned, after, *rest)
            dealt = deal_deck(candidate, dealer=dealer, hand_size=size)
            if not _plays_allowed(dealt.hands, plays, dealt.trumps):
                continue  # a quick refusal, before the full replay below
            replay = apply(new_match(state.rules, seed=state.seed), Deal(candidate))
            try:
                for action in actions:
                    replay = apply(replay, action)  # type: ignore[arg-type]
            except ValueError:
                continue
            if view(replay, seat) == seen:
                assert replay.deal is not None
                swap = replay.deal.setup.swap
                outcomes[(replay.deal.hands, None if swap is None else swap.seat)] += 1
    return outcomes


def _plays_allowed(
    dealt: tuple[int, int, int, int], plays: list[tuple[int, int, bool]], trumps: int
) -> bool:
    """Whether the rules' ``allowed_plays`` accepts every play (seat, card, bid Board)."""
    hands = list(dealt)
    trick: tuple[Card, ...] = ()
    broken = False
    for seat, card, board in plays:
        allowed, _ = allowed_plays(hands[seat], trick, trumps, broken, board)
        if not allowed >> card & 1:
            return False
        hands[seat] &= ~(1 << card)
        trick = (*trick, CARDS[card])
        if len(trick) == 4:
            broken = broken or any((1 << c) & trumps for c in trick)
            trick = ()
    return True


def _chi_square_limit(degrees: int) -> float:
    """The chi-square quantile at p = 0.001 (Wilson-Hilferty; within 1% for 5+ degrees)."""
    z = 3.090232
    k = degrees
    return k * (1 - 2 / (9 * k) + z * math.sqrt(2 / (9 * k))) ** 3


# (seed, cards played, seat): positions found to have several classes of constraint:
# voids (1399), a joker lead with forced answers (135), a turned joker whose swap the
# seat did not see (278, 1846) and one the seat made (325).
SMALL_POSITIONS = [
    (1399, 42, Seat.EAST),
    (135, 42, Seat.NORTH),
    (278, 42, Seat.WEST),
    (325, 40, Seat.WEST),
    (1846, 42, Seat.WEST),
]


@pytest.mark.rule("DEAL-4", "DEAL-5", "PLAY-2", "PLAY-3", "JOKER-1", "JOKER-2")
@pytest.mark.parametrize(("seed", "plays", "seat"), SMALL_POSITIONS)
def test_samples_follow_the_exact_distribution_on_small_positions(
    seed: int, plays: int, seat: Seat
) -> None:
    state = _position(seed, plays)
    exact = _exact(seed, plays, seat)
    total = sum(exact.values())
    # The sampler counts the placements of the unseen cards exactly.
    information = InformationSet(view(state, seat))
    assert information.current is not None
    assert information.current.count == len({hands for hands, _ in exact})
    rng = random.Random(20261202)
    draws = 20 * len(exact)
    seen: Counter[tuple[object, ...]] = Counter()
    for _ in range(draws):
        sample = information.sample(rng)
        assert sample.deal is not None
        swap: Swap | None = sample.deal.setup.swap
        seen[(sample.deal.hands, None if swap is None else swap.seat)] += 1
    assert set(seen) <= set(exact)
    # Pool the rarest outcomes so that each cell expects at least five draws.
    cells: list[tuple[float, int]] = []
    pending_expected, pending_seen = 0.0, 0
    for outcome, ways in sorted(exact.items(), key=lambda item: item[1]):
        pending_expected += draws * ways / total
        pending_seen += seen[outcome]
        if pending_expected >= 5:
            cells.append((pending_expected, pending_seen))
            pending_expected, pending_seen = 0.0, 0
    if pending_expected:
        expected, observed = cells.pop()
        cells.append((expected + pending_expected, observed + pending_seen))
    statistic = sum((observed - expected) ** 2 / expected for expected, observed in cells)
    assert len(cells) > 5
    assert statistic < _chi_square_limit(len(cells) - 1)


def test_a_biased_sampler_would_fail_the_chi_square_test() -> None:
    """The test has power: drawing every other consistent deal 1.5 times as often is caught."""
    exact = _exact(1399, 42, Seat.EAST)
    outcomes = sorted(exact)
    weights = [1.5 * exact[o] if i % 2 else exact[o] for i, o in enumerate(outcomes)]
    rng = random.Random(5)
    draws = 40 * len(outcomes)
    picked = Counter(rng.choices(outcomes, weights, k=draws))
    total = sum(exact.values())
    statistic = sum(
        (picked[o] - draws * exact[o] / total) ** 2 / (draws * exact[o] / total) for o in outcomes
    )
    assert statistic > _chi_square_limit(len(outcomes) - 1)


@given(length=st.integers(0, 60), seed=st.integers(0, 2**64))
def test_the_samplers_shuffle_draws_what_random_shuffle_draws(length: int, seed: int) -> None:
    """The same permutation and the generator left in the same state as ``Random.shuffle``."""
    items, expected = list(range(length)), list(range(length))
    rng, reference = random.Random(seed), random.Random(seed)
    shuffle(items, rng)
    reference.shuffle(expected)
    assert items == expected
    assert rng.getstate() == reference.getstate()
