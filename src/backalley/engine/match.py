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
from ..core.bidding import bid_in_range, bid_of_code, opening_leader
from ..core.cards import CARDS, PAIRS, SEATS, Card, Pair, Seat
from ..core.dealing import MAX_SEED, check_whole, deal_hands, seeded_deck
from ..core.errors import IllegalAction, Reason
from ..core.flow import (
    dealer_of_deal,
    hand_size_of_deal,
    in_tiebreak,
    seat_to_move,
    thrown_in,
)
from ..core.position import BID, BROKEN, HANDS, LEADER, NUMBER, PHASE, TRICK
from ..core.rules import Rules, TiePolicy
from ..core.tricks import Trick, allowed_plays, trick_winner
from ._fast import (
    BID_POSITION,
    LEGAL_BIDS,
    build_core,
    build_deal,
    build_match,
    plays_of,
)
from .state import (
    DealResult,
    DealState,
    MatchCore,
    MatchState,
    Outcome,
    Phase,
    Termination,
    position_of,
)

__all__ = ["apply", "legal_actions", "new_match", "replay_deal", "seeded_deal", "turn"]


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
        return MatchState(MatchCore(rules, secrets.randbits(64)))
    check_whole(seed, MAX_SEED, "a seed")
    return MatchState(MatchCore(rules, cast(int, seed)))  # a whole number: checked above


def seeded_deal(state: MatchState) -> Deal:
    """The deal that the match's seed prescribes for the next deal."""
    return deal_of_permutation(seeded_deck(state.seed, len(state.history)))


def legal_actions(state: MatchState) -> tuple[Bid | Play | Deal, ...]:
    """Every action the rules allow now, for the player to move.

    Bids are listed Pass, 1, 2, ..., Board; plays in card order. At the chance
    step the one listed action is the seeded deal; after the match, nothing.
    """
    try:
        current = state.deal
    except AttributeError:
        raise TypeError(f"legal_actions needs a MatchState, not {type(state).__name__}") from None
    if current is None:
        return () if state.core.outcome is not None else (seeded_deal(state),)
    core = current.core
    leader = core.leader
    if leader is None:
        setup = core.setup
        return LEGAL_BIDS[setup.dealer][len(core.bids)][setup.hand_size]
    # In play the dealer and the bids no longer decide whose turn it is.
    seat = seat_to_move(0, 4, leader, len(current.trick))
    return plays_of(seat, _allowed(current, seat)[0])


def turn(state: MatchState) -> tuple[Seat, tuple[Bid | Play, ...]] | None:
    """The seat to bid or play and its legal actions; None at a chance step or after the match.

    ``(state.to_move, legal_actions(state))`` in one call, for a match driver that
    asks both before every decision (``tests/test_fast.py`` checks they agree).
    """
    current = state.deal
    if current is None:
        return None
    core = current.core
    leader = core.leader
    if leader is None:
        setup = core.setup
        said = len(core.bids)
        return seat_to_move(setup.dealer, said, -1, 0), LEGAL_BIDS[setup.dealer][said][
            setup.hand_size
        ]
    seat = seat_to_move(0, 4, leader, len(current.trick))  # in play the dealer does not matter
    return seat, plays_of(seat, _allowed(current, seat)[0])


def apply(state: MatchState, action: Bid | Play | Deal) -> MatchState:
    """The state after ``action``; raises ``IllegalAction`` if the rules forbid it.

    The input state is never changed. The phase decides which action may come:
    a deal between deals, a bid while bidding, a card while playing; anything
    else is refused as out of turn (or after the match, as too late).
    """
    # The exact type, not isinstance: an action is one of three final classes, and
    # this is asked on every call.
    kind = type(action)
    if kind is not Play and kind is not Bid and kind is not Deal:
        raise TypeError(f"not a Back Alley action: {action!r} (expected a Bid, Play or Deal)")
    if not isinstance(state, MatchState):
        raise TypeError(f"apply needs a MatchState, not {type(state).__name__}")
    current = state.deal
    if current is None:  # DEAL (or OVER)
        if kind is Deal and state.core.outcome is None:
            return _deal(state, action)  # type: ignore[arg-type]
    elif current.core.leader is not None:  # PLAY
        if kind is Play:
            return _play(state, current, action)  # type: ignore[arg-type]
    elif kind is Bid:  # BID
        return _bid(state, current, action)  # type: ignore[arg-type]
    raise _wrong_phase(state, action)


def _wrong_phase(state: MatchState, action: Bid | Play | Deal) -> IllegalAction:
    if state.core.outcome is not None:
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


def _deal(state: MatchState, action: Deal) -> MatchState:
    core = state.core
    rules = core.rules
    number = len(core.history)
    setup = deal_hands(
        action.deck,
        dealer=dealer_of_deal(rules, number),
        hand_size=hand_size_of_deal(rules, core.counted),
        number=number,
        tiebreak=(tiebreak := in_tiebreak(rules, core.counted)),
    )
    # A tiebreak deal has no bidding: the player left of the dealer leads at once.
    leader = setup.first_bidder if tiebreak else None
    return build_match(core, build_deal(build_core(setup, (), leader, (), False), setup.hands, ()))


# --- bidding -------------------------------------------------------------------


def _bid(state: MatchState, current: DealState, action: Bid) -> MatchState:
    core = current.core
    setup = core.setup
    # Check: the bidder's turn (BID-1) and the bid's range (BID-2).
    seat = seat_to_move(setup.dealer, len(core.bids), -1, 0)
    if action.seat != seat:
        raise _not_your_turn(action, seat)
    if not bid_in_range(action, setup.hand_size):
        raise IllegalAction(
            Reason.BID_OUT_OF_RANGE, action, _out_of_range(setup.hand_size, action.amount)
        )
    # Build: the circuit goes on, is thrown in (MATCH-3), or the first trick is led (BID-8).
    bids = (*core.bids, action)
    if len(bids) < 4:
        return build_match(
            state.core, build_deal(build_core(setup, bids, None, (), False), current.hands, ())
        )
    if thrown_in(bids):
        return _throw_in(
            state.core, build_deal(build_core(setup, bids, None, (), False), current.hands, ())
        )
    leader = opening_leader(bids)
    return build_match(
        state.core, build_deal(build_core(setup, bids, leader, (), False), current.hands, ())
    )


def _out_of_range(hand_size: int, amount: int) -> str:
    top = hand_size - 1
    numbers = "" if top == 0 else ", 1," if top == 1 else f", 1 to {top},"
    cards = "one card" if hand_size == 1 else f"{hand_size} cards"
    return f"With {cards} you may bid Pass{numbers} or Board, not {amount}."


# --- play ----------------------------------------------------------------------


def _allowed(current: DealState, seat: int) -> tuple[int, Reason | None]:
    """The cards ``seat`` may play now and the reason for refusing any other."""
    core = current.core
    trick = current.trick
    broken = core.broken
    # Only a lead before trumps are broken asks whether this player bid Board.
    bid_board = (
        not trick
        and not broken
        and bool(core.bids)
        and core.bids[BID_POSITION[core.setup.dealer][seat]].board
    )
    return allowed_plays(current.hands[seat], trick, core.setup.trumps, broken, bid_board)


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


def _play(state: MatchState, current: DealState, action: Play) -> MatchState:
    core = current.core
    leader = core.leader
    assert leader is not None  # apply calls this only in the PLAY phase
    # Check: the player's turn (PLAY-1), the card in hand, the card allowed (PLAY-2..6).
    played = current.trick
    seat = seat_to_move(0, 4, leader, len(played))  # in play the dealer's seat does not matter
    if action.seat != seat:
        raise _not_your_turn(action, seat)
    card = action.card
    bit = 1 << card
    hands = current.hands
    if not hands[seat] & bit:
        raise IllegalAction(
            Reason.CARD_NOT_IN_HAND, action, f"You do not hold {card.words} ({card})."
        )
    allowed, reason = _allowed(current, seat)
    if not allowed & bit:
        raise _refusal(current, action, allowed, reason or Reason.CARD_NOT_IN_HAND)
    # Build: the card leaves the hand; inside a trick that is all (the deal's core is
    # shared), the fourth card completes the trick (PLAY-7, PLAY-8), the last trick the deal.
    if seat == 0:
        hands = (hands[0] ^ bit, hands[1], hands[2], hands[3])
    elif seat == 1:
        hands = (hands[0], hands[1] ^ bit, hands[2], hands[3])
    elif seat == 2:
        hands = (hands[0], hands[1], hands[2] ^ bit, hands[3])
    else:
        hands = (hands[0], hands[1], hands[2], hands[3] ^ bit)
    trick = (*played, card)
    if len(trick) < 4:
        return build_match(state.core, build_deal(core, hands, trick))
    setup = core.setup
    winner = trick_winner(leader, trick, setup.trump)
    tricks = (*core.tricks, Trick(leader, trick, winner))
    a, b, c, d = trick
    broken = core.broken or bool(((1 << a) | (1 << b) | (1 << c) | (1 << d)) & setup.trumps)
    following = build_deal(build_core(setup, core.bids, winner, tricks, broken), hands, ())
    if len(tricks) < setup.hand_size:
        return build_match(state.core, following)
    return _finish_deal(state.core, following)


# --- the end of a deal and of the match ------------------------------------------


def _throw_in(match: MatchCore, thrown: DealState) -> MatchState:
    """The match after four passes: the deal scores nothing and does not count (MATCH-3)."""
    history = (*match.history, DealResult(thrown, (0, 0)))
    return MatchState(MatchCore(match.rules, match.seed, history, None, match.counted))


def _finish_deal(match: MatchCore, finished: DealState) -> MatchState:
    """The match after the last trick of a deal: score it, then go on or end."""
    rules, seed = match.rules, match.seed
    history = (*match.history, DealResult(finished, finished.settle()))
    tiebreak = finished.setup.tiebreak
    counted = match.counted if tiebreak else match.counted + 1
    following = MatchState(MatchCore(rules, seed, history, None, counted))
    if tiebreak:
        ns, ew = finished.tricks_won
        if ns == ew:
            # Equal tricks decide nothing: another tiebreak deal follows (END-4).
            return following
        winner = PAIRS[0] if ns > ew else PAIRS[1]
        return _ended(following, Termination.TIEBREAK_DEAL, winner)
    if counted < rules.deals:
        return following
    ns, ew = following.totals
    if ns != ew:
        return _ended(following, Termination.SCORE, PAIRS[0] if ns > ew else PAIRS[1])
    if rules.tie is TiePolicy.DRAW:
        return _ended(following, Termination.DRAW, None)
    return following


def _ended(state: MatchState, termination: Termination, winner: Pair | None) -> MatchState:
    core = state.core
    outcome = Outcome(termination, winner, state.totals)
    return MatchState(MatchCore(core.rules, core.seed, core.history, outcome, core.counted))


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
    ``play_if_allowed``, the same rules ``apply`` asks), and the public state is built once,
    at the end, by the same helpers as ``apply``'s (``tests/test_match.py`` checks
    the two agree at every stopping point of random matches of every variant).
    """
    current = state.deal
    if current is None:
        return state, 0
    pos = position_of(state)
    bids = list(current.bids)
    tricks = list(current.tricks)
    done = 0
    for code in calls:
        if pos[PHASE] != BID or code not in position.legal_bids(pos):
            return _made(state, pos, bids, tricks), done
        seat = SEATS[position.to_move(pos)]
        bids.append(bid_of_code(seat, code))
        pos = position.bid(pos, code)
        done += 1
    play_if_allowed = position.play_if_allowed  # most of a record is its cards
    for card in cards:
        following = play_if_allowed(pos, card)
        if following is None:
            break
        played = pos[TRICK]
        leader = pos[LEADER]
        pos = following
        done += 1
        if len(played) == 3:
            trick = (CARDS[played[0]], CARDS[played[1]], CARDS[played[2]], CARDS[card])
            tricks.append(Trick(SEATS[leader], trick, SEATS[pos[LEADER]]))
    return _made(state, pos, bids, tricks), done


def _made(
    state: MatchState, pos: position.Position, bids: list[Bid], tricks: list[Trick]
) -> MatchState:
    """The public state of ``pos``, reached from ``state`` within its deal (``replay_deal``)."""
    current = state.deal
    assert current is not None  # replay_deal returns at once between deals
    setup = current.setup
    leader = pos[LEADER]
    core = build_core(
        setup,
        tuple(bids),
        None if leader < 0 else SEATS[leader],
        tuple(tricks),
        pos[BROKEN],
    )
    trick: tuple[Card, ...] = tuple(CARDS[card] for card in pos[TRICK])
    deal = build_deal(core, pos[HANDS], trick)
    if pos[NUMBER] == setup.number:
        return build_match(state.core, deal)
    if len(tricks) < setup.hand_size:
        return _throw_in(state.core, deal)
    return _finish_deal(state.core, deal)
