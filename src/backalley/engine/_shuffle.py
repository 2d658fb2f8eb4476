"""A shuffle that draws exactly what ``random.Random.shuffle`` draws, as a plain function.

The sampler (:mod:`backalley.engine.sampling`) shuffles every class of unseen cards
on every sample a search player draws; ``random.Random.shuffle`` makes two calls of
interpreted code per card (``shuffle`` and ``_randbelow``). This is the same
Fisher-Yates shuffle, from the last place down, each place's partner drawn uniformly
by rejection from ``getrandbits`` of the bit length of the places left: the
permutation and the generator's state afterwards are those of ``rng.shuffle`` for a
``random.Random`` (whose draws below a bound come from ``getrandbits``, CPython
3.11 to 3.13). In the compiled build it is compiled, as every engine module.

>>> import random
>>> cards = list(range(10))
>>> shuffle(cards, random.Random(5))
>>> expected = list(range(10))
>>> random.Random(5).shuffle(expected)
>>> cards == expected
True
"""

from __future__ import annotations

import random
from typing import TypeVar

__all__ = ["shuffle"]

T = TypeVar("T")


def shuffle(items: list[T], rng: random.Random) -> None:
    """Shuffle ``items`` in place with the draws and the result of ``rng.shuffle(items)``."""
    getrandbits = rng.getrandbits
    i = len(items) - 1
    while i > 0:
        bound = i + 1
        bits = bound.bit_length()
        pick = getrandbits(bits)
        while pick >= bound:
            pick = getrandbits(bits)
        items[i], items[pick] = items[pick], items[i]
        i -= 1
