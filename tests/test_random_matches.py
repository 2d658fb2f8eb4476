"""Random matches played to the end, with the engine's promises checked after every action.

Hypothesis draws the rules (schedule, tie policy, first dealer), the seed, where
the decks come from (the seed, or decks of its own) and the choice of every
action. After each action the test checks that every card is accounted for
(ENGINE-4), that ``apply`` left its input untouched and is deterministic
(ENGINE-1, ENGINE-6), that every listed action applies and unlisted ones are
refused (ENGINE-2, ENGINE-3); at the end, that the schedule was played out and
the outcome follows from the totals (END-1 to END-4).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Sequence

import pytest
from hypothesis import event, given, note, settings, target
from hypothesis import strategies as st

from backalley import (
    Bid,
    Card,
    Deal,
    IllegalAction,
    MatchState,
    Pair,
    Phase,
    Play,
    Reason,
    Rules,
    Seat,
    Termination,
    TiePolicy,
    apply,
    legal_actions,
    new_match,
)
from backalley.core.cards import cards_of
from backalley.engine.bounds import playing

ALL_CARDS = frozenset(Card)


class Chooser:
    """The choices of one match: Hypothesis's drawn picks first, then a seeded generator.

    The picks let Hypothesis shrink the start of a failing match to a short
    transcript; the generator keeps a 26-deal match from needing thousands of draws.
    """

    def __init__(self, picks: Sequence[int], seed: int, bidding: str = "any") -> None:
        self.picks = list(picks)
        self.random = random.Random(seed)
        self.bidding = bidding
        self.described = f"Chooser(picks={list(picks)}, seed={seed}, bidding={bidding!r})"

    def __repr__(self) -> str:
        return self.described

    def index(self, n: int) -> int:
        """An index below ``n``."""
        return self.picks.pop(0) % n if self.picks else self.random.randrange(n)

    def deck(self, hand_size: int) -> list[Card]:
        """A shuffled deck; one time in two a joker is turned, to bring on the joker swap."""
        order = list(Card)
        self.random.shuffle(order)
        if self.random.random() < 0.5:
            turned = order.index(self.random.choice([Card.BIG, Card.LITTLE]))
            order[turned], order[4 * hand_size] = order[4 * hand_size], order[turned]
        return order

    def action(self, state: MatchState, actions: Sequence[object]) -> object:
        """The next action, any legal one, but while bidding as ``bidding`` says.

        ``"any"``: any bid. ``"passive"``: mostly passes, so deals are often thrown
        in. ``"level"``: the first two bidders (one of each pair) both bid hand size
        - 1 and the others pass; usually both pairs fail by the same 5·(h - 1), so
        the totals are often level and the tie policies get played.
        """
        if state.phase is Phase.BID and self.bidding == "passive" and self.random.random() < 0.8:
            return actions[0]
        if state.phase is Phase.BID and self.bidding == "level" and state.hand_size > 1:
            said = state.bids
            if len(said) == 1:
                return actions[-2]
            if len(said) >= 2:
                return actions[0]
            return actions[-2]
        return actions[self.index(len(actions))]


# --- the checks ------------------------------------------------------------------------


def check_cards(state: MatchState) -> None:
    """ENGINE-4: hands + cards played in this deal + stock are the 54 cards, each once."""
    if state.deal is None:
        assert set(cards_of(state.stock)) == ALL_CARDS
        assert all(state.hand(seat) == () for seat in Seat)
        return
    held = [card for seat in Seat for card in state.hand(seat)]
    trick = state.current_trick
    played = [card for done in state.completed_tricks for card in done.cards]
    played += list(trick.cards) if trick is not None else []
    stock = list(cards_of(state.stock))
    every = held + played + stock
    assert len(every) == 54
    assert set(every) == ALL_CARDS
    # A no-trump deal has no jokers in play (DEAL-6).
    if state.trump is None:
        assert not any(card.is_joker for card in held + played)
    # Every seat holds the hand size less the cards it has played.
    tricks_done = len(state.completed_tricks)
    in_trick = trick.plays if trick is not None else ()
    for seat in Seat:
        played_now = sum(1 for who, _ in in_trick if who is seat)
        assert len(state.hand(seat)) == state.hand_size - tricks_done - played_now


def refused(state: MatchState, action: object, reasons: set[Reason]) -> None:
    """``apply`` refuses ``action`` with one of ``reasons``.

    That a refusal leaves the state alone is checked once per step, in ``play_match``.
    """
    with pytest.raises(IllegalAction) as caught:
        apply(state, action)  # type: ignore[arg-type]
    assert caught.value.reason in reasons, (action, caught.value)
    assert caught.value.action is action


def rule_in_force(state: MatchState) -> Reason:
    """The reason any held card that may not be played is refused, from the trick so far.

    Leading, only the trump ban can refuse a card; after a joker lead, the joker's
    obligation; after another trump lead, following trumps; else following suit.
    """
    trick = state.current_trick
    led = None if trick is None else trick.led
    if led is None:
        return Reason.TRUMPS_NOT_BROKEN
    if led is Card.BIG:
        return Reason.BIG_JOKER_FORCES_HIGHEST
    if led is Card.LITTLE:
        return Reason.LITTLE_JOKER_FORCES_LOWEST
    if state.trump is not None and led.suit is state.trump:
        return Reason.MUST_FOLLOW_TRUMP
    return Reason.MUST_FOLLOW_SUIT


def check_actions(state: MatchState, listed: tuple[object, ...], chooser: Chooser) -> None:
    """ENGINE-2 and ENGINE-3: every listed action applies; a sample of the others is refused."""
    for action in listed:
        assert isinstance(apply(state, action), MatchState)  # type: ignore[arg-type]
    phase = state.phase
    somebody = Seat.NORTH if state.to_move is None else state.to_move
    other = somebody.left
    deck = Deal(list(Card))
    if phase is Phase.OVER:
        assert listed == ()
        for action in (Bid(somebody), Play(somebody, Card.SA), deck):
            refused(state, action, {Reason.MATCH_OVER})
        return
    if phase is Phase.DEAL:
        assert len(listed) == 1
        assert isinstance(listed[0], Deal)
        for action in (Bid(somebody), Play(somebody, Card.SA)):
            refused(state, action, {Reason.WRONG_PHASE})
        return
    refused(state, deck, {Reason.WRONG_PHASE})
    if phase is Phase.BID:
        assert listed == (
            Bid(somebody),
            *(Bid(somebody, n) for n in range(1, state.hand_size)),
            Bid(somebody, board=True),
        )
        refused(state, Bid(somebody, state.hand_size), {Reason.BID_OUT_OF_RANGE})
        refused(state, Bid(other), {Reason.NOT_YOUR_TURN})
        refused(state, Play(somebody, state.hand(somebody)[0]), {Reason.WRONG_PHASE})
        return
    assert phase is Phase.PLAY
    assert listed
    assert all(isinstance(play, Play) and play.seat is somebody for play in listed)
    allowed = {play.card for play in listed}  # type: ignore[attr-defined]
    hand = set(state.hand(somebody))
    assert allowed <= hand
    # Every card held but not listed breaks the one rule the trick's lead imposes.
    for card in sorted(hand - allowed):
        refused(state, Play(somebody, card), {rule_in_force(state)})
    # A sample of the cards not held.
    elsewhere = sorted(ALL_CARDS - hand)
    for _ in range(2):
        card = elsewhere[chooser.random.randrange(len(elsewhere))]
        refused(state, Play(somebody, card), {Reason.CARD_NOT_IN_HAND})
    if state.hand(other):
        refused(state, Play(other, state.hand(other)[0]), {Reason.NOT_YOUR_TURN})
    refused(state, Bid(somebody), {Reason.WRONG_PHASE})


def check_outcome(final: MatchState) -> None:
    """The schedule was played out, and the outcome follows from the totals (END-1 to END-4)."""
    rules = final.rules
    assert final.phase is Phase.OVER
    assert final.deal is None
    assert final.counted_deals == len(rules.schedule)
    counted = [result for result in final.history if result.counts]
    assert [result.deal.hand_size for result in counted] == list(rules.schedule)
    dealers = [result.deal.setup.dealer for result in final.history]
    assert dealers == [rules.first_dealer.after(k) for k in range(len(final.history))]
    outcome = final.outcome
    assert outcome is not None
    assert outcome.totals == final.totals
    ns, ew = final.totals
    if outcome.termination is Termination.SCORE:
        assert ns != ew
        assert outcome.winner is (Pair.NORTH_SOUTH if ns > ew else Pair.EAST_WEST)
        assert not final.history[-1].deal.setup.tiebreak
    elif outcome.termination is Termination.DRAW:
        assert ns == ew
        assert rules.tie is TiePolicy.DRAW
        assert outcome.winner is None
    else:
        assert ns == ew
        assert rules.tie is TiePolicy.TIEBREAK_DEAL
        last = final.history[-1].deal
        assert last.setup.tiebreak
        assert last.hand_size == max(rules.schedule)
        tricks = last.tricks_won
        assert tricks[0] != tricks[1]
        assert outcome.winner is (Pair.NORTH_SOUTH if tricks[0] > tricks[1] else Pair.EAST_WEST)
    for result in final.history:
        if result.deal.setup.tiebreak:
            assert result.scores == (0, 0)
            assert result.deal.bids == ()


def play_match(rules: Rules, seed: int, chooser: Chooser, *, own_decks: bool, deep: bool) -> None:
    """Play one match to its end through ``legal_actions`` and ``apply``, checking every step.

    ``deep`` compares the whole state to a deep copy, and its hash, after each
    ``apply`` and refusal; otherwise only the deal in progress is copied and hashed
    (the finished deals are immutable tuples, checked by identity), which keeps
    26-deal matches fast: a state's hash covers its whole history.
    """
    note(f"{rules!r}, seed={seed}")
    state = new_match(rules, seed=seed)
    steps = 0
    while True:
        copied = copy.deepcopy(state if deep else state.deal)
        history, fingerprint = state.history, hash(state if deep else state.deal)
        check_cards(state)
        listed = legal_actions(state)
        check_actions(state, listed, chooser)
        if not playing(state):
            break
        if state.phase is Phase.DEAL and own_decks:
            action: object = Deal(chooser.deck(state.hand_size))
        else:
            action = chooser.action(state, listed)
        note(f"{steps}: {action!r}")
        following = apply(state, action)  # type: ignore[arg-type]
        # ENGINE-1: neither the refusals nor apply touched the input, and the same
        # action gives an equal state.
        assert (state if deep else state.deal) == copied
        assert state.history is history
        assert hash(state if deep else state.deal) == fingerprint
        assert apply(state, action) == following  # type: ignore[arg-type]
        assert following != state
        state = following
        steps += 1
        assert steps < 100_000, "the match does not end"
    check_outcome(state)
    # Steer Hypothesis towards level totals, so that the tie policies are played often.
    closeness = -abs(state.totals[0] - state.totals[1])
    target(closeness, label=f"closeness of the totals under {state.rules.tie.value}")
    # Reported by --hypothesis-show-statistics: how often the rare paths were taken.
    assert state.outcome is not None
    event(f"ended by {state.outcome.termination.value}")
    event(f"throw-ins: {min(sum(r.thrown_in for r in state.history), 2)}+")
    event(f"joker swaps: {min(sum(r.deal.setup.swap is not None for r in state.history), 1)}+")


# --- the strategies and tests ----------------------------------------------------------

seeds = st.integers(0, 2**64 - 1)
picks = st.lists(st.integers(0, 255), max_size=80)
choice_seeds = st.integers(0, 2**32 - 1)
ties = st.sampled_from(list(TiePolicy))
dealers = st.sampled_from(list(Seat))
biddings = st.sampled_from(["any", "any", "passive", "level", "level"])
short_schedules = st.one_of(
    st.sampled_from([[2, 1], [3], [1], [2], [13]]),
    st.lists(st.integers(1, 13), min_size=1, max_size=3),
)


short_rules = st.builds(Rules, schedule=short_schedules, tie=ties, first_dealer=dealers)
full_rules = st.builds(
    Rules,
    schedule=st.sampled_from(["standard", "twenty-five", "short"]),
    tie=ties,
    first_dealer=dealers,
)
choosers = st.builds(Chooser, picks, choice_seeds, biddings)


@pytest.mark.rule(
    "ENGINE-1",
    "ENGINE-2",
    "ENGINE-3",
    "ENGINE-4",
    "ENGINE-6",
    "END-1",
    "END-2",
    "END-3",
    "END-4",
    "MATCH-2",
    "MATCH-3",
    "MATCH-4",
    "DEAL-6",
)
@settings(max_examples=2 * settings.default.max_examples)
@given(rules=short_rules, seed=seeds, chooser=choosers, own_decks=st.booleans())
def test_random_short_matches_keep_every_promise(
    rules: Rules, seed: int, chooser: Chooser, own_decks: bool
) -> None:
    """Random matches on short custom schedules keep every engine promise to the end."""
    play_match(rules, seed, chooser, own_decks=own_decks, deep=True)


@pytest.mark.rule(
    "ENGINE-1",
    "ENGINE-2",
    "ENGINE-3",
    "ENGINE-4",
    "ENGINE-6",
    "END-1",
    "SCHED-1",
    "SCHED-2",
    "SCHED-3",
)
@settings(max_examples=max(3, settings.default.max_examples // 10))
@given(rules=full_rules, seed=seeds, chooser=choosers)
def test_random_full_matches_keep_every_promise(rules: Rules, seed: int, chooser: Chooser) -> None:
    """Random matches on the named schedules, 26 deals included, keep every promise to the end."""
    play_match(rules, seed, chooser, own_decks=False, deep=False)


@pytest.mark.rule("SCHED-1", "ENGINE-6")
@settings(max_examples=3)
@given(seed=seeds, choice_seed=choice_seeds)
def test_random_standard_matches_play_26_deals(seed: int, choice_seed: int) -> None:
    """At least a few full standard matches in every run: 26 counted deals, then an outcome."""
    chooser = Chooser((), choice_seed)
    play_match(Rules(), seed, chooser, own_decks=False, deep=False)
