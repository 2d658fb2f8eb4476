"""Test helper: build a deck that deals chosen hands, for positions built by hand."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from backalley import Card, Deal, Seat


def deck_for(
    hands: Mapping[Seat, Iterable[Card | str]],
    *,
    turned: Card | str,
    dealer: Seat = Seat.NORTH,
    after: Sequence[Card | str] = (),
) -> Deal:
    """The ``Deal`` whose deck gives each seat its hand, turns ``turned``, then ``after``.

    Every seat must be given the same number of cards; the cards left over follow
    ``after`` in card order.
    """
    wanted = {seat: [_card(card) for card in cards] for seat, cards in hands.items()}
    sizes = {len(cards) for cards in wanted.values()}
    if set(wanted) != set(Seat) or len(sizes) != 1:
        raise ValueError("give all four seats hands of the same size")
    size = sizes.pop()
    deck: list[Card | None] = [None] * (4 * size)
    for seat, cards in wanted.items():
        offset = (seat - dealer - 1) % 4
        for i, card in enumerate(cards):
            deck[4 * i + offset] = card
    top = [card for card in deck if card is not None]
    top += [_card(turned), *(_card(card) for card in after)]
    rest = [card for card in Card if card not in top]
    return Deal(top + rest)


def _card(card: Card | str) -> Card:
    return Card.parse(card) if isinstance(card, str) else card
