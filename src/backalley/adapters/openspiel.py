"""Back Alley as an OpenSpiel game: ``pyspiel.load_game("python_back_alley")``.

Every rule is the core's: a state holds a :class:`~backalley.engine.state.MatchState`
and each action goes through :func:`backalley.apply`; this module only numbers
the actions, deals card by card, and encodes views
(:mod:`backalley.adapters.encoding`).

**Actions.** Player actions use the fixed indices of
:mod:`backalley.core.action_index` (0 Pass, 1-12 bids, 13 Board, 14 + card
number for a card play), so ``num_distinct_actions`` is 68. **Chance actions**
deal one card each: dealing card number ``c`` is action ``CHANCE_OFFSET + c``
(68-121), so a history's numbers never mean two things. A deal of hand size
``h`` draws ``4h`` cards in dealing order (the first to the dealer's left) and
then the turned card; after a turned joker, when the other joker was dealt, one
more card is drawn: the one its holder takes in the swap. Every card not yet
drawn is equally likely, as in a shuffled pack. The drawn cards, followed by
the undrawn ones in card order, are the deck of the :class:`~backalley.Deal`
applied to the match.

**Parameters** (all optional): ``schedule`` (a name, ``standard``,
``twenty-five`` or ``short``, or hand sizes such as ``"3/2/1"``, since a comma
would split OpenSpiel's game string), ``tie`` (``draw`` or ``tiebreak-deal``),
``first_dealer`` (``N``, ``E``, ``S``, ``W``),
``one_deal`` (0 plays the schedule; 1-13 plays a single deal of that many
cards), ``returns`` (``win``: +1 for each seat of the winning pair, -1 for the
losers, 0 for a draw; ``margin``: North-South's total minus East-West's, and
its negative for East-West) and ``max_extra_deals`` (default
:data:`~backalley.engine.bounds.EXTRA_DEALS`, 8).

Four passes throw a deal in and equal tricks in an even tiebreak deal call for
another: the rules allow a match without end, and OpenSpiel needs a longest
game. So once a game has dealt its schedule's deals and ``max_extra_deals``
more (thrown-in or tiebreak deals), it stops before the next deal, scored on
the totals so far (the winner by totals, or a draw). Returns come only at the end of the game.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Final

import attrs
import numpy as np
import pyspiel

from ..core.action_index import (
    BOARD_INDEX,
    FIRST_CARD_INDEX,
    NUM_ACTION_INDICES,
    action_index,
    index_action,
)
from ..core.actions import Bid, Play, deal_of_permutation
from ..core.cards import CARDS, JOKERS_MASK, PACK_SIZE, SEATS, Card, Seat
from ..core.rules import Rules
from ..engine.bounds import EXTRA_DEALS, check_bounds, out_of_deals
from ..engine.match import apply, legal_actions, new_match
from ..engine.sampling import InformationSet
from ..engine.state import MatchState
from ..engine.view import SeatView, view
from ..pictures.text import state_text
from ..players.driver import Player, SeatedPlayer
from . import encoding
from ._actions import ACTIONS, legal_indices
from ._views import seat_view

__all__ = [
    "CHANCE_OFFSET",
    "GAME_TYPE",
    "PARAMETERS",
    "BackAlleyGame",
    "BackAlleyObserver",
    "BackAlleyState",
    "PlayerBot",
    "chance_action",
    "resample",
    "resampler",
    "state_from_match",
]

CHANCE_OFFSET: Final = NUM_ACTION_INDICES
"""Chance action ``CHANCE_OFFSET + c`` deals card number ``c``: 68 to 121."""

PARAMETERS: Final[dict[str, Any]] = {
    "schedule": "standard",
    "tie": "draw",
    "first_dealer": "N",
    "one_deal": 0,
    "returns": "win",
    "max_extra_deals": EXTRA_DEALS,
}
"""The game's parameters and their defaults."""

RETURNS_MODES: Final = ("win", "margin")

GAME_TYPE: Final = pyspiel.GameType(
    short_name="python_back_alley",
    long_name="Python Back Alley (backalley reference rules)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=4,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=PARAMETERS,
)

# Board multiplier 4 on every deal bounds a pair's score on a deal by 40 points a card.
_MOST_POINTS_PER_CARD: Final = 40


def chance_action(card: Card) -> int:
    """The chance action that deals ``card``."""
    return CHANCE_OFFSET + int(card)


@attrs.frozen
class _Settings:
    """The parsed parameters: the rules, how returns are given, the cap on extra deals."""

    rules: Rules
    returns: str
    max_extra_deals: int

    def __deepcopy__(self, memo: dict[int, Any]) -> _Settings:
        return self  # immutable: a clone may share it


def _settings(params: Mapping[str, Any]) -> _Settings:
    """The parameters read and checked; ``ValueError`` names a bad one."""
    unknown = sorted(set(params) - set(PARAMETERS))
    if unknown:
        raise ValueError(f"unknown parameter {unknown[0]!r}: use {', '.join(PARAMETERS)}")
    values = {**PARAMETERS, **params}
    one_deal = values["one_deal"]
    if not isinstance(one_deal, int) or not 0 <= one_deal <= 13:
        raise ValueError(
            f"one_deal is 0 (the whole schedule) or a hand size 1-13, not {one_deal!r}"
        )
    schedule: Any = values["schedule"]
    if one_deal:
        schedule = [one_deal]
    elif isinstance(schedule, str) and schedule.replace("/", "").strip().isdigit():
        try:
            schedule = [int(size) for size in schedule.split("/")]
        except ValueError:
            raise ValueError(f"schedule {schedule!r}: hand sizes are whole numbers") from None
    rules = Rules(schedule=schedule, tie=values["tie"], first_dealer=values["first_dealer"])
    if values["returns"] not in RETURNS_MODES:
        raise ValueError(f"returns is 'win' or 'margin', not {values['returns']!r}")
    cap = values["max_extra_deals"]
    if not isinstance(cap, int) or isinstance(cap, bool) or cap < 1:
        raise ValueError(f"max_extra_deals is a whole number from 1, not {cap!r}")
    return _Settings(rules, values["returns"], cap)


class BackAlleyGame(pyspiel.Game):  # type: ignore[misc]
    """The OpenSpiel game: four players, card-by-card chance deals, terminal returns."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        settings = _settings(dict(params or {}))
        rules = settings.rules
        largest = rules.largest_hand
        if settings.returns == "win":
            low, high = -1.0, 1.0
        else:
            high = float(2 * _MOST_POINTS_PER_CARD * sum(rules.schedule))
            low = -high
        # Each counted deal: 4 bids, 4h cards; each extra deal at most 4 bids and 4 x largest.
        longest = sum(4 + 4 * size for size in rules.schedule)
        longest += settings.max_extra_deals * (4 + 4 * largest)
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTION_INDICES,
            max_chance_outcomes=CHANCE_OFFSET + PACK_SIZE,
            num_players=4,
            min_utility=low,
            max_utility=high,
            utility_sum=0.0,
            max_game_length=longest,
        )
        super().__init__(GAME_TYPE, info, {**PARAMETERS, **dict(params or {})})
        self.settings = settings

    def new_initial_state(self) -> BackAlleyState:
        """A match about to be dealt its first card."""
        return BackAlleyState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None
    ) -> BackAlleyObserver:
        """The observer for an observation type: perfect recall gives the information state."""
        return BackAlleyObserver(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params
        )


_ALL_CARDS: Final = tuple(range(PACK_SIZE))
_OUTCOMES: Final = tuple(
    tuple((CHANCE_OFFSET + card, 1.0 / left if left else 0.0) for card in range(PACK_SIZE))
    for left in range(PACK_SIZE + 1)
)
"""``_OUTCOMES[n][c]``: the chance outcome dealing card ``c`` when ``n`` cards are left."""
_CHANCE: Final = int(pyspiel.PlayerId.CHANCE)
_TERMINAL: Final = int(pyspiel.PlayerId.TERMINAL)


class _Position:
    """A state's whole Python side, immutable so that a clone can share it.

    ``match`` is the core's state; ``drawn`` the cards dealt so far while a deal
    is being dealt (empty otherwise). ``player`` and ``terminal`` are worked out
    once here, since OpenSpiel asks for them several times for every action.
    """

    __slots__ = ("drawn", "drawn_mask", "left", "match", "player", "settings", "terminal")

    def __init__(
        self,
        settings: _Settings,
        match: MatchState,
        drawn: tuple[Card, ...] = (),
        mask: int = 0,
        left: tuple[int, ...] = _ALL_CARDS,
    ) -> None:
        self.settings = settings
        self.match = match
        self.drawn = drawn
        self.drawn_mask = mask
        # The card numbers not drawn yet, ascending: the chance outcomes while dealing.
        self.left = left
        seat = match.to_move  # read off the position: no deal is made for it
        self.terminal = match.is_over or (
            match.setup is None and out_of_deals(match, settings.max_extra_deals)
        )
        if seat is not None:
            self.player = int(seat)
        else:
            self.player = _TERMINAL if self.terminal else _CHANCE

    def __deepcopy__(self, memo: dict[int, Any]) -> _Position:
        return self

    def __reduce__(self) -> tuple[type[_Position], tuple[Any, ...]]:
        return (_Position, (self.settings, self.match, self.drawn, self.drawn_mask, self.left))


class BackAlleyState(pyspiel.State):  # type: ignore[misc]
    """A position of the OpenSpiel game; ``match`` is the core's :class:`MatchState`."""

    def __init__(self, game: BackAlleyGame) -> None:
        super().__init__(game)
        settings: _Settings = game.settings
        self._position = _Position(settings, new_match(settings.rules, seed=0))

    @property
    def match(self) -> MatchState:
        """The core's state of the match (between deals while a deal is being dealt)."""
        return self._position.match

    @property
    def drawn(self) -> tuple[Card, ...]:
        """The cards dealt so far while the next deal is being dealt, in dealing order."""
        return self._position.drawn

    # --- the OpenSpiel API ----------------------------------------------------------

    def current_player(self) -> int:
        """The seat to act (0 North .. 3 West), CHANCE while dealing, TERMINAL at the end."""
        return self._position.player

    def is_terminal(self) -> bool:
        """Whether the match is over, or stopped after too many extra deals."""
        return self._position.terminal

    def is_chance_node(self) -> bool:
        """Whether a card is to be dealt (answered here, without a trip through C++)."""
        return self._position.player == _CHANCE

    def legal_actions(self, player: int | None = None) -> list[int]:
        """The legal actions of ``player`` (by default the player to act), ascending.

        OpenSpiel's own ``State.legal_actions`` gives the same list by way of C++;
        answering in Python saves the round trips, which cost more than the rules.
        """
        position = self._position
        current = position.player
        if current >= 0 and (player is None or player == current):
            # Not through _legal_actions: a method call costs a lookup through C++.
            return legal_indices(position.match)
        if current == _TERMINAL:
            return []
        if current == _CHANCE:
            return [action for action, _ in self.chance_outcomes()]
        if player is not None and player < 0:
            raise ValueError(f"no legal actions for pseudo-player {player}")
        return []

    def _legal_actions(self, player: int) -> list[int]:
        """The legal action indices, ascending (bids; or the cards that may be played)."""
        match = self._position.match
        assert match.setup is not None  # OpenSpiel asks only at a player's turn
        return legal_indices(match)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Each card not yet drawn, equally likely."""
        left = self._position.left
        row = _OUTCOMES[len(left)]
        return [row[card] for card in left]

    def _apply_action(self, action: int) -> None:
        position = self._position
        player = position.player
        if player >= 0:
            self._position = _Position(
                position.settings, apply(position.match, ACTIONS[player][action])
            )
        elif player == _CHANCE:
            self._position = _draw(position, action)
        else:
            raise ValueError("the game is over: no more actions")

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE or action >= CHANCE_OFFSET:
            return f"deal {CARDS[action - CHANCE_OFFSET].code}"
        return str(index_action(action, SEATS[player]))

    def returns(self) -> list[float]:
        """Zero until the end; then by the ``returns`` parameter (see the module)."""
        if not self.is_terminal():
            return [0.0, 0.0, 0.0, 0.0]
        match = self._position.match
        ns, ew = match.totals
        if self._position.settings.returns == "margin":
            margin = float(ns - ew)
            return [margin, -margin, margin, -margin]
        outcome = match.outcome
        if outcome is None:  # stopped early: decided by the totals so far
            sign = (ns > ew) - (ns < ew)
        else:
            sign = 0 if outcome.winner is None else 1 - 2 * int(outcome.winner)
        return [float(sign), float(-sign), float(sign), float(-sign)]

    def __str__(self) -> str:
        text = state_text(self._position.match)
        if self._position.drawn:
            text += f"\nDealing: {' '.join(card.code for card in self._position.drawn)}"
        return text

    # --- for resamplers -------------------------------------------------------------

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> BackAlleyState:
        """OpenSpiel's resampling entry point (ISMCTS uses it when given no resampler).

        ``probability_sampler()`` gives numbers in [0, 1); the first one seeds the draw.
        """
        seed = int(float(probability_sampler()) * 2**53)
        return resample(self, player_id, random.Random(seed))

    def view(self, player: int) -> SeatView:
        """What ``player`` knows (while dealing, the cards it was dealt so far)."""
        return _view(self._position, player)


def _draw(position: _Position, action: int) -> _Position:
    """The position after a chance action; the deal is applied once its last card is drawn.

    A match past a bound of :mod:`backalley.engine.bounds` (throw-ins without end) is
    stopped with ``EndlessMatch`` as its next deal begins.
    """
    if not position.drawn:
        check_bounds(position.match)
    card = action - CHANCE_OFFSET
    if not 0 <= card < PACK_SIZE or position.drawn_mask >> card & 1:
        raise ValueError(f"chance action {action} deals no card that is left to deal")
    drawn = (*position.drawn, CARDS[card])
    mask = position.drawn_mask | 1 << card
    at = position.left.index(card)
    left = position.left[:at] + position.left[at + 1 :]
    dealt = 4 * position.match.hand_size
    if len(drawn) <= dealt:
        return _Position(position.settings, position.match, drawn, mask, left)
    turned = drawn[dealt]
    # A turned joker calls for one more card when the other joker lies in a hand.
    other = JOKERS_MASK & ~(1 << turned) if turned.is_joker else 0
    if len(drawn) == dealt + 1 and any((1 << held) & other for held in drawn[:dealt]):
        return _Position(position.settings, position.match, drawn, mask, left)
    deck = drawn + tuple(CARDS[card] for card in left)
    return _Position(position.settings, apply(position.match, deal_of_permutation(deck)))


def _view(position: _Position, player: int) -> SeatView:
    seat = SEATS[player]
    seen = seat_view(position.match, seat)
    if not position.drawn:
        return seen
    match = position.match
    dealt = 4 * match.hand_size
    offset = (seat - match.dealer - 1) % 4
    mine = sorted(position.drawn[offset:dealt:4])
    return attrs.evolve(seen, hand=tuple(mine))


class BackAlleyObserver:
    """OpenSpiel's observer protocol over :mod:`backalley.adapters.encoding`.

    The observation type (``pyspiel.IIGObservationType``) chooses what is seen:

    - ``perfect_recall``: the information state (the deal's tricks in order)
      rather than the observation;
    - ``private_info``: ``SINGLE_PLAYER`` the seat's own hand and swap
      (:data:`~backalley.adapters.encoding.PRIVATE_FIELDS`); ``NONE`` nothing
      private, so every player's observation is the same (those fields zero, the
      public strings); ``ALL_PLAYERS`` every seat's hand besides, in the layouts
      with every hand (for analysis with perfect information);
    - ``public_info``: without it only the private part is kept (the other
      fields zero, the strings of the hands alone).

    Refused, with a ``ValueError`` that says why: an observation of nothing
    (neither public nor private information), and private information alone with
    perfect recall (a seat's private history is its hands deal by deal, which no
    layout here holds).
    """

    def __init__(self, iig_obs_type: Any, params: Mapping[str, Any] | None) -> None:
        if params:
            raise ValueError(f"python_back_alley observers take no parameters, not {params}")
        private = iig_obs_type.private_info
        public = bool(iig_obs_type.public_info)
        recall = bool(iig_obs_type.perfect_recall)
        kinds = pyspiel.PrivateInfoType
        if private not in (kinds.SINGLE_PLAYER, kinds.NONE, kinds.ALL_PLAYERS):
            raise ValueError(f"python_back_alley knows no private information type {private!r}")
        if not public and private == kinds.NONE:
            raise ValueError(
                "python_back_alley cannot observe nothing: ask for public information,"
                " private information, or both"
            )
        if not public and recall:
            raise ValueError(
                "python_back_alley observes private information alone only of the present:"
                " use perfect_recall=False, or include the public information"
            )
        self._private = private
        self._public = public
        self._all_hands = private == kinds.ALL_PLAYERS
        if self._all_hands:
            layout = (
                encoding.INFORMATION_STATE_ALL_HANDS if recall else encoding.OBSERVATION_ALL_HANDS
            )
        else:
            layout = encoding.INFORMATION_STATE if recall else encoding.OBSERVATION
        self.layout = layout
        self._write: Callable[[SeatView, encoding.Buffer], None] = (
            encoding.write_information_state if recall else encoding.write_observation
        )
        self._string_of = self._strings(recall)
        # Which numbers the type keeps: the others are zeroed after each write.
        keep = np.ones(layout.size, np.float32)
        hidden: tuple[str, ...] = ()
        if private == kinds.NONE:
            hidden = encoding.PRIVATE_FIELDS
        elif not public:
            kept = {*encoding.PRIVATE_FIELDS, "hands"}
            hidden = tuple(field.name for field in layout if field.name not in kept)
        for name in hidden:
            field = layout[name]
            keep[field.offset : field.end] = 0.0
        self._keep = None if not hidden else keep
        self.tensor = np.zeros(layout.size, np.float32)
        self.dict = {
            field.name: self.tensor[field.offset : field.end].reshape(field.shape)
            for field in layout
        }

    def _strings(self, recall: bool) -> Callable[[SeatView], str]:
        kinds = pyspiel.PrivateInfoType
        if not self._public:
            return encoding.private_string
        if self._private == kinds.NONE:
            if recall:
                return encoding.public_information_state_string
            return encoding.public_observation_string
        return encoding.information_state_string if recall else encoding.observation_string

    def set_from(self, state: BackAlleyState, player: int) -> None:
        """Write ``player``'s view of ``state`` into :attr:`tensor`."""
        tensor = self.tensor
        tensor.fill(0.0)
        self._write(_view(state._position, player), tensor)
        if self._all_hands:
            encoding.write_hands(_hands(state._position), tensor, self.layout)
        if self._keep is not None:
            tensor *= self._keep

    def string_from(self, state: BackAlleyState, player: int) -> str:
        """``player``'s view of ``state`` as text."""
        position = state._position
        if not self._all_hands:
            return self._string_of(_view(position, player))
        hands = encoding.hands_string(_hands(position))
        if not self._public:
            return hands
        return self._string_of(_view(position, player)) + "\n" + hands


def _hands(position: _Position) -> tuple[tuple[Card, ...], ...]:
    """Every seat's hand (while a deal is being dealt, the cards dealt to it so far)."""
    match = position.match
    if position.drawn:
        dealt = 4 * match.hand_size
        first = (match.dealer + 1) % 4
        return tuple(tuple(position.drawn[(seat - first) % 4 : dealt : 4]) for seat in range(4))
    return tuple(match.hand(seat) for seat in SEATS)


# --- states from the core's matches ----------------------------------------------------


def _trajectory(match: MatchState) -> Iterator[int]:
    """The OpenSpiel actions that lead to ``match``: each deal's cards, bids and plays."""
    deals = [result.deal for result in match.history]
    if match.deal is not None:
        deals.append(match.deal)
    for deal in deals:
        setup = deal.setup
        drawn = 4 * setup.hand_size + 1 + (setup.swap is not None)
        for card in setup.deck[:drawn]:
            yield CHANCE_OFFSET + card
        for bid in deal.bids:
            yield BOARD_INDEX if bid.board else bid.amount
        for trick in deal.tricks:
            for card in trick.cards:
                yield FIRST_CARD_INDEX + card
        for card in deal.trick:
            yield FIRST_CARD_INDEX + card


def state_from_match(game: BackAlleyGame, match: MatchState) -> BackAlleyState:
    """The game's state reached by the actions of ``match`` (its rules must be the game's).

    OpenSpiel keeps a history of action numbers, so the state is built by
    replaying them from the start.
    """
    if match.rules != game.settings.rules:
        raise ValueError("the match's rules differ from the game's parameters")
    state: BackAlleyState = game.new_initial_state()
    for action in _trajectory(match):
        state.apply_action(action)
    return state


class PlayerBot(pyspiel.Bot):  # type: ignore[misc]
    """A backalley :class:`~backalley.players.Player` as an OpenSpiel bot.

    The player sees only its seat's view and the legal actions, as in
    :func:`backalley.players.play_match`; a seeded player is seated with
    ``player.for_seat(seat, seed)``, so that its choices repeat.
    """

    def __init__(self, player: Player, seat: Seat | int, seed: int = 0) -> None:
        pyspiel.Bot.__init__(self)
        self.seat = SEATS[int(seat)]
        self._player: Player = (
            player.for_seat(self.seat, seed) if isinstance(player, SeatedPlayer) else player
        )

    def step(self, state: BackAlleyState) -> int:
        """The index of the action the player chooses."""
        position = state._position
        if position.player != self.seat:
            raise ValueError(f"it is not {self.seat.name.title()}'s turn")
        legal: tuple[Bid | Play, ...] = legal_actions(position.match)  # type: ignore[assignment]
        chosen = self._player(view(position.match, self.seat), legal)
        if chosen not in legal:
            raise ValueError(f"the player at {self.seat.name.title()} chose {chosen!r}: not legal")
        return action_index(chosen)

    def restart_at(self, state: BackAlleyState) -> None:
        """Nothing to forget: the player reads each position afresh."""

    def inform_action(self, state: BackAlleyState, player_id: int, action: int) -> None:
        """Nothing to track: the player reads each position afresh."""


Sampler = Callable[[SeatView, random.Random], MatchState]
"""Draws a full match consistent with a seat's view."""


class _Sets:
    """The information set of the last (match, seat) asked about, built once for many samples.

    A search resamples one root position many times; reading the view into an
    :class:`~backalley.engine.sampling.InformationSet` is the costly part, so it is kept
    while the same match object is asked about (the object is held, so its id stays its own).
    """

    def __init__(self) -> None:
        self._key: tuple[MatchState, int] | None = None
        self._set: InformationSet | None = None

    def sample(self, match: MatchState, player: int, rng: random.Random) -> MatchState:
        key = self._key
        if key is None or key[0] is not match or key[1] != player or self._set is None:
            self._set = InformationSet(view(match, SEATS[player]))
            self._key = (match, player)
        return self._set.sample(rng)


def resample(
    state: BackAlleyState, player: int, rng: random.Random, sample: Sampler | None = None
) -> BackAlleyState:
    """A state drawn uniformly among those ``player`` cannot tell apart from ``state``.

    The hidden cards are drawn by ``sample(view, rng)``, by default the core's exact
    sampler (:func:`backalley.engine.sampling.sample_state`), and the match is
    replayed into a new game state: same information state for ``player``, same
    public history.
    """
    position = state._position
    if position.drawn:
        raise ValueError("resampling needs a player's turn, not a deal being dealt")
    if not 0 <= player < 4:
        raise ValueError(f"resampling is for a player 0-3, not {player}")
    if sample is None:
        match = _SETS.sample(position.match, player, rng)
    else:
        match = sample(view(position.match, SEATS[player]), rng)
    return state_from_match(state.get_game(), match)


_SETS: Final = _Sets()


def resampler(
    rng: random.Random | None = None, *, sample: Sampler | None = None
) -> Callable[[BackAlleyState, int], BackAlleyState]:
    """A resampler for ``ISMCTSBot.set_resampler``: see :func:`resample`.

    ``rng`` (a ``random.Random``) draws the samples, so a seeded search repeats.
    """
    draw = rng if rng is not None else random.Random()

    def resample_for(state: BackAlleyState, player: int) -> BackAlleyState:
        return resample(state, player, draw, sample)

    return resample_for


pyspiel.register_game(GAME_TYPE, BackAlleyGame)
