"""The table's web server in process (Starlette's test client): pages, sockets, security."""

from __future__ import annotations

import json
import random
import time
import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
pytest.importorskip("segno")

import segno
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

with warnings.catch_warnings():
    # Starlette's test client announces a move to another HTTP client; httpx still works.
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from table_helpers import leaks, receive, states_by_version

from backalley import Seat
from backalley.formats.checking import check
from backalley.formats.records import loads
from backalley.web.app import make_app
from backalley.web.limits import CLOSE_UNKNOWN_TOKEN, Limits
from backalley.web.names import LEVELS, PLAY_NOW, clean_name
from backalley.web.pages import qr_svg
from backalley.web.rooms import Tables
from backalley.web.store import Store


@pytest.fixture
def tables(tmp_path):
    made = Tables(Store(tmp_path / "rooms.db"))
    yield made
    made.store.close()


@pytest.fixture
def client(tables):
    # Scripted seats act far faster than people: the message rate is not what is tested here.
    limits = Limits(messages_per_second=10_000)
    with TestClient(make_app(tables, pace=0, limits=limits), follow_redirects=False) as test_client:
        yield test_client


def _new_room(client, mode="friends", **form):
    answer = client.post("/rooms", data={"mode": mode, "schedule": "short", **form})
    assert answer.status_code == 303, answer.text
    return answer.headers["location"].rsplit("/", 1)[-1]


def _hello(socket, secret=None):
    """Say hello (claim the seat, or show its secret); the seat's secret."""
    socket.send_json({"type": "hello", "secret": secret})
    answer = receive(socket)
    assert answer["type"] == "seat", answer
    return answer["secret"] or secret


def _state(socket):
    """The next state frame (acks skipped)."""
    for _ in range(50):
        message = receive(socket)
        if message["type"] == "state":
            return message
    raise AssertionError("no state frame")


class TestPages:
    def test_the_lobby_offers_both_ways_to_play_and_the_games(self, client):
        """The lobby: Play now first, then with friends; the levels by players' names."""
        page = client.get("/")
        assert page.status_code == 200
        text = page.text
        assert text.index('id="play-now"') < text.index('id="friends-now"') < text.index("<h2")
        for words in ("Against the computer", "With three friends", "tiebreak-deal"):
            assert words in text
        assert 'value="short"' in text and 'value="standard"' in text
        # Every computer level by its name for players, Play now's chosen; no engine's name.
        for key, level in LEVELS.items():
            assert f'value="{key}"' in text and f"> {level.name} (" in text
        first = PLAY_NOW
        assert f'value="{first}" checked' in text
        assert f'name="player" value="{first}">' in text  # the Play now button's level
        for word in ("Heuristic", "Monte Carlo", "heuristic (", "{first-level}", "<!-- levels"):
            assert word not in text

    def test_a_seats_link_as_a_qr_code_and_nothing_else(self, client):
        """The host's QR code of a link: SVG for a seat's own token, 404 for any other."""
        token = _new_room(client)
        answer = client.get(f"/qr/{token}.svg")
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("image/svg+xml")
        assert answer.text.startswith("<svg") and "<script" not in answer.text
        assert 'xmlns="http://www.w3.org/2000/svg"' in answer.text  # an image of its own
        assert answer.text == qr_svg(f"http://testserver/seat/{token}")
        matrix = segno.make(f"http://testserver/seat/{token}", error="m").matrix
        assert len(matrix) >= 21
        assert client.get("/qr/not-a-token.svg").status_code == 404

    def test_pages_fetch_nothing_from_other_hosts(self, client):
        """Every script, style and socket is the server's own (a content security policy)."""
        page = client.get("/")
        policy = page.headers["content-security-policy"]
        assert "default-src 'self'" in policy and "connect-src 'self'" in policy
        assert page.headers["referrer-policy"] == "no-referrer"
        assets = ("/static/table.js", "/static/table.css", "/static/table.html", "/")
        for asset in (*assets, "/static/cards.svg"):
            answer = client.get(asset)
            assert answer.status_code == 200, asset
            # SVG's namespace is a name, not an address: nothing is fetched from it.
            text = answer.text.replace('"http://www.w3.org/2000/svg"', "")
            text = text.replace('"http://www.w3.org/1999/xlink"', "")
            assert "http://" not in text and "https://" not in text, asset

    def test_a_room_leads_to_the_hosts_seat_and_unknown_seats_to_404(self, client, tables):
        """POST /rooms redirects to the host's seat page; a forged link is a 404 with a sentence."""
        token = _new_room(client, "computer", player="montecarlo", tie="tiebreak-deal")
        room, seat = tables.seat_of(token)
        assert seat is Seat.SOUTH and room.rules.tie.value == "tiebreak-deal"
        assert client.get(f"/seat/{token}").status_code == 200
        missing = client.get("/seat/" + "A" * 32)
        assert missing.status_code == 404 and "not known" in missing.text

    @pytest.mark.parametrize(
        "form",
        [
            {"mode": "solo"},
            {"mode": "computer", "schedule": "endless"},
            {"mode": "computer", "player": "oracle"},
            {"mode": "computer", "tie": "coin"},
            {"mode": "computer", "first_dealer": "Q"},
        ],
    )
    def test_a_bad_lobby_form_is_refused_with_a_sentence(self, client, tables, form):
        """Bad form values: 400 and a sentence, and no room made."""
        answer = client.post("/rooms", data=form)
        assert answer.status_code == 400 and '<p role="alert">' in answer.text
        assert tables.rooms == {}

    def test_an_oversized_form_is_refused(self, client, tables):
        """A form far longer than the lobby's is not read."""
        answer = client.post("/rooms", content=b"mode=computer&x=" + b"y" * 10_000)
        assert answer.status_code == 413 and tables.rooms == {}


class TestSockets:
    def test_a_forged_token_is_refused_and_closed(self, client):
        """The socket of an unknown link says why, then closes with 4404."""
        with client.websocket_connect("/ws/" + "B" * 32) as socket:
            refused = receive(socket)
            assert refused["type"] == "refused" and refused["reason"] == "unknown_token"
            with pytest.raises(WebSocketDisconnect) as closed:
                receive(socket)
            assert closed.value.code == CLOSE_UNKNOWN_TOKEN

    def test_a_computer_room_plays_to_your_turn_and_a_dimmed_card_says_why(self, client, tables):
        """The computers bid; a refused card comes back with apply's code and sentence."""
        token = _new_room(client, "computer")
        room, _ = tables.seat_of(token)
        with client.websocket_connect(f"/ws/{token}") as socket:
            _hello(socket)
            frame = _state(socket)
            while not frame["your_turn"]:
                frame = _state(socket)
            assert frame["status"] == "Your turn to bid." and frame["bids"]
            socket.send_json({"type": "act", "version": frame["version"], "bid": "9"})
            refused = receive(socket)
            assert refused["reason"] == "bid_out_of_range" and refused["message"]
            assert room.version == frame["version"]
            socket.send_json({"type": "act", "version": frame["version"], "bid": "pass"})
            assert receive(socket) == {"type": "ack", "version": frame["version"] + 1}

    def test_a_name_from_the_hello_is_shown_to_everyone_cleaned_and_in_chat(self, client, tables):
        """A guest's name, sent in the hello (one line, at most 24 characters), is every
        page's at that seat; a name message changes it; a name too long is refused."""
        token = _new_room(client)
        room, _ = tables.seat_of(token)
        west = room.seats[Seat.WEST].token
        typed = "  <img src=x onerror=alert(1)>\u202e\nAnn  " + "y" * 40
        with client.websocket_connect(f"/ws/{token}") as host:
            _hello(host)
            _state(host)
            with client.websocket_connect(f"/ws/{west}") as guest:
                guest.send_json({"type": "hello", "secret": None, "name": typed})
                assert receive(guest)["type"] == "seat"
                frame = _state(guest)
                mine = next(s for s in frame["seats"] if s["seat"] == "W")
                assert mine["player_name"] == clean_name(typed)
                assert len(mine["player_name"]) == 24 and "\n" not in mine["player_name"]
                assert "\u202e" not in mine["player_name"]
                # The host sees it too (the seat's name is sent as text: the page escapes it).
                for _ in range(10):
                    seen = _state(host)
                    named = next(s for s in seen["seats"] if s["seat"] == "W")["player_name"]
                    if named:
                        break
                assert named == clean_name(typed)
                guest.send_json({"type": "name", "name": "Ann"})
                for _ in range(10):
                    frame = _state(guest)
                    if next(s for s in frame["seats"] if s["seat"] == "W")["player_name"] == "Ann":
                        break
                else:
                    raise AssertionError("the new name never came")
                guest.send_json({"type": "name", "name": "z" * 200})
                assert receive(guest)["reason"] == "malformed"
                assert room.names[Seat.WEST] == "Ann"
                # A chat line says who spoke by name.
                host.send_json({"type": "chat", "text": "hello"})
                guest.send_json({"type": "chat", "text": "hi all"})
                for _ in range(20):
                    message = receive(guest)
                    if message["type"] == "chat" and any(
                        line["text"] == "hi all" for line in message["lines"]
                    ):
                        break
                line = next(line for line in message["lines"] if line["text"] == "hi all")
                assert line["name"] == "Ann (West)"

    def test_bad_messages_are_refused_and_change_nothing(self, client, tables):
        """Malformed, oversized, binary, out-of-turn, stale, for another seat: all refused."""
        token = _new_room(client)
        room, _ = tables.seat_of(token)
        held = {seat: tables.claim(room, seat) for seat in room.seats if seat is not Seat.SOUTH}
        east = room.seats[Seat.EAST].token
        with client.websocket_connect(f"/ws/{east}") as socket:
            _hello(socket, held[Seat.EAST])
            frame = _state(socket)
            while frame["phase"] != "bid":
                frame = _state(socket)
            before = (room.state, room.version, tables.store.action_count(room.id))
            version = frame["version"]
            bad = [
                ("{not json", "malformed"),
                ("x" * 5000, "too_large"),
                (
                    json.dumps({"type": "act", "version": version, "bid": "2", "seat": "S"}),
                    "unknown_field",
                ),
                (json.dumps({"type": "act", "version": version - 1, "bid": "2"}), "stale"),
                (json.dumps({"type": "fill", "player": "heuristic"}), "not_host"),
            ]
            if room.state.to_move is not Seat.EAST:
                bad.append(
                    (json.dumps({"type": "act", "version": version, "bid": "2"}), "not_your_turn")
                )
            for text, reason in bad:
                socket.send_text(text)
                answer = receive(socket)
                assert (answer["type"], answer["reason"]) == ("refused", reason), text
            socket.send_bytes(b"\x00")
            assert receive(socket)["reason"] == "not_text"
            assert (room.state, room.version, tables.store.action_count(room.id)) == before

    def test_a_room_of_four_sockets_never_leaks_a_hand(self, client, tables):
        """Four seats play a short room to its end; every frame each seat was sent is read."""
        host = _new_room(client)
        room, _ = tables.seat_of(host)
        rng = random.Random(26)
        tokens = {Seat.SOUTH: host}
        with client.websocket_connect(f"/ws/{host}") as first:
            host_secret = _hello(first)
            tokens.update(
                {
                    Seat.parse(seat): path.rsplit("/", 1)[-1]
                    for seat, path in _state(first)["links"].items()
                }
            )
        received: dict[Seat, list[dict]] = {seat: [] for seat in Seat}
        sockets = {}
        with (
            client.websocket_connect(f"/ws/{tokens[Seat.SOUTH]}") as south,
            client.websocket_connect(f"/ws/{tokens[Seat.WEST]}") as west,
            client.websocket_connect(f"/ws/{tokens[Seat.NORTH]}") as north,
            client.websocket_connect(f"/ws/{tokens[Seat.EAST]}") as east,
        ):
            sockets = {Seat.SOUTH: south, Seat.WEST: west, Seat.NORTH: north, Seat.EAST: east}
            for seat, socket in sockets.items():
                _hello(socket, host_secret if seat is Seat.SOUTH else None)
            # Wait until the deal is made and everyone has been sent it.
            latest = {}
            for seat, socket in sockets.items():
                frame = receive(socket)
                received[seat].append(frame)
                # (A room of friends also greets each page with its chat and voice.)
                while frame["type"] != "state" or frame["version"] < 1 or frame["phase"] == "deal":
                    frame = receive(socket)
                    received[seat].append(frame)
                latest[seat] = frame
            for _ in range(2000):
                if room.is_over:
                    break
                # The server deals on its own task, its commit off the event loop: wait
                # (bounded) for the deal to be made.
                for _ in range(1000):
                    if room.state.to_move is not None or room.is_over:
                        break
                    time.sleep(0.005)
                if room.is_over:
                    break
                seat = room.state.to_move
                frame = latest[seat]
                while frame["version"] != room.version:
                    frame = receive(sockets[seat])
                    received[seat].append(frame)
                options = [("bid", b["call"]) for b in frame["bids"]] or [
                    ("play", c["code"]) for c in frame["hand"] if c["legal"]
                ]
                field, value = rng.choice(options)
                sockets[seat].send_json({"type": "act", "version": frame["version"], field: value})
                ack = receive(sockets[seat])
                assert ack["type"] == "ack", ack
                received[seat].append(ack)
                # The deal after a deal is made by the server: frames until it is done.
                for other, socket in sockets.items():
                    frame = receive(socket)
                    received[other].append(frame)
                    while frame["version"] < room.version:
                        frame = receive(socket)
                        received[other].append(frame)
                    latest[other] = frame
            assert room.is_over
        stored = next(s for s in tables.store.rooms() if s.id == room.id)
        states = states_by_version(room, list(stored.actions))
        frames = 0
        for seat, messages in received.items():
            for message in messages:
                if message["type"] == "state":
                    frames += 1
                    assert leaks(message, states[message["version"]], seat) == [], seat
                    assert ("links" in message) == (seat is Seat.SOUTH and not message["started"])
        assert frames > 4 * 60
        record = client.get(f"/record/{host}")
        assert record.status_code == 200
        assert "attachment" in record.headers["content-disposition"]
        report = check(loads(record.text))
        assert report.complete and report.consistent

    def test_the_record_waits_for_the_end_of_the_match(self, client):
        """The record names the seed, which tells every hand: refused while the match is on."""
        token = _new_room(client, "computer")
        answer = client.get(f"/record/{token}")
        assert answer.status_code == 409 and "seed" in answer.text
        assert client.get("/record/" + "C" * 32).status_code == 404

    def test_the_host_seats_computers_and_play_begins(self, client, tables):
        """The host's fill message seats computers at the empty seats; their links close."""
        host = _new_room(client)
        room, _ = tables.seat_of(host)
        north = room.seats[Seat.NORTH].token
        with client.websocket_connect(f"/ws/{host}") as socket:
            _hello(socket)
            assert set(_state(socket)["links"]) == {"N", "E", "W"}
            socket.send_json({"type": "fill", "player": "heuristic"})
            frame = _state(socket)
            while not frame["your_turn"]:
                frame = _state(socket)
            assert frame["started"] and "links" not in frame
            assert {s["occupant"] for s in frame["seats"] if s["seat"] != "S"} == {"computer"}
        with client.websocket_connect(f"/ws/{north}") as socket:
            assert receive(socket)["reason"] == "unknown_token"


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    message=st.one_of(
        st.text(max_size=200),
        st.recursive(
            st.none()
            | st.booleans()
            | st.integers()
            | st.floats(allow_nan=False)
            | st.text(max_size=12),
            lambda inner: (
                st.lists(inner, max_size=4)
                | st.dictionaries(
                    st.sampled_from(["type", "version", "bid", "play", "player", "seat", "x"]),
                    inner,
                    max_size=4,
                )
            ),
            max_leaves=12,
        ).map(json.dumps),
    )
)
def test_a_few_hundred_random_bad_messages_change_nothing(random_room, message):
    """Random messages from a seat: refused with a reason (or, if one is a legal action for
    the version sent, acknowledged once); the room changes by at most that one action."""
    _client, tables, room, socket = random_room
    before = (room.state, room.version)
    socket.send_text(message)
    answer = receive(socket)
    if answer["type"] == "refused":
        assert answer["reason"] and answer["message"]
        assert (room.state, room.version) == before
    else:
        assert answer == {"type": "ack", "version": before[1] + 1}
        # The computers answer it: wait for this seat's turn (or the end) to come back.
        frame = _state(socket)
        while not (frame["your_turn"] or frame["over"]):
            frame = _state(socket)
    assert tables.store.action_count(room.id) == room.version


@pytest.fixture
def random_room(client, tables):
    host = _new_room(client)
    room, _ = tables.seat_of(host)
    with client.websocket_connect(f"/ws/{host}") as socket:
        _hello(socket)
        _state(socket)
        # Computers at the other seats, and play under way: the messages meet a live room.
        socket.send_json({"type": "fill", "player": "heuristic"})
        frame = _state(socket)
        while not frame["your_turn"]:
            frame = _state(socket)
        yield client, tables, room, socket
