"""The slow computer players choose in worker processes: no room waits on another's computer."""

from __future__ import annotations

import asyncio
import time
import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from table_helpers import SLOW_SECONDS, SlowPlayer, receive

from backalley import Bid, Rules, Seat
from backalley.engine.view import view
from backalley.players import PLAYER_KINDS, HeuristicPlayer
from backalley.players.levels import LEVELS
from backalley.web import rooms, thinking
from backalley.web.app import make_app
from backalley.web.limits import Limits
from backalley.web.rooms import Tables
from backalley.web.store import Store
from backalley.web.thinking import Thinker


@pytest.fixture
def slow_kind(monkeypatch):
    """A player kind ``slow`` (``SlowPlayer``) the rooms may seat, thinking in workers."""
    monkeypatch.setitem(PLAYER_KINDS, "slow", SlowPlayer)
    monkeypatch.setattr(rooms, "COMPUTER_PLAYERS", (*rooms.COMPUTER_PLAYERS, "slow"))
    monkeypatch.setattr(thinking, "SLOW_KINDS", frozenset({"slow"}))


@pytest.fixture
def tables(tmp_path):
    made = Tables(Store(tmp_path / "rooms.db"))
    yield made
    made.store.close()


def test_the_rooms_seat_every_level_and_the_slow_ones_think_in_workers():
    """The table offers the levels' players; Monte Carlo and search choose in workers."""
    assert tuple(level.kind for level in LEVELS) == rooms.COMPUTER_PLAYERS
    assert {"montecarlo", "search"} == thinking.SLOW_KINDS


def _your_turn(socket):
    for _ in range(200):
        frame = receive(socket)
        if frame["type"] == "state" and frame["your_turn"]:
            return frame
    raise AssertionError("never South's turn")


@pytest.mark.timeout(120)
def test_a_slow_computer_does_not_stall_another_rooms_acknowledgements(slow_kind, tables):
    """While a room's computer thinks for seconds, another room's action is acknowledged at once."""
    limits = Limits(messages_per_second=10_000, think_seconds=60.0)
    with TestClient(make_app(tables, pace=0, limits=limits)) as client:
        slow_room, slow_token = tables.create("computer", Rules(schedule=[3, 3]), "slow")
        _, fast_token = tables.create("computer", Rules(schedule=[3, 3]), "heuristic")
        with (
            client.websocket_connect(f"/ws/{slow_token}") as slow,
            client.websocket_connect(f"/ws/{fast_token}") as fast,
        ):
            slow.send_json({"type": "hello", "secret": None})
            started = time.monotonic()
            fast.send_json({"type": "hello", "secret": None})
            frame = _your_turn(fast)
            # East of the slow room, the first to bid, is thinking now.
            assert time.monotonic() - started < SLOW_SECONDS
            assert slow_room.state.to_move is Seat.EAST
            sent = time.monotonic()
            fast.send_json({"type": "act", "version": frame["version"], "bid": "pass"})
            answer = receive(fast)
            waited = time.monotonic() - sent
            assert answer == {"type": "ack", "version": frame["version"] + 1}
            assert waited < SLOW_SECONDS / 3, f"acknowledged after {waited:.2f} s"
            assert slow_room.state.to_move is Seat.EAST  # still thinking
            _your_turn(slow)  # then the slow computer's bid came from its worker
            assert slow_room.state.deal.bid_of(Seat.EAST) == Bid(Seat.EAST)  # its first legal


def test_past_the_cap_the_seat_plays_the_heuristics_choice(slow_kind, tables):
    """A decision not back from its worker by the cap: the heuristic's choice, at the cap."""
    room, _ = tables.create("computer", Rules(schedule=[3]), "slow")
    tables.step(room)  # the deal
    seat = room.state.to_move
    expected = HeuristicPlayer()(view(room.state, seat), room.legal_choices())
    thinker = Thinker(1, cap=0.5)

    async def think():
        started = time.monotonic()
        choice = await thinker.think(room)
        return choice, time.monotonic() - started

    try:
        choice, took = asyncio.run(think())
    finally:
        thinker.stop()
    assert choice == expected and took < SLOW_SECONDS
