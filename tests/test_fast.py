"""The public values made from the position, and the speed tricks of ``engine._fast``, give
exactly what the plain construction gives."""

import pickle
import random

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backalley import (
    Bid,
    Card,
    Deal,
    Play,
    Rules,
    Seat,
    apply,
    legal_actions,
    new_match,
    seeded_deal,
)
from backalley.core import position
from backalley.core.actions import deal_of_permutation
from backalley.core.bidding import opening_leader
from backalley.core.cards import ALL_CARDS_MASK, cards_of
from backalley.core.dealing import seeded_deck
from backalley.core.errors import IllegalAction
from backalley.core.flow import CLOCKWISE, next_seat
from backalley.core.tricks import FOLLOWERS, Trick, trick_winner
from backalley.engine._fast import (
    LEGAL_BIDS,
    TO_PLAY,
    build_result,
    build_state,
    cards_in,
    plays_of,
    slot_builder,
)
from backalley.engine.bounds import playing
from backalley.engine.match import turn
from backalley.engine.state import (
    DealCore,
    DealResult,
    DealState,
    MatchFacts,
    MatchState,
    totals_of,
)
from backalley.engine.view import DealView, SeatView, view
from backalley.strategies import rules as rules_strategy


class PlainDeal:
    """The public deal built the plain way, action by action, from the ``Card``-level rules.

    The bids as said, the tricks closed with ``tricks.trick_winner`` on ``Card`` values,
    trumps broken searched for in the completed tricks, the hands as dealt less the
    cards played: no compact position anywhere.
    """

    def __init__(self, setup):
        self.setup = setup
        self.bids = []
        self.tricks = []
        self.trick = []
        self.hands = list(setup.hands)
        self.leader = setup.first_bidder if setup.tiebreak else None

    def bid(self, action):
        self.bids.append(action)
        if len(self.bids) == 4:
            self.leader = opening_leader(self.bids)

    def play(self, action):
        self.hands[action.seat] &= ~(1 << action.card)
        self.trick.append(action.card)
        if len(self.trick) == 4:
            winner = trick_winner(self.leader, tuple(self.trick), self.setup.trump)
            self.tricks.append(Trick(self.leader, tuple(self.trick), winner))
            self.leader = winner
            self.trick = []

    def state(self):
        trumps = self.setup.trumps
        broken = any((1 << card) & trumps for trick in self.tricks for card in trick.cards)
        core = DealCore(self.setup, tuple(self.bids), self.leader, tuple(self.tricks), broken)
        return DealState(core, tuple(self.hands), tuple(self.trick))


@pytest.mark.rule("ENGINE-6")
@settings(max_examples=60, deadline=None)
@given(rules=rules_strategy(), seed=st.integers(0, 2**64 - 1), data=st.data())
def test_public_values_made_from_the_position_equal_the_plain_construction(rules, seed, data):
    """The deal, the finished deals and the outcome made from the position, at every step.

    Over random matches of every kind of rules, steered now and then to pass (throw-ins,
    draws, tiebreak deals): each equals, and hashes as, the same value built the plain
    way (``PlainDeal``, ``DealState.settle``, the sum of the deals' scores).
    """
    rng = random.Random(seed)
    state = new_match(rules, seed=seed)
    plain = None
    history = []
    for _ in range(4_000):
        if state.is_over:
            break
        actions = legal_actions(state)
        action = actions[0] if rng.random() < 0.3 else rng.choice(actions)
        following = apply(state, action)
        if isinstance(action, Deal):
            plain = PlainDeal(following.setup)
        elif isinstance(action, Bid):
            plain.bid(action)
        else:
            plain.play(action)
        expected = plain.state()
        if following.setup is None:
            history.append((expected, expected.settle()))
            assert following.deal is None
        else:
            assert following.deal == expected
            assert hash(following.deal) == hash(expected)
        assert [(result.deal, result.scores) for result in following.history] == history
        assert [result.counts for result in following.history] == [
            deal.counts for deal, _ in history
        ]
        assert following.totals == totals_of(scores for _, scores in history)
        if following.outcome is not None:
            assert following.outcome.totals == following.totals
        # What the state reads off its position equals MatchFacts' derivation from the deal.
        for name in ("phase", "to_move", "hand_size", "tricks_won", "is_over"):
            assert getattr(MatchFacts, name).fget(following) == getattr(following, name), name
        state = following
    assert state.is_over


def test_build_state_equals_the_constructor():
    """``apply``'s state and result builders give what attrs' ``__init__`` gives, at every step."""
    rng = random.Random(8)
    state = new_match(Rules(schedule=[3, 2]), seed=8)
    while playing(state):
        built = build_state(state.position, state.seed, state.history, state.setup)
        plain = MatchState(state.position, state.seed, state.history, state.setup)
        assert type(built) is MatchState
        assert built == plain == state
        assert hash(built) == hash(plain)
        assert built.deal == plain.deal
        state = apply(state, rng.choice(legal_actions(state)))
    for result in state.history:
        built_result = build_result(result.position, result.setup)
        plain_result = DealResult(result.position, result.setup)
        assert type(built_result) is DealResult
        assert built_result == plain_result and hash(built_result) == hash(plain_result)
        # Equal, not always the same object: compiled, a position passed is boxed anew.
        assert built_result.position == result.position and built_result.setup is result.setup
        assert built_result.scores == plain_result.scores
        assert built_result.deal == plain_result.deal
        assert pickle.loads(pickle.dumps(built_result)) == plain_result
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        state.seed = 1  # type: ignore[misc]


def test_no_class_gained_a_converter_or_validator():
    """The builders skip __init__, which is only safe while these classes check nothing."""
    for cls in (MatchState, DealView, SeatView):
        for field in attrs.fields(cls):
            assert field.converter is None, (cls, field.name)
            assert field.validator is None, (cls, field.name)
        assert not hasattr(cls, "__attrs_post_init__"), cls


def test_states_are_frozen():
    """A state refuses assignment like any frozen attrs value, and so does its deal."""
    state = new_match(Rules(schedule=[2]), seed=1)
    state = apply(state, legal_actions(state)[0])
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        state.deal.hands = (0, 0, 0, 0)  # type: ignore[misc]
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        state.position = None  # type: ignore[misc]


def test_a_state_pickles_and_copies_without_its_made_deal():
    """The deal made when read is kept with the state but is not part of its value."""
    state = new_match(Rules(schedule=[3]), seed=4)
    state = apply(state, legal_actions(state)[0])
    made = state.deal
    assert state.deal is made  # made once
    again = pickle.loads(pickle.dumps(state))
    assert again == state
    assert hash(again) == hash(state)
    assert "deal" not in state.__getstate__()
    assert again.deal == made
    assert again.deal is not made


@pytest.mark.rule("ENGINE-5", "MATCH-4")
@given(seed=st.integers(0, 2**64 - 1))
def test_kept_counts_and_unchecked_deals_match_their_sources(seed):
    """The kept count of schedule deals equals a count of the history; seeded deals equal
    checked ones."""
    choose = random.Random(seed).choice
    state = new_match(Rules(schedule=[2, 1], tie="tiebreak-deal"), seed=seed)
    while playing(state):
        assert state.counted_deals == sum(result.counts for result in state.history)
        action = choose(legal_actions(state))
        if isinstance(action, Deal):
            assert action == Deal(list(action.deck))
            assert action == seeded_deal(state)
        state = apply(state, action)
    assert state.counted_deals == 2


@given(seat=st.sampled_from(list(Seat)), mask=st.integers(0, ALL_CARDS_MASK))
def test_plays_of_equals_building_each_play(seat, mask):
    """The cached pickers give the plays of the mask's cards, in card order."""
    assert plays_of(seat, mask) == tuple(Play(seat, card) for card in cards_of(mask))
    assert plays_of(seat, mask) == plays_of(seat, mask)  # again, from the cache


@given(seed=st.integers(0, 2**64 - 1), number=st.integers(0, 60))
def test_unchecked_deal_equals_a_checked_one(seed, number):
    """``deal_of_permutation`` of a seeded deck is the checked ``Deal`` of the same deck."""
    deck = seeded_deck(seed, number)
    assert deal_of_permutation(deck) == Deal(deck)
    assert all(type(card) is Card for card in deal_of_permutation(deck).deck)


def test_turn_tables_equal_the_flow_functions():
    """The legal bids and the seat to play looked up equal those worked out seat by seat."""
    for dealer in Seat:
        for said in range(4):
            seat = dealer.after(1 + said)
            for size in range(1, 14):
                expected = (*(Bid(seat, amount) for amount in range(size)), Bid(seat, board=True))
                assert LEGAL_BIDS[dealer][said][size] == expected
    for leader in Seat:
        for down in range(4):
            # PLAY-1: the cards go clockwise from the trick's leader.
            assert TO_PLAY[leader][down] is leader.after(down)
    for at in range(len(CLOCKWISE)):
        assert CLOCKWISE[at] is next_seat(Seat.NORTH, at)


@given(mask=st.integers(0, ALL_CARDS_MASK))
def test_cards_in_equals_cards_of(mask):
    """The cached pickers give the cards of a mask, in card order, as Card members."""
    assert cards_in(mask) == cards_of(mask)
    assert all(type(card) is Card for card in cards_in(mask))


def _plain_view(state, seat):
    """The view as the attrs constructors build it, every field made at once."""
    current = state.deal
    history = tuple(_plain_deal_view(result.deal, seat, result.scores) for result in state.history)
    return SeatView(
        seat=seat,
        rules=state.rules,
        hand=() if current is None else cards_of(current.hands[seat]),
        deal=None if current is None else _plain_deal_view(current, seat, None),
        history=history,
        outcome=state.outcome,
    )


def _plain_deal_view(deal, seat, scores):
    setup = deal.setup
    swap = setup.swap
    return DealView(
        number=setup.number,
        dealer=setup.dealer,
        hand_size=setup.hand_size,
        turned=setup.turned,
        tiebreak=setup.tiebreak,
        bids=deal.bids,
        leader=deal.leader,
        trick=deal.trick,
        tricks=deal.tricks,
        swap=swap if swap is not None and swap.seat == seat else None,
        scores=scores,
    )


@settings(max_examples=25)
@given(
    seed=st.integers(0, 2**64 - 1),
    first=st.sampled_from(
        ["rules", "outcome", "hand", "deal", "history", "phase", "is_over", "eq", "repr"]
    ),
)
def test_turn_and_lazy_views_equal_the_plain_construction(seed, first):
    """At every step, ``turn`` is (to_move, legal_actions) and each lazy seat view equals
    the view built field by field, whichever of its fields is read first."""
    choose = random.Random(seed).choice
    state = new_match(Rules(schedule=[3, 1], tie="tiebreak-deal"), seed=seed)
    while playing(state):
        asked = turn(state)
        if state.to_move is None:
            assert asked is None
        else:
            assert asked == (state.to_move, legal_actions(state))
            assert type(asked[0]) is Seat
        for seat in Seat:
            plain = _plain_view(state, seat)
            lazy = view(state, seat)
            if first == "repr":
                assert repr(lazy) == repr(plain)
            elif first != "eq":
                assert getattr(lazy, first) == getattr(plain, first)
            assert lazy == plain
            assert hash(lazy) == hash(plain)
            assert type(lazy.hand) is tuple
            assert pickle.loads(pickle.dumps(view(state, seat))) == plain
        state = apply(state, choose(legal_actions(state)))
    assert turn(state) is None


def test_values_made_when_read_are_kept_and_no_part_of_the_value():
    """A state's deal and a finished deal's deal and scores are made once, outside the value.

    Kept in slots of a private base (``state._Kept``), never in attrs' fields: equality,
    hashing, pickling and ``attrs.evolve`` see the four fields alone, and a state read
    before pickling loads equal to one never read. No class of them reads its attributes
    through a ``__getattr__`` hook (which ``cached_property`` on a slotted attrs class adds).
    """
    from backalley.engine.state import DealResult  # noqa: PLC0415

    for cls in (MatchState, DealResult):
        assert "__getattr__" not in cls.__dict__
    rng = random.Random(4)
    state = new_match(Rules(schedule=[2, 1]), seed=4)
    while playing(state):
        fresh = build_state(state.position, state.seed, state.history, state.setup)
        deal = state.deal
        assert state.deal is deal  # made once, then kept
        assert deal == fresh.deal
        assert state == fresh and hash(state) == hash(fresh)
        assert [field.name for field in attrs.fields(MatchState)] == [
            "position",
            "seed",
            "history",
            "setup",
        ]
        loaded = pickle.loads(pickle.dumps(state))
        assert loaded == state and loaded.deal == deal
        assert attrs.evolve(state, seed=state.seed).deal == deal
        state = apply(state, rng.choice(legal_actions(state)))
    for result in state.history:
        scores, deal = result.scores, result.deal
        assert result.scores is scores and result.deal is deal
        plain = DealResult(result.position, result.setup)
        assert plain.deal == deal and plain.scores == scores and plain == result
        assert pickle.loads(pickle.dumps(result)).scores == scores
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        state.deal = None  # type: ignore[misc]


def test_slot_builder_equals_the_constructor():
    """A slot builder gives what attrs' ``__init__`` gives, and the value stays frozen."""
    build = slot_builder(DealCore, "setup", "bids", "leader", "tricks", "broken")
    state = apply(
        new_match(Rules(schedule=[2]), seed=3), seeded_deal(new_match(Rules(schedule=[2]), seed=3))
    )
    core = state.deal.core
    built = build(core.setup, core.bids, core.leader, core.tricks, core.broken)
    assert type(built) is DealCore
    assert built == DealCore(core.setup, core.bids, core.leader, core.tricks, core.broken)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        built.broken = True  # type: ignore[misc]


def test_view_classes_check_nothing_in_init():
    """The view's builders skip __init__, which is only safe while these classes check nothing."""
    for cls in (DealView, SeatView):
        for field in attrs.fields(cls):
            assert field.converter is None, (cls, field.name)
            assert field.validator is None, (cls, field.name)
        assert not hasattr(cls, "__attrs_post_init__"), cls


@settings(max_examples=30, deadline=None)
@given(rules=rules_strategy(), seed=st.integers(0, 2**64 - 1), choice_seed=st.integers(0, 2**32))
def test_a_card_that_follows_suit_is_judged_as_the_whole_rule_judges_it(rules, seed, choice_seed):
    """``apply`` and the replay skip the rule for a card of the plain suit led: never wrongly.

    At every card of random matches of every variant, each card of the hand of the player
    to move: every follower (``tricks.FOLLOWERS``) is allowed by ``tricks.allowed_plays``;
    ``apply`` accepts exactly the allowed cards, reaching the position ``position.play``
    reaches; ``position.play_if_allowed`` plays exactly the allowed ones, and refuses a
    card that is not held.
    """
    rng = random.Random(choice_seed)
    state = new_match(rules, seed=seed)
    while playing(state):
        pos = state.position
        if pos[position.PHASE] == position.PLAY:
            seat = state.to_move
            trick = pos[position.TRICK]
            allowed = position.allowed(pos)
            hand = pos[position.HANDS][seat]
            for card in cards_of(hand):
                if trick and FOLLOWERS[trick[0]] >> card & 1:
                    assert allowed >> card & 1, (pos, card)
                action = Play(seat, card)
                if allowed >> card & 1:
                    assert apply(state, action).position == position.play(pos, card)
                    assert position.play_if_allowed(pos, card) == position.play(pos, card)
                else:
                    with pytest.raises(IllegalAction):
                        apply(state, action)
                    assert position.play_if_allowed(pos, card) is None
            for card in cards_of(ALL_CARDS_MASK & ~hand):
                assert position.play_if_allowed(pos, card) is None
        state = apply(state, rng.choice(legal_actions(state)))
