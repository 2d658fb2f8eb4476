"""The table against an attacker: races at a re-invitation, limits passed at once, rates.

In process (Starlette's test client). Each test fails on a server that checks the
link only when the socket opens, carries out what a socket being cut sent, counts
a limit only after its await, or keeps a message budget per socket.
"""

from __future__ import annotations

import asyncio
import secrets
import time
import warnings
from concurrent.futures import ThreadPoolExecutor

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from backalley import Bid, Rules, Seat, legal_actions
from backalley.web import talk as talk_module
from backalley.web.app import make_app
from backalley.web.limits import CLOSE_LIMIT, CLOSE_REINVITED, CLOSE_UNKNOWN_TOKEN, Limits
from backalley.web.rooms import Tables, digest
from backalley.web.store import Store

SLOW = 0.4
"""Seconds a slowed change waits before it is stored: long enough for a race to happen."""


class _Slow:
    """A planned change that waits ``SLOW`` seconds before it is stored (a busy disk)."""

    def __init__(self, pending):
        self.pending = pending

    async def done(self):
        await asyncio.sleep(SLOW)
        return await self.pending.done()


def _slowed(function):
    return lambda *args, **kwargs: _Slow(function(*args, **kwargs))


@pytest.fixture
def tables(tmp_path):
    made = Tables(Store(tmp_path / "rooms.db"))
    yield made
    made.store.close()


def _client(tables, **limits):
    limits.setdefault("messages_per_second", 10_000)
    return TestClient(make_app(tables, pace=0, limits=Limits(**limits)), follow_redirects=False)


def _new_room(client, mode="friends"):
    answer = client.post("/rooms", data={"mode": mode, "schedule": "short"})
    assert answer.status_code == 303, answer.text
    return answer.headers["location"].rsplit("/", 1)[-1]


def _hello(socket, secret=None):
    socket.send_json({"type": "hello", "secret": secret})
    return socket.receive_json()


def _read_until_closed(socket):
    read = []
    with pytest.raises(WebSocketDisconnect) as closed:
        for _ in range(200):
            read.append(socket.receive_json())
    return read, closed.value.code


def _until(socket, kind):
    for _ in range(200):
        message = socket.receive_json()
        if message["type"] == kind:
            return message
    raise AssertionError(f"no {kind} message")


class TestReinvitation:
    def test_a_socket_opened_on_the_old_link_before_a_reinvite_opens_nothing(self, client_tables):
        """Opened before the re-invitation, its hello after: refused; the invitee is seated."""
        client, tables = client_tables
        host = _new_room(client)
        room, _ = tables.seat_of(host)
        old = room.seats[Seat.EAST].token
        with (
            client.websocket_connect(f"/ws/{host}") as south,
            client.websocket_connect(f"/ws/{old}") as early,
        ):
            _hello(south)
            time.sleep(0.2)  # the early socket's link has been looked up
            south.send_json({"type": "reinvite", "seat": "E"})
            new = _until(south, "notice") and room.seats[Seat.EAST].token
            assert new != old
            early.send_json({"type": "hello", "secret": None})
            answer = early.receive_json()
            assert answer["type"] == "refused" and answer["reason"] == "unknown_token"
            read, code = _read_until_closed(early)
            assert code == CLOSE_UNKNOWN_TOKEN and read == []
            assert room.seats[Seat.EAST].secret is None
            with client.websocket_connect(f"/ws/{new}") as invitee:
                seated = _hello(invitee)
                assert seated["type"] == "seat" and seated["secret"]

    def test_the_old_holders_action_at_a_reinvite_is_refused(self, client_tables, monkeypatch):
        """An action sent while the host's re-invitation is being stored is never carried out."""
        client, tables = client_tables
        host = _new_room(client)
        room, _ = tables.seat_of(host)
        tokens = {seat: room.seats[seat].token for seat in Seat}
        with (
            client.websocket_connect(f"/ws/{host}") as south,
            client.websocket_connect(f"/ws/{tokens[Seat.WEST]}") as west,
            client.websocket_connect(f"/ws/{tokens[Seat.NORTH]}") as north,
            client.websocket_connect(f"/ws/{tokens[Seat.EAST]}") as east,
        ):
            sockets = {Seat.SOUTH: south, Seat.WEST: west, Seat.NORTH: north, Seat.EAST: east}
            for socket in sockets.values():
                assert _hello(socket)["type"] == "seat"
            deadline = time.monotonic() + 10
            # The seeded deal is made; the host bids until a guest is to act.
            while (room.state.to_move in (None, Seat.SOUTH)) and time.monotonic() < deadline:
                if room.state.to_move is Seat.SOUTH:
                    bid = next(a for a in legal_actions(room.state) if isinstance(a, Bid))
                    south.send_json({"type": "act", "version": room.version, "bid": bid.call})
                time.sleep(0.05)
            guest = room.state.to_move
            assert guest not in (None, Seat.SOUTH)
            version = room.version
            bid = next(a for a in legal_actions(room.state) if isinstance(a, Bid))
            monkeypatch.setattr(tables, "reinvite_later", _slowed(tables.reinvite_later))
            south.send_json({"type": "reinvite", "seat": guest.letter})
            time.sleep(SLOW / 4)  # the re-invitation holds the room, being stored
            sockets[guest].send_json({"type": "act", "version": version, "bid": bid.call})
            read, code = _read_until_closed(sockets[guest])
            assert code == CLOSE_REINVITED
            assert all(m["type"] != "ack" for m in read)
            time.sleep(SLOW)
            assert room.version == version  # the action was not carried out
            assert room.state.to_move is guest

    @pytest.fixture
    def client_tables(self, tables):
        with _client(tables) as client:
            yield client, tables


class TestLimitsAtOnce:
    def test_rooms_sent_at_once_stay_within_the_minute_limit(self, tables, monkeypatch):
        """Forms sent together, each stored slowly: no more rooms than the limit."""
        monkeypatch.setattr(tables, "create_later", _slowed(tables.create_later))
        with (
            _client(tables, rooms_per_minute=3) as client,
            ThreadPoolExecutor(8) as pool,
        ):
            answers = list(
                pool.map(lambda _: client.post("/rooms", data={"mode": "computer"}), range(8))
            )
        codes = sorted(answer.status_code for answer in answers)
        assert codes == [303] * 3 + [429] * 5
        assert len(tables.rooms) == 3

    def test_a_room_not_made_gives_its_count_back(self, tables):
        """A refused form does not use up the address's rooms of the minute."""
        with _client(tables, rooms_per_minute=2) as client:
            for _ in range(3):
                assert client.post("/rooms", data={"mode": "nope"}).status_code == 400
            _new_room(client, "computer"), _new_room(client, "computer")
            assert client.post("/rooms", data={"mode": "computer"}).status_code == 429

    def test_chat_lines_sent_at_once_stay_within_the_minute_limit(self, tables, monkeypatch):
        """Four pages of one seat, each sending lines together: no more than the limit."""
        monkeypatch.setattr(talk_module, "say_later", _slowed(talk_module.say_later))
        with _client(tables, chat_per_minute=3) as client:
            host = _new_room(client)
            room, _ = tables.seat_of(host)
            with client.websocket_connect(f"/ws/{host}") as first:
                secret = _hello(first)["secret"]
                pages = [first]
                try:
                    for _ in range(3):
                        page = client.websocket_connect(f"/ws/{host}").__enter__()
                        pages.append(page)
                        assert _hello(page, secret)["type"] == "seat"
                    for number, page in enumerate(pages):
                        page.send_json({"type": "chat", "text": f"line {number}"})
                    # Each line is stored after the one before (the room's lock): let all end.
                    time.sleep(len(pages) * SLOW + 0.5)
                finally:
                    for page in pages[1:]:
                        page.__exit__(None, None, None)
            assert room.chat_count == 3, room.chat_count


class TestSeatRate:
    def test_a_new_socket_per_burst_does_not_reset_the_seat_rate(self, tables):
        """The budget is the seat's: a fresh socket starts from what the seat has left."""
        with _client(tables, messages_per_second=1) as client:
            host = _new_room(client, "computer")
            with client.websocket_connect(f"/ws/{host}") as first:
                secret = _hello(first)["secret"]
                for _ in range(2):  # the whole burst (twice the rate)
                    first.send_json({"type": "act", "version": -1, "bid": "pass"})
                for _ in range(2):
                    assert _until(first, "refused")["reason"] == "stale"
            with client.websocket_connect(f"/ws/{host}") as second:
                assert _hello(second, secret)["type"] == "seat"
                for _ in range(2):
                    second.send_json({"type": "act", "version": -1, "bid": "pass"})
                read, code = _read_until_closed(second)
                assert code == CLOSE_LIMIT
                assert any(m.get("reason") == "too_many_messages" for m in read)


class TestClaimWithTheClientsSecret:
    def test_a_page_claims_with_its_own_secret_and_comes_back_with_it(self, tables):
        """The page's own secret claims a free seat; not echoed; it holds the seat after."""
        proposal = secrets.token_urlsafe(24)
        with _client(tables) as client:
            host = _new_room(client)
            room, _ = tables.seat_of(host)
            with client.websocket_connect(f"/ws/{host}") as page:
                assert _hello(page, proposal) == {"type": "seat", "seat": "S", "secret": None}
            assert room.seats[Seat.SOUTH].secret == digest(proposal)
            with client.websocket_connect(f"/ws/{host}") as again:
                assert _hello(again, proposal)["type"] == "seat"
            with client.websocket_connect(f"/ws/{host}") as other:
                assert _hello(other, secrets.token_urlsafe(24))["reason"] == "seat_taken"
            west = room.seats[Seat.WEST].token
            for weak in ("short", "x" * 31, "y" * 32 + "!"):
                with client.websocket_connect(f"/ws/{west}") as page:
                    assert _hello(page, weak)["reason"] == "seat_taken"
            assert room.seats[Seat.WEST].secret is None

    def test_a_claim_stored_but_never_answered_is_held_after_a_restart(self, tmp_path):
        """The claim committed, the server gone before its answer: the page's secret holds."""
        tables = Tables(Store(tmp_path / "r.db"))
        room, _ = tables.create("friends", Rules(schedule="short"))
        proposal = secrets.token_urlsafe(24)
        tables.claim_later(room, Seat.SOUTH, proposal).wait()
        tables.store.close()
        again = Tables(Store(tmp_path / "r.db"))
        assert again.holds(again.rooms[room.id], Seat.SOUTH, proposal)
        again.store.close()
