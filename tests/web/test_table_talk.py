"""Chat and voice in a room of friends, in process (Starlette's test client).

Chat: text between the seats with the seat's name, kept with the room (a page opened
again, or the server started again, shows it), escaped, limited in length and rate,
never in a room against the computer. Voice: the server only says who has it on and
carries each offer and answer to the seat it names, between two seats with voice on.
The audio itself is tested in ``test_table_voice.py`` (two Chromium pages).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from table_helpers import receive
from test_table_service import _client as _service_client
from test_table_service import _new_room, tables

from backalley import Rules, Seat
from backalley.web.app import TableServer
from backalley.web.chat import clean_text, talk_open
from backalley.web.messages import MAX_MESSAGE_BYTES, MAX_SIGNAL_BYTES, parse_message
from backalley.web.rooms import Refused, Tables
from backalley.web.store import Store

__all__ = ["tables"]  # a fixture, used by name


def _client(tables, **limits):
    return _service_client(tables, **{"messages_per_second": 10_000, **limits})


def _room(client, tables, mode="friends", guest=Seat.WEST):
    """A new room's host link, the room, and the link of the seat ``guest``."""
    host = _new_room(client, mode)
    room, _ = tables.seat_of(host)
    return host, room, room.seats[guest].token


def _next(socket, kind):
    for _ in range(200):
        message = receive(socket)
        if message["type"] == kind:
            return message
    raise AssertionError(f"no {kind} message")


def _seated(socket, secret=None):
    socket.send_json({"type": "hello", "secret": secret})
    seat = receive(socket)
    assert seat["type"] == "seat", seat
    return seat


def test_chat_goes_to_every_seat_with_the_speakers_name_and_is_kept(tmp_path):
    """A line reaches all seats, named; a page opened again, and a new server, show it."""
    tables = Tables(Store(tmp_path / "rooms.db"))
    with _client(tables) as client:
        host, _room_made, west = _room(client, tables)
        with (
            client.websocket_connect(f"/ws/{host}") as south,
            client.websocket_connect(f"/ws/{west}") as guest,
        ):
            host_secret = _seated(south)["secret"]
            assert _next(south, "chat") == {"type": "chat", "open": True, "lines": []}
            _seated(guest)
            _next(guest, "chat")
            guest.send_json({"type": "chat", "text": "  <b>hi</b> & good luck\u0007 "})
            for socket in (south, guest):
                line = _next(socket, "chat")["lines"][0]
                assert line["seat"] == "W" and line["name"] == "West (guest 1)"
                # Kept as written (control characters and edge spaces gone): the page
                # shows it as text, so the markup is only characters.
                assert line["text"] == "<b>hi</b> & good luck"
        with client.websocket_connect(f"/ws/{host}") as again:
            _seated(again, host_secret)
            assert [line["text"] for line in _next(again, "chat")["lines"]] == [
                "<b>hi</b> & good luck"
            ]
    tables.store.close()
    restarted = Tables(Store(tmp_path / "rooms.db"))
    with _client(restarted) as client, client.websocket_connect(f"/ws/{host}") as page:
        _seated(page, host_secret)
        lines = _next(page, "chat")["lines"]
        assert [(line["seat"], line["seq"]) for line in lines] == [("W", 0)]
    restarted.store.close()


def test_chat_is_limited_in_length_rate_and_kept_lines(tables):
    """Too long, empty, too fast: refused with a reason; a page gets the last lines only."""
    with _client(tables, chat_characters=20, chat_per_minute=3, chat_kept=2) as client:
        host, room, _ = _room(client, tables)
        with client.websocket_connect(f"/ws/{host}") as south:
            _seated(south)
            _next(south, "chat")
            south.send_json({"type": "chat", "text": "x" * 21})
            assert _next(south, "refused")["reason"] == "chat_too_long"
            south.send_json({"type": "chat", "text": " \u200b\n "[0:1] + "\t"})
            assert _next(south, "refused")["reason"] == "empty_chat"
            for number in range(3):
                south.send_json({"type": "chat", "text": f"line {number}"})
                assert _next(south, "chat")["lines"][0]["text"] == f"line {number}"
            south.send_json({"type": "chat", "text": "one more"})
            refused = _next(south, "refused")
            assert (
                refused["reason"] == "chat_too_fast"
                and "3 chat lines a minute" in refused["message"]
            )
        assert room.chat_count == 3 and [line.text for line in room.chat] == ["line 1", "line 2"]
        assert tables.store.chat(room.id, 10)[0] == 3


def test_no_chat_or_voice_at_the_computer_table(tables):
    """A room against the computer is sent no chat and refuses chat and voice."""
    with _client(tables) as client:
        host, room, _ = _room(client, tables, "computer")
        assert not talk_open(room)
        with client.websocket_connect(f"/ws/{host}") as south:
            _seated(south)
            south.send_json({"type": "chat", "text": "anyone?"})
            kinds = []
            for _ in range(200):
                message = receive(south)
                kinds.append(message["type"])
                if message["type"] == "refused":
                    break
            assert message["reason"] == "no_chat"
            assert "chat" not in kinds and "voice" not in kinds
            south.send_json({"type": "voice", "on": True})
            assert _next(south, "refused")["reason"] == "no_chat"
        assert tables.store.chat(room.id, 10) == (0, [])


def test_voice_signals_go_only_between_seats_with_voice_on(tables):
    """The roster says who is on; an offer reaches the seat it names, and only when both are."""
    with _client(tables, chat_kept=5) as client:
        host, room, north = _room(client, tables, guest=Seat.NORTH)
        with (
            client.websocket_connect(f"/ws/{host}") as south,
            client.websocket_connect(f"/ws/{north}") as partner,
        ):
            _seated(south)
            assert _next(south, "voice") == {"type": "voice", "seats": [], "ice": []}
            _seated(partner)
            _next(partner, "voice")
            south.send_json({"type": "voice", "on": True})
            assert _next(south, "voice")["seats"] == ["S"]
            assert _next(partner, "voice")["seats"] == ["S"]
            offer = {"type": "signal", "to": "N", "kind": "offer", "sdp": "v=0 an offer"}
            south.send_json(offer)
            assert _next(south, "refused")["reason"] == "no_voice"  # North is not on
            partner.send_json({"type": "voice", "on": True})
            assert _next(partner, "voice")["seats"] == ["N", "S"]
            south.send_json(offer)
            carried = _next(partner, "signal")
            assert carried == {
                "type": "signal",
                "from": "S",
                "kind": "offer",
                "sdp": "v=0 an offer",
            }
            partner.send_json({"type": "signal", "to": "S", "kind": "answer", "sdp": "v=0 yes"})
            assert _next(south, "signal")["kind"] == "answer"
            partner.send_json({"type": "signal", "to": "E", "kind": "offer", "sdp": "v=0"})
            assert _next(partner, "refused")["reason"] == "no_voice"
        # The pages gone, their voice is off.
        assert not client.app.state.server.talk.voice.get(room.id)


def test_the_stun_servers_are_only_those_configured(tables):
    """No STUN server unless the table was started with one; then the pages are told it."""
    server = TableServer(tables, stun=("stun:127.0.0.1:3478",))
    room, _ = tables.create("friends", Rules(schedule=[1]))
    assert server.talk.roster_message(room)["ice"] == [{"urls": ["stun:127.0.0.1:3478"]}]
    assert TableServer(tables).talk.roster_message(room)["ice"] == []


@given(st.text(max_size=400))
def test_a_chat_line_is_clean_text_or_refused(text):
    """Kept lines have no control characters, no edge spaces, and fit the limit."""
    try:
        kept = clean_text(text, 300)
    except Refused as refusal:
        assert refusal.reason in ("empty_chat", "chat_too_long")
        return
    assert kept and kept == kept.strip() and len(kept) <= 300
    assert all(ord(char) >= 32 and char not in "\x7f" for char in kept)


def test_signal_messages_may_be_longer_than_others_but_are_bounded():
    """A session description may take 16 KiB; any other message still 1 KiB."""
    sdp = "a" * (MAX_MESSAGE_BYTES * 4)
    message = parse_message(f'{{"type": "signal", "to": "E", "kind": "offer", "sdp": "{sdp}"}}')
    assert message.kind == "signal" and message.value == sdp
    with pytest.raises(Refused) as refused:
        parse_message(f'{{"type": "chat", "text": "{sdp}"}}')
    assert refused.value.reason == "too_large"
    with pytest.raises(Refused) as refused:
        parse_message(
            f'{{"type": "signal", "to": "E", "kind": "offer", "sdp": "{"a" * MAX_SIGNAL_BYTES}"}}'
        )
    assert refused.value.reason == "too_large"
    with pytest.raises(Refused):
        parse_message('{"type": "signal", "to": "X", "kind": "offer", "sdp": "v=0"}')
    with pytest.raises(Refused):
        parse_message('{"type": "voice", "on": "yes"}')
