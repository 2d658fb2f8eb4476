"""The table behind a proxy, in process: forwarded addresses, the public origin, TURN.

Starlette's test client, its connection's address set to 127.0.0.1 (where a proxy
on the same machine connects from) or to another address. A forged
``X-Forwarded-For`` from a peer that is not a trusted proxy moves no limit; from a
trusted proxy it names the client each limit counts. Sockets of another origin are
refused; with ``--public-url`` the host's links carry the public origin; each
seat's voice roster carries TURN credentials of its own.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from table_helpers import receive
from test_table_service import tables

from backalley import Seat
from backalley.web.app import make_app
from backalley.web.limits import CLOSE_LIMIT, Limits
from backalley.web.origins import PublicUrl
from backalley.web.proxies import TrustedProxies
from backalley.web.turn import Turn

__all__ = ["tables"]  # a fixture, used by name


def _client(tables, *, peer="127.0.0.1", trusted=(), public=None, turn=None, **limits):
    app = make_app(
        tables,
        pace=0,
        limits=Limits(**{"messages_per_second": 10_000, **limits}),
        proxies=TrustedProxies.parse(trusted),
        public=None if public is None else PublicUrl.parse(public),
        turn=turn,
    )
    return TestClient(app, follow_redirects=False, client=(peer, 50000))


def _room(client, forwarded=None, mode="friends"):
    headers = {} if forwarded is None else {"X-Forwarded-For": forwarded}
    return client.post("/rooms", data={"mode": mode, "schedule": "short"}, headers=headers)


def _token(answer):
    assert answer.status_code == 303, answer.text
    return answer.headers["location"].rsplit("/", 1)[-1]


# --- per-address limits ----------------------------------------------------------------


def test_a_forged_forwarded_for_from_an_untrusted_peer_moves_no_limit(tables, caplog):
    """Today's default trusts no proxy: from 127.0.0.1 too, the header changes nothing."""
    caplog.set_level(logging.WARNING, "backalley.web")
    with _client(tables, rooms_per_minute=2) as client:
        assert _room(client, "198.51.100.1").status_code == 303
        assert _room(client, "198.51.100.2").status_code == 303
        # A third "client" is the same visitor: over its two rooms a minute.
        assert _room(client, "198.51.100.3").status_code == 429
        assert _room(client, forwarded=None).status_code == 429
        assert (
            client.post(
                "/rooms",
                data={"mode": "friends"},
                headers={"Forwarded": "for=198.51.100.4"},
            ).status_code
            == 429
        )
    assert "address 127.0.0.1: room refused" in caplog.text
    assert "198.51.100" not in caplog.text


def test_a_trusted_proxy_names_the_client_each_limit_counts(tables, caplog):
    caplog.set_level(logging.WARNING, "backalley.web")
    with _client(tables, trusted=["127.0.0.1"], rooms_per_minute=2) as client:
        assert _room(client, "198.51.100.1").status_code == 303
        assert _room(client, "198.51.100.1").status_code == 303
        assert _room(client, "198.51.100.1").status_code == 429
        # Another client behind the same proxy has its own count...
        assert _room(client, "198.51.100.2").status_code == 303
        # ...and a client cannot pass for another by writing the header itself: the
        # proxy appends what it saw, which is what is read.
        assert _room(client, "198.51.100.9, 198.51.100.1").status_code == 429
    assert "address 198.51.100.1: room refused" in caplog.text


def test_a_trusted_proxys_header_means_nothing_from_another_peer(tables):
    with _client(tables, peer="192.0.2.10", trusted=["127.0.0.1"], rooms_per_minute=1) as client:
        assert _room(client, "198.51.100.1").status_code == 303
        assert _room(client, "198.51.100.2").status_code == 429


def test_sockets_per_address_count_the_forwarded_client(tables):
    with _client(tables, sockets_per_address=1) as client:
        token = _token(_room(client))
        path = f"/ws/{token}"
        # Not trusted: the second socket is the same address, over its one socket.
        with (
            client.websocket_connect(path, headers={"X-Forwarded-For": "198.51.100.1"}),
            client.websocket_connect(path, headers={"X-Forwarded-For": "198.51.100.2"}) as second,
        ):
            assert receive(second)["reason"] == "too_many_sockets"
            with pytest.raises(WebSocketDisconnect) as closed:
                receive(second)
            assert closed.value.code == CLOSE_LIMIT
    with _client(tables, trusted=["127.0.0.0/8"], sockets_per_address=1) as client:
        token = _token(_room(client))
        path = f"/ws/{token}"
        with client.websocket_connect(path, headers={"X-Forwarded-For": "198.51.100.1"}):
            with client.websocket_connect(
                path, headers={"X-Forwarded-For": "198.51.100.2"}
            ) as second:
                second.send_json({"type": "hello", "secret": None})
                assert receive(second)["type"] == "seat"
            with client.websocket_connect(
                path, headers={"X-Forwarded-For": "198.51.100.1"}
            ) as third:
                assert receive(third)["reason"] == "too_many_sockets"


# --- origins and the public URL -----------------------------------------------------------


def test_a_socket_from_another_origin_is_refused_before_anything_is_read(tables, caplog):
    caplog.set_level(logging.WARNING, "backalley.web")
    with _client(tables) as client:
        token = _token(_room(client))
        with (
            pytest.raises(WebSocketDisconnect) as refused,
            client.websocket_connect(
                f"/ws/{token}", headers={"Origin": "https://evil.example"}
            ) as socket,
        ):
            receive(socket)
        assert refused.value.code == 1008
        # The table's own origin (the test client's: http://testserver) and no origin at all.
        for headers in ({"Origin": "http://testserver"}, {}):
            with client.websocket_connect(f"/ws/{token}", headers=headers) as socket:
                socket.send_json({"type": "hello", "secret": None})
                assert receive(socket)["type"] in ("seat", "refused")
    assert "origin 'https://evil.example' is not this table's" in caplog.text


def test_with_a_public_url_the_links_carry_it_and_sockets_must_come_from_it(tables):
    public = "https://table.example"
    with _client(tables, public=public) as client:
        answer = _room(client)
        assert answer.headers["location"].startswith(public + "/seat/")
        token = _token(answer)
        with (
            pytest.raises(WebSocketDisconnect),
            client.websocket_connect(
                f"/ws/{token}", headers={"Origin": "http://testserver"}
            ) as socket,
        ):
            receive(socket)
        with client.websocket_connect(f"/ws/{token}", headers={"Origin": public}) as socket:
            socket.send_json({"type": "hello", "secret": None})
            seated = receive(socket)
            assert seated["type"] == "seat" and seated["origin"] == public
    # The serving machine's own loopback address stays open to the host.
    with _client(tables, public=public) as client:
        client.base_url = "http://127.0.0.1:8000"
        token = _token(_room(client))
        with client.websocket_connect(
            f"ws://127.0.0.1:8000/ws/{token}", headers={"Origin": "http://127.0.0.1:8000"}
        ) as socket:
            socket.send_json({"type": "hello", "secret": None})
            assert receive(socket)["type"] == "seat"


def test_without_a_public_url_the_seat_message_is_as_before(tables):
    with _client(tables) as client:
        token = _token(_room(client))
        assert not token.startswith("http")
        with client.websocket_connect(f"/ws/{token}") as socket:
            socket.send_json({"type": "hello", "secret": None})
            assert "origin" not in receive(socket)


# --- TURN credentials ------------------------------------------------------------------------


def _voice(socket):
    for _ in range(50):
        message = receive(socket)
        if message["type"] == "voice":
            return message
    raise AssertionError("no voice message")


def test_each_seat_gets_turn_credentials_of_its_own(tables):
    turn = Turn(urls=("turn:127.0.0.1:3478",), secret=b"shared", lifetime=600)
    with _client(tables, turn=turn) as client:
        token = _token(_room(client))
        room, _ = tables.seat_of(token)
        west = room.seats[Seat.WEST].token
        with client.websocket_connect(f"/ws/{token}") as host:
            host.send_json({"type": "hello", "secret": None})
            ice = _voice(host)["ice"]
            with client.websocket_connect(f"/ws/{west}") as guest:
                guest.send_json({"type": "hello", "secret": None})
                guest_ice = _voice(guest)["ice"]
    (server,) = ice
    (guest_server,) = guest_ice
    assert server["urls"] == ["turn:127.0.0.1:3478"]
    assert server["username"].endswith(f":{room.id}-S")
    assert guest_server["username"].endswith(f":{room.id}-W")
    for entry in (server, guest_server):
        expected = hmac.new(b"shared", entry["username"].encode(), hashlib.sha1).digest()
        assert entry["credential"] == base64.b64encode(expected).decode()
        assert "shared" not in str(entry)


def test_no_turn_credentials_before_a_seat_is_held(tables):
    """A socket on a seat's link that has not said a valid hello is sent nothing."""
    turn = Turn(urls=("turn:127.0.0.1:3478",), secret=b"shared")
    with _client(tables, turn=turn) as client:
        token = _token(_room(client))
        with client.websocket_connect(f"/ws/{token}") as holder:
            holder.send_json({"type": "hello", "secret": None})
            receive(holder)
            with client.websocket_connect(f"/ws/{token}") as stranger:
                stranger.send_json({"type": "hello", "secret": "guessed"})
                read = []
                with pytest.raises(WebSocketDisconnect):
                    for _ in range(20):
                        read.append(receive(stranger))
                assert [message["type"] for message in read] == ["refused"]


def test_an_ipv6_visitor_is_counted_by_its_64(tables, caplog):
    """A visitor with a whole /64 cannot pass for a new address with each of its own."""
    caplog.set_level(logging.WARNING, "backalley.web")
    with _client(tables, trusted=["127.0.0.1"], sockets_per_address=1) as client:
        path = f"/ws/{_token(_room(client))}"
        with (
            client.websocket_connect(path, headers={"X-Forwarded-For": "2001:db8:1:2::a"}),
            client.websocket_connect(path, headers={"X-Forwarded-For": "2001:db8:1:2::b"}) as same,
        ):
            assert receive(same)["reason"] == "too_many_sockets"
            with client.websocket_connect(
                path, headers={"X-Forwarded-For": "2001:db8:1:3::a"}
            ) as other:
                other.send_json({"type": "hello", "secret": None})
                assert receive(other)["type"] == "seat"
    assert "address 2001:db8:1:2::/64 has 1 sockets open" in caplog.text
