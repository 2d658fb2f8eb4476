"""The table against an attacker: races at a re-invitation, limits passed at once, rates.

In process (Starlette's test client). Each test fails on a server that checks the
link only when the socket opens, carries out what a socket being cut sent, counts
a limit only after its await, or keeps a message budget per socket.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import sys
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from table_helpers import receive
from test_table_analysis import _finished

from backalley import Bid, Rules, Seat, legal_actions
from backalley.web import analysis as analysis_module
from backalley.web import pages as pages_module
from backalley.web import talk as talk_module
from backalley.web.app import make_app
from backalley.web.howto import howto_steps
from backalley.web.limits import CLOSE_LIMIT, CLOSE_REINVITED, CLOSE_UNKNOWN_TOKEN, Limits
from backalley.web.logs import OneLine
from backalley.web.rooms import Tables, digest
from backalley.web.store import Store
from backalley.web.transport import STATIC_MAX_AGE, STATIC_RATE_FACTOR

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
    return receive(socket)


def _read_until_closed(socket):
    read = []
    with pytest.raises(WebSocketDisconnect) as closed:
        for _ in range(200):
            read.append(receive(socket))
    return read, closed.value.code


def _until(socket, kind):
    for _ in range(200):
        message = receive(socket)
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
            answer = receive(early)
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

    def test_rooms_from_every_address_are_held_to_the_rooms_limit(self, tables):
        """Many addresses together: past the rooms in memory a new one is refused (503)."""
        app = make_app(tables, pace=0, limits=Limits(rooms=2))
        with TestClient(app, follow_redirects=False) as first:
            for number in range(3):
                other = TestClient(app, follow_redirects=False, client=(f"192.0.2.{number}", 1))
                answer = other.post("/rooms", data={"mode": "computer"})
                assert answer.status_code == (503 if number == 2 else 303)
            assert "too many rooms" in answer.text and len(tables.rooms) == 2
            assert first.post("/rooms", data={"mode": "computer"}).status_code == 503

    def test_rooms_sent_at_once_from_many_addresses_stay_within_the_rooms_limit(
        self, tables, monkeypatch
    ):
        """Forms from several addresses at once, each stored slowly: no more rooms than held."""
        monkeypatch.setattr(tables, "create_later", _slowed(tables.create_later))
        app = make_app(tables, pace=0, limits=Limits(rooms=2))

        def post(number):
            client = TestClient(app, follow_redirects=False, client=(f"192.0.2.{number}", 1))
            return client.post("/rooms", data={"mode": "computer"}).status_code

        with TestClient(app), ThreadPoolExecutor(5) as pool:
            codes = sorted(pool.map(post, range(5)))
        assert codes == [303, 303, 503, 503, 503] and len(tables.rooms) == 2

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


class TestFixedAnswers:
    def test_the_howto_steps_are_encoded_once_and_carry_an_etag(self, tables):
        """The same bytes every time, an ETag, and 304 with no body when it is named."""
        with _client(tables) as client:
            first = client.get("/how-to/steps.json")
            second = client.get("/how-to/steps.json")
            assert first.status_code == second.status_code == 200
            etag = first.headers["etag"]
            assert etag == second.headers["etag"] and first.content == second.content
            assert first.headers["cache-control"] == "no-cache"
            assert first.json() == json.loads(json.dumps(howto_steps()))
            again = client.get("/how-to/steps.json", headers={"if-none-match": etag})
            assert again.status_code == 304 and again.content == b""
            assert again.headers["etag"] == etag
            other = client.get("/how-to/steps.json", headers={"if-none-match": '"other"'})
            assert other.status_code == 200
        assert pages_module.howto_answer() is pages_module.howto_answer()

    @pytest.mark.parametrize("path", ["/", "/how-to"])
    def test_the_pages_carry_an_etag(self, tables, path):
        """The lobby and the how-to page: an ETag, and 304 when it is named."""
        with _client(tables) as client:
            first = client.get(path)
            assert first.status_code == 200 and "text/html" in first.headers["content-type"]
            again = client.get(path, headers={"if-none-match": first.headers["etag"]})
            assert again.status_code == 304 and again.content == b""

    def test_a_seats_page_is_never_kept_by_the_browser(self, tables):
        """Under a seat's address (its invitation) the answer stays ``no-store``."""
        with _client(tables) as client:
            host = _new_room(client)
            answer = client.get(f"/seat/{host}")
            assert answer.status_code == 200 and answer.headers["cache-control"] == "no-store"
            assert answer.headers.get_list("cache-control") == ["no-store"]

    def test_a_finished_record_is_made_once(self, tables, monkeypatch):
        """The record of a finished match: encoded on the first request only; 304 after."""
        _room, token = _finished(tables)
        made = []
        original = pages_module.dumps

        def counted(*args, **kwargs):
            made.append(1)
            return original(*args, **kwargs)

        monkeypatch.setattr(pages_module, "dumps", counted)
        with _client(tables) as client:
            first = client.get(f"/record/{token}")
            second = client.get(f"/record/{token}")
            assert first.status_code == second.status_code == 200
            assert first.content == second.content and len(made) == 1
            assert first.headers["content-disposition"].startswith("attachment;")
            again = client.get(f"/record/{token}", headers={"if-none-match": first.headers["etag"]})
            assert again.status_code == 304


class TestRequestRate:
    def test_every_route_is_held_to_the_address_rate(self, tables):
        """Over its rate (bursts of twice it) an address is refused 429 on every route."""
        with _client(tables, requests_per_second=2) as client:
            unknown = "/seat/" + "C" * 32  # each one a lookup of the database
            assert [client.get(unknown).status_code for _ in range(4)] == [404] * 4
            for path in (unknown, "/", "/how-to/steps.json", "/record/x"):
                answer = client.get(path)
                assert answer.status_code == 429, path
                assert answer.headers["retry-after"] == "1"
                assert answer.headers["x-content-type-options"] == "nosniff"
            assert client.post("/rooms", data={"mode": "computer"}).status_code == 429
            with (
                pytest.raises(WebSocketDisconnect) as closed,
                client.websocket_connect("/ws/" + "C" * 32) as socket,
            ):
                receive(socket)
            assert closed.value.code == CLOSE_LIMIT
            time.sleep(1.1)  # the budget fills again
            assert client.get("/").status_code == 200

    def test_static_files_have_a_budget_of_their_own_and_are_kept_by_the_browser(self, tables):
        """A table draws every card from one sprite: its bursts spend a budget of their own
        (ten times the rate), never the page's, and the browser may keep the answer."""
        with _client(tables, requests_per_second=2) as client:
            assert [client.get("/").status_code for _ in range(4)] == [200] * 4
            assert client.get("/").status_code == 429  # the pages' budget is spent
            sprite = [client.get("/static/cards.svg") for _ in range(40)]  # 10 x 2, bursts x 2
            assert [answer.status_code for answer in sprite] == [200] * 40
            assert sprite[0].headers["cache-control"] == f"public, max-age={STATIC_MAX_AGE}"
            # And it has an end: a flood of them is refused too.
            assert 429 in {client.get("/static/table.css").status_code for _ in range(200)}
            assert STATIC_RATE_FACTOR == 10

    def test_another_address_keeps_its_own_rate(self, tables):
        """One address over its rate refuses nobody else."""
        app = make_app(tables, pace=0, limits=Limits(requests_per_second=1))
        # The second client shares the first one's server (no lifespan of its own).
        two = TestClient(app, client=("192.0.2.2", 1000))
        with TestClient(app, client=("192.0.2.1", 1000)) as one:
            assert [one.get("/").status_code for _ in range(3)] == [200, 200, 429]
            assert two.get("/").status_code == 200


class TestAnalysisShare:
    def test_one_address_cannot_fill_the_analysis_queue(self, tables, monkeypatch):
        """Past its share an address is refused (429); another address still gets a place."""
        # The workers never start: every job stays queued, as behind a long analysis.
        monkeypatch.setattr(analysis_module.Analyses, "_run", _never)
        rooms = [_finished(tables) for _ in range(3)]
        limits = dict(analysis_workers=1, analysis_queue=8, analysis_per_address=2)
        with _client(tables, **limits) as client:
            answers = [client.get(f"/analysis/{token}/status") for _room, token in rooms]
            assert [answer.status_code for answer in answers] == [200, 200, 429]
            assert answers[2].json()["reason"] == "analysis_share"
            analyses = client.app.state.server.analyses
            job = client.portal.call(_request, analyses, rooms[2][0], "192.0.2.9")
            assert job.status == "queued"


async def _never(self, room, state, job):
    await asyncio.sleep(0)


async def _request(analyses, room, address):
    return analyses.request(room, address)


def test_every_limit_has_a_flag_and_a_line_in_the_docs():
    """Each field of ``Limits``: a ``backalley table`` flag and a row of docs/table.md's table."""
    import attrs  # noqa: PLC0415

    from backalley.cli.table import _LIMIT_FLAGS  # noqa: PLC0415

    docs = (Path(__file__).resolve().parents[2] / "docs" / "table.md").read_text()
    fields = [field.name for field in attrs.fields(Limits)]
    assert sorted(name for name, *_ in _LIMIT_FLAGS) == sorted(fields)
    for name in fields:
        flag = "--" + name.replace("_", "-")
        assert f"| `{flag}` |" in docs, flag


def test_the_sweep_forgets_chat_counts_and_the_voice_of_rooms_gone(tables):
    """Many rooms over time: the server's counts by room do not grow without end."""
    with _client(tables) as client:
        host = _new_room(client)
        room, _ = tables.seat_of(host)
        with client.websocket_connect(f"/ws/{host}") as page:
            _hello(page)
            page.send_json({"type": "voice", "on": True})
            page.send_json({"type": "chat", "text": "hello"})
            _until(page, "voice")
            for _ in range(5):
                if _until(page, "chat")["lines"]:
                    break
        talk = client.app.state.server.talk
        assert talk._said
        talk.voice[room.id] = {Seat.SOUTH}
        talk.sweep(time.monotonic() + 61, [room])
        assert talk._said == {} and room.id not in talk.voice


def test_a_logged_exception_is_one_line_and_repeats_are_counted():
    """The log filter: no traceback; past the burst, lines left out and then counted."""
    now = [0.0]
    one = OneLine(burst=2, window=10.0, clock=lambda: now[0])
    try:
        raise UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")
    except UnicodeDecodeError:
        record = logging.getLogger("uvicorn.error").makeRecord(
            "uvicorn.error", logging.ERROR, __file__, 1, "Invalid UTF-8", (), sys.exc_info()
        )
    assert one.filter(record) and record.exc_info is None
    text = logging.Formatter().format(record)
    assert "Traceback" not in text and "\n" not in text and "UnicodeDecodeError" in text
    lines = [logging.makeLogRecord({"msg": "address %s: refused", "args": (n,)}) for n in range(5)]
    assert [one.filter(line) for line in lines] == [True, True, False, False, False]
    now[0] = 11.0
    later = logging.makeLogRecord({"msg": "address %s: refused", "args": ("x",)})
    assert one.filter(later)
    assert "(and 3 more like it left out)" in later.getMessage()
