"""Deliberately wrong engines for the fuzzer's tests: ours with one rule changed.

Run as a command, ``python tests/wrong_engines.py NAME`` serves the engine
protocol on stdin/stdout after changing one rule (``WRONG_RULES``), or
misbehaves at the protocol level (``BROKEN``). The test process keeps the
right rules: only this child process is patched.
"""

from __future__ import annotations

import json
import sys
import time

import attrs

from backalley.core import bidding, dealing, position
from backalley.core.bidding import BOARD, contract_terms
from backalley.core.cards import Card, Seat
from backalley.core.errors import Reason
from backalley.core.position import (
    BIDS,
    COUNTED,
    DEALER,
    DRAW,
    GOING_ON,
    HANDS,
    OUTCOME,
    OVER,
    PLAY,
    RULES,
    TIEBREAK,
    TRUMPS,
)
from backalley.core.tricks import allowed_plays
from backalley.engine import match
from backalley.protocol import server
from backalley.protocol.messages import OK_LINE, encode
from backalley.protocol.server import Session, serve

# The rules are applied on the compact position (``core.position``): each wrong engine
# replaces one of the functions it calls, as a module attribute, so that the engine,
# its legal actions and the public state made from the position all follow the change.
_allowed_of = position.allowed_of


def _patching(module, name, new):
    """A wrong engine's change: ``module.name`` replaced by ``new`` (see :func:`_replace`)."""
    return lambda: _replace(module, name, new)


def _replace(module, name, new):
    """Put ``new`` in the place of ``module.name``, which must exist (a renamed function
    would otherwise be patched in vain, and the engine would not be wrong at all)."""
    if not hasattr(module, name):
        raise SystemExit(f"wrong_engines: {module.__name__} has no {name} to replace")
    setattr(module, name, new)


def _with(pos, **fields):
    changed = list(pos)
    for name, value in fields.items():
        changed[getattr(position, name.upper())] = value
    return tuple(changed)


def _ignoring(reason: Reason):
    """``allowed_of`` that lets any held card through where ``reason`` would refuse."""

    def allowed(pos, seat, trick):
        cards, why = _allowed_of(pos, seat, trick)
        if why is reason:
            return pos[HANDS][seat], None
        return cards, why

    return allowed


def _no_swap(deck, **kwargs):
    setup = dealing.deal_hands(deck, **kwargs)
    if setup.swap is None:
        return setup
    hands = list(setup.hands)
    hands[setup.swap.seat] ^= (1 << setup.swap.joker) | (1 << setup.swap.received)
    return attrs.evolve(setup, hands=tuple(hands), swap=None)


_score_terms = position.score_terms


def _board_ignores_multiplier(target, multiplier, hand_size, tricks):
    return _score_terms(target, min(multiplier, 1), hand_size, tricks)


_opening_seat = bidding.opening_seat


def _first_board_leads(said):
    said = list(said)
    boards = [seat for seat, code in said if code == BOARD]
    if len(boards) >= 2:
        return boards[0]
    return _opening_seat(said)


def _first_board_leads_everywhere():
    # The position finds the opening leader, and so does the public deal made from it.
    _replace(position, "opening_seat", _first_board_leads)
    _replace(bidding, "opening_seat", _first_board_leads)


_bid = position.bid


def _four_passes_played(pos, code):
    """MATCH-3 broken: four passes do not throw the deal in; the dealer's left leads."""
    if len(pos[BIDS]) == 3 and code == 0 and not any(pos[BIDS]):
        return _with(pos, bids=(0, 0, 0, 0), phase=PLAY, leader=(pos[DEALER] + 1) % 4)
    return _bid(pos, code)


_finish = position._finish


def _tie_is_a_draw(pos):
    """END-3 broken: equal totals after the schedule are a draw, with no tiebreak deal."""
    following = _finish(pos)
    if following[OUTCOME] == GOING_ON and following[COUNTED] >= following[RULES].deals:
        return _with(following, phase=OVER, outcome=DRAW)
    return following


def _level_tiebreak_is_a_draw(pos):
    """END-4 broken: a tiebreak deal with equal tricks ends the match as a draw."""
    following = _finish(pos)
    if pos[TIEBREAK] and following[OUTCOME] == GOING_ON:
        return _with(following, phase=OVER, outcome=DRAW)
    return following


_winning_card = position.winning_card


def _little_beats_big(cards, trumps):
    swapped = tuple(
        Card.BIG if card == Card.LITTLE else Card.LITTLE if card == Card.BIG else card
        for card in cards
    )
    return _winning_card(swapped, trumps)


_not_your_turn = match._not_your_turn


def _wrong_phase_for_turn(action, seat):
    """Refuse an action out of turn, but give the reason code of the wrong phase."""
    error = _not_your_turn(action, seat)
    error.reason = Reason.WRONG_PHASE
    return error


def _lone_big_not_forced(pos, seat, trick):
    """JOKER-2 broken: after a LITTLE lead, a player whose only trump is BIG plays anything."""
    cards, why = _allowed_of(pos, seat, trick)
    if why is Reason.LITTLE_JOKER_FORCES_LOWEST and cards == 1 << Card.BIG:
        return pos[HANDS][seat], None
    return cards, why


def _board_bidder_banned(pos, seat, trick):
    """PLAY-5 broken: a Board bidder may not lead trumps before they are broken."""
    return allowed_plays(pos[HANDS][seat], trick, pos[TRUMPS], pos[position.BROKEN], False)


_deal_scores = position.deal_scores


def _passing_pair_against_a_board(pos):
    """SCORE-3 broken: a pair that passed twice scores nothing when the other pair bid Board."""
    scores = list(_deal_scores(pos))
    bids = pos[BIDS]
    if len(bids) == 4:
        first = pos[DEALER] + 1
        terms = contract_terms(((first + i) % 4, bids[i]) for i in range(4))
        for pair in (0, 1):
            (target, multiplier), theirs = terms[pair], terms[1 - pair]
            if multiplier == 0 and target == 0 and theirs[1]:
                scores[pair] = 0
    return tuple(scores)


_rules_from_json = server.rules_from_json


def _north_deals_first(data, path="rules"):
    return attrs.evolve(_rules_from_json(data, path), first_dealer=Seat.NORTH)


# --- more wrong engines: one for each rule an action can break --------------------------

from backalley.core import flow  # noqa: E402 - kept beside the engines that patch it
from backalley.core.cards import Suit  # noqa: E402
from backalley.core.position import (  # noqa: E402
    BOARD as _BOARD_CODE,
)
from backalley.core.position import (  # noqa: E402
    COUNTED as _COUNTED,
)
from backalley.core.position import (  # noqa: E402
    DEAL as _DEAL_PHASE,
)
from backalley.core.position import (  # noqa: E402
    LEADER,
    SCORE_EW,
    SCORE_NS,
    SIZE,
    TRICK,
)
from backalley.engine import _fast  # noqa: E402
from backalley.engine.match import IllegalAction  # noqa: E402


def _ace_low(cards, trumps):
    """CARD-2 broken: in a trick without trumps, plain aces rank below the two."""
    if any(trumps >> card & 1 for card in cards):
        return _winning_card(cards, trumps)
    led = cards[0] // 13
    following = [(i, c) for i, c in enumerate(cards) if c < 52 and c // 13 == led]
    index, card = max(following, key=lambda pair: -1 if pair[1] % 13 == 12 else pair[1] % 13)
    return card, index


def _highest_rank_wins(cards, trumps):
    """PLAY-7 broken: in a trick without trumps, the highest rank of any suit wins."""
    if any(trumps >> card & 1 for card in cards) or any(card >= 52 for card in cards):
        return _winning_card(cards, trumps)
    index = max(range(4), key=lambda i: (cards[i] % 13, -i))
    return cards[index], index


_play_by = position.play_by


def _winners_left_leads(pos, seat, card):
    """PLAY-8 broken: the player left of a trick's winner leads the next trick."""
    following = _play_by(pos, seat, card)
    if len(pos[TRICK]) == 3 and following[PHASE_INDEX] == PLAY:
        return _with(following, leader=(following[LEADER] + 1) % 4)
    return following


PHASE_INDEX = position.PHASE


def _counterclockwise_dealer(rules, number):
    """MATCH-2 broken: the deal passes counterclockwise."""
    return Seat((rules.first_dealer - number) % 4)


def _deal_passes_counterclockwise():
    from backalley.protocol import messages  # noqa: PLC0415 - the facts name the dealer

    _replace(position, "dealer_of_deal", _counterclockwise_dealer)
    _replace(messages, "dealer_of_deal", _counterclockwise_dealer)


def _with_schedule(name, sizes):
    """A rules reader that plays the named schedule ``name`` with other hand sizes."""

    def read(data, path="rules"):
        rules = _rules_from_json(data, path)
        if rules.schedule_name == name:
            return attrs.evolve(rules, schedule=sizes)
        return rules

    return read


def _custom_reversed(data, path="rules"):
    """SCHED-4 broken: a schedule of the match's own is played from its end."""
    rules = _rules_from_json(data, path)
    if rules.schedule_name is None and rules.schedule != rules.schedule[::-1]:
        return attrs.evolve(rules, schedule=rules.schedule[::-1])
    return rules


_deal_hands = match.deal_hands


def _dealt_from_the_dealer(deck, **kwargs):
    """DEAL-1 broken: the first card goes to the dealer, not the dealer's left."""
    setup = _deal_hands(deck, **kwargs)
    hands = setup.hands
    return attrs.evolve(setup, hands=(hands[1], hands[2], hands[3], hands[0]))


def _last_card_turned(deck, **kwargs):
    """DEAL-2 broken: the bottom card of the deck is turned, not the next one."""
    turned = 4 * kwargs["hand_size"]
    deck = list(deck)
    deck[turned], deck[-1] = deck[-1], deck[turned]
    return _deal_hands(tuple(deck), **kwargs)


def _joker_turned_spades_trumps(deck, **kwargs):
    """DEAL-3 broken: a turned joker leaves spades trumps."""
    setup = _deal_hands(deck, **kwargs)
    if setup.turned.is_joker:
        return attrs.evolve(setup, trump=Suit.SPADES)
    return setup


_seat_to_move = flow.seat_to_move


def _dealer_bids_first_seat(dealer, said, leader, down):
    if leader < 0:
        return _seat_to_move((dealer - 1) % 4, said, leader, down)
    return _seat_to_move(dealer, said, leader, down)


def _dealer_bids_first():
    """BID-1 broken: the dealer bids first, the dealer's right last."""
    _replace(match, "seat_to_move", _dealer_bids_first_seat)
    _replace(position, "seat_to_move", _dealer_bids_first_seat)
    rotated = tuple(_fast.LEGAL_BIDS[(dealer - 1) % 4] for dealer in range(4))
    _replace(match, "LEGAL_BIDS", rotated)


_legal_actions = server.legal_actions
_bid_state = match._bid


def _refusing_bids(refuse):
    """An engine refusing the numeric bids ``refuse(bids so far, partner's code, amount,
    hand size)`` says are wrong: in apply and in its legal actions."""

    def refused(state, action):
        if not isinstance(action, bidding.Bid) or action.board or not action.amount:
            return False
        pos = state.position
        said = pos[BIDS]
        partner = said[len(said) - 2] if len(said) >= 2 else None
        return refuse(said, partner, action.amount, pos[SIZE])

    def bid(state, pos, action):
        if refused(state, action):
            raise IllegalAction(Reason.BID_OUT_OF_RANGE, action, "Not that bid.")
        return _bid_state(state, pos, action)

    def legal(state):
        return tuple(action for action in _legal_actions(state) if not refused(state, action))

    _replace(match, "_bid", bid)
    _replace(server, "legal_actions", legal)


def _increasing(said, partner, amount, size):
    """BID-3 broken: a number must be above every number said before it."""
    return any(code != _BOARD_CODE and code >= amount for code in said)


def _no_overbid(said, partner, amount, size):
    """BID-7 broken: a pair's target may not exceed the hand size."""
    return partner is not None and partner != _BOARD_CODE and partner + amount > size


def _bid_the_hand_size():
    """BID-2 broken: a number equal to the hand size may be bid (below 13 cards)."""
    right = match.bid_in_range

    def in_range(action, size):
        return right(action, size) or (not action.board and action.amount == size < 13)

    def legal(state):
        found = _legal_actions(state)
        pos = state.position
        if pos[PHASE_INDEX] == position.BID and pos[SIZE] < 13 and found:
            return (*found, bidding.Bid(found[0].seat, pos[SIZE]))
        return found

    _replace(match, "bid_in_range", in_range)
    _replace(server, "legal_actions", legal)


_contract_terms = position.contract_terms


def _inherit_multiplier(said):
    """BID-5 broken: a pair with a Board plays the other pair's higher multiplier."""
    (t0, m0), (t1, m1) = _contract_terms(said)
    if m0 and m1:
        top = max(m0, m1)
        return (t0, top), (t1, top)
    return (t0, m0), (t1, m1)


def _larger_bid_is_the_target(said):
    """BID-6 broken: a pair's target is the larger of its two bids, not their sum."""
    said = list(said)
    (t0, m0), (t1, m1) = _contract_terms(said)
    larger = [0, 0]
    for seat, code in said:
        if code != _BOARD_CODE:
            larger[seat % 2] = max(larger[seat % 2], code)
    return (t0 if m0 else larger[0], m0), (t1 if m1 else larger[1], m1)


_position_bid = position.bid


def _throw_in_counts(pos, code):
    """MATCH-4 broken: a thrown-in deal counts towards the schedule."""
    following = _position_bid(pos, code)
    if len(following[BIDS]) == 4 and following[PHASE_INDEX] == _DEAL_PHASE:
        return _with(following, counted=following[_COUNTED] + 1)
    return following


def _counterclockwise_seat(dealer, said, leader, down):
    if leader >= 0:
        return Seat((leader - down) % 4)
    return _seat_to_move(dealer, said, leader, down)


def _counterclockwise_play():
    """PLAY-1 broken: after the lead, play goes counterclockwise."""
    _replace(match, "seat_to_move", _counterclockwise_seat)
    _replace(position, "seat_to_move", _counterclockwise_seat)


def _only_trumps_may_not_lead(pos, seat, trick):
    """PLAY-6 broken: a hand of only trumps may not lead before trumps are broken."""
    cards, why = _allowed_of(pos, seat, trick)
    hand, trumps = pos[HANDS][seat], pos[TRUMPS]
    said = pos[BIDS]
    board = len(said) == 4 and said[(seat - pos[DEALER] - 1) % 4] == _BOARD_CODE
    if not trick and not pos[position.BROKEN] and not board and hand and not hand & ~trumps:
        return 0, Reason.TRUMPS_NOT_BROKEN
    return cards, why


def _lowest_without_trumps(pos, seat, trick):
    """JOKER-3 broken: after a joker lead, a player without trumps must play the lowest card."""
    cards, why = _allowed_of(pos, seat, trick)
    hand, trumps = pos[HANDS][seat], pos[TRUMPS]
    if trick and trick[0] >= Card.LITTLE and trumps and not hand & trumps:
        low = min(range(54), key=lambda card: (not hand >> card & 1, card % 13, card))
        return 1 << low, Reason.MUST_FOLLOW_SUIT
    return cards, why


def _joker_response_forces(pos, seat, trick):
    """JOKER-4 broken: a joker played to a trick it did not lead forces like a joker lead."""
    cards, why = _allowed_of(pos, seat, trick)
    hand, trumps = pos[HANDS][seat], pos[TRUMPS]
    if trick and trick[0] < Card.LITTLE:
        for card in trick[1:]:
            if card >= Card.LITTLE:
                # What the joker would force had it led the trick.
                forced, reason = allowed_plays(hand, (card,), trumps, True, False)
                if reason in (Reason.BIG_JOKER_FORCES_HIGHEST, Reason.LITTLE_JOKER_FORCES_LOWEST):
                    return forced, reason
    return cards, why


def _nothing_against_a_board(pos):
    """SCORE-1 broken: a numeric pair scores nothing when the other pair bid Board."""
    scores = list(_deal_scores(pos))
    if len(pos[BIDS]) == 4:
        terms = position.contracts_of(pos)
        for pair in (0, 1):
            (target, multiplier), theirs = terms[pair], terms[1 - pair]
            if not multiplier and target and theirs[1]:
                scores[pair] = 0
    return tuple(scores)


def _no_overtricks(target, multiplier, hand_size, tricks):
    """SCORE-2 broken: tricks above the target score nothing."""
    if not multiplier and target and tricks > target:
        return 5 * target
    return _score_terms(target, multiplier, hand_size, tricks)


def _failed_board_costs_nothing(target, multiplier, hand_size, tricks):
    """SCORE-4 broken: a Board that falls short loses nothing."""
    if multiplier and tricks < hand_size:
        return 0
    return _score_terms(target, multiplier, hand_size, tricks)


def _tiebreak_at_the_last_size(rules, counted):
    """END-3 broken: the tiebreak deal has the schedule's last hand size, not its largest."""
    schedule = rules.schedule
    return schedule[counted] if counted < len(schedule) else schedule[-1]


def _tiebreak_at_last_size():
    from backalley.protocol import messages  # noqa: PLC0415 - the facts name the hand size

    _replace(position, "hand_size_of_deal", _tiebreak_at_the_last_size)
    if hasattr(messages, "hand_size_of_deal"):
        _replace(messages, "hand_size_of_deal", _tiebreak_at_the_last_size)


def _partner_board_leads_trumps(pos, seat, trick):
    """PLAY-5 broken: the partner of a Board bidder may lead trumps at once too."""
    cards, why = _allowed_of(pos, seat, trick)
    said = pos[BIDS]
    partner = (seat + 2) % 4
    partner_board = len(said) == 4 and said[(partner - pos[DEALER] - 1) % 4] == _BOARD_CODE
    if why is Reason.TRUMPS_NOT_BROKEN and partner_board:
        return pos[HANDS][seat], None
    return cards, why


_dealt = position.dealt


def _tiebreak_dealer_leads(pos, number, dealer, size, tiebreak, hands, trumps):  # noqa: PLR0917
    """END-3 broken: the dealer leads a tiebreak deal, not the dealer's left."""
    following = _dealt(pos, number, dealer, size, tiebreak, hands, trumps)
    return _with(following, leader=dealer) if tiebreak else following


def _swap_skips_a_card(deck, **kwargs):
    """DEAL-4 broken: the joker is replaced by the second card after the turned one."""
    setup = _deal_hands(deck, **kwargs)
    if setup.swap is None:
        return setup
    hands = list(setup.hands)
    later = deck[4 * kwargs["hand_size"] + 2]
    hands[setup.swap.seat] ^= (1 << setup.swap.received) | (1 << later)
    return attrs.evolve(setup, hands=tuple(hands))


def _lower_total_wins(pos):
    """END-1 broken: after the schedule, the lower total wins."""
    following = _finish(pos)
    outcome = following[OUTCOME]
    if outcome in (SCORE_NS, SCORE_EW):
        return _with(following, outcome=SCORE_EW if outcome == SCORE_NS else SCORE_NS)
    return following


def _draw_goes_north_south(pos):
    """END-2 broken: under ``draw``, equal totals give North-South the match."""
    following = _finish(pos)
    if following[OUTCOME] == DRAW:
        return _with(following, outcome=SCORE_NS)
    return following


# --- wrong engines the citations must tell apart --------------------------------------

_play_state = match._play
_right_bid_state = match._bid


def _range_before_turn(state, pos, action):
    """Reason order broken: a bid out of range is refused as such, even out of turn
    (``bid_out_of_range`` before ``not_your_turn``). Its fault is whose turn it is (BID-1)."""
    if not bidding.bid_in_range(action, pos[SIZE]):
        raise IllegalAction(Reason.BID_OUT_OF_RANGE, action, "Not that bid.")
    return _right_bid_state(state, pos, action)


def _play_rule_before_holding(state, pos, action):
    """Reason order broken: a card not held is refused with the rule of play it would break
    if held (a rule of play before ``card_not_in_hand``); PLAY-1 plays a card of one's hand."""
    seat = action.seat
    card = action.card
    trick = pos[TRICK]
    if seat == state.to_move and not pos[HANDS][seat] >> card & 1:
        hands = list(pos[HANDS])
        hands[seat] |= 1 << card
        allowed, why = _allowed_of(_with(pos, hands=tuple(hands)), seat, trick)
        if not allowed >> card & 1 and why is not None:
            raise IllegalAction(why, action, "Not that card.")
    return _play_state(state, pos, action)


def _lowest_board_counts(said):
    """BID-5 broken: a pair whose partners both bid Board plays the lower multiplier."""
    said = list(said)
    (t0, m0), (t1, m1) = _contract_terms(said)
    first = [0, 0]
    count = 0
    for seat, code in said:
        if code == _BOARD_CODE:
            count += 1
            first[seat % 2] = first[seat % 2] or count
    return (t0, first[0] or m0), (t1, first[1] or m1)


def _failed_board_single(target, multiplier, hand_size, tricks):
    """SCORE-4 broken: a failed Board costs 10 a card whatever its multiplier."""
    if multiplier and tricks < hand_size:
        return -10 * hand_size
    return _score_terms(target, multiplier, hand_size, tricks)


def _tiebreak_deal_scored(pos):
    """END-3 broken: a tiebreak deal scores a point a trick, as a pair that passed twice."""
    if pos[TIEBREAK] and pos[position.WON_NS] + pos[position.WON_EW] == pos[SIZE]:
        return (pos[position.WON_NS], pos[position.WON_EW])
    return _deal_scores(pos)


def _custom_short(data, path="rules"):
    """SCHED-4 broken: a schedule of its own loses its last deal."""
    rules = _rules_from_json(data, path)
    if rules.schedule_name is None and len(rules.schedule) > 1:
        return attrs.evolve(rules, schedule=tuple(rules.schedule[:-1]))
    return rules


def _hook(said, partner, amount, size):
    """BID-2 broken: the dealer may not bid the number that makes the four bids add up to
    the hand size (the "hook" of other games)."""
    return len(said) == 3 and sum(c for c in said if c != _BOARD_CODE) + amount == size


def _jokers_below_the_ace(cards, trumps):
    """CARD-3 broken: the jokers rank between the king and the ace of trumps."""
    if not any(card >= Card.LITTLE for card in cards) or not trumps:
        return _winning_card(cards, trumps)

    def rank(card):
        if card >= Card.LITTLE:
            return 11.5 + (card == Card.BIG) * 0.25
        return card % 13

    found = [(at, card) for at, card in enumerate(cards) if trumps >> card & 1]
    at, card = max(found, key=lambda pair: rank(pair[1]))
    return card, at


from backalley.protocol import messages as _messages  # noqa: E402 - the view's home

_seat_view = _messages.seat_view


def _swap_shown_to_all(state, seat):
    """DEAL-5 broken: every seat's view shows the joker swap, not the swapper's alone."""
    view = _seat_view(state, seat)
    current = state.deal
    swap = None if current is None else current.setup.swap
    if swap is not None:
        view["swap"] = {"gave": swap.joker.code, "took": swap.received.code}
    return view


def _line(view):
    """The server's view reply written from ``view`` (a wrong ``seat_view``)."""
    return lambda state, seat: encode({"type": "view", "view": view(state, seat)})


def _hands_leaked(state, seat):
    """DEAL-5 broken: a seat's view lists every hand."""
    view = _seat_view(state, seat)
    current = state.deal
    if current is not None:
        view["hands"] = {
            other.letter: [card.code for card in current.hand(other)] for other in Seat
        }
    return view


WRONG_RULES = {
    "north_deals_first": ("MATCH-1", _patching(server, "rules_from_json", _north_deals_first)),
    "follow_suit": (
        "PLAY-2",
        lambda: _replace(position, "allowed_of", _ignoring(Reason.MUST_FOLLOW_SUIT)),
    ),
    "follow_trump": (
        "PLAY-3",
        lambda: _replace(position, "allowed_of", _ignoring(Reason.MUST_FOLLOW_TRUMP)),
    ),
    "trumps_broken": (
        "PLAY-4",
        lambda: _replace(position, "allowed_of", _ignoring(Reason.TRUMPS_NOT_BROKEN)),
    ),
    "big_joker": (
        "JOKER-1",
        lambda: _replace(position, "allowed_of", _ignoring(Reason.BIG_JOKER_FORCES_HIGHEST)),
    ),
    "little_joker": (
        "JOKER-2",
        lambda: _replace(position, "allowed_of", _ignoring(Reason.LITTLE_JOKER_FORCES_LOWEST)),
    ),
    "no_swap": ("DEAL-4", _patching(match, "deal_hands", _no_swap)),
    "board_multiplier": ("BID-4", _patching(position, "score_terms", _board_ignores_multiplier)),
    "no_throw_in": ("MATCH-3", _patching(position, "bid", _four_passes_played)),
    "first_board_leads": ("BID-8", _first_board_leads_everywhere),
    "no_tiebreak": ("END-3", _patching(position, "_finish", _tie_is_a_draw)),
    "level_tiebreak_draw": ("END-4", _patching(position, "_finish", _level_tiebreak_is_a_draw)),
    "lone_big_not_forced": ("JOKER-2", _patching(position, "allowed_of", _lone_big_not_forced)),
    "board_bidder_banned": ("PLAY-5", _patching(position, "allowed_of", _board_bidder_banned)),
    "passing_pair_vs_board": (
        "SCORE-3",
        _patching(position, "deal_scores", _passing_pair_against_a_board),
    ),
    "little_beats_big": ("CARD-3", _patching(position, "winning_card", _little_beats_big)),
    "ace_low": ("CARD-2", _patching(position, "winning_card", _ace_low)),
    "highest_rank_wins": ("PLAY-7", _patching(position, "winning_card", _highest_rank_wins)),
    "winners_left_leads": ("PLAY-8", _patching(position, "play_by", _winners_left_leads)),
    "deal_passes_counterclockwise": ("MATCH-2", _deal_passes_counterclockwise),
    "standard_one_one_card_deal": (
        "SCHED-1",
        lambda: _replace(
            server,
            "rules_from_json",
            _with_schedule("standard", (*range(13, 0, -1), *range(2, 14))),
        ),
    ),
    "twenty_five_two_one_card_deals": (
        "SCHED-2",
        lambda: _replace(
            server,
            "rules_from_json",
            _with_schedule("twenty-five", (*range(13, 0, -1), *range(1, 14))),
        ),
    ),
    "short_one_one_card_deal": (
        "SCHED-3",
        lambda: _replace(
            server, "rules_from_json", _with_schedule("short", (*range(7, 0, -1), *range(2, 8)))
        ),
    ),
    "custom_reversed": ("SCHED-4", _patching(server, "rules_from_json", _custom_reversed)),
    "dealt_from_the_dealer": ("DEAL-1", _patching(match, "deal_hands", _dealt_from_the_dealer)),
    "last_card_turned": ("DEAL-2", _patching(match, "deal_hands", _last_card_turned)),
    "joker_turned_spades_trumps": (
        "DEAL-3",
        _patching(match, "deal_hands", _joker_turned_spades_trumps),
    ),
    "dealer_bids_first": ("BID-1", _dealer_bids_first),
    "bid_the_hand_size": ("BID-2", _bid_the_hand_size),
    "bids_must_increase": ("BID-3", lambda: _refusing_bids(_increasing)),
    "inherit_multiplier": ("BID-5", _patching(position, "contract_terms", _inherit_multiplier)),
    "larger_bid_is_the_target": (
        "BID-6",
        _patching(position, "contract_terms", _larger_bid_is_the_target),
    ),
    "no_overbid": ("BID-7", lambda: _refusing_bids(_no_overbid)),
    "throw_in_counts": ("MATCH-4", _patching(position, "bid", _throw_in_counts)),
    "counterclockwise_play": ("PLAY-1", _counterclockwise_play),
    "only_trumps_may_not_lead": (
        "PLAY-6",
        _patching(position, "allowed_of", _only_trumps_may_not_lead),
    ),
    "lowest_without_trumps": ("JOKER-3", _patching(position, "allowed_of", _lowest_without_trumps)),
    "joker_response_forces": ("JOKER-4", _patching(position, "allowed_of", _joker_response_forces)),
    "nothing_against_a_board": (
        "SCORE-1",
        _patching(position, "deal_scores", _nothing_against_a_board),
    ),
    "no_overtricks": ("SCORE-2", _patching(position, "score_terms", _no_overtricks)),
    "failed_board_costs_nothing": (
        "SCORE-4",
        _patching(position, "score_terms", _failed_board_costs_nothing),
    ),
    "tiebreak_at_last_size": ("END-3", _tiebreak_at_last_size),
    "partner_board_leads_trumps": (
        "PLAY-5",
        _patching(position, "allowed_of", _partner_board_leads_trumps),
    ),
    "tiebreak_dealer_leads": ("END-3", _patching(position, "dealt", _tiebreak_dealer_leads)),
    "swap_skips_a_card": ("DEAL-4", _patching(match, "deal_hands", _swap_skips_a_card)),
    "lower_total_wins": ("END-1", _patching(position, "_finish", _lower_total_wins)),
    "draw_goes_north_south": ("END-2", _patching(position, "_finish", _draw_goes_north_south)),
    "range_before_turn": ("BID-1", _patching(match, "_bid", _range_before_turn)),
    "play_rule_before_holding": ("PLAY-1", _patching(match, "_play", _play_rule_before_holding)),
    "lowest_board_counts": ("BID-5", _patching(position, "contract_terms", _lowest_board_counts)),
    "failed_board_single": ("SCORE-4", _patching(position, "score_terms", _failed_board_single)),
    "tiebreak_deal_scored": ("END-3", _patching(position, "deal_scores", _tiebreak_deal_scored)),
    "custom_short": ("SCHED-4", _patching(server, "rules_from_json", _custom_short)),
    "hook": ("BID-2", lambda: _refusing_bids(_hook)),
    "jokers_below_the_ace": ("CARD-3", _patching(position, "winning_card", _jokers_below_the_ace)),
    "swap_shown_to_all": ("DEAL-5", _patching(server, "view_line", _line(_swap_shown_to_all))),
    "hands_leaked": ("DEAL-5", _patching(server, "view_line", _line(_hands_leaked))),
    "wrong_reasons": ("", _patching(match, "_not_your_turn", _wrong_phase_for_turn)),
}
"""Each wrong engine: the rule it breaks, and how."""


def _minimal() -> None:
    """A right engine with no capabilities: no legal request, refusals without reasons."""
    server._HELLO = {**server._HELLO, "capabilities": []}
    right_apply = Session.apply

    def apply(self, action):
        reply = right_apply(self, action)
        if reply is OK_LINE:
            return reply
        return encode({**json.loads(reply), "reason": None})

    def legal(self):
        return encode({"type": "error", "message": "legal is not supported"})

    Session.apply = apply
    Session._legal = legal


def _reworded() -> None:
    """A right engine that words everything its own way: refusal messages of its own, keys
    in another order, spaces after separators, legal actions in reverse."""
    right_answer = Session.answer

    def answer(self, line):
        reply = json.loads(right_answer(self, line))
        if reply["type"] == "refused":
            reply = {
                "message": f"no: {reply['reason']}",
                "reason": reply["reason"],
                "type": "refused",
            }
        if reply["type"] == "legal":
            reply["actions"].reverse()
        return json.dumps(reply, separators=(", ", ": ")).encode() + b"\n"

    Session.answer = answer


CORRECT = {"minimal": _minimal, "reworded": _reworded}
"""Right engines that support only part of the protocol."""

BROKEN = ("garbage", "hang", "exit", "crash_later", "no_hello", "twice")


def _misbehave(name: str) -> None:
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    if name == "no_hello":
        stdin.readline()
        stdout.write(b'{"type":"facts"}\n')
        stdout.flush()
        time.sleep(30)
    if name == "exit":
        print("engine: giving up at once", file=sys.stderr)
        sys.exit(3)
    hello = stdin.readline()
    session = Session()
    stdout.write(session.answer(hello.rstrip(b"\n")))
    stdout.flush()
    if name == "garbage":
        stdin.readline()
        stdout.write(b"this is not json\n")
        stdout.flush()
        time.sleep(30)
    if name == "hang":
        # Reads everything, answers nothing, and never ends by itself.
        while stdin.readline():
            pass
        time.sleep(30)
    if name == "twice":
        # Every reply sent twice: the replies no longer match the requests.
        while line := stdin.readline():
            reply = session.answer(line.rstrip(b"\n"))
            stdout.write(reply + reply)
            stdout.flush()
    if name == "crash_later":
        for _ in range(200):
            line = stdin.readline()
            stdout.write(session.answer(line.rstrip(b"\n")))
        stdout.flush()
        raise RuntimeError("engine: an internal error after 200 requests")


def main(name: str) -> int:
    if name in WRONG_RULES:
        WRONG_RULES[name][1]()
        return serve(sys.stdin.buffer, sys.stdout.buffer)
    if name in CORRECT:
        CORRECT[name]()
        return serve(sys.stdin.buffer, sys.stdout.buffer)
    if name in BROKEN:
        _misbehave(name)
        return 0
    print(f"unknown engine {name!r}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
