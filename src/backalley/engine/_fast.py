"""Speed tricks of ``apply`` and ``legal_actions``, kept in one place.

Why this module exists: a random playout calls ``legal_actions`` and ``apply``
once per action, and each builds a few small values. The plain way to build
them (attrs' generated ``__init__``, ``Deal(deck)`` with its checks, a tuple of
``Play`` per call) costs about twice as much as what is below. Every function
here gives a value *equal* to the plain construction, which
``tests/test_fast.py`` checks for each of them; nothing else in the package
depends on how they do it.

- ``core.actions.deal_of_permutation`` (kept in the core, since the layers beside
  the engine use it too): ``Deal(deck)`` for a deck known to hold each card once.
- ``plays_of``: the ``Play`` actions of a mask of cards, picked 13 cards at a
  time by a cached ``itemgetter`` instead of one lookup per card.
- ``LEGAL_BIDS``: the bids allowed, as ``Bid`` values of the bidder to move, a
  table built once from ``core.flow`` and indexed, instead of a call per action;
  ``TO_PLAY``, the seat to play to a trick, the same way. (Whose turn it is is
  asked of ``flow.seat_to_move`` alone: both tables are made from it.)
- ``cards_in``: ``cards_of(mask)`` (the cards of a hand, as a seat view shows
  them) picked 13 cards at a time by the same kind of cached ``itemgetter``.
- ``slot_builder``: a class's values built by setting its slots, not through attrs'
  ``__init__``; ``build_state`` (a ``MatchState``, which ``apply`` makes on every
  action) is one, and the seat view, made at every decision, uses it for
  ``DealView`` and ``SeatView``.
- ``match.turn`` (kept beside ``legal_actions``, whose helpers it shares): the
  seat to move and its legal actions in one call, what a match driver asks
  before every decision, from the same tables and the same ``allowed_plays``.

One trick stays where it is used, as moving it would cost the call it saves:
``apply`` tells the three action classes apart by exact type
(``type(action) is Play``), not ``isinstance``.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import itemgetter
from types import FunctionType
from typing import Any, Final, TypeVar

from ..core.actions import PLAYS, Play, shared_bid
from ..core.cards import CARDS, SEATS, Card
from ..core.dealing import DealSetup
from ..core.flow import seat_to_move
from ..core.position import Position
from ..core.rules import MAX_HAND_SIZE
from .state import DealResult, MatchState

__all__ = [
    "LEGAL_BIDS",
    "TO_PLAY",
    "build_result",
    "build_state",
    "cards_in",
    "plays_of",
    "slot_builder",
]

_new: Final = object.__new__
_T = TypeVar("_T")
_Item = TypeVar("_Item")


def _setters(cls: type, *names: str) -> tuple[Any, ...]:
    return tuple(cls.__dict__[name].__set__ for name in names)


_COMPILED: Final = type(_setters) is not FunctionType
"""Whether this module runs compiled (by mypyc: its functions are then no Python functions)."""

_PLAYS: Final = PLAYS
"""``core.actions.PLAYS`` bound by ``Final``: compiled, a C static (see :func:`plays_of`)."""

# The plays of a mask are picked 13 cards at a time (a suit, or the two jokers) by an
# itemgetter made once for each pattern of set bits and shared by every seat and suit,
# so the table never holds more than 2**13 entries.
_CHUNK: Final = 13
_CHUNK_BITS: Final = (1 << _CHUNK) - 1
_PICKERS: Final[list[Callable[[tuple[Any, ...]], tuple[Any, ...]] | None]] = [None] * (1 << _CHUNK)
"""``_PICKERS[bits]``: the itemgetter of a 13-bit pattern, made when first needed. A list
indexed by the pattern, not a dictionary: no hashing, no method call, and compiled no
boxed key."""
_PLAYS_BY_CHUNK: Final = tuple(
    tuple(PLAYS[seat][base : base + _CHUNK] for base in range(0, len(CARDS), _CHUNK))
    for seat in SEATS
)


def _picker(bits: int) -> Callable[[tuple[Any, ...]], tuple[Any, ...]]:
    """An itemgetter taking the plays at the set bits of a 13-bit chunk, as a tuple."""
    positions = [i for i in range(_CHUNK) if bits >> i & 1]
    # itemgetter of one index gives the item itself; a one-item slice gives a tuple.
    if len(positions) == 1:
        return itemgetter(slice(positions[0], positions[0] + 1))
    return itemgetter(*positions)


def _picked(mask: int, chunks: tuple[tuple[_Item, ...], ...]) -> tuple[_Item, ...]:
    """The items of ``chunks`` (13 a chunk, in card order) at the set bits of ``mask``."""
    picked: tuple[_Item, ...] = ()
    chunk = 0
    while mask:
        bits = mask & _CHUNK_BITS
        if bits:
            pick = _PICKERS[bits]
            if pick is None:
                pick = _PICKERS[bits] = _picker(bits)
            picked += pick(chunks[chunk])
        mask >>= _CHUNK
        chunk += 1
    return picked


def chunked(items: tuple[_Item, ...]) -> tuple[tuple[_Item, ...], ...]:
    """Items in card order (54 of them), cut into the chunks :func:`picked` takes."""
    return tuple(items[base : base + _CHUNK] for base in range(0, len(CARDS), _CHUNK))


def picked(mask: int, chunks: tuple[tuple[_Item, ...], ...]) -> tuple[_Item, ...]:
    """The items at the set bits of a card mask, in card order, from :func:`chunked` items."""
    return _picked(mask, chunks)


def plays_of(seat: int, allowed: int) -> tuple[Play, ...]:
    """The Play actions of ``seat`` for the cards of ``allowed``, in card order.

    Interpreted, picked 13 cards at a time (:func:`picked`); compiled, by a loop over the
    mask's set bits, which is native there where each itemgetter is a call through its
    Python wrapper (about a third of the cost).
    """
    if _COMPILED:
        plays = _PLAYS[seat]
        found: list[Play] = []
        while allowed:
            low = allowed & -allowed
            found.append(plays[low.bit_length() - 1])
            allowed ^= low
        return tuple(found)
    return _picked(allowed, _PLAYS_BY_CHUNK[seat])


_BIDS_OF_SEAT: Final = tuple(
    tuple(
        (*(shared_bid(seat, amount) for amount in range(size)), shared_bid(seat, 0, board=True))
        for size in range(MAX_HAND_SIZE + 1)
    )
    for seat in SEATS
)
LEGAL_BIDS: Final = tuple(
    tuple(_BIDS_OF_SEAT[seat_to_move(dealer, said, -1, 0)] for said in range(4)) for dealer in SEATS
)
"""``LEGAL_BIDS[dealer][bids said][hand_size]``: the next bidder's legal bids (BID-1, BID-2).

Pass, 1 .. hand_size - 1, Board, in that order; the bidder from ``flow.seat_to_move``.
"""

TO_PLAY: Final = tuple(
    tuple(seat_to_move(0, 4, leader, down) for down in range(4)) for leader in SEATS
)
"""``TO_PLAY[leader][cards down]``: the seat to play to a trick (PLAY-1).

Made from ``flow.seat_to_move`` (in play the dealer does not matter): two indexings,
where interpreted a call costs about twice as much.
"""

_CARDS_BY_CHUNK: Final = tuple(CARDS[base : base + _CHUNK] for base in range(0, len(CARDS), _CHUNK))


def cards_in(mask: int) -> tuple[Card, ...]:
    """``cards_of(mask)``: the cards of a hand mask in card order, 13 at a time."""
    return _picked(mask, _CARDS_BY_CHUNK)


def slot_builder(cls: type[_T], *names: str) -> Callable[..., _T]:
    """A function ``build(*values)`` equal to ``cls(*values)`` for ``names`` in that order.

    It sets each slot through its descriptor, skipping attrs' ``__init__`` (which goes
    through ``object.__setattr__`` for each field, about twice the cost), so only for
    classes without converters or validators and for values known to be right. The
    function is written out field by field (as attrs writes its own ``__init__``) so
    that it has no loop.
    """
    setters = _setters(cls, *names)
    scope: dict[str, Any] = {"_new": _new, "_cls": cls}
    lines = [f"def build({', '.join(names)}):", "    obj = _new(_cls)"]
    for number, (name, setter) in enumerate(zip(names, setters, strict=True)):
        scope[f"_set{number}"] = setter
        lines.append(f"    _set{number}(obj, {name})")
    lines.append("    return obj")
    exec("\n".join(lines), scope)
    build: Callable[..., _T] = scope["build"]
    return build


_SET_POSITION, _SET_SEED, _SET_HISTORY, _SET_SETUP = _setters(
    MatchState, "position", "seed", "history", "setup"
)
_SET_RESULT_POSITION, _SET_RESULT_SETUP = _setters(DealResult, "position", "setup")

_STATE: Final = MatchState
_RESULT: Final = DealResult
"""The classes built here, bound by ``Final``: compiled, a C static each, where an imported
class (the value types stay interpreted) is looked up in the module's dictionary."""


def build_state(
    position: Position, seed: int, history: tuple[DealResult, ...], setup: DealSetup | None
) -> MatchState:
    """``MatchState(position, seed, history, setup)``, built through its slots.

    What :func:`slot_builder` makes, written out: ``apply`` calls it on every action,
    and a function written in the module is compiled with it in the compiled build,
    where one made by ``exec`` would stay interpreted. Compiled, each slot is set with
    ``object.__setattr__``, which mypyc turns into one C call (``PyObject_GenericSetAttr``,
    past the class's frozen ``__setattr__`` as attrs' own ``__init__`` goes), where a
    slot's setter is a method wrapper called through its argument tuple (about 1,900
    instructions an ``apply``, docs/performance.md); interpreted, the setters are the
    cheaper.
    """
    state: MatchState = _new(_STATE)
    if _COMPILED:
        object.__setattr__(state, "position", position)
        object.__setattr__(state, "seed", seed)
        object.__setattr__(state, "history", history)
        object.__setattr__(state, "setup", setup)
        return state
    _SET_POSITION(state, position)
    _SET_SEED(state, seed)
    _SET_HISTORY(state, history)
    _SET_SETUP(state, setup)
    return state


def build_result(position: Position, setup: DealSetup) -> DealResult:
    """``DealResult(position, setup)``, built through its slots as :func:`build_state` is.

    Made once a deal, at its end (``match.apply``); attrs' ``__init__`` costs about a
    third more.
    """
    result: DealResult = _new(_RESULT)
    if _COMPILED:
        object.__setattr__(result, "position", position)
        object.__setattr__(result, "setup", setup)
        return result
    _SET_RESULT_POSITION(result, position)
    _SET_RESULT_SETUP(result, setup)
    return result
