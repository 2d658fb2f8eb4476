"""The draws and swaps of the seeded shuffle: the loop of ``dealing.seeded_deck``.

The algorithm is stated where it is used, in ``dealing.seeded_deck`` (steps 2 and 3):
for each place from the last down to the second, the words of the stream are read
until one is below the place's limit, and the place is swapped with the one that word
picks. The loop is a module of its own so that the compiled build compiles it (53
draws a deal, about half of what dealing a deal costs interpreted), while
``core.dealing``, its boundary checks and its hashed blocks stay interpreted
(``docs/performance.md``, "Compiled build" and "Fourth round").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

__all__ = ["draw_and_swap"]

T = TypeVar("T")


def draw_and_swap(
    deck: list[T], words: list[int], limits: tuple[int, ...], more: Callable[[], None]
) -> None:
    """Shuffle ``deck`` in place from the last place down, drawing from ``words``.

    A draw for ``n`` places takes words until one is below ``limits[n]`` and swaps the
    place with the one at that word modulo ``n``. ``words`` holds at least one word a
    draw; ``more()`` appends the next block to it, asked for only when a rejected word
    leaves fewer words than draws.
    """
    at = 0
    for i in range(len(deck) - 1, 0, -1):
        n = i + 1
        word = words[at]
        at += 1
        while word >= limits[n]:
            # Invariant: the words not yet read are at least the draws still to make, so
            # the first read of each draw needs no bounds check; a rejection tops them up.
            while len(words) - at < i:
                more()
            word = words[at]
            at += 1
        j = word % n
        deck[i], deck[j] = deck[j], deck[i]
