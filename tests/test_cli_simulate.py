"""Tests for ``backalley simulate`` and the simulation summary behind it."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backalley import Rules
from backalley.cli import main
from backalley.cli._common import ProgressBar
from backalley.players import HeuristicPlayer, RandomPlayer, play_match
from backalley.players.simulation import (
    PairStats,
    match_seed,
    match_stats,
    simulate,
    summarize,
    wilson_interval,
)

ARGS = ["simulate", "--schedule", "3,1", "--matches", "6", "--seed", "9"]


def test_jobs_do_not_change_the_summary(capsys: pytest.CaptureFixture[str]) -> None:
    """``--jobs 2`` prints exactly the summary ``--jobs 1`` prints for the same seed."""
    assert main([*ARGS, "--jobs", "1"]) == 0
    one = capsys.readouterr().out
    assert main([*ARGS, "--jobs", "2"]) == 0
    two = capsys.readouterr().out
    assert one == two
    assert "NS    heuristic" in one and "EW    random" in one


def test_seed_changes_the_run(capsys: pytest.CaptureFixture[str]) -> None:
    """Another seed plays other matches (the same seed, the same ones)."""
    rules = Rules(schedule=[4, 2])
    first = simulate("random", "random", rules, seed=1, matches=5)
    assert simulate("random", "random", rules, seed=1, matches=5) == first
    assert simulate("random", "random", rules, seed=2, matches=5) != first


def test_summary_adds_up_the_matches() -> None:
    """The summary's wins, draws, scores and Boards are the sums over the matches played."""
    rules = Rules(schedule=[3, 1])
    states = [
        play_match([HeuristicPlayer(), RandomPlayer()] * 2, rules, seed=match_seed(4, index))
        for index in range(5)
    ]
    summary = simulate("heuristic", "random", rules, seed=4, matches=5)
    assert summary == summarize([match_stats(state) for state in states], ("heuristic", "random"))
    ns, ew = summary.pairs
    assert ns.wins == sum(state.outcome.winner == 0 for state in states if state.outcome)
    assert summary.draws == sum(state.outcome.winner is None for state in states if state.outcome)
    assert ns.average_score == pytest.approx(sum(s.totals[0] for s in states) / 5)
    boards = sum(
        r.counts and r.deal.contracts is not None and r.deal.contracts[1].is_board
        for state in states
        for r in state.history
    )
    assert ew.boards_bid == boards
    assert summary.throw_ins == sum(r.thrown_in for state in states for r in state.history)


@given(st.integers(0, 2**64 - 1))
@settings(max_examples=25, deadline=None)
def test_match_figures_from_the_deals(seed: int) -> None:
    """``match_stats`` adds up what each finished deal's public contracts and tricks say."""
    state = play_match([HeuristicPlayer(), RandomPlayer()] * 2, Rules(), seed=seed)
    stats = match_stats(state)
    counted = [result.deal for result in state.history if result.counts]
    for pair, figures in zip((0, 1), stats.pairs, strict=True):
        terms = [(deal.contracts[pair], deal.tricks_won[pair], deal.hand_size) for deal in counted]
        boards = [(taken, size) for contract, taken, size in terms if contract.is_board]
        numeric = [(contract, taken) for contract, taken, _ in terms if not contract.is_board]
        assert figures == PairStats(
            state.totals[pair],
            len(boards),
            sum(taken == size for taken, size in boards),
            len(numeric),
            sum(contract.target for contract, _ in numeric),
            sum(taken for _, taken in numeric),
        )
    assert stats.throw_ins == sum(result.thrown_in for result in state.history)
    assert stats.deals == len(counted) and stats.winner == state.outcome.winner


def test_wilson_interval() -> None:
    """The Wilson interval matches known values and stays within [0, 1]."""
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-3) and high == pytest.approx(0.5962, abs=1e-3)
    low, high = wilson_interval(0, 10)
    assert low == 0 and high == pytest.approx(0.2775, abs=1e-3)
    assert wilson_interval(10, 10)[1] == pytest.approx(1)


def test_match_seeds_are_distinct() -> None:
    """Each match of a run has its own seed, fixed by the run seed and its index."""
    seeds = [match_seed(7, index) for index in range(50)]
    assert len(set(seeds)) == 50 and seeds == [match_seed(7, index) for index in range(50)]


def test_no_progress_bar_off_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    """Standard error stays empty when it is not a terminal."""
    assert main(ARGS) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--matches", "0"], "--matches runs from 1 to"),
        (["--jobs", "0"], "--jobs must be at least 1"),
        (["--schedule", "3,x"], "cannot read the schedule"),
        (["--first-dealer", "Q"], "unknown seat"),
    ],
)
def test_bad_options_are_refused(
    capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    """Bad options give one line on standard error and exit status 2, no traceback."""
    assert main([*ARGS, *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_unknown_player_kind_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """Only the known computer players may be named."""
    with pytest.raises(SystemExit):
        main([*ARGS, "--ns", "genius"])
    assert "invalid choice" in capsys.readouterr().err


def test_progress_bar_draws_in_place() -> None:
    """The progress bar redraws one line with a carriage return and clears it at the end."""
    stream = io.StringIO()
    bar = ProgressBar(stream, 4, "matches")
    bar(1)
    bar(4)
    bar.clear()
    text = stream.getvalue()
    assert "\r[#######-" in text and "1/4 matches" in text
    assert "[" + "#" * 30 + "] 4/4 matches" in text and "\n" not in text
    assert text.endswith("\r")


def test_records_are_written_and_check_out(tmp_path, capsys):
    """``--records DIR`` writes one valid record per match, the same with one process or two."""
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    for folder, jobs in ((one, "1"), (two, "2")):
        options = ["--matches", "3", "--schedule", "2,1", "--seed", "9", "--jobs", jobs]
        assert main(["simulate", *options, "--records", str(folder)]) == 0
    capsys.readouterr()
    names = sorted(path.name for path in one.iterdir())
    assert names == ["match-00001.json", "match-00002.json", "match-00003.json"]
    for name in names:
        assert (one / name).read_text() == (two / name).read_text()
    assert main(["check", *(str(one / name) for name in names)]) == 0
    assert capsys.readouterr().out.count(": valid: a complete match") == 3


def test_records_need_an_existing_folder(tmp_path, capsys):
    """A records folder that does not exist is refused before any match is played."""
    missing = tmp_path / "missing"
    assert main(["simulate", "--matches", "1", "--records", str(missing)]) == 2
    assert "no folder" in capsys.readouterr().err


def test_duplicate_plays_each_set_of_deals_with_the_pairs_exchanged() -> None:
    """``duplicate``: each seed is played as given and exchanged; rows are the player kinds."""
    rules = Rules(schedule=[3, 1])
    summary = simulate("heuristic", "random", rules, seed=4, matches=3, duplicate=True)
    assert summary.duplicate and summary.matches == 6
    given = [
        play_match([HeuristicPlayer(), RandomPlayer()] * 2, rules, seed=match_seed(4, index))
        for index in range(3)
    ]
    exchanged = [
        play_match([RandomPlayer(), HeuristicPlayer()] * 2, rules, seed=match_seed(4, index))
        for index in range(3)
    ]
    # The same deals: the first deal of each set is dealt from the same deck.
    for one, two in zip(given, exchanged, strict=True):
        assert one.history[0].deal.setup.deck == two.history[0].deal.setup.deck
    heuristic_wins = sum(state.outcome.winner == 0 for state in given if state.outcome) + sum(
        state.outcome.winner == 1 for state in exchanged if state.outcome
    )
    assert summary.pairs[0].player == "heuristic"
    assert summary.pairs[0].wins == heuristic_wins
    heuristic_total = sum(s.totals[0] for s in given) + sum(s.totals[1] for s in exchanged)
    assert summary.pairs[0].average_score == pytest.approx(heuristic_total / 6)


def test_the_command_pits_the_monte_carlo_player_in_duplicate(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["simulate", "--ns", "montecarlo", "--ew", "heuristic", "--schedule", "2,1"]
    assert main([*args, "--matches", "1", "--duplicate"]) == 0
    out = capsys.readouterr().out
    assert "2 matches" in out and "played twice with the pairs exchanged" in out
    assert "NS/EW montecarlo" in out and "EW/NS heuristic" in out


def test_duplicate_is_refused_on_a_cluster(capsys: pytest.CaptureFixture[str]) -> None:
    status = main([*ARGS, "--duplicate", "--cluster", "local"])
    assert status != 0
    assert "--duplicate runs on this machine only" in capsys.readouterr().err
