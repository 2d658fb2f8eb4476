"""Tests for the player protocol, the match driver and the computer players."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from backalley import (
    Action,
    Bid,
    Card,
    MatchState,
    Play,
    Rules,
    Seat,
    Suit,
    apply,
    legal_actions,
    new_match,
)
from backalley.core.cards import CARDS
from backalley.engine.bounds import playing
from backalley.engine.view import SeatView, view
from backalley.players import (
    HeuristicPlayer,
    PlayerError,
    RandomPlayer,
    play_match,
    player_seed,
)
from backalley.players.driver import play_step, seat_players
from backalley.players.heuristic import (
    BIG_JOKER_TRICKS,
    LITTLE_JOKER_TRICKS,
    LOW_TRUMP_TRICKS,
    PARTNER_BELIEF,
    TRUMP_ACE_TRICKS,
    hand_tricks,
    heuristic_bid,
    three_passed,
)
from decks import position

SHORT = Rules(schedule=[3, 2, 1])
HEURISTIC = HeuristicPlayer()


def _choose(state, seat=None):  # type: ignore[no-untyped-def]
    """What the heuristic player chooses for the seat to move."""
    seat = state.to_move if seat is None else seat
    return HEURISTIC(view(state, seat), legal_actions(state))


# --- the driver ------------------------------------------------------------------


def test_match_is_reproducible_from_its_seed() -> None:
    """The same players, rules and seed play the same match; another seed another one."""
    players = [RandomPlayer(), HeuristicPlayer(), RandomPlayer(), HeuristicPlayer()]
    first = play_match(players, SHORT, seed=11)
    assert first.is_over
    assert play_match(players, SHORT, seed=11) == first
    assert play_match(players, SHORT, seed=12) != first


class _ViewedRandom(RandomPlayer):
    """A random player the driver cannot tell from any other: it is given its view."""

    def for_seat(self, seat: Seat, seed: int) -> _ViewedRandom:
        return _ViewedRandom(seed)


@given(st.integers(0, 2**64 - 1), st.sampled_from([SHORT, Rules(), Rules(schedule=[1])]))
def test_random_players_play_as_when_given_their_view(seed: int, rules: Rules) -> None:
    """The driver builds no view for a random player: every step as with one, by play_step.

    The reference is the match played a step at a time by ``play_step``, which builds the
    view of every decision and calls the player with it; the driver's own loop must tell
    ``watch`` the same states and actions, step by step, and end on the same state. A
    subclass that reads nothing more is still given its view, and plays the same match.
    """
    players = [RandomPlayer(), HeuristicPlayer(), RandomPlayer(), RandomPlayer()]
    seen: list[tuple[MatchState, Action, MatchState]] = []
    final = play_match(players, rules, seed=seed, watch=lambda *step: seen.append(step))
    state = new_match(rules, seed=seed)
    seated = seat_players(players, seed)
    steps = []
    while playing(state):
        action, following = play_step(state, seated)
        steps.append((state, action, following))
        state = following
    assert seen == steps and final == state
    viewed = [_ViewedRandom(), HeuristicPlayer(), _ViewedRandom(), _ViewedRandom()]
    assert play_match(viewed, rules, seed=seed) == final


def test_watch_sees_every_action_and_start_plays_on() -> None:
    """``watch`` is told each action in order; ``start`` plays on from any state of the match."""
    players = [HeuristicPlayer(), RandomPlayer()] * 2
    seen: list[tuple[MatchState, Action, MatchState]] = []
    final = play_match(players, SHORT, seed=9, watch=lambda *step: seen.append(step))
    assert final.is_over and seen[-1][2] == final
    state = new_match(SHORT, seed=9)
    for before, action, after in seen:
        assert before == state
        state = apply(state, action)
        assert after == state
    # The heuristic player draws no random numbers and keeps no memory, so playing on from
    # the middle of its match must end exactly where the whole match ended.
    heuristic = [HeuristicPlayer()] * 4
    whole: list[MatchState] = []
    end = play_match(heuristic, SHORT, seed=9, watch=lambda _b, _a, after: whole.append(after))
    assert play_match(heuristic, start=whole[len(whole) // 2]) == end
    with pytest.raises(ValueError, match="not both"):
        play_match(heuristic, SHORT, start=whole[0])


def test_player_seeds_differ_by_seat_and_match() -> None:
    """Each seat's randomness is drawn from its own seed, derived from the match seed."""
    seeds = {player_seed(5, seat) for seat in Seat} | {player_seed(6, seat) for seat in Seat}
    assert len(seeds) == 8
    assert player_seed(5, Seat.EAST) == player_seed(5, Seat.EAST)


def test_players_by_mapping_or_sequence() -> None:
    """Players may be given as a mapping from seats or as a North-first sequence."""
    players = [HeuristicPlayer(), RandomPlayer(), HeuristicPlayer(), RandomPlayer()]
    by_seat = dict(zip(Seat, players, strict=True))
    assert play_match(by_seat, SHORT, seed=3) == play_match(players, SHORT, seed=3)
    with pytest.raises(ValueError, match="four players"):
        play_match(players[:3], SHORT, seed=3)
    with pytest.raises(ValueError, match="no player for West"):
        play_match({seat: players[0] for seat in list(Seat)[:3]}, SHORT, seed=3)


def test_each_player_sees_only_its_own_view() -> None:
    """Every player is called with its own seat's view and the legal actions of that state."""
    calls: list[tuple[Seat, SeatView, tuple[Bid | Play, ...]]] = []

    def spy(seat: Seat):  # type: ignore[no-untyped-def]
        def player(seen: SeatView, legal: tuple[Bid | Play, ...]) -> Bid | Play:
            calls.append((seat, seen, legal))
            return HEURISTIC(seen, legal)

        return player

    play_match({seat: spy(seat) for seat in Seat}, SHORT, seed=8)
    assert calls
    for seat, seen, legal in calls:
        assert isinstance(seen, SeatView)
        assert seen.seat is seat and seen.to_move is seat
        assert all(action.seat is seat for action in legal)


def test_illegal_choice_is_refused_with_the_reason() -> None:
    """A player that returns an action not among the legal ones stops the match with a reason."""

    def cheat(seen: SeatView, legal: tuple[Bid | Play, ...]) -> Bid | Play:
        return Bid(seen.seat, 9)

    with pytest.raises(PlayerError, match="not legal: With 3 cards you may bid") as error:
        play_match([cheat] * 4, SHORT, seed=1)
    assert error.value.action == Bid(error.value.seat, 9)


def test_players_that_always_pass_are_stopped() -> None:
    """Players that only pass would redeal forever; the driver says so instead of hanging."""

    def passer(seen: SeatView, legal: tuple[Bid | Play, ...]) -> Bid | Play:
        return legal[0]

    with pytest.raises(PlayerError, match="thrown in"):
        play_match([passer] * 4, Rules(schedule=[1]), seed=1)


@given(seed=st.integers(0, 2**64 - 1))
def test_heuristic_players_always_act_legally(seed: int) -> None:
    """Heuristic and random players finish any match with legal actions only."""
    state = play_match([HeuristicPlayer(), RandomPlayer()] * 2, Rules(schedule=[4, 1]), seed=seed)
    assert state.is_over


# --- the heuristic's count and bids ------------------------------------------------


def test_card_by_card_count() -> None:
    """BIG counts more than a trick, LITTLE and the trump ace about one, a low trump almost half."""
    assert BIG_JOKER_TRICKS > 1
    assert pytest.approx(1) == LITTLE_JOKER_TRICKS and pytest.approx(1) == TRUMP_ACE_TRICKS
    assert 0.35 <= LOW_TRUMP_TRICKS < 0.5
    hand = (Card.BIG, Card.LITTLE, Card.HA, Card.H3, Card.C2)
    assert hand_tricks(hand, Suit.HEARTS) == pytest.approx(
        BIG_JOKER_TRICKS + LITTLE_JOKER_TRICKS + TRUMP_ACE_TRICKS + LOW_TRUMP_TRICKS
    )
    assert hand_tricks((Card.C2, Card.D3), Suit.HEARTS) == 0


HANDS = {
    Seat.NORTH: ["2C", "3C", "4C", "5C", "6C"],
    Seat.EAST: ["2D", "3D", "4D", "5D", "6D"],
    Seat.SOUTH: ["7C", "8C", "9C", "10C", "JC"],
    Seat.WEST: ["AH", "KH", "3H", "4H", "7D"],  # hearts are trumps: 1 + 0.75 + 0.45 + 0.45
}


def test_bid_from_the_count_when_partner_has_not_bid() -> None:
    """Without a partner's bid, the bid is the hand's count, rounded."""
    state = position(HANDS, turned="5H", dealer=Seat.SOUTH)  # West bids first
    count = hand_tricks(view(state, Seat.WEST).hand, Suit.HEARTS)
    assert _choose(state) == Bid(Seat.WEST, round(count))


@pytest.mark.parametrize("partner_bid", [0, 1, 2, 4])
def test_bid_half_believes_the_partner(partner_bid: int) -> None:
    """After the partner's bid b, the side's target is the count plus b / 2."""
    state = position(HANDS, turned="5H", dealer=Seat.NORTH, bids=[partner_bid, 0])
    assert state.to_move is Seat.WEST
    count = hand_tricks(view(state, Seat.WEST).hand, Suit.HEARTS)
    expected = max(0, int(count + PARTNER_BELIEF * partner_bid + 0.5) - partner_bid)
    assert _choose(state) == Bid(Seat.WEST, expected)


def test_passes_when_partner_bid_board() -> None:
    """A partner's Board decides the side's contract, so the player passes."""
    state = position(HANDS, turned="5H", dealer=Seat.NORTH, bids=["board", 0])
    assert _choose(state) == Bid(Seat.WEST)


def test_bids_board_on_a_sure_single_card() -> None:
    """With one card, BIG (a sure trick) bids Board; a small card passes."""
    hands = {Seat.NORTH: ["2C"], Seat.EAST: ["BIG"], Seat.SOUTH: ["3C"], Seat.WEST: ["4C"]}
    state = position(hands, turned="5H")
    assert _choose(state) == Bid(Seat.EAST, board=True)
    assert _choose(position(hands, turned="5H", bids=["board"])) == Bid(Seat.SOUTH)


def test_bids_board_holding_the_only_trump_of_a_single_card_deal() -> None:
    """With one card, a low trump bids Board: it wins unless a higher trump is out."""
    hands = {Seat.NORTH: ["2C"], Seat.EAST: ["2H"], Seat.SOUTH: ["3C"], Seat.WEST: ["4C"]}
    assert _choose(position(hands, turned="5H")) == Bid(Seat.EAST, board=True)


def test_the_dealer_does_not_throw_in_after_three_passes() -> None:
    """The last bidder, after three passes, bids a trick (Board with one card) on nothing."""
    hands = {Seat.NORTH: ["2C"], Seat.EAST: ["3D"], Seat.SOUTH: ["3C"], Seat.WEST: ["4C"]}
    assert _choose(position(hands, turned="5H", bids=[0, 0])) == Bid(Seat.WEST)
    assert _choose(position(hands, turned="5H", bids=[0, 0, 0])) == Bid(Seat.NORTH, board=True)
    state = position(HANDS, turned="5S", dealer=Seat.NORTH, bids=[0, 0, 0])
    assert hand_tricks(view(state, Seat.NORTH).hand, Suit.SPADES) == 0
    assert _choose(state) == Bid(Seat.NORTH, 1)


TRUMP_SUITS = st.sampled_from(list(Suit))
ANY_TRUMP = st.one_of(st.none(), TRUMP_SUITS)


def _trumps(trump: Suit) -> list[Card]:
    return [card for card in CARDS if card.suit is trump or card.suit is None]


@given(trump=TRUMP_SUITS, data=st.data(), partner_passed=st.booleans())
def test_any_trump_bids_board_in_a_one_card_deal(
    trump: Suit, data: st.DataObject, partner_passed: bool
) -> None:
    """With one card (Pass or Board, BID-2), a hand holding a trump bids Board."""
    card = data.draw(st.sampled_from(_trumps(trump)))
    partner = Bid(Seat.SOUTH) if partner_passed else None
    assert heuristic_bid(Seat.NORTH, (card,), trump, 1, partner) == Bid(Seat.NORTH, board=True)


@given(trump=ANY_TRUMP, data=st.data(), size=st.integers(1, 13))
def test_the_last_bidder_never_throws_the_deal_in(
    trump: Suit | None, data: st.DataObject, size: int
) -> None:
    """After three passes the last bidder bids Board or at least one trick (MATCH-3)."""
    cards = [card for card in CARDS if trump is not None or card.suit is not None]
    hand = data.draw(st.lists(st.sampled_from(cards), min_size=size, max_size=size, unique=True))
    bid = heuristic_bid(Seat.WEST, hand, trump, size, Bid(Seat.EAST), after_three_passes=True)
    assert bid.board or 1 <= bid.amount <= size - 1
    alone = heuristic_bid(Seat.WEST, hand, trump, size, Bid(Seat.EAST))
    assert bid == alone or (not alone.board and alone.amount == 0)


@given(bids=st.lists(st.sampled_from([0, 1, 2, "board"]), max_size=4))
def test_three_passes_are_three_passes(bids: list[int | str]) -> None:
    said = [
        Bid(seat, board=True) if bid == "board" else Bid(seat, int(bid))
        for seat, bid in zip(Seat, bids, strict=False)
    ]
    assert three_passed(said) == (bids == [0, 0, 0])


@given(seed=st.integers(0, 2**64 - 1))
def test_four_heuristic_players_throw_no_deal_in(seed: int) -> None:
    """The last bidder never passes after three passes, so no deal is thrown in."""
    state = play_match([HeuristicPlayer()] * 4, Rules(schedule=[2, 1, 1, 1]), seed=seed)
    assert not any(result.thrown_in for result in state.history)


# --- the heuristic's play ------------------------------------------------------------

PLAY_HANDS = {
    Seat.NORTH: ["2C", "3C", "4C"],
    Seat.EAST: ["KS", "AD", "5D"],
    Seat.SOUTH: ["QS", "AS", "2S"],
    Seat.WEST: ["3S", "7S", "2H"],
}


def test_leads_a_side_ace() -> None:
    """On lead with a side ace, the player leads it."""
    state = position(PLAY_HANDS, turned="5H", bids=[1, 0, 0, 0])  # East leads
    assert _choose(state) == Play(Seat.EAST, Card.DA)


def test_partner_winning_throws_cheapest() -> None:
    """When the partner is winning the trick, the player throws its cheapest card."""
    hands = dict(PLAY_HANDS)
    hands[Seat.WEST] = ["3S", "AS", "2H"]
    hands[Seat.SOUTH] = ["QS", "7S", "2S"]
    state = position(hands, turned="5H", bids=[1, 0, 0, 0], plays=["KS", "2S"])
    assert _choose(state) == Play(Seat.WEST, Card.S3)  # East's king wins; not the ace


def test_takes_with_the_cheapest_winning_card() -> None:
    """Against an opponent's winning card, the player wins with its cheapest winner."""
    hands = {
        Seat.NORTH: ["2C", "3C", "4C"],
        Seat.EAST: ["JS", "AD", "5D"],
        Seat.SOUTH: ["QS", "AS", "2S"],
        Seat.WEST: ["3S", "KS", "2H"],
    }
    state = position(hands, turned="5H", bids=[1, 0, 0, 0], plays=["JS"])
    assert _choose(state) == Play(Seat.SOUTH, Card.SQ)  # QS and AS win; QS is cheaper
    state = position(hands, turned="5H", bids=[1, 0, 0, 0], plays=["JS", "QS"])
    assert _choose(state) == Play(Seat.WEST, Card.SK)
    state = position(hands, turned="5H", bids=[1, 0, 0, 0], plays=["JS", "AS"])
    assert _choose(state) == Play(Seat.WEST, Card.S3)  # nothing wins: the cheapest card


RUFF_HANDS = {
    Seat.NORTH: ["2C", "3C", "4C"],
    Seat.EAST: ["AS", "KS", "5D"],
    Seat.SOUTH: ["2H", "3D", "9C"],  # no spades: can ruff with the 2 of hearts
    Seat.WEST: ["3S", "4S", "6D"],
}


def test_ruffs_while_the_target_is_not_made() -> None:
    """Short of its target, the player trumps an opponent's winning card with its cheapest trump."""
    state = position(RUFF_HANDS, turned="5H", bids=[1, 1, 0, 0], plays=["AS"])
    assert _choose(state) == Play(Seat.SOUTH, Card.H2)


def test_keeps_trumps_once_the_target_is_made() -> None:
    """With its side's target made, the player will not spend a trump to win."""
    # North and South both pass (target 0, made at once); East bids 1 and leads.
    state = position(RUFF_HANDS, turned="5H", bids=[1, 0, 0, 0], plays=["AS"])
    assert _choose(state) == Play(Seat.SOUTH, Card.D3)


def test_spends_a_trump_to_beat_an_opposing_board() -> None:
    """Even with its target made, one trick beats the opponents' Board, so it ruffs."""
    state = position(RUFF_HANDS, turned="5H", bids=["board", 0, 0, 0], plays=["AS"])
    assert _choose(state) == Play(Seat.SOUTH, Card.H2)


def test_plays_the_trump_a_joker_lead_forces() -> None:
    """BIG led forces the highest trump, even when the side's target is already made."""
    hands = {
        Seat.NORTH: ["2C", "3C", "4C"],
        Seat.EAST: ["BIG", "KS", "5D"],
        Seat.SOUTH: ["2H", "KH", "9C"],
        Seat.WEST: ["3S", "4S", "6D"],
    }
    # East bid Board, so East may lead a trump at once; North-South passed (target made).
    state = position(hands, turned="5H", bids=["board", 0, 0, 0], plays=["BIG"])
    assert _choose(state) == Play(Seat.SOUTH, Card.HK)
    state = position(hands, turned="5H", bids=["board", 0, 0, 0], plays=["BIG", "KH"])
    assert _choose(state) == Play(Seat.WEST, Card.S3)  # no trump: any card, the cheapest


def test_heuristic_beats_random() -> None:
    """Over a few short matches the heuristic pair wins more than the random pair."""
    wins = 0
    for seed in range(10):
        outcome = play_match([HeuristicPlayer(), RandomPlayer()] * 2, SHORT, seed=seed).outcome
        assert outcome is not None
        wins += outcome.winner == 0
    assert wins >= 7


def test_rounding_point_can_be_set() -> None:
    """``round_up_from`` moves the point at which a count rounds up to the next bid."""
    state = position(HANDS, turned="5H", dealer=Seat.SOUTH)
    count = hand_tricks(view(state, Seat.WEST).hand, Suit.HEARTS)
    fraction = count - int(count)
    cautious = HeuristicPlayer(round_up_from=min(0.99, fraction + 0.05))
    bold = HeuristicPlayer(round_up_from=max(0.01, fraction - 0.05))
    legal = legal_actions(state)
    assert cautious(view(state, Seat.WEST), legal) == Bid(Seat.WEST, int(count))
    assert bold(view(state, Seat.WEST), legal) == Bid(Seat.WEST, int(count) + 1)


@pytest.mark.parametrize("returned", ["E 1", None, Play(Seat.NORTH, Card.BIG)])
def test_a_choice_that_is_no_legal_action_is_refused(returned: object) -> None:
    """Something that is not a bid or play, or a card its seat does not hold, stops the match."""

    def odd(seen: SeatView, legal: tuple[Bid | Play, ...]) -> Bid | Play:
        if isinstance(legal[0], Play):
            return returned  # type: ignore[return-value]
        return legal[-1] if seen.seat is Seat.EAST else legal[0]

    with pytest.raises(PlayerError, match="which is not legal: ") as error:
        play_match([odd] * 4, SHORT, seed=1)
    assert error.value.action == returned
