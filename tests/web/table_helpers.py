"""Helpers of the table's tests: replaying a stored room, and reading frames for leaks."""

from __future__ import annotations

import json
from typing import Any

from backalley import Card, MatchState, Seat, apply, new_match, seeded_deal
from backalley.engine.view import view
from backalley.formats.notation import parse_action
from backalley.web.rooms import Room


def states_by_version(room: Room, actions: list[str]) -> list[MatchState]:
    """The room's state after 0, 1, 2, ... of its stored actions, replayed through apply."""
    state = new_match(room.rules, seed=room.seed)
    states = [state]
    for text in actions:
        state = apply(state, seeded_deal(state) if text == "deal" else parse_action(text))
        states.append(state)
    return states


def hidden_from(state: MatchState, seat: Seat) -> set[Card]:
    """The cards other seats hold at ``state``: never to be named in a frame for ``seat``."""
    if state.deal is None:
        return set()
    return {card for other in Seat if other is not seat for card in state.hand(other)}


def leaks(frame: dict[str, Any], state: MatchState, seat: Seat) -> list[str]:
    """What a frame sent to ``seat`` says that the seat may not know (empty: nothing)."""
    # Finished deals are public, and their cards are dealt again later: what the frame says
    # of them is checked through the view (equal to the engine's own), not by the names.
    current = dict(frame)
    if "view" in current:
        current["view"] = {**current["view"], "history": []}
    last = current.get("last_trick")
    if last is not None and last["deal"] != current.get("deal_number"):
        current["last_trick"] = None
    text = json.dumps(current, ensure_ascii=False)
    found = [
        card.code
        for card in hidden_from(state, seat)
        if f'"{card.code}"' in text or card.words in text
    ]
    if str(state.seed) in text:
        found.append("the seed")
    if frame.get("type") == "state" and frame["view"] != view(state, seat).to_dict():
        found.append("a view other than the seat's own")
    return found
