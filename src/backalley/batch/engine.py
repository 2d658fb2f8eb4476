"""The batch engine: N matches in lockstep, as integer arrays, one lane per match.

Every lane is a whole match of the batch's :class:`~backalley.core.rules.Rules`
with its own seed, dealt exactly the seeded deals of
``new_match(rules, seed=seed)``. Actions are the fixed indices of
:mod:`backalley.core.action_index`; each :meth:`Batch.step` applies one action
per lane for the seat to move. ``docs/batch.md`` describes the arrays, the
handling of chance steps and finished lanes, and how the engine is kept equal
to the reference ``apply``.

>>> import numpy as np
>>> from backalley import Rules
>>> batch = Batch(Rules(schedule=[2]), seeds=[7, 8])
>>> batch.phase.tolist(), batch.to_move.tolist()
([1, 1], [1, 1])
>>> batch.legal_mask()[0, :14].nonzero()[0].tolist()   # Pass, 1, Board on two cards
[0, 1, 13]
>>> result = batch.step(np.array([13, 5]))
>>> reasons(result.refused)
[None, <Reason.BID_OUT_OF_RANGE: 'bid_out_of_range'>]
>>> batch.lane_state(0).bids
(Bid(E, board),)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final, NamedTuple

import numpy as np
import numpy.typing as npt

from ..core import flow
from ..core.action_index import BOARD_INDEX, FIRST_CARD_INDEX, NUM_ACTION_INDICES, index_action
from ..core.cards import PACK_SIZE, SEATS
from ..core.dealing import MAX_SEED, check_whole, deal_hands, seeded_deck
from ..core.errors import Reason
from ..core.rules import Rules, TiePolicy
from ..engine.match import apply, new_match, seeded_deal
from ..engine.state import MatchState
from . import _tables as T
from ._dealing import deal_decks, seeded_decks
from ._tables import BOOL, I8, I16, I32, U64
from .observe import observe

__all__ = [
    "ACCEPTED",
    "BID",
    "DEAL",
    "NO_ACTION",
    "OVER",
    "PLAY",
    "REASON_CODES",
    "Batch",
    "StepResult",
    "reason_code",
    "reasons",
]

DEAL: Final = 0
"""Phase code: a chance step, the next deal is due."""
BID: Final = 1
PLAY: Final = 2
OVER: Final = 3
"""Phase code: the match has ended."""

NO_ACTION: Final = -1
"""An action of -1 leaves its lane as it is (nothing is applied, nothing refused)."""

ACCEPTED: Final = 0
"""The refusal code of a lane whose action was applied (or that was given no action)."""

REASON_CODES: Final[tuple[Reason, ...]] = tuple(Reason)
"""Refusal code ``k`` (1 and up) stands for ``REASON_CODES[k - 1]``; 0 is no refusal."""

_NOT_YOUR_TURN: Final = REASON_CODES.index(Reason.NOT_YOUR_TURN) + 1
_WRONG_PHASE: Final = REASON_CODES.index(Reason.WRONG_PHASE) + 1
_MATCH_OVER: Final = REASON_CODES.index(Reason.MATCH_OVER) + 1
_OUT_OF_RANGE: Final = REASON_CODES.index(Reason.BID_OUT_OF_RANGE) + 1
_NOT_IN_HAND: Final = REASON_CODES.index(Reason.CARD_NOT_IN_HAND) + 1
_FOLLOW_SUIT: Final = REASON_CODES.index(Reason.MUST_FOLLOW_SUIT) + 1
_FOLLOW_TRUMP: Final = REASON_CODES.index(Reason.MUST_FOLLOW_TRUMP) + 1
_NOT_BROKEN: Final = REASON_CODES.index(Reason.TRUMPS_NOT_BROKEN) + 1
_BIG_FORCES: Final = REASON_CODES.index(Reason.BIG_JOKER_FORCES_HIGHEST) + 1
_LITTLE_FORCES: Final = REASON_CODES.index(Reason.LITTLE_JOKER_FORCES_LOWEST) + 1

_BOARD: Final = BOARD_INDEX
_LITTLE: Final = 52
_BIG: Final = 53
_LOG_START: Final = 64
_VECTOR_DEALS: Final = 8
"""From this many lanes at a chance step on, the deals are shuffled and dealt as arrays."""


def reason_code(reason: Reason | None) -> int:
    """The refusal code of a reason (0 for None, an accepted action)."""
    return ACCEPTED if reason is None else REASON_CODES.index(reason) + 1


def reasons(codes: Iterable[int] | npt.NDArray[np.integer]) -> list[Reason | None]:
    """The reasons that refusal codes stand for, None for an accepted lane."""
    return [REASON_CODES[code - 1] if code else None for code in np.asarray(codes).tolist()]


class StepResult(NamedTuple):
    """What one :meth:`Batch.step` did, lane by lane.

    ``rewards`` (N, 2) are the points North-South and East-West scored at this step
    (a deal's scores on its last card, else 0), so each lane's rewards add up to its
    totals; ``terminated`` marks the lanes whose match ended at this step;
    ``winner`` is their winning pair (0 North-South, 1 East-West, -1 a draw);
    ``refused`` the refusal code of each lane (0: applied; see :func:`reasons`).
    """

    rewards: I32
    terminated: BOOL
    winner: I8
    refused: npt.NDArray[np.uint8]


def _seeds(value: Sequence[int] | npt.NDArray[np.integer] | int, n: int | None) -> list[int]:
    if isinstance(value, bool):
        raise TypeError(f"seeds are whole numbers, not {value!r}")
    if n is not None and (not isinstance(n, int) or isinstance(n, bool) or n < 1):
        raise ValueError(f"the number of lanes n is a whole number from 1, not {n!r}")
    if isinstance(value, int | np.integer):
        if n is None:
            raise TypeError("give the number of lanes n with a single base seed")
        check_whole(int(value), MAX_SEED, "a seed")
        return [(int(value) + lane) % (MAX_SEED + 1) for lane in range(n)]
    seeds = [int(seed) if isinstance(seed, np.integer) else seed for seed in value]
    for seed in seeds:
        check_whole(seed, MAX_SEED, "a seed")
    if not seeds:
        raise ValueError("a batch needs at least one lane: give at least one seed")
    if n is not None and n != len(seeds):
        raise ValueError(f"n is {n} but {len(seeds)} seeds were given")
    return seeds


class Batch:
    """N matches of the same rules, each in its own lane, stepped together.

    ``seeds`` is one seed per lane, or a base seed with ``n`` (lane ``i`` then has
    seed ``base + i``). ``auto_deal`` (default True) deals every lane that reaches a
    chance step at once, inside :meth:`step`; without it the lanes wait in phase
    ``DEAL`` until :meth:`deal` is called. ``auto_reset`` (default False) starts a
    new match in a lane whose match ended, with the lane's seed plus N.
    """

    def __init__(
        self,
        rules: Rules | None = None,
        *,
        seeds: Sequence[int] | npt.NDArray[np.integer] | int,
        n: int | None = None,
        auto_deal: bool = True,
        auto_reset: bool = False,
    ) -> None:
        if rules is None:
            rules = Rules()
        elif not isinstance(rules, Rules):
            raise TypeError(f"rules must be a backalley.Rules, not {type(rules).__name__}")
        self.rules = rules
        seeds_ = _seeds(seeds, n)
        self.n = n = len(seeds_)
        self.auto_deal = auto_deal
        self.auto_reset = auto_reset
        self._circuit = T.circuit_table()
        self._scores = T.score_table()
        self._forced_high, self._forced_low = T.forced_tables()
        self._bid_legal = T.bid_legal_table()
        # The match flow's facts, from the core's own functions (core.flow): the hand
        # size and tiebreak flag after k counted deals, the dealer of deal k (mod 4).
        counts = range(rules.deals + 1)
        self._sizes = np.array([flow.hand_size_of_deal(rules, k) for k in counts], np.int8)
        self._tiebreaks = np.array([flow.in_tiebreak(rules, k) for k in counts], np.bool_)
        self._dealers = np.array([flow.dealer_of_deal(rules, k) for k in range(4)], np.int8)
        self._first_bidders = np.array([flow.first_bidder(d) for d in range(4)], np.int8)
        self._lanes = np.arange(n)
        self._lanes4 = 4 * self._lanes
        self._lanes5 = 5 * self._lanes
        self._bid_legal_flat = self._bid_legal.reshape(-1)
        self._follow_masks = T.FOLLOW_MASKS
        self._bid_rows = np.ascontiguousarray(self._bid_legal[:, :FIRST_CARD_INDEX])
        self.seeds: U64 = np.array(seeds_, dtype=np.uint64)
        # The match: which deal is next or in play, how many of the schedule are done.
        self.deals: I32 = np.zeros(n, dtype=np.int32)
        self.counted: I16 = np.zeros(n, dtype=np.int16)
        self.totals: I32 = np.zeros((n, 2), dtype=np.int32)
        self.winner: I8 = np.full(n, -1, dtype=np.int8)
        self.phase: I8 = np.zeros(n, dtype=np.int8)
        self.to_move: I8 = np.full(n, -1, dtype=np.int8)
        self._deal_arrays(n)
        # What the seat to move may play.
        self._allowed: U64 = np.zeros(n, dtype=np.uint64)
        # Every action applied in the current match of each lane, for lane_state; a
        # spare last column takes the writes of lanes that applied nothing.
        self._log_spare: I8 = np.zeros((n, _LOG_START + 1), dtype=np.int8)
        self._log: I8 = self._log_spare[:, :_LOG_START]
        self._logged: I32 = np.zeros(n, dtype=np.int32)
        self._refresh(self._lanes)
        if auto_deal:
            self.deal()
        self._update_allowed()

    def _deal_arrays(self, n: int) -> None:
        """The arrays of the deal in play (docs/batch.md lists them)."""
        self.dealer: I8 = np.zeros(n, dtype=np.int8)
        self.hand_size: I8 = np.zeros(n, dtype=np.int8)
        self.trump: I8 = np.full(n, T.NO_TRUMP, dtype=np.int8)
        self.trumps: U64 = np.zeros(n, dtype=np.uint64)
        self._follow_base: npt.NDArray[np.intp] = np.full(n, 64 * T.NO_TRUMP, dtype=np.intp)
        self.tiebreak: BOOL = np.zeros(n, dtype=np.bool_)
        self.hands: U64 = np.zeros((n, 4), dtype=np.uint64)
        self.bids: I8 = np.full((n, 4), -1, dtype=np.int8)
        self.nbids: I8 = np.zeros(n, dtype=np.int8)
        self.target: I8 = np.zeros((n, 2), dtype=np.int8)
        self.multiplier: I8 = np.zeros((n, 2), dtype=np.int8)
        self.leader: I8 = np.full(n, -1, dtype=np.int8)
        # The trick's cards in play order; a fifth, spare slot takes writes to ignore.
        self._trick5: I8 = np.full((n, 5), -1, dtype=np.int8)
        self.trick: I8 = self._trick5[:, :4]
        self.ntrick: I8 = np.zeros(n, dtype=np.int8)
        self.ntricks: I8 = np.zeros(n, dtype=np.int8)
        self.won: I8 = np.zeros((n, 2), dtype=np.int8)
        self.broken: BOOL = np.zeros(n, dtype=np.bool_)
        # As dealt (after any joker swap): the cards each seat has played are the
        # dealt ones it no longer holds.
        self.dealt: U64 = np.zeros((n, 4), dtype=np.uint64)
        self.turned: I8 = np.full(n, -1, dtype=np.int8)
        self.swap_seat: I8 = np.full(n, -1, dtype=np.int8)
        self.swap_card: I8 = np.full(n, -1, dtype=np.int8)

    # --- reading the batch -------------------------------------------------------

    @property
    def terminated(self) -> BOOL:
        """The lanes whose match is over (phase ``OVER``)."""
        over: BOOL = self.phase == OVER
        return over

    def legal_mask(self) -> BOOL:
        """A bool array (N, 68): the action indices the rules allow now in each lane.

        Bids while bidding (BID-2), cards while playing (the allowed cards of the
        seat to move); nothing at a chance step or after the match.
        """
        n = self.n
        mask = np.empty((n, NUM_ACTION_INDICES), dtype=np.bool_)
        bidding = np.where(self.phase == BID, self.hand_size, 0)
        mask[:, :FIRST_CARD_INDEX] = self._bid_rows.take(bidding, axis=0)
        octets = self._allowed.astype("<u8").view(np.uint8).reshape(n, 8)
        bits = np.unpackbits(octets, axis=1, bitorder="little")
        mask[:, FIRST_CARD_INDEX:] = bits[:, :PACK_SIZE].view(np.bool_)
        return mask

    def observe(self, seats: int | npt.NDArray[np.integer]) -> npt.NDArray[np.float32]:
        """Each lane's observation tensor for ``seats`` (one seat, or one per lane): (N, 696).

        The layout of the adapters (:data:`backalley.adapters.encoding.OBSERVATION`);
        it shows a seat only what that seat may see.
        """
        return observe(self, seats)

    def allowed_cards(self) -> U64:
        """The mask of cards the seat to move may play, per lane (0 when not playing)."""
        return self._allowed.copy()

    def sample_legal(self, rng: np.random.Generator) -> npt.NDArray[np.int16]:
        """One legal action index per lane, uniformly at random (-1 where none).

        For random playouts: the same distribution as choosing uniformly among the
        True entries of :meth:`legal_mask`, without building it.
        """
        draw = rng.random(self.n)
        # Bids: Pass, 1 .. size - 1 and Board are size + 1 choices (BID-2).
        size = self.hand_size.astype(np.int16)
        pick = np.minimum((draw * (size + 1)).astype(np.int16), size)
        bid = np.where(pick == size, _BOARD, pick)
        # Cards: the k-th allowed card, k uniform below their number, found by
        # halving: is it in the low 32 bits, then 16, then 8; then a table.
        rest = self._allowed
        k = (draw * _popcount(rest)).astype(np.uint8)
        card = np.zeros(self.n, dtype=np.uint8)
        for width, low_bits in _HALVES:
            low = rest & low_bits
            count = _popcount(low).astype(np.uint8)
            high = k >= count
            k -= np.where(high, count, 0).astype(np.uint8)
            rest = np.where(high, rest >> np.uint64(width), low)
            card += np.where(high, width, 0).astype(np.uint8)
        card += _KTH_BIT[rest.astype(np.intp) * 8 + np.minimum(k, 7)]
        out: npt.NDArray[np.int16] = np.where(
            self.phase == BID,
            bid,
            np.where(self.phase == PLAY, FIRST_CARD_INDEX + card.astype(np.int16), NO_ACTION),
        ).astype(np.int16)
        return out

    # --- stepping ----------------------------------------------------------------

    def step(
        self,
        actions: Sequence[int] | npt.NDArray[np.integer],
        seats: Sequence[int] | npt.NDArray[np.integer] | None = None,
    ) -> StepResult:
        """Apply one action index per lane for the seat to move; refuse illegal ones per lane.

        ``actions`` holds N indices (0-67, or -1 for no action in that lane);
        ``seats``, if given, the seat each action is made by, refused with
        ``not_your_turn`` where it is not that seat's turn. A refused lane is left
        exactly as it was and the others go on; the refusal codes (see
        :func:`reasons`) are the reasons the reference ``apply`` gives. Afterwards
        lanes at a chance step are dealt (``auto_deal``) and finished lanes restarted
        (``auto_reset``). Input of the wrong shape or out of range raises
        ``ValueError`` before anything changes.
        """
        action = self._check_actions(actions, "actions", NO_ACTION, NUM_ACTION_INDICES - 1)
        n = self.n
        rewards = np.zeros((n, 2), dtype=np.int32)
        terminated = np.zeros(n, dtype=np.bool_)
        phase = self.phase
        acting = action >= 0
        is_card = action >= FIRST_CARD_INDEX
        bidding = phase == BID
        playing = phase == PLAY
        # Framework refusals first, in the reference's order: the phase, then the turn.
        in_phase = np.where(is_card, playing, bidding)
        live = acting & in_phase
        out_of_phase = acting & ~in_phase
        if out_of_phase.any():
            refused = np.where(
                out_of_phase, np.where(phase == OVER, _MATCH_OVER, _WRONG_PHASE), ACCEPTED
            ).astype(np.uint8)
        else:
            refused = np.zeros(n, dtype=np.uint8)
        if seats is not None:
            seat_of = self._check_actions(seats, "seats", 0, 3)
            turn = live & (seat_of != self.to_move)
            refused[turn] = _NOT_YOUR_TURN
            live &= ~turn
        bids = np.flatnonzero(live & bidding)
        if bids.size:
            self._bid(bids, action[bids], refused)
        plays = live & playing
        if plays.any():
            self._play(plays, action, refused, rewards, terminated)
        self._log_actions(live & (refused == ACCEPTED), action)
        winner = self.winner.copy()
        if self.auto_reset:
            done = np.flatnonzero(terminated)
            if done.size:
                self._reset(done)
        if self.auto_deal:
            self.deal()
        self._update_allowed()
        return StepResult(rewards, terminated, winner, refused)

    def _check_actions(
        self, values: Sequence[int] | npt.NDArray[np.integer], what: str, low: int, high: int
    ) -> npt.NDArray[np.int16]:
        array = np.asarray(values)
        if array.shape != (self.n,):
            raise ValueError(f"{what} must be one per lane: shape ({self.n},), not {array.shape}")
        if array.dtype.kind not in "iu":
            raise ValueError(f"{what} must be whole numbers, not {array.dtype}")
        if array.min() < low or array.max() > high:
            bad = array[(array < low) | (array > high)][0]
            raise ValueError(f"{what} run from {low} to {high}; {bad} is out of range")
        return array.astype(np.int16)

    def _log_actions(self, applied: BOOL, action: npt.NDArray[np.int16]) -> None:
        """Append each applied action to its lane's log (for ``lane_state``)."""
        width = self._log.shape[1]
        if self._logged.max() >= width:
            grown = np.zeros((self.n, 2 * width + 1), dtype=np.int8)
            grown[:, :width] = self._log
            self._log_spare = grown
            self._log = grown[:, : 2 * width]
            width *= 2
        # Lanes that applied nothing write to a spare last column.
        at = self._lanes * (width + 1) + np.where(applied, self._logged, width)
        self._log_spare.reshape(-1)[at] = action
        self._logged += applied

    def _bid(
        self,
        lanes: npt.NDArray[np.intp],
        action: npt.NDArray[np.int16],
        refused: npt.NDArray[np.uint8],
    ) -> None:
        # BID-2: Pass, 1 .. hand size - 1, or Board.
        ok = self._bid_legal_flat[
            self.hand_size[lanes].astype(np.intp) * NUM_ACTION_INDICES + action
        ]
        if not ok.all():
            refused[lanes[~ok]] = _OUT_OF_RANGE
            lanes, action = lanes[ok], action[ok]
            if not lanes.size:
                return
        seat = self.to_move[lanes]
        self.bids.reshape(-1)[lanes * 4 + seat] = action
        count = self.nbids[lanes] + 1
        self.nbids[lanes] = count
        # BID-1: one circuit clockwise from the dealer's left; the dealer bids last.
        self.to_move[lanes] = (seat + 1) & 3
        done = lanes[count == 4]
        if done.size:
            self._close_bidding(done)

    def _close_bidding(self, lanes: npt.NDArray[np.intp]) -> None:
        first = self._first_bidders[self.dealer[lanes]].astype(np.intp)
        seats = (first[:, None] + np.arange(4)) & 3
        circuit = self.bids.reshape(-1)[lanes[:, None] * 4 + seats].astype(np.intp)
        base = T.BIDS_PER_SEAT
        code = ((circuit[:, 0] * base + circuit[:, 1]) * base + circuit[:, 2]) * base + circuit[
            :, 3
        ]
        table = self._circuit
        # BID-4, BID-5, BID-6: contracts; the table's pair 0 is the first bidder's pair.
        pairs = lanes[:, None] * 2 + ((first[:, None] + np.arange(2)) & 1)
        self.target.reshape(-1)[pairs] = table.target[code]
        self.multiplier.reshape(-1)[pairs] = table.multiplier[code]
        lead = table.lead[code]
        # MATCH-3: four passes throw the deal in; the next dealer deals the same size.
        thrown = lead < 0
        out = lanes[thrown]
        if out.size:
            self.deals[out] += 1
            self._refresh(out)
        # BID-8: the opening leader leads the first trick.
        on = lanes[~thrown]
        if on.size:
            leader = (first[~thrown] + lead[~thrown]) & 3
            self.leader[on] = leader
            self.to_move[on] = leader
            self.phase[on] = PLAY

    def _play(
        self,
        plays: BOOL,
        action: npt.NDArray[np.int16],
        refused: npt.NDArray[np.uint8],
        rewards: I32,
        terminated: BOOL,
    ) -> None:
        """Play the card of every lane in ``plays`` that may play it; refuse the rest."""
        seat = self.to_move & 3
        at = self._lanes4 + seat
        hands = self.hands.reshape(-1)
        hand = hands[at]
        card = (action - FIRST_CARD_INDEX) & 63
        bit = _CARD_BIT64[card]
        ok = plays & ((self._allowed & bit) != 0)
        refused_now = plays & ~ok
        if refused_now.any():
            lanes = np.flatnonzero(refused_now)
            held = (hand[lanes] & bit[lanes]) != 0
            refused[lanes] = np.where(held, self._why(lanes), _NOT_IN_HAND)
        played = np.where(ok, bit, _ZERO)
        hands[at] = hand ^ played
        # Lanes that play nothing write to the spare fifth slot of their trick row.
        slot = self._lanes5 + np.where(ok, self.ntrick, 4)
        self._trick5.reshape(-1)[slot] = card
        self.ntrick += ok
        # PLAY-1: the others play clockwise after the leader.
        self.to_move[:] = np.where(ok, (self.to_move + 1) & 3, self.to_move)
        done = np.flatnonzero(ok & (self.ntrick == 4))
        if done.size:
            self._close_trick(done, rewards, terminated)

    def _close_trick(self, lanes: npt.NDArray[np.intp], rewards: I32, terminated: BOOL) -> None:
        cards = self.trick[lanes].astype(np.intp)
        trump = self.trump[lanes].astype(np.intp)
        led = T.SUIT_OF_CARD[cards[:, 0]].astype(np.intp)
        # PLAY-7: the highest trump wins, else the highest card of the led suit.
        keys = _TRICK_KEYS_FLAT[((trump * 5 + led) * PACK_SIZE)[:, None] + cards]
        leader = self.leader[lanes]
        winner = ((leader + keys.argmax(axis=1)) & 3).astype(np.int8)
        self.won.reshape(-1)[lanes * 2 + (winner & 1)] += 1
        # PLAY-4: a trump or joker in a completed trick breaks trumps.
        in_trick = np.bitwise_or.reduce(T.CARD_BIT[cards], axis=1)
        self.broken[lanes] |= (in_trick & self.trumps[lanes]) != 0
        # PLAY-8: the winner leads the next trick.
        self.leader[lanes] = winner
        self.to_move[lanes] = winner
        self.trick[lanes] = -1
        self.ntrick[lanes] = 0
        count = self.ntricks[lanes] + 1
        self.ntricks[lanes] = count
        done = lanes[count == self.hand_size[lanes]]
        if done.size:
            self._close_deal(done, rewards, terminated)

    def _close_deal(self, lanes: npt.NDArray[np.intp], rewards: I32, terminated: BOOL) -> None:
        rules = self.rules
        won = self.won[lanes].astype(np.intp)
        tiebreak = self.tiebreak[lanes]
        # SCORE-1 to SCORE-4: each pair on its own contract; a tiebreak deal scores nothing.
        size = self.hand_size[lanes].astype(np.intp)
        points = self._scores[
            self.multiplier[lanes].astype(np.intp),
            self.target[lanes].astype(np.intp),
            size[:, None],
            won,
        ].astype(np.int32)
        points[tiebreak] = 0
        rewards[lanes] = points
        self.totals[lanes] += points
        self.counted[lanes] += np.where(tiebreak, 0, 1).astype(np.int16)
        self.deals[lanes] += 1
        totals = self.totals[lanes]
        counted = self.counted[lanes]
        # END-3, END-4: a tiebreak deal is won on tricks; equal tricks play another.
        by_tricks = tiebreak & (won[:, 0] != won[:, 1])
        # END-1: after the schedule's last deal the higher total wins.
        by_score = ~tiebreak & (counted >= rules.deals) & (totals[:, 0] != totals[:, 1])
        # END-2: equal totals are a draw under the draw policy.
        drawn = (
            ~tiebreak & (counted >= rules.deals) & (totals[:, 0] == totals[:, 1])
            if rules.tie is TiePolicy.DRAW
            else np.zeros(lanes.size, dtype=np.bool_)
        )
        winner = np.where(
            by_tricks, (won[:, 1] > won[:, 0]), np.where(by_score, totals[:, 1] > totals[:, 0], -1)
        ).astype(np.int8)
        winner[drawn] = -1
        ended = by_tricks | by_score | drawn
        self._refresh(lanes)
        over = lanes[ended]
        if over.size:
            self.winner[over] = winner[ended]
            self.phase[over] = OVER
            self.to_move[over] = -1
            terminated[over] = True

    def _refresh(self, lanes: npt.NDArray[np.intp]) -> None:
        """Lanes at a chance step: the next deal's dealer and hand size, nothing in play."""
        # MATCH-2: the deal passes clockwise after every deal, a thrown-in one included.
        self.dealer[lanes] = self._dealers[self.deals[lanes] % 4]
        counted = np.minimum(self.counted[lanes], self.rules.deals)
        # MATCH-4, END-3: the schedule's next size; a tiebreak deal at the largest size.
        self.hand_size[lanes] = self._sizes[counted]
        self.tiebreak[lanes] = self._tiebreaks[counted]
        self.phase[lanes] = DEAL
        self.to_move[lanes] = -1
        self.hands[lanes] = 0
        self.bids[lanes] = -1
        self.nbids[lanes] = 0
        self.target[lanes] = 0
        self.multiplier[lanes] = 0
        self.leader[lanes] = -1
        self.trick[lanes] = -1
        self.ntrick[lanes] = 0
        self.ntricks[lanes] = 0
        self.won[lanes] = 0
        self.broken[lanes] = False
        self.dealt[lanes] = 0
        self.turned[lanes] = -1
        self.swap_seat[lanes] = -1
        self.swap_card[lanes] = -1
        self.trumps[lanes] = 0
        self._follow_base[lanes] = 64 * T.NO_TRUMP
        self.trump[lanes] = T.NO_TRUMP
        self._allowed[lanes] = 0

    def _reset(self, lanes: npt.NDArray[np.intp]) -> None:
        """Start a new match in these lanes, with the lane's seed plus N."""
        self.seeds[lanes] = self.seeds[lanes] + np.uint64(self.n)
        self.deals[lanes] = 0
        self.counted[lanes] = 0
        self.totals[lanes] = 0
        self.winner[lanes] = -1
        self._logged[lanes] = 0
        self._refresh(lanes)

    def reset(self, lanes: Sequence[int] | npt.NDArray[np.integer] | None = None) -> None:
        """Start new matches (seed plus N) in the given lanes, or in every lane."""
        chosen = self._lanes if lanes is None else np.asarray(lanes, dtype=np.intp)
        self._reset(chosen)
        if self.auto_deal:
            self.deal()
        self._update_allowed()

    # --- dealing -----------------------------------------------------------------

    def deal(self) -> int:
        """Deal every lane at a chance step its seeded deal; the number of lanes dealt.

        Each deck is the core's ``seeded_deck(seed, deal number)`` and each deal the
        core's ``deal_hands`` (DEAL-1 to DEAL-6): lane by lane through those functions for a
        few lanes, as arrays (``_dealing``, tested against them) for many.
        """
        lanes = np.flatnonzero(self.phase == DEAL)
        if not lanes.size:
            return 0
        seeds = self.seeds[lanes].tolist()
        numbers = self.deals[lanes].tolist()
        if lanes.size >= _VECTOR_DEALS:
            decks = seeded_decks(seeds, numbers)
            hands, turned, swap_seat, swap_card = deal_decks(
                decks, self.dealer[lanes], self.hand_size[lanes]
            )
        else:
            hands, turned, swap_seat, swap_card = self._deal_each(lanes, seeds, numbers)
        trump = T.SUIT_OF_CARD[turned.astype(np.intp)]
        self.hands[lanes] = hands
        self.dealt[lanes] = hands
        self.turned[lanes] = turned
        self.swap_seat[lanes] = swap_seat
        self.swap_card[lanes] = swap_card
        self.trump[lanes] = trump
        self.trumps[lanes] = T.TRUMP_MASK[trump]
        self._follow_base[lanes] = 64 * trump.astype(np.intp)
        first = self._first_bidders[self.dealer[lanes]]
        self.to_move[lanes] = first
        # END-3: a tiebreak deal has no bidding; the player left of the dealer leads.
        tiebreak = self.tiebreak[lanes]
        self.phase[lanes] = np.where(tiebreak, PLAY, BID)
        self.leader[lanes] = np.where(tiebreak, first, -1)
        if tiebreak.any():
            self._update_allowed()
        return int(lanes.size)

    def _deal_each(
        self, lanes: npt.NDArray[np.intp], seeds: list[int], numbers: list[int]
    ) -> tuple[U64, I8, I8, I8]:
        """The core's ``seeded_deck`` and ``deal_hands``, lane by lane (cheaper for a few lanes)."""
        dealers = self.dealer[lanes].tolist()
        sizes = self.hand_size[lanes].tolist()
        hands = np.empty((lanes.size, 4), dtype=np.uint64)
        turned = np.empty(lanes.size, dtype=np.int8)
        swap = np.full((2, lanes.size), -1, dtype=np.int8)
        for k in range(lanes.size):
            setup = deal_hands(
                seeded_deck(seeds[k], numbers[k]), dealer=SEATS[dealers[k]], hand_size=sizes[k]
            )
            hands[k] = setup.hands
            turned[k] = setup.turned
            if setup.swap is not None:
                swap[:, k] = (setup.swap.seat, setup.swap.received)
        return hands, turned, swap[0], swap[1]

    # --- what may be played ----------------------------------------------------------

    def _update_allowed(self) -> None:
        """The cards the seat to move may play in each lane (``_why`` says why not others).

        The vectorized form of the core's ``tricks.allowed_plays``, rule by rule, over
        every lane at once (lanes not playing get no cards).
        """
        seat = self.to_move & 3
        at = self._lanes4 + seat
        hand = self.hands.reshape(-1)[at]
        trumps = self.trumps
        held_trumps = hand & trumps
        others = hand & ~trumps
        # PLAY-4: no trump lead until trumps are broken; PLAY-5: unless this player bid
        # Board; PLAY-6: or holds only trumps. (A hand without trumps, or a no-trump
        # deal, has others == hand: nothing is banned.)
        bid_board = self.bids.reshape(-1)[at] == _BOARD
        free_lead = self.broken | bid_board | (others == 0)
        lead_allowed = np.where(free_lead, hand, others)
        led = self.trick[:, 0] & 63
        # PLAY-3: a trump or joker led must be followed by a trump or joker;
        # PLAY-2: otherwise the led suit must be followed; a hand holding none of it
        # may play anything.
        follow = hand & self._follow_masks[self._follow_base + led]
        follow_allowed = np.where(follow != 0, follow, hand)
        # JOKER-1, JOKER-2: a joker lead forces the highest (BIG) or lowest (LITTLE)
        # trump; JOKER-3: a hand without trumps plays anything.
        started = self.ntrick > 0
        joker = np.flatnonzero(started & (led >= _LITTLE) & (held_trumps != 0))
        if joker.size:
            shift = self.trump[joker].astype(np.uint64) * np.uint64(13)
            held = held_trumps[joker]
            pattern = ((held >> shift) & T.SUIT_BITS) | ((held >> _FIFTY_TWO) << _THIRTEEN)
            big = led[joker] == _BIG
            index = pattern.astype(np.intp)
            rel = np.where(big, self._forced_high[index], self._forced_low[index])
            forced = ((rel & T.SUIT_BITS) << shift) | ((rel >> _THIRTEEN) << _FIFTY_TWO)
            follow_allowed[joker] = forced
        playing = self.phase == PLAY
        self._allowed = np.where(playing, np.where(started, follow_allowed, lead_allowed), _ZERO)

    def _why(self, lanes: npt.NDArray[np.intp]) -> npt.NDArray[np.uint8]:
        """Why a card held but not allowed is refused in these lanes, as ``allowed_plays`` says.

        Each constraint of ``_update_allowed`` has exactly one reason.
        """
        led = self.trick[lanes, 0]
        led_trump = (_CARD_BIT64[led & 63] & self.trumps[lanes]) != 0
        following = np.where(
            led >= _LITTLE,
            np.where(led == _BIG, _BIG_FORCES, _LITTLE_FORCES),
            np.where(led_trump, _FOLLOW_TRUMP, _FOLLOW_SUIT),
        )
        why: npt.NDArray[np.uint8] = np.where(
            self.ntrick[lanes] == 0, _NOT_BROKEN, following
        ).astype(np.uint8)
        return why

    # --- the reference view of a lane ---------------------------------------------------

    def actions_of(self, lane: int) -> list[int]:
        """The action indices applied in the lane's current match, in order."""
        self._check_lane(lane)
        return [int(index) for index in self._log[lane, : self._logged[lane]]]

    def lane_state(self, lane: int) -> MatchState:
        """The reference ``MatchState`` of a lane: its actions replayed through ``apply``.

        Starts from ``new_match(rules, seed=seed)``, applies the seeded deal at each
        chance step the lane was dealt, and the lane's actions for the seat to move.
        """
        self._check_lane(lane)
        state = new_match(self.rules, seed=int(self.seeds[lane]))
        for index in self.actions_of(lane):
            if state.deal is None:
                state = apply(state, seeded_deal(state))
            seat = state.to_move
            assert seat is not None  # a logged action was applied to a seat to move
            state = apply(state, index_action(index, seat))
        if state.deal is None and state.outcome is None and self.phase[lane] != DEAL:
            state = apply(state, seeded_deal(state))
        return state

    def _check_lane(self, lane: int) -> None:
        if not isinstance(lane, int | np.integer) or isinstance(lane, bool):
            raise TypeError(f"a lane is a whole number, not {lane!r}")
        if not 0 <= lane < self.n:
            raise ValueError(f"lanes run from 0 to {self.n - 1}, not {lane}")

    def __repr__(self) -> str:
        over = int(self.terminated.sum())
        return f"<Batch of {self.n} lanes, {over} over, rules {self.rules!r}>"


def _popcount_table() -> npt.NDArray[np.int16]:
    return np.array([bin(octet).count("1") for octet in range(256)], dtype=np.int16)


_POPCOUNT: Final = _popcount_table()


def _popcount(masks: U64) -> npt.NDArray[np.integer]:
    """The number of cards in each mask."""
    if hasattr(np, "bitwise_count"):  # numpy 2
        counts: npt.NDArray[np.integer] = np.bitwise_count(masks)
        return counts
    octets = masks.astype("<u8").view(np.uint8).reshape(-1, 8)
    total: npt.NDArray[np.integer] = _POPCOUNT[octets].sum(axis=1)
    return total


def _kth_bit_table() -> npt.NDArray[np.uint8]:
    """``[octet * 8 + k]``: the position of the k-th set bit of an octet (0 if none)."""
    table = np.zeros(256 * 8, dtype=np.uint8)
    for octet in range(256):
        for k, position in enumerate(i for i in range(8) if octet >> i & 1):
            table[octet * 8 + k] = position
    return table


_KTH_BIT: Final = _kth_bit_table()
_HALVES: Final = tuple((width, np.uint64((1 << width) - 1)) for width in (32, 16, 8))
_ZERO: Final = np.uint64(0)
_ONE: Final = np.uint64(1)
_THIRTEEN: Final = np.uint64(13)
_FIFTY_TWO: Final = np.uint64(52)
# Card tables padded to 64 entries, so that "no card" (-1 & 63) reads as nothing.
_CARD_BIT64: Final[U64] = np.concatenate([T.CARD_BIT, np.zeros(64 - PACK_SIZE, np.uint64)])
_SUIT_MASK64: Final[U64] = T.SUIT_MASK[
    np.concatenate([T.SUIT_OF_CARD, np.full(64 - PACK_SIZE, T.NO_TRUMP, np.int8)])
]
_TRICK_KEYS_FLAT: Final[I8] = T.TRICK_KEYS.reshape(-1)
