"""The rules of one match as pure JAX functions on a frozen state: the batch engine's kernel.

Written for one lane, in the shape of pgx's games: a frozen :class:`State` (a
pytree of arrays), a pure :meth:`Kernel.init` and :meth:`Kernel.step`, the legal
action mask kept in the state, the rewards of each seat, ``terminated`` and
``truncated``. :mod:`backalley.batch.engine` maps them over the lanes with
``jax.vmap`` and compiles them with ``jax.jit``; nothing here calls back to the
host, so the same code runs on a CPU, a GPU or a TPU.

The step is a sequence of stages, each applied where its condition holds (a
``jnp.where`` per field it touches), in the order of the reference ``apply``:
the refusal checks, the bid or the card, the close of the bidding (BID-4 to
BID-8, MATCH-3), of the trick (PLAY-7, PLAY-8, PLAY-4), of the deal (SCORE-1 to
SCORE-4) and of the match (END-1 to END-4), then the next deal (DEAL-1 to DEAL-6)
and the cards the next player may play (PLAY-2 to PLAY-6, JOKER-1 to JOKER-3).
Where a rule is a function of a few small values it is looked up in a table the
core filled (:mod:`backalley.batch._tables`), not restated.

Each deal's deck is shuffled where it is dealt, on the device: deal number ``k``
of a lane is dealt from ``seeded_deck(seed, k)``, computed from the lane's seed
by :mod:`backalley.batch._dealing` (SHA-256 in 32-bit operations). A lane that
needs more deals than the kernel allows (more throw-ins and tiebreak deals than
its spare deals) stops, ``truncated``.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any, Final

import jax
import jax.numpy as jnp
import numpy as np

from ..core import flow
from ..core.action_index import BOARD_INDEX, FIRST_CARD_INDEX, NUM_ACTION_INDICES
from ..core.bidding import MAX_MULTIPLIER, MAX_TARGET
from ..core.cards import PACK_SIZE
from ..core.errors import Reason
from ..core.position import BID, DEAL, OVER, PLAY
from ..core.rules import MAX_HAND_SIZE, Rules, TiePolicy
from . import _tables as T
from ._dealing import deck_of, decks_of

__all__ = [
    "BID",
    "DEAL",
    "NOT_AN_ACTION",
    "OVER",
    "PLAY",
    "REASON_CODES",
    "Kernel",
    "State",
    "card_bits",
    "seat_results",
]

# A lane's phase codes are the compact position's (core.position): DEAL a chance step,
# where a truncated lane waits too, BID, PLAY, and OVER once the match has ended.

REASON_CODES: Final[tuple[Reason, ...]] = tuple(Reason)
"""Refusal code ``k`` (1 and up) stands for ``REASON_CODES[k - 1]``; 0 is no refusal."""

NOT_AN_ACTION: Final = 255
"""The refusal code of a number outside -1 … 67 given to a compiled step (not an action).

``Env.step`` called outside ``jax.jit`` refuses such input whole, with ``ValueError``.
"""


def _code(reason: Reason) -> int:
    return REASON_CODES.index(reason) + 1


_NOT_YOUR_TURN: Final = _code(Reason.NOT_YOUR_TURN)
_WRONG_PHASE: Final = _code(Reason.WRONG_PHASE)
_MATCH_OVER: Final = _code(Reason.MATCH_OVER)
_OUT_OF_RANGE: Final = _code(Reason.BID_OUT_OF_RANGE)
_NOT_IN_HAND: Final = _code(Reason.CARD_NOT_IN_HAND)
_FOLLOW_SUIT: Final = _code(Reason.MUST_FOLLOW_SUIT)
_FOLLOW_TRUMP: Final = _code(Reason.MUST_FOLLOW_TRUMP)
_NOT_BROKEN: Final = _code(Reason.TRUMPS_NOT_BROKEN)
_BIG_FORCES: Final = _code(Reason.BIG_JOKER_FORCES_HIGHEST)
_LITTLE_FORCES: Final = _code(Reason.LITTLE_JOKER_FORCES_LOWEST)

_LITTLE: Final = 52
_BIG: Final = 53
_TRUMP_KEY: Final = 64
"""Trick keys of trumps start here (``_tables.trick_keys``)."""
_SUIT_BITS: Final = 0x1FFF

Array = jax.Array


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class State:
    """One match (or, with a leading axis, one match per lane), as arrays.

    pgx's fields: ``current_player`` (the seat to act, 0 North ... 3 West; -1 at a
    chance step and after the match), ``legal_action_mask`` (68 action indices of
    :mod:`backalley.core.action_index`), ``rewards`` (the points each seat's pair
    scored at this step: a deal's scores on its last card), ``terminated`` (the
    match is over) and ``truncated`` (the lane ran out of decks). ``refused`` is the
    refusal code of the last step's action (0: applied or no action).

    The rest is the match: seats 0-3, pairs 0 North-South and 1 East-West, cards
    0-53 (the core's numbering), bids as action indices (0 Pass ... 13 Board), -1
    for "none"; hands as five 13-bit words (``_tables``).
    """

    current_player: Array
    legal_action_mask: Array
    rewards: Array
    terminated: Array
    truncated: Array
    refused: Array
    phase: Array
    deals: Array
    """Deals finished, thrown-in and tiebreak ones included: the next deal's number."""
    counted: Array
    """Deals of the schedule played."""
    totals: Array
    winner: Array
    """The winning pair once over; -1 for a draw or while playing."""
    dealer: Array
    hand_size: Array
    tiebreak: Array
    hands: Array
    """(4, 5): each seat's cards, as words."""
    dealt: Array
    """(4, 5): each seat's hand as dealt, after any joker swap."""
    turned: Array
    trump: Array
    """The trump suit 0-3, 4 for none (a turned joker, or between deals)."""
    swap_seat: Array
    swap_card: Array
    bids: Array
    nbids: Array
    target: Array
    multiplier: Array
    leader: Array
    trick: Array
    """(4,): the trick in progress in play order, -1 for a card not yet played."""
    ntrick: Array
    ntricks: Array
    won: Array
    broken: Array
    seed: Array
    """(2,) uint32: the match's seed, high word first."""
    log: Array
    """The action indices applied in the match, in order (``record=True``), int8."""
    logged: Array


def seat_results(winner: Array) -> Array:
    """Each seat's result of a finished match from the winning pair (-1 a draw): +1, -1 or 0.

    (..., 4) float32: +1 for both seats of the winning pair (END-1, END-3), -1 for the
    others, 0 for everyone after a draw (END-2).
    """
    pair = jnp.arange(4) & 1
    won = winner[..., None]
    return jnp.where(won < 0, 0.0, jnp.where(won == pair, 1.0, -1.0)).astype(jnp.float32)


def card_bits(words: Array) -> Array:
    """Five words (..., 5) as 54 bits (..., 54): bit ``c`` is card ``c``."""
    bits = (words[..., :, None] >> jnp.arange(13, dtype=jnp.int32)) & 1
    return bits.reshape(*words.shape[:-1], T.WORDS * 13)[..., :PACK_SIZE]


def _where(cond: Array, state: State, **fields: Array) -> State:
    """``state`` with the given fields replaced where ``cond`` holds."""
    new = {
        name: jnp.where(cond, value, getattr(state, name)).astype(getattr(state, name).dtype)
        for name, value in fields.items()
    }
    return dataclasses.replace(state, **new)


class Kernel:
    """The kernel of one set of :class:`~backalley.core.rules.Rules`, for one lane.

    ``decks`` is the number of deals a lane may have (the schedule's deals plus spare
    ones for throw-ins and tiebreak deals); ``record`` keeps the log of actions
    that ``lane_state`` replays.
    """

    def __init__(self, rules: Rules, decks: int, record: bool) -> None:
        self.rules = rules
        self.decks = decks
        self.record = record
        # The longest match that fits in the decks: every scheduled deal, then spare
        # deals of the largest size, each with at most four bids and its cards.
        spare = decks - rules.deals
        self.log_size = sum(4 + 4 * size for size in rules.schedule) + spare * (
            4 + 4 * rules.largest_hand
        )
        counts = range(rules.deals + 1)
        # The match flow's facts, from the core's own functions (core.flow): the hand
        # size and tiebreak flag after k counted deals, the dealer of deal k (mod 4).
        self._sizes = np.array([flow.hand_size_of_deal(rules, k) for k in counts], np.int32)
        self._tiebreaks = np.array([flow.in_tiebreak(rules, k) for k in counts], np.bool_)
        self._dealers = np.array([flow.dealer_of_deal(rules, k) for k in range(4)], np.int32)
        self._first = np.array([flow.first_bidder(d) for d in range(4)], np.int32)
        circuit = T.circuit_table()
        self._target = circuit.target.astype(np.int32)
        self._multiplier = circuit.multiplier.astype(np.int32)
        self._lead = circuit.lead.astype(np.int32)
        self._scores = T.score_table().astype(np.int32)
        high, low = T.forced_tables()
        self._forced = np.stack([low, high]).astype(np.int32)
        self._bid_legal = T.bid_legal_table()
        self._keys = T.trick_keys().astype(np.int32)
        self._follow = T.follow_words()
        self._suit_of = T.SUIT_OF_CARD
        self._trump_words = T.TRUMP_WORDS
        # The tables go to the compiled code as arguments, not as constants: XLA
        # compiles a large constant slowly, and one compiled step serves every table.
        self.tables: dict[str, Array] = {
            name: jnp.asarray(value)
            for name, value in vars(self).items()
            if isinstance(value, np.ndarray)
        }

    def bound(self, tables: dict[str, Array]) -> Kernel:
        """This kernel reading ``tables`` (traced arguments of a compiled function)."""
        kernel = copy.copy(self)
        kernel.__dict__.update(tables)
        return kernel

    # --- a new match -------------------------------------------------------------

    def blank(self, seeds: Array) -> State:
        """Lanes at the chance step of their first deal, made on the device.

        ``seeds`` (N, 2) uint32 is each lane's seed as two words, high first;
        :func:`deal_lanes` deals them. Traceable: ``init`` compiles it.
        """
        n = seeds.shape[0]
        i32 = jnp.int32

        def full(shape: tuple[int, ...], value: int | bool, dtype: Any = i32) -> Array:
            return jnp.full((n, *shape), value, dtype=dtype)

        rules = self.rules
        return State(
            current_player=full((), -1),
            legal_action_mask=full((NUM_ACTION_INDICES,), 0, jnp.bool_),
            rewards=full((4,), 0, jnp.float32),
            terminated=full((), 0, jnp.bool_),
            truncated=full((), 0, jnp.bool_),
            refused=full((), 0, jnp.uint8),
            phase=full((), DEAL),
            deals=full((), 0),
            counted=full((), 0),
            totals=full((2,), 0),
            winner=full((), -1),
            # MATCH-1: the first dealer deals the schedule's first size.
            dealer=full((), flow.dealer_of_deal(rules, 0)),
            hand_size=full((), flow.hand_size_of_deal(rules, 0)),
            tiebreak=full((), flow.in_tiebreak(rules, 0), jnp.bool_),
            hands=full((4, T.WORDS), 0),
            dealt=full((4, T.WORDS), 0),
            turned=full((), -1),
            trump=full((), T.NO_TRUMP),
            swap_seat=full((), -1),
            swap_card=full((), -1),
            bids=full((4,), -1),
            nbids=full((), 0),
            target=full((2,), 0),
            multiplier=full((2,), 0),
            leader=full((), -1),
            trick=full((4,), -1),
            ntrick=full((), 0),
            ntricks=full((), 0),
            won=full((2,), 0),
            broken=full((), 0, jnp.bool_),
            seed=jnp.asarray(seeds).astype(jnp.uint32),
            log=full((self.log_size if self.record else 0,), 0, jnp.int8),
            logged=full((), 0),
        )

    # --- one action ----------------------------------------------------------------

    def step(self, state: State, action: Array, seat: Array) -> State:
        """Apply action index ``action`` (-1: none) by ``seat`` (-1: the seat to move).

        An action the rules refuse leaves the match as it was and sets ``refused``
        to the reason the reference ``apply`` gives.
        """
        action = action.astype(jnp.int32)
        seat = seat.astype(jnp.int32)
        phase = state.phase
        acting = action >= 0
        is_card = action >= FIRST_CARD_INDEX
        index = jnp.clip(action, 0, NUM_ACTION_INDICES - 1)
        mover = state.current_player
        seat = jnp.where(seat < 0, mover, seat)
        # Framework refusals first, in the reference's order: the phase, then the turn.
        in_phase = jnp.where(is_card, phase == PLAY, phase == BID)
        legal = state.legal_action_mask[index]
        code = jnp.where(
            ~in_phase,
            jnp.where(phase == OVER, _MATCH_OVER, _WRONG_PHASE),
            jnp.where(
                seat != mover,
                _NOT_YOUR_TURN,
                jnp.where(legal, 0, jnp.where(is_card, self._why(state, index), _OUT_OF_RANGE)),
            ),
        )
        code = jnp.where(acting, code, 0)
        code = jnp.where((action < -1) | (action >= NUM_ACTION_INDICES), NOT_AN_ACTION, code)
        ok = acting & (code == 0)
        state = dataclasses.replace(
            state, refused=code.astype(jnp.uint8), rewards=jnp.zeros(4, jnp.float32)
        )
        if self.record:
            at = jnp.minimum(state.logged, self.log_size - 1)
            kept = jnp.where(ok, index, state.log[at].astype(jnp.int32)).astype(jnp.int8)
            state = dataclasses.replace(
                state, log=state.log.at[at].set(kept), logged=state.logged + ok
            )
        state = self._bid(ok & (phase == BID), state, index)
        return self._play(ok & (phase == PLAY), state, index)

    def _why(self, state: State, index: Array) -> Array:
        """Why a card is refused where it is not allowed, as ``tricks.allowed_plays`` says.

        Not held: ``card_not_in_hand``; else each constraint of :meth:`legal` has
        exactly one reason.
        """
        card = index - FIRST_CARD_INDEX
        hand = state.hands[jnp.clip(state.current_player, 0, 3)]
        held = (hand[jnp.clip(card, 0, PACK_SIZE - 1) // 13] >> (card % 13)) & 1
        led = state.trick[0]
        led_trump = self._keys[state.trump, 0, jnp.clip(led, 0, PACK_SIZE - 1)] >= _TRUMP_KEY
        following = jnp.where(
            led >= _LITTLE,
            jnp.where(led == _BIG, _BIG_FORCES, _LITTLE_FORCES),
            jnp.where(led_trump, _FOLLOW_TRUMP, _FOLLOW_SUIT),
        )
        why = jnp.where(state.ntrick == 0, _NOT_BROKEN, following)
        return jnp.where(held == 1, why, _NOT_IN_HAND)

    def _bid(self, applied: Array, state: State, index: Array) -> State:
        seat = state.current_player & 3
        bids = state.bids.at[seat].set(index)
        nbids = state.nbids + 1
        # BID-1: one circuit clockwise from the dealer's left; the dealer bids last.
        state = _where(applied, state, bids=bids, nbids=nbids, current_player=(seat + 1) & 3)
        closing = applied & (nbids == 4)
        first = self._first[state.dealer & 3]
        circuit = state.bids[(first + jnp.arange(4)) & 3]
        code = ((circuit[0] * 14 + circuit[1]) * 14 + circuit[2]) * 14 + circuit[3]
        code = jnp.clip(code, 0, T.BIDS_PER_SEAT**4 - 1)
        # BID-4, BID-5, BID-6: contracts; the table's pair 0 is the first bidder's pair.
        by_pair = (jnp.arange(2) - first) & 1
        target = self._target[code][by_pair]
        multiplier = self._multiplier[code][by_pair]
        lead = self._lead[code]
        # MATCH-3: four passes throw the deal in; the next dealer deals the same size.
        thrown = closing & (lead < 0)
        # BID-8: the opening leader leads the first trick.
        leader = (first + lead) & 3
        state = _where(
            closing & ~thrown,
            state,
            target=target,
            multiplier=multiplier,
            leader=leader,
            current_player=leader,
            phase=jnp.asarray(PLAY),
        )
        # A thrown-in deal (phase still BID, four bids) is closed by finish().
        return state

    def _play(self, applied: Array, state: State, index: Array) -> State:
        seat = state.current_player & 3
        card = jnp.clip(index - FIRST_CARD_INDEX, 0, PACK_SIZE - 1)
        word = card // 13
        bit = jnp.left_shift(1, card % 13)
        hands = state.hands.at[seat, word].set(state.hands[seat, word] ^ bit)
        trick = state.trick.at[state.ntrick & 3].set(card)
        # PLAY-1: the others play clockwise after the leader.
        state = _where(
            applied,
            state,
            hands=hands,
            trick=trick,
            ntrick=state.ntrick + 1,
            current_player=(seat + 1) & 3,
        )
        closing = applied & (state.ntrick == 4)
        # PLAY-7: the highest trump wins, else the highest card of the led suit.
        led = self._suit_of[jnp.clip(state.trick[0], 0, PACK_SIZE - 1)]
        keys = self._keys[state.trump, led, jnp.clip(state.trick, 0, PACK_SIZE - 1)]
        winner = (state.leader + jnp.argmax(keys)) & 3
        # PLAY-4: a trump or joker in a completed trick breaks trumps.
        broken = state.broken | jnp.any(keys >= _TRUMP_KEY)
        # PLAY-8: the winner leads the next trick.
        state = _where(
            closing,
            state,
            won=state.won.at[winner & 1].add(1),
            broken=broken,
            leader=winner,
            current_player=winner,
            trick=jnp.full(4, -1),
            ntrick=jnp.asarray(0),
            ntricks=state.ntricks + 1,
        )
        # A deal whose last trick is closed (phase PLAY, every trick taken) is closed by
        # finish().
        return state

    @staticmethod
    def ended(state: State) -> tuple[Array, Array]:
        """Whether the lane's last action ended its deal, still to be closed: thrown, played.

        Four bids with no contract (a throw-in, MATCH-3), or the deal's last trick taken.
        :meth:`step` leaves such a lane for :meth:`finish`, which most lanes do not need
        at a step: :func:`deal_lanes` gathers the lanes that do, as it gathers those to deal.
        """
        thrown = (state.phase == BID) & (state.nbids == 4)
        played = (state.phase == PLAY) & (state.ntricks == state.hand_size) & (state.ntrick == 0)
        return thrown, played

    def finish(self, state: State) -> State:
        """Close a deal that :meth:`step` ended: a throw-in, or the last trick's scores."""
        thrown, played = self.ended(state)
        # MATCH-3: four passes throw the deal in; the next dealer deals the same size.
        state = _where(thrown, state, deals=state.deals + 1)
        state = self._refresh(thrown, state)
        return self._close_deal(played, state)

    def _close_deal(self, closing: Array, state: State) -> State:
        rules = self.rules
        tiebreak = state.tiebreak
        won = state.won
        # SCORE-1 to SCORE-4: each pair on its own contract; a tiebreak deal scores nothing.
        size = jnp.clip(state.hand_size, 0, MAX_HAND_SIZE)
        points = self._scores[
            jnp.clip(state.multiplier, 0, MAX_MULTIPLIER),
            jnp.clip(state.target, 0, MAX_TARGET),
            size,
            won,
        ]
        points = jnp.where(tiebreak, 0, points)
        totals = state.totals + points
        counted = state.counted + jnp.where(tiebreak, 0, 1)
        # END-3, END-4: a tiebreak deal is won on tricks; equal tricks play another.
        by_tricks = tiebreak & (won[0] != won[1])
        # END-1: after the schedule's last deal the higher total wins.
        last = ~tiebreak & (counted >= rules.deals)
        by_score = last & (totals[0] != totals[1])
        # END-2: equal totals are a draw under the draw policy.
        drawn = last & (totals[0] == totals[1]) & (rules.tie is TiePolicy.DRAW)
        winner = jnp.where(
            by_tricks,
            (won[1] > won[0]).astype(jnp.int32),
            jnp.where(by_score, (totals[1] > totals[0]).astype(jnp.int32), -1),
        )
        state = _where(
            closing,
            state,
            rewards=points[jnp.arange(4) & 1].astype(jnp.float32),
            totals=totals,
            counted=counted,
            deals=state.deals + 1,
        )
        state = self._refresh(closing, state)
        ended = closing & (by_tricks | by_score | drawn)
        return _where(
            ended,
            state,
            winner=winner,
            phase=jnp.asarray(OVER),
            terminated=jnp.asarray(True),
            current_player=jnp.asarray(-1),
        )

    def _refresh(self, cond: Array, state: State) -> State:
        """Where ``cond``: a chance step, the next deal's dealer and hand size, nothing in play."""
        # MATCH-2: the deal passes clockwise after every deal, a thrown-in one included.
        counted = jnp.minimum(state.counted, self.rules.deals)
        # MATCH-4, END-3: the schedule's next size; a tiebreak deal at the largest size.
        return _where(
            cond,
            state,
            phase=jnp.asarray(DEAL),
            current_player=jnp.asarray(-1),
            dealer=self._dealers[state.deals % 4],
            hand_size=self._sizes[counted],
            tiebreak=self._tiebreaks[counted],
            hands=jnp.zeros((4, T.WORDS)),
            dealt=jnp.zeros((4, T.WORDS)),
            turned=jnp.asarray(-1),
            trump=jnp.asarray(T.NO_TRUMP),
            swap_seat=jnp.asarray(-1),
            swap_card=jnp.asarray(-1),
            bids=jnp.full(4, -1),
            nbids=jnp.asarray(0),
            target=jnp.zeros(2),
            multiplier=jnp.zeros(2),
            leader=jnp.asarray(-1),
            trick=jnp.full(4, -1),
            ntrick=jnp.asarray(0),
            ntricks=jnp.asarray(0),
            won=jnp.zeros(2),
            broken=jnp.asarray(False),
        )

    def _deck(self, state: State) -> Array:
        """The deck of the lane's next deal, ``seeded_deck(seed, deals)``, shuffled here."""
        return deck_of(state.seed, state.deals)

    def _deal(self, state: State) -> State:
        """A lane's ended deal closed, then, at a chance step, the deck of its deal dealt."""
        state = self.finish(state)
        return self.deal(state, self._deck(state))

    def deal(self, state: State, deck: Array) -> State:
        """Deal ``deck`` where the lane is at a chance step (DEAL-1 to DEAL-6).

        A lane whose deal number is past its decks is ``truncated`` instead.
        """
        due = state.phase == DEAL
        have = state.deals < self.decks
        deck = deck.astype(jnp.int32)
        size = state.hand_size
        dealt = 4 * size
        # DEAL-1: deck card k goes to the seat k + 1 places clockwise from the dealer;
        # position 4 j + o is the j-th card of offset o.
        cards = deck[: 4 * MAX_HAND_SIZE].reshape(MAX_HAND_SIZE, 4)
        given = jnp.arange(MAX_HAND_SIZE)[:, None] < size
        word = cards // 13
        bit = jnp.left_shift(1, cards % 13)
        mine = given[..., None] & (word[..., None] == jnp.arange(T.WORDS))
        by_offset = jnp.where(mine, bit[..., None], 0).sum(axis=0)
        hands = by_offset[(jnp.arange(4) - state.dealer - 1) & 3]
        # DEAL-2: the next card is turned; DEAL-3: a turned joker means no trumps.
        turned = deck[dealt]
        received = deck[jnp.minimum(dealt + 1, PACK_SIZE - 1)]
        # DEAL-4: the holder of the other joker swaps it for the next undealt card.
        other = (_LITTLE + _BIG) - turned
        other_bit = jnp.left_shift(1, jnp.clip(other - _LITTLE, 0, 1))
        holds = (turned >= _LITTLE) & ((hands[:, T.JOKER_WORD] & other_bit) != 0)
        swapped = holds.any()
        holder = jnp.argmax(holds)
        gain = jnp.where(jnp.arange(T.WORDS) == received // 13, jnp.left_shift(1, received % 13), 0)
        lose = jnp.where(jnp.arange(T.WORDS) == T.JOKER_WORD, other_bit, 0)
        change = jnp.where(swapped & (jnp.arange(4) == holder)[:, None], gain ^ lose, 0)
        hands = hands ^ change
        trump = self._suit_of[turned]
        first = self._first[state.dealer & 3]
        # END-3: a tiebreak deal has no bidding; the player left of the dealer leads.
        tiebreak = state.tiebreak
        state = _where(
            due & have,
            state,
            hands=hands,
            dealt=hands,
            turned=turned,
            trump=trump,
            swap_seat=jnp.where(swapped, holder, -1),
            swap_card=jnp.where(swapped, received, -1),
            current_player=first,
            phase=jnp.where(tiebreak, PLAY, BID),
            leader=jnp.where(tiebreak, first, -1),
        )
        return _where(due & ~have, state, truncated=jnp.asarray(True))

    # --- what may be played ------------------------------------------------------------

    def legal(self, state: State) -> State:
        """The legal action mask: bids while bidding (BID-2), allowed cards while playing.

        The cards follow the core's ``tricks.allowed_plays``, rule by rule.
        """
        seat = state.current_player & 3
        hand = state.hands[seat]
        trumps = self._trump_words[state.trump]
        held_trumps = hand & trumps
        others = hand & ~trumps
        # PLAY-4: no trump lead until trumps are broken; PLAY-5: unless this player bid
        # Board; PLAY-6: or holds only trumps. (A hand without trumps, or a no-trump
        # deal, has others == hand: nothing is banned.)
        free_lead = state.broken | (state.bids[seat] == BOARD_INDEX) | jnp.all(others == 0)
        lead_allowed = jnp.where(free_lead, hand, others)
        led = jnp.clip(state.trick[0], 0, PACK_SIZE - 1)
        # PLAY-3: a trump or joker led must be followed by a trump or joker;
        # PLAY-2: otherwise the led suit must be followed; a hand holding none of it
        # may play anything.
        follow = hand & self._follow[state.trump, led]
        follow_allowed = jnp.where(jnp.any(follow != 0), follow, hand)
        # JOKER-1, JOKER-2: a joker lead forces the highest (BIG) or lowest (LITTLE)
        # trump; JOKER-3: a hand without trumps plays anything.
        suit = jnp.clip(state.trump, 0, 3)
        pattern = (held_trumps[suit] & _SUIT_BITS) | (held_trumps[T.JOKER_WORD] << 13)
        forced = self._forced[(led == _BIG).astype(jnp.int32), pattern]
        forced_words = jnp.where(
            jnp.arange(T.WORDS) == suit,
            forced & _SUIT_BITS,
            jnp.where(jnp.arange(T.WORDS) == T.JOKER_WORD, forced >> 13, 0),
        )
        joker_led = (state.trick[0] >= _LITTLE) & jnp.any(held_trumps != 0)
        follow_allowed = jnp.where(joker_led, forced_words, follow_allowed)
        started = state.ntrick > 0
        playing = state.phase == PLAY
        allowed = jnp.where(playing, jnp.where(started, follow_allowed, lead_allowed), 0)
        bidding = state.phase == BID
        bids = self._bid_legal[jnp.where(bidding, state.hand_size, 0)]
        mask = jnp.concatenate([bids, card_bits(allowed) == 1])
        return dataclasses.replace(state, legal_action_mask=mask)


def step_lane(
    kernel: Kernel, tables: dict[str, Array], state: State, action: Array, seat: Array
) -> State:
    """:meth:`Kernel.step` with the kernel's tables given as arguments (one lane)."""
    return kernel.bound(tables).step(state, action, seat)


def deal_lanes(kernel: Kernel, tables: dict[str, Array], state: State) -> State:
    """Close the deals that ended and deal every lane at a chance step; the legal masks.

    A lane ends a deal or reaches a chance step every few dozen actions, so closing
    and dealing every lane at every step (as a mapped ``jax.lax.cond`` does, both
    branches being computed) would cost more than the rest of the step: the lanes
    that need either are gathered, a chunk at a time, closed and dealt, and put back.
    """
    bound = kernel.bound(tables)
    n = state.phase.shape[0]
    chunk = min(n, max(8, n // 16))

    def pending(state: State) -> Array:
        due = (state.phase == DEAL) & (state.deals < kernel.decks) & ~state.terminated
        thrown, played = Kernel.ended(state)
        return due | thrown | played

    def deal_chunk(state: State) -> State:
        (lanes,) = jnp.nonzero(pending(state), size=chunk, fill_value=n)
        picked = jnp.minimum(lanes, n - 1)
        # Closing and dealing do not read the log: it is not gathered.
        light = dataclasses.replace(state, log=jnp.zeros((n, 0), jnp.int8))
        sub = jax.vmap(bound.finish)(jax.tree.map(lambda field: field[picked], light))
        # The decks of the gathered lanes' next deals, shuffled here (DEAL-1).
        deck = decks_of(sub.seed, sub.deals)
        dealt = jax.vmap(bound.deal)(sub, deck)
        put = {
            name: getattr(state, name).at[lanes].set(getattr(dealt, name), mode="drop")
            for name in _DEAL_FIELDS
        }
        return dataclasses.replace(state, **put)

    state = jax.lax.while_loop(lambda state: pending(state).any(), deal_chunk, state)
    # A lane out of decks stops at the chance step.
    out = (state.phase == DEAL) & (state.deals >= kernel.decks)
    state = dataclasses.replace(state, truncated=state.truncated | out)
    return jax.vmap(bound.legal)(state)


_DEAL_FIELDS: Final = tuple(
    field.name
    for field in dataclasses.fields(State)
    if field.name not in ("legal_action_mask", "refused", "seed", "log", "logged")
)
"""What closing a deal and dealing write: all but the mask, the refusal, the seed and the log."""
