"""``benchmarks/montecarlo_strength.py``: duplicate sets, a wall bound, the margin's interval."""

import argparse
import importlib.util
from pathlib import Path

import pytest

from backalley import Rules
from backalley.players import MonteCarloPlayer

SCRIPT = Path(__file__).parents[1] / "benchmarks" / "montecarlo_strength.py"


def _script():
    spec = importlib.util.spec_from_file_location("montecarlo_strength", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _args(**given):
    settings = {
        "sets": 3,
        "first_set": 0,
        "seed": 5,
        "opponent": "random",
        "opponent_exact_tricks": None,
        "minutes": None,
    }
    return argparse.Namespace(**{**settings, **given})


def test_the_minutes_bound_stops_before_the_next_set_and_keeps_the_sets_whole():
    script = _script()
    player = MonteCarloPlayer(samples=2)
    rules = Rules(schedule=[2, 1])
    times, results, margins, counts = script._play_sets(player, _args(), rules)
    assert len(results) == 3 and len(margins) == 6 and sum(counts) == 6 and times
    # A bound already passed when the first set ends: that set alone is played, both ways.
    times, results, margins, counts = script._play_sets(player, _args(minutes=1e-9), rules)
    assert len(results) == 1 and len(margins) == 2 and sum(counts) == 2


def test_the_margin_interval_is_over_the_sets_means():
    interval = _script()._margin_interval
    # Sets of (10, 20) and (30, 40): means 15 and 35, a standard deviation of 14.14.
    mean, low, high = 25.0, 25 - 1.959964 * 14.142136 / 2**0.5, 25 + 1.959964 * 14.142136 / 2**0.5
    assert interval([10, 20, 30, 40]) == f"{mean:+.1f} (95% CI {low:+.1f} to {high:+.1f})"
    assert interval([-3, 5]) == "+1.0"  # one set: no interval
    with pytest.raises(ValueError, match="shorter"):
        interval([1, 2, 3])  # a set cut in half is a bug, not a figure
