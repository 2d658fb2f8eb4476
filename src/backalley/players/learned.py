"""The trained player: a small network, shipped as weights, played with NumPy alone.

:class:`LearnedPlayer` scores the 68 action indices of
:mod:`backalley.core.action_index` with a multilayer perceptron (two hidden
layers of rectified units) over :func:`features`, and plays the legal action
of highest score. The weights are ``learned.npz`` beside this module (float16,
a few hundred kilobytes); ``benchmarks/train_player.py`` made them, and
docs/players.md ("The trained player") says how and how strong they are.

The features are the seat's view (:mod:`backalley.engine.view`), nothing else,
written **relative to the seat** (me, the left-hand opponent, the partner, the
right-hand opponent) and with the **suits renamed** so that trumps are always
the first suit (the others keep their order): a position and its rotations or
suit relabellings look the same to the network, which so learns from one what
holds for all. They are the player's own layout, not the adapters' observation
tensor (:mod:`backalley.adapters.encoding`, absolute seats and suits), which a
learning user's network reads instead.

Needs NumPy (``pip install 'backalley[learned]'``); no JAX, no torch.

>>> from backalley import Rules
>>> from backalley.players import HeuristicPlayer, play_match
>>> state = play_match([LearnedPlayer(), HeuristicPlayer()] * 2, Rules(schedule=[3]), seed=2)
>>> state.is_over
True
"""

from __future__ import annotations

import functools
import importlib.resources
from typing import Any, Final

from .._extras import require_extra

require_extra("backalley.players.learned", "learned", ["numpy"])

# The compiled build's type check runs where the extra may be missing: NumPy is then Any.
import numpy as np  # type: ignore[import-not-found, unused-ignore]  # noqa: E402
import numpy.typing as npt  # type: ignore[import-not-found, unused-ignore]  # noqa: E402

from ..core.action_index import FIRST_CARD_INDEX, NUM_ACTION_INDICES, action_index  # noqa: E402
from ..core.actions import Bid, Play  # noqa: E402
from ..core.cards import PACK_SIZE  # noqa: E402
from ..core.rules import MAX_HAND_SIZE  # noqa: E402
from ..engine.state import Phase  # noqa: E402
from ..engine.view import SeatView  # noqa: E402

__all__ = ["FEATURES", "WEIGHTS", "LearnedPlayer", "Network", "card_order", "features"]

WEIGHTS: Final = "learned.npz"
"""The shipped weights' file name, in this package."""

_RANKS: Final = 13
_BID_SLOTS: Final = FIRST_CARD_INDEX  # Pass, 1-12, Board: the bids' action indices 0-13
_SCALE: Final = 100.0  # points that squash to 0.5, as the adapters' totals

# The layout: (name, size), in order; features() writes them at these offsets.
_LAYOUT: Final = (
    ("hand", PACK_SIZE),
    ("turned", PACK_SIZE),
    ("received", PACK_SIZE),
    ("no_trump", 1),
    ("hand_size", MAX_HAND_SIZE),
    ("phase", 2),
    ("tiebreak", 1),
    ("dealer", 4),
    ("bids", 4 * (_BID_SLOTS + 1)),
    ("leader", 4),
    ("trick", 4 * PACK_SIZE),
    ("played", 4 * PACK_SIZE),
    ("tricks", 4),
    ("trumps_broken", 1),
    ("score", 3),
    ("deals", 2),
)
_AT: Final = {}
_offset = 0
for _name, _size in _LAYOUT:
    _AT[_name] = _offset
    _offset += _size
FEATURES: Final = _offset
"""The number of features :func:`features` gives."""


@functools.cache
def card_order(trump: int | None) -> tuple[int, ...]:
    """Each card's number once the suits are renamed so that ``trump`` comes first.

    The trump suit becomes suit 0 and the other suits follow in their order; the
    jokers keep their numbers. With no trump (``None``) nothing changes.
    """
    if trump is None:
        return tuple(range(PACK_SIZE))
    suits = [trump, *(suit for suit in range(4) if suit != trump)]
    renamed = {old: new for new, old in enumerate(suits)}
    return tuple(
        renamed[card // _RANKS] * _RANKS + card % _RANKS if card < 4 * _RANKS else card
        for card in range(PACK_SIZE)
    )


def _squash(value: float) -> float:
    return value / (abs(value) + _SCALE)


def features(view: SeatView) -> npt.NDArray[np.float32]:
    """The network's input for ``view``: :data:`FEATURES` numbers, seat- and trump-relative.

    Seats are counted from the viewer (0 itself, 1 its left-hand opponent, 2 its
    partner, 3 its right-hand opponent); cards are renamed by :func:`card_order`.
    Indicators are 0 or 1, counts are scaled into 0-1, and the score is the
    margin and each pair's total squashed into (-1, 1).
    """
    out = np.zeros(FEATURES, np.float32)
    at = _AT
    me = int(view.seat)
    deal = view.deal
    trump = None if deal is None or deal.trump is None else int(deal.trump)
    order = card_order(trump)
    for card in view.hand:
        out[at["hand"] + order[card]] = 1.0
    size = deal.hand_size if deal is not None else view.hand_size
    out[at["hand_size"] + size - 1] = 1.0
    out[at["phase"] + (0 if view.phase == Phase.BID else 1)] = 1.0
    out[at["dealer"] + (view.dealer - me) % 4] = 1.0
    totals = view.totals
    mine, theirs = totals[me % 2], totals[1 - me % 2]
    out[at["score"]] = _squash(mine - theirs)
    out[at["score"] + 1] = _squash(mine)
    out[at["score"] + 2] = _squash(theirs)
    deals = view.rules.deals
    counted = min(view.counted_deals, deals)
    out[at["deals"]] = counted / deals
    out[at["deals"] + 1] = 1.0 if counted >= deals else 0.0
    if deal is None:
        return out
    out[at["no_trump"]] = 1.0 if trump is None else 0.0
    out[at["tiebreak"]] = 1.0 if deal.tiebreak else 0.0
    out[at["turned"] + order[deal.turned]] = 1.0
    if deal.swap is not None:
        out[at["received"] + order[deal.swap.received]] = 1.0
    bid_at = at["bids"]
    bidden = set()
    for bid in deal.bids:
        who = (bid.seat - me) % 4
        bidden.add(who)
        out[bid_at + who * (_BID_SLOTS + 1) + action_index(bid)] = 1.0
    for who in range(4):
        if who not in bidden:  # still to bid: the extra slot
            out[bid_at + who * (_BID_SLOTS + 1) + _BID_SLOTS] = 1.0
    if deal.leader is not None:
        leader = (deal.leader - me) % 4
        out[at["leader"] + leader] = 1.0
        for step, card in enumerate(deal.trick):
            out[at["trick"] + ((leader + step) % 4) * PACK_SIZE + order[card]] = 1.0
    won = [0, 0, 0, 0]
    for trick in deal.tricks:
        first = (trick.leader - me) % 4
        for step, card in enumerate(trick.cards):
            out[at["played"] + ((first + step) % 4) * PACK_SIZE + order[card]] = 1.0
        if trick.winner is not None:
            won[(trick.winner - me) % 4] += 1
    for who in range(4):
        out[at["tricks"] + who] = won[who] / MAX_HAND_SIZE
    out[at["trumps_broken"]] = 1.0 if deal.trumps_broken else 0.0
    return out


def action_slot(action: Bid | Play, trump: int | None) -> int:
    """The output the network scores ``action`` at: its index, cards renamed by trump."""
    if isinstance(action, Play):
        return FIRST_CARD_INDEX + card_order(trump)[action.card]
    return action_index(action)


class Network:
    """The multilayer perceptron: ``layers`` is a list of (weights, biases) pairs.

    Rectified linear units between the layers; the last layer gives one score
    per action index (:data:`~backalley.core.action_index.NUM_ACTION_INDICES`).
    """

    def __init__(self, layers: list[tuple[npt.NDArray[Any], npt.NDArray[Any]]]) -> None:
        if not layers or layers[0][0].shape[0] != FEATURES:
            raise ValueError(f"the first layer takes {FEATURES} features")
        if layers[-1][0].shape[1] != NUM_ACTION_INDICES:
            raise ValueError(f"the last layer gives {NUM_ACTION_INDICES} scores")
        self.layers = [(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in layers]

    @classmethod
    def load(cls, path: Any = None) -> Network:
        """The network saved in ``path`` (``w0``, ``b0``, ``w1``, ...): the shipped one."""
        if path is not None:
            return cls._read(path)
        shipped = importlib.resources.files(__package__ or "backalley.players") / WEIGHTS
        with importlib.resources.as_file(shipped) as file:
            return cls._read(file)

    @classmethod
    def _read(cls, path: Any) -> Network:
        with np.load(path) as saved:
            count = len([name for name in saved.files if name.startswith("w")])
            return cls([(saved[f"w{k}"], saved[f"b{k}"]) for k in range(count)])

    def scores(self, inputs: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """The scores of the action slots for one input (or a batch of them)."""
        x = inputs
        last = len(self.layers) - 1
        for k, (w, b) in enumerate(self.layers):
            x = x @ w + b
            if k < last:
                x = np.maximum(x, 0.0)
        return x


@functools.cache
def _shipped() -> Network:
    return Network.load()


class LearnedPlayer:
    """Plays the legal action the trained network scores highest (deterministic).

    ``network`` defaults to the shipped weights (loaded once per process).
    """

    def __init__(self, network: Network | None = None) -> None:
        self.network = network if network is not None else _shipped()

    def __call__(self, view: SeatView, legal: tuple[Bid | Play, ...]) -> Bid | Play:
        """The legal action of highest score."""
        if len(legal) == 1:
            return legal[0]
        deal = view.deal
        trump = None if deal is None or deal.trump is None else int(deal.trump)
        scores = self.network.scores(features(view))
        slots = [action_slot(action, trump) for action in legal]
        return legal[int(np.argmax(scores[slots]))]

    def __repr__(self) -> str:
        return "LearnedPlayer()"
