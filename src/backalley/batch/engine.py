"""The batch engine: N matches in lockstep, one lane per match, compiled with JAX.

In the shape of pgx: :meth:`Env.init` gives a frozen :class:`~backalley.batch.kernel.State`
(a pytree of arrays with the lanes first), :meth:`Env.step` is pure and returns
the next one, :meth:`Env.observe` gives a seat's observation in the adapters'
layout, and the state carries ``legal_action_mask``, ``rewards`` per seat,
``terminated``, ``truncated`` and ``current_player``. The rules are the kernel's
(:mod:`backalley.batch.kernel`), written once for one lane and mapped over the
lanes with ``jax.vmap``; the step calls nothing on the host, so it runs inside
``jax.jit``, ``lax.scan`` and ``lax.while_loop``, on a CPU or a GPU.

Lane ``i`` of ``env.init(seeds)`` is the match ``new_match(rules, seed=seeds[i])``:
its decks are the core's ``seeded_deck(seed, k)``, shuffled on the device (SHA-256
in 32-bit operations, :mod:`backalley.batch._dealing`) when each deal is dealt, so
that ``init``, ``reset`` and ``step`` all run on the device, compiled. Actions are
the fixed indices of :mod:`backalley.core.action_index`; an illegal one is refused
in its lane alone, with the reason code the reference ``apply`` gives, and
:meth:`Env.lane_state` replays a lane through ``apply``. ``docs/batch.md`` describes
it all.

>>> from backalley import Rules
>>> env = Env(Rules(schedule=[2]))
>>> state = env.init([7, 8])
>>> state.current_player.tolist()
[1, 1]
>>> [int(i) for i in state.legal_action_mask[0].nonzero()[0]]   # Pass, 1, Board on two cards
[0, 1, 13]
>>> state = env.step(state, [13, 5])
>>> reasons(state.refused)
[None, <Reason.BID_OUT_OF_RANGE: 'bid_out_of_range'>]
>>> env.lane_state(state, 0).bids
(Bid(E, board),)
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import Any, Final

import jax
import jax.numpy as jnp
import numpy as np
import numpy.typing as npt

from ..core.action_index import NUM_ACTION_INDICES, index_action
from ..core.cards import PACK_SIZE
from ..core.dealing import MAX_SEED, check_whole
from ..core.errors import Reason
from ..core.rules import Rules
from ..engine.bounds import EXTRA_DEALS
from ..engine.match import apply, new_match, seeded_deal
from ..engine.state import MatchState
from ._dealing import decks_of
from .kernel import (
    BID,
    DEAL,
    NOT_AN_ACTION,
    OVER,
    PLAY,
    REASON_CODES,
    Kernel,
    State,
    deal_lanes,
    step_lane,
)
from .observe import observe

__all__ = [
    "ACCEPTED",
    "BID",
    "DEAL",
    "NOT_AN_ACTION",
    "NO_ACTION",
    "OVER",
    "PLAY",
    "REASON_CODES",
    "Env",
    "State",
    "reason_code",
    "reasons",
    "sample_legal",
]

NO_ACTION: Final = -1
"""An action of -1 leaves its lane as it is (nothing is applied, nothing refused)."""

ACCEPTED: Final = 0
"""The refusal code of a lane whose action was applied (or that was given no action)."""


SPARE_DEALS: Final = EXTRA_DEALS
"""Decks a lane holds beyond its schedule's deals, for throw-ins and tiebreak deals.

The environments' one truncation rule, :data:`backalley.engine.bounds.EXTRA_DEALS`.
"""


def reason_code(reason: Reason | None) -> int:
    """The refusal code of a reason (0 for None, an accepted action)."""
    return ACCEPTED if reason is None else REASON_CODES.index(reason) + 1


def reasons(codes: Iterable[int] | npt.ArrayLike) -> list[Reason | None]:
    """The reasons that refusal codes stand for, None for an accepted lane.

    ``ValueError`` for :data:`NOT_AN_ACTION`: that lane was given no action index.
    """
    found: list[Reason | None] = []
    for lane, code in enumerate(np.asarray(codes).tolist()):
        if code == NOT_AN_ACTION:
            raise ValueError(f"lane {lane} was given a number that is not an action index")
        found.append(REASON_CODES[code - 1] if code else None)
    return found


def _seed_words(
    value: Sequence[int] | npt.NDArray[np.integer] | int, n: int | None
) -> tuple[npt.NDArray[np.uint32], int]:
    """The seeds given to ``init``, checked: a base seed's two words (2,) and n, or (N, 2)."""
    if isinstance(value, bool):
        raise TypeError(f"seeds are whole numbers, not {value!r}")
    if n is not None and (not isinstance(n, int) or isinstance(n, bool) or n < 1):
        raise ValueError(f"the number of lanes n is a whole number from 1, not {n!r}")
    if isinstance(value, int | np.integer):
        if n is None:
            raise TypeError("give the number of lanes n with a single base seed")
        check_whole(int(value), MAX_SEED, "a seed")
        return _words([int(value)])[0], n
    array = np.asarray(value)
    if array.dtype.kind in "iu" and array.ndim == 1:
        # Checked as a whole: a million seeds are not a million Python integers.
        if array.size and (array.min() < 0 or array.astype(np.uint64).max() > MAX_SEED):
            bad = array[array < 0][0] if (array < 0).any() else array.max()
            check_whole(int(bad), MAX_SEED, "a seed")
        seeds = array.astype(np.uint64)
        words = np.stack([seeds >> np.uint64(32), seeds & np.uint64(0xFFFFFFFF)], axis=-1)
        words = words.astype(np.uint32)
    else:
        listed = [int(seed) if isinstance(seed, np.integer) else seed for seed in value]
        for seed in listed:
            check_whole(seed, MAX_SEED, "a seed")
        words = _words(listed)
    if not len(words):
        raise ValueError("a batch needs at least one lane: give at least one seed")
    if n is not None and n != len(words):
        raise ValueError(f"n is {n} but {len(words)} seeds were given")
    return words, len(words)


def _words(seeds: list[int]) -> npt.NDArray[np.uint32]:
    """Each seed as two 32-bit words, high first."""
    return np.array([[seed >> 32, seed & 0xFFFFFFFF] for seed in seeds], dtype=np.uint32).reshape(
        -1, 2
    )


def _plus(words: jax.Array, add: jax.Array) -> jax.Array:
    """Seeds (..., 2) plus ``add`` (below 2**32), modulo 2**64, in 32-bit words."""
    high, low = words[..., 0], words[..., 1]
    total = low + add.astype(jnp.uint32)
    carry = (total < low).astype(jnp.uint32)
    return jnp.stack([high + carry, total], axis=-1)


def _restart(state: State, blank: State, chosen: jax.Array) -> State:
    """``blank`` in the chosen lanes, ``state`` elsewhere."""

    def pick(now: jax.Array, new: jax.Array) -> jax.Array:
        return jnp.where(chosen.reshape(-1, *([1] * (now.ndim - 1))), new, now)

    merged: State = jax.tree.map(pick, state, blank)
    return merged


def _lane_count(state: State) -> int:
    return int(state.phase.shape[0])


class Env:
    """Matches of one set of rules, as a batch of lanes stepped together.

    ``spare_deals`` decks beyond the schedule's deals are dealt to each lane for
    throw-ins and tiebreak deals; a lane that needs more is ``truncated`` (it stops
    at a chance step). ``record`` (default True) keeps each lane's log of actions,
    which :meth:`lane_state` replays; without it the state is smaller and the step
    a little faster.
    """

    def __init__(
        self, rules: Rules | None = None, *, spare_deals: int = SPARE_DEALS, record: bool = True
    ) -> None:
        if rules is None:
            rules = Rules()
        elif not isinstance(rules, Rules):
            raise TypeError(f"rules must be a backalley.Rules, not {type(rules).__name__}")
        if not isinstance(spare_deals, int) or isinstance(spare_deals, bool) or spare_deals < 0:
            raise ValueError(f"spare_deals is a whole number from 0, not {spare_deals!r}")
        self.rules = rules
        self.record = record
        self.kernel = kernel = Kernel(rules, rules.deals + spare_deals, record)
        self._tables = kernel.tables
        self._deal = jax.jit(functools.partial(deal_lanes, kernel))
        self._start = jax.jit(functools.partial(_start, kernel))
        self._start_from = jax.jit(functools.partial(_start_from, kernel), static_argnums=2)
        self._reset = jax.jit(functools.partial(_reset, kernel))
        step = jax.vmap(functools.partial(step_lane, kernel), in_axes=(None, 0, 0, 0))
        self._step = jax.jit(step)
        self._observe = jax.jit(jax.vmap(functools.partial(observe, deals=rules.deals)))

    @property
    def num_actions(self) -> int:
        """The number of action indices (68)."""
        return NUM_ACTION_INDICES

    # --- starting matches ----------------------------------------------------------

    def init(
        self, seeds: Sequence[int] | npt.NDArray[np.integer] | int, n: int | None = None
    ) -> State:
        """New matches, one per seed (or ``n`` lanes from a base seed), each dealt its first deal.

        Lane ``i`` from a base seed plays seed ``base + i`` (modulo 2**64). The
        lanes are made and dealt on the device, in one compiled call: only the
        seeds (or the base seed) go there.
        """
        words, count = _seed_words(seeds, n)
        state: State
        if words.ndim == 1:
            state = self._start_from(self._tables, jnp.asarray(words), count)
        else:
            state = self._start(self._tables, jnp.asarray(words))
        return state

    def decks_of(self, seeds: Sequence[int], deals: int | None = None) -> npt.NDArray[np.int8]:
        """The decks of the first ``deals`` deals (all the Env allows by default): (N, D, 54).

        Deck ``k`` of a seed is the core's ``seeded_deck(seed, k)``, as card numbers,
        shuffled on the device as the step shuffles it.
        """
        words, count = _seed_words(seeds, None)
        deals = self.kernel.decks if deals is None else deals
        numbers = np.tile(np.arange(deals, dtype=np.uint32), count)
        decks = decks_of(jnp.asarray(np.repeat(words, deals, axis=0)), jnp.asarray(numbers))
        return np.asarray(decks).astype(np.int8).reshape(count, deals, PACK_SIZE)

    def reset(self, state: State, lanes: npt.ArrayLike | None = None) -> State:
        """New matches in the chosen lanes (a bool mask or lane numbers; all by default).

        Each chosen lane starts the match of its seed plus N (the number of lanes,
        modulo 2**64), so that the lanes' seeds never collide.
        """
        n = _lane_count(state)
        chosen = np.zeros(n, dtype=np.bool_)
        if isinstance(lanes, jax.Array) and lanes.dtype == jnp.bool_ and lanes.shape == (n,):
            # A mask already on the device (a step's ``terminated``, say) stays there.
            reset: State = self._reset(self._tables, state, lanes)
            return reset
        if lanes is None:
            chosen[:] = True
        else:
            picked = np.asarray(lanes)
            if picked.dtype == np.bool_:
                if picked.shape != (n,):
                    raise ValueError(f"a mask of lanes has shape ({n},), not {picked.shape}")
                chosen = picked.copy()
            else:
                if picked.dtype.kind not in "iu" or (
                    picked.size and not (picked.min() >= 0 and picked.max() < n)
                ):
                    raise ValueError(f"lanes are numbers from 0 to {n - 1}")
                chosen[picked] = True
        if not chosen.any():
            return state
        restarted: State = self._reset(self._tables, state, jnp.asarray(chosen))
        return restarted

    # --- stepping ------------------------------------------------------------------

    def step(self, state: State, action: Any, seat: Any = None) -> State:
        """Apply one action index per lane (-1: none) for the seat to move, or for ``seat``.

        Pure: returns the next state. An action the rules refuse leaves its lane as
        it was, with the reference's reason code in ``refused`` (see :func:`reasons`);
        with ``seat`` (one per lane, -1 for the seat to move) an action by a seat
        whose turn it is not is refused with ``not_your_turn``. Called with arrays
        (outside ``jax.jit``), input of the wrong shape or out of range raises
        ``ValueError`` before anything changes.
        """
        n = _lane_count(state)
        actions = self._checked(action, "actions", n, NO_ACTION, NUM_ACTION_INDICES - 1)
        seats = (
            jnp.full(n, -1, jnp.int32) if seat is None else self._checked(seat, "seats", n, -1, 3)
        )
        stepped: State = self._deal(self._tables, self._step(self._tables, state, actions, seats))
        return stepped

    @staticmethod
    def _checked(values: Any, what: str, n: int, low: int, high: int) -> jax.Array:
        if isinstance(values, jax.core.Tracer):
            if values.shape != (n,):
                raise ValueError(f"{what} must be one per lane: shape ({n},), not {values.shape}")
            return values.astype(jnp.int32)
        array = np.asarray(values)
        if array.shape != (n,):
            raise ValueError(f"{what} must be one per lane: shape ({n},), not {array.shape}")
        if array.dtype.kind not in "iu":
            raise ValueError(f"{what} must be whole numbers, not {array.dtype}")
        if array.min() < low or array.max() > high:
            bad = array[(array < low) | (array > high)][0]
            raise ValueError(f"{what} run from {low} to {high}; {bad} is out of range")
        return jnp.asarray(array.astype(np.int32))

    def observe(self, state: State, seat: Any) -> jax.Array:
        """Each lane's observation for ``seat`` (one seat, or one per lane): float32 (N, 696).

        The layout of the adapters (:data:`backalley.adapters.encoding.OBSERVATION`);
        it shows a seat only what that seat may see.
        """
        n = _lane_count(state)
        if isinstance(seat, jax.core.Tracer):
            seats = jnp.broadcast_to(seat, (n,)).astype(jnp.int32)
        else:
            picked = np.broadcast_to(np.asarray(seat), (n,))
            if picked.dtype.kind not in "iu" or picked.min() < 0 or picked.max() > 3:
                raise ValueError("seats run from 0 to 3 (North, East, South, West)")
            seats = jnp.asarray(picked.astype(np.int32))
        seen: jax.Array = self._observe(state, seats)
        return seen

    def sample_legal(self, state: State, key: jax.Array) -> jax.Array:
        """One legal action index per lane, uniformly at random (-1 where none)."""
        return sample_legal(state.legal_action_mask, key)

    # --- the reference view of a lane ---------------------------------------------------

    def seeds(self, state: State) -> list[int]:
        """The seed of each lane's match."""
        words = np.asarray(state.seed).astype(np.uint64)
        return [int(high) << 32 | int(low) for high, low in words.tolist()]

    def actions_of(self, state: State, lane: int) -> list[int]:
        """The action indices applied in the lane's current match, in order (``record``)."""
        self._check_lane(state, lane)
        if not self.record:
            raise ValueError("this Env keeps no log of actions: make it with record=True")
        count = int(state.logged[lane])
        return [int(index) for index in np.asarray(state.log[lane, :count])]

    def lane_state(self, state: State, lane: int) -> MatchState:
        """The reference ``MatchState`` of a lane: its actions replayed through ``apply``.

        Starts from ``new_match(rules, seed=seed)``, applies the seeded deal at each
        chance step the lane was dealt, and the lane's actions for the seat to move.
        """
        actions = self.actions_of(state, lane)
        match = new_match(self.rules, seed=self.seeds(state)[lane])
        for index in actions:
            if match.deal is None:
                match = apply(match, seeded_deal(match))
            seat = match.to_move
            assert seat is not None  # a logged action was applied to a seat to move
            match = apply(match, index_action(index, seat))
        if match.deal is None and match.outcome is None and int(state.phase[lane]) != DEAL:
            match = apply(match, seeded_deal(match))
        return match

    def _check_lane(self, state: State, lane: int) -> None:
        n = _lane_count(state)
        if not isinstance(lane, int | np.integer) or isinstance(lane, bool):
            raise TypeError(f"a lane is a whole number, not {lane!r}")
        if not 0 <= lane < n:
            raise ValueError(f"lanes run from 0 to {n - 1}, not {lane}")

    def memory_per_lane(self, state: State) -> float:
        """Bytes of state a lane holds (its decks and log included)."""
        leaves = jax.tree.leaves(state)
        return float(sum(int(leaf.nbytes) for leaf in leaves)) / _lane_count(state)

    def __repr__(self) -> str:
        return f"<batch Env, rules {self.rules!r}>"


def _start(kernel: Kernel, tables: dict[str, jax.Array], words: jax.Array) -> State:
    """New lanes of the seeds ``words`` (N, 2), dealt their first deal (compiled)."""
    return deal_lanes(kernel, tables, kernel.blank(words))


def _start_from(kernel: Kernel, tables: dict[str, jax.Array], base: jax.Array, n: int) -> State:
    """``n`` new lanes of seeds ``base``, ``base + 1``, ... (modulo 2**64), dealt (compiled)."""
    words = _plus(jnp.broadcast_to(base, (n, 2)), jnp.arange(n, dtype=jnp.uint32))
    return _start(kernel, tables, words)


def _reset(kernel: Kernel, tables: dict[str, jax.Array], state: State, chosen: jax.Array) -> State:
    """New matches in the ``chosen`` lanes, of their seeds plus N (compiled)."""
    n = state.phase.shape[0]
    seeds = _plus(state.seed, jnp.asarray(n, jnp.uint32))
    fresh = _restart(state, kernel.blank(seeds), chosen)
    return deal_lanes(kernel, tables, fresh)


def sample_legal(mask: jax.Array, key: jax.Array) -> jax.Array:
    """One index per row of ``mask`` (..., 68), uniform among its True entries; -1 where none.

    The ``k``-th True entry of a row, ``k`` drawn uniformly below the row's count.
    """
    *rows, width = mask.shape
    counts = mask.sum(axis=-1).astype(jnp.int32)
    draw = jax.random.uniform(key, counts.shape)
    k = jnp.minimum((draw * counts).astype(jnp.int32), counts - 1)
    chosen = _kth_set(mask.reshape(-1, width), k.reshape(-1)).reshape(rows)
    return jnp.where(counts > 0, chosen, NO_ACTION)


def _kth_set(mask: jax.Array, k: jax.Array) -> jax.Array:
    """The index of the ``k``-th True entry of each row of ``mask`` (M, W); k below its count.

    The rows are packed into 32-bit words and the entry found by population counts:
    the word, then a binary search within it. XLA's CPU cumulative sum over a row
    (the plain way: the first entry whose running count passes k) costs several
    times as much (``docs/performance.md``, "The batch engine").
    """
    lanes, width = mask.shape
    count = -(-width // 32)
    bits = jnp.pad(mask, ((0, 0), (0, 32 * count - width))).reshape(lanes, count, 32)
    shifts = jnp.arange(32, dtype=jnp.uint32)
    words = (bits.astype(jnp.uint32) << shifts).sum(axis=-1, dtype=jnp.uint32)
    before = jnp.cumsum(jax.lax.population_count(words).astype(jnp.int32), axis=-1)
    # The word holding it: the first whose running count passes k.
    at = (before <= k[:, None]).sum(axis=-1)
    at = jnp.minimum(at, count - 1)
    k = k - jnp.where(at > 0, jnp.take_along_axis(before, (at - 1)[:, None], axis=1)[:, 0], 0)
    word = jnp.take_along_axis(words, at[:, None], axis=1)[:, 0]
    position = jnp.zeros_like(k)
    for half in (16, 8, 4, 2, 1):
        low = word & jnp.uint32((1 << half) - 1)
        below = jax.lax.population_count(low).astype(jnp.int32)
        up = k >= below
        k = jnp.where(up, k - below, k)
        position = jnp.where(up, position + half, position)
        word = jnp.where(up, word >> jnp.uint32(half), low)
    return (at * 32 + position).astype(jnp.int32)
