"""The batch engine as a ``pgx.Env``: Back Alley for code written against pgx's API.

:class:`BackAlley` is a :class:`pgx.Env` whose rules are the batch engine's
kernel (:mod:`backalley.batch.kernel`), one lane at a time, as pgx writes every
game: ``init(key)`` gives one match's state, ``step(state, action)`` plays one
action of the seat to move, and the user batches both with ``jax.vmap`` and
compiles them with ``jax.jit``. The state is a :class:`State`: pgx's common
fields (``current_player``, ``observation``, ``rewards``, ``terminated``,
``truncated``, ``legal_action_mask``) read from the kernel's state of the match,
which it carries whole (``state._match``).

Where pgx's conventions differ from :class:`backalley.batch.Env`'s, pgx's hold here:

- **The seed comes from the key**: ``init(key)`` plays the match of the 64-bit
  seed drawn from ``key`` (:func:`seed_of`), whose decks are the core's
  ``seeded_deck``, shuffled on the device when each deal is dealt: neither
  ``init`` nor ``step`` calls anything on the host.
- **An illegal action ends the match**, as pgx's ``step`` does, where the batch
  engine refuses the action and leaves the lane as it was, with a reason code.
  The match is lost by the pair whose seat chose it: -1 to both its seats, +1 to
  the other pair's (pgx's default, -1 to the seat and +3 to every other, would
  reward the seat's partner for it).
- **Rewards**: ``rewards="match"`` (the default, as pgx's games score) gives
  each seat +1 if its pair won the match, -1 if it lost, 0 for a draw, on the
  last step; ``rewards="points"`` gives each seat its pair's points for each
  deal on the deal's last card, as the batch engine does.
- **After the end** pgx marks every action legal and gives zero rewards; a match
  that runs out of its ``spare_deals`` decks is ``truncated``.
- **The seat to move** is always a seat: once none is (the end, or a truncated
  match), ``current_player`` is 0, North, and the observation is North's. The
  observation is in the adapters' layout
  (:data:`~backalley.adapters.encoding.OBSERVATION`).

:meth:`BackAlley.match_state` replays a state's match through ``apply``: the
reference ``MatchState``. Needs the ``pgx`` extra (pgx, with JAX). See
``docs/batch.md``, "As a pgx environment".
"""

from __future__ import annotations

import dataclasses
import functools
import re
from pathlib import Path
from typing import Any, Final, Literal, get_args

from .._extras import require_extra

require_extra("backalley.batch.pgx_env", "pgx", ["pgx"])

import jax  # noqa: E402 -- only once the extra is known to be there
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import pgx  # noqa: E402
from pgx._src.struct import dataclass as pgx_dataclass  # noqa: E402
from pgx._src.struct import field as pgx_field  # noqa: E402

from ..adapters.encoding import OBSERVATION  # noqa: E402
from ..core.action_index import NUM_ACTION_INDICES  # noqa: E402
from ..core.rules import Rules  # noqa: E402
from ..engine.state import MatchState  # noqa: E402
from ..pictures.svg import state_svg  # noqa: E402
from . import kernel as K  # noqa: E402
from .engine import NO_ACTION, SPARE_DEALS, Env, sample_legal  # noqa: E402
from .observe import observe  # noqa: E402

__all__ = [
    "ENV_ID",
    "PGX_TOOLS",
    "REWARDS",
    "BackAlley",
    "State",
    "api_test",
    "save_svg_animation",
    "seed_of",
]

ENV_ID: Final = "back_alley"
"""The pgx environment id."""

PGX_TOOLS: Final = (
    "pgx.api_test and pgx.save_svg_animation accept only pgx's own games (they assert"
    " that the env id is one of pgx's, which no outside game can be): use"
    " backalley.batch.pgx_env.api_test(env) and save_svg_animation(states, filename)"
)
"""Why pgx's own ``api_test`` and ``save_svg_animation`` fail on this game, and what to use."""

REWARDS: Final = ("match", "points")
"""What :class:`BackAlley` rewards: the match's result, or each deal's points."""


@pgx_dataclass
class State(pgx.State):  # type: ignore[misc]
    """One match as pgx sees it: ``_match`` is the kernel's state of it, the rest read from it.

    (pgx keeps its states' own fields private, with a leading underscore.)
    """

    current_player: jax.Array
    observation: jax.Array
    rewards: jax.Array
    terminated: jax.Array
    truncated: jax.Array
    legal_action_mask: jax.Array
    _step_count: jax.Array
    _match: K.State
    _rules: Rules = pgx_field(pytree_node=False)
    """The match's rules (static: not an array), which drawing the state replays it by."""

    @property
    def env_id(self) -> str:
        """The game's id among pgx's environments."""
        return ENV_ID

    def save_svg(
        self, filename: str, *, color_theme: str | None = None, scale: float | None = None
    ) -> None:
        """Draw the state into ``filename`` (SVG), as :meth:`to_svg` draws it."""
        Path(filename).write_text(self.to_svg(color_theme=color_theme, scale=scale))

    def to_svg(self, *, color_theme: str | None = None, scale: float | None = None) -> str:
        """The state as SVG: every hand, the bids and the trick (``pictures.svg.state_svg``).

        The match is replayed through ``apply`` (as :meth:`BackAlley.match_state`
        does) and drawn as the library draws a match; a batched state draws each
        match, one below the other. The library's pictures have one theme, the
        light one; ``scale`` multiplies the size.
        """
        if color_theme not in (None, "light"):
            raise ValueError(f"the pictures have one theme, 'light', not {color_theme!r}")
        if scale is not None and (
            isinstance(scale, bool) or not isinstance(scale, int | float) or scale <= 0
        ):
            raise ValueError(f"scale is a number above 0, not {scale!r}")
        match = self._match
        shape = match.phase.shape
        flat = jax.tree.map(
            lambda field: np.asarray(field).reshape(-1, *field.shape[len(shape) :]), match
        )
        engine = _engine_of(self._rules)
        drawings = [state_svg(engine.lane_state(flat, lane)) for lane in range(flat.phase.shape[0])]
        return _stacked(drawings, 1.0 if scale is None else float(scale))


@functools.lru_cache(maxsize=8)
def _engine_of(rules: Rules) -> Env:
    """The batch engine that replays matches of ``rules`` (made once per rules)."""
    return Env(rules)


_SIZE: Final = re.compile(r'<svg[^>]* width="([0-9.]+)" height="([0-9.]+)"')


def _stacked(drawings: list[str], scale: float) -> str:
    """SVG documents one below the other in one document, ``scale`` times their size."""
    sizes = []
    for drawing in drawings:
        found = _SIZE.match(drawing)
        assert found is not None, "the pictures' documents start with their size"
        sizes.append((float(found.group(1)), float(found.group(2))))
    width = max(w for w, _ in sizes)
    height = sum(h for _, h in sizes)
    parts = []
    top = 0.0
    for drawing, (_, h) in zip(drawings, sizes, strict=True):
        parts.append(drawing.replace("<svg ", f'<svg x="0" y="{top:g}" ', 1))
        top += h
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width * scale:g}"'
        f' height="{height * scale:g}" viewBox="0 0 {width:g} {height:g}">\n'
        + "".join(parts)
        + "</svg>\n"
    )


def _settler(kernel: K.Kernel) -> Any:
    """A lane's ended deal closed, the next one dealt, the legal mask: batched by gathering.

    For one lane it is the kernel's ``_deal`` then ``legal``. Under ``jax.vmap`` (as
    pgx's users batch ``init`` and ``step``) a mapped function would close and deal
    every lane at every step, each deck's SHA-256 included, though a lane deals
    once in dozens of steps; its batching rule is instead the batch engine's
    :func:`~backalley.batch.kernel.deal_lanes`, which gathers the lanes that need
    it, as ``Env.step`` does.
    """

    @jax.custom_batching.custom_vmap
    def settle(tables: dict[str, jax.Array], match: K.State) -> K.State:
        lane = kernel.bound(tables)
        return lane.legal(lane._deal(match))

    @settle.def_vmap
    def settle_lanes(
        size: int, batched: list[Any], tables: dict[str, jax.Array], match: K.State
    ) -> tuple[K.State, Any]:
        # The tables are constants: batched only where an enclosing cond broadcast
        # every operand (pgx's step is one), every row the same.
        tables = jax.tree.map(
            lambda table, mapped: table[0] if mapped else table, tables, batched[0]
        )

        def spread(field: jax.Array, mapped: bool) -> jax.Array:
            return field if mapped else jnp.broadcast_to(field, (size, *field.shape))

        lanes = jax.tree.map(spread, match, batched[1])
        settled = K.deal_lanes(kernel, tables, lanes)
        return settled, jax.tree.map(lambda _: True, settled)

    return lambda match: settle(kernel.tables, match)


def seed_of(key: jax.Array) -> jax.Array:
    """The match seed ``init(key)`` plays, as two 32-bit words, high first (uint32 (2,))."""
    return jax.random.bits(key, (2,), jnp.uint32)


class BackAlley(pgx.Env):  # type: ignore[misc]
    """Back Alley in pgx's API, one match a state (``jax.vmap`` it for many); see the module."""

    def __init__(
        self,
        rules: Rules | None = None,
        *,
        rewards: str = "match",
        spare_deals: int = SPARE_DEALS,
    ) -> None:
        super().__init__()
        if rewards not in REWARDS:
            raise ValueError(f"rewards is 'match' or 'points', not {rewards!r}")
        self.engine = Env(rules, spare_deals=spare_deals)
        self.rules = self.engine.rules
        self.rewards = rewards
        kernel = self.engine.kernel
        # One lane at its first chance step, as constants; init fills in its seed.
        blank = kernel.blank(jnp.zeros((1, 2), jnp.uint32))
        self._blank: K.State = jax.tree.map(lambda field: field[0], blank)
        # The kernel of one lane, its tables constants of the caller's compiled code.
        self._lane = kernel.bound(kernel.tables)
        self._settle = _settler(kernel)

    # --- pgx's abstract methods -------------------------------------------------------

    def _init(self, key: jax.Array) -> State:
        words = seed_of(key)
        match = dataclasses.replace(self._blank, seed=words)
        match = self._settle(match)
        return self._wrap(match, jnp.zeros((), jnp.int32), jnp.zeros(4, jnp.float32))

    def _step(self, state: State, action: jax.Array, key: Any) -> State:
        del key  # the deals are the seed's: nothing random happens in a step
        lane = self._lane
        match = lane.step(state._match, jnp.asarray(action, jnp.int32), jnp.asarray(-1, jnp.int32))
        # A deal that ends is followed by the next one at once (a chance step is no step).
        match = self._settle(match)
        if self.rewards == "points":
            rewards = match.rewards
        else:
            rewards = jnp.where(match.terminated, K.seat_results(match.winner), 0.0)
        return self._wrap(match, state._step_count, rewards)

    def step(self, state: State, action: jax.Array, key: jax.Array | None = None) -> State:
        """Pgx's ``Env.step``, the same states, with fewer copies of the state under ``vmap``.

        pgx's step chooses with three ``lax.cond`` (a finished match, an illegal
        action, the all-legal mask at the end), and ``jax.vmap`` makes each a
        select of every field of the state, its match and action log included. Here
        the step is taken in every lane and only the fields those branches change
        are selected: a finished match's lane is given no action (its match
        unchanged but for the refusal code and the step's rewards, which are put
        back), and an illegal action changes only the rewards and ``terminated``.
        A test compares it with pgx's step, leaf by leaf.
        """
        action = jnp.asarray(action)
        is_illegal = ~state.legal_action_mask[action]
        done = state.terminated | state.truncated
        # No action in a finished match (ended by an illegal action its kernel match
        # may still be live): the kernel leaves the lane as it is.
        idle = jnp.where(done, NO_ACTION, action)
        stepped = self._step(state.replace(_step_count=state._step_count + 1), idle, key)
        match = dataclasses.replace(
            stepped._match,
            refused=jnp.where(done, state._match.refused, stepped._match.refused),
            rewards=jnp.where(done, state._match.rewards, stepped._match.rewards),
        )
        pair = jnp.arange(4) & 1
        lost = jnp.where(pair == (state.current_player & 1), -1.0, 1.0).astype(jnp.float32)
        rewards = jnp.where(done, jnp.zeros_like(state.rewards), stepped.rewards)
        terminated = jnp.where(done, state.terminated, stepped.terminated)
        mask = jnp.where(done, state.legal_action_mask, stepped.legal_action_mask)
        # An illegal action loses the match (_step_with_illegal_action), ended or not.
        rewards = jnp.where(is_illegal, lost, rewards)
        terminated = terminated | is_illegal
        mask = jnp.where(terminated, True, mask)
        result: State = stepped.replace(
            current_player=jnp.where(done, state.current_player, stepped.current_player),
            rewards=rewards,
            terminated=terminated,
            truncated=jnp.where(done, state.truncated, stepped.truncated),
            legal_action_mask=mask,
            _step_count=jnp.where(done, state._step_count, stepped._step_count),
            _match=match,
        )
        observed: State = result.replace(observation=self.observe(result))
        return observed

    def auto_reset_step(self, state: State, action: jax.Array, key: jax.Array) -> State:
        """``pgx.experimental.auto_reset(self.step, self.init)``, without an init in every lane.

        The same states for the same keys (a test compares them step by step): a
        match that ends is replaced by the match of a seed drawn from the key, its
        ``terminated``, ``truncated`` and ``rewards`` those of the last step. pgx's
        wrapper chooses with a ``lax.cond``, which ``jax.vmap`` turns into both
        branches for every lane, so every lane would be started afresh (its deck
        hashed and dealt) at every step; here only the ended lanes are started,
        and they are dealt by the same gathering as the step's deals.
        """
        first, second = jax.random.split(key)
        done = state.terminated | state.truncated
        false = jnp.zeros((), jnp.bool_)
        state = state.replace(
            terminated=false,
            truncated=false,
            rewards=jnp.where(done, jnp.zeros_like(state.rewards), state.rewards),
        )
        state = self.step(state, action, first)
        ended = state.terminated | state.truncated
        fresh = dataclasses.replace(self._blank, seed=seed_of(second))
        match = jax.tree.map(lambda new, old: jnp.where(ended, new, old), fresh, state._match)
        match = self._settle(match)
        steps = jnp.where(ended, jnp.zeros_like(state._step_count), state._step_count)
        started = self._wrap(match, steps, state.rewards)
        seen = jnp.where(ended, self.observe(started), state.observation)
        restarted: State = started.replace(
            observation=seen, terminated=state.terminated, truncated=state.truncated
        )
        return restarted

    def _observe(self, state: State, player_id: jax.Array) -> jax.Array:
        seat = jnp.where(player_id < 0, 0, player_id).astype(jnp.int32)
        seen: jax.Array = observe(state._match, seat, deals=self.rules.deals)
        return seen

    def _step_with_illegal_action(self, state: State, loser: jax.Array) -> State:
        """An illegal action loses the match for the pair of the seat that chose it."""
        pair = jnp.arange(4) & 1
        rewards = jnp.where(pair == (loser & 1), -1.0, 1.0).astype(jnp.float32)
        replaced: State = state.replace(rewards=rewards, terminated=jnp.asarray(True))
        return replaced

    @property
    def id(self) -> str:
        """The game's id among pgx's environments."""
        return ENV_ID

    @property
    def version(self) -> str:
        """The version of the environment's behaviour."""
        return "v0"

    @property
    def num_players(self) -> int:
        """Four seats: 0 North, 1 East, 2 South, 3 West."""
        return 4

    @property
    def num_actions(self) -> int:
        """The 68 fixed action indices of :mod:`backalley.core.action_index`."""
        return NUM_ACTION_INDICES

    # --- ours --------------------------------------------------------------------------

    def _wrap(self, match: K.State, steps: jax.Array, rewards: jax.Array) -> State:
        """The kernel's state of a match as pgx's state (pgx fills in the observation)."""
        return State(
            # pgx's seat to move is a seat even at the end: North's, as the observation.
            current_player=jnp.maximum(match.current_player, 0),
            observation=jnp.zeros(self.observation_size, jnp.float32),
            rewards=rewards,
            terminated=match.terminated,
            truncated=match.truncated,
            legal_action_mask=match.legal_action_mask,
            _step_count=steps,
            _match=match,
            _rules=self.rules,
        )

    @property
    def observation_size(self) -> int:
        """The length of an observation (696)."""
        return OBSERVATION.size

    def match_state(self, state: State, lane: int | None = None) -> MatchState:
        """The reference ``MatchState`` of a state's match, replayed through ``apply``.

        ``lane`` picks one match of a batched (``vmap``-ped) state.
        """
        match = state._match
        if lane is None:
            if match.phase.ndim != 0:
                raise ValueError("a batched state: say which lane (lane=...)")
            batched = jax.tree.map(lambda field: field[None], match)
            return self.engine.lane_state(batched, 0)
        return self.engine.lane_state(match, lane)

    def __repr__(self) -> str:
        return f"<pgx BackAlley, rules {self.rules!r}, rewards {self.rewards!r}>"


def api_test(env: BackAlley, num: int = 1) -> None:
    """Run pgx's API test on ``env``: ``api_test_batch`` as pgx ships it, then its single checks.

    pgx's ``pgx.api_test`` asserts, without a message, that the env id is among
    pgx's own games' (a ``Literal`` of their ids): the id is admitted for the run,
    and only then. Its ``api_test_single`` draws actions along axis 1 of one
    state's mask, which this JAX refuses: its checks are made here one by one,
    with the action drawn from the mask, over ``num`` matches.
    """
    from pgx._src import api_test as pgx_test  # noqa: PLC0415 -- pgx's own checks, on call

    ids = pgx_test.EnvId
    pgx_test.EnvId = Literal[(*get_args(ids), ENV_ID)]
    try:
        pgx_test.api_test_batch(env, num=num)
        init, step = jax.jit(env.init), jax.jit(env.step)
        key = jax.random.key(849020)
        for _ in range(num):
            key, pick = jax.random.split(key)
            state = init(pick)
            for check in (
                pgx_test._validate_state,
                pgx_test._validate_init_reward,
                pgx_test._validate_current_player,
                pgx_test._validate_legal_actions,
            ):
                check(state)
            while not bool(state.terminated | state.truncated):
                key, pick = jax.random.split(key)
                state = step(state, sample_legal(state.legal_action_mask[None], pick)[0], pick)
                pgx_test._validate_state(state)
                pgx_test._validate_current_player(state)
                pgx_test._validate_legal_actions(state)
    finally:
        pgx_test.EnvId = ids


def save_svg_animation(
    states: list[State], filename: str | Path, *, frame_duration_seconds: float = 0.5
) -> None:
    """Write ``states`` (unbatched) as one animated SVG: each drawn by :meth:`State.to_svg`.

    The frames follow one another every ``frame_duration_seconds`` and the
    animation loops (SVG's own animation, which browsers play). pgx's
    ``save_svg_animation`` draws only pgx's own games (:data:`PGX_TOOLS`).
    """
    if not states:
        raise ValueError("save_svg_animation needs at least one state")
    if isinstance(frame_duration_seconds, bool) or not frame_duration_seconds > 0:
        raise ValueError(f"frame_duration_seconds is above 0, not {frame_duration_seconds!r}")
    drawings = []
    for number, state in enumerate(states):
        if state.current_player.shape != ():
            raise ValueError(f"state {number} is batched: give one match's states")
        drawings.append(state.to_svg())
    sizes = []
    for drawing in drawings:
        found = _SIZE.match(drawing)
        assert found is not None, "the pictures' documents start with their size"
        sizes.append((float(found.group(1)), float(found.group(2))))
    width, height = max(w for w, _ in sizes), max(h for _, h in sizes)
    count = len(drawings)
    total = count * frame_duration_seconds
    frames = []
    for number, drawing in enumerate(drawings):
        if count == 1:
            frames.append(drawing)
            continue
        # Each frame is hidden but for its share of the loop: its outer <svg> element
        # carries the animation, as its last child.
        shown = f"{number / count:g};{(number + 1) / count:g}"
        body, _, after = drawing.replace("<svg ", '<svg visibility="hidden" ', 1).rpartition(
            "</svg>"
        )
        frames.append(
            f'{body}<animate attributeName="visibility" values="hidden;visible;hidden"'
            f' keyTimes="0;{shown}" dur="{total:g}s" calcMode="discrete"'
            f' repeatCount="indefinite"/></svg>{after}'
        )
    Path(filename).write_text(
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}" height="{height:g}">\n'
        + "".join(frames)
        + "</svg>\n"
    )
