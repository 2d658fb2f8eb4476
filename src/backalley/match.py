"""The match: ``new_match``, ``legal_actions`` and the pure ``apply``.

Match flow (RULINGS.md "Schedule and dealer", "End of the match"; ``000`` §02,
§05, ``001``):

- The deals follow the rules' schedule of hand sizes. The first dealer is a
  match setting; the deal passes clockwise after every deal, thrown-in ones
  included.
- Four passes throw the deal in: no score, and the next dealer deals the same
  hand size again. A thrown-in deal does not count towards the schedule.
- After the last deal of the schedule the pair with the higher total wins.
  Equal totals are a draw under ``draw``; under ``tiebreak-deal`` one more deal
  is played without bidding, at the schedule's largest hand size, dealt by the
  next dealer, led by the player left of the dealer, and the pair that takes
  more tricks wins. (Equal tricks, possible only with an even largest hand size,
  play another tiebreak deal: see ``docs/rules.md``.)

``apply(state, action)`` dispatches on the phase, one small function per kind
of action, and returns a new state; the input is never changed. An action the
rules forbid raises :class:`~backalley.errors.IllegalAction` with its reason.
``legal_actions`` lists exactly the actions ``apply`` accepts from the player
to move. At the chance step (dealing) it lists the deal the match's seed
prescribes; ``apply`` also accepts a ``Deal`` of any other valid deck, which is
how a recorded game is replayed.

>>> state = new_match(Rules(schedule=[2]), seed=7)
>>> state.phase
<Phase.DEAL: 'deal'>
>>> state = apply(state, seeded_deal(state))
>>> state.phase, state.to_move
(<Phase.BID: 'bid'>, Seat.EAST)
>>> [str(action) for action in legal_actions(state)]
['E pass', 'E 1', 'E board']
"""

from __future__ import annotations

import secrets
from typing import Final

from .actions import Bid, Deal, Play
from .bidding import bid_in_range, is_throw_in, opening_leader
from .cards import CARDS, PAIRS, SEATS, trump_mask
from .dealing import MAX_SEED, deal, seeded_deck
from .errors import IllegalAction, Reason
from .rules import Rules, TiePolicy
from .state import DealResult, DealState, MatchState, Outcome, Phase, Termination
from .tricks import Trick, allowed_plays, trick_winner

__all__ = ["apply", "legal_actions", "new_match", "seeded_deal"]

_MAX_BID: Final = 12

# Every action a player can take exists once, built here, so that legal_actions only
# picks from tables; equal actions built by callers compare and hash the same.
_PLAYS: Final = tuple(tuple(Play(seat, card) for card in CARDS) for seat in SEATS)
_BIDS: Final = tuple(
    tuple(
        (*(Bid(seat, amount) for amount in range(size)), Bid(seat, board=True))
        for size in range(_MAX_BID + 2)
    )
    for seat in SEATS
)
"""``_BIDS[seat][hand_size]``: Pass, 1 .. hand_size - 1, Board."""


def new_match(rules: Rules | None = None, *, seed: int | None = None) -> MatchState:
    """A match about to be dealt its first deal.

    The seed (0 to 2**64 - 1) fixes every seeded deal, so the same rules, seed
    and actions replay the same match; without one a random seed is drawn and
    kept in the state.
    """
    if rules is None:
        rules = Rules()
    elif not isinstance(rules, Rules):
        raise TypeError(f"rules must be a backalley.Rules, not {type(rules).__name__}")
    if seed is None:
        seed = secrets.randbits(64)
    elif not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"a seed is a whole number from 0 to 2**64 - 1, not {seed!r}")
    return MatchState(rules, seed)


def seeded_deal(state: MatchState) -> Deal:
    """The deal that the match's seed prescribes for the next deal."""
    return Deal(seeded_deck(state.seed, len(state.history)))


def legal_actions(state: MatchState) -> tuple[Bid | Play | Deal, ...]:
    """Every action the rules allow now, for the player to move.

    Bids are listed Pass, 1, 2, ..., Board; plays in card order. At the chance
    step the one listed action is the seeded deal; after the match, nothing.
    """
    deal_state = state.deal
    if state.outcome is not None:
        return ()
    if deal_state is None:
        return (seeded_deal(state),)
    if deal_state.leader is None:
        seat = (deal_state.setup.dealer + 1 + len(deal_state.bids)) % 4
        return _BIDS[seat][deal_state.setup.hand_size]
    seat = (deal_state.leader + len(deal_state.trick)) % 4
    allowed, _ = _allowed(deal_state, seat)
    plays = _PLAYS[seat]
    actions = []
    while allowed:
        low = allowed & -allowed
        actions.append(plays[low.bit_length() - 1])
        allowed ^= low
    return tuple(actions)


def apply(state: MatchState, action: Bid | Play | Deal) -> MatchState:
    """The state after ``action``; raises ``IllegalAction`` if the rules forbid it.

    The input state is never changed.
    """
    if not isinstance(state, MatchState):
        raise TypeError(f"apply needs a MatchState, not {type(state).__name__}")
    kind = type(action)
    if state.outcome is not None and kind in (Play, Bid, Deal):
        raise IllegalAction(Reason.MATCH_OVER, action, "The match is over: no more actions.")
    if kind is Play:
        return _play(state, action)  # type: ignore[arg-type]
    if kind is Bid:
        return _bid(state, action)  # type: ignore[arg-type]
    if kind is Deal:
        return _deal(state, action)  # type: ignore[arg-type]
    raise TypeError(f"not a Back Alley action: {action!r} (expected a Bid, Play or Deal)")


def _wrong_phase(state: MatchState, action: Bid | Play | Deal) -> IllegalAction:
    doing = {
        Phase.DEAL: "the next deal has to be dealt first",
        Phase.BID: "the players are bidding",
        Phase.PLAY: "the cards are being played",
    }[state.phase]
    return IllegalAction(Reason.WRONG_PHASE, action, f"Not now: {doing}.")


def _not_your_turn(action: Bid | Play, seat: int) -> IllegalAction:
    return IllegalAction(
        Reason.NOT_YOUR_TURN,
        action,
        f"It is {SEATS[seat].name.title()}'s turn, not {action.seat.name.title()}'s.",
    )


# --- dealing -------------------------------------------------------------------


def _deal(state: MatchState, action: Deal) -> MatchState:
    if state.deal is not None:
        raise _wrong_phase(state, action)
    number = len(state.history)
    tiebreak = state.counted_deals >= state.rules.deals
    setup = deal(
        action.deck,
        dealer=SEATS[(state.rules.first_dealer + number) % 4],
        hand_size=state.hand_size,
        number=number,
        tiebreak=tiebreak,
    )
    # A tiebreak deal has no bidding: the player left of the dealer leads at once.
    leader = setup.first_bidder if tiebreak else None
    return MatchState(
        state.rules, state.seed, state.history, DealState(setup, setup.hands, leader=leader)
    )


# --- bidding -------------------------------------------------------------------


def _bid(state: MatchState, action: Bid) -> MatchState:
    current = state.deal
    if current is None or current.leader is not None:
        raise _wrong_phase(state, action)
    setup = current.setup
    seat = (setup.dealer + 1 + len(current.bids)) % 4
    if action.seat != seat:
        raise _not_your_turn(action, seat)
    if not bid_in_range(action, setup.hand_size):
        raise IllegalAction(
            Reason.BID_OUT_OF_RANGE, action, _out_of_range(setup.hand_size, action.amount)
        )
    bids = (*current.bids, action)
    if len(bids) < 4:
        return MatchState(
            state.rules, state.seed, state.history, DealState(setup, current.hands, bids)
        )
    if is_throw_in(bids):
        thrown = DealState(setup, current.hands, bids)
        return MatchState(state.rules, state.seed, (*state.history, DealResult(thrown, (0, 0))))
    leader = opening_leader(bids)
    return MatchState(
        state.rules, state.seed, state.history, DealState(setup, current.hands, bids, leader)
    )


def _out_of_range(hand_size: int, amount: int) -> str:
    top = hand_size - 1
    numbers = "" if top == 0 else ", 1," if top == 1 else f", 1 to {top},"
    cards = "one card" if hand_size == 1 else f"{hand_size} cards"
    return f"With {cards} you may bid Pass{numbers} or Board, not {amount}."


# --- play ----------------------------------------------------------------------


def _allowed(current: DealState, seat: int) -> tuple[int, Reason | None]:
    """The cards ``seat`` may play now and the reason for refusing any other."""
    hand = current.hands[seat]
    trick = current.trick
    # Only a lead before trumps are broken asks whether this player bid Board.
    bid_board = (
        not trick
        and not current.broken
        and bool(current.bids)
        and current.bids[(seat - current.setup.dealer - 1) % 4].board
    )
    return allowed_plays(hand, trick, trump_mask(current.setup.trump), current.broken, bid_board)


_REFUSALS: Final = {
    Reason.TRUMPS_NOT_BROKEN: (
        "Trumps are not broken: you may not lead a trump (or a joker) until one has "
        "been played to an earlier trick."
    ),
    Reason.MUST_FOLLOW_SUIT: "You must follow suit: {suit} were led and you hold one.",
    Reason.MUST_FOLLOW_TRUMP: "A trump was led: you must follow with a trump or a joker.",
    Reason.BIG_JOKER_FORCES_HIGHEST: (
        "The BIG joker was led: you must play your highest trump, {card}."
    ),
    Reason.LITTLE_JOKER_FORCES_LOWEST: (
        "The LITTLE joker was led: you must play your lowest trump, {card}."
    ),
}


def _refusal(current: DealState, action: Play, allowed: int, reason: Reason) -> IllegalAction:
    led = current.trick[0] if current.trick else None
    suit = CARDS[led].suit if led is not None else None
    card = CARDS[allowed.bit_length() - 1]
    message = _REFUSALS[reason].format(suit=suit.word if suit is not None else "", card=card.words)
    return IllegalAction(reason, action, message)


def _play(state: MatchState, action: Play) -> MatchState:
    current = state.deal
    if current is None or current.leader is None:
        raise _wrong_phase(state, action)
    seat = (current.leader + len(current.trick)) % 4
    if action.seat != seat:
        raise _not_your_turn(action, seat)
    card = action.card
    bit = 1 << card
    hand = current.hands[seat]
    if not hand & bit:
        raise IllegalAction(
            Reason.CARD_NOT_IN_HAND, action, f"You do not hold {card.words} ({card})."
        )
    allowed, reason = _allowed(current, seat)
    if not allowed & bit:
        raise _refusal(current, action, allowed, reason or Reason.CARD_NOT_IN_HAND)
    hands = list(current.hands)
    hands[seat] = hand ^ bit
    new_hands = (hands[0], hands[1], hands[2], hands[3])
    trick = (*current.trick, card)
    setup = current.setup
    if len(trick) < 4:
        following = DealState(
            setup, new_hands, current.bids, current.leader, trick, current.tricks, current.broken
        )
        return MatchState(state.rules, state.seed, state.history, following)
    winner = trick_winner(current.leader, trick, setup.trump)
    tricks = (*current.tricks, Trick(current.leader, trick, winner))
    broken = current.broken or any((1 << c) & trump_mask(setup.trump) for c in trick)
    following = DealState(setup, new_hands, current.bids, winner, (), tricks, broken)
    if len(tricks) < setup.hand_size:
        return MatchState(state.rules, state.seed, state.history, following)
    return _finish_deal(state, following)


# --- the end of a deal and of the match ------------------------------------------


def _finish_deal(state: MatchState, finished: DealState) -> MatchState:
    history = (*state.history, DealResult(finished, finished.scores()))
    rules = state.rules
    if finished.setup.tiebreak:
        ns, ew = finished.tricks_won
        if ns == ew:
            # Equal tricks decide nothing: another tiebreak deal follows.
            return MatchState(rules, state.seed, history)
        totals = state.totals
        winner = PAIRS[0] if ns > ew else PAIRS[1]
        return MatchState(
            rules, state.seed, history, None, Outcome(Termination.TIEBREAK_DEAL, winner, totals)
        )
    following = MatchState(rules, state.seed, history)
    if following.counted_deals < rules.deals:
        return following
    totals = following.totals
    if totals[0] != totals[1]:
        winner = PAIRS[0] if totals[0] > totals[1] else PAIRS[1]
        return MatchState(
            rules, state.seed, history, None, Outcome(Termination.SCORE, winner, totals)
        )
    if rules.tie is TiePolicy.DRAW:
        return MatchState(rules, state.seed, history, None, Outcome(Termination.DRAW, None, totals))
    return following
