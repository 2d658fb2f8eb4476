"""One encoding of what a seat knows, as tensors and strings, for every framework adapter.

Game-AI frameworks feed a seat's knowledge to a network as a flat tensor of
numbers, and key search trees on strings. Both are written here from a seat's
view (:func:`backalley.engine.view.view`), never from the full state, so an
encoding cannot leak another hand. OpenSpiel's game, the PettingZoo environment
and the batch engine all use this one layout, which the tables
:data:`OBSERVATION` and :data:`INFORMATION_STATE` describe field by field (name,
offset, shape); nothing else in the package states an offset.

The **observation** is what the seat sees now. The **information state** adds
the order of play of the current deal (perfect recall within a deal); earlier
deals enter both tensors only through the running totals and the count of
deals played, since the past deals' cards do not change what may happen next.
The information-state *string* does recall the earlier deals too.

For OpenSpiel's other observation types there are a **public** form (what every
seat sees: the seat's private fields, :data:`PRIVATE_FIELDS`, left at zero and
the strings without hand or swap), a **private** form (those fields alone), and
layouts with **every hand** (:data:`OBSERVATION_ALL_HANDS`,
:data:`INFORMATION_STATE_ALL_HANDS`: the layout, then all four hands), for
analysis with perfect information.

Every number lies in a documented range, the same for every schedule, so a
network takes the tensors as they are: the indicators are 0 or 1, and the few
counts are scaled (:data:`RANGES`, :meth:`Layout.bounds`): ``tricks_won`` is
tricks over 13, ``deals`` the fraction of the schedule played and the deals
left squashed by :func:`squash`, and ``totals`` the points squashed the same
way (:data:`TOTALS_SCALE` points give 0.5), which keeps the sign and the order
of every total and can be undone (:func:`unsquash`). Seats are absolute
(North 0, East 1, South 2, West 3); ``seat`` says whose view it is. Card ``c``
is position ``c`` of a 54-card field (clubs 2 … A, diamonds, hearts, spades,
LITTLE, BIG: the numbering of :class:`~backalley.core.cards.Card`).

Pure Python (lists of floats, no numpy), so it runs wherever the core runs.

>>> from backalley import Rules, Seat, apply, legal_actions, new_match
>>> from backalley.engine.view import view
>>> state = new_match(Rules(schedule=[2]), seed=7)
>>> state = apply(state, legal_actions(state)[0])
>>> tensor = observation_tensor(view(state, Seat.EAST))
>>> len(tensor) == OBSERVATION.size, sum(OBSERVATION.part(tensor, "hand"))
(True, 2.0)
>>> OBSERVATION["hand"]
Field(name='hand', offset=30, shape=(54,))
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator, Sequence
from typing import Final, Protocol

import attrs

from ..core.action_index import BOARD_INDEX
from ..core.actions import Bid
from ..core.cards import PACK_SIZE, SEATS, Card
from ..core.rules import MAX_HAND_SIZE
from ..engine.state import Phase
from ..engine.view import DealView, SeatView
from ._views import Kept

__all__ = [
    "DEALS_SCALE",
    "INDICATOR",
    "INFORMATION_STATE",
    "INFORMATION_STATE_ALL_HANDS",
    "OBSERVATION",
    "OBSERVATION_ALL_HANDS",
    "PRIVATE_FIELDS",
    "RANGES",
    "SIGNED",
    "TOTALS_SCALE",
    "UNIT",
    "Field",
    "Layout",
    "hands_string",
    "information_state_string",
    "information_state_tensor",
    "observation_string",
    "observation_tensor",
    "private_string",
    "public_information_state_string",
    "public_observation_string",
    "squash",
    "unsquash",
    "write_hands",
    "write_information_state",
    "write_observation",
]

_PHASES: Final = (Phase.DEAL, Phase.BID, Phase.PLAY, Phase.OVER)
_BID_SLOTS: Final = BOARD_INDEX + 1
"""Per seat: Pass, 1 … 12, Board (the order of :mod:`backalley.core.action_index`)."""


@attrs.frozen
class Field:
    """One named part of a tensor: where it starts and its shape (row-major)."""

    name: str
    offset: int
    shape: tuple[int, ...]

    @property
    def size(self) -> int:
        """How many numbers the field holds."""
        return math.prod(self.shape)

    @property
    def end(self) -> int:
        """The offset just past the field."""
        return self.offset + self.size


INDICATOR: Final = "0 or 1"
"""A field of indicators: every number is 0 or 1."""
UNIT: Final = "0 to 1"
"""A field of scaled counts: every number lies from 0 to 1."""
SIGNED: Final = "-1 to 1"
"""A field of squashed points: every number lies strictly between -1 and 1."""
_BOUNDS: Final = {INDICATOR: (0.0, 1.0), UNIT: (0.0, 1.0), SIGNED: (-1.0, 1.0)}

TOTALS_SCALE: Final = 100.0
"""The total (in points) that ``totals`` shows as 0.5: see :func:`squash`."""
DEALS_SCALE: Final = 10.0
"""The number of deals left that ``deals`` shows as 0.5: see :func:`squash`."""


def squash(value: float, scale: float) -> float:
    """``value / (|value| + scale)``: any number into (-1, 1), sign and order kept.

    Points have no bound a schedule fixes (tiebreak deals can follow one another),
    so a total is squashed rather than divided by a largest value: ``scale``
    maps to 0.5, ten times ``scale`` to about 0.91, and no information is lost.

    >>> squash(100, TOTALS_SCALE), squash(-300, TOTALS_SCALE), squash(0, TOTALS_SCALE)
    (0.5, -0.75, 0.0)
    """
    return value / (abs(value) + scale)


def unsquash(squashed: float, scale: float) -> float:
    """The value that :func:`squash` took to ``squashed`` (which lies in (-1, 1)).

    >>> round(unsquash(squash(-250, TOTALS_SCALE), TOTALS_SCALE), 9)
    -250.0
    """
    if not -1.0 < squashed < 1.0:
        raise ValueError(f"a squashed number lies strictly between -1 and 1, not {squashed!r}")
    return squashed * scale / (1.0 - abs(squashed))


# The one table of the layout: (name, shape, range, meaning). Offsets follow from the order.
_OBSERVATION_SPEC: Final[tuple[tuple[str, tuple[int, ...], str, str], ...]] = (
    ("seat", (4,), INDICATOR, "the viewing seat, one-hot"),
    (
        "to_move",
        (4,),
        INDICATOR,
        "the seat to act, one-hot (0 at a chance step and after the match)",
    ),
    ("phase", (4,), INDICATOR, "deal, bid, play, over: one-hot"),
    ("dealer", (4,), INDICATOR, "the dealer of the current (or next) deal, one-hot"),
    (
        "hand_size",
        (MAX_HAND_SIZE,),
        INDICATOR,
        "the current (or next) hand size, one-hot at size - 1",
    ),
    ("tiebreak", (1,), INDICATOR, "1 in a tiebreak deal (no bidding)"),
    (
        "hand",
        (PACK_SIZE,),
        INDICATOR,
        "the cards the seat holds (while dealing: those dealt so far)",
    ),
    ("turned", (PACK_SIZE,), INDICATOR, "the turned card, one-hot (0 between deals)"),
    (
        "trump",
        (5,),
        INDICATOR,
        "clubs, diamonds, hearts, spades or none: one-hot (0 between deals)",
    ),
    (
        "swap",
        (PACK_SIZE,),
        INDICATOR,
        "the card this seat took for a joker (in the swapper's view only)",
    ),
    ("bids", (4, _BID_SLOTS), INDICATOR, "per seat, its bid: Pass, 1 … 12, Board, one-hot"),
    ("leader", (4,), INDICATOR, "who leads the trick in progress, one-hot"),
    ("trick", (4, PACK_SIZE), INDICATOR, "per seat, the card it played to the trick in progress"),
    (
        "played",
        (4, PACK_SIZE),
        INDICATOR,
        "per seat, the cards it played to completed tricks of the deal",
    ),
    ("tricks_won", (2,), UNIT, "completed tricks of the deal taken by NS and by EW, over 13"),
    ("trumps_broken", (1,), INDICATOR, "1 once a trump or joker was played to a completed trick"),
    (
        "totals",
        (2,),
        SIGNED,
        "running totals of NS and EW over the finished deals: squash(points, 100)",
    ),
    (
        "deals",
        (2,),
        UNIT,
        "deals of the schedule played over its length; squash(deals left, 10)",
    ),
)
_HISTORY_SPEC: Final[tuple[tuple[str, tuple[int, ...], str, str], ...]] = (
    (
        "history_leaders",
        (MAX_HAND_SIZE, 4),
        INDICATOR,
        "per completed trick k, who led it, one-hot",
    ),
    (
        "history",
        (MAX_HAND_SIZE, 4, PACK_SIZE),
        INDICATOR,
        "per completed trick k and seat, the card that seat played to it",
    ),
)

_ALL_HANDS_SPEC: Final[tuple[tuple[str, tuple[int, ...], str, str], ...]] = (
    (
        "hands",
        (4, PACK_SIZE),
        INDICATOR,
        "per seat, the cards it holds (the layouts with every hand only)",
    ),
)

PRIVATE_FIELDS: Final = ("seat", "hand", "swap")
"""The fields only the viewing seat knows: whose view, its hand, its joker swap."""

_ALL_SPECS: Final = _OBSERVATION_SPEC + _HISTORY_SPEC + _ALL_HANDS_SPEC
FIELD_MEANINGS: Final = {name: meaning for name, _, _, meaning in _ALL_SPECS}
"""What each field means, by name (the documentation reads this table)."""
RANGES: Final = {name: values for name, _, values, _ in _ALL_SPECS}
"""The range of each field's numbers, by name: :data:`INDICATOR`, :data:`UNIT` or :data:`SIGNED`."""


class Layout:
    """A tensor's fields in order, with their offsets; ``layout["hand"]`` is a :class:`Field`."""

    def __init__(self, name: str, spec: Sequence[tuple[str, tuple[int, ...], str, str]]) -> None:
        self.name = name
        fields = []
        offset = 0
        for field_name, shape, _, _ in spec:
            field = Field(field_name, offset, shape)
            fields.append(field)
            offset = field.end
        self.fields: tuple[Field, ...] = tuple(fields)
        self.size: int = offset
        self._by_name = {field.name: field for field in fields}

    def __getitem__(self, name: str) -> Field:
        return self._by_name[name]

    def __iter__(self) -> Iterator[Field]:
        return iter(self.fields)

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __repr__(self) -> str:
        return f"<Layout {self.name}: {len(self.fields)} fields, {self.size} numbers>"

    def bounds(self) -> tuple[list[float], list[float]]:
        """The lowest and the highest value of each number, from the fields' :data:`RANGES`.

        What a framework's box space needs (Gymnasium's ``Box(low, high)``).
        """
        low: list[float] = []
        high: list[float] = []
        for field in self.fields:
            least, most = _BOUNDS[RANGES[field.name]]
            low.extend([least] * field.size)
            high.extend([most] * field.size)
        return low, high

    def part(self, tensor: Sequence[float], name: str) -> list[float]:
        """The numbers of field ``name`` in ``tensor``, flat."""
        field = self._by_name[name]
        return list(tensor[field.offset : field.end])


OBSERVATION: Final = Layout("observation", _OBSERVATION_SPEC)
"""The observation tensor: what the seat sees now."""

INFORMATION_STATE: Final = Layout("information state", _OBSERVATION_SPEC + _HISTORY_SPEC)
"""The information-state tensor: the observation, then the deal's tricks in order."""

OBSERVATION_ALL_HANDS: Final = Layout(
    "observation, every hand", _OBSERVATION_SPEC + _ALL_HANDS_SPEC
)
"""The observation, then every seat's hand (for OpenSpiel's all-players observation type)."""

INFORMATION_STATE_ALL_HANDS: Final = Layout(
    "information state, every hand", _OBSERVATION_SPEC + _HISTORY_SPEC + _ALL_HANDS_SPEC
)
"""The information state, then every seat's hand."""

_O: Final = {field.name: field.offset for field in INFORMATION_STATE}


def _bid_slot(bid: Bid) -> int:
    return BOARD_INDEX if bid.board else bid.amount


_KEPT_SUMS: Final[Kept[tuple[tuple[int, int], int]]] = Kept(16)


def _totals_and_count(view: SeatView) -> tuple[tuple[int, int], int]:
    """The view's running totals and count of deals played, summed once per history.

    Both sum over the finished deals. Views built by ``backalley.adapters._views``
    share one tuple of finished deals per seat for a whole deal, so the sums are
    kept for it (:class:`~backalley.adapters._views.Kept`, tagged with the seat:
    the four seats' tuples are equal but for a swap, and would take turns in one
    place); a history not held in a tuple (the engine's own lazily made views)
    is summed each time.
    """
    history = view.history
    if type(history) is not tuple:
        return view.totals, view.counted_deals
    found = _KEPT_SUMS.get(history, view.seat)
    if found is None:
        found = view.totals, view.counted_deals
        _KEPT_SUMS.put(history, found, view.seat)
    return found


def _write(view: SeatView, out: Buffer, history: bool) -> None:
    """Set the fields of ``view`` in ``out`` (all zeros, at least the observation's size)."""
    o = _O
    seat = view.seat
    out[o["seat"] + seat] = 1.0
    phase = view.phase
    out[o["phase"] + _PHASES.index(phase)] = 1.0
    to_move = view.to_move
    if to_move is not None:
        out[o["to_move"] + to_move] = 1.0
    out[o["dealer"] + view.dealer] = 1.0
    totals, counted = _totals_and_count(view)
    deal = view.deal
    rules = view.rules
    size = deal.hand_size if deal is not None else view.hand_size
    out[o["hand_size"] + size - 1] = 1.0
    for card in view.hand:
        out[o["hand"] + card] = 1.0
    out[o["totals"]] = squash(totals[0], TOTALS_SCALE)
    out[o["totals"] + 1] = squash(totals[1], TOTALS_SCALE)
    out[o["deals"]] = counted / rules.deals
    out[o["deals"] + 1] = squash(rules.deals - counted, DEALS_SCALE)
    if deal is not None:
        _write_deal(deal, out, history)


def _write_deal(deal: DealView, out: Buffer, history: bool) -> None:
    """Set the fields of the deal in progress."""
    o = _O
    if deal.tiebreak:
        out[o["tiebreak"]] = 1.0
    out[o["turned"] + deal.turned] = 1.0
    trump = deal.trump
    out[o["trump"] + (4 if trump is None else trump)] = 1.0
    if deal.swap is not None:
        out[o["swap"] + deal.swap.received] = 1.0
    bids = o["bids"]
    for bid in deal.bids:
        out[bids + bid.seat * _BID_SLOTS + _bid_slot(bid)] = 1.0
    leader = deal.leader
    if leader is not None:
        out[o["leader"] + leader] = 1.0
        trick = o["trick"]
        for at, card in enumerate(deal.trick):
            out[trick + ((leader + at) % 4) * PACK_SIZE + card] = 1.0
    played = o["played"]
    ns = ew = 0
    leaders = o["history_leaders"]
    cards = o["history"]
    for number, done in enumerate(deal.tricks):
        first = done.leader
        for at, card in enumerate(done.cards):
            who = (first + at) % 4
            out[played + who * PACK_SIZE + card] = 1.0
            if history:
                out[cards + (number * 4 + who) * PACK_SIZE + card] = 1.0
        if history:
            out[leaders + number * 4 + first] = 1.0
        if done.winner is not None and done.winner % 2:
            ew += 1
        else:
            ns += 1
    out[o["tricks_won"]] = ns / MAX_HAND_SIZE
    out[o["tricks_won"] + 1] = ew / MAX_HAND_SIZE
    if deal.trumps_broken:
        out[o["trumps_broken"]] = 1.0


class Buffer(Protocol):
    """Where a tensor is written: a list of floats, or a NumPy array, filled with zeros."""

    def __setitem__(self, index: int, value: float, /) -> None: ...


def write_observation(view: SeatView, out: Buffer) -> None:
    """Write the observation of ``view`` into ``out`` (zeros, :data:`OBSERVATION` long).

    Only the non-zero numbers are written, so a framework can reuse one array.
    """
    _write(view, out, history=False)


def write_information_state(view: SeatView, out: Buffer) -> None:
    """Write the information state of ``view`` into ``out`` (zeros, as long as the layout)."""
    _write(view, out, history=True)


def write_hands(hands: Sequence[Sequence[Card]], out: Buffer, layout: Layout) -> None:
    """Write the four seats' ``hands`` into the ``hands`` field of ``layout`` in ``out``."""
    start = layout["hands"].offset
    for seat, cards in enumerate(hands):
        for card in cards:
            out[start + seat * PACK_SIZE + card] = 1.0


def observation_tensor(view: SeatView) -> list[float]:
    """The observation tensor of ``view``, laid out as :data:`OBSERVATION`."""
    out = [0.0] * OBSERVATION.size
    _write(view, out, history=False)
    return out


def information_state_tensor(view: SeatView) -> list[float]:
    """The information-state tensor of ``view``, laid out as :data:`INFORMATION_STATE`."""
    out = [0.0] * INFORMATION_STATE.size
    _write(view, out, history=True)
    return out


# --- strings ------------------------------------------------------------------------


def _cards(cards: Sequence[Card]) -> str:
    return " ".join(card.code for card in cards) if cards else "-"


def _deal_head(deal: DealView, public: bool = False) -> str:
    kind = " tiebreak" if deal.tiebreak else ""
    text = f"deal {deal.number + 1}{kind}: {deal.hand_size} cards, dealer {deal.dealer}, "
    text += f"turned {deal.turned.code}, {deal.trump_words}"
    if deal.swap is not None and not public:
        text += f"; I gave {deal.swap.joker.code} for {deal.swap.received.code}"
    return text


def _tricks(deal: DealView) -> str:
    """The deal's completed tricks in order, each card with its seat, and each winner."""
    tricks = "; ".join(
        " ".join(f"{seat}:{card.code}" for seat, card in trick.plays) + f" >{trick.winner}"
        for trick in deal.tricks
    )
    return f"tricks {tricks or '-'}"


def _deal_play(deal: DealView) -> str:
    bids = ", ".join(str(bid) for bid in deal.bids) or "-"
    return f"bids {bids} | {_tricks(deal)}"


def _now(view: SeatView, public: bool = False) -> list[str]:
    """The lines that both strings share: where the match stands and what the seat sees.

    ``public``: what every seat sees, without the seat's hand and swap.
    """
    ns, ew = view.totals
    to_move = view.to_move
    who = "Everyone" if public else view.seat.name.title()
    lines = [
        f"{who} sees: {view.phase.value}"
        + (f", {to_move} to act" if to_move is not None else "")
        + f"; deals played {view.counted_deals} of {view.rules.deals}; totals NS {ns} EW {ew}",
    ]
    if not public:
        lines.append(f"hand {_cards(view.hand)}")
    deal = view.deal
    if deal is not None:
        lines.append(_deal_head(deal, public))
        lines.append("bids " + (", ".join(str(bid) for bid in deal.bids) or "-"))
        won = deal.tricks_won
        current = deal.current_trick
        if current is not None:
            trick = " ".join(f"{seat}:{card.code}" for seat, card in current.plays)
            lines.append(
                f"tricks NS {won[0]} EW {won[1]}; trick {trick or f'{current.leader} leads'}"
            )
    if view.outcome is not None:
        winner = view.outcome.winner
        lines.append("over: " + ("a draw" if winner is None else f"{winner} win"))
    return lines


def observation_string(view: SeatView) -> str:
    """What the seat sees now, in a few lines of text (the deal's cards played so far)."""
    return _observation_string(view, public=False)


def public_observation_string(view: SeatView) -> str:
    """What every seat sees now: :func:`observation_string` without the hand and the swap.

    The same whichever seat's view it is read from.
    """
    return _observation_string(view, public=True)


def _observation_string(view: SeatView, public: bool) -> str:
    lines = _now(view, public)
    deal = view.deal
    if deal is not None and deal.tricks:
        played = " ".join(
            f"{seat}:" + ",".join(card.code for card in deal.plays_of(seat)) for seat in SEATS
        )
        lines.append(f"played {played}")
    return "\n".join(lines)


@functools.lru_cache(maxsize=1024)
def _past_deal(deal: DealView, public: bool = False) -> str:
    """One line for a finished deal (kept: every later string of the match repeats it)."""
    return f"{_deal_head(deal, public)} | {_deal_play(deal)} | scores {deal.scores}"


def information_state_string(view: SeatView) -> str:
    """Everything the seat knows, in order: each finished deal, then the deal in progress.

    Two positions give the same string exactly when the seat cannot tell them apart.
    """
    return _information_state_string(view, public=False)


def public_information_state_string(view: SeatView) -> str:
    """Everything every seat knows, in order: the public part of :func:`information_state_string`.

    The same whichever seat's view it is read from.
    """
    return _information_state_string(view, public=True)


def _information_state_string(view: SeatView, public: bool) -> str:
    lines = [_past_deal(past, public) for past in view.history]
    lines.extend(_now(view, public))
    deal = view.deal
    if deal is not None:
        lines.append(_tricks(deal))
    return "\n".join(lines)


def private_string(view: SeatView) -> str:
    """What only the seat knows now: its hand, and its joker swap in this deal."""
    text = f"{view.seat.name.title()} holds {_cards(view.hand)}"
    deal = view.deal
    if deal is not None and deal.swap is not None:
        text += f"; I gave {deal.swap.joker.code} for {deal.swap.received.code}"
    return text


def hands_string(hands: Sequence[Sequence[Card]]) -> str:
    """Every seat's hand, North first: ``hands N: 2C AS | E: - | ...``."""
    return "hands " + " | ".join(
        f"{seat}: {_cards(sorted(cards))}" for seat, cards in zip(SEATS, hands, strict=True)
    )
