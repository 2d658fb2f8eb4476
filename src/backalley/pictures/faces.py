"""The card faces of the web table: one SVG sprite, drawn by this module, every card a symbol.

The table page shows each card as ``<svg><use href="/static/cards.svg#KS"/></svg>``, so
the 54 faces are vector pictures, crisp at every size and fetched once. This module
draws them from a few shapes: the four suit signs (paths on a 100 × 100 grid), the pip
layouts of the number cards (as on a printed pack: two to ten pips, the lower half
upside down), a large pip for the aces, and the court cards as double-ended portraits
(a king with a crown, a beard and a sword, a queen with a coronet and a flower, a jack
with a feathered cap and a halberd, each in its suit's colours, mirrored about the
middle like a printed court card). The jokers are a jester's head, the big blooper in
full colour and the little blooper in two inks, each named on the card in words, as
``docs/rulings.md`` names them. Every card carries its rank and suit in two opposite
corners, so that a fanned hand reads at a glance and colour is never the only clue.

The sprite is committed as ``backalley/web/static/cards.svg`` (the web table serves
its static folder as it is); ``python -m backalley.pictures.faces`` writes it again,
and a test checks that the committed file is what this module draws.

>>> sprite = sprite_svg()
>>> sprite.count("<symbol id=") == 54 + 4
True
>>> '<symbol id="QH"' in sprite and '<symbol id="BIG"' in sprite
True
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Final

from ..core.cards import Card, Suit

__all__ = ["SPRITE_PATH", "card_symbol", "sprite_svg"]

WIDTH: Final = 100
HEIGHT: Final = 140
INK: Final = "#1b1b1b"
RED: Final = "#c4111c"
GOLD: Final = "#e8b923"
BLUE: Final = "#1d4f9c"
SKIN: Final = "#f7d9b5"
PAPER: Final = "#fffdf6"
SERIF: Final = "font-family=\"Georgia, 'DejaVu Serif', serif\""

SPRITE_PATH: Final = Path(__file__).resolve().parent.parent / "web" / "static" / "cards.svg"
"""Where the web table's sprite lives in the source tree."""

# The suit signs on a 100 by 100 grid, drawn for this pack.
SUIT_PATHS: Final[dict[Suit, str]] = {
    Suit.HEARTS: (
        "M50 92C22 68 4 52 4 31C4 15 16 5 30 5C40 5 47 11 50 20"
        "C53 11 60 5 70 5C84 5 96 15 96 31C96 52 78 68 50 92Z"
    ),
    Suit.DIAMONDS: "M50 3Q68 28 88 50Q68 72 50 97Q32 72 12 50Q32 28 50 3Z",
    Suit.SPADES: (
        "M50 4C76 30 96 44 96 62C96 76 86 84 74 84C65 84 58 80 54 73"
        "C55 84 59 91 68 96L32 96C41 91 45 84 46 73C42 80 35 84 26 84"
        "C14 84 4 76 4 62C4 44 24 30 50 4Z"
    ),
    Suit.CLUBS: (
        "M50 6A21 21 0 0 1 66 41A21 21 0 1 1 54 72C55 84 59 91 68 96L32 96"
        "C41 91 45 84 46 72A21 21 0 1 1 34 41A21 21 0 0 1 50 6Z"
    ),
}
LETTER: Final[dict[Suit, str]] = {
    Suit.SPADES: "S",
    Suit.HEARTS: "H",
    Suit.DIAMONDS: "D",
    Suit.CLUBS: "C",
}

# Pip centres of the number cards (x, y) on the 100 by 140 card; those below the middle
# are drawn upside down, as on a printed pack.
_L, _M, _R = 31.0, 50.0, 69.0
_ROWS4 = (27.0, 55.0, 85.0, 113.0)
PIPS: Final[dict[int, tuple[tuple[float, float], ...]]] = {
    2: ((_M, 27), (_M, 113)),
    3: ((_M, 27), (_M, 70), (_M, 113)),
    4: ((_L, 27), (_R, 27), (_L, 113), (_R, 113)),
    5: ((_L, 27), (_R, 27), (_M, 70), (_L, 113), (_R, 113)),
    6: ((_L, 27), (_R, 27), (_L, 70), (_R, 70), (_L, 113), (_R, 113)),
    7: ((_L, 27), (_R, 27), (_M, 48), (_L, 70), (_R, 70), (_L, 113), (_R, 113)),
    8: ((_L, 27), (_R, 27), (_M, 48), (_L, 70), (_R, 70), (_M, 92), (_L, 113), (_R, 113)),
    9: (*((x, y) for x in (_L, _R) for y in _ROWS4), (_M, 70)),
    10: (*((x, y) for x in (_L, _R) for y in _ROWS4), (_M, 41), (_M, 99)),
}
RANK_TEXT: Final = {11: "J", 12: "Q", 13: "K", 14: "A"}
COURT_NAMES: Final = {11: "jack", 12: "queen", 13: "king"}


def _num(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _path(d: str, fill: str, width: float) -> str:
    """A shape outlined in ink."""
    return f'<path d="{d}" fill="{fill}" stroke="{INK}" stroke-width="{_num(width)}"/>'


def _ellipse(at: tuple[float, float], radii: tuple[float, float], fill: str, width: float) -> str:
    """An ellipse (a circle when both radii are equal) outlined in ink."""
    (x, y), (rx, ry) = at, radii
    return (
        f'<ellipse cx="{_num(x)}" cy="{_num(y)}" rx="{_num(rx)}" ry="{_num(ry)}" fill="{fill}" '
        f'stroke="{INK}" stroke-width="{_num(width)}"/>'
    )


def _colour(suit: Suit) -> str:
    return RED if suit in (Suit.HEARTS, Suit.DIAMONDS) else INK


def _pip(suit: Suit, x: float, y: float, size: float, *, flip: bool = False) -> str:
    at = f"translate({_num(x)} {_num(y)})" + (" rotate(180)" if flip else "")
    half = _num(-size / 2)
    return (
        f'<use href="#{LETTER[suit]}" transform="{at}" x="{half}" y="{half}" '
        f'width="{_num(size)}" height="{_num(size)}"/>'
    )


def _index(rank: str, suit: Suit | None, colour: str) -> str:
    """The rank and suit in the top-left corner and, turned, in the bottom-right one."""
    size = 17 if len(rank) == 1 else 15
    spacing = ' letter-spacing="-1.5"' if len(rank) > 1 else ""
    corner = (
        f'<text x="11" y="20" font-size="{size}" font-weight="700" text-anchor="middle" '
        f'{SERIF} fill="{colour}"{spacing}>{rank}</text>'
    )
    if suit is not None:
        corner += _pip(suit, 11, 30, 11)
    return f'<g>{corner}</g><g transform="rotate(180 50 70)">{corner}</g>'


def _frame(colour: str) -> str:
    return (
        f'<rect x="0.5" y="0.5" width="99" height="139" rx="7" fill="{PAPER}" stroke="#8a8a8a"/>'
        f'<rect x="3" y="3" width="94" height="134" rx="5" fill="none" stroke="{colour}" '
        f'stroke-opacity="0.18"/>'
    )


def _court_half(rank: int, suit: Suit) -> str:
    """The upper half of a court portrait, in the box x 20–80, y 14–70 of the card."""
    red = suit in (Suit.HEARTS, Suit.DIAMONDS)
    robe, trim = (RED, BLUE) if red else (BLUE, RED)
    if rank == 12:
        robe, trim = trim, robe
    parts = [
        # The robe and shoulders, the gold band down its front and the collar.
        _path("M21 70V60Q23 49 38 47L62 47Q77 49 79 60V70Z", robe, 1),
        _path("M44 47H56L58 70H42Z", GOLD, 0.8),
        _path("M30 70L34 55L40 70Z", trim, 0.6),
        _path("M60 70L66 55L70 70Z", trim, 0.6),
        _path("M38 47Q50 55 62 47", "none", 1),
        f'<path d="M40 47Q50 51 60 47" fill="none" stroke="{GOLD}" stroke-width="1.5"/>',
    ]
    if rank == 13:
        # The king: full beard, a pointed crown, a sword held upright.
        parts += [
            f'<path d="M26 20V64" stroke="{INK}" stroke-width="2.5"/>',
            _path("M26 16L28 22H24Z", "#d8d8d8", 0.6),
            f'<path d="M21 58H31" stroke="{GOLD}" stroke-width="3" stroke-linecap="round"/>',
            _ellipse((50, 33), (9, 10.5), SKIN, 0.8),
            _path("M41 35Q41 49 50 50Q59 49 59 35Q55 41 50 40Q45 41 41 35Z", "#8a5a2b", 0.6),
            _path("M45 41Q50 38 55 41", "none", 0.8),
            _path("M39 25L39 13L44 19L50 10L56 19L61 13L61 25Z", GOLD, 0.8),
            f'<circle cx="50" cy="20" r="1.8" fill="{trim}"/>',
        ]
    elif rank == 12:
        # The queen: long hair, a rounded coronet, a flower held up.
        parts += [
            _path("M39 28Q37 48 33 50Q41 50 43 44V28Z", GOLD, 0.6),
            _path("M61 28Q63 48 67 50Q59 50 57 44V28Z", GOLD, 0.6),
            _ellipse((50, 33), (9, 10.5), SKIN, 0.8),
            f'<path d="M46 40Q50 42 54 40" fill="none" stroke="{RED}" stroke-width="1.2"/>',
            _path("M41 27Q50 19 59 27", GOLD, 0.6),
            _path("M40 24Q42 15 45 22Q50 11 55 22Q58 15 60 24Z", GOLD, 0.8),
            f'<circle cx="50" cy="18" r="1.8" fill="{trim}"/>',
            '<path d="M74 64Q73 40 72 30" fill="none" stroke="#2e7d32" stroke-width="1.6"/>',
            '<path d="M72 44Q66 40 68 36Q72 38 72 44Z" fill="#2e7d32"/>',
            *(
                _ellipse((72 + dx, 26 + dy), (3.2, 3.2), RED if red else BLUE, 0.5)
                for dx, dy in ((0, -4), (4, 0), (0, 4), (-4, 0))
            ),
            f'<circle cx="72" cy="26" r="2.2" fill="{GOLD}"/>',
        ]
    else:
        # The jack: a young face, a cap with a feather, a halberd on his shoulder.
        parts += [
            '<path d="M74 14V66" stroke="#6d4c2e" stroke-width="2"/>',
            _path("M74 12L80 18L74 26L70 19Z", "#d8d8d8", 0.7),
            _ellipse((50, 34), (8.5, 10), SKIN, 0.8),
            _path("M41 32Q40 44 43 45Q42 36 45 31Z", "#a8742f", 0.5),
            _path("M59 32Q60 44 57 45Q58 36 55 31Z", "#a8742f", 0.5),
            _path("M46 40Q50 42 54 40", "none", 0.8),
            _path("M38 28Q40 16 52 16Q63 17 62 28Z", trim, 0.8),
            f'<path d="M37 28H63" stroke="{GOLD}" stroke-width="2.5"/>',
            _path("M57 18Q66 8 70 12Q63 14 59 21Z", GOLD, 0.6),
        ]
    parts += [
        # The eyes, and the suit beside the head, as on a printed court card.
        f'<circle cx="46.5" cy="32" r="1" fill="{INK}"/>',
        f'<circle cx="53.5" cy="32" r="1" fill="{INK}"/>',
        _pip(suit, 30 if rank != 13 else 33, 40 if rank != 13 else 34, 10),
    ]
    return "".join(parts)


def _court(rank: int, suit: Suit) -> str:
    colour = _colour(suit)
    half = _court_half(rank, suit)
    return (
        '<rect x="19" y="13" width="62" height="114" rx="2" fill="#fbf3da" '
        f'stroke="{colour}" stroke-width="1.2"/>'
        f'<svg x="19" y="13" width="62" height="114" viewBox="19 13 62 114" overflow="hidden">'
        f'<g>{half}</g><g transform="rotate(180 50 70)">{half}</g></svg>'
        f'<path d="M19 70H81" stroke="{colour}" stroke-width="1"/>'
    )


def _jester(big: bool) -> str:
    """The jokers: a jester's head under a three-pointed cap, its name written below."""
    hat = (RED, GOLD, BLUE) if big else (INK, "#9a9a9a", INK)
    bells = GOLD if big else "#cfcfcf"
    name = "BIG" if big else "LITTLE"
    head = "".join(
        (
            _path("M30 56Q26 30 14 24Q30 24 40 44Z", hat[0], 0.8),
            _path("M70 56Q74 30 86 24Q70 24 60 44Z", hat[2], 0.8),
            _path("M34 58Q36 30 50 16Q64 30 66 58Z", hat[1], 0.8),
            _ellipse((14, 24), (3.5, 3.5), bells, 0.6),
            _ellipse((86, 24), (3.5, 3.5), bells, 0.6),
            _ellipse((50, 15), (3.5, 3.5), bells, 0.6),
            _path("M30 56H70V61H30Z", bells, 0.6),
            _ellipse((50, 74), (15, 15), SKIN, 0.8),
            f'<circle cx="44" cy="71" r="1.6" fill="{INK}"/>',
            f'<circle cx="56" cy="71" r="1.6" fill="{INK}"/>',
            f'<circle cx="50" cy="77" r="2.6" fill="{RED if big else "#555"}"/>',
            _path("M42 81Q50 88 58 81", "none", 1.2),
            _path("M32 88L38 86L44 92L50 87L56 92L62 86L68 88L62 96H38Z", hat[0], 0.6),
        )
    )
    return f'<g transform="translate(50 60) scale(0.8) translate(-50 -56)">{head}</g>' + "".join(
        (
            f'<text x="50" y="112" font-size="{15 if big else 11.5}" font-weight="700" '
            f'text-anchor="middle" {SERIF} fill="{INK}">{name}</text>',
            f'<text x="50" y="125" font-size="10" text-anchor="middle" letter-spacing="1" '
            f'{SERIF} fill="{INK}">BLOOPER</text>',
        )
    )


def _joker_index(big: bool) -> str:
    colour = RED if big else INK
    star = "M0 -6L1.8 -1.9L6 -1.9L2.6 0.8L3.9 5L0 2.4L-3.9 5L-2.6 0.8L-6 -1.9L-1.8 -1.9Z"
    corner = (
        f'<path d="{star}" transform="translate(11 12)" fill="{colour}"/>'
        f'<text x="11" y="29" font-size="9" font-weight="700" text-anchor="middle" {SERIF} '
        f'fill="{colour}">{"BIG" if big else "LTL"}</text>'
    )
    return f'<g>{corner}</g><g transform="rotate(180 50 70)">{corner}</g>'


def card_symbol(card: Card) -> str:
    """The ``<symbol>`` of one card, its id the card's code (``KS``, ``10H``, ``BIG``)."""
    if card.is_joker:
        big = card is Card.BIG
        body = _frame(INK) + _jester(big) + _joker_index(big)
    else:
        suit = card.suit
        assert suit is not None
        assert card.rank is not None
        rank = int(card.rank)
        colour = _colour(suit)
        text = RANK_TEXT.get(rank, str(rank))
        body = _frame(colour)
        if rank == 14:
            body += _pip(suit, 50, 70, 46)
        elif rank in COURT_NAMES:
            body += _court(rank, suit)
        else:
            body += "".join(_pip(suit, x, y, 19, flip=y > 70) for x, y in PIPS[rank])
        body += _index(text, suit, colour)
    return f'<symbol id="{card.code}" viewBox="0 0 {WIDTH} {HEIGHT}">{body}</symbol>'


def sprite_svg() -> str:
    """The whole sprite: the suit signs, then every card of the pack as a symbol."""
    signs = "".join(
        f'<symbol id="{LETTER[suit]}" viewBox="0 0 100 100">'
        f'<path d="{path}" fill="{_colour(suit)}"/></symbol>\n'
        for suit, path in SUIT_PATHS.items()
    )
    cards = "".join(card_symbol(card) + "\n" for card in Card)
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">\n'
        "<!-- Back Alley's card faces, drawn by backalley.pictures.faces: not edited by hand. -->\n"
        f"{signs}{cards}</svg>\n"
    )


def main() -> None:  # pragma: no cover - a maintainer's command
    """Write the sprite where the web table serves it (or to the path given)."""
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else SPRITE_PATH
    target.write_text(sprite_svg(), encoding="utf-8")


if __name__ == "__main__":  # pragma: no cover
    main()
