"""``benchmarks/ladder.py``: every pair of kinds on duplicate deals, ranked, with CPU a decision."""

import importlib.util
from pathlib import Path

from backalley import Bid, Rules, Seat, legal_actions
from backalley.engine.view import view
from backalley.players import HeuristicPlayer, play_match
from backalley.players.levels import LEVELS
from decks import position

SHORT = tuple(Rules(schedule="short").schedule)
SCRIPT = Path(__file__).parents[1] / "benchmarks" / "ladder.py"


def _script():
    spec = importlib.util.spec_from_file_location("ladder", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_ladder_plays_each_pair_both_ways_and_ranks_them():
    ladder = _script()
    kinds = ["random", "heuristic", "previous-heuristic"]
    table = ladder.Ladder(kinds)
    for i, first in enumerate(kinds):
        for second in kinds[i + 1 :]:
            for number in range(2):
                table.add(ladder.play_set((first, second, 7, number, SHORT)))
    for first in kinds:
        for second in kinds:
            if first != second:
                assert table.games[first, second] == 4
                won = table.wins[first, second] + table.wins[second, first]
                assert won + table.draws[first, second] == 4
    assert table.score("random") < min(table.score("heuristic"), table.score("previous-heuristic"))
    text = table.table()
    rows = [line for line in text.splitlines() if line.startswith("| ") and "level" not in line]
    assert rows[-1].startswith("| random | Beginner |")
    assert all(table.clock[kind][1] > 0 for kind in kinds)


def test_a_set_is_one_seed_with_the_pairs_exchanged():
    ladder = _script()
    first, second, wins, draws, clocks = ladder.play_set(("heuristic", "random", 3, 0, (2,)))
    assert (first, second) == ("heuristic", "random") and 0 <= wins + draws <= 2
    seed = ladder.match_seed(3, 0)
    ns = play_match(
        [HeuristicPlayer(), ladder.KINDS["random"]()] * 2, Rules(schedule=[2]), seed=seed
    )
    ew = play_match(
        [ladder.KINDS["random"](), HeuristicPlayer()] * 2, Rules(schedule=[2]), seed=seed
    )
    expected = (ns.outcome.winner == 0) + (ew.outcome.winner == 1)
    assert wins == expected and set(clocks) == {"heuristic", "random"}


def test_the_previous_heuristic_is_the_bidding_that_threw_deals_in():
    """Kept to measure against: it passes where today's heuristic bids (one trump, three passes)."""
    previous = _script().PreviousHeuristic()
    hands = {Seat.NORTH: ["2C"], Seat.EAST: ["2H"], Seat.SOUTH: ["3C"], Seat.WEST: ["4C"]}
    for state in (position(hands, turned="5H"), position(hands, turned="5H", bids=[0, 0, 0])):
        seat = state.to_move
        seen, legal = view(state, seat), legal_actions(state)
        assert previous(seen, legal) == Bid(seat)
        assert HeuristicPlayer()(seen, legal) == Bid(seat, board=True)


def test_the_levels_are_ranked_kinds_of_the_ladder():
    assert {level.kind for level in LEVELS} <= set(_script().KINDS)
