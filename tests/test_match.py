"""The match flow and every refusal of ``apply``, through the public API.

Match flow: the first dealer, the dealer passing clockwise, the schedule, counted
deals, totals and the outcome (docs/rules.md "Dealing", "The match and its
end"). Refusals: every :class:`Reason` code, each with its code, a sentence for
people, the refused action, and the input state left exactly as it was. Bad
input that is not a game action at all gets a plain ``TypeError`` or
``ValueError`` that says what was wrong.
"""

from __future__ import annotations

import copy
import itertools
import random
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backalley import (
    Bid,
    Card,
    Contract,
    Deal,
    IllegalAction,
    MatchState,
    Pair,
    Phase,
    Play,
    Reason,
    Rules,
    Seat,
    Termination,
    apply,
    legal_actions,
    new_match,
    seeded_deal,
)
from backalley.core.bidding import bid_code
from backalley.engine.bounds import playing
from backalley.engine.match import replay_deal
from backalley.strategies import rules as rule_sets
from helpers import bid_round, cards, deal_hands, play_cards, play_out

N, E, S, W = Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.WEST


# --- playing whole matches -----------------------------------------------------------


def run_match(rules: Rules, seed: int, *, passes: int = 0) -> list[MatchState]:
    """Every state of a seeded match played at random; the first ``passes`` deals are thrown in."""
    chooser = random.Random(seed)
    state = new_match(rules, seed=seed)
    states = [state]
    while playing(state):
        actions = legal_actions(state)
        if len(state.history) < passes and state.phase is Phase.BID:
            action = actions[0]
            assert isinstance(action, Bid) and action.is_pass
        else:
            action = chooser.choice(actions)
        state = apply(state, action)
        states.append(state)
    return states


@pytest.mark.rule("MATCH-1", "MATCH-2", "MATCH-3", "BID-1")
@pytest.mark.parametrize("first", list(Seat))
def test_first_dealer_is_a_setting_and_the_deal_passes_clockwise(first: Seat) -> None:
    """The first dealer deals first; every later deal, thrown in or not, goes to the next seat."""
    states = run_match(Rules(schedule=[2, 1, 3], first_dealer=first), seed=11, passes=2)
    final = states[-1]
    dealers = [result.deal.setup.dealer for result in final.history]
    assert dealers == [first.after(k) for k in range(len(final.history))]
    assert [result.thrown_in for result in final.history[:2]] == [True, True]
    for before, after in itertools.pairwise(states):
        if before.phase is Phase.DEAL:
            assert after.deal is not None
            assert after.deal.setup.dealer is before.dealer
            # Bidding starts left of the dealer.
            assert after.to_move is before.dealer.left


@pytest.mark.rule("MATCH-3", "MATCH-4", "SCHED-4", "END-1", "SCORE-1")
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_deals_follow_the_schedule_and_totals_decide(seed: int) -> None:
    """Counted deals follow the schedule's hand sizes; totals add up; the higher total wins."""
    schedule = [3, 1, 4, 2]
    states = run_match(Rules(schedule=schedule), seed=seed, passes=1)
    final = states[-1]
    counted = [result for result in final.history if result.counts]
    assert [result.deal.hand_size for result in counted] == schedule
    assert final.counted_deals == len(schedule)
    # A thrown-in deal is redealt at the same size.
    assert final.history[0].thrown_in
    assert final.history[1].deal.hand_size == final.history[0].deal.hand_size
    for result in final.history:
        assert result.scores == result.deal.settle()
        if result.thrown_in:
            assert result.scores == (0, 0)
    assert final.totals == (
        sum(result.scores[0] for result in final.history),
        sum(result.scores[1] for result in final.history),
    )
    assert final.outcome is not None
    assert final.outcome.totals == final.totals
    ns, ew = final.totals
    if ns == ew:
        assert final.outcome.termination is Termination.DRAW
        assert final.outcome.winner is None
    else:
        assert final.outcome.termination is Termination.SCORE
        assert final.outcome.winner is (Pair.NORTH_SOUTH if ns > ew else Pair.EAST_WEST)
    # Between deals the state says which hand size comes next.
    for state in states:
        if state.phase is Phase.DEAL:
            assert state.hand_size == schedule[state.counted_deals]


@pytest.mark.rule("END-1", "SCORE-4", "SCORE-3")
@pytest.mark.parametrize(
    ("north", "east", "winner", "totals"),
    [("BIG", "AC", Pair.NORTH_SOUTH, (10, 0)), ("2C", "AC", Pair.EAST_WEST, (-10, 1))],
)
def test_the_higher_total_wins(
    north: str, east: str, winner: Pair, totals: tuple[int, int]
) -> None:
    """One card each, North bids Board: making it wins for North-South, failing it for East-West."""
    state = new_match(Rules(schedule=[1], first_dealer=W), seed=0)
    state = deal_hands(state, {N: north, E: east}, turned="2H")
    state = play_out(bid_round(state, {N: "board", E: "pass", S: "pass", W: "pass"}))
    assert state.outcome is not None
    assert state.outcome.termination is Termination.SCORE
    assert state.outcome.winner is winner
    assert state.outcome.totals == totals


@pytest.mark.rule("ENGINE-5", "ENGINE-6")
def test_a_match_replays_from_rules_seed_and_actions() -> None:
    """Replaying the recorded actions of a match from the same rules and seed gives equal states."""
    rules = Rules(schedule="short", tie="tiebreak-deal", first_dealer=S)
    states = run_match(rules, seed=2026)
    replayed = new_match(rules, seed=2026)
    for before, after in itertools.pairwise(states):
        (action,) = [a for a in legal_actions(before) if apply(before, a) == after][:1]
        replayed = apply(replayed, action)
        assert replayed == after
        assert hash(replayed) == hash(after)


@pytest.mark.rule("BID-2", "BID-3", "SCOPE-1")
@pytest.mark.parametrize("size", range(1, 14))
def test_bids_offered_are_pass_numbers_below_the_hand_size_and_board(size: int) -> None:
    """Each player may bid Pass, 1 to hand size - 1, or Board (only Pass or Board on one card)."""
    state = new_match(Rules(schedule=[size]), seed=size)
    state = apply(state, seeded_deal(state))
    seat = state.to_move
    assert seat is not None
    expected = (Bid(seat), *(Bid(seat, n) for n in range(1, size)), Bid(seat, board=True))
    assert legal_actions(state) == expected


@pytest.mark.rule("BID-3", "BID-7")
def test_bids_need_not_increase_and_an_overbid_is_only_a_warning() -> None:
    """A lower bid after a higher one is legal; a target above the hand size is only warned of."""
    state = new_match(Rules(schedule=[5], first_dealer=W), seed=0)
    state = apply(state, seeded_deal(state))
    state = bid_round(state, {N: 4, E: 1, S: 4, W: "pass"})
    assert state.contracts == (Contract(8), Contract(1))
    assert state.deal is not None
    (warning,) = state.deal.warnings
    assert (warning.pair, warning.target, warning.hand_size) == (Pair.NORTH_SOUTH, 8, 5)
    assert "8" in warning.message and "5" in warning.message
    assert state.phase is Phase.PLAY


# --- refusals -----------------------------------------------------------------------

# Five cards, hearts trumps, West dealing (North bids first).
HANDS = {
    N: "2C 9D AH LITTLE BIG",
    E: "4C 2S 3S 3H 5H",
    S: "5C 6C 4S 5S 4H",
    W: "7C 8C 6S 7S 6H",
}


def dealt() -> MatchState:
    """The deal above, bidding about to start."""
    state = new_match(Rules(schedule=[5], first_dealer=W), seed=0)
    return deal_hands(state, HANDS, turned="2H")


def numeric() -> MatchState:
    """North bid 2, the rest passed: North leads, trumps not broken."""
    return bid_round(dealt(), {N: 2, E: "pass", S: "pass", W: "pass"})


def board(*lead: str) -> MatchState:
    """North bid Board and led ``lead``."""
    return play_cards(bid_round(dealt(), {N: "board", E: "pass", S: "pass", W: "pass"}), lead)


def one_card() -> MatchState:
    """A one-card deal, East (left of the dealer, North) to bid."""
    state = new_match(Rules(schedule=[1]), seed=3)
    return apply(state, seeded_deal(state))


def over() -> MatchState:
    """A finished one-deal match."""
    state = new_match(Rules(schedule=[1]), seed=5)
    while playing(state):
        state = apply(state, legal_actions(state)[-1])
    return state


Case = tuple[Callable[[], MatchState], object, Reason]
REFUSALS: dict[str, Case] = {
    "bid out of turn": (dealt, Bid(E, 1), Reason.NOT_YOUR_TURN),
    "play out of turn": (numeric, Play(E, Card.C4), Reason.NOT_YOUR_TURN),
    "bid during play": (numeric, Bid(N, 1), Reason.WRONG_PHASE),
    "play during bidding": (dealt, Play(N, Card.C2), Reason.WRONG_PHASE),
    "deal during bidding": (dealt, Deal(list(Card)), Reason.WRONG_PHASE),
    "deal during play": (numeric, Deal(list(Card)), Reason.WRONG_PHASE),
    "bid before the deal": (lambda: new_match(seed=1), Bid(E), Reason.WRONG_PHASE),
    "play before the deal": (lambda: new_match(seed=1), Play(E, Card.SA), Reason.WRONG_PHASE),
    "bid after the end": (over, Bid(N), Reason.MATCH_OVER),
    "play after the end": (over, Play(N, Card.SA), Reason.MATCH_OVER),
    "deal after the end": (over, Deal(list(Card)), Reason.MATCH_OVER),
    "card not held": (numeric, Play(N, Card.SK), Reason.CARD_NOT_IN_HAND),
    "bid of 14": (dealt, Bid(N, 14), Reason.BID_OUT_OF_RANGE),
    "bid of the hand size": (dealt, Bid(N, 5), Reason.BID_OUT_OF_RANGE),
    "negative bid": (dealt, Bid(N, -1), Reason.BID_OUT_OF_RANGE),
    "number on one card": (one_card, Bid(E, 1), Reason.BID_OUT_OF_RANGE),
    "revoke": (lambda: play_cards(numeric(), "2C"), Play(E, Card.S2), Reason.MUST_FOLLOW_SUIT),
    "no trump on a trump lead": (lambda: board("AH"), Play(E, Card.S2), Reason.MUST_FOLLOW_TRUMP),
    "trump lead unbroken": (numeric, Play(N, Card.HA), Reason.TRUMPS_NOT_BROKEN),
    "joker lead unbroken": (numeric, Play(N, Card.BIG), Reason.TRUMPS_NOT_BROKEN),
    "low trump under BIG": (
        lambda: board("BIG"),
        Play(E, Card.H3),
        Reason.BIG_JOKER_FORCES_HIGHEST,
    ),
    "plain card under BIG": (
        lambda: board("BIG"),
        Play(E, Card.S2),
        Reason.BIG_JOKER_FORCES_HIGHEST,
    ),
    "high trump under LITTLE": (
        lambda: board("LITTLE"),
        Play(E, Card.H5),
        Reason.LITTLE_JOKER_FORCES_LOWEST,
    ),
}


@pytest.mark.rule(
    "ENGINE-1",
    "ENGINE-2",
    "ENGINE-3",
    "BID-1",
    "BID-2",
    "PLAY-1",
    "PLAY-2",
    "PLAY-3",
    "PLAY-4",
    "JOKER-1",
    "JOKER-2",
)
@pytest.mark.parametrize(("build", "action", "reason"), REFUSALS.values(), ids=REFUSALS.keys())
def test_apply_refuses_with_the_reason(
    build: Callable[[], MatchState], action: object, reason: Reason
) -> None:
    """``apply`` refuses with the reason, a sentence and the action, and leaves the state alone."""
    state = build()
    before = copy.deepcopy(state)
    fingerprint = hash(state)
    with pytest.raises(IllegalAction) as caught:
        apply(state, action)  # type: ignore[arg-type]
    error = caught.value
    assert isinstance(error, ValueError)
    assert error.reason is reason
    assert error.action is action
    assert error.message[:1].isupper()
    assert error.message.endswith(".")
    assert len(error.message.split()) >= 4
    assert reason.value in str(error)
    assert error.reason.framework is (
        reason in (Reason.NOT_YOUR_TURN, Reason.WRONG_PHASE, Reason.MATCH_OVER)
    )
    assert action not in legal_actions(state)
    assert state == before
    assert hash(state) == fingerprint


@pytest.mark.rule("ENGINE-3")
def test_every_reason_code_has_a_refusal_case() -> None:
    """The refusal table above covers every ``Reason`` there is."""
    assert {reason for _, _, reason in REFUSALS.values()} == set(Reason)


# --- rules of play not covered by a seed example ----------------------------------------


@pytest.mark.rule("JOKER-3", "JOKER-1")
def test_after_a_joker_lead_a_player_without_trumps_plays_any_card() -> None:
    """BIG led: East, holding no trump, may play any card of the hand."""
    hands = {N: "BIG 2C 3C", E: "4C 2S 2D", S: "5C 3S 3D", W: "6C 4S 4D"}
    state = deal_hands(new_match(Rules(schedule=[3], first_dealer=W), seed=0), hands, turned="2H")
    state = play_cards(bid_round(state, {N: "board", E: "pass", S: "pass", W: "pass"}), "BIG")
    assert legal_actions(state) == tuple(Play(E, card) for card in cards("4C 2D 2S"))


@pytest.mark.rule("JOKER-4", "PLAY-2", "PLAY-7")
def test_a_joker_that_did_not_lead_obliges_nobody() -> None:
    """Club led, void East plays BIG: South must still just follow clubs, and BIG wins."""
    hands = {N: "2C 3C 4C", E: "BIG 2D 3D", S: "5C AH 4D", W: "6C 7C 5D"}
    state = deal_hands(new_match(Rules(schedule=[3], first_dealer=W), seed=0), hands, turned="2H")
    state = play_cards(bid_round(state, {N: 1, E: "pass", S: "pass", W: "pass"}), "2C BIG")
    assert legal_actions(state) == (Play(S, Card.C5),)
    with pytest.raises(IllegalAction) as caught:
        apply(state, Play(S, Card.HA))
    assert caught.value.reason is Reason.MUST_FOLLOW_SUIT
    state = play_cards(state, "5C 6C")
    assert state.completed_tricks[-1].winner is E


@pytest.mark.rule("PLAY-3", "CARD-3")
def test_a_trump_lead_must_be_followed_with_a_joker_if_it_is_the_only_trump() -> None:
    """A trump led: East's only trump is LITTLE, so East must play it, and it beats the ace."""
    hands = {N: "AH 2C 3C", E: "LITTLE 2S 3S", S: "4C 4S 4D", W: "5C 5S 5D"}
    state = deal_hands(new_match(Rules(schedule=[3], first_dealer=W), seed=0), hands, turned="2H")
    state = play_cards(bid_round(state, {N: "board", E: "pass", S: "pass", W: "pass"}), "AH")
    assert legal_actions(state) == (Play(E, Card.LITTLE),)
    state = play_cards(state, "LITTLE 4C 5C")
    assert state.completed_tricks[-1].winner is E


@pytest.mark.rule("PLAY-7", "CARD-2")
@pytest.mark.parametrize(
    ("trump", "east", "winner"),
    [("2H", "2S", W), ("2H", "3H", E), ("LITTLE", "3H", W)],
    ids=["off-suit-loses", "trump-wins", "no-trumps-off-suit-loses"],
)
def test_highest_trump_else_highest_card_of_the_led_suit_wins(
    trump: str, east: str, winner: Seat
) -> None:
    """North leads 10♣: the highest trump wins, else the highest club, never an off-suit ace."""
    hands = {N: ["10C", "2D"], E: [east, "AD"], S: ["4C", "3D"], W: ["KC", "4D"]}
    state = deal_hands(
        new_match(Rules(schedule=[2], first_dealer=W), seed=0), hands, turned=trump, then=["AS"]
    )
    state = bid_round(state, {N: 1, E: "pass", S: "pass", W: "pass"})
    state = play_cards(state, ["10C", east, "4C", "KC"])
    assert state.completed_tricks[-1].winner is winner
    # The winner leads the next trick.
    assert state.to_move is winner


# --- bad input ---------------------------------------------------------------------------


@pytest.mark.rule("ENGINE-3", "SCOPE-1")
@pytest.mark.parametrize("action", ["N 2", None, {"seat": "N", "amount": 2}, 3, Card.SA])
def test_apply_refuses_what_is_not_an_action(action: object) -> None:
    """Something that is not a Bid, Play or Deal is a TypeError naming what was expected."""
    state = dealt()
    before = copy.deepcopy(state)
    with pytest.raises(TypeError, match="Bid, Play or Deal"):
        apply(state, action)  # type: ignore[arg-type]
    assert state == before


@pytest.mark.rule("ENGINE-3")
@pytest.mark.parametrize("state", [None, "state", {}, Rules()])
def test_apply_refuses_what_is_not_a_state(state: object) -> None:
    """``apply`` on something that is not a MatchState is a TypeError naming MatchState."""
    with pytest.raises(TypeError, match="MatchState"):
        apply(state, Bid(N))  # type: ignore[arg-type]


@pytest.mark.rule("CARD-1", "ENGINE-5")
@pytest.mark.parametrize(
    ("deck", "error", "words"),
    [
        (list(Card)[:53], ValueError, "54 cards; this one has 53"),
        ([*Card, Card.SA], ValueError, "54 cards; this one has 55"),
        ([Card.SA, *list(Card)[1:]], ValueError, "AS twice"),
        ([card.code for card in Card], TypeError, "must be a Card"),
        ([None] * 54, TypeError, "must be a Card"),
        ([*list(Card)[:53], 54], TypeError, "must be a Card"),
        ([*list(Card)[:53], True], TypeError, "must be a Card"),
        (" ".join(card.code for card in Card), TypeError, "sequence of 54 cards"),
        (42, TypeError, "sequence of 54 cards"),
    ],
    ids=[
        "53-cards",
        "55-cards",
        "duplicate",
        "codes",
        "nones",
        "number-54",
        "bool",
        "string",
        "int",
    ],
)
def test_deal_refuses_a_bad_deck(deck: object, error: type[Exception], words: str) -> None:
    """A deck that is not the 54 cards once each is refused when the Deal is built, saying why."""
    with pytest.raises(error, match=words):
        Deal(deck)  # type: ignore[arg-type]


@pytest.mark.rule("SCHED-4", "MATCH-1")
@pytest.mark.parametrize(
    ("settings", "error", "words"),
    [
        ({"schedule": [0]}, ValueError, "hand sizes run from 1 to 13"),
        ({"schedule": [14]}, ValueError, "hand sizes run from 1 to 13"),
        ({"schedule": [3, 14, 2]}, ValueError, "hand size 14 is impossible"),
        ({"schedule": []}, ValueError, "at least one deal"),
        ({"schedule": "long"}, ValueError, "unknown schedule 'long'"),
        ({"schedule": [2.5]}, TypeError, "whole number"),
        ({"schedule": [True]}, TypeError, "whole number"),
        ({"schedule": 7}, TypeError, "name or a list of hand sizes"),
        ({"tie": "coin-toss"}, ValueError, "unknown tie policy 'coin-toss'"),
        ({"first_dealer": 4}, TypeError, "a seat must be a Seat"),
        ({"first_dealer": "middle"}, ValueError, "unknown seat"),
    ],
)
def test_rules_refuse_bad_settings(
    settings: dict[str, object], error: type[Exception], words: str
) -> None:
    """Impossible settings are refused with a message naming the setting and what is allowed."""
    with pytest.raises(error, match=words):
        Rules(**settings)  # type: ignore[arg-type]


@pytest.mark.rule("SCHED-4")
def test_rules_accept_any_schedule_of_sizes_one_to_thirteen() -> None:
    """A custom schedule of sizes 1 to 13 is kept as given, in order, repeats allowed."""
    assert Rules(schedule=[2, 1]).schedule == (2, 1)
    assert Rules(schedule=(13, 13, 1)).schedule == (13, 13, 1)
    assert Rules(schedule=[5]).schedule_name is None
    assert Rules(schedule=" Short ").schedule_name == "short"


@pytest.mark.rule("ENGINE-5")
@pytest.mark.parametrize("seed", [-1, 2**64, "1", 1.5, True, [1]])
def test_new_match_refuses_a_bad_seed(seed: object) -> None:
    """A seed outside 0 to 2**64 - 1, or not a whole number, is refused with the allowed range."""
    with pytest.raises(
        (TypeError, ValueError), match=r"seed is a whole number from 0 to 2\*\*64 - 1"
    ):
        new_match(Rules(), seed=seed)  # type: ignore[arg-type]


@pytest.mark.rule("ENGINE-5")
def test_new_match_refuses_rules_that_are_not_rules() -> None:
    """``new_match`` wants a Rules value, and says so."""
    with pytest.raises(TypeError, match=r"backalley\.Rules"):
        new_match("standard", seed=1)  # type: ignore[arg-type]


@pytest.mark.rule("ENGINE-5")
def test_new_match_without_a_seed_draws_one_and_keeps_it() -> None:
    """Without a seed a random one is drawn, kept in the state, and replays the same deals."""
    state = new_match(Rules(schedule="short"))
    assert 0 <= state.seed < 2**64
    assert seeded_deal(state) == seeded_deal(new_match(Rules(schedule="short"), seed=state.seed))


@pytest.mark.rule("ENGINE-3", "SCOPE-1")
@pytest.mark.parametrize(
    ("build", "error", "words"),
    [
        (lambda: Bid(N, "2"), TypeError, "whole number of tricks"),
        (lambda: Bid(N, 2.0), TypeError, "whole number of tricks"),
        (lambda: Bid(N, 2, board=True), ValueError, "Board bid has no number"),
        (lambda: Bid(N, board="yes"), TypeError, "board"),
        (lambda: Bid("Q", 2), ValueError, "unknown seat"),
        (lambda: Bid(None, 2), TypeError, "a seat must be a Seat"),
        (lambda: Play(N, "AS"), TypeError, "Card.parse"),
        (lambda: Play(7, Card.SA), TypeError, "a seat must be a Seat"),
        (lambda: Play(N, 54), TypeError, "a card must be a Card"),
    ],
    ids=[
        "amount-str",
        "amount-float",
        "board-and-number",
        "board-str",
        "seat-unknown-letter",
        "seat-none",
        "card-str",
        "seat-7",
        "card-54",
    ],
)
def test_actions_refuse_bad_fields(
    build: Callable[[], object], error: type[Exception], words: str
) -> None:
    """A Bid or Play with a field of the wrong kind is refused when built, saying what fits."""
    with pytest.raises(error, match=words):
        build()


# --- the table and the deal, without the deck helper ------------------------------------


@pytest.mark.rule("DEAL-1", "DEAL-2", "TABLE-1", "BID-1")
def test_cards_are_dealt_one_at_a_time_clockwise_from_left_of_the_dealer() -> None:
    """North deals two each from AS KS QS JS 10S 9S 8S 7S 6S: East gets AS 10S, and so on."""
    top = cards("AS KS QS JS 10S 9S 8S 7S 6S")
    state = new_match(Rules(schedule=[2], first_dealer=N), seed=0)
    state = apply(state, Deal([*top, *(card for card in Card if card not in top)]))
    assert state.hand(E) == cards("10S AS")
    assert state.hand(S) == cards("9S KS")
    assert state.hand(W) == cards("8S QS")
    assert state.hand(N) == cards("7S JS")
    assert state.trump is Card.S6.suit
    assert state.to_move is E


@pytest.mark.rule("TABLE-1", "TABLE-2", "PLAY-1", "PLAY-8")
def test_play_goes_clockwise_and_partners_share_their_tricks() -> None:
    """Seats play clockwise from the leader; a trick won by South counts for North-South."""
    hands = {N: "2C 3D", E: "3C 4D", S: "AC 5D", W: "4C 6D"}
    state = deal_hands(new_match(Rules(schedule=[2], first_dealer=W), seed=0), hands, turned="2H")
    state = bid_round(state, {N: 1, E: "pass", S: "pass", W: "pass"})
    state = play_cards(state, "2C 3C AC 4C")
    (trick,) = state.completed_tricks
    assert [seat for seat, _ in trick.plays] == [N, E, S, W]
    assert trick.winner is S
    assert state.tricks_won == (1, 0)
    assert S.partner is N and S.pair is N.pair is Pair.NORTH_SOUTH
    assert E.pair is W.pair is Pair.EAST_WEST
    assert [seat.left for seat in Seat] == [E, S, W, N]


@pytest.mark.rule("ENGINE-3")
def test_friendly_spellings_and_unordered_input() -> None:
    """Seats may be written as letters; a set or bytes is refused where an order is needed."""
    assert Bid("n", 2) == Bid(N, 2)
    assert Rules(first_dealer="W").first_dealer is W
    with pytest.raises(TypeError, match="in order"):
        Deal(set(Card))
    with pytest.raises(TypeError, match="in order"):
        Rules(schedule=b"\x01\x02")
    with pytest.raises(TypeError, match="tie policy"):
        Rules(tie=None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="seed"):
        new_match(Rules(), seed="1")  # type: ignore[arg-type]


@pytest.mark.rule("ENGINE-3")
@pytest.mark.parametrize("not_a_state", ["standard", None, 3, {"phase": "bid"}])
def test_legal_actions_refuses_what_is_not_a_state(not_a_state: object) -> None:
    """``legal_actions`` of something that is not a match state is a clear TypeError."""
    with pytest.raises(TypeError, match="legal_actions needs a MatchState"):
        legal_actions(not_a_state)  # type: ignore[arg-type]


SENTENCES: dict[str, str] = {
    "bid out of turn": "It is North's turn, not East's.",
    "bid during play": "Not now: the cards are being played.",
    "play during bidding": "Not now: the players are bidding.",
    "play before the deal": "Not now: the next deal has to be dealt first.",
    "deal after the end": "The match is over: no more actions.",
    "card not held": "You do not hold the king of spades (KS).",
    "bid of 14": "With 5 cards you may bid Pass, 1 to 4, or Board, not 14.",
    "number on one card": "With one card you may bid Pass or Board, not 1.",
    "revoke": "You must follow suit: clubs were led and you hold one.",
    "no trump on a trump lead": "A trump was led: you must follow with a trump or a joker.",
    "joker lead unbroken": (
        "Trumps are not broken: you may not lead a trump (or a joker) until one has been "
        "played to an earlier trick."
    ),
    "plain card under BIG": (
        "The BIG joker was led: you must play your highest trump, the five of hearts."
    ),
    "high trump under LITTLE": (
        "The LITTLE joker was led: you must play your lowest trump, the three of hearts."
    ),
}


@pytest.mark.rule("ENGINE-3", "PLAY-2", "JOKER-1", "JOKER-2")
@pytest.mark.parametrize(("name", "sentence"), SENTENCES.items(), ids=SENTENCES.keys())
def test_refusals_say_what_is_wrong_in_words(name: str, sentence: str) -> None:
    """The sentence names whose turn it is, the led suit, the card a joker forces, the range."""
    build, action, _ = REFUSALS[name]
    with pytest.raises(IllegalAction) as caught:
        apply(build(), action)  # type: ignore[arg-type]
    assert caught.value.message == sentence


# --- when trumps are broken, wherever the trump falls in the trick -------------------


def _trick_with_a_trump_at(position: int | None) -> MatchState:
    """North leads a spade (or, at position 0, a Board bid and the ace of hearts); the seat
    ``position`` places after North holds no spade and ruffs with the ace of hearts (the top
    plain trump, so a bit mistaken for its neighbour's would not be a trump); None: no ruff."""
    spades = {E: "KS 5C", S: "QS 6C", W: "JS 7C"}
    hands = {N: "AH 2C" if position == 0 else "AS 2C", **spades}
    if position:
        hands[N.after(position)] = "AH 4C"
    state = new_match(Rules(schedule=[2], first_dealer=W), seed=0)
    state = deal_hands(state, hands, turned="2H")
    state = bid_round(state, {N: "board" if position == 0 else 1, E: 0, S: 0, W: 0})
    led = "AH" if position == 0 else "AS"
    followers = [("AH" if position == k else spades[N.after(k)].split()[0]) for k in (1, 2, 3)]
    return play_cards(state, [led, *followers])


@pytest.mark.rule("PLAY-4")
@pytest.mark.parametrize("position", [0, 1, 2, 3])
def test_a_trump_anywhere_in_a_completed_trick_breaks_trumps(position: int) -> None:
    """Trumps are broken by a trump played to an earlier trick, whichever card of it it was."""
    state = _trick_with_a_trump_at(position)
    assert len(state.completed_tricks) == 1
    assert state.deal is not None and state.deal.broken


@pytest.mark.rule("PLAY-4")
def test_a_trick_without_a_trump_leaves_trumps_unbroken() -> None:
    """A trick of plain cards only does not break trumps."""
    state = _trick_with_a_trump_at(None)
    assert state.deal is not None and not state.deal.broken


# --- small promises of the API that the mutation run asked for ----------------------


@pytest.mark.rule("ENGINE-5", "SCHED-1")
def test_new_match_defaults_to_the_standard_rules_and_keeps_its_seed() -> None:
    """Without rules a match is standard; its seed is still there after the end."""
    assert new_match(seed=4).rules == Rules()
    final = over()
    assert final.is_over
    assert final.seed == 5
    assert final.counted_deals == 1


@pytest.mark.rule("ENGINE-3")
def test_type_errors_name_what_was_given() -> None:
    """A TypeError says which type it got, so a caller can find the mistake."""
    with pytest.raises(TypeError, match="not str"):
        new_match("standard", seed=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="legal_actions needs a MatchState, not str"):
        legal_actions("state")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="apply needs a MatchState, not str"):
        apply("state", Deal(list(Card)))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="apply needs a MatchState, not dict"):
        apply({}, Bid(N))  # type: ignore[arg-type]


@pytest.mark.rule("BID-2")
def test_the_range_sentence_on_two_cards() -> None:
    """With two cards the only number is 1, and the sentence says so."""
    state = new_match(Rules(schedule=[2]), seed=1)
    state = apply(state, seeded_deal(state))
    with pytest.raises(IllegalAction) as caught:
        apply(state, Bid(state.to_move, 2))  # type: ignore[arg-type]
    assert caught.value.message == "With 2 cards you may bid Pass, 1, or Board, not 2."


@pytest.mark.rule("BID-1", "ENGINE-6")
def test_bidding_states_hold_an_empty_trick_and_unbroken_trumps() -> None:
    """While bidding there is no trick and trumps are not broken, bid after bid."""
    state = dealt()
    for call in (2, 0, 0, 0):
        assert state.deal is not None
        assert state.deal.trick == ()
        assert state.deal.broken is False
        state = apply(state, Bid(state.to_move, call))  # type: ignore[arg-type]
    assert state.deal is not None and state.deal.broken is False and state.deal.trick == ()


@pytest.mark.rule("CARD-1")
def test_a_deck_of_card_numbers_becomes_cards() -> None:
    """A deck given as card numbers is kept as Card members, in the order given."""
    deal = Deal(list(range(54)))
    assert all(type(card) is Card for card in deal.deck)
    assert deal.deck == tuple(Card)


@settings(max_examples=60, deadline=None)
@given(
    rules=rule_sets(),
    seed=st.integers(0, 2**64 - 1),
    walk=st.integers(0, 2**32 - 1),
    stop=st.floats(0, 1),
)
def test_replay_deal_reaches_what_apply_reaches_at_every_stopping_point(
    rules: Rules, seed: int, walk: int, stop: float
) -> None:
    """``replay_deal`` of a deal's first k actions is the state ``apply`` reaches after
    them, for every deal of random matches (throw-ins and tiebreak deals included);
    an action it does not accept is one that ``apply`` refuses there."""
    rng = random.Random(walk)
    state = new_match(rules, seed=seed)
    while playing(state):
        start = apply(state, seeded_deal(state))
        reached = [start]
        # Pass more often than at random, so that throw-ins happen.
        while reached[-1].deal is not None:
            legal = legal_actions(reached[-1])
            action = legal[0] if rng.random() < 0.4 else rng.choice(legal)
            reached.append(apply(reached[-1], action))
        actions = _deal_actions(start, reached[-1])
        k = int(stop * len(actions))
        calls = [bid_code(a) for a in actions[:k] if isinstance(a, Bid)]
        plays = [a.card for a in actions[:k] if isinstance(a, Play)]
        assert replay_deal(start, calls, plays) == (reached[k], k)
        # From any point of the deal on, too (a trick begun, the bidding under way).
        j = int(stop * k)
        rest = actions[j:k]
        later = (
            [bid_code(a) for a in rest if isinstance(a, Bid)],
            [a.card for a in rest if isinstance(a, Play)],
        )
        assert replay_deal(reached[j], *later) == (reached[k], k - j)
        if k < len(actions):
            # One wrong card or call in its place: refused, and by apply as well.
            wrong_calls = [*calls, 99] if isinstance(actions[k], Bid) else calls
            wrong_plays = (
                plays if isinstance(actions[k], Bid) else [*plays, _not_allowed(reached[k])]
            )
            got, done = replay_deal(start, wrong_calls, wrong_plays)
            assert (got, done) == (reached[k], k)
            with pytest.raises(IllegalAction):
                if isinstance(actions[k], Bid):
                    apply(got, Bid(got.to_move, 99))
                else:
                    apply(got, Play(got.to_move, Card(wrong_plays[-1])))
        state = reached[-1]


def _deal_actions(start: MatchState, end: MatchState) -> list[Bid | Play]:
    """The bids and cards played from ``start`` (just dealt) to ``end``, in order."""
    deal = end.deal if end.deal is not None else end.history[-1].deal
    plays = [Play(seat, card) for trick in deal.tricks for seat, card in trick.plays]
    if deal.current_trick is not None:
        plays += [Play(seat, card) for seat, card in deal.current_trick.plays]
    return [*deal.bids, *plays]


def _not_allowed(state: MatchState) -> int:
    """A card the player to move may not play: another's card, or one the rules forbid."""
    allowed = {action.card for action in legal_actions(state)}
    return next(card for card in Card if card not in allowed)
