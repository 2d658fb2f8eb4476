"""Draw the documentation's pictures into ``docs/pictures/``.

Run ``python scripts/make_pictures.py`` after changing the drawing code or the
examples; ``tests/test_docs.py`` fails while a committed picture differs from
what this script draws, so the pictures cannot fall behind the code.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from backalley import Rules, Seat, apply, legal_actions, new_match
from backalley.engine.bounds import playing
from backalley.engine.examples import (
    bid,
    big_joker_lead,
    little_joker_beaten,
    little_joker_lead,
    play,
    sixteen_points,
    triple_board,
)
from backalley.engine.state import MatchState
from backalley.pictures.svg import deal_svg, hand_svg, score_sheet_svg, state_svg, trick_svg

PICTURES = Path(__file__).resolve().parent.parent / "docs" / "pictures"
SHEET_SEED = 2026
"""The seed of the match of random legal moves whose score sheet is drawn."""


def random_match(seed: int) -> MatchState:
    """A short match played to its end with random legal actions (as ``backalley demo``)."""
    chooser = random.Random(seed)
    state = new_match(Rules(schedule="short"), seed=seed)
    while playing(state):
        state = apply(state, chooser.choice(legal_actions(state)))
    return state


def first_lead() -> MatchState:
    """The getting-started deal: seed 2026, bids 3, pass, 2, 1, and East leads the ace of spades."""
    state = new_match(Rules(schedule="short"), seed=2026)
    state = apply(state, legal_actions(state)[0])
    return play(bid(state, "3 pass 2 1"), "AS")


def pictures() -> dict[str, str]:
    """Every picture of the documentation: file name and SVG text."""
    big = big_joker_lead()
    beaten = little_joker_beaten(complete=True)
    return {
        "first-lead.svg": state_svg(first_lead()),
        "sixteen-points.svg": deal_svg(sixteen_points().history[-1]),
        "sixteen-points-start.svg": state_svg(sixteen_points(tricks="none")),
        "triple-board.svg": deal_svg(triple_board().history[-1]),
        "north-hand.svg": hand_svg(
            big.hand(Seat.NORTH), big.trump, label="North's hand; hearts are trumps"
        ),
        "big-joker-lead.svg": state_svg(big),
        "little-joker-lead.svg": state_svg(little_joker_lead()),
        "little-joker-must-play-big.svg": state_svg(little_joker_beaten()),
        "little-joker-beaten.svg": trick_svg(beaten.completed_tricks[0], beaten.trump),
        "score-sheet.svg": score_sheet_svg(random_match(SHEET_SEED)),
    }


def main() -> int:
    """Write the pictures; the exit status."""
    PICTURES.mkdir(parents=True, exist_ok=True)
    for name, svg in pictures().items():
        (PICTURES / name).write_text(svg, encoding="utf-8")
        print(f"wrote docs/pictures/{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
