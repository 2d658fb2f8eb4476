"""The match: ``new_match``, ``legal_actions`` and the pure ``apply``.

Match flow (``docs/rules.md`` "Dealing", "The match and its end"; ``000`` §02,
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

``apply(state, action)`` reads top-down: it dispatches on the phase, checks the
action against the rules, builds the new state and is done; the input is never
changed. An action the
rules forbid raises :class:`~backalley.core.errors.IllegalAction` with its reason.
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
from collections.abc import Sequence
from typing import Final, cast, overload

from ..core import position
from ..core.actions import Bid, Deal, Play, deal_of_permutation
from ..core.bidding import bid_code, bid_in_range
from ..core.cards import CARDS, SEATS, Seat
from ..core.dealing import MAX_SEED, check_whole, deal_hands, seeded_deck
from ..core.errors import IllegalAction, Reason
from ..core.flow import seat_to_move
from ..core.position import (
    BID,
    BIDS,
    DEAL,
    DEALER,
    HANDS,
    LEADER,
    NUMBER,
    OVER,
    PHASE,
    PLAY,
    SIZE,
    TRICK,
)
from ..core.rules import Rules
from ..core.tricks import FOLLOWERS
from ._fast import LEGAL_BIDS, TO_PLAY, build_result, build_state, plays_of
from .state import MatchState, Phase

__all__ = ["apply", "legal_actions", "new_match", "replay_deal", "seeded_deal", "turn"]

# The classes ``apply`` tells apart at every call, bound by ``Final``: compiled, such a
# name is a C static, where a class imported from an interpreted module (the value
# types stay interpreted) is looked up in this module's dictionary at each use.
_PLAY: Final = Play
_BID: Final = Bid
_DEAL: Final = Deal
_STATE: Final = MatchState


@overload
def new_match(rules: Rules | None = None) -> MatchState: ...


@overload
def new_match(rules: Rules | None = None, *, seed: int | None) -> MatchState: ...


# The implementation takes ``object`` because it checks its arguments itself: compiled
# by mypyc, an ``int`` parameter would refuse a text with mypyc's own message and take
# a bool for an int before the check below could refuse it (the overloads keep the
# types that callers see).
def new_match(rules: object = None, *, seed: object = None) -> MatchState:
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
        return MatchState(position.start(rules), secrets.randbits(64))
    check_whole(seed, MAX_SEED, "a seed")
    return MatchState(position.start(rules), cast(int, seed))  # a whole number: checked above


def seeded_deal(state: MatchState) -> Deal:
    """The deal that the match's seed prescribes for the next deal."""
    return deal_of_permutation(seeded_deck(state.seed, len(state.history)))


def legal_actions(state: MatchState) -> tuple[Bid | Play | Deal, ...]:
    """Every action the rules allow now, for the player to move.

    Bids are listed Pass, 1, 2, ..., Board; plays in card order. At the chance
    step the one listed action is the seeded deal; after the match, nothing.
    """
    try:
        pos = state.position
    except AttributeError:
        raise TypeError(f"legal_actions needs a MatchState, not {type(state).__name__}") from None
    phase = pos[PHASE]
    if phase == PLAY:
        trick = pos[TRICK]
        seat = TO_PLAY[pos[LEADER]][len(trick)]
        return plays_of(seat, position.allowed_of(pos, seat, trick)[0])
    if phase == BID:
        return LEGAL_BIDS[pos[DEALER]][len(pos[BIDS])][pos[SIZE]]
    return () if phase == OVER else (seeded_deal(state),)


def turn(state: MatchState) -> tuple[Seat, tuple[Bid | Play, ...]] | None:
    """The seat to bid or play and its legal actions; None at a chance step or after the match.

    ``(state.to_move, legal_actions(state))`` in one call, for a match driver that
    asks both before every decision (``tests/test_fast.py`` checks they agree).
    """
    pos = state.position
    phase = pos[PHASE]
    if phase == PLAY:
        trick = pos[TRICK]
        seat = TO_PLAY[pos[LEADER]][len(trick)]
        return seat, plays_of(seat, position.allowed_of(pos, seat, trick)[0])
    if phase == BID:
        dealer = pos[DEALER]
        said = len(pos[BIDS])
        return seat_to_move(dealer, said, -1, 0), LEGAL_BIDS[dealer][said][pos[SIZE]]
    return None


def apply(state: MatchState, action: Bid | Play | Deal) -> MatchState:
    """The state after ``action``; raises ``IllegalAction`` if the rules forbid it.

    The input state is never changed. The phase decides which action may come:
    a deal between deals, a bid while bidding, a card while playing; anything
    else is refused as out of turn (or after the match, as too late).
    """
    # The exact type, not isinstance: an action is one of three final classes, and
    # this is asked on every call.
    kind = type(action)
    if kind is not _PLAY and kind is not _BID and kind is not _DEAL:
        raise TypeError(f"not a Back Alley action: {action!r} (expected a Bid, Play or Deal)")
    if not isinstance(state, _STATE):
        raise TypeError(f"apply needs a MatchState, not {type(state).__name__}")
    pos = state.position
    phase = pos[PHASE]
    if phase == PLAY:
        if kind is _PLAY:
            return _play(state, pos, action)  # type: ignore[arg-type]
    elif phase == BID:
        if kind is _BID:
            return _bid(state, pos, action)  # type: ignore[arg-type]
    elif phase == DEAL and kind is _DEAL:
        return _deal(state, pos, action)  # type: ignore[arg-type]
    raise _wrong_phase(state, action)


def _wrong_phase(state: MatchState, action: Bid | Play | Deal) -> IllegalAction:
    if state.is_over:
        return IllegalAction(Reason.MATCH_OVER, action, "The match is over: no more actions.")
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


def _deal(state: MatchState, pos: position.Position, action: Deal) -> MatchState:
    number, dealer, size, tiebreak = position.next_deal(pos)
    setup = deal_hands(
        action.deck, dealer=SEATS[dealer], hand_size=size, number=number, tiebreak=tiebreak
    )
    following = position.deal(pos, setup.hands, setup.trumps)
    return build_state(following, state.seed, state.history, setup)


# --- bidding -------------------------------------------------------------------


def _bid(state: MatchState, pos: position.Position, action: Bid) -> MatchState:
    # Check: the bidder's turn (BID-1) and the bid's range (BID-2).
    seat = seat_to_move(pos[DEALER], len(pos[BIDS]), -1, 0)
    if action.seat != seat:
        raise _not_your_turn(action, seat)
    size = pos[SIZE]
    if not bid_in_range(action, size):
        raise IllegalAction(Reason.BID_OUT_OF_RANGE, action, _out_of_range(size, action.amount))
    # Build: the circuit goes on, is thrown in (MATCH-3), or the first trick is led (BID-8).
    following = position.bid(pos, bid_code(action))
    if following[PHASE] == BID or following[PHASE] == PLAY:
        return build_state(following, state.seed, state.history, state.setup)
    return _deal_over(state, following)


def _out_of_range(hand_size: int, amount: int) -> str:
    top = hand_size - 1
    numbers = "" if top == 0 else ", 1," if top == 1 else f", 1 to {top},"
    cards = "one card" if hand_size == 1 else f"{hand_size} cards"
    return f"With {cards} you may bid Pass{numbers} or Board, not {amount}."


# --- play ----------------------------------------------------------------------


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


def _refusal(trick: tuple[int, ...], action: Play, allowed: int, reason: Reason) -> IllegalAction:
    suit = CARDS[trick[0]].suit if trick else None
    card = CARDS[allowed.bit_length() - 1]
    message = _REFUSALS[reason].format(suit=suit.word if suit is not None else "", card=card.words)
    return IllegalAction(reason, action, message)


def _play(state: MatchState, pos: position.Position, action: Play) -> MatchState:
    # Check: the player's turn (PLAY-1), the card in hand, the card allowed (PLAY-2..6).
    trick = pos[TRICK]
    seat = TO_PLAY[pos[LEADER]][len(trick)]
    if action.seat != seat:
        raise _not_your_turn(action, seat)
    # The card as a plain int: compiled, the shifts below are native on it (a Card is
    # an int, and an object to shift by otherwise).
    card: int = action.card
    if not pos[HANDS][seat] >> card & 1:
        held = action.card
        raise IllegalAction(
            Reason.CARD_NOT_IN_HAND, action, f"You do not hold {held.words} ({held})."
        )
    # A card of the plain suit led is always allowed (tricks.FOLLOWERS): most cards of a
    # deal, which then skip the whole rule.
    if not (trick and FOLLOWERS[trick[0]] >> card & 1):
        allowed, reason = position.allowed_of(pos, seat, trick)
        if not allowed >> card & 1:
            raise _refusal(trick, action, allowed, reason or Reason.CARD_NOT_IN_HAND)
    # Build: the card leaves the hand and joins the trick; the fourth card completes
    # the trick (PLAY-7, PLAY-8), the last trick the deal.
    following = position.play_by(pos, seat, card)
    if following[PHASE] == PLAY:
        return build_state(following, state.seed, state.history, state.setup)
    return _deal_over(state, following)


# --- the end of a deal -------------------------------------------------------------


def _deal_over(state: MatchState, pos: position.Position) -> MatchState:
    """The match after the last card of a deal, or its fourth pass: the deal joins the history.

    The position has scored it and decided whether the match goes on
    (``position.play``, ``position.bid``): a thrown-in deal (MATCH-3) and a
    tiebreak deal score nothing.
    """
    setup = state.setup
    assert setup is not None  # a deal was in progress
    return build_state(pos, state.seed, (*state.history, build_result(pos, setup)), None)


# --- a recorded deal replayed on the compact position -----------------------------


def replay_deal(
    state: MatchState, calls: Sequence[int], cards: Sequence[int]
) -> tuple[MatchState, int]:
    """Replay a deal's ``calls`` (bid codes) then ``cards``, each by the seat to move.

    The state reached and how many of the actions the rules accepted: it stops at
    the first one they refuse, or that comes after the deal has ended, and
    ``apply`` of that action to the state returned raises the refusal. What
    ``apply`` action by action would reach, for a checker of records that needs
    only the end (``formats.checking.replay``): each action is judged and made on
    the compact position (``core.position``: ``legal_bids``, ``bid``,
    ``player_if_allowed`` and ``play_by``, the same rules ``apply`` asks), and the
    public state is made once, at the end (``tests/test_match.py`` checks the two agree at every
    stopping point of random matches of every variant).
    """
    pos = state.position
    if pos[PHASE] != BID and pos[PHASE] != PLAY:
        return state, 0
    number = pos[NUMBER]
    done = 0
    for code in calls:
        if pos[PHASE] != BID or code not in position.legal_bids(pos):
            break
        pos = position.bid(pos, code)
        done += 1
    else:
        # Compiled, the position stays a native value through these calls: they are made
        # by the module's name (a local alias would be a Python object, called through
        # its wrapper), and the seat is a plain int where play_if_allowed's position or
        # None would be a boxed object (the whole position boxed and unboxed at every card).
        for card in cards:
            seat = position.player_if_allowed(pos, card)
            if seat < 0:
                break
            pos = position.play_by(pos, seat, card)
            done += 1
    if done == 0:
        return state, 0
    if pos[NUMBER] == number:
        return build_state(pos, state.seed, state.history, state.setup), done
    return _deal_over(state, pos), done
