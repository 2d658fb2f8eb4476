"""The drawing parts of :mod:`backalley.pictures.svg`: SVG elements, cards, hands and a trick.

Everything here returns SVG text fragments placed in the caller's coordinates;
:mod:`backalley.pictures.svg` puts them together into whole pictures.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Final
from xml.sax.saxutils import escape, quoteattr

from ..core.cards import SEATS, Card, Seat, Suit, trump_mask
from ..core.tricks import Trick

CARD_W: Final = 48
CARD_H: Final = 68
STEP: Final = 27
"""How far apart overlapping cards of one suit sit: the rank and symbol stay visible."""
GAP: Final = 10
"""Space between suits in a hand."""
SUIT_LABEL_H: Final = 14
HAND_H: Final = CARD_H + SUIT_LABEL_H
MARGIN: Final = 16
FONT: Final = "DejaVu Sans, Segoe UI Symbol, Arial, sans-serif"
CHAR_W: Final = 0.6
"""Rough width of a character, in font sizes, to size boxes around text."""

INK: Final = "#1b1b1b"
RED: Final = "#b3261e"
GOLD: Final = "#b07d00"
RING: Final = "#1558b0"
PAPER: Final = "#ffffff"
JOKER_PAPER: Final = "#fff3c4"
FELT: Final = "#eef4ee"
MUTED: Final = "#5f6368"

SUIT_ORDER: Final = (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)
RED_SUITS: Final = frozenset({Suit.HEARTS, Suit.DIAMONDS})
SEAT_NAMES: Final = {seat: seat.name.title() for seat in SEATS}


# --- building blocks -----------------------------------------------------------------


def element(tag: str, content: str | None = None, /, **attributes: object) -> str:
    """One element; ``content`` is escaped text, attribute names use ``_`` for ``-``."""
    attrs_text = "".join(
        f" {name.rstrip('_').replace('_', '-')}={quoteattr(str(value))}"
        for name, value in attributes.items()
        if value is not None
    )
    if content is None:
        return f"<{tag}{attrs_text}/>"
    return f"<{tag}{attrs_text}>{escape(content)}</{tag}>"


def moved(parts: Iterable[str], x: float, y: float, **attributes: object) -> str:
    """Elements moved together to (x, y)."""
    opening = element("g", "", transform=f"translate({num(x)},{num(y)})", **attributes)
    return opening.removesuffix("</g>") + "".join(parts) + "</g>"


def text_at(x: float, y: float, words: str, *, size: float = 12, **attributes: object) -> str:
    """A line of text with its baseline starting at (x, y)."""
    return element("text", words, x=num(x), y=num(y), font_size=num(size), **attributes)


def num(value: float) -> str:
    """A coordinate without a trailing ``.0``, so the SVG text stays short and stable."""
    return f"{value:.1f}".removesuffix(".0")


def text_width(words: str, size: float) -> float:
    """Roughly how wide a line of text is drawn, to size what surrounds it."""
    return len(words) * size * CHAR_W


def document(width: float, height: float, title: str, body: Iterable[str]) -> str:
    """A whole SVG document with an accessible title and a white background."""
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{num(width)}" height="{num(height)}" '
        f'viewBox="0 0 {num(width)} {num(height)}" role="img" font-family={quoteattr(FONT)}>'
    )
    background = element("rect", width="100%", height="100%", fill=PAPER)
    return "\n".join([head, element("title", title), background, *body, "</svg>"]) + "\n"


def card_words(card: Card, trumps: int) -> str:
    """A card in words for its title: ``"the king of hearts, a trump"``."""
    if card.is_joker:
        return f"the {card.name} joker, a trump"
    return card.words + (", a trump" if (1 << card) & trumps else "")


@lru_cache(maxsize=4096)
def card_picture(
    card: Card, at: tuple[float, float], trumps: int, *, ring: bool = False, dim: bool = False
) -> str:
    """One card, top-left corner ``at``: rank and symbol in the corner, words in a title.

    Drawn once for each card, place and trumps, and kept: the same card is drawn in the
    same slot of many tricks' pictures (the online table draws each finished trick).
    """
    is_trump = bool((1 << card) & trumps)
    parts = [element("title", card_words(card, trumps))]
    parts.append(
        element(
            "rect",
            x=0.5,
            y=0.5,
            width=CARD_W - 1,
            height=CARD_H - 1,
            rx=5,
            fill=JOKER_PAPER if card.is_joker else PAPER,
            stroke=RING if ring else MUTED,
            stroke_width=3 if ring else 1,
        )
    )
    if card.is_joker:
        middle = CARD_W / 2
        parts.append(
            text_at(middle, 20, card.name, size=11, font_weight="bold", text_anchor="middle")
        )
        parts.append(text_at(middle, 33, "joker", size=10, text_anchor="middle", fill=INK))
        parts.append(text_at(middle, 48, "★", size=14, text_anchor="middle", fill=GOLD))
    else:
        suit = card.suit
        assert suit is not None  # a plain card has a suit
        colour = RED if suit in RED_SUITS else INK
        parts.append(text_at(5, 17, card.code[:-1], size=14, font_weight="bold", fill=colour))
        parts.append(text_at(5, 33, suit.symbol, size=15, fill=colour))
        parts.append(text_at(CARD_W - 6, 50, suit.symbol, size=22, text_anchor="end", fill=colour))
    if is_trump:
        # The tag sits in the corner that stays visible when cards overlap.
        parts.append(element("rect", x=2, y=CARD_H - 14, width=24, height=11, rx=2, fill=GOLD))
        parts.append(text_at(14, CARD_H - 5.5, "trump", size=7.5, text_anchor="middle", fill=PAPER))
    opacity = "0.4" if dim else None
    return moved(parts, *at, opacity=opacity)


def suit_groups(cards: Iterable[Card], trump: Suit | None) -> list[tuple[str, list[Card]]]:
    """The hand's cards by suit, high card first; the trump suit last, jokers at its top."""
    held = sorted(cards, reverse=True)
    groups = [
        (suit.word, [card for card in held if card.suit is suit])
        for suit in SUIT_ORDER
        if suit is not trump
    ]
    trumps = [card for card in held if card.is_joker or (trump is not None and card.suit is trump)]
    if trumps:
        name = trump.word if trump is not None else "jokers"
        groups.append((name, trumps))
    return [(name, group) for name, group in groups if group]


def hand_layout(
    cards: Sequence[Card], trump: Suit | None, *, spread: bool = False
) -> tuple[list[tuple[str, float, list[tuple[Card, float]]]], float]:
    """Where each card of a hand goes: per suit its name, its x and its cards' x; the width.

    Cards of a suit overlap, showing their corner, unless ``spread``; jokers never
    overlap, so their names stay readable.
    """
    groups = []
    at = 0.0
    for name, group in suit_groups(cards, trump):
        start = at
        placed = []
        for index, card in enumerate(group):
            placed.append((card, at))
            last = index == len(group) - 1
            at += CARD_W + (GAP if last else 3 if card.is_joker or spread else STEP - CARD_W)
        groups.append((name, start, placed))
    return groups, max(at - GAP, CARD_W)


def hand_width(cards: Sequence[Card], trump: Suit | None, *, spread: bool = False) -> float:
    """How wide a hand is drawn."""
    return hand_layout(cards, trump, spread=spread)[1]


def hand_picture(
    cards: Sequence[Card], trump: Suit | None, x: float, y: float, playable: int | None = None
) -> list[str]:
    """A hand at (x, y), suit by suit with each suit named under it; an empty hand says so.

    With ``playable`` the hand is spread out, the playable cards ringed, the rest dimmed.
    """
    if not cards:
        return [text_at(x, y + 20, "(no cards left)", size=11, fill=MUTED)]
    trumps = trump_mask(trump)
    parts = []
    groups, _ = hand_layout(cards, trump, spread=playable is not None)
    for name, start, placed in groups:
        for card, dx in placed:
            ring = playable is not None and bool((1 << card) & playable)
            dim = playable is not None and not ring
            parts.append(card_picture(card, (x + dx, y), trumps, ring=ring, dim=dim))
        parts.append(text_at(x + start + 2, y + CARD_H + 12, name, size=10, fill=MUTED))
    return parts


def may_play_words(playable: int) -> str:
    """The playable cards in words: ``"may play: K♥"``."""
    cards = [card for card in Card if (1 << card) & playable]
    return "may play: " + ", ".join(card.symbol for card in cards)


# --- a trick -----------------------------------------------------------------------

TRICK_W: Final = 3 * CARD_W + 2 * 48
TRICK_H: Final = 3 * CARD_H + 2 * 16
SLOTS: Final = {
    Seat.NORTH: (TRICK_W / 2 - CARD_W / 2, 0.0),
    Seat.WEST: (0.0, CARD_H + 16),
    Seat.EAST: (TRICK_W - CARD_W, CARD_H + 16),
    Seat.SOUTH: (TRICK_W / 2 - CARD_W / 2, 2 * CARD_H + 32),
}


def trick_picture(trick: Trick, trump: Suit | None, x: float, y: float) -> list[str]:
    """A trick at (x, y): one slot per seat around the table, leader and winner named."""
    trumps = trump_mask(trump)
    played = dict(trick.plays)
    next_seat = trick.leader.after(len(trick.cards)) if len(trick.cards) < 4 else None
    parts = []
    for seat, (dx, dy) in SLOTS.items():
        cx, cy = x + dx, y + dy
        card = played.get(seat)
        if card is None:
            parts.append(
                element(
                    "rect",
                    x=num(cx + 0.5),
                    y=num(cy + 0.5),
                    width=CARD_W - 1,
                    height=CARD_H - 1,
                    rx=5,
                    fill="none",
                    stroke=MUTED,
                    stroke_dasharray="4 3",
                )
            )
            if seat is next_seat:
                parts.append(
                    text_at(cx + CARD_W / 2, cy + 38, "to play", size=10, text_anchor="middle")
                )
        else:
            parts.append(card_picture(card, (cx, cy), trumps, ring=seat is trick.winner))
        notes = [SEAT_NAMES[seat]]
        if seat is trick.leader:
            notes.append("led")
        if seat is trick.winner:
            notes.append("wins")
        note = ", ".join(notes)
        weight = "bold" if seat is trick.winner else None
        if seat is Seat.SOUTH:
            parts.append(
                text_at(
                    cx + CARD_W / 2,
                    cy + CARD_H + 13,
                    note,
                    size=11,
                    text_anchor="middle",
                    font_weight=weight,
                )
            )
        else:
            parts.append(
                text_at(
                    cx + CARD_W / 2, cy - 4, note, size=11, text_anchor="middle", font_weight=weight
                )
            )
    return parts


def trick_words(trick: Trick, trump: Suit | None) -> str:
    """A trick in words, for the title of a picture that shows it."""
    trumps = trump_mask(trump)
    plays = "; ".join(
        f"{SEAT_NAMES[seat]} played {card_words(card, trumps)}" for seat, card in trick.plays
    )
    winner = f"; {SEAT_NAMES[trick.winner]} wins" if trick.winner is not None else ""
    return f"{SEAT_NAMES[trick.leader]} led. {plays or 'No card yet'}{winner}"
