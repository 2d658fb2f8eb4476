"""Game analysis: the double-dummy tricks of each deal and the cards that cost tricks.

The identity that ties the analysis together: each card's count is the value of
the position after it, so a pair's double-dummy tricks at the first lead, less
what its own costly cards cost, plus what the other pair's cost, are exactly the
tricks it took.
"""

from __future__ import annotations

import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backalley import Card, MatchState, Play, Rules, Seat, apply, solve
from backalley.cli import main
from backalley.cli.analyze import analyze_record
from backalley.core.actions import Bid, Deal
from backalley.formats.checking import replay_steps
from backalley.formats.records import dumps, loads, record_from_state
from backalley.players import HeuristicPlayer, RandomPlayer, play_match
from backalley.solver.analysis import (
    CostlyCard,
    DealAnalysis,
    analysis_document,
    analyze_deal,
    analyze_match,
    analyze_result,
    seat_summaries,
)
from helpers import little_lead

ROOT = Path(__file__).resolve().parent.parent


def test_a_lead_that_loses_a_trick_is_named_with_the_best_card() -> None:
    # North leads AC, which East ruffs; LITTLE first would force East's 2S.
    state = little_lead()
    cards = [Card.CA, Card.S2, Card.D4, Card.D6, Card.D3, Card.D5, Card.D7, Card.LITTLE]
    analysis = analyze_deal(state, cards)  # type: ignore[arg-type]
    assert analysis.double_dummy == (2, 0)
    assert analysis.taken == (1, 1)
    assert analysis.costly == (CostlyCard(1, Seat.NORTH, Card.CA, 1, (Card.LITTLE,)),)
    assert analysis.plays == (2, 2, 2, 2)


def test_best_play_costs_nothing() -> None:
    state = little_lead()
    cards = [Card.LITTLE, Card.S2, Card.D4, Card.D6, Card.CA, Card.D3, Card.D5, Card.D7]
    analysis = analyze_deal(state, cards)  # type: ignore[arg-type]
    assert analysis.taken == analysis.double_dummy == (2, 0)
    assert analysis.costly == ()


def _match(seed: int, size: int) -> object:
    players = [RandomPlayer(), HeuristicPlayer(), RandomPlayer(), HeuristicPlayer()]
    return play_match(players, Rules(schedule=[size, size - 1]), seed=seed)


@settings(max_examples=20)
@given(seed=st.integers(0, 2**32), size=st.integers(2, 5))
def test_the_costs_account_for_every_trick_between_best_play_and_the_play(
    seed: int, size: int
) -> None:
    record = record_from_state(_match(seed, size))  # type: ignore[arg-type]
    analyses, _ = analyze_record(record)
    for analysis in analyses:
        if analysis is None:
            continue
        lost = [0, 0]
        for costly in analysis.costly:
            lost[costly.seat % 2] += costly.lost
            assert costly.card not in costly.best
        for pair in (0, 1):
            other = 1 - pair
            assert analysis.taken[pair] == analysis.double_dummy[pair] - lost[pair] + lost[other]
    summaries = seat_summaries([a for a in analyses if a is not None])
    assert sum(s.cards for s in summaries) == sum(len(item.plays) for item in record.deals)


def _record_file(tmp_path: Path, seed: int = 3) -> str:
    path = tmp_path / "match.json"
    path.write_text(dumps(record_from_state(_match(seed, 4))), encoding="utf-8")  # type: ignore[arg-type]
    return str(path)


def test_the_command_prints_deals_costs_and_a_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["analyze", _record_file(tmp_path)]) == 0
    out = capsys.readouterr().out
    # Numbered as the table numbers it.
    assert "Deal 1 of 2: double dummy NS " in out
    assert "Per seat: cards played, costly cards, tricks lost" in out
    assert "  N: " in out and "  W: " in out


def test_the_json_says_the_same_as_the_analysis(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = _record_file(tmp_path)
    assert main(["analyze", "--json", name]) == 0
    document = json.loads(capsys.readouterr().out)
    analyses, _ = analyze_record(loads(Path(name).read_bytes()))
    assert len(document["deals"]) == len(analyses)
    for entry, analysis in zip(document["deals"], analyses, strict=True):
        if analysis is None:
            assert entry["played"] is False
            continue
        assert (entry["double_dummy"]["NS"], entry["double_dummy"]["EW"]) == analysis.double_dummy
        assert [(c["seat"], c["card"], c["lost"]) for c in entry["costly"]] == [
            (c.seat.letter, c.card.code, c.lost) for c in analysis.costly
        ]
    assert set(document["seats"]) == {"N", "E", "S", "W"}


def test_the_pictures_mark_the_costly_cards(tmp_path: Path) -> None:
    # Search a few seeds for a match with a costly card, so the badge is drawn.
    for seed in range(20):
        name = _record_file(tmp_path, seed)
        analyses, _ = analyze_record(loads(Path(name).read_bytes()))
        if any(a is not None and a.costly for a in analyses):
            break
    else:
        pytest.fail("no costly card in 20 matches of random players")
    folder = tmp_path / "pictures"
    assert main(["analyze", name, "--svg", str(folder)]) == 0
    pictures = {p.name: p.read_text(encoding="utf-8") for p in folder.glob("deal-*.svg")}
    marked = [
        number
        for number, analysis in enumerate(analyses, start=1)
        if analysis is not None and analysis.costly
    ]
    for number in marked:
        picture = pictures[f"deal-{number}.svg"]
        assert picture.startswith("<svg")
        assert "Double dummy: North-South" in picture
        assert picture.count("this card cost") == len(analyses[number - 1].costly)  # type: ignore[union-attr]


def test_bad_input_is_one_line_and_status_two(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{}", encoding="utf-8")
    assert main(["analyze", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "not a record" in err
    assert len(err.strip().splitlines()) == 1


def test_an_illegal_record_ends_with_the_refusal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(Path(_record_file(tmp_path)).read_text(encoding="utf-8"))
    plays = data["deals"][0]["plays"]
    plays[1] = plays[0]  # the same card twice: the second seat does not hold it
    damaged = tmp_path / "damaged.json"
    damaged.write_text(json.dumps(data), encoding="utf-8")
    assert main(["analyze", str(damaged)]) == 1
    assert "Illegal at deals[0].plays[1]" in capsys.readouterr().out


def _solved_card_by_card(start: MatchState, cards: tuple[Card, ...]) -> DealAnalysis:
    """The analysis as its definition says it: every legal card solved before every card.

    ``solve`` is checked against a minimax over ``apply`` (tests/test_solve.py); this
    knows nothing of the analysis's one question a card.
    """
    state = start
    first = solve(state)
    mover = state.to_move
    assert mover is not None
    value = first.value
    double_dummy = (
        (value, state.hand_size - value)
        if mover % 2 == 0
        else (
            state.hand_size - value,
            value,
        )
    )
    costly = []
    plays = [0, 0, 0, 0]
    finished = len(start.history)
    taken = state.tricks_won
    for index, card in enumerate(cards):
        seat = state.to_move
        assert seat is not None
        solution = solve(state)
        play = Play(seat, card)
        if solution[play] < solution.value:
            best = tuple(p.card for p in solution.best)
            lost = solution.value - solution[play]
            costly.append(CostlyCard(index // 4 + 1, seat, card, lost, best))
        plays[seat] += 1
        state = apply(state, play)
        if len(state.history) > finished:
            taken = state.history[-1].deal.tricks_won
            break
        taken = state.tricks_won
    return DealAnalysis(
        double_dummy, taken, tuple(costly), (plays[0], plays[1], plays[2], plays[3])
    )


def _starts(final: MatchState) -> list[MatchState | None]:
    """Each deal's state at its first lead (None for a thrown-in deal), replayed from a record."""
    starts: list[MatchState | None] = []
    state = None
    record = record_from_state(final)

    def visit(step: object, after: MatchState) -> None:
        action = step.action  # type: ignore[attr-defined]
        if isinstance(action, Deal):
            starts.append(None)
        if isinstance(action, Deal | Bid) and after.phase.value == "play":
            starts[-1] = after

    replay_steps(record, visit)
    del state
    return starts


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    size=st.integers(2, 7),
    tie=st.sampled_from(["draw", "tiebreak-deal"]),
)
def test_one_question_a_card_finds_what_solving_every_card_finds(
    seed: int, size: int, tie: str
) -> None:
    # Random and heuristic players make costly cards of every kind, by both pairs.
    players = [RandomPlayer(), HeuristicPlayer(), RandomPlayer(), HeuristicPlayer()]
    final = play_match(players, Rules(schedule=[size, 1], tie=tie), seed=seed)
    analyses = analyze_match(final)
    assert len(analyses) == len(final.history)
    for result, start, analysis in zip(final.history, _starts(final), analyses, strict=True):
        assert analysis == analyze_result(result)
        if start is None:
            assert result.thrown_in and analysis is None
            continue
        cards = tuple(card for trick in result.deal.tricks for card in trick.cards)
        assert analysis == _solved_card_by_card(start, cards)
        assert analysis == analyze_deal(start, cards)


def test_a_match_in_progress_is_analysed_to_its_last_card() -> None:
    final = _match(5, 4)
    assert isinstance(final, MatchState)
    record = record_from_state(final)
    # The same record cut in the middle of its second deal's play.
    cut = record.deals[1]
    shorter = attrs.evolve(
        record,
        deals=(record.deals[0], attrs.evolve(cut, plays=cut.plays[:5], scores=None)),
        totals=None,
        result=None,
    )
    analyses, state = analyze_record(shorter)
    assert state.deal is not None and len(analyses) == 2
    analysis = analyses[1]
    assert analysis is not None and sum(analysis.plays) == 5
    assert analyses[0] == analyze_result(final.history[0])


def test_progress_is_told_of_every_card() -> None:
    final = _match(11, 4)
    assert isinstance(final, MatchState)
    told: list[tuple[int, int]] = []
    analyses = analyze_match(final, lambda done, total: told.append((done, total)))
    cards = sum(sum(a.plays) for a in analyses if a is not None)
    assert told[0] == (0, cards) and told[-1] == (cards, cards)
    assert [done for done, _ in told] == list(range(cards + 1))


def test_the_progress_bar_is_drawn_when_asked_and_not_into_a_pipe(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = _record_file(tmp_path)
    assert main(["analyze", "--progress", name]) == 0
    err = capsys.readouterr().err
    assert "\r[" in err and "cards analysed" in err and err.endswith("\r")
    # Standard error is not a terminal here: no bar unless asked.
    assert main(["analyze", name]) == 0
    assert capsys.readouterr().err == ""


def _document_of(state: MatchState) -> dict[str, object]:
    return analysis_document(analyze_match(state))


def test_a_finished_match_is_analysed_in_a_worker_process() -> None:
    # What a server does to keep its event loop free: the state goes to another
    # process (states pickle), the JSON document comes back.
    final = _match(8, 5)
    assert isinstance(final, MatchState) and final.is_over
    with ProcessPoolExecutor(max_workers=1) as pool:
        document = pool.submit(_document_of, final).result(timeout=60)
    assert document == _document_of(final)
    assert json.loads(json.dumps(document)) == document
    deals = document["deals"]
    assert isinstance(deals, list) and len(deals) == len(final.history)
