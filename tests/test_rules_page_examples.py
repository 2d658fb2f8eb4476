"""The examples of docs/rules.md, each played through the public API.

Every rule whose entry on the rules page has an *Example* has a test here, or,
where the example is a source's worked example, in ``test_seed_examples.py``
(``EXAMPLE_TESTS``): a test below checks that no example of the page is left
without one, so an example that cannot happen (as PLAY-4's once did) fails.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from backalley import (
    Bid,
    Card,
    Contract,
    Play,
    Rules,
    Seat,
    Suit,
    apply,
    legal_actions,
    new_match,
    score,
)
from backalley.core.bidding import contracts
from helpers import bid_round, deal_hands, play_cards

N, E, S, W = Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.WEST
ROOT = Path(__file__).resolve().parent.parent
RULES_PAGE = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")

EXAMPLE_TESTS = {
    "BID-4": "test_seed_examples.py::test_first_second_third_board_multipliers_on_five_cards",
    "BID-5": "test_seed_examples.py::test_first_second_third_board_multipliers_on_five_cards",
    "JOKER-1": "test_seed_examples.py::test_big_led_forces_king_of_hearts_little_led_forces_five",
    "JOKER-2": (
        "test_seed_examples.py::test_little_led_east_holds_only_big_must_play_it_and_big_wins"
    ),
    "SCORE-2": "test_seed_examples.py::test_two_plus_one_on_five_cards_scores_16_or_minus_15",
    "SCORE-4": "test_seed_examples.py::test_first_second_third_board_multipliers_on_five_cards",
}
"""The page's examples that are a source's worked example, tested with the seeds' examples."""


def _examples_on_the_page() -> set[str]:
    found = set()
    for block in re.split(r"^### ", RULES_PAGE, flags=re.M)[1:]:
        if "*Example" in block:
            found.add(block.split(" ", 1)[0])
    return found


def test_every_example_of_the_rules_page_is_tested() -> None:
    """The rules with an example are exactly those tested here or named in EXAMPLE_TESTS,
    and each test named there exists."""
    here = Path(__file__).read_text(encoding="utf-8")
    tested = set(re.findall(r'^@pytest\.mark\.rule\("([A-Z]+-\d+)"', here, re.M))
    assert _examples_on_the_page() == tested | set(EXAMPLE_TESTS)
    for name in EXAMPLE_TESTS.values():
        module, test = name.split("::")
        assert f"def {test}(" in (ROOT / "tests" / module).read_text(encoding="utf-8"), name


def _match(sizes: list[int], dealer: Seat) -> object:
    return new_match(Rules(schedule=sizes, tie="draw", first_dealer=dealer), seed=0)


@pytest.mark.rule("TABLE-1")
def test_left_of_west_is_north() -> None:
    """TABLE-1: "left of the dealer West is North": North bids first when West deals."""
    state = deal_hands(_match([1], W), {N: ["2C"], E: ["3C"], S: ["4C"], W: ["5C"]}, turned="6C")
    assert state.to_move is N


@pytest.mark.rule("CARD-3")
def test_big_beats_little_beats_the_ace_and_the_two_of_trumps_beats_a_plain_ace() -> None:
    """CARD-3: hearts trumps; BIG beats LITTLE, LITTLE the ace of hearts, the 2 of hearts
    the ace of spades (each played to a one-card trick, led by North)."""
    for high, low in [("BIG", "LITTLE"), ("LITTLE", "AH"), ("2H", "AS")]:
        hands = {N: [low], E: ["3C"], S: [high], W: ["4C"]}
        state = deal_hands(_match([1], W), hands, turned="5H")
        state = bid_round(state, {N: "board", E: "pass", S: "pass", W: "pass"})
        state = play_cards(state, [low, "3C", high, "4C"])
        assert state.history[-1].deal.tricks[0].winner is S, (high, low)


@pytest.mark.rule("DEAL-2")
def test_with_five_cards_the_21st_card_is_turned() -> None:
    """DEAL-2: with 5 cards each, 20 are dealt and the 21st (position 20) is turned."""
    state = new_match(Rules(schedule=[5]), seed=3)
    deal = legal_actions(state)[0]
    dealt = apply(state, deal)
    assert dealt.deal is not None
    assert dealt.deal.setup.turned is deal.deck[20]  # type: ignore[union-attr]


@pytest.mark.rule("DEAL-4")
def test_north_gives_up_big_for_the_sixth_card() -> None:
    """DEAL-4: 1 card each, LITTLE turned (position 4), North holds BIG: North gives up BIG
    and takes position 5."""
    state = deal_hands(
        _match([1], W), {N: ["BIG"], E: ["2C"], S: ["3C"], W: ["4C"]}, turned="LITTLE", then=["AS"]
    )
    assert state.deal is not None
    assert state.deal.hand(N) == (Card.parse("AS"),)
    swap = state.deal.setup.swap
    assert swap is not None and swap.seat is N and swap.joker is Card.BIG


@pytest.mark.rule("BID-2")
def test_with_five_cards_pass_one_to_four_or_board() -> None:
    """BID-2: with 5 cards: Pass, 1, 2, 3, 4 or Board."""
    state = new_match(Rules(schedule=[5]), seed=1)
    state = apply(state, legal_actions(state)[0])
    calls = [action.call for action in legal_actions(state)]  # type: ignore[union-attr]
    assert calls == ["pass", "1", "2", "3", "4", "board"]


@pytest.mark.rule("BID-6")
def test_north_two_and_south_one_make_a_target_of_three() -> None:
    """BID-6: North bids 2 and South 1: North-South's target is 3."""
    ns, _ = contracts((Bid(N, 2), Bid(E, 0), Bid(S, 1), Bid(W, 0)))
    assert ns == Contract(3)


@pytest.mark.rule("BID-7")
def test_two_and_two_on_three_cards_is_a_target_of_four_warned() -> None:
    """BID-7: 3 cards each, North bids 2 and South 2: target 4, accepted with a warning."""
    state = new_match(Rules(schedule=[3], first_dealer=W), seed=2)
    state = apply(state, legal_actions(state)[0])
    state = bid_round(state, {N: 2, E: "pass", S: 2, W: "pass"})
    assert state.deal is not None
    assert state.deal.contracts is not None and state.deal.contracts[0] == Contract(4)
    assert state.deal.warnings


@pytest.mark.rule("BID-8")
def test_the_earlier_of_two_threes_leads() -> None:
    """BID-8: West deals; North bids 2, East 3, South 3, West Pass: East leads."""
    state = new_match(Rules(schedule=[5], first_dealer=W), seed=4)
    state = apply(state, legal_actions(state)[0])
    state = bid_round(state, {N: 2, E: 3, S: 3, W: "pass"})
    assert state.to_move is E


@pytest.mark.rule("PLAY-3")
def test_a_lone_little_must_follow_a_trump_lead() -> None:
    """PLAY-3: spades trumps, the 4 of spades led; a player holding only LITTLE among its
    trumps must play LITTLE."""
    hands = {E: ["4S", "2C"], S: ["LITTLE", "3C"], W: ["5C", "6C"], N: ["7C", "8C"]}
    state = deal_hands(_match([2], N), hands, turned="9S")
    # East bids Board, so that it may lead a trump to the first trick (PLAY-5).
    state = bid_round(state, {E: "board", S: "pass", W: "pass", N: "pass"})
    state = play_cards(state, ["4S"])
    assert legal_actions(state) == (Play(S, Card.LITTLE),)


@pytest.mark.rule("PLAY-4")
def test_a_trump_by_anybody_breaks_trumps_for_everyone() -> None:
    """PLAY-4: spades trumps. East leads a heart, West (no heart) trumps it and wins; West
    leads a club and North wins it with the ace; North, who has played no trump and holds
    a diamond too, may lead a trump."""
    hands = {
        E: ["5H", "2C", "3D", "6D"],
        S: ["6H", "4C", "4D", "7D"],
        W: ["2S", "5C", "5D", "8D"],
        N: ["7H", "AC", "8S", "9D"],
    }
    state = deal_hands(_match([4], N), hands, turned="3S")
    state = bid_round(state, {E: 1, S: "pass", W: "pass", N: "pass"})
    state = play_cards(state, ["5H", "6H", "2S", "7H"])
    assert state.to_move is W
    state = play_cards(state, ["5C", "AC", "2C", "4C"])
    assert state.to_move is N
    assert Play(N, Card.parse("8S")) in legal_actions(state)
    assert state.trump is Suit.SPADES


@pytest.mark.rule("PLAY-7")
def test_a_low_trump_wins_a_trick_of_spades() -> None:
    """PLAY-7: hearts trumps, spades led: A♠ K♠ 2♥ Q♠ is won by the 2♥."""
    hands = {E: ["AS"], S: ["KS"], W: ["2H"], N: ["QS"]}
    state = deal_hands(_match([1], N), hands, turned="5H")
    state = bid_round(state, {E: "board", S: "pass", W: "pass", N: "pass"})
    state = play_cards(state, ["AS", "KS", "2H", "QS"])
    assert state.history[-1].deal.tricks[0].winner is W


@pytest.mark.rule("JOKER-4")
def test_a_joker_played_after_the_lead_forces_nothing() -> None:
    """JOKER-4: spades trumps, the 4 of spades led, East plays BIG: South follows with any
    spade, not the highest."""
    hands = {N: ["4S", "2C"], E: ["BIG", "3C"], S: ["5S", "KS"], W: ["4C", "5C"]}
    state = deal_hands(_match([2], W), hands, turned="9S")
    state = bid_round(state, {N: "board", E: "pass", S: "pass", W: "pass"})
    state = play_cards(state, ["4S", "BIG"])
    assert set(legal_actions(state)) == {Play(S, Card.parse("5S")), Play(S, Card.parse("KS"))}


def test_the_scoring_examples_hold() -> None:
    """SCORE-2 and SCORE-4's figures, from the scoring function (the deals are in
    test_seed_examples.py): target 3 on 5 cards scores 16 or -15; a x3 Board 150 or -150."""
    assert score(Contract(3), hand_size=5, tricks=4) == 16
    assert score(Contract(3), hand_size=5, tricks=2) == -15
    assert score(Contract(0, 3), hand_size=5, tricks=5) == 150
    assert score(Contract(0, 3), hand_size=5, tricks=4) == -150
