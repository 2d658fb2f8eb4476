"""The worked examples of the seed documents, each checked through the public API.

Each test quotes the sentence it checks and its source (``000 §06`` is section
06 of the English rules table, ``001`` the online table's rules page, quoted by
heading). Where an example is a deal, it is played for real: the deck is built
to give the hands the example needs (``helpers.deck_for``), and the deal is
played out under more than one choice of legal cards, so the outcome is
certain rather than lucky.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from backalley import (
    SCHEDULES,
    Bid,
    Card,
    Contract,
    IllegalAction,
    MatchState,
    Pair,
    Phase,
    Play,
    Reason,
    Rules,
    Seat,
    Suit,
    Swap,
    Termination,
    apply,
    legal_actions,
    new_match,
    score,
)
from backalley.core.bidding import board_multipliers, contracts, opening_leader
from helpers import bid_round, cards, deal_hands, play_cards, play_out

N, E, S, W = Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.WEST

Picker = Callable[[tuple[Play, ...]], Play]
PICKERS: dict[str, Picker] = {
    "first-legal": lambda plays: plays[0],
    "last-legal": lambda plays: plays[-1],
    "middle-legal": lambda plays: plays[len(plays) // 2],
}
"""Different players: the examples' outcomes must not depend on which legal card is chosen."""

by_picker = pytest.mark.parametrize("pick", PICKERS.values(), ids=PICKERS.keys())


def match(schedule: list[int], dealer: Seat, tie: str = "draw") -> MatchState:
    """A new match on this schedule with ``dealer`` dealing first."""
    return new_match(Rules(schedule=schedule, tie=tie, first_dealer=dealer), seed=0)


def refusal(state: MatchState, action: Play) -> IllegalAction:
    """The ``IllegalAction`` that ``apply`` raises for ``action``."""
    with pytest.raises(IllegalAction) as caught:
        apply(state, action)
    return caught.value


# --- 000 §06 and 001: 2 + 1 on five cards ------------------------------------------

# West deals, so North bids first; hearts are trumps. North must lead a club (trumps
# are not broken), East-West win every trick North follows with a club, and North's
# jokers and top hearts win every other trick: one club loses in the first layout,
# three in the second.
FOUR_TRICKS = {
    N: "BIG LITTLE AH KH 2C",
    E: "3C 4C 5C 6C 7C",
    S: "2D 3D 4D 5D 6D",
    W: "8C 9C 10C JC QC",
}
TWO_TRICKS = {
    N: "BIG LITTLE 2C 3C 4C",
    E: "5C 6C 7C 8C 9C",
    S: "2D 3D 4D 5D 6D",
    W: "10C JC QC KC AC",
}
TWO_PLUS_ONE = {N: 2, E: "pass", S: 1, W: "pass"}


@pytest.mark.rule("SCORE-1", "SCORE-2", "SCORE-3", "BID-6")
@by_picker
def test_two_plus_one_on_five_cards_scores_16_or_minus_15(pick: Picker) -> None:
    """North 2 and South 1 on five cards: four tricks score 16, two tricks lose 15.

    `000 §06`: "With five cards each, North bids two and South one. Their target is
    three. Taking four earns 5×3+1=16; taking two loses 15." And `001` "Back Alley
    Bridge scoring, with a worked deal": "Win four tricks and you score five times
    three plus one, which is 16. Win two and you lose 15."
    """
    bids = (Bid(N, 2), Bid(E), Bid(S, 1), Bid(W))
    assert contracts(bids) == (Contract(3), Contract(0))
    assert score(Contract(3), hand_size=5, tricks=4) == 16
    assert score(Contract(3), hand_size=5, tricks=2) == -15

    for hands, tricks, scores in ((FOUR_TRICKS, (4, 1), (16, 1)), (TWO_TRICKS, (2, 3), (-15, 3))):
        state = deal_hands(match([5], dealer=W), hands, turned="2H")
        assert state.trump is Suit.HEARTS
        state = bid_round(state, TWO_PLUS_ONE)
        assert state.contracts == (Contract(3), Contract(0))
        state = play_out(state, pick)
        finished = state.history[-1]
        assert finished.deal.tricks_won == tricks
        assert finished.scores == scores
        assert state.totals == scores


# --- 000 §06: first, second and third Board ------------------------------------------

# South deals, so West bids first: West Board, North Board, East pass, South Board.
BOARDS = {W: "board", N: "board", E: "pass", S: "board"}
# South, the last Board bidder, leads; holding the top trumps South takes every trick,
# or every trick but the one its lone club loses (North, without clubs, cannot help).
ALL_FIVE = {
    S: "BIG LITTLE AH KH QH",
    N: "2C 3C 4C 5C 6C",
    E: "7C 8C 9C 10C JC",
    W: "2D 3D 4D 5D 6D",
}
FOUR_OF_FIVE = {
    S: "BIG LITTLE AH KH 2C",
    N: "2D 3D 4D 5D 6D",
    E: "3C 4C 5C 6C 7C",
    W: "8C 9C 10C JC QC",
}


@pytest.mark.rule("BID-4", "BID-5", "BID-8", "SCORE-1", "SCORE-4", "PLAY-5")
@by_picker
def test_first_second_third_board_multipliers_on_five_cards(pick: Picker) -> None:
    """West, North and South bid the first, second and third Board: NS play ×3, EW ×1.

    `000 §06`: "Now West bids the first board, North the second, East passes and
    South the third. North–South use multiplier three: all five tricks earn
    10×5×3=150; four or fewer lose 150. West retains a×1 board for their pair."
    """
    bids = (Bid(W, board=True), Bid(N, board=True), Bid(E), Bid(S, board=True))
    assert board_multipliers(bids) == {W: 1, N: 2, S: 3}
    assert contracts(bids) == (Contract(0, multiplier=3), Contract(0, multiplier=1))
    assert opening_leader(bids) is S
    assert score(Contract(0, 3), hand_size=5, tricks=5) == 150
    for fewer in range(5):
        assert score(Contract(0, 3), hand_size=5, tricks=fewer) == -150

    for hands, ns_tricks, scores in ((ALL_FIVE, 5, (150, -50)), (FOUR_OF_FIVE, 4, (-150, -50))):
        state = deal_hands(match([5], dealer=S), hands, turned="2H")
        state = bid_round(state, BOARDS)
        assert state.to_move is S
        state = play_out(state, pick)
        assert state.history[-1].deal.tricks_won[Pair.NORTH_SOUTH] == ns_tricks
        # East-West keep West's x1 Board: they lose 50, not 150.
        assert state.history[-1].scores == scores


@pytest.mark.rule("BID-5")
def test_a_team_does_not_inherit_its_opponents_multiplier() -> None:
    """Each pair keeps its own Board multiplier, or its numbers if it bid no Board.

    `000 §06`: "A team does not automatically inherit its opponents' multiplier."
    `001` "Where pagat is silent": "If one side bids board and the other bids
    numbers, each is scored on its own bid."
    """
    # West's Board is the first (x1); North's numbers stay numbers; East's Board is the
    # second (x2) and is East-West's highest, never North-South's.
    bids = (Bid(W, board=True), Bid(N, 2), Bid(E, board=True), Bid(S, 1))
    assert board_multipliers(bids) == {W: 1, E: 2}
    assert contracts(bids) == (Contract(3), Contract(0, multiplier=2))
    assert opening_leader(bids) is E


# --- 001: the joker leads ----------------------------------------------------------


@pytest.mark.rule("JOKER-1", "JOKER-2", "PLAY-5")
@pytest.mark.parametrize(
    ("joker", "forced", "reason"),
    [
        (Card.BIG, Card.HK, Reason.BIG_JOKER_FORCES_HIGHEST),
        (Card.LITTLE, Card.H5, Reason.LITTLE_JOKER_FORCES_LOWEST),
    ],
    ids=["BIG-forces-KH", "LITTLE-forces-5H"],
)
def test_big_led_forces_king_of_hearts_little_led_forces_five(
    joker: Card, forced: Card, reason: Reason
) -> None:
    """BIG led forces K♥ from 5♥ K♥ 9♠ 2♣ (hearts trumps); LITTLE led forces 5♥.

    `001` "The bloopers, and the trump you may not lead": "Say hearts are trumps
    and the big blooper is led. Your hand is the five and king of hearts, the nine
    of spades and the two of clubs. You must play the king. Had the little blooper
    been led, it would have to be the five."
    """
    # West deals four each; North bids Board, so North may lead a joker at once.
    state = deal_hands(
        match([4], dealer=W), {N: [joker, "2D", "3D", "4D"], E: "5H KH 9S 2C"}, turned="2H"
    )
    state = bid_round(state, {N: "board", E: "pass", S: "pass", W: "pass"})
    state = apply(state, Play(N, joker))
    assert legal_actions(state) == (Play(E, forced),)
    for card in cards("5H KH 9S 2C"):
        if card is forced:
            continue
        error = refusal(state, Play(E, card))
        assert error.reason is reason
        assert forced.words in error.message


@pytest.mark.rule("JOKER-2", "PLAY-6", "PLAY-7", "CARD-3")
def test_little_led_east_holds_only_big_must_play_it_and_big_wins() -> None:
    """LITTLE led, East's only trump is BIG: East must play it, and BIG wins the trick.

    `000 §06`: "With spades trump, North leads LITTLE. East has only BIG among
    trumps and must play it, beating LITTLE."
    """
    # North holds nothing but trumps, so may lead one; South's lowest trump is 3♠.
    hands = {N: "LITTLE AS KS", E: "BIG 2C 3C", S: "3S 4D 5D", W: "2D 3D 4H"}
    state = deal_hands(match([3], dealer=W), hands, turned="2S")
    state = bid_round(state, {N: 2, E: "pass", S: "pass", W: "pass"})
    state = apply(state, Play(N, Card.LITTLE))
    assert legal_actions(state) == (Play(E, Card.BIG),)
    assert refusal(state, Play(E, Card.C2)).reason is Reason.LITTLE_JOKER_FORCES_LOWEST
    state = apply(state, Play(E, Card.BIG))
    assert legal_actions(state) == (Play(S, Card.S3),)
    state = play_cards(state, "3S 2D")
    (trick,) = state.completed_tricks
    assert trick.cards == cards("LITTLE BIG 3S 2D")
    assert trick.winner is E
    assert state.to_move is E


# --- 000 §05, 001: a passing pair ------------------------------------------------


@pytest.mark.rule("SCORE-3", "SCORE-1")
@by_picker
def test_passing_pair_scores_one_a_trick(pick: Picker) -> None:
    """A pair that passed twice scores one point a trick.

    `000 §05`: "Two passing partners earn one per trick when another player has
    bid." `001`: "If you and your partner both pass, the target is zero and each
    trick you take is worth a point."
    """
    for size in range(1, 14):
        for tricks in range(size + 1):
            assert score(Contract(0), hand_size=size, tricks=tricks) == tricks
    # North bids 1 and makes it; East-West both pass and take the rest of the tricks.
    state = match([4], dealer=W)
    state = deal_hands(state, {N: "BIG 2C 3C 4C", E: "AC KC QC JC"}, turned="2H")
    state = bid_round(state, {N: 1, E: "pass", S: "pass", W: "pass"})
    assert state.contracts == (Contract(1), Contract(0))
    state = play_out(state, pick)
    # East's four club honours take three tricks; North's BIG takes the fourth.
    assert state.history[-1].deal.tricks_won == (1, 3)
    assert state.history[-1].scores == (5, 3)


# --- 000 §02, 001, 002: the turned joker ---------------------------------------------


@pytest.mark.rule("DEAL-3", "DEAL-4", "DEAL-6", "ENGINE-4")
def test_turned_joker_means_no_trumps_and_the_other_jokers_holder_takes_the_next_card() -> None:
    """A turned joker: no trumps, the other joker's holder takes the next card, no jokers in play.

    `000 §02`: "A turned joker means no trumps; replace the other joker from any
    hand with the next undealt card." `001`: "If it is a blooper, there are no
    trumps that deal and both bloopers are out: whoever held the other one swaps
    it for the next card".
    """
    hands = {N: "2C 3C 4C", E: "LITTLE 5C 6C", S: "7C 8C 9C", W: "10C JC QC"}
    state = deal_hands(match([3], dealer=W), hands, turned="BIG", then=["AS"])
    assert state.trump is None
    assert state.hand(E) == cards("5C 6C AS")
    for seat in (N, S, W):
        assert state.hand(seat) == cards(hands[seat])
    assert state.deal is not None
    assert state.deal.setup.swap == Swap(E, Card.LITTLE, Card.SA)
    # No jokers in play: both are in the stock, with the turned card.
    assert not any(card.is_joker for seat in Seat for card in state.hand(seat))
    assert state.stock >> Card.BIG & 1 and state.stock >> Card.LITTLE & 1
    assert not state.stock >> Card.SA & 1


@pytest.mark.rule("DEAL-3", "DEAL-4", "DEAL-6")
def test_turned_joker_with_the_other_joker_undealt_swaps_nothing() -> None:
    """A turned joker with the other joker undealt: no trumps, and nobody swaps.

    `000 §02`: "replace the other joker from any hand": the other joker in the
    stock stays there (docs/rulings.md, "The stock").
    """
    hands = {N: "2C 3C 4C", E: "5C 6C 7C", S: "8C 9C 10C", W: "JC QC KC"}
    state = deal_hands(match([3], dealer=W), hands, turned="LITTLE", then=["AS", "BIG"])
    assert state.trump is None
    assert state.deal is not None
    assert state.deal.setup.swap is None
    for seat in Seat:
        assert state.hand(seat) == cards(hands[seat])
    assert state.stock >> Card.BIG & 1 and state.stock >> Card.LITTLE & 1


# --- 000 §04, 001, 002: the trump-lead ban -------------------------------------------


def _lead_state(north: str, north_bid: int | str) -> MatchState:
    """Three cards, hearts trumps, West dealing; North bids ``north_bid`` and leads."""
    state = deal_hands(match([3], dealer=W), {N: north}, turned="2H")
    return bid_round(state, {N: north_bid, E: "pass", S: "pass", W: "pass"})


@pytest.mark.rule("PLAY-4")
def test_trumps_may_not_be_led_before_they_are_broken() -> None:
    """Before trumps are broken neither a trump nor a joker may be led.

    `000 §04`: "Do not lead trumps until one was played in an earlier trick."
    `001`: "You may not lead a trump, a blooper included, until a trump has been
    played to an earlier trick".
    """
    state = _lead_state("AH BIG 2C", 2)
    assert state.to_move is N
    assert legal_actions(state) == (Play(N, Card.C2),)
    for card in (Card.HA, Card.BIG):
        error = refusal(state, Play(N, card))
        assert error.reason is Reason.TRUMPS_NOT_BROKEN


@pytest.mark.rule("PLAY-5")
def test_board_bidder_may_lead_trumps_at_once() -> None:
    """A Board bidder may lead a trump or a joker at once.

    `000 §04`: "A player who personally bid board may lead trump immediately."
    """
    state = _lead_state("AH BIG 2C", "board")
    assert legal_actions(state) == tuple(Play(N, card) for card in cards("2C AH BIG"))


@pytest.mark.rule("PLAY-6")
def test_hand_of_only_trumps_may_lead_one() -> None:
    """A hand of nothing but trumps may lead one before trumps are broken.

    `000 §04`: "Teaching agreement: a player holding only trumps may make a forced
    trump lead."
    """
    state = _lead_state("KH AH LITTLE", 2)
    assert legal_actions(state) == tuple(Play(N, card) for card in cards("KH AH LITTLE"))


@pytest.mark.rule("PLAY-4", "PLAY-5")
def test_partner_of_a_board_bidder_may_not_lead_trumps() -> None:
    """The partner of a Board bidder may not lead trumps before they are broken.

    `000 §04`: "A player who personally bid board may lead trump immediately."
    """
    # South bids Board and leads a club; North wins it with the ace and must not lead trumps.
    hands = {S: "2C 3H 4H", W: "3C 5D 6D", N: "AC AH 5S", E: "4C 7D 8D"}
    state = deal_hands(match([3], dealer=W), hands, turned="2H")
    state = bid_round(state, {N: "pass", E: "pass", S: "board", W: "pass"})
    state = play_cards(state, "2C 3C AC 4C")
    assert state.to_move is N
    assert legal_actions(state) == (Play(N, Card.S5),)
    assert refusal(state, Play(N, Card.HA)).reason is Reason.TRUMPS_NOT_BROKEN


@pytest.mark.rule("PLAY-4", "PLAY-2", "PLAY-7", "PLAY-8")
def test_trump_played_to_an_earlier_trick_lifts_the_ban() -> None:
    """A trump played to an earlier trick lifts the ban on leading trumps.

    `000 §04`: "Do not lead trumps until one was played in an earlier trick."
    """
    # North leads a club; East, void in clubs, ruffs with 5♥, wins, and may then lead 6♥.
    hands = {N: "2C 3C 4D", E: "5H 6H 3D", S: "4C 5C 6D", W: "6C 7C 7D"}
    state = deal_hands(match([3], dealer=W), hands, turned="2H")
    state = bid_round(state, {N: 1, E: "pass", S: "pass", W: "pass"})
    state = play_cards(state, "2C")
    assert legal_actions(state) == tuple(Play(E, card) for card in cards("3D 5H 6H"))
    state = play_cards(state, "5H 4C 6C")
    assert state.completed_tricks[0].winner is E
    assert legal_actions(state) == tuple(Play(E, card) for card in cards("3D 6H"))


# --- 000 §03, 001: the opening lead --------------------------------------------------


@pytest.mark.rule("BID-8")
def test_last_board_bidder_leads_over_any_number() -> None:
    """The last Board bidder leads, even after a higher number was bid.

    `000 §03`: "If any boards were announced, the last board bidder leads." `001`:
    "The highest bidder leads the first trick, a board bid beating any number".
    """
    # North deals: East Board, South 3, West Board, North 5.
    calls = {E: "board", S: 3, W: "board", N: 5}
    bids = (Bid(E, board=True), Bid(S, 3), Bid(W, board=True), Bid(N, 5))
    assert opening_leader(bids) is W
    state = bid_round(deal_hands(match([6], dealer=N), {}, turned="2H"), calls)
    assert state.phase is Phase.PLAY
    assert state.to_move is W
    assert state.current_trick is not None
    assert state.current_trick.leader is W


@pytest.mark.rule("BID-8", "BID-1")
def test_highest_number_leads_and_the_earliest_of_equal_bids() -> None:
    """Without a Board the highest number leads, the earliest bidder of equal numbers.

    `000 §03`: "Highest numeric bidder leads; earliest wins numeric ties."
    """
    # East deals, so the circuit is South, West, North, East: West bid 3 before North did.
    calls = {S: 1, W: 3, N: 3, E: 2}
    bids = (Bid(S, 1), Bid(W, 3), Bid(N, 3), Bid(E, 2))
    assert opening_leader(bids) is W
    state = deal_hands(match([5], dealer=E), {}, turned="2H")
    assert state.to_move is S
    state = bid_round(state, calls)
    assert state.to_move is W


# --- 000 §03, §05, 001: the throw-in -------------------------------------------------


@pytest.mark.rule("MATCH-2", "MATCH-3", "MATCH-4")
def test_four_passes_throw_in_and_the_next_dealer_deals_the_same_size() -> None:
    """Four passes throw the deal in: no score, same hand size, next dealer, not counted.

    `000 §03`: "Four passes mean no score and the next dealer redeals the same hand
    size." `000 §05`: "All-pass redeals do not advance the schedule."
    """
    state = match([3, 2], dealer=N)
    state = apply(state, legal_actions(state)[0])
    state = bid_round(state, dict.fromkeys(Seat, "pass"))
    thrown = state.history[-1]
    assert thrown.thrown_in
    assert not thrown.counts
    assert thrown.scores == (0, 0)
    assert state.totals == (0, 0)
    assert state.counted_deals == 0
    assert state.phase is Phase.DEAL
    assert state.hand_size == 3
    assert state.dealer is E
    state = apply(state, legal_actions(state)[0])
    assert state.deal is not None
    assert state.deal.setup.hand_size == 3
    assert state.deal.setup.dealer is E
    assert state.to_move is S


# --- 000 §02, §07, 001, 002: schedules -------------------------------------------------


@pytest.mark.rule("SCHED-1", "SCHED-2", "SCHED-3")
@pytest.mark.parametrize(
    ("name", "sizes"),
    [
        ("standard", [*range(13, 0, -1), *range(1, 14)]),
        ("twenty-five", [*range(13, 0, -1), *range(2, 14)]),
        ("short", [*range(7, 0, -1), *range(1, 8)]),
    ],
)
def test_schedule_lengths_26_25_14(name: str, sizes: list[int]) -> None:
    """The named schedules have 26, 25 and 14 deals, in exactly these hand sizes.

    `000 §05`: "Highest cumulative score after 26 played deals wins." `002` "END OF
    GAME": "The game consists of 25 hands." `001` "Short game, full game": "seven
    down to one, one again, and back up to seven: 14 deals and 56 tricks."
    """
    assert {"standard": 26, "twenty-five": 25, "short": 14}[name] == len(sizes)
    assert Rules(schedule=name).schedule == tuple(sizes)
    assert SCHEDULES[name] == tuple(sizes)
    assert Rules(schedule=name).deals == len(sizes)
    assert Rules(schedule=name).schedule_name == name
    assert sizes.count(1) == (1 if name == "twenty-five" else 2)


@pytest.mark.rule("SCHED-1")
def test_the_default_schedule_is_standard() -> None:
    """The default schedule is the standard one, 182 tricks.

    `000 §02`: "Hand sizes are 13,12,…,2,1, then 1,2,…,12,13." `001`: "26 deals,
    182 tricks".
    """
    assert Rules().schedule == SCHEDULES["standard"]
    assert sum(Rules().schedule) == 182  # `001`: "26 deals, 182 tricks"


# --- 000 §05, 001: equal totals -------------------------------------------------------

# Two cards each, hearts trump, nobody holding a heart or a joker, every seat holding a
# spade and a diamond: whichever suit North leads first, North's A♠ wins the spade trick
# and East's A♦ the diamond trick. With North 1 and East 1 both pairs score 5.
LEVEL_DEAL = {N: "AS 2D", E: "3S AD", S: "4S 3D", W: "5S 4D"}
LEVEL_BIDS = {N: 1, E: 1, S: "pass", W: "pass"}


def _level_match(tie: str, pick: Picker) -> MatchState:
    """A one-deal match on two cards that ends with equal totals (5 each)."""
    state = deal_hands(match([2], dealer=W, tie=tie), LEVEL_DEAL, turned="2H")
    state = play_out(bid_round(state, LEVEL_BIDS), pick)
    assert state.history[-1].scores == (5, 5)
    return state


@pytest.mark.rule("END-2")
@by_picker
def test_equal_totals_are_a_draw_under_draw(pick: Picker) -> None:
    """Equal totals under the draw policy end the match drawn.

    `000 §05`: "Teaching agreement: equal totals share a draw."
    """
    state = _level_match("draw", pick)
    assert state.phase is Phase.OVER
    assert state.outcome is not None
    assert state.outcome.termination is Termination.DRAW
    assert state.outcome.winner is None
    assert state.outcome.totals == (5, 5)
    assert legal_actions(state) == ()


@pytest.mark.rule("END-3", "MATCH-2", "BID-7", "SCORE-4")
@by_picker
def test_equal_totals_play_a_tiebreak_deal_at_the_largest_hand_size(pick: Picker) -> None:
    """Equal totals under tiebreak-deal: one unbid deal at the largest size decides by tricks.

    `001` "Where pagat is silent": "A tie at the end plays one more deal with no
    bidding, seven cards or thirteen, and the side with more tricks wins."
    """
    state = match([3, 1], dealer=W, tie="tiebreak-deal")
    # Deal 1, West deals three: North (only trumps) takes all three, so NS fail their
    # target of 4 (-20) and EW, taking nothing, fail their target of 2 (-10).
    state = deal_hands(state, {N: "BIG LITTLE AH"}, turned="2H")
    state = bid_round(state, {N: 2, E: 2, S: 2, W: "pass"})
    assert state.deal is not None
    assert [warning.pair for warning in state.deal.warnings] == [Pair.NORTH_SOUTH]
    state = play_out(state, pick)
    assert state.history[-1].scores == (-20, -10)
    # Deal 2, North deals one: South bids Board, leads BIG and wins: NS +10, EW 0.
    state = deal_hands(state, {S: "BIG"}, turned="2H")
    state = play_out(bid_round(state, {E: "pass", S: "board", W: "pass", N: "pass"}), pick)
    assert state.history[-1].scores == (10, 0)
    assert state.totals == (-10, -10)
    # Equal totals: a tiebreak deal at three cards (the largest, not the last), dealt by East.
    assert state.outcome is None
    assert state.in_tiebreak
    assert state.phase is Phase.DEAL
    assert state.counted_deals == 2
    assert state.hand_size == 3
    assert state.dealer is E
    state = deal_hands(state, {S: "AS KS QS"}, turned="2H")
    # No bidding: South, left of the dealer, leads at once.
    assert state.phase is Phase.PLAY
    assert state.bids == ()
    assert state.to_move is S
    assert all(isinstance(action, Play) for action in legal_actions(state))
    state = play_out(state, pick)
    assert state.history[-1].deal.tricks_won == (3, 0)
    assert state.history[-1].scores == (0, 0)
    assert not state.history[-1].counts
    assert state.outcome is not None
    assert state.outcome.termination is Termination.TIEBREAK_DEAL
    assert state.outcome.winner is Pair.NORTH_SOUTH
    assert state.outcome.totals == (-10, -10)
    assert state.totals == (-10, -10)
    assert state.counted_deals == 2


@pytest.mark.rule("END-3", "END-4", "MATCH-2")
@by_picker
def test_equal_tricks_in_a_tiebreak_deal_play_another(pick: Picker) -> None:
    """A tiebreak deal with equal tricks (even hand size) is followed by another.

    docs/rules.md END-4, an engine ruling: the `tiebreak-deal` policy of `001`
    exists to avoid a draw.
    """
    state = _level_match("tiebreak-deal", pick)
    assert state.phase is Phase.DEAL
    assert state.dealer is N
    # North deals; East leads. As in the level deal, each pair takes one trick.
    state = deal_hands(state, {E: "AS 2D", S: "3S AD", W: "4S 3D", N: "5S 4D"}, turned="2H")
    assert state.to_move is E
    state = play_out(state, pick)
    assert state.history[-1].deal.tricks_won == (1, 1)
    assert state.outcome is None
    assert state.in_tiebreak
    assert state.phase is Phase.DEAL
    assert state.hand_size == 2
    assert state.dealer is E
    # East deals; South leads with the top spades and takes both tricks.
    state = deal_hands(state, {S: "AS KS", W: "2S 3S", N: "4S 5S", E: "6S 7S"}, turned="2H")
    assert state.to_move is S
    state = play_out(state, pick)
    assert state.outcome is not None
    assert state.outcome.termination is Termination.TIEBREAK_DEAL
    assert state.outcome.winner is Pair.NORTH_SOUTH
    assert state.outcome.totals == (5, 5)
    assert len(state.history) == 3
    assert state.counted_deals == 1
