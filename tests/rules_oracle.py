"""An independent, deliberately plain re-implementation of the rules, for the properties.

Written from docs/rules.md with cards as ``Card`` values and lists, never with the
library's masks or helpers, so that a property comparing the two can catch a
mistake in either.
"""

from __future__ import annotations

from backalley import Bid, Card, Contract, Deal, MatchState, Phase, Play, Reason, Seat, Suit

JOKER_RANKS = {Card.LITTLE: 15, Card.BIG: 16}


def is_trump(card: Card, trump: Suit | None) -> bool:
    """A trump: a card of the trump suit or a joker, when there is a trump suit."""
    return trump is not None and (card.is_joker or card.suit == trump)


def trump_rank(card: Card) -> int:
    """A trump's rank: 2..14 for the suit, LITTLE 15, BIG 16."""
    if card.is_joker:
        return JOKER_RANKS[card]
    assert card.rank is not None
    return int(card.rank)


def winner(leader: Seat, cards: list[Card], trump: Suit | None) -> Seat:
    """Highest trump wins; with none, the highest card of the led suit."""
    trumps = [i for i, card in enumerate(cards) if is_trump(card, trump)]
    if trumps:
        best = max(trumps, key=lambda i: trump_rank(cards[i]))
    else:
        led_suit = cards[0].suit
        followers = [i for i, card in enumerate(cards) if card.suit == led_suit]
        best = max(followers, key=lambda i: int(cards[i].rank or 0))
    return Seat((leader + best) % 4)


def joker_forced(led: Card, hand: list[Card], trump: Suit | None) -> Card | None:
    """The card a joker lead forces from ``hand``, if any."""
    held = [card for card in hand if is_trump(card, trump)]
    if not led.is_joker or not held:
        return None
    pick = max if led is Card.BIG else min
    return pick(held, key=trump_rank)


def play_refusal(
    hand: list[Card],
    trick: list[Card],
    trump: Suit | None,
    card: Card,
    *,
    broken: bool,
    bid_board: bool,
) -> Reason | None:
    """Why playing ``card`` (held) to ``trick`` is refused, or None if it is allowed."""
    if not trick:
        only_trumps = all(is_trump(c, trump) for c in hand)
        if is_trump(card, trump) and not broken and not bid_board and not only_trumps:
            return Reason.TRUMPS_NOT_BROKEN
        return None
    led = trick[0]
    if is_trump(led, trump):
        forced = joker_forced(led, hand, trump)
        if forced is not None:
            if card == forced:
                return None
            if led is Card.BIG:
                return Reason.BIG_JOKER_FORCES_HIGHEST
            return Reason.LITTLE_JOKER_FORCES_LOWEST
        holds_trump = any(is_trump(c, trump) for c in hand)
        return Reason.MUST_FOLLOW_TRUMP if holds_trump and not is_trump(card, trump) else None
    holds_suit = any(c.suit == led.suit for c in hand)
    return Reason.MUST_FOLLOW_SUIT if holds_suit and card.suit != led.suit else None


def broken(state: MatchState) -> bool:
    """Whether a trump or joker was played to a completed trick of the current deal."""
    return any(
        is_trump(card, state.trump) for trick in state.completed_tricks for card in trick.cards
    )


def bid_board(state: MatchState, seat: Seat) -> bool:
    """Whether ``seat`` personally bid Board in the current deal."""
    return any(bid.seat == seat and bid.board for bid in state.bids)


def refusal(state: MatchState, action: Bid | Play | Deal) -> Reason | None:
    """Why ``apply`` must refuse ``action`` in ``state``, or None if it must accept it."""
    if state.is_over:
        return Reason.MATCH_OVER
    if isinstance(action, Deal):
        return None if state.phase is Phase.DEAL else Reason.WRONG_PHASE
    if isinstance(action, Bid):
        if state.phase is not Phase.BID:
            return Reason.WRONG_PHASE
        if action.seat != state.to_move:
            return Reason.NOT_YOUR_TURN
        if not action.board and not 0 <= action.amount <= state.hand_size - 1:
            return Reason.BID_OUT_OF_RANGE
        return None
    if state.phase is not Phase.PLAY:
        return Reason.WRONG_PHASE
    seat = state.to_move
    assert seat is not None
    if action.seat != seat:
        return Reason.NOT_YOUR_TURN
    hand = list(state.hand(seat))
    if action.card not in hand:
        return Reason.CARD_NOT_IN_HAND
    trick = state.current_trick
    assert trick is not None
    return play_refusal(
        hand,
        list(trick.cards),
        state.trump,
        action.card,
        broken=broken(state),
        bid_board=bid_board(state, seat),
    )


def contract_points(contract: Contract, hand_size: int, tricks: int) -> int:
    """The scoring table of docs/rules.md (SCORE-1 to SCORE-4), written out case by case."""
    if contract.multiplier > 0:
        value = 10 * hand_size * contract.multiplier
        return value if tricks == hand_size else -value
    b = contract.target
    if b == 0:
        return tricks
    if tricks >= b:
        return 5 * b + (tricks - b)
    return -5 * b


def pair_contract(bids: list[Bid], pair: int) -> Contract:
    """A pair's contract, read from the circuit by counting Boards in order."""
    boards_said = 0
    best_board = 0
    target = 0
    for bid in bids:
        if bid.board:
            boards_said += 1
            if bid.seat % 2 == pair:
                best_board = boards_said
        elif bid.seat % 2 == pair:
            target += bid.amount
    return Contract(0, best_board) if best_board else Contract(target)


def leader_of(bids: list[Bid]) -> Seat | None:
    """The opening leader: the last Board bidder, else the first of the highest numbers."""
    boards = [bid.seat for bid in bids if bid.board]
    if boards:
        return boards[-1]
    top = max((bid.amount for bid in bids), default=0)
    if top <= 0:
        return None
    return next(bid.seat for bid in bids if bid.amount == top)
