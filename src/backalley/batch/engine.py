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

from ..core.action_index import FIRST_CARD_INDEX, NUM_ACTION_INDICES, index_action
from ..core.cards import PACK_SIZE, SEATS
from ..core.dealing import MAX_SEED, check_whole, deal, seeded_deck
from ..core.errors import Reason
from ..core.rules import Rules, TiePolicy
from ..engine.match import apply, new_match, seeded_deal
from ..engine.state import MatchState
from . import _tables as T
from ._tables import BOOL, I8, I16, I32, U64

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

_BOARD: Final = T.BOARD_INDEX
_LITTLE: Final = 52
_BIG: Final = 53
_LOG_START: Final = 64


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
    if isinstance(value, int) and not isinstance(value, bool):
        if n is None:
            raise TypeError("give the number of lanes n with a single base seed")
        check_whole(value, MAX_SEED, "a seed")
        return [(value + lane) % (MAX_SEED + 1) for lane in range(n)]
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
        seeds: Sequence[int] | npt.NDArray[np.integer] | int = 0,
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
        self._schedule = np.array([*rules.schedule, rules.largest_hand], dtype=np.int8)
        self._lanes = np.arange(n)
        self.seeds: U64 = np.array(seeds_, dtype=np.uint64)
        # The match: which deal is next or in play, how many of the schedule are done.
        self.deals: I32 = np.zeros(n, dtype=np.int32)
        self.counted: I16 = np.zeros(n, dtype=np.int16)
        self.totals: I32 = np.zeros((n, 2), dtype=np.int32)
        self.winner: I8 = np.full(n, -1, dtype=np.int8)
        self.phase: I8 = np.zeros(n, dtype=np.int8)
        self.to_move: I8 = np.full(n, -1, dtype=np.int8)
        # The deal in play.
        self.dealer: I8 = np.zeros(n, dtype=np.int8)
        self.hand_size: I8 = np.zeros(n, dtype=np.int8)
        self.trump: I8 = np.full(n, T.NO_TRUMP, dtype=np.int8)
        self.trumps: U64 = np.zeros(n, dtype=np.uint64)
        self.tiebreak: BOOL = np.zeros(n, dtype=np.bool_)
        self.hands: U64 = np.zeros((n, 4), dtype=np.uint64)
        self.bids: I8 = np.full((n, 4), -1, dtype=np.int8)
        self.nbids: I8 = np.zeros(n, dtype=np.int8)
        self.target: I8 = np.zeros((n, 2), dtype=np.int8)
        self.multiplier: I8 = np.zeros((n, 2), dtype=np.int8)
        self.leader: I8 = np.full(n, -1, dtype=np.int8)
        self.trick: I8 = np.full((n, 4), -1, dtype=np.int8)
        self.ntrick: I8 = np.zeros(n, dtype=np.int8)
        self.ntricks: I8 = np.zeros(n, dtype=np.int8)
        self.won: I8 = np.zeros((n, 2), dtype=np.int8)
        self.broken: BOOL = np.zeros(n, dtype=np.bool_)
        self.played: U64 = np.zeros(n, dtype=np.uint64)
        # What the seat to move may play, and why any other card it holds is refused.
        self._allowed: U64 = np.zeros(n, dtype=np.uint64)
        self._why: npt.NDArray[np.uint8] = np.zeros(n, dtype=np.uint8)
        # Every action applied in the current match of each lane, for lane_state.
        self._log: I8 = np.zeros((n, _LOG_START), dtype=np.int8)
        self._logged: I32 = np.zeros(n, dtype=np.int32)
        self._refresh(self._lanes)
        if auto_deal:
            self.deal()

    # --- reading the batch -------------------------------------------------------

    @property
    def terminated(self) -> BOOL:
        """The lanes whose match is over (phase ``OVER``)."""
        return self.phase == OVER

    def legal_mask(self) -> BOOL:
        """A bool array (N, 68): the action indices the rules allow now in each lane.

        Bids while bidding (BID-2), cards while playing (the allowed cards of the
        seat to move); nothing at a chance step or after the match.
        """
        n = self.n
        mask = np.empty((n, NUM_ACTION_INDICES), dtype=np.bool_)
        bidding = np.where(self.phase == BID, self.hand_size, 0)
        mask[:, :FIRST_CARD_INDEX] = self._bid_legal[bidding, :FIRST_CARD_INDEX]
        octets = self._allowed.astype("<u8").view(np.uint8).reshape(n, 8)
        bits = np.unpackbits(octets, axis=1, bitorder="little")
        mask[:, FIRST_CARD_INDEX:] = bits[:, :PACK_SIZE].view(np.bool_)
        return mask

    def allowed_cards(self) -> U64:
        """The mask of cards the seat to move may play, per lane (0 when not playing)."""
        return self._allowed.copy()

    def sample_legal(self, rng: np.random.Generator) -> npt.NDArray[np.int16]:
        """One legal action index per lane, uniformly at random (-1 where none).

        For random playouts: equivalent to choosing uniformly among the True
        entries of :meth:`legal_mask`, without building it.
        """
        n = self.n
        out = np.full(n, NO_ACTION, dtype=np.int16)
        draw = rng.random(n)
        # Bids: Pass, 1 .. size - 1, Board are hand size choices (BID-2).
        size = self.hand_size.astype(np.int16)
        pick = np.minimum((draw * (size + 1)).astype(np.int16), size)
        bids = np.where(pick == size, _BOARD, pick)
        bidding = self.phase == BID
        out[bidding] = bids[bidding]
        playing = self.phase == PLAY
        allowed = self._allowed
        octets = allowed.astype("<u8").view(np.uint8).reshape(n, 8)
        counts = _POPCOUNT[octets]
        running = counts.cumsum(axis=1, dtype=np.int16)
        total = running[:, -1]
        k = (draw * total).astype(np.int16)
        octet = (running <= k[:, None]).sum(axis=1)
        octet = np.minimum(octet, 7)
        before = np.where(octet > 0, running[self._lanes, octet - 1], 0)
        within = _SELECT[octets[self._lanes, octet], (k - before).clip(0, 7)]
        cards = octet * 8 + within
        out[playing] = (FIRST_CARD_INDEX + cards[playing]).astype(np.int16)
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
        refused = np.zeros(n, dtype=np.uint8)
        rewards = np.zeros((n, 2), dtype=np.int32)
        terminated = np.zeros(n, dtype=np.bool_)
        acting = action >= 0
        phase = self.phase
        # Framework refusals first, in the reference's order: phase, then turn.
        refused[acting & (phase == OVER)] = _MATCH_OVER
        is_card = action >= FIRST_CARD_INDEX
        wrong = (phase == DEAL) | ((phase == BID) & is_card) | ((phase == PLAY) & ~is_card)
        refused[acting & wrong] = _WRONG_PHASE
        if seats is not None:
            seat_of = self._check_actions(seats, "seats", 0, 3)
            refused[acting & (refused == 0) & (seat_of != self.to_move)] = _NOT_YOUR_TURN
        live = acting & (refused == 0)
        bidding = np.flatnonzero(live & (phase == BID))
        playing = np.flatnonzero(live & (phase == PLAY))
        if bidding.size:
            self._bid(bidding, action[bidding], refused)
        if playing.size:
            self._play(playing, action[playing], refused, rewards, terminated)
        if self.auto_reset:
            done = np.flatnonzero(terminated)
            if done.size:
                winner = self.winner[done].copy()
                self._reset(done)
                result_winner = np.full(n, -1, dtype=np.int8)
                result_winner[done] = winner
                if self.auto_deal:
                    self.deal()
                return StepResult(rewards, terminated, result_winner, refused)
        if self.auto_deal:
            self.deal()
        return StepResult(rewards, terminated, self.winner.copy(), refused)

    def _check_actions(
        self, values: Sequence[int] | npt.NDArray[np.integer], what: str, low: int, high: int
    ) -> npt.NDArray[np.int16]:
        array = np.asarray(values)
        if array.shape != (self.n,):
            raise ValueError(f"{what} must be one per lane: shape ({self.n},), not {array.shape}")
        if array.dtype.kind not in "iu":
            raise ValueError(f"{what} must be whole numbers, not {array.dtype}")
        if array.size and (array.min() < low or array.max() > high):
            bad = array[(array < low) | (array > high)][0]
            raise ValueError(f"{what} run from {low} to {high}; {bad} is out of range")
        return array.astype(np.int16)

    def _log_actions(self, lanes: npt.NDArray[np.intp], action: npt.NDArray[np.int16]) -> None:
        at = self._logged[lanes]
        if at.max() >= self._log.shape[1]:
            grown = np.zeros((self.n, 2 * self._log.shape[1]), dtype=np.int8)
            grown[:, : self._log.shape[1]] = self._log
            self._log = grown
        self._log[lanes, at] = action
        self._logged[lanes] = at + 1

    def _bid(
        self, lanes: npt.NDArray[np.intp], action: npt.NDArray[np.int16], refused: npt.NDArray[np.uint8]
    ) -> None:
        # BID-2: Pass, 1 .. hand size - 1, or Board.
        ok = self._bid_legal[self.hand_size[lanes], action]
        refused[lanes[~ok]] = _OUT_OF_RANGE
        lanes, action = lanes[ok], action[ok]
        if not lanes.size:
            return
        self._log_actions(lanes, action)
        seat = self.to_move[lanes]
        self.bids[lanes, seat] = action
        count = self.nbids[lanes] + 1
        self.nbids[lanes] = count
        # BID-1: one circuit clockwise from the dealer's left; the dealer bids last.
        self.to_move[lanes] = (seat + 1) % 4
        done = lanes[count == 4]
        if done.size:
            self._close_bidding(done)

    def _close_bidding(self, lanes: npt.NDArray[np.intp]) -> None:
        first = (self.dealer[lanes].astype(np.intp) + 1) % 4
        circuit = self.bids[lanes[:, None], (first[:, None] + np.arange(4)) % 4].astype(np.intp)
        code = ((circuit[:, 0] * 14 + circuit[:, 1]) * 14 + circuit[:, 2]) * 14 + circuit[:, 3]
        table = self._circuit
        # BID-4, BID-5, BID-6: contracts; the table's pair 0 is the first bidder's pair.
        swap = first % 2
        pairs = np.stack([swap, 1 - swap], axis=1)
        self.target[lanes[:, None], pairs] = table.target[code]
        self.multiplier[lanes[:, None], pairs] = table.multiplier[code]
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
            leader = (first[~thrown] + lead[~thrown]) % 4
            self.leader[on] = leader
            self.to_move[on] = leader
            self.phase[on] = PLAY
            self._update_allowed(on)

    def _play(
        self,
        lanes: npt.NDArray[np.intp],
        action: npt.NDArray[np.int16],
        refused: npt.NDArray[np.uint8],
        rewards: I32,
        terminated: BOOL,
    ) -> None:
        card = action - FIRST_CARD_INDEX
        bit = T.CARD_BIT[card]
        seat = self.to_move[lanes]
        hand = self.hands[lanes, seat]
        held = (hand & bit) != 0
        ok = held & ((self._allowed[lanes] & bit) != 0)
        refused[lanes[~held]] = _NOT_IN_HAND
        bad = held & ~ok
        refused[lanes[bad]] = self._why[lanes[bad]]
        if not ok.all():
            lanes, card, bit, seat, hand = lanes[ok], card[ok], bit[ok], seat[ok], hand[ok]
        if not lanes.size:
            return
        self._log_actions(lanes, action[ok])
        self.hands[lanes, seat] = hand ^ bit
        self.played[lanes] |= bit
        at = self.ntrick[lanes]
        self.trick[lanes, at] = card
        count = at + 1
        self.ntrick[lanes] = count
        # PLAY-1: the others play clockwise after the leader.
        self.to_move[lanes] = (seat + 1) % 4
        full = count == 4
        going = lanes[~full]
        if going.size:
            self._update_allowed(going)
        done = lanes[full]
        if done.size:
            self._close_trick(done, rewards, terminated)

    def _close_trick(self, lanes: npt.NDArray[np.intp], rewards: I32, terminated: BOOL) -> None:
        cards = self.trick[lanes].astype(np.intp)
        trump = self.trump[lanes].astype(np.intp)
        led = T.SUIT_OF_CARD[cards[:, 0]].astype(np.intp)
        # PLAY-7: the highest trump wins, else the highest card of the led suit.
        keys = T.TRICK_KEYS[trump[:, None], led[:, None], cards]
        leader = self.leader[lanes]
        winner = ((leader + keys.argmax(axis=1)) % 4).astype(np.int8)
        self.won[lanes, winner % 2] += 1
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
        last = count == self.hand_size[lanes]
        going = lanes[~last]
        if going.size:
            self._update_allowed(going)
        done = lanes[last]
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
        self.dealer[lanes] = (int(self.rules.first_dealer) + self.deals[lanes]) % 4
        counted = self.counted[lanes]
        # MATCH-4, END-3: the schedule's next size; a tiebreak deal at the largest size.
        self.hand_size[lanes] = self._schedule[np.minimum(counted, self.rules.deals)]
        self.tiebreak[lanes] = counted >= self.rules.deals
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
        self.played[lanes] = 0
        self.trumps[lanes] = 0
        self.trump[lanes] = T.NO_TRUMP
        self._allowed[lanes] = 0
        self._why[lanes] = 0

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

    # --- dealing -----------------------------------------------------------------

    def deal(self) -> int:
        """Deal every lane at a chance step its seeded deal; the number of lanes dealt.

        Each deck is the core's ``seeded_deck(seed, deal number)`` and each deal the
        core's ``deal`` (DEAL-1 to DEAL-6), so the hands, the turned card, trumps and
        any joker swap are exactly the reference's.
        """
        lanes = np.flatnonzero(self.phase == DEAL)
        if not lanes.size:
            return 0
        seeds = self.seeds[lanes].tolist()
        numbers = self.deals[lanes].tolist()
        dealers = self.dealer[lanes].tolist()
        sizes = self.hand_size[lanes].tolist()
        tiebreaks = self.tiebreak[lanes].tolist()
        hands = np.empty((lanes.size, 4), dtype=np.uint64)
        trump = np.empty(lanes.size, dtype=np.int8)
        for k in range(lanes.size):
            setup = deal(
                seeded_deck(seeds[k], numbers[k]),
                dealer=SEATS[dealers[k]],
                hand_size=sizes[k],
                number=numbers[k],
                tiebreak=tiebreaks[k],
            )
            hands[k] = setup.hands
            trump[k] = T.NO_TRUMP if setup.trump is None else int(setup.trump)
        self.hands[lanes] = hands
        self.trump[lanes] = trump
        self.trumps[lanes] = T.TRUMP_MASK[trump]
        first = ((self.dealer[lanes] + 1) % 4).astype(np.int8)
        self.to_move[lanes] = first
        # END-3: a tiebreak deal has no bidding; the player left of the dealer leads.
        tiebreak = self.tiebreak[lanes]
        self.phase[lanes] = np.where(tiebreak, PLAY, BID)
        self.leader[lanes] = np.where(tiebreak, first, -1)
        leading = lanes[tiebreak]
        if leading.size:
            self._update_allowed(leading)
        return int(lanes.size)

    # --- what may be played ----------------------------------------------------------

    def _update_allowed(self, lanes: npt.NDArray[np.intp]) -> None:
        """The cards the seat to move may play in these lanes, and the reason for the rest.

        The vectorized form of the core's ``tricks.allowed_plays``, rule by rule.
        """
        seat = self.to_move[lanes]
        hand = self.hands[lanes, seat]
        trumps = self.trumps[lanes]
        trick_started = self.ntrick[lanes] > 0
        has_trump = (hand & trumps) != 0
        has_other = (hand & ~trumps) != 0
        # PLAY-4: no trump lead until trumps are broken; PLAY-5: unless this player bid
        # Board; PLAY-6: or holds only trumps (a no-trump deal has no trumps to ban).
        free_lead = self.broken[lanes] | (self.bids[lanes, seat] == _BOARD) | ~has_trump | ~has_other
        lead_allowed = np.where(free_lead, hand, hand & ~trumps)
        lead_why = np.where(free_lead, 0, _NOT_BROKEN)
        led = np.maximum(self.trick[lanes, 0], 0)
        led_trump = (T.CARD_BIT[led] & trumps) != 0
        # PLAY-3: a trump or joker led must be followed by a trump or joker;
        # PLAY-2: otherwise the led suit must be followed.
        follow = np.where(led_trump, hand & trumps, hand & T.SUIT_MASK[T.SUIT_OF_CARD[led]])
        follow_why = np.where(led_trump, _FOLLOW_TRUMP, _FOLLOW_SUIT)
        # A hand holding nothing else, or nothing of it, may play anything.
        constrained = (follow != 0) & (follow != hand)
        follow_allowed = np.where(constrained, follow, hand)
        follow_why = np.where(constrained, follow_why, 0)
        # JOKER-1, JOKER-2: a joker lead forces the highest (BIG) or lowest (LITTLE)
        # trump; JOKER-3: a hand without trumps plays anything.
        joker = np.flatnonzero(trick_started & (led >= _LITTLE) & has_trump)
        if joker.size:
            suit = self.trump[lanes[joker]].astype(np.uint64)
            shift = suit * np.uint64(13)
            jhand = hand[joker]
            pattern = ((jhand >> shift) & T.SUIT_BITS) | ((jhand >> np.uint64(52)) << np.uint64(13))
            big = led[joker] == _BIG
            rel = np.where(
                big,
                self._forced_high[pattern.astype(np.intp)],
                self._forced_low[pattern.astype(np.intp)],
            )
            forced = ((rel & T.SUIT_BITS) << shift) | ((rel >> np.uint64(13)) << np.uint64(52))
            follow_allowed[joker] = forced
            follow_why[joker] = np.where(big, _BIG_FORCES, _LITTLE_FORCES)
        self._allowed[lanes] = np.where(trick_started, follow_allowed, lead_allowed)
        self._why[lanes] = np.where(trick_started, follow_why, lead_why)

    # --- the reference view of a lane ---------------------------------------------------

    def actions_of(self, lane: int) -> list[int]:
        """The action indices applied in the lane's current match, in order."""
        self._check_lane(lane)
        return self._log[lane, : self._logged[lane]].astype(int).tolist()

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


def _select_table() -> npt.NDArray[np.int64]:
    """``[octet, k]``: the position of the k-th set bit of an octet (0 if none)."""
    table = np.zeros((256, 8), dtype=np.int64)
    for octet in range(256):
        positions = [i for i in range(8) if octet >> i & 1]
        for k, position in enumerate(positions):
            table[octet, k] = position
    return table


_POPCOUNT: Final = _popcount_table()
_SELECT: Final = _select_table()
