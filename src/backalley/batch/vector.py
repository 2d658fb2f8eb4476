"""A Gymnasium ``VectorEnv`` over the batch engine: one seat of N matches, stepped as one.

:class:`SeatVectorEnv` is :class:`~backalley.adapters.pettingzoo.SeatEnv` for N
tables at once. Each lane is a match of the batch engine
(:class:`~backalley.batch.Env`); the agent plays ``seat`` in every lane and the
three other seats are played inside the same compiled step by ``opponent``, a
JAX function of the batch state and a random key (uniformly random legal actions
by default; ``"heuristic"`` or a ``HeuristicPlayer`` for the heuristic player,
compiled: :mod:`backalley.batch.heuristic`). What a Gymnasium user expects of a
vector environment holds:

- **Spaces**: ``single_observation_space`` is SeatEnv's (a dict of the float32
  tensor of :data:`~backalley.adapters.encoding.OBSERVATION` and the int8
  ``action_mask``), ``single_action_space`` is ``Discrete(68)``, the fixed action
  indices of :mod:`backalley.core.action_index`; ``observation_space`` and
  ``action_space`` are their batched forms. Observations are NumPy arrays.
- **Masks**: ``infos["action_mask"]`` (and ``"_action_mask"``, Gymnasium's
  mask of the lanes that have the key) repeats the observation's mask;
  :meth:`SeatVectorEnv.action_masks` gives it as booleans.
- **Rewards** and **ends** are SeatEnv's: ``rewards="deal"`` gives the seat's
  pair's score for each deal that ends minus the other pair's, ``"match"`` +1, -1
  or 0 at the end; a match that ends is ``terminated``, a lane that runs out of
  spare decks (throw-ins and tiebreak deals beyond ``spare_deals``) ``truncated``.
- **Autoreset** (``metadata["autoreset_mode"]``): ``NEXT_STEP``, Gymnasium's
  default, resets an ended lane at the next ``step``, which ignores its action
  and returns its first observation with reward 0; ``SAME_STEP`` resets it in
  the step that ended it, with the last observation in ``infos["final_obs"]``
  and the last info in ``infos["final_info"]``. A lane started again plays the
  match of its seed plus N (as :meth:`backalley.batch.Env.reset` does).
- **Illegal actions**: ``illegal="terminate"`` (the default) ends the lane's
  episode with ``illegal_reward``, its position unchanged, and names the refused
  index and the rules' reason code in ``infos["illegal_action"]`` and
  ``infos["reason"]`` (inside Stable-Baselines3's unmasked ``evaluate_policy`` it
  also warns, ``IllegalActionWarning``, naming sb3-contrib's masked one);
  ``illegal="raise"`` raises the reference :class:`~backalley.IllegalAction` of
  the first refused lane and changes nothing.
- **Partner**: ``partner`` (default None: ``opponent`` plays all three other
  seats) gives the partner's seat its own player, named or a JAX function as
  ``opponent`` is: a random partner against heuristic opponents is
  ``opponent="heuristic", partner="random"``.
- **Seeds**: ``reset(seed=s)`` starts lane ``i`` on the match
  ``new_match(rules, seed=s + i)`` and seeds the opponents' key, so a seeded run
  repeats exactly; :meth:`SeatVectorEnv.lane_state` is a lane's reference
  ``MatchState``, replayed through ``apply``.

Needs the ``batch`` extra (JAX) and Gymnasium (the ``pettingzoo`` extra). See
``docs/pettingzoo.md``, "Many tables at once".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from .._extras import require_extra

require_extra("backalley.batch.vector", "pettingzoo", ["gymnasium", "pettingzoo"])

import jax  # noqa: E402 -- only once the extras are known to be there
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import numpy.typing as npt  # noqa: E402
from gymnasium import spaces  # noqa: E402
from gymnasium.vector import AutoresetMode, VectorEnv  # noqa: E402
from gymnasium.vector.utils import batch_space  # noqa: E402

from ..adapters.pettingzoo import (  # noqa: E402
    ILLEGAL_POLICIES,
    observation_space,
    warn_illegal,
)
from ..core.action_index import NUM_ACTION_INDICES, index_action  # noqa: E402
from ..core.cards import Seat  # noqa: E402
from ..core.dealing import MAX_SEED  # noqa: E402
from ..core.errors import IllegalAction  # noqa: E402
from ..core.rules import Rules  # noqa: E402
from ..engine.match import apply  # noqa: E402
from ..engine.state import MatchState  # noqa: E402
from ..players.heuristic import HeuristicPlayer  # noqa: E402
from .engine import NO_ACTION, NOT_AN_ACTION, REASON_CODES, SPARE_DEALS, Env  # noqa: E402
from .engine import sample_legal as _sample_legal  # noqa: E402
from .heuristic import heuristic_opponent  # noqa: E402
from .kernel import State, seat_results  # noqa: E402

__all__ = ["AUTORESET_MODES", "OPPONENTS", "Opponent", "SeatVectorEnv", "random_opponent"]

Opponent = Callable[[State, jax.Array], jax.Array]
"""A policy for the seats the agent does not play: (batch state, key) -> one index per lane.

It runs inside the compiled step (so it must be a JAX function), is called for
every lane and used where a seat other than the agent's is to move; an index it
gives that the rules refuse is an error (``ValueError``), as a SeatEnv player's is.
"""

AUTORESET_MODES: Final = (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP)
"""The autoreset modes :class:`SeatVectorEnv` offers (Gymnasium's two automatic ones)."""

MAX_OPPONENT_ACTIONS: Final = 64
"""The most actions the other seats take between two of the agent's.

Between two of the agent's actions the others finish a trick, and perhaps bid
in the next deal before it: at most a dozen actions. The loop that plays them
stops after this many, so a kernel bug that never hands the turn back is an
error, never a hang.
"""


def random_opponent(state: State, key: jax.Array) -> jax.Array:
    """The default opponent: a legal action index per lane, uniformly at random."""
    return _sample_legal(state.legal_action_mask, key)


OPPONENTS: Final = ("random", "heuristic")
"""The opponents named by a string: ``"random"``, :func:`random_opponent`; ``"heuristic"``,
:func:`~backalley.batch.heuristic.heuristic_opponent` (``HeuristicPlayer()`` compiled)."""

_ACCEPTED: Final = (
    "opponent is 'random' (the default: uniformly random legal actions), 'heuristic' or a"
    " HeuristicPlayer (the heuristic player, compiled), or a JAX function"
    " (state, key) -> one action index per lane, which runs inside the compiled step"
)


def _opponent(opponent: object, engine: Env, n: int) -> Opponent:
    """The opponent function ``opponent`` names, checked by tracing it on the batch state.

    ``"heuristic"`` and a :class:`~backalley.players.HeuristicPlayer` are its compiled
    twin, :func:`~backalley.batch.heuristic.heuristic_opponent` (with the player's
    ``round_up_from``). Any other player of :mod:`backalley.players` (a function of a
    seat's view, run on the host) cannot run inside the compiled step: it is refused
    with a sentence that says what is accepted, as anything else that does not trace
    to (n,) integers.
    """
    if isinstance(opponent, str):
        if opponent == "random":
            return random_opponent
        if opponent == "heuristic":
            return heuristic_opponent()
        raise ValueError(f"{_ACCEPTED}; not {opponent!r}")
    if isinstance(opponent, HeuristicPlayer):
        try:
            return heuristic_opponent(opponent.round_up_from)
        except (TypeError, ValueError) as error:
            raise ValueError(f"{_ACCEPTED}; {opponent!r} cannot be compiled: {error}") from None
    if not callable(opponent):
        raise TypeError(f"{_ACCEPTED}; not {opponent!r}")
    words = jax.ShapeDtypeStruct((n, 2), jnp.uint32)  # type: ignore[no-untyped-call]
    state = jax.eval_shape(lambda seeds: engine._start(engine._tables, seeds), words)
    key = jax.eval_shape(lambda: jax.random.key(0))
    host = " (a player of backalley.players runs on the host: SeatEnv seats it)"
    try:
        chosen = jax.eval_shape(opponent, state, key)
    except Exception as error:
        raise TypeError(
            f"{_ACCEPTED}; {opponent!r} does not run on the batch state"
            f" ({type(error).__name__}){host}"
        ) from None
    shape = getattr(chosen, "shape", None)
    dtype = getattr(chosen, "dtype", None)
    if shape != (n,) or dtype is None or jnp.dtype(dtype).kind not in "iu":
        raise TypeError(
            f"{_ACCEPTED}; {opponent!r} gives {shape} {dtype}, not ({n},) integers{host}"
        )
    return opponent


def _pair_reward(rewards: jax.Array, seat: int) -> jax.Array:
    """The agent's pair's points at a step minus the other pair's (``rewards``: per seat)."""
    return rewards[:, seat] - rewards[:, (seat + 1) & 3]


class SeatVectorEnv(VectorEnv):  # type: ignore[misc]
    """One seat of ``num_envs`` matches, as a Gymnasium vector environment (see the module).

    ``rules`` or ``schedule`` choose the matches (as for SeatEnv); ``spare_deals``
    is the batch engine's (decks beyond the schedule for throw-ins and tiebreak
    deals; a lane that needs more is truncated).
    """

    def __init__(  # noqa: PLR0913 -- keyword settings, as Gymnasium environments take them
        self,
        num_envs: int,
        *,
        seat: Seat = Seat.SOUTH,
        rules: Rules | None = None,
        schedule: Any = None,
        rewards: str = "deal",
        opponent: Opponent | HeuristicPlayer | str = "random",
        partner: Opponent | HeuristicPlayer | str | None = None,
        illegal: str = "terminate",
        illegal_reward: float = -1.0,
        spare_deals: int = SPARE_DEALS,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
    ) -> None:
        if not isinstance(num_envs, int) or isinstance(num_envs, bool) or num_envs < 1:
            raise ValueError(f"num_envs is a whole number from 1, not {num_envs!r}")
        if rules is not None and schedule is not None:
            raise ValueError("give rules or a schedule, not both")
        if schedule is not None:
            rules = Rules(schedule=schedule)
        if rewards not in ("deal", "match"):
            raise ValueError(f"rewards is 'deal' or 'match', not {rewards!r}")
        if illegal not in ILLEGAL_POLICIES:
            raise ValueError(f"illegal is 'terminate' or 'raise', not {illegal!r}")
        if isinstance(illegal_reward, bool) or not isinstance(illegal_reward, int | float):
            raise TypeError(f"illegal_reward is a number, not {illegal_reward!r}")
        try:
            mode = AutoresetMode(autoreset_mode)
        except ValueError:
            mode = None
        if mode not in AUTORESET_MODES:
            names = " or ".join(repr(choice.value) for choice in AUTORESET_MODES)
            raise ValueError(f"autoreset_mode is {names}, not {autoreset_mode!r}")
        self.engine = Env(rules, spare_deals=spare_deals)
        opponent = _opponent(opponent, self.engine, num_envs)
        self.partner = None if partner is None else _opponent(partner, self.engine, num_envs)
        self.rules = self.engine.rules
        self.seat = Seat(seat)
        self.rewards = rewards
        self.illegal = illegal
        self.illegal_reward = float(illegal_reward)
        self.opponent = opponent
        self.num_envs = num_envs
        self.metadata = {"autoreset_mode": mode, "render_modes": []}
        self.render_mode = None
        self.single_observation_space = observation_space()
        self.single_action_space = spaces.Discrete(NUM_ACTION_INDICES)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._turn = jax.jit(self._turn_lanes)
        self._state: State | None = None
        self._key = jax.random.key(0)
        self._ended = np.zeros(num_envs, np.bool_)
        self._mask = np.zeros((num_envs, NUM_ACTION_INDICES), np.int8)

    # --- the compiled turn: the agent's actions, then the others' until its turn --------

    def _turn_lanes(
        self, state: State, actions: jax.Array, key: jax.Array
    ) -> tuple[State, jax.Array, jax.Array, jax.Array, jax.Array]:
        """Apply the agent's actions (-1: none), then the others' until the agent's turn.

        Returns the state, the agent's pair's points minus the others' over the turn,
        the refusal code of the agent's action, the first refusal of an opponent's
        (0: none) and the agent's observations.
        """
        engine = self.engine
        seat = int(self.seat)
        n = state.phase.shape[0]
        # The batch engine's step, which runs inside jax.jit (its checks skip tracers).
        state = engine.step(state, actions, jnp.full(n, seat, jnp.int32))
        refused = state.refused.astype(jnp.int32)
        reward = _pair_reward(state.rewards, seat)

        def others_to_move(state: State, wrong: jax.Array) -> jax.Array:
            mover = state.current_player
            live = ~state.terminated & ~state.truncated & (wrong == 0)
            return live & (mover >= 0) & (mover != seat)

        def more(carry: tuple[State, jax.Array, jax.Array, jax.Array, jax.Array]) -> jax.Array:
            state, _, wrong, _, count = carry
            return others_to_move(state, wrong).any() & (count < MAX_OPPONENT_ACTIONS)

        def one(
            carry: tuple[State, jax.Array, jax.Array, jax.Array, jax.Array],
        ) -> tuple[State, jax.Array, jax.Array, jax.Array, jax.Array]:
            state, reward, wrong, key, count = carry
            key, pick = jax.random.split(key)
            moving = others_to_move(state, wrong)
            if self.partner is None:
                chosen = self.opponent(state, pick)
            else:
                pick, partner_pick = jax.random.split(pick)
                chosen = jnp.where(
                    state.current_player == Seat(seat).partner,
                    self.partner(state, partner_pick),
                    self.opponent(state, pick),
                )
            chosen = jnp.where(moving, chosen, NO_ACTION)
            stepped = engine.step(state, chosen)
            code = stepped.refused.astype(jnp.int32)
            wrong = jnp.where(moving & (code != 0), code, wrong)
            reward = reward + _pair_reward(stepped.rewards, seat)
            return stepped, reward, wrong, key, count + 1

        start = (state, reward, jnp.zeros(n, jnp.int32), key, jnp.zeros((), jnp.int32))
        state, reward, wrong, _, _ = jax.lax.while_loop(more, one, start)
        # Lanes the loop left with another seat to move: the bound was reached (a bug).
        wrong = jnp.where(others_to_move(state, wrong), -1, wrong)
        seen = engine.observe(state, seat)
        return state, reward, refused, wrong, seen

    def _play(
        self, state: State, actions: npt.NDArray[np.int32]
    ) -> tuple[State, npt.NDArray[np.float32], npt.NDArray[np.int32], npt.NDArray[np.float32]]:
        """One compiled turn, the opponents' refusals raised; results on the host."""
        self._key, key = jax.random.split(self._key)
        state, reward, refused, wrong, seen = self._turn(state, jnp.asarray(actions), key)
        wrong_host = np.asarray(wrong)
        if wrong_host.any():
            lane = int(np.flatnonzero(wrong_host)[0])
            code = int(wrong_host[lane])
            if code < 0:
                raise RuntimeError(
                    f"lane {lane}: the other seats took {MAX_OPPONENT_ACTIONS} actions"
                    " without the agent's seat coming to move"
                )
            what = (
                "a number that is not an action index"
                if code == NOT_AN_ACTION
                else f"an action the rules refuse ({REASON_CODES[code - 1].value})"
            )
            raise ValueError(f"the opponent chose {what} in lane {lane}")
        return state, np.asarray(reward), np.asarray(refused), np.asarray(seen)

    # --- Gymnasium's API -------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: Mapping[str, Any] | None = None
    ) -> tuple[dict[str, npt.NDArray[Any]], dict[str, Any]]:
        """Start a match in every lane (``seed``: lane ``i`` plays seed + i), to the agent's turn.

        No option is taken: ``options`` other than None or empty is refused.
        """
        if options:
            raise ValueError(
                f"SeatVectorEnv.reset takes no options, not {', '.join(map(repr, options))}"
            )
        if seed is not None and not (
            isinstance(seed, int) and not isinstance(seed, bool) and 0 <= seed <= MAX_SEED
        ):
            raise ValueError(f"a seed is a whole number from 0 to 2**64 - 1, not {seed!r}")
        super().reset(seed=seed)
        base = seed if seed is not None else int(self.np_random.integers(0, 2**63))
        # The opponents' key from the whole 64-bit seed, both its words.
        self._key = jax.random.fold_in(jax.random.key(base & 0xFFFFFFFF), base >> 32)
        state = self.engine.init(base, n=self.num_envs)
        idle = np.full(self.num_envs, NO_ACTION, np.int32)
        state, _, _, seen = self._play(state, idle)
        self._state = state
        self._ended = np.zeros(self.num_envs, np.bool_)
        observations = self._observations(state, seen, self._ended)
        return observations, self._infos(observations)

    def step(
        self, actions: Any
    ) -> tuple[
        dict[str, npt.NDArray[Any]],
        npt.NDArray[np.float64],
        npt.NDArray[np.bool_],
        npt.NDArray[np.bool_],
        dict[str, Any],
    ]:
        """Play one action index per lane for the agent's seat, then the others to its turn."""
        if self._state is None:
            raise ValueError("call reset() before step()")
        chosen = self._actions(actions)
        state = self._state
        key = self._key
        restart = self._ended
        if restart.any():
            # NEXT_STEP: the lanes that ended at the last step start again; their action
            # is not played.
            state = self.engine.reset(state, restart)
            chosen = np.where(restart, NO_ACTION, chosen).astype(np.int32)
        after, turn_reward, refused, seen = self._play(state, chosen)
        refused = np.where(chosen >= 0, refused, 0)
        if refused.any() and self.illegal == "raise":
            self._key = key  # nothing changes: the opponents' key is not spent either
            self._raise(state, chosen, refused)
        over = np.asarray(after.terminated)
        truncated = np.asarray(after.truncated) & ~over
        illegal = refused != 0
        if self.rewards == "deal":
            reward = turn_reward.astype(np.float64)
        else:
            reward = np.where(over | truncated, self._match_signs(after), 0.0)
        reward = np.where(illegal, self.illegal_reward, reward)
        reward = np.where(restart, 0.0, reward)
        terminated = (over | illegal) & ~restart
        truncated = truncated & ~terminated & ~restart
        ended = terminated | truncated
        observations = self._observations(after, seen, ended)
        infos = self._infos(observations)
        if illegal.any():
            reasons = np.array(
                [REASON_CODES[code - 1].value if code else "" for code in refused.tolist()],
                dtype=object,
            )
            warn_illegal("SeatVectorEnv", str(reasons[illegal][0]))
            infos["illegal_action"] = np.where(illegal, chosen, NO_ACTION)
            infos["_illegal_action"] = illegal.copy()
            infos["reason"] = reasons
            infos["_reason"] = illegal.copy()
        if self.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP and ended.any():
            infos["final_obs"] = {name: value.copy() for name, value in observations.items()}
            infos["_final_obs"] = ended.copy()
            infos["final_info"] = {key: value for key, value in infos.items() if key != "final_obs"}
            infos["_final_info"] = ended.copy()
            after = self.engine.reset(after, ended)
            idle = np.full(self.num_envs, NO_ACTION, np.int32)
            after, _, _, seen = self._play(after, idle)
            ended = np.zeros(self.num_envs, np.bool_)
            observations = self._observations(after, seen, ended)
            infos["action_mask"] = observations["action_mask"]
        self._state = after
        self._ended = ended
        return observations, reward, terminated, truncated, infos

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions of the agent's seat in each lane: (N, 68) booleans.

        A lane whose episode has just ended has no legal action (all False), as in SeatEnv.
        """
        return self._mask.astype(np.bool_)

    def lane_state(self, lane: int) -> MatchState:
        """The reference ``MatchState`` of a lane's match, replayed through ``apply``."""
        if self._state is None:
            raise ValueError("call reset() first: no match has started")
        return self.engine.lane_state(self._state, lane)

    @property
    def state(self) -> State:
        """The batch engine's state of every lane (for reading: the env steps it)."""
        if self._state is None:
            raise ValueError("call reset() first: no match has started")
        return self._state

    # --- the host's part -----------------------------------------------------------------

    def _actions(self, actions: Any) -> npt.NDArray[np.int32]:
        array = np.asarray(actions)
        n = self.num_envs
        if array.shape != (n,):
            raise ValueError(f"actions must be one per lane: shape ({n},), not {array.shape}")
        if array.dtype.kind not in "iu":
            raise ValueError(f"actions are whole numbers, not {array.dtype}")
        if array.size and (array.min() < 0 or array.max() >= NUM_ACTION_INDICES):
            bad = array[(array < 0) | (array >= NUM_ACTION_INDICES)][0]
            raise ValueError(f"an action is an index 0-{NUM_ACTION_INDICES - 1}, not {bad}")
        return array.astype(np.int32)

    def _observations(
        self, state: State, seen: npt.NDArray[np.float32], ended: npt.NDArray[np.bool_]
    ) -> dict[str, npt.NDArray[Any]]:
        """The agent's observations, and its mask: zero where its seat is not to move.

        A lane whose episode has ended (``ended``) has no legal action, as in SeatEnv.
        """
        mine = (np.asarray(state.current_player) == int(self.seat)) & ~ended
        mask = (np.asarray(state.legal_action_mask) & mine[:, None]).astype(np.int8)
        self._mask = mask
        return {"observation": np.array(seen, np.float32), "action_mask": mask.copy()}

    def _infos(self, observations: Mapping[str, npt.NDArray[Any]]) -> dict[str, Any]:
        return {
            "action_mask": observations["action_mask"],
            "_action_mask": np.ones(self.num_envs, np.bool_),
        }

    def _match_signs(self, state: State) -> npt.NDArray[np.float64]:
        """+1, -1 or 0 for the agent's pair at the end: the winner, or the totals if truncated."""
        pair = int(self.seat) % 2
        totals = np.asarray(state.totals).astype(np.int64)
        margin = totals[:, pair] - totals[:, 1 - pair]
        by_totals = np.sign(margin).astype(np.float64)
        by_winner = np.asarray(seat_results(state.winner))[:, int(self.seat)].astype(np.float64)
        return np.where(np.asarray(state.terminated), by_winner, by_totals)

    def _raise(
        self,
        state: State,
        chosen: npt.NDArray[np.int32],
        refused: npt.NDArray[np.int32],
    ) -> None:
        """Raise the reference's refusal of the first refused lane (nothing is changed)."""
        lane = int(np.flatnonzero(refused)[0])
        match = self.engine.lane_state(state, lane)
        action = index_action(int(chosen[lane]), self.seat)
        try:
            apply(match, action)
        except IllegalAction as refusal:
            raise IllegalAction(
                refusal.reason, refusal.action, f"Lane {lane}: {refusal.message}"
            ) from None
        raise AssertionError(f"lane {lane}: the batch engine refused {action!r}, apply did not")

    def __repr__(self) -> str:
        return f"<SeatVectorEnv of {self.num_envs} lanes, {self.seat.name.title()}, {self.rules!r}>"
