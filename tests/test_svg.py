"""Tests for backalley.pictures.svg: well-formed pictures that say in words what they show."""

import random
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backalley import Card, Rules, Seat, Suit, apply, legal_actions, new_match
from backalley.engine.bounds import playing
from backalley.engine.examples import (
    bid,
    big_joker_lead,
    deal_from,
    little_joker_beaten,
    little_joker_lead,
    play,
    sixteen_points,
    triple_board,
)
from backalley.engine.state import MatchState
from backalley.pictures.svg import (
    Picture,
    deal_svg,
    hand_svg,
    score_sheet_svg,
    show_hand,
    state_svg,
    table_svg,
    trick_svg,
)

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    """The SVG's root element; fails the test if the text is not well-formed XML."""
    root = ET.fromstring(svg)
    assert root.tag == SVG + "svg"
    return root


def words(svg: str) -> str:
    """Every piece of text and every title in the picture, joined: what a reader is told."""
    root = parse(svg)
    return " ".join(text for element in root.iter() for text in [element.text] if text)


def visible(svg: str) -> str:
    """The text drawn in the picture (not the titles)."""
    return " ".join(element.text or "" for element in parse(svg).iter(SVG + "text"))


def titles(svg: str) -> list[str]:
    """The card titles of the picture (each card's description in words)."""
    return [element.text or "" for element in parse(svg).iter(SVG + "title")][1:]


def random_match(seed: int, schedule: object = "short", stop: int | None = None) -> MatchState:
    """A match of random legal moves, to its end or to ``stop`` actions."""
    chooser = random.Random(seed)
    state = new_match(Rules(schedule=schedule), seed=seed)
    steps = 0
    while playing(state) and (stop is None or steps < stop):
        state = apply(state, chooser.choice(legal_actions(state)))
        steps += 1
    return state


class TestHand:
    def test_every_card_is_described_in_words(self):
        """Each card of a hand has a title naming it, trumps as trumps."""
        svg = hand_svg([Card.H5, Card.HK, Card.S9, Card.C2], Suit.HEARTS)
        assert sorted(titles(svg)) == sorted(
            [
                "the five of hearts, a trump",
                "the king of hearts, a trump",
                "the nine of spades",
                "the two of clubs",
            ]
        )

    def test_suits_are_named_and_trumps_tagged(self):
        """The picture names each suit held and tags each trump with the word "trump"."""
        text = words(hand_svg([Card.H5, Card.HK, Card.S9, Card.C2], Suit.HEARTS))
        for word in ("spades", "hearts", "clubs"):
            assert word in text
        assert "diamonds" not in text.replace("hearts are trumps", "")
        assert text.count("trump") >= 2

    def test_jokers_are_named_in_words(self):
        """A joker is typeset with its name and the word joker, not only a colour."""
        text = words(hand_svg([Card.BIG, Card.LITTLE, Card.S2], Suit.SPADES))
        assert "BIG" in text and "LITTLE" in text
        assert text.count("joker") >= 2
        assert "the BIG joker, a trump" in titles(hand_svg([Card.BIG], Suit.SPADES))

    def test_playable_cards_are_listed(self):
        """With playable cards, the picture lists them in words under the hand."""
        svg = hand_svg([Card.H5, Card.HK, Card.S9], Suit.HEARTS, playable=[Card.HK])
        assert "may play: K♥" in words(svg)

    def test_playable_cards_are_ringed_and_others_dimmed(self):
        """Exactly the playable cards get the thick ring; the others are drawn faint."""
        svg = hand_svg([Card.H5, Card.HK, Card.S9], Suit.HEARTS, playable=[Card.HK, Card.S9])
        root = parse(svg)
        dimmed = [g for g in root.iter(SVG + "g") if g.get("opacity")]
        ringed = [
            g
            for g in root.iter(SVG + "g")
            if any(rect.get("stroke-width") == "3" for rect in g.findall(SVG + "rect"))
        ]
        assert len(dimmed) == 1 and len(ringed) == 2
        assert dimmed[0].find(SVG + "title").text == "the five of hearts, a trump"

    def test_text_is_escaped(self):
        """A label with markup characters still gives well-formed XML that shows them."""
        svg = hand_svg([Card.SA], None, label='Ann & <Bob> "quoted"')
        assert 'Ann & <Bob> "quoted"' in words(svg)

    def test_empty_hand(self):
        """An empty hand is drawn and says so."""
        assert "no cards" in words(hand_svg([], Suit.CLUBS))

    def test_picture_shows_in_jupyter(self):
        """show_hand gives a Picture whose SVG Jupyter displays and str() returns."""
        picture = show_hand([Card.DA], Suit.CLUBS)
        assert isinstance(picture, Picture)
        assert picture._repr_svg_() == str(picture) == hand_svg([Card.DA], Suit.CLUBS)

    def test_picture_saves(self, tmp_path):
        """Picture.save writes the SVG text to a file."""
        path = tmp_path / "hand.svg"
        show_hand([Card.DA]).save(str(path))
        assert path.read_text(encoding="utf-8") == hand_svg([Card.DA])

    @given(st.sets(st.sampled_from(list(Card)), max_size=13), st.sampled_from([None, *Suit]))
    @settings(max_examples=40)
    def test_any_hand_is_well_formed_and_complete(self, cards, trump):
        """Any hand draws as well-formed SVG with one titled card per card held."""
        svg = hand_svg(cards, trump)
        assert len(titles(svg)) == len(cards)


class TestTrick:
    def test_completed_trick_names_leader_and_winner(self):
        """LITTLE led and beaten by BIG: the picture says who led and that East wins."""
        state = little_joker_beaten(complete=True)
        svg = trick_svg(state.completed_tricks[0], state.trump)
        text = words(svg)
        assert "North, led" in text and "East, wins" in text
        assert "spades are trumps" in text.lower()
        assert "the BIG joker, a trump" in titles(svg)

    def test_trick_in_progress_shows_who_plays_next(self):
        """A trick with one card shows the empty places and the seat to play."""
        state = big_joker_lead()
        text = words(trick_svg(state.current_trick, state.trump))
        assert "to play" in text and "West, led" in text and "wins" not in text


class TestTable:
    def test_player_to_move_has_playable_cards_listed(self):
        """BIG led with hearts trumps: North, to play, may play only the king of hearts."""
        text = words(state_svg(big_joker_lead()))
        assert "North · bid 1 · to play" in text
        assert "may play: K♥" in text

    def test_little_joker_lead(self):
        """LITTLE led: North may play only the five of hearts."""
        assert "may play: 5♥" in words(state_svg(little_joker_lead()))

    def test_east_must_play_big(self):
        """LITTLE led with spades trumps: East's only playable card is BIG."""
        text = words(state_svg(little_joker_beaten()))
        assert "may play: BIG" in text and "East · passed · to play" in text

    def test_bidding_in_progress(self):
        """During the bidding the table lists the bids so far and who bids next."""
        state = random_match(3, schedule=[4], stop=2)
        text = words(state_svg(state))
        assert state.phase.value == "bid"
        assert f"{state.to_move.name.title()} · no bid yet · to bid" in text
        assert "Bidding:" in text

    def test_deal_state_shows_itself(self):
        """DealState._repr_svg_ draws the table while the deal is in play."""
        state = big_joker_lead()
        assert state.deal._repr_svg_() == table_svg(state.deal)

    @given(st.integers(0, 2**32), st.integers(0, 60))
    @settings(max_examples=25)
    def test_any_state_draws(self, seed, steps):
        """Any state reached by legal play draws as well-formed SVG naming the seat to move."""
        state = random_match(seed, schedule=[5, 3], stop=steps)
        svg = state._repr_svg_()
        assert svg == state_svg(state)
        text = words(svg)
        if state.to_move is not None:
            assert state.to_move.name.title() in text
            assert "to play" in text or "to bid" in text
        else:
            assert "Score sheet" in text


class TestDeal:
    def test_sixteen_point_deal(self):
        """The 16-point deal shows bids, targets, scores and every trick's winner."""
        state = sixteen_points()
        text = visible(deal_svg(state.history[-1]))
        assert "North · bid 2" in text and "South · bid 1" in text
        assert "North-South target 3, took 4: +16" in text
        assert "East-West passed (a point a trick), took 1: +1" in text
        assert "hearts are trumps" in text
        winners = [trick.winner for trick in state.history[-1].deal.tricks]
        assert text.count("wins") == len(winners)
        for number, winner in enumerate(winners, start=1):
            assert f"Trick {number}" in text
            assert f"{winner.name.title()} wins" in text

    def test_hands_as_dealt(self):
        """A finished deal shows all the cards dealt, though every card has been played."""
        result = sixteen_points().history[-1]
        svg = deal_svg(result)
        # 20 cards in the hands and 20 again in the tricks.
        assert len(titles(svg)) == 40
        assert titles(svg).count("the ace of spades") == 2

    def test_triple_board(self):
        """The triple Board shows the multipliers and the Board scores."""
        result = triple_board().history[-1]
        text = words(deal_svg(result))
        assert "West · bid Board ×1" in text
        assert "North · bid Board ×2" in text
        assert "South · bid Board ×3" in text
        assert "Board ×3 (all 5), took 5: +150" in text
        assert "Board ×1 (all 5), took 0: -50" in text

    def test_deal_state_shows_itself_when_complete(self):
        """A complete DealState draws as the whole finished deal."""
        result = sixteen_points().history[-1]
        assert result.deal._repr_svg_() == deal_svg(result) == deal_svg(result.deal)

    def test_deal_in_progress_is_drawn_as_the_table(self):
        """deal_svg of a deal still being played falls back to the table."""
        deal = big_joker_lead().deal
        assert deal_svg(deal) == table_svg(deal)

    def test_thrown_in_deal(self):
        """A deal all four passed says it was thrown in."""
        state = new_match(Rules(schedule=[2]), seed=1)
        state = apply(state, legal_actions(state)[0])
        for _ in range(4):
            state = apply(state, legal_actions(state)[0])
        result = state.history[-1]
        assert result.thrown_in
        assert "thrown in" in words(deal_svg(result))
        assert result.deal._repr_svg_() == deal_svg(result)
        assert "to bid" not in visible(deal_svg(result))

    def test_deal_being_bid_is_drawn_as_the_table(self):
        """deal_svg of a deal still in its bidding draws the table, with the next bidder."""
        state = new_match(Rules(schedule=[2]), seed=1)
        state = apply(state, legal_actions(state)[0])
        assert state.deal._repr_svg_() == deal_svg(state.deal) == table_svg(state.deal)
        assert "East · no bid yet · to bid" in visible(table_svg(state.deal))

    @pytest.mark.parametrize("seed", [1, 2, 3])
    def test_every_deal_of_a_match_draws(self, seed):
        """Every finished deal of a random match draws, naming its scores."""
        state = random_match(seed)
        for result in state.history:
            text = words(deal_svg(result))
            if result.counts:
                assert f"{result.scores[0]:+d}" in text and f"{result.scores[1]:+d}" in text


class TestScoreSheet:
    def test_rows_and_totals(self):
        """The score sheet has a row per deal with the scores and the final result."""
        state = random_match(2026)
        svg = score_sheet_svg(state)
        text = words(svg)
        ns, ew = state.totals
        assert f"North-South {ns}, East-West {ew}" in text
        counted = [result for result in state.history if result.counts]
        assert len(counted) == 14
        running = 0
        for result in counted:
            running += result.scores[0]
            assert str(running) in text
        assert state._repr_svg_() == svg

    def test_between_deals_the_state_is_the_score_sheet(self):
        """A match between deals (here after a thrown-in deal) shows its score sheet so far."""
        state = new_match(Rules(schedule=[2, 2]), seed=1)
        state = apply(state, legal_actions(state)[0])
        for _ in range(4):
            state = apply(state, legal_actions(state)[0])  # four passes
        assert state.deal is None and not state.is_over
        text = words(state._repr_svg_())
        assert "Totals so far: North-South 0, East-West 0" in text
        assert "thrown in" in text

    def test_draw(self):
        """Two one-card deals that leave the totals level: the sheet says it is a draw."""
        state = new_match(Rules(schedule=[1, 1]), seed=1)
        for leader in (Seat.EAST, Seat.SOUTH):
            others = iter(["2C", "3C", "4C"])
            hands = {seat: "BIG" if seat is leader else next(others) for seat in Seat}
            state = apply(state, deal_from(hands, turned="2S", dealer=state.dealer))
            state = bid(state, "board pass pass pass")
            state = play(state, " ".join(hands[leader.after(k)] for k in range(4)))
        assert state.outcome is not None and state.outcome.winner is None
        text = words(score_sheet_svg(state))
        assert "A draw, 10 all." in text
        assert "+10" in text


def test_the_score_sheet_names_clubs_as_trumps():
    """Clubs are suit 0: the sheet once wrote "none" for every deal with clubs trumps."""
    state = new_match(Rules(schedule=[7, 6]), seed=2026)
    state = apply(state, legal_actions(state)[0])
    assert state.trump is Suit.CLUBS
    for _ in range(100):  # two deals of Boards (never four passes): well under 100 actions
        if state.is_over:
            break
        state = apply(state, legal_actions(state)[-1])
    assert state.is_over
    sheet = score_sheet_svg(state)
    rows = [row for row in sheet.split("<text") if row.endswith("\u2663 clubs</text>\n")]
    clubs = [r for r in state.history if r.deal.setup.trump is Suit.CLUBS]
    assert len(rows) == len(clubs) == 2, "each deal with clubs trumps names them"
