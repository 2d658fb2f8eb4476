"""Shared by the batch tests: drive a reference match beside every lane and compare.

``Twin`` keeps one reference ``MatchState`` per lane, applies to it exactly what
the batch applied (the seeded deal at a chance step the batch dealt, the lane's
action for the seat to move), and checks that every array of the lane says what
the reference state says: phase, turn, legal actions, hands, bids, trick, tricks
won, trumps, totals and outcome.
"""

from __future__ import annotations

import numpy as np

from backalley import Phase, apply, legal_actions, new_match, seeded_deal
from backalley.adapters.encoding import observation_tensor
from backalley.batch import REASON_CODES, Batch
from backalley.core.action_index import NUM_ACTION_INDICES, action_index, index_action
from backalley.core.cards import trump_mask
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


class Twin:
    """Reference matches beside the lanes of a batch."""

    def __init__(self, batch: Batch, *, observe: bool = False) -> None:
        self.batch = batch
        self.observe = observe
        self.states = [self._new(lane) for lane in range(batch.n)]
        self.lane_steps = 0
        self.rewards = np.zeros((batch.n, 2), dtype=np.int64)
        self.check()

    def _new(self, lane: int) -> MatchState:
        state = new_match(self.batch.rules, seed=int(self.batch.seeds[lane]))
        return self._dealt(lane, state)

    def _dealt(self, lane: int, state: MatchState) -> MatchState:
        # The batch deals at once when auto_deal is on, else when deal() is called.
        if state.deal is None and state.outcome is None and self.batch.phase[lane] != 0:
            state = apply(state, seeded_deal(state))
        return state

    def step(self, actions: np.ndarray, seats: np.ndarray | None = None) -> np.ndarray:
        """Step the batch and the references alike and compare everything; the refusals."""
        batch = self.batch
        before = [state.to_move for state in self.states]
        result = batch.step(actions, seats)
        refused = result.refused.tolist()
        for lane, index in enumerate(actions.tolist()):
            state = self.states[lane]
            if index < 0:
                assert refused[lane] == 0
                self.states[lane] = self._dealt(lane, state)
                continue
            self.lane_steps += 1
            seat = before[lane] if seats is None else int(seats[lane])
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
                continue
            assert refused[lane] == 0, (lane, action, refused[lane])
            points = tuple(b - a for a, b in zip(state.totals, after.totals, strict=True))
            assert tuple(result.rewards[lane].tolist()) == points
            self.rewards[lane] += points
            if after.outcome is not None:
                assert result.terminated[lane]
                winner = -1 if after.outcome.winner is None else int(after.outcome.winner)
                assert result.winner[lane] == winner
                if batch.auto_reset:
                    self.states[lane] = self._new(lane)
                    self.rewards[lane] = 0
                    continue
            else:
                assert not result.terminated[lane]
            self.states[lane] = self._dealt(lane, after)
        self.check()
        return result.refused

    def deal(self) -> None:
        """Deal the waiting lanes of a batch without auto_deal, and the references."""
        self.batch.deal()
        self.states = [self._dealt(lane, state) for lane, state in enumerate(self.states)]
        self.check()

    def check(self) -> None:
        """Every array of every lane equals what its reference state says."""
        batch = self.batch
        mask = batch.legal_mask().tolist()
        phase = batch.phase.tolist()
        to_move = batch.to_move.tolist()
        totals = batch.totals.tolist()
        hands = batch.hands.tolist()
        bids = batch.bids.tolist()
        trick = batch.trick.tolist()
        won = batch.won.tolist()
        trumps = batch.trumps.tolist()
        leader = batch.leader.tolist()
        winner = batch.winner.tolist()
        seen = [batch.observe(seat).tolist() for seat in range(4)] if self.observe else []
        for lane, state in enumerate(self.states):
            assert phase[lane] == PHASES[state.phase], (lane, state)
            assert to_move[lane] == (-1 if state.to_move is None else int(state.to_move))
            for seat, rows in enumerate(seen):
                # Compared as float32, the type of every adapter's tensor.
                expected = np.asarray(observation_tensor(view(state, seat)), np.float32)
                assert rows[lane] == expected.tolist(), (lane, seat, state)
            assert mask[lane] == reference_mask(state), (lane, state)
            assert tuple(totals[lane]) == state.totals
            assert batch.deals[lane] == len(state.history)
            assert batch.counted[lane] == state.counted_deals
            assert batch.dealer[lane] == int(state.dealer)
            assert batch.hand_size[lane] == state.hand_size
            if state.outcome is not None:
                expected = -1 if state.outcome.winner is None else int(state.outcome.winner)
                assert winner[lane] == expected
            else:
                assert winner[lane] == -1
            current = state.deal
            if current is None:
                assert hands[lane] == [0, 0, 0, 0]
                continue
            assert tuple(hands[lane]) == current.hands
            assert trumps[lane] == trump_mask(current.trump)
            assert batch.tiebreak[lane] == current.setup.tiebreak
            said = [current.bid_of(seat) for seat in range(4)]  # type: ignore[arg-type]
            assert bids[lane] == [-1 if bid is None else action_index(bid) for bid in said]
            assert leader[lane] == (-1 if current.leader is None else int(current.leader))
            played = list(current.trick)
            assert trick[lane] == [int(card) for card in played] + [-1] * (4 - len(played))
            assert tuple(won[lane]) == current.tricks_won
            assert bool(batch.broken[lane]) == current.broken
            assert batch.ntricks[lane] == len(current.tricks)
            if current.contracts is not None:
                for pair, contract in enumerate(current.contracts):
                    assert batch.target[lane, pair] == contract.target
                    assert batch.multiplier[lane, pair] == contract.multiplier


def biased(batch: Batch, rng: np.random.Generator) -> np.ndarray:
    """A legal action per lane, chosen to reach the rare corners often.

    Pass and Board are favoured (throw-ins, Boards, and ties on small schedules that
    lead to tiebreak deals), jokers are led and played whenever allowed, trumps too.
    """
    mask = batch.legal_mask()
    weight = np.ones(NUM_ACTION_INDICES)
    weight[0] = 8.0  # Pass: four of them throw the deal in
    weight[13] = 3.0  # Board
    weight[14 + 52 :] = 40.0  # the jokers
    gumbel = -np.log(-np.log(rng.random(mask.shape)))
    keys = np.where(mask, np.log(weight) + gumbel, -np.inf)
    choice = keys.argmax(axis=1)
    return np.where(mask.any(axis=1), choice, -1).astype(np.int16)


def same_lane_states(batch: Batch, twin: Twin) -> None:
    """``lane_state`` of every lane equals the reference state (==)."""
    for lane in range(batch.n):
        assert batch.lane_state(lane) == twin.states[lane]
