"""Hypothesis strategies for property-testing Back Alley code: rules, decks, states, actions.

Install with the ``strategies`` extra (``pip install backalley[strategies]``, or
``backalley[test]``, which includes it). ``import backalley`` never imports
Hypothesis; only this module does.

- :func:`rules`: match settings, named and custom schedules, both tie policies,
  any first dealer.
- :func:`decks`: a deck order, a permutation of the 54 cards.
- :func:`states`: a reachable :class:`~backalley.MatchState` at any point of a
  match, reached by playing legal actions from the start. Keyword arguments
  steer the walk (rather than filter it) to a phase, a no-trump deal, a deal
  with Boards, a throw-in, the last deal of the schedule or the tiebreak deal.
- :func:`actions` and :func:`action_universe`: actions, legal or not.

The deals before the one a state is taken from are played by a pseudo-random
policy seeded from one drawn integer (fast, and shrinks to the first legal
action); the choices in that deal are drawn one by one, so a failing example
shrinks to the simplest deck and the simplest plays.

>>> from hypothesis import given
>>> from backalley import Phase, legal_actions
>>> @given(states(phase=Phase.PLAY, no_trump=True))
... def test_no_trump_play_has_a_legal_card(state):
...     assert state.trump is None and legal_actions(state)
>>> test_no_trump_play_has_a_legal_card()
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

from hypothesis import strategies as st

from .core.actions import Action, Bid, Deal, Play
from .core.cards import CARDS, PACK_SIZE, SEATS, Card, Seat
from .core.rules import MAX_HAND_SIZE, MIN_HAND_SIZE, SCHEDULES, Rules, TiePolicy
from .engine.bounds import playing
from .engine.match import apply, legal_actions, new_match, seeded_deal
from .engine.state import MatchState, Phase

__all__ = [
    "BID_AMOUNTS",
    "action_universe",
    "actions",
    "decks",
    "rules",
    "schedules",
    "seeds",
    "states",
]

BID_AMOUNTS: Final = range(-1, MAX_HAND_SIZE + 2)
"""The bid amounts of the action universe: one below and above every legal number."""

_MAX_SEED: Final = 2**64 - 1


def seeds() -> st.SearchStrategy[int]:
    """Match seeds: unsigned 64-bit integers, shrinking towards 0."""
    return st.integers(0, _MAX_SEED)


def schedules(*, max_deals: int = 8) -> st.SearchStrategy[str | tuple[int, ...]]:
    """A schedule: one of the named ones, or a custom list of 1 to ``max_deals`` hand sizes.

    >>> schedules().example() is not None
    True
    """
    custom = st.lists(
        st.integers(MIN_HAND_SIZE, MAX_HAND_SIZE), min_size=1, max_size=max_deals
    ).map(tuple)
    return st.one_of(custom, st.sampled_from(sorted(SCHEDULES)))


def rules(
    *,
    schedule: st.SearchStrategy[str | tuple[int, ...]] | None = None,
    tie: st.SearchStrategy[TiePolicy] | None = None,
    first_dealer: st.SearchStrategy[Seat] | None = None,
) -> st.SearchStrategy[Rules]:
    """Match settings; each part can be replaced by a strategy of your own.

    >>> r = rules(schedule=st.just("short")).example()
    >>> r.schedule_name
    'short'
    """
    return st.builds(
        Rules,
        schedule=schedules() if schedule is None else schedule,
        tie=st.sampled_from(TiePolicy) if tie is None else tie,
        first_dealer=st.sampled_from(SEATS) if first_dealer is None else first_dealer,
    )


def decks() -> st.SearchStrategy[tuple[Card, ...]]:
    """A deck order: a permutation of the 54 cards, top card first.

    >>> sorted(decks().example()) == list(CARDS)
    True
    """
    return st.permutations(CARDS).map(tuple)


def _with_turned(deck: Sequence[Card], hand_size: int, *, joker: bool, pick: int) -> list[Card]:
    """``deck`` with a joker (or, if not ``joker``, a plain card) moved to the turned position."""
    cards = list(deck)
    turned = 4 * hand_size
    wanted = [i for i, card in enumerate(cards) if card.is_joker == joker]
    source = wanted[pick % len(wanted)]
    cards[turned], cards[source] = cards[source], cards[turned]
    return cards


def _mirrorable_rules(tie_rules: st.SearchStrategy[Rules] | None) -> st.SearchStrategy[Rules]:
    """Rules whose schedule is a list followed by its reverse (``standard`` and ``short`` are).

    Such a schedule can be played to equal totals (see :func:`_play_to_tie`).
    """
    halves = st.lists(st.integers(MIN_HAND_SIZE, MAX_HAND_SIZE), min_size=1, max_size=3)
    schedule = st.one_of(
        halves.map(lambda half: (*half, *reversed(half))), st.sampled_from(["short", "standard"])
    )
    if tie_rules is not None:
        return tie_rules
    return rules(schedule=schedule, tie=st.just(TiePolicy.TIEBREAK_DEAL))


def _random_step(state: MatchState, rng: random.Random) -> MatchState:
    options = legal_actions(state)
    return apply(state, options[rng.randrange(len(options))])


def _play_to_tie(state: MatchState, rng: random.Random) -> MatchState:
    """Play a mirrorable schedule so that both pairs end on equal totals.

    Deal ``j`` of the second half repeats deal ``i = 2n - 1 - j`` of the first:
    the same deck and the same choice at every step. ``j - i`` is odd, so the
    dealer has moved an odd number of seats and each hand, bid and card passes
    to the other pair: what one pair scored in deal ``i`` the other scores in
    deal ``j``. No deal is thrown in, so the parity holds.
    """
    half = state.rules.deals // 2
    record: list[tuple[Deal, list[int]]] = []
    for _ in range(half):
        deal = seeded_deal(state)
        state = apply(state, deal)
        choices = []
        while state.phase is not Phase.DEAL and state.deal is not None:
            options = legal_actions(state)
            last_pass = len(state.bids) == 3 and all(bid.is_pass for bid in state.bids)
            choice = rng.randrange(1 if last_pass else 0, len(options))
            choices.append(choice)
            state = apply(state, options[choice])
            if state.deal is None:
                break
        record.append((deal, choices))
    for deal, choices in reversed(record):
        state = apply(state, deal)
        for choice in choices:
            state = apply(state, legal_actions(state)[choice])
    return state


@st.composite
def states(  # noqa: PLR0913 - each keyword steers one feature of the walk
    draw: st.DrawFn,
    rules_strategy: st.SearchStrategy[Rules] | None = None,
    *,
    phase: Phase | None = None,
    no_trump: bool | None = None,
    boards: bool | None = None,
    throw_in: bool | None = None,
    trick_boundary: bool | None = None,
    last_deal: bool = False,
    tiebreak: bool = False,
    joker_lead: bool = False,
) -> MatchState:
    """A reachable match state, steered by the keywords.

    - ``rules_strategy``: where the rules come from (default :func:`rules`).
    - ``phase``: the state's phase, DEAL, BID, PLAY or OVER (any if None).
    - ``no_trump``: the deal in progress turned a joker (True) or a plain card (False).
    - ``boards``: the deal in progress has at least one Board bid (True) or none (False).
    - ``throw_in``: the last finished deal was thrown in. The state is just after
      it (phase DEAL) unless ``phase`` asks for BID or PLAY: then the redeal is
      dealt and walked into that phase. ``throw_in=False`` keeps the deal in
      progress from being thrown in.
    - ``trick_boundary``: in play, no card of the current trick is down yet (True)
      or one to three are (False).
    - ``last_deal``: the state is in (or just before) the schedule's last counted deal.
    - ``tiebreak``: the state is in a tiebreak deal. This draws rules with the
      ``tiebreak-deal`` policy and a schedule that is a list followed by its
      reverse (``rules_strategy`` must give such rules if given), and plays the
      schedule to equal totals.
    - ``joker_lead``: the state is in play, in a trick led by BIG or LITTLE with
      one to three cards down. The first bidder is dealt the joker, bids the only
      Board and so may lead it at once (implies ``no_trump=False``).

    Steering never filters: it picks the Board, the pass or the deck it needs.
    Where two wishes cannot both hold (a one-card deal without a Board is always
    thrown in), ``throw_in=False`` wins over ``boards=False``.

    >>> from backalley import Phase
    >>> states(phase=Phase.BID, boards=True).example().phase
    <Phase.BID: 'bid'>
    """
    if joker_lead and (tiebreak or phase not in (None, Phase.PLAY)):
        raise ValueError("joker_lead gives a state in play, outside a tiebreak deal")
    if tiebreak and phase is Phase.BID:
        raise ValueError("a tiebreak deal has no bidding: ask for phase PLAY, DEAL or None")
    if tiebreak:
        match_rules = draw(_mirrorable_rules(rules_strategy))
    else:
        match_rules = draw(rules_strategy if rules_strategy is not None else rules())
    state = new_match(match_rules, seed=draw(seeds()))
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    if phase is Phase.OVER:
        while playing(state):
            state = _random_step(state, rng)
        return state

    # Fast-forward, by the seeded policy, to the start of the target deal.
    if tiebreak:
        state = _play_to_tie(state, rng)
        if not state.in_tiebreak:  # pragma: no cover - the mirror guarantees a tie
            raise AssertionError("the mirrored halves did not tie")
    else:
        last = match_rules.deals - 1
        target = last if last_deal else draw(st.integers(0, last))
        while playing(state) and state.counted_deals < target:
            state = _random_step(state, rng)
        while state.phase is not Phase.DEAL:
            state = _random_step(state, rng)

    stop = (
        phase if phase is not None else draw(st.sampled_from([Phase.DEAL, Phase.BID, Phase.PLAY]))
    )
    if tiebreak and stop is Phase.BID:
        stop = Phase.PLAY
    if joker_lead:
        return _joker_led(draw, state)
    if stop is Phase.DEAL and not throw_in:
        return state
    state = apply(state, Deal(_target_deck(draw, state.hand_size, no_trump)))
    if state.in_tiebreak:
        return _play_some(draw, state, trick_boundary)

    if throw_in:
        state = _bidding(draw, state, count=4, boards=False, throw_in=True)
        if stop is Phase.DEAL:
            return state
        state = apply(state, Deal(_target_deck(draw, state.hand_size, no_trump)))
    count = draw(st.integers(0, 3)) if stop is Phase.BID else 4
    # The deal in progress is never thrown in: a throw-in is only made where asked for.
    state = _bidding(draw, state, count=count, boards=boards, throw_in=False)
    if stop is Phase.BID or state.phase is not Phase.PLAY:
        return state
    return _play_some(draw, state, trick_boundary)


def _joker_led(draw: st.DrawFn, state: MatchState) -> MatchState:
    """Deal the first bidder a joker, let them bid the only Board and lead the joker."""
    deck = list(_target_deck(draw, state.hand_size, no_trump=False))
    joker = draw(st.sampled_from([Card.BIG, Card.LITTLE]))
    at = deck.index(joker)
    deck[0], deck[at] = deck[at], deck[0]
    state = apply(state, Deal(tuple(deck)))
    state = _bidding(draw, state, count=4, boards=False, throw_in=False, board_at=0)
    leader = state.to_move
    assert leader is not None
    state = apply(state, Play(leader, joker))
    for _ in range(draw(st.integers(0, 2))):
        options = legal_actions(state)
        state = apply(state, options[draw(st.integers(0, len(options) - 1))])
    return state


def _target_deck(draw: st.DrawFn, hand_size: int, no_trump: bool | None) -> tuple[Card, ...]:
    """A drawn deck, with a joker (or a plain card) turned if ``no_trump`` asks."""
    deck = draw(decks())
    if no_trump is None:
        return deck
    pick = draw(st.integers(0, PACK_SIZE - 1))
    return tuple(_with_turned(deck, hand_size, joker=no_trump, pick=pick))


def _play_some(draw: st.DrawFn, state: MatchState, trick_boundary: bool | None) -> MatchState:
    """Play a drawn number of drawn legal cards, short of the end of the deal."""
    count = draw(st.integers(0, 4 * state.hand_size - 1))
    if trick_boundary is True:
        count -= count % 4
    elif trick_boundary is False:
        count = count - count % 4 + draw(st.integers(1, 3))
    for _ in range(count):
        options = legal_actions(state)
        state = apply(state, options[draw(st.integers(0, len(options) - 1))])
    return state


def _bidding(  # noqa: PLR0913 - the steering wishes, each a keyword
    draw: st.DrawFn,
    state: MatchState,
    *,
    count: int,
    boards: bool | None,
    throw_in: bool | None,
    board_at: int | None = None,
) -> MatchState:
    """Make ``count`` drawn bids in the state's deal, under the steering wishes.

    ``board_at`` places the one Board (with ``boards=False`` for the others).
    """
    if board_at is None:
        board_at = draw(st.integers(0, max(count - 1, 0))) if boards else -1
    if boards and count == 0:
        count, board_at = 1, 0
    for index in range(count):
        options = legal_actions(state)
        if throw_in:
            bid = options[0]
        elif index == board_at:
            bid = options[-1]
        else:
            choices = options[:-1] if boards is False else options
            if throw_in is False and index == 3 and all(b.is_pass for b in state.bids):
                choices = choices[1:] or options[-1:]
            bid = choices[draw(st.integers(0, len(choices) - 1))]
        state = apply(state, bid)
    return state


def action_universe(state: MatchState | None = None) -> tuple[Action, ...]:
    """Every Bid (amounts -1 to 14 and Board, each seat) and Play (each seat and card).

    With a state in the DEAL phase, its seeded Deal is included too. Most of these are
    illegal in any given state: the universe is what ``legal_actions`` chooses from.

    >>> len(action_universe())
    284
    """
    bids: list[Action] = [Bid(seat, amount) for seat in SEATS for amount in BID_AMOUNTS]
    bids += [Bid(seat, board=True) for seat in SEATS]
    plays: list[Action] = [Play(seat, card) for seat in SEATS for card in CARDS]
    deal: list[Action] = []
    if state is not None and state.phase is Phase.DEAL:
        deal.append(seeded_deal(state))
    return (*bids, *plays, *deal)


def actions(
    state: MatchState | None = None, *, legal: bool | None = None
) -> st.SearchStrategy[Action]:
    """An action: any from the universe, or (given a state) only legal or only illegal ones.

    At the chance step every valid deck is legal, so a legal action there is a Deal
    of a drawn deck. ``legal=False`` in a state with no illegal action (there is
    none) is an error.

    >>> from backalley import new_match, legal_actions, Rules
    >>> state = new_match(Rules(), seed=1)
    >>> isinstance(actions(state, legal=True).example(), Deal)
    True
    """
    any_deal = decks().map(Deal)
    if state is None:
        if legal is not None:
            raise ValueError("legal= needs a state to judge the actions by")
        return st.one_of(st.sampled_from(action_universe()), any_deal)
    if state.phase is Phase.DEAL:
        allowed: st.SearchStrategy[Action] = any_deal
    else:
        allowed = st.sampled_from(legal_actions(state)) if not state.is_over else st.nothing()
    allowed_set = set(legal_actions(state))
    refused = [action for action in action_universe() if action not in allowed_set]
    if state.phase is not Phase.DEAL and not state.is_over:
        refused_strategy: st.SearchStrategy[Action] = st.one_of(st.sampled_from(refused), any_deal)
    elif state.is_over:
        refused_strategy = st.one_of(st.sampled_from(refused), any_deal)
    else:
        refused_strategy = st.sampled_from(refused)
    if legal is True:
        return allowed
    if legal is False:
        return refused_strategy
    return st.one_of(allowed, refused_strategy)
