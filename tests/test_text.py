"""Tests for backalley.pictures.text: terminal renderings of hands, tricks, deals and states."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from backalley import Card, Rules, Seat, Suit, Trick, apply, legal_actions, new_match
from backalley.core.cards import trump_words
from backalley.engine.examples import big_joker_lead, little_joker_beaten, sixteen_points
from backalley.pictures.text import deal_text, hand_text, state_text, trick_text


class TestTrumpWords:
    def test_trump_suit(self):
        """A trump suit is named in words."""
        assert trump_words(Suit.DIAMONDS) == "diamonds are trumps"

    def test_no_trumps(self):
        """No trump suit reads "no trumps"."""
        assert trump_words(None) == "no trumps"


class TestHandText:
    def test_the_hand_of_seed_001(self):
        """5♥ K♥ 9♠ 2♣ with hearts trumps: spades, trumps marked, clubs, high card first."""
        assert hand_text([Card.H5, Card.HK, Card.S9, Card.C2], Suit.HEARTS) == "♠ 9  *♥ K 5  ♣ 2"

    def test_jokers_come_last_by_name(self):
        """The jokers are written by name after the suits, BIG before LITTLE."""
        text = hand_text([Card.LITTLE, Card.S2, Card.BIG], Suit.SPADES)
        assert text == "*♠ 2  BIG  LITTLE"

    def test_no_trump_marks_without_trumps(self):
        """Without trumps no suit is marked."""
        assert "*" not in hand_text([Card.SA, Card.HA, Card.DA, Card.CA], None)

    def test_empty_hand(self):
        """An empty hand says so."""
        assert hand_text([]) == "(no cards)"

    @given(st.sets(st.sampled_from(list(Card)), max_size=13), st.sampled_from([None, *Suit]))
    @settings(max_examples=60)
    def test_every_card_appears_once(self, cards, trump):
        """Every card held is written once: its rank under its suit, or a joker's name."""
        text = hand_text(cards, trump)
        groups = text.split("  ")
        plain = [card for card in cards if not card.is_joker]
        ranks = [token for group in groups if group[-1].isalnum() for token in group.split()[1:]]
        assert len([group for group in groups if group in ("BIG", "LITTLE")]) == sum(
            card.is_joker for card in cards
        )
        if plain:
            assert len(ranks) == len(plain)
        for card in plain:
            group = next(g for g in groups if g.lstrip("*").startswith(card.suit.symbol))
            assert card.code[:-1] in group.split()[1:]
            assert group.startswith("*") == (card.suit is trump)


class TestTrickText:
    def test_trick_to_lead(self):
        """An empty trick names the seat to lead."""
        assert trick_text(Trick(Seat.WEST, ())) == "W to lead"

    def test_trick_in_progress(self):
        """A trick in progress lists seat and card, in play order."""
        assert trick_text(Trick(Seat.NORTH, (Card.LITTLE, Card.BIG))) == "N LITTLE  E BIG"

    def test_complete_trick_names_the_winner(self):
        """A complete trick ends with its winner."""
        trick = little_joker_beaten(complete=True).completed_tricks[0]
        assert trick_text(trick) == "N LITTLE  E BIG  S 5♠  W 8♠  -> E wins"


class TestDealText:
    def test_finished_deal(self):
        """A finished deal gives dealer, trump, bids, targets with tricks and the last trick."""
        deal = sixteen_points().history[-1].deal
        lines = deal_text(deal).splitlines()
        assert lines[0] == "Deal 1: 5 cards, dealer W, turned 3♥: hearts are trumps"
        assert lines[1] == "Bids: N 2, E pass, S 1, W pass"
        assert lines[2] == "Targets: NS 3 (won 4), EW 0 (won 1)"
        assert lines[3] == "Last trick: S K♥  W 7♦  N 7♥  E A♥  -> E wins"

    def test_thrown_in_deal(self):
        """A deal all four passed says it was thrown in rather than showing targets of 0."""
        state = new_match(Rules(schedule=[2]), seed=1)
        state = apply(state, legal_actions(state)[0])
        for _ in range(4):
            state = apply(state, legal_actions(state)[0])
        lines = deal_text(state.history[-1].deal, show_hands=False).splitlines()
        assert lines[1] == "Bids: E pass, S pass, W pass, N pass"
        assert lines[2] == "All four passed: thrown in, no score"
        assert not any(line.startswith("Targets") for line in lines)

    def test_hands_can_be_hidden(self):
        """show_hands=False leaves the hands out; by default each seat has a line."""
        deal = big_joker_lead().deal
        shown = deal_text(deal).splitlines()
        hidden = deal_text(deal, show_hands=False).splitlines()
        assert len(shown) == len(hidden) + 4
        assert "  N: ♠ 9  *♥ K 5  ♣ 2" in shown
        assert "This trick: W BIG" in hidden


class TestStateText:
    def test_player_to_move(self):
        """A state in play names whose turn it is and what they do."""
        text = state_text(big_joker_lead())
        assert text.splitlines()[0] == "Deal 1 of 1; totals NS 0, EW 0"
        assert text.splitlines()[-1] == "North to play"

    def test_before_a_deal(self):
        """Before a deal the next thing is the deal."""
        assert state_text(new_match(Rules(schedule=[2]), seed=1)).endswith("Next: the deal")

    def test_match_over(self):
        """After the match the result is given."""
        text = state_text(sixteen_points())
        assert text.splitlines()[0] == "Deal 1 of 1; totals NS 16, EW 1"
        assert text.endswith("Match over: NS win")

    @given(st.integers(0, 2**32), st.integers(0, 40))
    @settings(max_examples=25)
    def test_any_state(self, seed, steps):
        """Any state reached by legal play renders, with the totals on its first line."""
        chooser = random.Random(seed)
        state = new_match(Rules(schedule=[4, 3]), seed=seed)
        for _ in range(steps):
            if state.is_over:
                break
            state = apply(state, chooser.choice(legal_actions(state)))
        text = state_text(state)
        ns, ew = state.totals
        assert text.splitlines()[0].endswith(f"totals NS {ns}, EW {ew}")
        if state.to_move is not None:
            assert text.splitlines()[-1].startswith(state.to_move.name.title())
