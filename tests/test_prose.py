"""Tests for the prose layer: the result sentence and the score sheet's rows."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from backalley import MatchState, Outcome, Pair, Rules, Seat, Termination
from backalley.cli.replay import transcript
from backalley.engine.view import view
from backalley.formats.records import record_from_state
from backalley.pictures.prose import deal_labels, deals_sentence, result_sentence, score_rows
from record_strategies import play


@given(st.integers(0, 2**32), st.sampled_from(["draw", "tiebreak-deal"]))
def test_score_rows_are_the_same_for_the_state_and_every_seat(seed: int, tie: str) -> None:
    """Every seat's sheet equals the match's; the totals add the scored deals only."""
    state: MatchState = play(Rules(schedule=[2, 1], tie=tie), seed, seed, 10_000)
    rows = score_rows(state)
    assert len(rows) == len(state.history)
    for seat in Seat:
        assert score_rows(view(state, seat)) == rows
    scored = [row for row in rows if row.kind == "scored"]
    totals = tuple(sum(row.scores[pair] for row in scored) for pair in (0, 1))
    assert (rows[-1].totals if rows else (0, 0)) == totals == state.totals
    assert [row.number for row in rows] == list(range(1, len(rows) + 1))
    assert sum(row.kind == "thrown in" for row in rows) == sum(
        result.thrown_in for result in state.history
    )
    # One numbering: the schedule's place, the same again after a throw-in (a re-deal).
    place = 1
    for before, row in zip([None, *rows], rows, strict=False):
        if row.kind == "tiebreak":
            assert row.label == "tiebreak"
            continue
        assert row.scheduled == place
        assert row.redeal == (before is not None and before.kind == "thrown in")
        assert row.label == (f"{place} (re-deal)" if row.redeal else str(place))
        assert row.scheduled <= state.rules.deals
        place += row.kind == "scored"


@given(st.integers(0, 2**32))
def test_the_deals_sentence_counts_the_schedule_and_names_the_throw_ins(seed: int) -> None:
    """``N deals of M``, throw-ins and a tiebreak said apart, never counted as deals."""
    state: MatchState = play(Rules(schedule=[2, 1], tie="tiebreak-deal"), seed, seed, 10_000)
    text = deals_sentence(state)
    assert text.startswith(f"{state.counted_deals} deal")
    assert f" of {state.rules.deals}" in text
    thrown = sum(result.thrown_in for result in state.history)
    assert (f"({thrown} thrown in and dealt again)" in text) == (thrown > 0)
    tiebreak = any(result.deal.setup.tiebreak for result in state.history)
    assert text.endswith(" and a tiebreak deal") == tiebreak


def test_result_sentence() -> None:
    """A draw, a win on points and a win on the tiebreak deal, told to anyone or to a seat."""
    assert result_sentence(Outcome(Termination.DRAW, None, (30, 30))) == "a draw, 30 all"
    won = Outcome(Termination.SCORE, Pair.NORTH_SOUTH, (80, 67))
    assert result_sentence(won) == "North-South win, NS 80 to EW 67"
    assert result_sentence(won, seat=Seat.SOUTH) == (
        "North-South win (your side wins), North-South 80 to East-West 67"
    )
    assert "(your side loses)" in result_sentence(won, seat=Seat.WEST)
    tiebreak = Outcome(Termination.TIEBREAK_DEAL, Pair.EAST_WEST, (40, 40))
    assert result_sentence(tiebreak) == "East-West win on the tiebreak deal, NS 40 to EW 40"


@given(st.integers(0, 2**32))
def test_deal_labels_number_deals_as_the_table_and_the_commands_do(seed: int) -> None:
    """``Deal 2 of 3 (re-deal)`` after a throw-in; ``backalley replay`` heads each deal so."""
    rules = Rules(schedule=[2, 1, 2], tie="tiebreak-deal")
    state: MatchState = play(rules, seed, seed, 10_000)
    labels = deal_labels(state)
    rows = score_rows(state)
    assert len(labels) == len(rows) + (state.deal is not None)
    for row, label in zip(rows, labels, strict=False):
        if row.kind == "tiebreak":
            assert label == "Tiebreak deal"
        else:
            want = f"Deal {row.scheduled} of 3" + (" (re-deal)" if row.redeal else "")
            assert label == want
    lines, _ = transcript(record_from_state(state))
    headings = [line.split(":")[0] for line in lines if line.startswith(("Deal ", "Tiebreak"))]
    assert headings == labels
