"""The table as an online service: seats no one else can take, limits, escaping, logs.

In process (Starlette's test client); the slow socket and SIGKILL during group
commits are in ``test_table_server.py`` (a real server).
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import threading
import time
import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from table_helpers import receive

from backalley import Rules, Seat
from backalley.web.app import make_app
from backalley.web.limits import (
    CLOSE_IDLE,
    CLOSE_LIMIT,
    CLOSE_NO_HELLO,
    CLOSE_REINVITED,
    CLOSE_SEAT_TAKEN,
    CLOSE_UNKNOWN_TOKEN,
    Limits,
)
from backalley.web.outbox import Outbox
from backalley.web.rooms import Refused, Tables, digest
from backalley.web.store import Store, Write, action_write


@pytest.fixture
def tables(tmp_path):
    made = Tables(Store(tmp_path / "rooms.db"))
    yield made
    made.store.close()


def _client(tables, **limits):
    return TestClient(
        make_app(tables, pace=0, limits=Limits(**limits)),
        follow_redirects=False,
    )


@pytest.fixture
def client(tables):
    with _client(tables, messages_per_second=10_000) as test_client:
        yield test_client


def _new_room(client, mode="friends"):
    answer = client.post("/rooms", data={"mode": mode, "schedule": "short"})
    assert answer.status_code == 303, answer.text
    return answer.headers["location"].rsplit("/", 1)[-1]


def _hello(socket, secret=None):
    socket.send_json({"type": "hello", "secret": secret})
    return receive(socket)


def _closed_with(socket):
    """Read until the socket closes; the messages read and the close code."""
    read = []
    with pytest.raises(WebSocketDisconnect) as closed:
        for _ in range(100):
            read.append(receive(socket))
    return read, closed.value.code


def _state(socket):
    for _ in range(200):
        message = receive(socket)
        if message["type"] == "state":
            return message
    raise AssertionError("no state frame")


class TestSeats:
    def test_a_claimed_link_gives_anyone_else_no_hand_and_no_action(self, client, tables):
        """The host (or anyone) opening a guest's claimed link: refused, closed, nothing sent."""
        host = _new_room(client)
        room, _ = tables.seat_of(host)
        west = room.seats[Seat.WEST].token
        with client.websocket_connect(f"/ws/{west}") as guest:
            seated = _hello(guest)
            assert seated["type"] == "seat" and seated["seat"] == "W" and seated["secret"]
            assert room.seats[Seat.WEST].secret == digest(seated["secret"])
            assert _state(guest)["seat"] == "W"
            for forged in (None, "x" * 32, seated["secret"][:-1] + "A"):
                with client.websocket_connect(f"/ws/{west}") as other:
                    other.send_json({"type": "hello", "secret": forged})
                    read, code = _closed_with(other)
                    # Whatever else the room says on the way, the refusal is among it.
                    refused = [m for m in read if m["type"] == "refused"]
                    assert [m["reason"] for m in refused] == ["seat_taken"]
                    assert code == CLOSE_SEAT_TAKEN
                    # No frame, so no hand; and the socket is closed, so no action.
                    assert all(message["type"] != "state" for message in read)
            # The claiming browser reconnects with its secret: still its seat.
        with client.websocket_connect(f"/ws/{west}") as again:
            assert _hello(again, seated["secret"]) == {
                "type": "seat",
                "seat": "W",
                "secret": None,
            }
            assert _state(again)["seat"] == "W"

    def test_an_act_before_hello_is_refused_and_closed(self, client, tables):
        """Nothing but a hello is read first: an action on a fresh socket closes it."""
        host = _new_room(client, "computer")
        with client.websocket_connect(f"/ws/{host}") as socket:
            socket.send_json({"type": "act", "version": 0, "bid": "pass"})
            read, code = _closed_with(socket)
            assert read[0]["reason"] == "hello_first" and code == CLOSE_NO_HELLO
        room, _ = tables.seat_of(host)
        assert room.seats[Seat.SOUTH].secret is None  # and the seat is still unclaimed

    def test_the_host_is_never_sent_a_claimed_seats_link_or_secret(self, client, tables):
        """The host's frames list only the unclaimed invitations; no secret ever."""
        host = _new_room(client)
        room, _ = tables.seat_of(host)
        with client.websocket_connect(f"/ws/{host}") as south:
            _hello(south)
            assert set(_state(south)["links"]) == {"N", "E", "W"}
            with client.websocket_connect(f"/ws/{room.seats[Seat.NORTH].token}") as north:
                secret = _hello(north)["secret"]
                frame = _state(south)
                while frame["seats"][0]["claimed"] is False:  # N is listed first
                    frame = _state(south)
                assert set(frame["links"]) == {"E", "W"}
                assert secret not in json.dumps(frame)

    def test_the_host_reinvites_a_seat_and_its_old_holder_is_cut_off(self, client, tables):
        """A new link: the old holder is closed (4410), the room is told, the old link dead."""
        host = _new_room(client)
        room, _ = tables.seat_of(host)
        old = room.seats[Seat.EAST].token
        with (
            client.websocket_connect(f"/ws/{host}") as south,
            client.websocket_connect(f"/ws/{old}") as east,
        ):
            _hello(south)
            secret = _hello(east)["secret"]
            _state(east)
            south.send_json({"type": "reinvite", "seat": "E"})
            read, code = _closed_with(east)
            assert code == CLOSE_REINVITED
            assert any(m.get("reason") == "reinvited" for m in read)
            notices = []
            for _ in range(20):
                message = receive(south)
                if message["type"] == "notice":
                    notices.append(message)
                    break
            assert notices and "East" in notices[0]["message"]
            frame = _state(south)
            new = frame["links"]["E"].rsplit("/", 1)[-1]
            assert new != old and room.seats[Seat.EAST].secret is None
        with client.websocket_connect(f"/ws/{old}") as stale:
            read, code = _closed_with(stale)
            assert code == CLOSE_UNKNOWN_TOKEN and read[0]["reason"] == "unknown_token"
        with client.websocket_connect(f"/ws/{new}") as fresh:
            assert _hello(fresh)["secret"]
        with client.websocket_connect(f"/ws/{new}") as fresh:
            assert _hello(fresh, secret)["reason"] == "seat_taken"  # the old secret: void

    def test_only_the_host_reinvites_and_only_guest_seats(self, tmp_path):
        """A guest may not re-invite; nor may the host renew its own or a computer's seat."""
        tables = Tables(Store(tmp_path / "r.db"))
        room, _ = tables.create("friends", Rules(schedule="short"))
        for by, seat, reason in (
            (Seat.WEST, Seat.EAST, "not_host"),
            (Seat.SOUTH, Seat.SOUTH, "not_a_guest_seat"),
        ):
            with pytest.raises(Refused) as refused:
                tables.reinvite(room, by, seat)
            assert refused.value.reason == reason
        computer, _ = tables.create("computer", Rules(schedule="short"))
        assert all(row.token is None for s, row in computer.seats.items() if s is not Seat.SOUTH)
        with pytest.raises(Refused) as refused:
            tables.reinvite(computer, Seat.SOUTH, Seat.NORTH)
        assert refused.value.reason == "not_host"

    def test_a_claim_and_a_reinvite_survive_a_restart(self, tmp_path):
        """Secrets are stored as digests; a reopened database holds the same seats."""
        tables = Tables(Store(tmp_path / "r.db"))
        room, _ = tables.create("friends", Rules(schedule="short"))
        secret = tables.claim(room, Seat.WEST)
        token = tables.reinvite(room, Seat.SOUTH, Seat.NORTH)
        tables.store.close()
        again = Tables(Store(tmp_path / "r.db"))
        copy = again.rooms[room.id]
        assert again.holds(copy, Seat.WEST, secret)
        assert not again.holds(copy, Seat.WEST, "guess")
        assert again.seat_of(token) == (copy, Seat.NORTH)
        raw = (tmp_path / "r.db").read_bytes() + (tmp_path / "r.db-wal").read_bytes()
        assert secret.encode() not in raw


class TestLimits:
    def test_sockets_over_the_seat_limit_get_the_limit_code(self, tables):
        """A third socket at a seat (limit 2) is refused with 4429."""
        with _client(tables, sockets_per_seat=2) as client:
            host = _new_room(client, "computer")
            with client.websocket_connect(f"/ws/{host}") as first:
                secret = _hello(first)["secret"]
                with client.websocket_connect(f"/ws/{host}") as second:
                    assert _hello(second, secret)["type"] == "seat"
                    with client.websocket_connect(f"/ws/{host}") as third:
                        refused = _hello(third, secret)
                        assert refused["reason"] == "too_many_sockets"
                        assert _closed_with(third)[1] == CLOSE_LIMIT

    def test_sockets_over_the_address_limit_get_the_limit_code(self, tables):
        """Sockets from one address beyond the limit, in any rooms: 4429 before hello."""
        with _client(tables, sockets_per_address=2) as client:
            one, two = _new_room(client, "computer"), _new_room(client, "computer")
            with (
                client.websocket_connect(f"/ws/{one}") as first,
                client.websocket_connect(f"/ws/{two}") as second,
            ):
                _hello(first), _hello(second)
                with client.websocket_connect(f"/ws/{one}") as third:
                    read, code = _closed_with(third)
                    assert read[0]["reason"] == "too_many_sockets" and code == CLOSE_LIMIT
            # Closed sockets are counted out again.
            with client.websocket_connect(f"/ws/{one}") as again:
                assert _hello(again)["reason"] == "seat_taken"

    def test_a_socket_over_its_message_rate_is_closed(self, tables):
        """More messages than the rate allows (burst twice the rate): refused, then 4429."""
        with _client(tables, messages_per_second=2) as client:
            host = _new_room(client, "computer")
            with client.websocket_connect(f"/ws/{host}") as socket:
                _hello(socket)
                for _ in range(8):
                    socket.send_json({"type": "act", "version": -1, "bid": "pass"})
                read, code = _closed_with(socket)
                assert code == CLOSE_LIMIT
                assert any(m.get("reason") == "too_many_messages" for m in read)

    def test_rooms_over_the_rate_are_refused(self, tables):
        """One address making more rooms a minute than allowed: 429 and no room."""
        with _client(tables, rooms_per_minute=3) as client:
            for _ in range(3):
                _new_room(client, "computer")
            answer = client.post("/rooms", data={"mode": "computer"})
            assert answer.status_code == 429 and "3 rooms a minute" in answer.text
            assert len(tables.rooms) == 3

    def test_a_socket_that_never_says_hello_is_closed(self, tables):
        """No hello within the deadline: closed with 4401."""
        with _client(tables, hello_deadline=0.2) as client:
            host = _new_room(client, "computer")
            with client.websocket_connect(f"/ws/{host}") as socket:
                read, code = _closed_with(socket)
                assert code == CLOSE_NO_HELLO and read[0]["reason"] == "no_hello"

    def test_an_idle_socket_is_closed(self, tables):
        """A socket that sends nothing for longer than the idle limit is closed (and may return)."""
        with _client(tables, idle=0.2) as client:
            host = _new_room(client, "computer")
            server = client.app.state.server
            with client.websocket_connect(f"/ws/{host}") as socket:
                _hello(socket)
                time.sleep(0.3)
                client.portal.call(_sweep, server)
                read, code = _closed_with(socket)
                assert any(m.get("reason") == "idle" for m in read) and code == CLOSE_IDLE


async def _sweep(server):
    server.sweep()


class TestInputAndLogs:
    @pytest.mark.parametrize("field", ["mode", "schedule", "tie", "first_dealer", "player"])
    def test_a_value_not_among_its_choices_is_refused_by_name_and_nothing_echoed(
        self, client, tables, field
    ):
        """Markup in any field: 400, the field named, the markup never in the page."""
        form = {"mode": "computer", field: '<meta http-equiv="refresh" content="0;url=x">'}
        answer = client.post("/rooms", data=form)
        assert answer.status_code == 400
        assert f"The field {field} is one of" in answer.text
        assert "<meta http-equiv" not in answer.text and tables.rooms == {}

    def test_every_echo_is_escaped(self, tables):
        """A page that quotes what it was given writes it as text, never as markup."""
        from backalley.web.pages import page  # noqa: PLC0415 -- the one page builder

        text = page("<b>x</b>", "<script>alert(1)</script> & <i>", 400).body.decode()
        assert "<script>" not in text and "&lt;script&gt;" in text
        assert "<b>x</b>" not in text and "&amp;" in text

    def test_a_cut_off_post_is_one_log_line(self, tables, caplog):
        """A form whose client goes away mid-body: one line (address, reason), no traceback."""
        app = make_app(tables, pace=0)
        messages = [
            {"type": "http.request", "body": b"mode=comp", "more_body": True},
            {"type": "http.disconnect"},
        ]
        sent = []

        async def receive():
            return messages.pop(0) if messages else {"type": "http.disconnect"}

        async def send(message):
            sent.append(message)

        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": "/rooms",
            "raw_path": b"/rooms",
            "query_string": b"",
            "root_path": "",
            "headers": [(b"content-type", b"application/x-www-form-urlencoded")],
            "client": ("127.0.0.9", 5000),
            "server": ("127.0.0.1", 8000),
            "app": app,
        }
        with caplog.at_level(logging.INFO):
            asyncio.run(app(scope, receive, send))
        lines = [r for r in caplog.records if r.name.startswith(("backalley", "uvicorn"))]
        assert len(lines) == 1, [r.getMessage() for r in lines]
        assert lines[0].exc_info is None and "cut off" in lines[0].getMessage()
        assert "127.0.0.9" in lines[0].getMessage()
        assert tables.rooms == {}

    def test_a_socket_closed_before_its_ack_skips_nothing(self, client, tables, caplog):
        """An act then an immediate close: stored, no traceback, the computers go on."""
        host = _new_room(client, "computer")
        room, _ = tables.seat_of(host)
        with client.websocket_connect(f"/ws/{host}") as socket:
            secret = _hello(socket)["secret"]
            frame = _state(socket)
            while not frame["your_turn"]:
                frame = _state(socket)
            version = frame["version"]
            socket.send_json({"type": "act", "version": version, "bid": "1"})
        # The computers answer the bid with the page gone: the room moves on past it.
        for _ in range(400):
            if room.version > version + 1 and not room.automatic_due:
                break
            time.sleep(0.01)
        assert room.version > version + 1 and not room.automatic_due
        assert tables.store.action_count(room.id) == room.version
        assert not [r for r in caplog.records if r.exc_info]
        with client.websocket_connect(f"/ws/{host}") as socket:
            _hello(socket, secret)
            assert _state(socket)["version"] == room.version


class TestOutbox:
    def test_a_send_that_never_ends_cuts_the_socket_after_the_deadline(self):
        """A socket that never takes its frame: cut after the deadline; puts never wait."""

        async def scenario():
            cut = []

            async def never(text):
                await asyncio.Event().wait()

            box = Outbox(never, limit=8, deadline=0.1, on_cut=cut.append)
            task = asyncio.get_running_loop().create_task(box.run())
            started = time.perf_counter()
            for number in range(1000):
                box.put_view(f"view {number}")  # a newer view replaces the waiting one
            assert time.perf_counter() - started < 0.5
            await asyncio.wait_for(task, 2)
            return cut

        cut = asyncio.run(scenario())
        assert len(cut) == 1 and "0.1 s" in cut[0]

    def test_a_full_queue_cuts_the_socket(self):
        """Acknowledgements beyond the queue's bound: cut once, the rest dropped."""

        async def scenario():
            cut = []
            gate = asyncio.Event()

            async def slow(text):
                await gate.wait()

            box = Outbox(slow, limit=3, deadline=10, on_cut=cut.append)
            task = asyncio.get_running_loop().create_task(box.run())
            await asyncio.sleep(0)
            for number in range(10):
                box.put(f"ack {number}")
            gate.set()
            await asyncio.wait_for(task, 2)
            return cut, box.sent

        cut, sent = asyncio.run(scenario())
        assert len(cut) == 1 and "3 messages" in cut[0] and sent <= 1


class TestStore:
    def test_changes_from_many_threads_are_committed_in_groups(self, tmp_path):
        """Actions handed in together share commits; each future resolves once committed."""
        tables = Tables(Store(tmp_path / "r.db"))
        rooms = [tables.create("computer", Rules(schedule="short"))[0] for _ in range(8)]
        before = tables.store.groups
        futures = []
        lock = threading.Lock()

        def write(room):
            for seq in range(20):
                future = tables.store.submit(
                    action_write(room.id, seq, "deal", time.time(), finished=False)
                )
                with lock:
                    futures.append(future)

        threads = [threading.Thread(target=write, args=(room,)) for room in rooms]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for future in futures:
            future.result(timeout=30)
        assert all(tables.store.action_count(room.id) == 20 for room in rooms)
        assert tables.store.groups - before < len(futures)

    def test_one_refused_change_leaves_its_group_committed(self, tmp_path):
        """An action number taken fails alone; the others of its group are stored."""
        store = Store(tmp_path / "r.db")
        tables = Tables(store)
        room, _ = tables.create("computer", Rules(schedule="short"))
        store.submit(action_write(room.id, 0, "deal", 1.0, finished=False)).result()
        groups_before = store.groups

        # The writer held (by the store's lock) on a first write while two more queue up
        # behind it: those two are one group.
        with store._lock:
            store.submit(Write((("UPDATE rooms SET active = active WHERE id = ?", (("-",),)),)))
            time.sleep(0.1)
            taken = store.submit(action_write(room.id, 0, "deal", 2.0, finished=False))
            fine = store.submit(action_write(room.id, 1, "S pass", 2.0, finished=False))
        fine.result()
        with pytest.raises(sqlite3.IntegrityError):
            taken.result()
        assert store.action_count(room.id) == 2
        assert store.groups == groups_before + 2


class TestMemory:
    def test_finished_and_abandoned_rooms_leave_memory_and_come_back_by_link(self, tmp_path):
        """Evicted rooms stay on disk; their links load them again; a restart skips them."""
        now = [1000.0]
        store = Store(tmp_path / "r.db")
        tables = Tables(store, clock=lambda: now[0])
        room, token = tables.create("computer", Rules(schedule=[1]))
        while not room.is_over:
            if tables.step(room) is None:
                seat = room.state.to_move
                from backalley import legal_actions  # noqa: PLC0415

                action = legal_actions(room.state)[0]
                field = "bid" if hasattr(action, "call") else "play"
                value = action.call if field == "bid" else action.card.code
                tables.act(room, seat, room.version, field, value)
        playing, playing_token = tables.create("friends", Rules(schedule="short"))
        now[0] += 100
        assert tables.evict(finished_keep=60, abandoned_after=3600) == [room]
        assert room.id not in tables.rooms and playing.id in tables.rooms
        back, seat = tables.seat_of(token)
        assert back.id == room.id and back.is_over and back.version == room.version
        now[0] += 4000
        assert {r.id for r in tables.evict(finished_keep=60, abandoned_after=3600)} == {
            room.id,
            playing.id,
        }
        store.close()
        again = Tables(Store(tmp_path / "r.db"), clock=lambda: now[0], resume_within=3600)
        assert again.rooms == {}  # nothing replayed at start
        assert again.seat_of(playing_token)[0].id == playing.id

    def test_a_schema_1_database_is_migrated(self, tmp_path):
        """A database of the earlier schema opens: its seats unclaimed, its rooms kept."""
        path = tmp_path / "old.db"
        db = sqlite3.connect(path)
        db.executescript(
            """
            CREATE TABLE rooms (id TEXT PRIMARY KEY, mode TEXT NOT NULL, rules TEXT NOT NULL,
                seed TEXT NOT NULL, created REAL NOT NULL);
            CREATE TABLE seats (room TEXT NOT NULL REFERENCES rooms(id), seat TEXT NOT NULL,
                token TEXT UNIQUE, occupant TEXT NOT NULL, player TEXT,
                PRIMARY KEY (room, seat));
            CREATE TABLE actions (room TEXT NOT NULL REFERENCES rooms(id),
                seq INTEGER NOT NULL, action TEXT NOT NULL, PRIMARY KEY (room, seq));
            PRAGMA user_version = 1;
            """
        )
        fresh = Tables(Store(tmp_path / "new.db"))
        room, token = fresh.create("computer", Rules(schedule="short"))
        stored = next(fresh.store.rooms())
        fresh.store.close()
        new = sqlite3.connect(tmp_path / "new.db")
        rules = new.execute("SELECT rules FROM rooms").fetchone()[0]
        db.execute(
            "INSERT INTO rooms VALUES (?, 'computer', ?, ?, ?)",
            (room.id, rules, str(room.seed), time.time()),
        )
        for row in stored.seats:
            db.execute(
                "INSERT INTO seats VALUES (?, ?, ?, ?, ?)",
                (room.id, row.seat.letter, row.token, row.occupant, row.player),
            )
        db.commit()
        db.close()
        tables = Tables(Store(path))
        assert tables.seat_of(token)[0].id == room.id
        assert tables.rooms[room.id].seats[Seat.SOUTH].secret is None
