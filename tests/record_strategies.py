"""Hypothesis strategies shared by the record, JSON and command-line tests: played states."""

from __future__ import annotations

import copy
import random
from typing import Any

from hypothesis import strategies as st

from backalley import MatchState, Rules, Seat, apply, legal_actions, new_match
from backalley.engine.bounds import playing

RULES = (
    Rules(schedule=[3, 2, 1]),
    Rules(schedule=[1], tie="tiebreak-deal", first_dealer=Seat.WEST),
    Rules(schedule=[2, 2], tie="tiebreak-deal", first_dealer=Seat.SOUTH),
    Rules(schedule="short"),
)


def play(rules: Rules, seed: int, chooser_seed: int, steps: int) -> MatchState:
    """The state after up to ``steps`` random legal actions (fewer if the match ends)."""
    chooser = random.Random(chooser_seed)
    state = new_match(rules, seed=seed)
    for _ in range(steps):
        if not playing(state):
            break
        state = apply(state, chooser.choice(legal_actions(state)))
    return state


@st.composite
def played_states(draw: st.DrawFn, max_steps: int = 250) -> MatchState:
    """A state reached by random legal play from a new match, under one of a few rule sets."""
    return play(
        draw(st.sampled_from(RULES)),
        draw(st.integers(0, 2**64 - 1)),
        draw(st.integers(0, 2**32)),
        draw(st.integers(0, max_steps)),
    )


JSON_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**65), 2**65),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(
        ["seed", "pass", "board", "14", "AS", "as", "BIG", "N", "NS", "draw", "short", ""]
    ),
    st.text(max_size=6),
)
JSON_VALUES = st.recursive(
    JSON_LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(_paths(item, (*prefix, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(_paths(item, (*prefix, index)))
    return found


def mutated(data: st.DataObject, record: dict[str, Any]) -> Any:
    """The record with one to three random edits: replace, delete or add a value."""
    record = copy.deepcopy(record)
    for _ in range(data.draw(st.integers(1, 3))):
        paths = _paths(record)
        path = data.draw(st.sampled_from(paths))
        if not path:
            return data.draw(JSON_VALUES)
        parent: Any = record
        for key in path[:-1]:
            parent = parent[key]
        edit = data.draw(st.sampled_from(["replace", "delete", "add"]))
        if edit == "replace":
            parent[path[-1]] = data.draw(JSON_VALUES)
        elif edit == "delete":
            del parent[path[-1]]
        elif isinstance(parent, dict):
            parent[data.draw(st.sampled_from(["extra", "deck", "scores", "tags", "result"]))] = (
                data.draw(JSON_VALUES)
            )
        else:
            parent.append(data.draw(JSON_VALUES))
    return record
