"""Tests for ``backalley play``: a person at one seat, driven here by scripted input."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

from backalley import Bid, Card, Play, Rules, Seat, Suit, new_match
from backalley.cli import main
from backalley.cli.analyze import analyze_record
from backalley.cli.play import Table, marked_hand
from backalley.engine import bounds
from backalley.engine.view import SeatView
from backalley.formats.records import loads
from backalley.players import MonteCarloPlayer
from decks import position

SHORT_MATCH = ["play", "--schedule", "2,1", "--seed", "3"]


class FirstLegal(io.StringIO):
    """Standard input that asks ``?`` at each prompt, then answers the first legal action."""

    def __init__(self, out: io.StringIO) -> None:
        super().__init__()
        self.out = out
        self.asked = False
        self.answers: list[str] = []

    def readline(self, size: int | None = -1) -> str:
        if not self.asked:
            self.asked = True
            return "?\n"
        self.asked = False
        legal = [line for line in self.out.getvalue().splitlines() if line.startswith("Legal: ")]
        answer = legal[-1].split()[1]
        self.answers.append(answer)
        return answer + "\n"


def _drive(monkeypatch: pytest.MonkeyPatch, args: list[str]) -> tuple[int, str, FirstLegal]:
    out = io.StringIO()
    inp = FirstLegal(out)
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stdin", inp)
    status = main(args)
    return status, out.getvalue(), inp


def test_a_whole_match_answered_with_the_first_legal_action(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A script answering ``?`` then the first legal action plays a whole match to its result."""
    status, text, inp = _drive(monkeypatch, SHORT_MATCH)
    assert status == 0
    assert inp.answers and inp.answers[0] == "pass"
    assert "Match over:" in text
    assert text.count("Score sheet:") >= 2  # after each of the two deals of the schedule
    assert "Your turn (South) to bid" in text and "Your turn (South) to play" in text
    assert "are trumps" in text or "no trumps" in text
    assert "Trick 1:" in text and "wins." in text
    assert "Traceback" not in text


def test_the_same_seed_plays_the_same_match(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the same seed and answers the transcript is the same; the seat can be chosen."""
    _, first, _ = _drive(monkeypatch, SHORT_MATCH)
    _, again, _ = _drive(monkeypatch, SHORT_MATCH)
    assert first == again
    _, west, _ = _drive(monkeypatch, [*SHORT_MATCH, "--seat", "W"])
    assert "You are West" in west and "Your turn (West)" in west


def _table(state, answers: str) -> tuple[Table, io.StringIO]:  # type: ignore[no-untyped-def]
    out = io.StringIO()
    return Table(state, Seat.SOUTH, inp=io.StringIO(answers), out=out), out


FOLLOW = {
    Seat.NORTH: ["2C", "3C", "4C"],
    Seat.EAST: ["KS", "AD", "5D"],
    Seat.SOUTH: ["QS", "5H", "9C"],
    Seat.WEST: ["3S", "7S", "2H"],
}


@pytest.mark.rule("PLAY-2")
def test_illegal_card_is_refused_with_the_reason() -> None:
    """An illegal card is refused with the rule's sentence, and the person may answer again."""
    state = position(FOLLOW, turned="6H", bids=[1, 0, 0, 0], plays=["KS"])
    table, out = _table(state, "5h\nas\nxx\nqs\n")
    table.step()
    text = out.getvalue()
    assert "You must follow suit: spades were led and you hold one." in text
    assert "You do not hold the ace of spades (AS)." in text
    assert "unknown card 'xx'" in text
    assert table.state.current_trick is not None and table.state.current_trick.cards[-1] is Card.SQ
    assert "Your hand: *♥ 5  ♣ 9" not in text and "♠ [Q]" in text


def test_the_only_legal_card_is_played_on_enter() -> None:
    """South holds one spade to a spade lead: the table names it, and Enter plays it."""
    hands = {**FOLLOW, Seat.SOUTH: ["QS", "6D", "9C"]}
    state = position(hands, turned="6H", bids=[1, 0, 0, 0], plays=["KS"])
    table, out = _table(state, "\n")
    table.step()
    text = out.getvalue()
    assert "Only the queen of spades may be played: press Enter to play it." in text
    assert table.state.current_trick is not None and table.state.current_trick.cards[-1] is Card.SQ


def test_enter_alone_plays_nothing_where_there_is_a_choice() -> None:
    """With two cards to choose from, an empty answer asks again."""
    state = position(FOLLOW, turned="6H", bids=[1, 0, 0, 0])
    table, out = _table(state, "\nqs\n")
    table.step()  # East leads
    table.step()  # South, who may play any card
    assert "may be played: press Enter" not in out.getvalue()
    assert table.state.current_trick is not None and table.state.current_trick.cards[-1] is Card.SQ


def test_bid_out_of_range_is_refused() -> None:
    """A bid above the hand size minus one is refused with the allowed bids."""
    state = position(FOLLOW, turned="6H", bids=[1])
    table, out = _table(state, "9\nqs\n2\n")
    table.step()
    text = out.getvalue()
    assert "With 3 cards you may bid Pass, 1 to 2, or Board, not 9." in text
    assert "It is the bidding" in text
    assert table.state.bids[-1].amount == 2


@pytest.mark.rule("BID-7")
def test_overbid_warns_without_stopping() -> None:
    """A bid taking the side's target above the tricks available warns and is kept."""
    state = position(FOLLOW, turned="6H", dealer=Seat.WEST, bids=[2, 0])  # North 2, East pass
    table, out = _table(state, "2\n")
    table.step()
    text = out.getvalue()
    assert "Warning: NS have bid 4 tricks, but only 3 will be played." in text
    assert table.state.bids[-1].amount == 2 and len(table.state.bids) == 3


def test_trick_and_targets_are_shown() -> None:
    """After a trick the table shows it, its winner, and each side's tricks beside its target."""
    state = position(FOLLOW, turned="6H", bids=[1, 0, 0, 0], plays=["KS"])
    table, out = _table(state, "qs\n")
    table.step()  # South
    table.step()  # West
    table.step()  # North, completing the trick
    text = out.getvalue()
    assert "Trick 1: E K♠  S Q♠  W " in text and "-> E wins." in text
    assert "Tricks: NS 0 (target 0), EW 1 (target 1)." in text


def test_end_of_input_stops_cleanly() -> None:
    """When input ends the table says so and the command exits with status 1, no traceback."""
    done = subprocess.run(
        [sys.executable, "-m", "backalley", *SHORT_MATCH],
        input="?\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert "End of input: the match is left unfinished." in done.stdout
    assert "Legal: pass 1 board" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


def test_quit_and_score() -> None:
    """``score`` shows the sheet and ``quit`` leaves the table with status 0: not a failure."""
    state = position(FOLLOW, turned="6H", bids=[1])
    table, out = _table(state, "score\nquit\n")
    assert table.play() == 0
    text = out.getvalue()
    assert "Score sheet:" in text and "You leave the table" in text


def test_interrupt_is_reported_without_traceback() -> None:
    """Ctrl-C at a prompt ends the match with a short message and status 130."""

    class Interrupting(io.StringIO):
        def readline(self, size: int | None = -1) -> str:
            raise KeyboardInterrupt

    state = position(FOLLOW, turned="6H", bids=[1])
    out = io.StringIO()
    assert Table(state, Seat.SOUTH, inp=Interrupting(), out=out).play() == 130
    assert "Interrupted: the match is left unfinished." in out.getvalue()


def test_marked_hand() -> None:
    """The hand lists suits with the trump suit starred and the legal cards in brackets."""
    hand = [Card.SA, Card.S9, Card.H5, Card.C2, Card.BIG]
    text = marked_hand(hand, Suit.HEARTS, [Card.SA, Card.BIG])
    assert text == "♠ [A] 9  *♥ 5  ♣ 2  [BIG]"


@pytest.mark.rule("DEAL-5")
def test_the_swapper_is_told_of_the_swap() -> None:
    """After a turned joker the person holding the other joker is told what they received."""
    hands = dict(FOLLOW)
    hands[Seat.SOUTH] = ["QS", "LITTLE", "9C"]
    hands[Seat.NORTH] = ["2C", "3C", "4C"]
    state = position(hands, turned="BIG")
    table, out = _table(state, "")
    table.announce_deal()
    text = out.getvalue()
    assert "Turned BIG (the BIG joker): no trumps." in text
    # The next undealt card is the lowest card not dealt: the five of clubs.
    assert "You held the LITTLE joker: you swap it for the five of clubs" in text
    assert "LITTLE" not in text.split("Your hand:")[1]
    north, north_out = _table(state, "")
    north.seat = Seat.NORTH
    north.announce_deal()
    assert "swap" not in north_out.getvalue()


def test_endless_throw_ins_leave_the_match_unfinished(monkeypatch: pytest.MonkeyPatch) -> None:
    """Players who always pass are stopped by the driver's bound, said in a sentence, status 1."""
    monkeypatch.setattr(bounds, "MAX_THROW_INS_IN_A_ROW", 2)
    table, out = _table(new_match(Rules(schedule=[2]), seed=3), "pass\n" * 40)

    def passes(seen: SeatView, legal: tuple[Bid | Play, ...]) -> Bid | Play:
        return next(action for action in legal if isinstance(action, Bid) and action.is_pass)

    table.players = {seat: table.choose if seat is Seat.SOUTH else passes for seat in Seat}
    assert table.play() == 1
    text = out.getvalue()
    assert "3 deals in a row were thrown in" in text
    assert text.rstrip().endswith("The match is left unfinished.")
    assert text.count("All four passed") == 3
    # Who deals again, and how many cards: seed 001's throw-in in words. North deals
    # first; each throw-in passes the deal on.
    assert (
        "All four passed: the cards are thrown in, nobody scores, "
        "and East deals again, 2 cards each." in text
    )
    assert "and South deals again, 2 cards each." in text
    # One numbering: the schedule's deal 1 of 1, dealt again, marked.
    assert text.count("Deal 1 of 1 (re-deal): 2 cards each, East deals.") == 1
    assert "Deal 1 of 1: 2 cards each, North deals." in text


def test_the_opponents_can_be_monte_carlo_players(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--opponents montecarlo`` seats Monte Carlo players; the match plays to its end."""
    status, text, _ = _drive(monkeypatch, [*SHORT_MATCH, "--opponents", "montecarlo"])
    assert status == 0
    assert "Match over:" in text


def test_the_table_seats_the_kind_asked_for() -> None:
    out = io.StringIO()
    table = Table(new_match(), Seat.SOUTH, inp=io.StringIO(), out=out, opponents="montecarlo")
    others = [player for seat, player in table.players.items() if seat is not Seat.SOUTH]
    assert len(others) == 3
    assert all(isinstance(player, MonteCarloPlayer) for player in others)


def _run_play(args: list[str], answers: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "backalley", *args],
        input=answers,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_quit_exits_zero_from_the_command_line() -> None:
    """``quit`` at the first prompt: exit status 0, the leaving said, no traceback."""
    done = _run_play(SHORT_MATCH, "quit\n")
    assert done.returncode == 0, done.stderr
    assert "You leave the table" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


def test_a_recorded_game_is_checked_and_analyzed(monkeypatch, tmp_path) -> None:
    """``--record FILE``: the game played is a record ``check`` accepts and ``analyze`` reads."""
    path = tmp_path / "game.json"
    status, text, inp = _drive(monkeypatch, [*SHORT_MATCH, "--record", str(path)])
    assert status == 0 and "Match over:" in text
    record = loads(path.read_bytes())
    assert record.seed == 3 and len(record.deals) >= 2
    assert dict(record.tags)["event"] == "backalley play"
    # The record replays to the same final position the table reached.
    analyses, final = analyze_record(record)
    assert final.is_over and any(analysis is not None for analysis in analyses)
    # Every card South chose is among the record's plays, each once.
    played = [card.code for deal in record.deals for card in deal.plays]
    cards = [answer for answer in inp.answers if answer not in ("pass", "board")]
    cards = [answer for answer in cards if not answer.isdigit()]
    assert cards and all(played.count(card) >= 1 for card in cards)
    assert main(["check", str(path)]) == 0
    assert main(["analyze", str(path)]) == 0


def test_a_game_left_with_quit_is_recorded_as_far_as_it_went(tmp_path) -> None:
    """Leaving mid-deal still writes the record; ``analyze`` reads the unfinished game."""
    path = tmp_path / "left.json"
    done = _run_play([*SHORT_MATCH, "--record", str(path)], "pass\nquit\n")
    assert done.returncode == 0, done.stderr
    assert f"The game record is in {path}." in done.stderr
    record = loads(path.read_bytes())
    assert record.result is None  # unfinished: no result claimed
    assert "pass" in record.deals[0].bids
    analyzed = _run_play(["analyze", str(path)], "")
    assert analyzed.returncode == 0, analyzed.stdout + analyzed.stderr
    assert "Traceback" not in analyzed.stdout + analyzed.stderr


def test_a_record_with_no_folder_is_refused_before_play(tmp_path) -> None:
    """A --record path in a missing folder: one line, exit 2, before a card is dealt."""
    done = _run_play([*SHORT_MATCH, "--record", str(tmp_path / "nope" / "g.json")], "")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "no folder" in done.stderr
    assert "Your turn" not in done.stdout
