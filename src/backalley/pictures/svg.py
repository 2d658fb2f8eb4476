"""Pictures of hands, tricks, deals and score sheets, drawn as SVG text.

Every picture is a self-contained SVG document built as text, with only the
standard library, so it can be saved to a file, put in a web page or shown by
Jupyter (states have ``_repr_svg_``). The pictures never rely on colour alone,
as the table of seed ``001`` asks: every card carries its rank and suit symbol
and a ``<title>`` in words ("the king of hearts, a trump"), each suit in a hand
is named under its cards, trump cards wear a tag with the word "trump", the
jokers are typeset cards named in words ("BIG joker"), and the cards a player
may play are ringed while the others are dimmed, with the playable ones listed
in words below the hand.

>>> from backalley.core.cards import Card, Suit
>>> picture = hand_svg([Card.H5, Card.HK, Card.S9, Card.C2], Suit.HEARTS)
>>> picture.startswith("<svg") and "the king of hearts, a trump" in picture
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Final

import attrs

from ..core.bidding import Contract, board_multipliers
from ..core.cards import SEATS, Card, Seat, Suit, mask_of, trump_mask, trump_words
from ..core.flow import thrown_in
from ..core.tricks import Trick, allowed_plays
from ..engine.state import DealResult, DealState, MatchState
from ._drawing import (
    CARD_H,
    CARD_W,
    FELT,
    HAND_H,
    INK,
    MARGIN,
    PAPER,
    RED,
    RING,
    SEAT_NAMES,
    TRICK_H,
    TRICK_W,
    card_picture,
    card_words,
    document,
    element,
    hand_picture,
    hand_width,
    may_play_words,
    moved,
    num,
    text_at,
    text_width,
    trick_picture,
    trick_words,
)
from .prose import PAIR_NAMES, counted, deal_heading, score_rows

__all__ = [
    "Picture",
    "deal_svg",
    "hand_svg",
    "score_sheet_svg",
    "show_hand",
    "state_svg",
    "table_svg",
    "trick_svg",
]


@attrs.frozen
class Picture:
    """An SVG picture: ``str()`` gives the SVG text, Jupyter shows it, ``save`` writes it."""

    svg: str

    def _repr_svg_(self) -> str:
        return self.svg

    def __str__(self) -> str:
        return self.svg

    def save(self, path: str) -> None:
        """Write the SVG to a file, UTF-8 encoded."""
        with open(path, "w", encoding="utf-8") as file:
            file.write(self.svg)


# --- a hand ------------------------------------------------------------------------


def hand_svg(
    cards: Iterable[Card],
    trump: Suit | None = None,
    *,
    playable: Iterable[Card] | None = None,
    label: str | None = None,
) -> str:
    """A hand as SVG: suits in a fixed order, trumps last and tagged, jokers named in words.

    ``playable``, if given, rings those cards, dims the rest and lists them in words.
    """
    held = list(cards)
    mask = None if playable is None else mask_of(playable)
    heading = label if label is not None else f"A hand; {trump_words(trump)}"
    spread = mask is not None
    width = max(hand_width(held, trump, spread=spread), text_width(heading, 12)) + 2 * MARGIN
    body = [text_at(MARGIN, MARGIN + 10, heading, size=12, font_weight="bold", fill=INK)]
    body += hand_picture(held, trump, MARGIN, MARGIN + 20, mask)
    height = MARGIN + 20 + HAND_H + MARGIN
    if mask is not None:
        body.append(text_at(MARGIN, height, may_play_words(mask), size=12, fill=RING))
        height += 20
    words = "; ".join(card_words(card, trump_mask(trump)) for card in held)
    return document(width, height, f"{heading}: {words or 'no cards'}", body)


def show_hand(cards: Iterable[Card], trump: Suit | None = None) -> Picture:
    """A hand as a :class:`Picture`, which Jupyter shows as the drawing."""
    return Picture(hand_svg(cards, trump))


def trick_svg(trick: Trick, trump: Suit | None = None) -> str:
    """A trick as SVG: the cards around the table, the leader, the winner once complete."""
    heading = trump_words(trump).capitalize()
    width = TRICK_W + 2 * MARGIN + 40
    body = [text_at(MARGIN, MARGIN + 10, heading, size=12, font_weight="bold")]
    body += trick_picture(trick, trump, MARGIN + 20, MARGIN + 34)
    height = MARGIN + 34 + TRICK_H + 20 + MARGIN
    return document(
        width, height, f"A trick; {trump_words(trump)}. " + trick_words(trick, trump), body
    )


# --- the table: four hands around a centre ---------------------------------------------


def _bid_notes(deal: DealState) -> dict[Seat, str]:
    """What each seat bid, in words, Boards with their multipliers; nothing in a tiebreak."""
    if deal.setup.tiebreak:
        return {}
    multipliers = board_multipliers(deal.bids)
    notes = {}
    for seat in SEATS:
        bid = deal.bid_of(seat)
        if bid is None:
            notes[seat] = "no bid yet"
        elif bid.board:
            notes[seat] = f"bid Board ×{multipliers[seat]}"
        else:
            notes[seat] = "passed" if bid.is_pass else f"bid {bid.amount}"
    return notes


Box = tuple[list[str], tuple[float, float]]
"""A drawing made at (0, 0) and its width and height, to be moved into place."""


def _table(
    hands: Mapping[Seat, Sequence[Card]],
    notes: Mapping[Seat, str],
    trump: Suit | None,
    centre: Box,
    playable: tuple[Seat, int] | None = None,
) -> tuple[list[str], float, float]:
    """Four hands as at the table (North at the top) around a centre drawing.

    Drawn from y = 0. Returns the parts, the width and the bottom edge.
    """
    centre_parts, (centre_w, centre_h) = centre
    widths = {
        seat: hand_width(hands[seat], trump, spread=playable is not None and playable[0] is seat)
        for seat in SEATS
    }
    side = max(widths[Seat.WEST], widths[Seat.EAST], 150)
    middle = max(widths[Seat.NORTH], widths[Seat.SOUTH], centre_w)
    width = MARGIN + side + 24 + middle + 24 + side + MARGIN
    # Room under every hand for the line listing the playable cards, when there is one.
    row_h = 18 + HAND_H + (22 if playable is not None else 0)
    mid_h = max(row_h, centre_h)
    spots = {
        Seat.NORTH: (MARGIN + side + 24 + (middle - widths[Seat.NORTH]) / 2, 0.0),
        Seat.WEST: (MARGIN, row_h + 12 + (mid_h - row_h) / 2),
        Seat.EAST: (MARGIN + side + 24 + middle + 24, row_h + 12 + (mid_h - row_h) / 2),
        Seat.SOUTH: (
            MARGIN + side + 24 + (middle - widths[Seat.SOUTH]) / 2,
            row_h + 12 + mid_h + 12,
        ),
    }
    parts = []
    for seat, (x, y) in spots.items():
        mask = playable[1] if playable is not None and playable[0] is seat else None
        note = f"{SEAT_NAMES[seat]} · {notes[seat]}" if notes.get(seat) else SEAT_NAMES[seat]
        parts.append(text_at(x, y + 12, note, size=12, font_weight="bold"))
        parts += hand_picture(hands[seat], trump, x, y + 18, mask)
        if mask is not None:
            parts.append(text_at(x, y + 18 + HAND_H + 14, may_play_words(mask), size=11, fill=RING))
    cx = MARGIN + side + 24 + (middle - centre_w) / 2
    cy = row_h + 12 + (mid_h - centre_h) / 2
    parts.append(moved(centre_parts, cx, cy))
    bottom = 2 * row_h + mid_h + 24
    return parts, width, bottom


def _lines_box(lines: Sequence[str], *, size: float = 12) -> Box:
    """Lines of text in a pale box, for the middle of the table."""
    width = max(text_width(line, size) for line in lines) + 24
    height = len(lines) * (size + 6) + 16
    parts = [element("rect", x=0, y=0, width=num(width), height=num(height), rx=8, fill=FELT)]
    parts += [
        text_at(12, 8 + (index + 1) * (size + 6) - 4, line, size=size)
        for index, line in enumerate(lines)
    ]
    return parts, (width, height)


def _contract_words(contract: Contract, hand_size: int) -> str:
    if contract.is_board:
        return f"Board ×{contract.multiplier} (all {hand_size})"
    return "passed (a point a trick)" if contract.target == 0 else f"target {contract.target}"


def _heading(deal: DealState) -> str:
    return deal_heading(deal.setup, dealer=SEAT_NAMES.__getitem__, turned=_turned_words)


def _heading_lines(lines: Sequence[str], *, all_bold: bool) -> list[str]:
    """The lines above a table, 18 apart: the first larger and bold, the rest bold or not."""
    return [
        text_at(
            MARGIN,
            MARGIN + 12 + 18 * index,
            line,
            size=13 if index == 0 else 12,
            font_weight="bold" if index == 0 or all_bold else None,
        )
        for index, line in enumerate(lines)
    ]


def _turned_words(card: Card) -> str:
    return f"the {card.name} joker" if card.is_joker else f"{card.symbol} ({card.words})"


def _playable(deal: DealState) -> tuple[Seat, int] | None:
    """The seat to play and the cards it may play, during the play of a deal."""
    trick = deal.current_trick
    if trick is None or deal.is_complete:
        return None
    seat = deal.to_move
    bid = deal.bid_of(seat)
    allowed, _ = allowed_plays(
        mask_of(deal.hand(seat)),
        trick.cards,
        trump_mask(deal.trump),
        deal.broken,
        bid is not None and bid.board,
    )
    return seat, allowed


def table_svg(deal: DealState, *, caption: str | None = None) -> str:
    """A deal in progress as SVG: the hands still held, the bids, the trick on the table.

    During the play the player to move has the cards they may play ringed.
    """
    setup = deal.setup
    trump = setup.trump
    hands = {seat: deal.hand(seat) for seat in SEATS}
    notes = _bid_notes(deal)
    to_move = deal.to_move if not deal.is_complete else None
    if to_move is not None:
        doing = "to bid" if deal.current_trick is None else "to play"
        notes[to_move] = f"{notes[to_move]} · {doing}" if notes.get(to_move) else doing
    trick = deal.current_trick
    if trick is not None:
        centre: Box = (trick_picture(trick, trump, 0, 16), (TRICK_W, TRICK_H + 32))
    else:
        centre = _lines_box(["Bidding:", *(str(bid) for bid in deal.bids)])
    lines = [_heading(deal)]
    lines.append(_progress_words(deal))
    if caption:
        lines.insert(0, caption)
    body = _heading_lines(lines, all_bold=False)
    top = MARGIN + 18 * len(lines) + 8
    parts, width, bottom = _table(hands, notes, trump, centre, _playable(deal))
    parts, bottom = [moved(parts, 0, top)], bottom + top
    width = max(width, max(text_width(line, 13) for line in lines) + 2 * MARGIN)
    title = ". ".join(lines) + ". " + _hands_words(hands, trump)
    return document(width, bottom + MARGIN, title, body + parts)


def _progress_words(deal: DealState) -> str:
    ns, ew = deal.tricks_won
    contracts = deal.contracts
    if contracts is None:
        return f"Tricks so far: North-South {ns}, East-West {ew}"
    size = deal.setup.hand_size
    return (
        f"North-South {_contract_words(contracts[0], size)}, took {ns}; "
        f"East-West {_contract_words(contracts[1], size)}, took {ew}"
    )


def _hands_words(hands: Mapping[Seat, Sequence[Card]], trump: Suit | None) -> str:
    trumps = trump_mask(trump)
    return " ".join(
        f"{SEAT_NAMES[seat]} holds "
        + ("; ".join(card_words(card, trumps) for card in hands[seat]) or "nothing")
        + "."
        for seat in SEATS
    )


# --- a finished deal ------------------------------------------------------------------

_ROW_W: Final = 110 + 4 * (CARD_W + 8) + 150
_ROW_H: Final = CARD_H + 26


def _trick_row(  # noqa: PLR0913, PLR0917 - the trick, where it goes, and its marks
    number: int,
    trick: Trick,
    trump: Suit | None,
    x: float,
    y: float,
    marks: Mapping[tuple[int, Seat], int] | None = None,
) -> list[str]:
    """One completed trick on a line: the cards in play order, each under its seat.

    ``marks[(number, seat)]``, if given, is the tricks that seat's card cost: the
    card gets a badge saying so.
    """
    trumps = trump_mask(trump)
    parts = [text_at(x, y + 40, f"Trick {number}", size=12, font_weight="bold")]
    for index, (seat, card) in enumerate(trick.plays):
        cx = x + 64 + index * (CARD_W + 8)
        parts.append(text_at(cx + CARD_W / 2, y + 10, seat.letter, size=11, text_anchor="middle"))
        parts.append(card_picture(card, (cx, y + 14), trumps, ring=seat is trick.winner))
        lost = None if marks is None else marks.get((number, seat))
        if lost is not None:
            parts.append(_cost_badge(lost, cx + CARD_W - 10, y + 14))
    if trick.winner is not None:
        parts.append(
            text_at(
                x + 64 + 4 * (CARD_W + 8) + 4,
                y + 46,
                f"{SEAT_NAMES[trick.winner]} wins",
                size=12,
                font_weight="bold",
                fill=RING,
            )
        )
    return parts


def _cost_badge(lost: int, x: float, y: float) -> str:
    """A red disc at (x, y) saying how many tricks a card cost: ``-1``."""
    return moved(
        [
            element("title", f"this card cost {lost} {'trick' if lost == 1 else 'tricks'}"),
            element("circle", cx=0, cy=0, r=10, fill=RED),
            text_at(
                0, 4, f"-{lost}", size=11, font_weight="bold", text_anchor="middle", fill=PAPER
            ),
        ],
        x,
        y,
    )


def _score_words(contract: Contract, took: int, scored: int, hand_size: int) -> str:
    return f"{_contract_words(contract, hand_size)}, took {took}: {scored:+d}"


def deal_svg(
    result: DealResult | DealState,
    *,
    marks: Mapping[tuple[int, Seat], int] | None = None,
    remarks: Sequence[str] = (),
) -> str:
    """A finished deal as SVG: the hands as dealt, trump, bids, every trick and the scores.

    Accepts a :class:`DealResult` from a match's history or a complete
    :class:`DealState`; a deal still in progress is drawn by :func:`table_svg`.
    ``marks`` badges cards that cost tricks: ``marks[(trick, seat)]`` is what the
    card ``seat`` played to trick number ``trick`` (from 1) cost; ``remarks`` are
    lines added under the heading (``backalley analyze --svg`` says there which
    card would have been best).
    """
    deal = result.deal if isinstance(result, DealResult) else result
    if not deal.is_complete and not thrown_in(deal.bids):
        return table_svg(deal)
    setup = deal.setup
    trump = setup.trump
    dealt = {seat: _cards_dealt(deal, seat) for seat in SEATS}
    notes = _bid_notes(deal)
    lines = [_heading(deal)]
    scores = deal.settle()
    contracts = deal.contracts
    ns, ew = deal.tricks_won
    size = setup.hand_size
    if thrown_in(deal.bids):
        lines.append("All four passed: the deal is thrown in, no score.")
    elif contracts is None:
        lines.append(f"Tiebreak deal, no bidding: North-South took {ns}, East-West {ew}")
    else:
        lines.append("North-South " + _score_words(contracts[0], ns, scores[0], size))
        lines.append("East-West " + _score_words(contracts[1], ew, scores[1], size))
    lines.extend(remarks)
    centre = _lines_box(["As dealt", f"Turned: {setup.turned.symbol}", trump_words(trump)])
    top = MARGIN + 18 * len(lines) + 8
    parts, width, bottom = _table(dealt, notes, trump, centre)
    parts, bottom = [moved(parts, 0, top)], bottom + top
    columns = max(1, int((width - 2 * MARGIN) // _ROW_W))
    if len(deal.tricks) > 1:
        columns = min(columns, 2)
    width = max(width, columns * _ROW_W + 2 * MARGIN)
    for index, trick in enumerate(deal.tricks):
        row, column = divmod(index, columns)
        parts += _trick_row(
            index + 1, trick, trump, MARGIN + column * _ROW_W, bottom + 8 + row * _ROW_H, marks
        )
    rows = -(-len(deal.tricks) // columns)
    height = bottom + 8 + rows * _ROW_H + MARGIN
    body = _heading_lines(lines, all_bold=True)
    tricks_words = " ".join(
        f"Trick {index}: {trick_words(trick, trump)}."
        for index, trick in enumerate(deal.tricks, start=1)
    )
    title = ". ".join(lines) + ". As dealt: " + _hands_words(dealt, trump) + " " + tricks_words
    return document(width, height, title, body + parts)


def _cards_dealt(deal: DealState, seat: Seat) -> tuple[Card, ...]:
    """What ``seat`` held before the first card was played (after any joker swap)."""
    played = [card for trick in deal.tricks for s, card in trick.plays if s is seat]
    current = deal.current_trick
    if current is not None:
        played += [card for s, card in current.plays if s is seat]
    return tuple(sorted((*deal.hand(seat), *played)))


# --- the score sheet and a whole state ------------------------------------------------

_SHEET_COLUMNS: Final = (
    ("Deal", 36, "end"),
    ("Cards", 92, "end"),
    ("Dealer", 112, "start"),
    ("Trumps", 180, "start"),
    ("NS", 330, "end"),
    ("EW", 390, "end"),
    ("NS total", 480, "end"),
    ("EW total", 566, "end"),
)
"""Each column's heading, x position and alignment (numbers right-aligned)."""
_SHEET_W: Final = 580


def score_sheet_svg(state: MatchState) -> str:
    """The score sheet of a match as SVG: one row per deal, scores and running totals."""
    rows: list[tuple[str, ...]] = []
    for deal in score_rows(state):
        trump = deal.trump
        head = (str(deal.number), str(deal.hand_size), SEAT_NAMES[deal.dealer])
        trumps = "none" if trump is None else f"{trump.symbol} {trump.word}"
        if deal.kind == "thrown in":
            rows.append((*head, "thrown in", "", "", "", ""))
        elif deal.kind == "tiebreak":
            ns, ew = deal.tricks
            rows.append((*head, trumps, f"{ns} tricks", f"{ew} tricks", "tiebreak", ""))
        else:
            ns, ew = deal.scores
            totals = (str(deal.totals[0]), str(deal.totals[1]))
            rows.append((*head, trumps, f"{ns:+d}", f"{ew:+d}", *totals))
    row_h = 20
    body = [text_at(MARGIN, MARGIN + 12, _sheet_heading(state), size=13, font_weight="bold")]
    top = MARGIN + 30
    for name, dx, anchor in _SHEET_COLUMNS:
        body.append(
            text_at(MARGIN + dx, top + 14, name, size=12, font_weight="bold", text_anchor=anchor)
        )
    body.append(
        element("line", x1=MARGIN, y1=top + 20, x2=MARGIN + _SHEET_W, y2=top + 20, stroke=INK)
    )
    for index, row in enumerate(rows):
        y = top + 22 + index * row_h
        if index % 2:
            body.append(element("rect", x=MARGIN, y=y, width=_SHEET_W, height=row_h, fill=FELT))
        for cell, (_, dx, anchor) in zip(row, _SHEET_COLUMNS, strict=True):
            if cell:
                body.append(text_at(MARGIN + dx, y + 15, cell, size=12, text_anchor=anchor))
    bottom = top + 22 + len(rows) * row_h + 8
    body.append(text_at(MARGIN, bottom + 14, _result_words(state), size=12, font_weight="bold"))
    title = (
        _sheet_heading(state)
        + ". "
        + " ".join(
            f"Deal {row[0]}: {counted(int(row[1]), 'card')}, dealer {row[2]}, {row[3]}"
            + (f", NS {row[4]}, EW {row[5]}" if row[4] else "")
            + "."
            for row in rows
        )
        + " "
        + _result_words(state)
    )
    return document(_SHEET_W + 2 * MARGIN, bottom + 24 + MARGIN, title, body)


def _sheet_heading(state: MatchState) -> str:
    name = state.rules.schedule_name or "custom"
    return (
        f"Score sheet: {name} schedule, {state.counted_deals} of {state.rules.deals} deals played"
    )


def _result_words(state: MatchState) -> str:
    ns, ew = state.totals
    outcome = state.outcome
    if outcome is None:
        return f"Totals so far: North-South {ns}, East-West {ew}."
    if outcome.winner is None:
        return f"A draw, {ns} all."
    return f"{PAIR_NAMES[outcome.winner]} win: North-South {ns}, East-West {ew}."


def state_svg(state: MatchState) -> str:
    """A match at one moment as SVG: the deal in progress, or the score sheet between deals."""
    if state.deal is None:
        return score_sheet_svg(state)
    ns, ew = state.totals
    counted = min(state.counted_deals + 1, state.rules.deals)
    caption = f"Deal {counted} of {state.rules.deals}; totals North-South {ns}, East-West {ew}"
    return table_svg(state.deal, caption=caption)
