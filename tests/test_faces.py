"""The card faces of the web table: the committed sprite is what the code draws, whole."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from backalley.core.cards import Card
from backalley.pictures.faces import SPRITE_PATH, card_symbol, sprite_svg

SVG = "{http://www.w3.org/2000/svg}"


def test_the_committed_sprite_is_the_drawn_one():
    # Regenerate with: python -m backalley.pictures.faces
    assert SPRITE_PATH.read_text(encoding="utf-8") == sprite_svg()


def test_every_card_is_a_symbol_of_its_own_with_its_corners():
    root = ET.fromstring(sprite_svg())
    symbols = {node.get("id"): node for node in root.iter(SVG + "symbol")}
    assert set(symbols) == {card.code for card in Card} | {"S", "H", "D", "C"}
    for card in Card:
        symbol = symbols[card.code]
        assert symbol.get("viewBox") == "0 0 100 140"
        # The index twice (top left, and turned in the bottom right): rank text in both.
        texts = [node.text for node in symbol.iter(SVG + "text")]
        if card.is_joker:
            assert "BLOOPER" in texts and ("BIG" if card is Card.BIG else "LITTLE") in texts
        else:
            rank = card.code[:-1]
            assert texts.count(rank) == 2, (card, texts)
            # Every pip and corner sign is the card's own suit.
            signs = {node.get("href") for node in symbol.iter(SVG + "use")}
            assert signs == {"#" + card.code[-1]}


def test_pip_cards_have_their_number_of_pips_and_courts_a_portrait():
    for card in Card:
        if card.is_joker:
            continue
        uses = card_symbol(card).count("<use ")
        rank = int(card.rank)
        if rank <= 10:
            assert uses == rank + 2, card  # the pips and the two corner signs
        elif rank == 14:
            assert uses == 3
        else:
            # A court: the portrait twice (mirrored), each with the suit beside the head.
            assert uses == 4 and card_symbol(card).count("rotate(180 50 70)") == 2
