"""Shared by the batch tests: drive a reference match beside every lane and compare.

``Twin`` keeps one reference ``MatchState`` per lane, applies to it exactly what
the batch applied (the seeded deal at each chance step, the lane's action for the
seat to move), and checks that every field of the lane says what the reference
state says: phase, turn, legal actions, hands, bids, trick, tricks won, trumps,
totals, rewards and outcome; with ``observe``, all four seats' observations too.
"""

from __future__ import annotations

import jax
import numpy as np

from backalley import Phase, apply, legal_actions, new_match, seeded_deal
from backalley.adapters.encoding import observation_tensor
from backalley.batch import REASON_CODES, Env, State
from backalley.core.action_index import NUM_ACTION_INDICES, action_index, index_action
from backalley.engine.state import MatchState
from backalley.engine.view import view

PHASES = {Phase.DEAL: 0, Phase.BID: 1, Phase.PLAY: 2, Phase.OVER: 3}


def reference_mask(state: MatchState) -> list[bool]:
    """The reference's legal actions as a row of the batch's legal mask."""
    row = [False] * NUM_ACTION_INDICES
    if state.to_move is not None:
        for action in legal_actions(state):
            row[action_index(action)] = True  # type: ignore[arg-type]
    return row


def card_mask(words) -> int:
    """The kernel's five 13-bit words as the core's card mask."""
    return sum(int(word) << (13 * at) for at, word in enumerate(words))


class Twin:
    """Reference matches beside the lanes of a batch."""

    def __init__(self, env: Env, state: State, *, observe: bool = False) -> None:
        self.env = env
        self.state = state
        self.observe = observe
        self.seeds = env.seeds(state)
        self.states = [self._new(lane) for lane in range(len(self.seeds))]
        self.lane_steps = 0
        self.rewards = np.zeros((len(self.seeds), 2), dtype=np.int64)
        self.check()

    def _new(self, lane: int) -> MatchState:
        state = new_match(self.env.rules, seed=self.seeds[lane])
        return apply(state, seeded_deal(state))

    def _dealt(self, lane: int, state: MatchState) -> MatchState:
        # The batch deals at once, unless the lane ran out of decks (truncated).
        if state.deal is None and state.outcome is None and not self.truncated[lane]:
            state = apply(state, seeded_deal(state))
        return state

    def step(self, actions: np.ndarray, seats: np.ndarray | None = None) -> np.ndarray:
        """Step the batch and the references alike and compare everything; the refusals."""
        before = [state.to_move for state in self.states]
        self.state = self.env.step(self.state, actions, seats)
        refused = np.asarray(self.state.refused).tolist()
        rewards = np.asarray(self.state.rewards).tolist()
        self.truncated = np.asarray(self.state.truncated).tolist()
        for lane, index in enumerate(np.asarray(actions).tolist()):
            state = self.states[lane]
            if index < 0:
                assert refused[lane] == 0
                assert rewards[lane] == [0.0] * 4
                continue
            self.lane_steps += 1
            seat = before[lane] if seats is None or seats[lane] < 0 else int(seats[lane])
            action = index_action(index, seat if seat is not None else 0)
            try:
                after = apply(state, action)
            except ValueError as error:
                reason = getattr(error, "reason", None)
                assert reason is not None, error
                assert refused[lane] == REASON_CODES.index(reason) + 1, (
                    lane,
                    action,
                    reason,
                    refused[lane],
                )
                assert rewards[lane] == [0.0] * 4
                continue
            assert refused[lane] == 0, (lane, action, refused[lane])
            points = [b - a for a, b in zip(state.totals, after.totals, strict=True)]
            assert rewards[lane] == [float(points[seat % 2]) for seat in range(4)]
            self.rewards[lane] += points
            self.states[lane] = self._dealt(lane, after)
        self.check()
        return np.asarray(refused)

    def reset(self, lanes: np.ndarray) -> None:
        """Restart the chosen lanes in the batch and in the references."""
        n = len(self.seeds)
        self.state = self.env.reset(self.state, lanes)
        self.seeds = self.env.seeds(self.state)
        for lane in np.flatnonzero(lanes).tolist():
            assert self.seeds[lane] == (self.states[lane].seed + n) % 2**64
            self.states[lane] = self._new(lane)
            self.rewards[lane] = 0
        self.check()

    def check(self) -> None:
        """Every field of every lane equals what its reference state says."""
        s = {name: np.asarray(value).tolist() for name, value in vars(self.state).items()}
        self.truncated = s["truncated"]
        seen = []
        if self.observe:
            seen = [np.asarray(self.env.observe(self.state, seat)).tolist() for seat in range(4)]
        for lane, state in enumerate(self.states):
            assert s["phase"][lane] == PHASES[state.phase], (lane, state)
            to_move = -1 if state.to_move is None else int(state.to_move)
            assert s["current_player"][lane] == to_move
            for seat, rows in enumerate(seen):
                # Compared as float32, the type of every adapter's tensor.
                expected = np.asarray(observation_tensor(view(state, seat)), np.float32)
                assert rows[lane] == expected.tolist(), (lane, seat, state)
            assert s["legal_action_mask"][lane] == reference_mask(state), (lane, state)
            assert tuple(s["totals"][lane]) == state.totals
            assert s["deals"][lane] == len(state.history)
            assert s["counted"][lane] == state.counted_deals
            assert s["dealer"][lane] == int(state.dealer)
            assert s["hand_size"][lane] == state.hand_size
            assert s["terminated"][lane] == (state.outcome is not None)
            if state.outcome is not None:
                expected = -1 if state.outcome.winner is None else int(state.outcome.winner)
                assert s["winner"][lane] == expected
            else:
                assert s["winner"][lane] == -1
            current = state.deal
            if current is None:
                assert [card_mask(words) for words in s["hands"][lane]] == [0, 0, 0, 0]
                continue
            assert tuple(card_mask(words) for words in s["hands"][lane]) == current.hands
            trump = 4 if current.trump is None else int(current.trump)
            assert s["trump"][lane] == trump
            assert s["turned"][lane] == int(current.setup.turned)
            assert s["tiebreak"][lane] == current.setup.tiebreak
            said = [current.bid_of(seat) for seat in range(4)]  # type: ignore[arg-type]
            assert s["bids"][lane] == [-1 if bid is None else action_index(bid) for bid in said]
            assert s["leader"][lane] == (-1 if current.leader is None else int(current.leader))
            played = list(current.trick)
            assert s["trick"][lane] == [int(card) for card in played] + [-1] * (4 - len(played))
            assert tuple(s["won"][lane]) == current.tricks_won
            assert bool(s["broken"][lane]) == current.broken
            assert s["ntricks"][lane] == len(current.tricks)
            if current.contracts is not None:
                for pair, contract in enumerate(current.contracts):
                    assert s["target"][lane][pair] == contract.target
                    assert s["multiplier"][lane][pair] == contract.multiplier


def biased(state: State, rng: np.random.Generator) -> np.ndarray:
    """A legal action per lane, chosen to reach the rare corners often.

    Pass and Board are favoured (throw-ins, Boards, and ties on small schedules that
    lead to tiebreak deals), jokers are led and played whenever allowed, trumps too.
    """
    mask = np.asarray(state.legal_action_mask)
    weight = np.ones(NUM_ACTION_INDICES)
    weight[0] = 8.0  # Pass: four of them throw the deal in
    weight[13] = 3.0  # Board
    weight[14 + 52 :] = 40.0  # the jokers
    gumbel = -np.log(-np.log(rng.random(mask.shape)))
    keys = np.where(mask, np.log(weight) + gumbel, -np.inf)
    choice = keys.argmax(axis=1)
    return np.where(mask.any(axis=1), choice, -1).astype(np.int32)


def uniform(state: State, rng: np.random.Generator) -> np.ndarray:
    """A legal action per lane, uniformly at random (-1 where none)."""
    mask = np.asarray(state.legal_action_mask)
    keys = np.where(mask, rng.random(mask.shape), -1.0)
    return np.where(mask.any(axis=1), keys.argmax(axis=1), -1).astype(np.int32)


def same_lane_states(twin: Twin) -> None:
    """``lane_state`` of every lane equals the reference state (==)."""
    for lane, state in enumerate(twin.states):
        assert twin.env.lane_state(twin.state, lane) == state


def primitives(jaxpr) -> set[str]:
    """The names of every primitive in a jaxpr and the jaxprs nested in it."""
    names = set()
    for eqn in jaxpr.eqns:
        names.add(eqn.primitive.name)
        for value in eqn.params.values():
            for item in value if isinstance(value, tuple | list) else (value,):
                inner = getattr(item, "jaxpr", item)
                if hasattr(inner, "eqns"):
                    names |= primitives(inner)
    return names


def callbacks(function, *args) -> set[str]:
    """The host callbacks (``pure_callback``, ``io_callback``, ...) that ``function`` traces to."""
    return {
        name for name in primitives(jax.make_jaxpr(function)(*args).jaxpr) if "callback" in name
    }
