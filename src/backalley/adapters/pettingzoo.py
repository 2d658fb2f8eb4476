"""Back Alley as a PettingZoo AEC environment, and a Gymnasium environment for one seat.

Every rule is the core's: the environment holds a
:class:`~backalley.engine.state.MatchState` and each step goes through
:func:`backalley.apply`; the observation is the shared encoding of the acting
seat's view (:mod:`backalley.adapters.encoding`).

- **Agents** are ``"north"``, ``"east"``, ``"south"``, ``"west"`` (seats 0-3;
  North-South and East-West are partners). The agent to act is the seat whose
  turn it is; there is no fixed cycle.
- **Actions** are ``Discrete(68)``, the fixed indices of
  :mod:`backalley.core.action_index`: 0 Pass, 1-12 bids, 13 Board, 14 + card
  number to play that card. The observation's ``action_mask`` marks the legal
  ones (all zero for an agent whose turn it is not).
- **Observations** are a dict: ``"observation"``, the float32 tensor of
  :data:`~backalley.adapters.encoding.OBSERVATION` (or of
  :data:`~backalley.adapters.encoding.INFORMATION_STATE` with
  ``observation="information_state"``), and ``"action_mask"`` (int8, 68).
- **Deals** are not steps: each deal is dealt from the match seed
  (:func:`backalley.seeded_deal`) as soon as it is due, so ``reset(seed=s)``
  fixes the whole match but the players' choices.
- **Rewards**: ``rewards="deal"`` (the default) gives each seat, at the end of
  every deal, its pair's score for the deal minus the other pair's (over a match
  they add up to the final margin); ``rewards="match"`` gives +1 to each seat of
  the winning pair and -1 to the others at the end of the match (0 for a draw).
- **Ends**: the match's end terminates every agent. Four passes throw a deal in
  and an even tiebreak deal can be tied, so the rules allow a match without
  end; after ``max_extra_deals`` thrown-in or tiebreak deals (default
  :data:`~backalley.engine.bounds.EXTRA_DEALS`, 8: the one rule of every
  environment, the batch engine's ``spare_deals`` included) every agent is
  truncated instead.
- ``infos[agent]["action_mask"]`` repeats each agent's mask.
- **Illegal actions**: in the AEC environment an action the rules refuse raises
  :class:`~backalley.IllegalAction` and changes nothing (PettingZoo's
  ``TerminateIllegalWrapper`` turns that into a penalty, reading the mask). In
  :class:`SeatEnv` it ends the episode by default, with ``illegal_reward`` and
  the reason code in ``info`` (``illegal="raise"`` raises instead).
- **Starting from a position**: ``reset(options={"state": position})``, the
  position a :class:`~backalley.engine.state.MatchState` or a game record (a
  :class:`~backalley.formats.records.Record`, its JSON text or its JSON data),
  checked before use. :class:`SeatEnv` refuses any other option; the AEC
  environment ignores it with a warning (PettingZoo's ``api_test`` passes an
  option of its own and expects it ignored).
- ``render_mode="ansi"`` returns the table as text (:mod:`backalley.pictures.text`);
  ``render_mode="human"`` prints it at every reset and step.
"""

from __future__ import annotations

import operator
import random
import sys
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, Final

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ..core.action_index import NUM_ACTION_INDICES, action_index
from ..core.actions import Bid, Play
from ..core.cards import SEATS, Seat
from ..core.dealing import MAX_SEED
from ..core.errors import IllegalAction
from ..core.rules import Rules
from ..engine.bounds import EXTRA_DEALS, out_of_deals
from ..engine.match import apply, legal_actions, new_match, seeded_deal
from ..engine.state import MatchState, Phase
from ..engine.validate import InvalidState, validate
from ..engine.view import view
from ..formats.checking import replay
from ..formats.records import Record, RecordError, loads, parse_record
from ..pictures.text import state_text
from ..players import PLAYER_KINDS
from ..players.driver import Player, SeatedPlayer, player_seed
from . import encoding
from ._actions import ACTIONS, legal_indices
from ._views import seat_view

__all__ = [
    "AGENTS",
    "ILLEGAL_POLICIES",
    "MASKED_EVALUATION",
    "RENDER_MODES",
    "RESET_OPTIONS",
    "SEAT_ENV_ID",
    "BackAlleyEnv",
    "IllegalActionWarning",
    "SeatEnv",
    "env",
    "flat_space",
    "flatten",
    "observation_space",
    "position_from",
    "raw_env",
]

AGENTS: Final = ("north", "east", "south", "west")
"""The agents, by seat number."""

_SEAT_OF: Final = {agent: SEATS[number] for number, agent in enumerate(AGENTS)}


RENDER_MODES: Final = ("human", "ansi")
"""``"human"`` prints the table at every reset and step; ``"ansi"`` returns it from render()."""

RESET_OPTIONS: Final = ("state",)
"""The options ``reset`` takes: ``"state"``, the position to start from."""


def _render_mode(render_mode: str | None) -> str | None:
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode is None, 'human' or 'ansi', not {render_mode!r}")
    return render_mode


def position_from(value: Any) -> MatchState:
    """The match state that ``options["state"]`` names, checked.

    A :class:`MatchState` is checked by :func:`~backalley.engine.validate.validate`;
    a game record (a :class:`Record`, its JSON text, or its JSON data as loaded)
    is replayed, each action checked by the rules.
    """
    try:
        if isinstance(value, MatchState):
            return validate(value)
        if isinstance(value, str | bytes):
            value = loads(value)
        elif isinstance(value, Mapping):
            value = parse_record(value)
        if isinstance(value, Record):
            return replay(value)
    except (InvalidState, RecordError) as error:
        raise ValueError(f"options['state'] is not a position the rules reach: {error}") from None
    raise TypeError(
        "options['state'] is a MatchState or a game record (a Record, its JSON text or data),"
        f" not {type(value).__name__}"
    )


def _reset_position(options: Mapping[str, Any] | None, *, strict: bool) -> MatchState | None:
    """The position ``reset``'s options ask to start from, or None.

    Any other option is refused (``strict``) or ignored with a warning that names it.
    """
    if options is None:
        return None
    if not isinstance(options, Mapping):
        raise TypeError(f"reset's options are a dict, not {type(options).__name__}")
    unknown = sorted(str(key) for key in options if key not in RESET_OPTIONS)
    if unknown:
        message = f"unknown reset option {unknown[0]!r}: the one option is 'state' (a position)"
        if strict:
            raise ValueError(message)
        warnings.warn(message + "; ignored", UserWarning, stacklevel=3)
    if "state" not in options:
        return None
    return position_from(options["state"])


def _rules_words(rules: Rules) -> str:
    """The rules in a few words: ``schedule 3/2, ties draw, first dealer N``."""
    schedule = "/".join(str(size) for size in rules.schedule)
    return f"schedule {schedule}, ties {rules.tie.value}, first dealer {rules.first_dealer}"


def _rules(rules: Rules | None, schedule: Any) -> Rules:
    if rules is not None:
        if schedule is not None:
            raise ValueError("give either rules or a schedule, not both")
        return rules
    return Rules() if schedule is None else Rules(schedule=schedule)


def observation_space(layout: encoding.Layout = encoding.OBSERVATION) -> spaces.Dict:
    """The observation space of one seat: the tensor of ``layout`` and the action mask.

    Every number of the tensor lies in its field's documented range
    (:data:`~backalley.adapters.encoding.RANGES`), whatever the schedule; the mask
    is 68 int8 values, 1 for a legal action index.
    """
    low, high = layout.bounds()
    return spaces.Dict(
        {
            "observation": spaces.Box(
                np.array(low, np.float32), np.array(high, np.float32), dtype=np.float32
            ),
            "action_mask": spaces.Box(0, 1, shape=(NUM_ACTION_INDICES,), dtype=np.int8),
        }
    )


def flat_space(layout: encoding.Layout = encoding.OBSERVATION) -> spaces.Box:
    """The flat observation space of one seat: the tensor of ``layout``, then the mask.

    One float32 vector, as Stable-Baselines3's ``MlpPolicy`` takes: the tensor's
    numbers in their documented ranges, then the 68 mask values (1.0 legal, 0.0 not).
    """
    low, high = layout.bounds()
    return spaces.Box(
        np.array([*low, *[0.0] * NUM_ACTION_INDICES], np.float32),
        np.array([*high, *[1.0] * NUM_ACTION_INDICES], np.float32),
        dtype=np.float32,
    )


def flatten(observation: Mapping[str, np.ndarray[Any, Any]]) -> np.ndarray[Any, Any]:
    """A dict observation as the flat vector of :func:`flat_space`."""
    return np.concatenate(
        [observation["observation"], observation["action_mask"].astype(np.float32)]
    )


def action_number(index: Any) -> int:
    """An action given as any integer-like value, as an int: TypeError for anything else.

    A Python int, a NumPy integer, or a 0-d integer array (NumPy's or JAX's, as
    ``model.predict`` gives one for a single environment), as Gymnasium's own
    environments take; a bool, a float or an array of more than one number is refused.
    """
    if type(index) is int:
        return index
    refusal = TypeError(
        f"an action is an index 0-{NUM_ACTION_INDICES - 1} (an int, a NumPy integer or"
        f" a 0-d integer array), not {index!r}"
    )
    if isinstance(index, bool | np.bool_) or getattr(index, "dtype", None) == np.bool_:
        raise refusal
    try:
        return operator.index(index)
    except TypeError:
        raise refusal from None


class _Table:
    """A match that deals itself: the part the AEC and the single-seat environments share."""

    def __init__(self, rules: Rules, rewards: str, max_extra_deals: int, layout: str) -> None:
        if rewards not in ("deal", "match"):
            raise ValueError(f"rewards is 'deal' or 'match', not {rewards!r}")
        if layout not in ("observation", "information_state"):
            raise ValueError(f"observation is 'observation' or 'information_state', not {layout!r}")
        if not isinstance(max_extra_deals, int) or max_extra_deals < 1:
            raise ValueError(f"max_extra_deals is a whole number from 1, not {max_extra_deals!r}")
        self.rules = rules
        self.rewards = rewards
        self.max_extra_deals = max_extra_deals
        self.layout = (
            encoding.INFORMATION_STATE if layout != "observation" else encoding.OBSERVATION
        )
        self.write = (
            encoding.write_information_state
            if layout != "observation"
            else encoding.write_observation
        )
        self.match = new_match(rules, seed=0)
        self.truncated = False
        self.seat: Seat | None = None
        self.space = observation_space(self.layout)

    def start(self, seed: int, position: MatchState | None = None) -> None:
        """Start a match from ``seed``, or from ``position`` (checked: see position_from)."""
        before = (self.match, self.truncated, self.seat)
        if position is None:
            self.match = new_match(self.rules, seed=seed)
        else:
            if position.rules != self.rules:
                raise ValueError(
                    f"options['state'] is played under other rules ({_rules_words(position.rules)})"
                    f" than the environment's ({_rules_words(self.rules)})"
                )
            if position.is_over:
                raise ValueError("options['state'] is a finished match: nothing is left to play")
            self.match = position
        self.truncated = False
        self._deal()
        if position is not None and self.over:
            # Refused whole: the table stays as it was before this reset.
            self.match, self.truncated, self.seat = before
            raise ValueError(
                f"options['state'] has dealt its schedule's deals and {self.max_extra_deals}"
                " more, the environment's max_extra_deals: it would stop before any action"
            )

    def _deal(self) -> None:
        """Deal every deal that is due, or stop the match after too many extra deals."""
        match = self.match
        while match.phase is Phase.DEAL:
            if out_of_deals(match, self.max_extra_deals):
                self.truncated = True
                break
            match = apply(match, seeded_deal(match))
        self.match = match
        self.seat = None if self.truncated else match.to_move

    @property
    def over(self) -> bool:
        """Whether the match has ended or been stopped (no seat is to act)."""
        return self.seat is None

    def play(self, index: Any) -> tuple[float, float]:
        """Apply the action with ``index`` for the seat to move; the pairs' rewards for it."""
        seat = self.seat
        if seat is None:
            raise ValueError("the match is over: no more actions")
        if type(index) is not int:
            index = action_number(index)
        if not 0 <= index < NUM_ACTION_INDICES:
            raise ValueError(f"an action is an index 0-{NUM_ACTION_INDICES - 1}, not {index}")
        match = apply(self.match, ACTIONS[seat][index])
        self.match = match
        deal = match.deal
        if deal is not None:
            # Within a deal nobody scores: the seat to act is all that changes here.
            self.seat = deal.to_move
            return (0.0, 0.0)
        self._deal()
        if self.rewards == "deal":
            ns, ew = match.history[-1].scores
            return (float(ns - ew), float(ew - ns))
        if not self.over:
            return (0.0, 0.0)
        outcome = self.match.outcome
        ns, ew = self.match.totals
        if outcome is None:  # truncated: the totals so far decide
            sign = (ns > ew) - (ns < ew)
        else:
            sign = 0 if outcome.winner is None else 1 - 2 * int(outcome.winner)
        return (float(sign), float(-sign))

    def text(self) -> str:
        """The table as text, all hands shown."""
        return state_text(self.match)

    def mask(self, seat: Seat) -> np.ndarray[Any, np.dtype[np.int8]]:
        """The legal actions of ``seat`` as 0/1 (all 0 unless it is to act)."""
        mask = bytearray(NUM_ACTION_INDICES)
        if seat == self.seat:
            for index in legal_indices(self.match):
                mask[index] = 1
        return np.frombuffer(mask, np.int8)

    def observe(self, seat: Seat) -> dict[str, np.ndarray[Any, Any]]:
        tensor = np.zeros(self.layout.size, np.float32)
        self.write(seat_view(self.match, seat), tensor)
        return {"observation": tensor, "action_mask": self.mask(seat)}


class BackAlleyEnv(AECEnv):  # type: ignore[misc]
    """The AEC environment: four agents, the seat to move acts (see the module)."""

    metadata: Final = {
        "render_modes": list(RENDER_MODES),
        "name": "back_alley_v0",
        "is_parallelizable": False,
    }

    def __init__(  # noqa: PLR0913 -- keyword settings, as Gymnasium environments take them
        self,
        rules: Rules | None = None,
        *,
        schedule: Any = None,
        rewards: str = "deal",
        observation: str = "observation",
        max_extra_deals: int = EXTRA_DEALS,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.render_mode = _render_mode(render_mode)
        self._table = _Table(_rules(rules, schedule), rewards, max_extra_deals, observation)
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        self.observation_spaces = dict.fromkeys(AGENTS, self._table.space)
        self.action_spaces = dict.fromkeys(AGENTS, spaces.Discrete(NUM_ACTION_INDICES))
        self._seeds = random.Random()
        self._reset_dicts()

    def _reset_dicts(self) -> None:
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in AGENTS}
        self.agent_selection = AGENTS[0]
        self._rewarded = False

    @property
    def match(self) -> MatchState:
        """The core's state of the match."""
        return self._table.match

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The observation space of ``agent`` (the same for all four)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """``Discrete(68)`` for every agent."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: Mapping[str, Any] | None = None) -> None:
        """Start a match; ``seed`` (0 to 2**64 - 1) fixes every deal of it.

        Without a seed the match seed is drawn from the generator the last seed
        started, so a sequence of resets is reproducible from its first seed.
        ``options={"state": position}`` starts from a position instead (a
        ``MatchState`` or a game record, checked; its own seed deals what is
        left). Another option is ignored with a warning naming it, not refused:
        PettingZoo's ``api_test`` passes one of its own and expects it ignored.
        """
        position = _reset_position(options, strict=False)
        if seed is not None:
            self._seeds = random.Random(seed)
            match_seed = seed
        else:
            match_seed = self._seeds.randrange(MAX_SEED + 1)
        self._table.start(match_seed, position)
        self._reset_dicts()
        self._select()
        if self.render_mode == "human":
            self.render()

    def _select(self) -> None:
        table = self._table
        infos = self.infos
        # Every agent's mask in its info (all zero but the acting agent's), as PettingZoo's
        # wrappers and training code read it there as well as from the observation.
        for agent in self.agents:
            infos[agent]["action_mask"] = np.zeros(NUM_ACTION_INDICES, np.int8)
        if table.over:
            ended = self.truncations if table.truncated else self.terminations
            for agent in self.agents:
                ended[agent] = True
            return
        seat = table.seat
        assert seat is not None
        agent = AGENTS[seat]
        self.agent_selection = agent
        if agent in infos:
            infos[agent]["action_mask"] = table.mask(seat)

    def observe(self, agent: str) -> dict[str, np.ndarray[Any, Any]]:
        """``agent``'s observation and its action mask."""
        return self._table.observe(_SEAT_OF[agent])

    def action_mask(self, agent: str) -> np.ndarray[Any, np.dtype[np.int8]]:
        """``agent``'s action mask alone, without building the observation."""
        return self._table.mask(_SEAT_OF[agent])

    def step(self, action: Any) -> None:
        """Act for the selected agent (None for an agent whose match has ended)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        # A refused action raises here (IllegalAction, with its reason) and leaves the
        # environment as it was.
        ns, ew = self._table.play(action)
        self._cumulative_rewards[agent] = 0.0
        rewards = self.rewards
        if ns or ew or self._rewarded:
            # Only a step that ends a deal (or follows one) touches the reward dicts.
            self._rewarded = bool(ns or ew)
            cumulative = self._cumulative_rewards
            for seat, name in enumerate(AGENTS):
                reward = ns if seat % 2 == 0 else ew
                rewards[name] = reward
                cumulative[name] += reward
        self._select()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """The table as text, all hands shown: returned (``"ansi"``) or printed (``"human"``)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode")
            return None
        return _show(self._table.text(), self.render_mode)

    def close(self) -> None:
        """Nothing to release."""


def _show(text: str, render_mode: str) -> str | None:
    """``text`` returned in ``"ansi"`` mode; printed to standard output in ``"human"`` mode."""
    if render_mode == "human":
        sys.stdout.write(text + "\n\n")
        return None
    return text


def raw_env(**kwargs: Any) -> BackAlleyEnv:
    """The environment without PettingZoo's checking wrappers."""
    return BackAlleyEnv(**kwargs)


def env(**kwargs: Any) -> Any:
    """The environment inside PettingZoo's order-enforcing wrapper (the usual entry point).

    Keyword arguments go to :class:`BackAlleyEnv`: ``rules`` or ``schedule``,
    ``rewards``, ``observation``, ``max_extra_deals``, ``render_mode``.
    """
    from pettingzoo.utils import wrappers  # noqa: PLC0415 -- only the wrapped form needs it

    return wrappers.OrderEnforcingWrapper(BackAlleyEnv(**kwargs))


SEAT_ENV_ID: Final = "backalley/Seat-v0"
"""The id of :class:`SeatEnv` in Gymnasium's registry: ``gymnasium.make(SEAT_ENV_ID, ...)``.

Registered when this module is imported; ``gymnasium.make("backalley.pettingzoo:backalley/Seat-v0",
players=...)`` imports it first (Gymnasium's ``module:id`` form), and
``gymnasium.make_vec`` of the same id with ``vectorization_mode="vector_entry_point"``
makes the batch engine's :class:`~backalley.batch.vector.SeatVectorEnv`.
"""

ILLEGAL_POLICIES: Final = ("terminate", "raise")
"""What :class:`SeatEnv` does with an action the rules refuse."""

MASKED_EVALUATION: Final = (
    "a policy that ignores the action mask plays illegal actions, and each ends its episode"
    " with illegal_reward: evaluate a MaskablePPO model with sb3-contrib's evaluate_policy"
    " (from sb3_contrib.common.maskable.evaluation import evaluate_policy), which passes the"
    " masks, not Stable-Baselines3's, which does not"
)
"""The sentence :class:`IllegalActionWarning` adds: how to evaluate a masked policy."""


_UNMASKED_EVALUATOR: Final = ("stable_baselines3.common.evaluation", "evaluate_policy")


class IllegalActionWarning(UserWarning):
    """Stable-Baselines3's ``evaluate_policy``, which passes no masks, played an illegal action.

    An illegal action is no sign of a mistake in itself (Gymnasium's and
    Stable-Baselines3's ``check_env`` step with random actions), but inside that
    evaluator every episode ends so, and it reports the penalty as the policy's
    result: the warning names the evaluator that passes the masks.
    """


def warn_illegal(where: str, reason: str) -> None:
    """Warn, if Stable-Baselines3's unmasked ``evaluate_policy`` is running, how to evaluate.

    It looks up the call stack (on an illegal action only: never on the path of a
    legal one) for that function of that module.
    """
    frame = sys._getframe(1)
    while frame is not None:
        if (frame.f_globals.get("__name__"), frame.f_code.co_name) == _UNMASKED_EVALUATOR:
            warnings.warn(
                f"{where}: an illegal action ({reason}) ended the episode inside"
                f" Stable-Baselines3's evaluate_policy; {MASKED_EVALUATION}",
                IllegalActionWarning,
                stacklevel=3,
            )
            return
        frame = frame.f_back  # type: ignore[assignment]


def _player(value: Any, seat: Seat) -> Player:
    """The player ``value`` names (a name of ``PLAYER_KINDS``) or is; TypeError otherwise."""
    if isinstance(value, str):
        if value not in PLAYER_KINDS:
            names = ", ".join(repr(name) for name in PLAYER_KINDS)
            raise ValueError(
                f"the player for {seat.name.title()} is a player or one of the names {names};"
                f" not {value!r}"
            )
        return PLAYER_KINDS[value]()
    if not callable(value):
        raise TypeError(
            f"the player for {seat.name.title()} is a player (a callable taking a seat view and"
            f" the legal actions, such as HeuristicPlayer()) or a name such as 'heuristic';"
            f" not {value!r}"
        )
    return value  # type: ignore[no-any-return]


class SeatEnv(gymnasium.Env):  # type: ignore[misc]
    """A Gymnasium environment for one seat; the other three are played by ``players``.

    ``players`` is one :class:`~backalley.players.Player` for the three other
    seats, or a mapping from each other seat to its player; a player may be
    given by its name in :data:`~backalley.players.PLAYER_KINDS` (``"heuristic"``,
    ``"random"``, ...). ``partner`` gives the partner's seat a player of its own
    (a random partner against heuristic opponents: ``SeatEnv("heuristic",
    partner="random")``; a learning partner: any callable, such as one that
    asks the model being trained). Every player is checked when the environment
    is made. Each sees only its
    own view, as in :func:`backalley.players.play_match`; a seeded player is
    seated with :func:`~backalley.players.player_seed`.

    ``flat=True`` gives the observation as one float32 ``Box`` (the tensor, then
    the 68 mask values as 0.0 or 1.0) instead of the dict, for networks that take
    a vector (Stable-Baselines3's ``MlpPolicy``); :meth:`action_masks` and
    ``info["action_mask"]`` still give the mask. The action and
    observation spaces, rewards and ends are those of :class:`BackAlleyEnv`,
    seen by ``seat``; ``info["action_mask"]`` repeats the mask, and
    :meth:`action_masks` gives it as booleans (sb3-contrib's ``MaskablePPO``
    finds it there).

    An action the rules refuse (an index the mask marks 0) ends the episode when
    ``illegal="terminate"`` (the default): ``step`` returns ``terminated=True``,
    the reward ``illegal_reward`` (default -1.0) in place of any other, the
    position unchanged, and in ``info`` the refused index (``"illegal_action"``),
    the rules' reason code (``"reason"``, such as ``"wrong_phase"``) and sentence
    (``"message"``). With ``illegal="raise"`` the step raises
    :class:`~backalley.IllegalAction` and changes nothing. Either way a value
    outside the action space (not an index 0-67) raises. An illegal action
    inside Stable-Baselines3's own ``evaluate_policy``, which passes no mask (so
    every episode it plays ends at the first illegal action), also warns
    (:class:`IllegalActionWarning`) with the sentence :data:`MASKED_EVALUATION`.
    """

    # render_fps: what Gymnasium's video and human-mode tools pace frames by; the text is
    # printed at once, never slowed down.
    metadata: Final = {"render_modes": list(RENDER_MODES), "render_fps": 4}

    def __init__(  # noqa: PLR0913 -- keyword settings, as Gymnasium environments take them
        self,
        players: Player | str | Mapping[Seat, Player | str],
        *,
        seat: Seat = Seat.SOUTH,
        partner: Player | str | None = None,
        flat: bool = False,
        rules: Rules | None = None,
        schedule: Any = None,
        rewards: str = "deal",
        observation: str = "observation",
        max_extra_deals: int = EXTRA_DEALS,
        illegal: str = "terminate",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
    ) -> None:
        self.render_mode = _render_mode(render_mode)
        # The spec says how to make this environment again (gymnasium.make, and check_env's
        # render checks, build one per render mode from it); gymnasium.make replaces it
        # with its own copy.
        self.spec = gymnasium.envs.registration.EnvSpec(
            SEAT_ENV_ID,
            entry_point=SeatEnv,
            kwargs={
                "players": players,
                "seat": seat,
                "partner": partner,
                "flat": flat,
                "rules": rules,
                "schedule": schedule,
                "rewards": rewards,
                "observation": observation,
                "max_extra_deals": max_extra_deals,
                "illegal": illegal,
                "illegal_reward": illegal_reward,
            },
        )
        if illegal not in ILLEGAL_POLICIES:
            raise ValueError(f"illegal is 'terminate' or 'raise', not {illegal!r}")
        if isinstance(illegal_reward, bool) or not isinstance(illegal_reward, int | float):
            raise TypeError(f"illegal_reward is a number, not {illegal_reward!r}")
        self.illegal = illegal
        self.illegal_reward = float(illegal_reward)
        self.seat = Seat(seat)
        others = [other for other in SEATS if other != self.seat]
        if isinstance(players, Mapping):
            missing = [other.name.title() for other in others if other not in players]
            if missing:
                raise ValueError(f"no player for {', '.join(missing)}")
            chosen = [players[other] for other in others]
        else:
            chosen = [players] * 3
        if partner is not None:
            chosen[others.index(self.seat.partner)] = partner
        self._players: Sequence[Player] = [
            _player(value, other) for value, other in zip(chosen, others, strict=True)
        ]
        self._others = others
        if not isinstance(flat, bool):
            raise TypeError(f"flat is True or False, not {flat!r}")
        self.flat = flat
        self._table = _Table(_rules(rules, schedule), rewards, max_extra_deals, observation)
        self.observation_space = flat_space(self._table.layout) if flat else self._table.space
        self.action_space = spaces.Discrete(NUM_ACTION_INDICES)
        self._seated: dict[Seat, Player] = {}
        self._ended = False

    @property
    def match(self) -> MatchState:
        """The core's state of the match."""
        return self._table.match

    def reset(
        self, *, seed: int | None = None, options: Mapping[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Start a match (``seed`` fixes its deals and the seated players' choices).

        ``options={"state": position}`` starts from a position instead (a
        ``MatchState`` or a game record, checked; its own seed deals the deals
        still to come, and ``seed`` seeds the players); no other option is taken.
        The other seats play until it is this seat's turn.
        """
        position = _reset_position(options, strict=True)
        super().reset(seed=seed)
        match_seed = seed if seed is not None else int(self.np_random.integers(0, 2**63))
        self._table.start(match_seed, position)
        self._ended = False
        self._seated = {
            other: player.for_seat(other, player_seed(match_seed, other))
            if isinstance(player, SeatedPlayer)
            else player
            for other, player in zip(self._others, self._players, strict=True)
        }
        reward = self._others_play()
        del reward  # before the seat's first action nobody has scored
        if position is not None and self._table.over:
            raise ValueError(
                f"options['state']: the match ends before {self.seat.name.title()} acts again"
            )
        observation = self._table.observe(self.seat)
        if self.render_mode == "human":
            self.render()
        return self._shown(observation), {"action_mask": observation["action_mask"]}

    def action_masks(self) -> np.ndarray[Any, np.dtype[np.bool_]]:
        """The legal actions of the seat, as 68 booleans (all False once the episode ended)."""
        if self._ended:
            return np.zeros(NUM_ACTION_INDICES, np.bool_)
        return self._table.mask(self.seat).astype(np.bool_)

    def _others_play(self) -> float:
        """Let the other seats act until it is this seat's turn; this seat's pair's rewards."""
        table = self._table
        pair = self.seat % 2
        total = 0.0
        while table.seat is not None and table.seat != self.seat:
            seat = table.seat
            legal: tuple[Bid | Play, ...] = legal_actions(table.match)  # type: ignore[assignment]
            chosen = self._seated[seat](view(table.match, seat), legal)
            if chosen not in legal:
                raise ValueError(
                    f"the player at {seat.name.title()} returned {chosen!r}: not legal"
                )
            total += table.play(action_index(chosen))[pair]
        return total

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Play ``action`` for the seat, then the others until its next turn or the end."""
        if self._ended:
            raise ValueError("the episode has ended: call reset() to start another")
        table = self._table
        try:
            reward = table.play(action)[self.seat % 2]
        except IllegalAction as refusal:
            if self.illegal == "raise":
                raise
            return self._refused(action_number(action), refusal)
        reward += self._others_play()
        observation = table.observe(self.seat)
        terminated = table.match.is_over
        self._ended = terminated or table.truncated
        if self.render_mode == "human":
            self.render()
        return (
            self._shown(observation),
            reward,
            terminated,
            table.truncated,
            {"action_mask": observation["action_mask"]},
        )

    def _refused(
        self, index: int, refusal: IllegalAction
    ) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The step that ends the episode on an illegal action (the position unchanged)."""
        self._ended = True
        observation = self._table.observe(self.seat)
        info = {
            "action_mask": observation["action_mask"],
            "illegal_action": index,
            "reason": refusal.reason.value,
            "message": refusal.message,
        }
        warn_illegal("SeatEnv", refusal.reason.value)
        return self._shown(observation), self.illegal_reward, True, False, info

    def _shown(self, observation: dict[str, np.ndarray[Any, Any]]) -> Any:
        """The observation as the environment gives it: the dict, or flat."""
        return flatten(observation) if self.flat else observation

    def render(self) -> str | None:
        """The table as text: returned (``"ansi"``) or printed (``"human"``)."""
        if self.render_mode is None:
            return None
        return _show(self._table.text(), self.render_mode)


if SEAT_ENV_ID not in gymnasium.registry:
    # The vector entry point is named, not imported: JAX loads only when it is made.
    gymnasium.register(
        SEAT_ENV_ID,
        entry_point=SeatEnv,
        vector_entry_point="backalley.batch.vector:SeatVectorEnv",
    )
