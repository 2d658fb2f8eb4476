"""Test helpers: decks built from the hands a test wants, and short ways to bid and play.

A deal is an explicit 54-card order (``Deal(deck)``), dealt one card at a time
clockwise from the player left of the dealer, then the turned card, then the
stock (RULINGS.md "The deal"). :func:`deck_for` inverts that: given the hands a
test wants, the turned card and the cards that should follow it, it returns the
deck order that deals them. Hands given short are filled with spare cards,
plain non-trump cards first, so that filling never adds a trump or a joker
unless the pack has nothing else left.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from backalley import Bid, Card, Deal, MatchState, Play, Seat, apply, legal_actions

__all__ = [
    "bid_round",
    "cards",
    "deal_hands",
    "deck_for",
    "play_cards",
    "play_out",
]

CardLike = Card | str


def cards(text: str | Iterable[CardLike]) -> tuple[Card, ...]:
    """Cards from codes: ``cards("5H KH 9S 2C")`` or an iterable of cards and codes."""
    items = text.split() if isinstance(text, str) else text
    return tuple(item if isinstance(item, Card) else Card.parse(item) for item in items)


def _spare_order(used: set[Card], turned: Card) -> list[Card]:
    """Unplaced cards in the order used to fill hands: plain non-trumps, trumps, jokers."""
    trump = turned.suit

    def rank(card: Card) -> tuple[int, int]:
        if card.is_joker:
            return (2, card)
        return (1 if card.suit == trump else 0, card)

    return sorted((card for card in Card if card not in used), key=rank)


def deck_for(
    hands: Mapping[Seat, Iterable[CardLike]],
    *,
    dealer: Seat,
    hand_size: int,
    turned: CardLike,
    then: Iterable[CardLike] = (),
) -> tuple[Card, ...]:
    """The deck order that deals ``hands`` when ``dealer`` deals ``hand_size`` cards each.

    ``turned`` is the card turned for trumps; ``then`` the cards right after it
    (the first is the card a joker swap hands out). Missing cards of a hand are
    filled with spare cards; a card wanted twice, or a hand larger than the hand
    size, is a mistake in the test and raises ``ValueError``.
    """
    wanted = {seat: list(cards(hand)) for seat, hand in hands.items()}
    top = cards([turned, *cards(then)])
    placed = [card for hand in wanted.values() for card in hand] + list(top)
    if len(set(placed)) != len(placed):
        raise ValueError(f"a card is wanted twice: {sorted(placed)}")
    for seat, hand in wanted.items():
        if len(hand) > hand_size:
            raise ValueError(f"{seat!r} is given {len(hand)} cards for a hand of {hand_size}")
    spares = iter(_spare_order(set(placed), top[0]))
    full = {
        seat: wanted.get(seat, [])
        + [next(spares) for _ in range(hand_size - len(wanted.get(seat, [])))]
        for seat in Seat
    }
    order = [full[dealer.after(1 + k % 4)][k // 4] for k in range(4 * hand_size)]
    return (*order, *top, *spares)


def deal_hands(
    state: MatchState,
    hands: Mapping[Seat, Iterable[CardLike]],
    *,
    turned: CardLike,
    then: Iterable[CardLike] = (),
) -> MatchState:
    """Deal the next deal of ``state`` from a deck that gives these hands."""
    deck = deck_for(hands, dealer=state.dealer, hand_size=state.hand_size, turned=turned, then=then)
    return apply(state, Deal(deck))


def bid_round(state: MatchState, calls: Mapping[Seat, int | str]) -> MatchState:
    """Apply one bid per seat in turn order: a number, ``"pass"`` or ``"board"``."""
    for _ in range(4):
        seat = state.to_move
        assert seat is not None, "bid_round needs a state in the bidding phase"
        call = calls[seat]
        if call == "board":
            bid = Bid(seat, board=True)
        elif call == "pass":
            bid = Bid(seat)
        else:
            assert isinstance(call, int)
            bid = Bid(seat, call)
        state = apply(state, bid)
    return state


def play_cards(state: MatchState, codes: str | Sequence[CardLike]) -> MatchState:
    """Play these cards one after another, each by the seat to move."""
    for card in cards(codes):
        seat = state.to_move
        assert seat is not None, "play_cards needs a state in the play phase"
        state = apply(state, Play(seat, card))
    return state


Picker = Callable[[tuple[Play, ...]], Play]


def play_out(state: MatchState, pick: Picker = lambda plays: plays[0]) -> MatchState:
    """Play the current deal to its end, choosing each card from ``legal_actions`` with ``pick``."""
    deals = len(state.history)
    while len(state.history) == deals:
        plays = legal_actions(state)
        assert plays and all(isinstance(play, Play) for play in plays)
        state = apply(state, pick(plays))  # type: ignore[arg-type]
    return state
