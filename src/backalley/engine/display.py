"""Pictures of states for notebooks, without the engine knowing how they are drawn.

Jupyter shows a value by asking for its ``_repr_svg_``. The states sit below the
pictures in the layers (see ``docs/architecture.md``), so they cannot import the
SVG renderer; a higher layer registers a drawing function here instead, and the
states' ``_repr_svg_`` looks it up. ``backalley/__init__.py`` registers the ones of
:mod:`backalley.pictures.svg`, importing it only when a picture is asked for.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

__all__ = ["register_svg", "svg_of"]

_DRAWERS: Final[dict[type, Callable[[Any], str]]] = {}


def register_svg(kind: type, draw: Callable[[Any], str]) -> None:
    """Draw values of type ``kind`` with ``draw`` (a value -> SVG text function)."""
    _DRAWERS[kind] = draw


def svg_of(value: object) -> str | None:
    """The SVG picture of ``value`` by its registered drawer; None when none is registered."""
    draw = _DRAWERS.get(type(value))
    return None if draw is None else draw(value)
