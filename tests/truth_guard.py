"""No truth tests of seats, pairs, suits or cards: North, North-South, clubs and 2C are 0.

``install()`` (called by the root ``conftest.py`` for the whole run) makes ``bool()`` of a
:class:`Seat`, :class:`Pair`, :class:`Suit` or :class:`Card` raise, so that an ``if seat:``
anywhere the tests reach fails loudly instead of treating North as "none".
``tests/test_truth_tests.py`` finds the ones the tests do not reach, in the source.
"""

from __future__ import annotations

from backalley.core.cards import Card, Pair, Seat, Suit

GUARDED = (Card, Pair, Seat, Suit)


class TruthTestError(TypeError):
    """A seat, pair, suit or card was tested for truth."""


def _refuse(self: object) -> bool:
    raise TruthTestError(
        f"{self!r} was tested for truth: compare with None or a value instead "
        "(North, North-South, clubs and 2C are 0, so they are false)"
    )


def install() -> None:
    """Make the truth test of every guarded value raise :class:`TruthTestError`."""
    for kind in GUARDED:
        kind.__bool__ = _refuse  # type: ignore[method-assign,assignment]
