"""Frames that carry what changed: every client kept equal to the whole frame, text for text.

The server sends a seat its whole frame once, then what changed (``change``); here the
Python applier (the scripted clients') and the browser page's (``static/changes.js``,
run with Node.js) are driven over whole matches, every seat, and compared with the
server's whole frame at every frame number, and that whole frame with ``seat_frame``.
"""

from __future__ import annotations

import copy
import json
import os
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backalley import Seat
from backalley.core.rules import Rules
from backalley.engine.match import legal_actions
from backalley.web.changes import ChangeError, apply_ops, diff
from backalley.web.messages import FrameCache, seat_frame
from backalley.web.rooms import Tables
from backalley.web.store import Store

STATIC = Path(__file__).resolve().parents[2] / "src" / "backalley" / "web" / "static"
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(
    NODE is None and os.environ.get("BACKALLEY_REQUIRE_NODE") != "1",
    reason="needs Node.js (the system's nodejs package)",
)


def _node(script: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    assert NODE is not None
    return subprocess.run(
        [NODE, str(script)], check=False, capture_output=True, text=True, timeout=timeout
    )


def canonical(data: Any) -> str:
    """The JSON text two equal frames share, whatever their keys' order."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _play(tmp_path: Path, schedule: tuple[int, ...], seed: int) -> list[dict[str, Any]]:
    """A whole match of friends, every seat's frames made as the server makes them.

    Between actions the seats connected and the names change now and then (a frame
    changes without a new version too), and a seat is now and then left out (as one with
    no page open is). For each seat: its messages (the whole frame
    first, then each change) and the whole frame at each number, checked against
    ``seat_frame``.
    """
    tables = Tables(Store(tmp_path / f"rooms-{seed}.db"))
    room, host = tables.create("friends", Rules(schedule=list(schedule)))
    tokens = {seat: row.token for seat, row in room.seats.items()}
    tokens[Seat.SOUTH] = host
    rng = random.Random(seed)
    cache = FrameCache()
    seats: dict[Seat, dict[str, list[Any]]] = {s: {"messages": [], "wholes": []} for s in Seat}
    connected = frozenset({Seat.SOUTH})

    def send_all() -> None:
        for seat in Seat:
            if seats[seat]["messages"] and rng.random() < 0.2:
                # A seat with no page open now: no frame made; its next change is from
                # the older frame it was sent (not the one the other seats share).
                continue
            number, change = cache.update(room, seat, connected=connected, token=tokens[seat])
            whole = json.loads(cache.full_text(seat))
            expected = seat_frame(room, seat, connected=connected, token=tokens[seat])
            assert {k: v for k, v in whole.items() if k != "frame"} == expected
            assert whole["frame"] == number
            sent = seats[seat]
            if not sent["messages"]:
                assert change is None and number == 0
                sent["messages"].append(whole)
                sent["wholes"].append(whole)
            elif change is not None:
                message = json.loads(change)
                assert message["type"] == "change"
                assert message["base"] == sent["wholes"][-1]["frame"] == number - 1
                sent["messages"].append(message)
                sent["wholes"].append(whole)
            else:
                assert canonical(whole) == canonical(sent["wholes"][-1])

    send_all()
    for seat in Seat:
        if seat is not Seat.SOUTH:
            tables.claim(room, seat)
            connected |= {seat}
            send_all()
    for _ in range(2000):
        while tables.step(room) is not None:
            send_all()
        if room.is_over:
            break
        action = rng.choice(legal_actions(room.state))
        field, value = (
            ("bid", action.call) if hasattr(action, "call") else ("play", action.card.code)
        )
        tables.act(room, room.state.to_move, room.version, field, value)
        if rng.random() < 0.05:
            connected ^= {rng.choice(list(Seat))}
        if rng.random() < 0.03:
            room.names[rng.choice(list(Seat))] = rng.choice(["Ann", "Bo", "Cy"])
        send_all()
    assert room.is_over
    tables.store.close()
    return [{"seat": seat.letter, **sent} for seat, sent in seats.items()]


MATCHES = [((3, 2, 1, 2), 1), ((1, 1, 1), 2), ((4, 3), 3)]


@pytest.fixture(scope="module")
def matches(tmp_path_factory: pytest.TempPathFactory) -> list[list[dict[str, Any]]]:
    folder = tmp_path_factory.mktemp("changes")
    return [_play(folder, schedule, seed) for schedule, seed in MATCHES]


def test_the_python_applier_keeps_every_seat_equal_to_the_whole_frame(matches):
    """Every seat of whole matches: the whole frame, then each change applied, equals the
    server's whole frame (and so ``seat_frame``) at every frame number, text for text."""
    changes = 0
    for match in matches:
        for seat in match:
            first, *rest = seat["messages"]
            held = copy.deepcopy(first)
            assert canonical(held) == canonical(seat["wholes"][0])
            for message, whole in zip(rest, seat["wholes"][1:], strict=True):
                assert message["base"] == held["frame"]
                # A copy: the values applied become part of the frame held, changed later.
                apply_ops(held, copy.deepcopy(message["ops"]))
                held["frame"] = message["frame"]
                assert canonical(held) == canonical(whole)
                changes += 1
    assert changes > 300


def test_a_change_is_much_smaller_than_the_whole_frame(matches):
    """What the changes are for: a change an action, a small part of the whole frame.

    The median change under an eighth of the whole frame at the match's end (issue 47
    asks for 5 × fewer bytes an action; the whole frame no longer holds the last
    trick's picture, 2.8 KB, which made it a tenth before).
    """
    whole = sum(len(canonical(s["wholes"][-1])) for match in matches for s in match)
    parts = [len(canonical(m)) for match in matches for s in match for m in s["messages"][1:]]
    average_whole = whole / sum(len(match) for match in matches)
    assert sorted(parts)[len(parts) // 2] * 8 < average_whole


@needs_node
def test_the_browser_applier_keeps_every_seat_equal_to_the_whole_frame(matches, tmp_path):
    """``static/changes.js``, the page's own applier, run with Node.js over the same
    messages: equal to the whole frame at every number, and never changing the frame it
    was given (the page may still hold parts of it)."""
    assert NODE is not None, "BACKALLEY_REQUIRE_NODE=1 but there is no node"
    seats = [seat for match in matches for seat in match]
    (tmp_path / "seats.json").write_text(json.dumps([s["messages"] for s in seats]))
    script = tmp_path / "apply.js"
    script.write_text(
        f"""
const fs = require("fs");
const {{ applyChange }} = require({json.dumps(str(STATIC / "changes.js"))});
const seats = JSON.parse(fs.readFileSync({json.dumps(str(tmp_path / "seats.json"))}, "utf8"));
const out = seats.map((messages) => {{
  let frame = messages[0];
  const frames = [frame];
  for (const message of messages.slice(1)) {{
    if (message.base !== frame.frame) throw new Error("out of order");
    const before = JSON.stringify(frame);
    const next = applyChange(frame, message.ops);
    if (JSON.stringify(frame) !== before) throw new Error("the frame given was changed");
    next.frame = message.frame;
    frames.push(next);
    frame = next;
  }}
  return frames;
}});
fs.writeFileSync({json.dumps(str(tmp_path / "out.json"))}, JSON.stringify(out));
""",
        encoding="utf-8",
    )
    done = subprocess.run(
        [NODE, str(script)], check=False, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    applied = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert len(applied) == len(seats)
    for frames, seat in zip(applied, seats, strict=True):
        assert [canonical(f) for f in frames] == [canonical(w) for w in seat["wholes"]]


BAD_OPS = [
    "not a list",
    [["s", [], {}]],
    [["s", ["view", "nowhere", "x"], 1]],
    [["a", ["status"], [1]]],
    [["t", ["hand"], 99]],
    [["d", ["hand", 99]]],
    [["d", ["nowhere"]]],
    [["x", ["status"], 1]],
    [["s", ["hand", -1], 1]],
    [["s", ["hand", "0"], 1]],
    [["s", ["a", "b", "c", "d", "e", "f", "g", "h", "i"], 1]],
    [["s", "status", 1]],
    [["a", ["hand"], "AS"]],
]


@pytest.mark.parametrize("ops", BAD_OPS, ids=range(len(BAD_OPS)))
def test_a_change_that_does_not_fit_is_refused_by_the_python_applier(ops):
    """A client told nonsense says so (and asks for the whole frame), never applies it."""
    frame = {"status": "x", "hand": [{"code": "AS"}], "view": {"deal": None}}
    with pytest.raises(ChangeError):
        apply_ops(frame, ops)


@needs_node
def test_a_change_that_does_not_fit_is_refused_by_the_browser_applier(tmp_path):
    """The page's applier throws on the same nonsense (then the page asks for the whole
    frame), and on a key that would reach an object's prototype."""
    assert NODE is not None, "BACKALLEY_REQUIRE_NODE=1 but there is no node"
    cases = [*BAD_OPS, [["s", ["__proto__"], {"polluted": True}]]]
    script = tmp_path / "bad.js"
    script.write_text(
        f"""
const {{ applyChange }} = require({json.dumps(str(STATIC / "changes.js"))});
const cases = {json.dumps(cases)};
const thrown = cases.map((ops) => {{
  const frame = {{ status: "x", hand: [{{ code: "AS" }}], view: {{ deal: null }} }};
  try {{ applyChange(frame, ops); return false; }} catch (e) {{ return true; }}
}});
if ({{}}.polluted) throw new Error("prototype reached");
console.log(JSON.stringify(thrown));
""",
        encoding="utf-8",
    )
    done = subprocess.run(
        [NODE, str(script)], check=False, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [True] * len(cases)


def _json_values(numbers: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.recursive(
        st.none() | numbers | st.sampled_from(["", "a", "b"]),
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.dictionaries(st.sampled_from(["k", "l", "m"]), inner, max_size=3)
        ),
        max_leaves=12,
    )


# Python holds True == 1 and False == 0 (inside lists and dicts too): ``diff`` takes data
# that compares equal as the same, so it is given numbers or truth values, not both at
# one place (a frame's places each hold one kind; the whole matches above check it).
FAMILIES = [_json_values(st.integers(-3, 3)), _json_values(st.booleans())]


@settings(max_examples=300, deadline=None)
@given(data=st.data(), family=st.sampled_from(FAMILIES))
def test_diff_then_apply_gives_the_new_data(data, family):
    """Any two JSON objects: the operations ``diff`` makes turn the first into the second,
    text for text."""
    keys = st.sampled_from(["a", "b", "c"])
    old = data.draw(st.dictionaries(keys, family))
    target = data.draw(st.dictionaries(keys, family))
    held = json.loads(json.dumps(old))
    ops = json.loads(json.dumps(diff(old, target)))
    assert canonical(apply_ops(held, ops)) == canonical(target)


# --- over the server's sockets: a missed change, bad resyncs, a flood of them ----------

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from test_table_service import _client, _closed_with, _hello, _new_room, tables  # noqa: E402

from backalley.web.changes import HeldFrame  # noqa: E402
from backalley.web.limits import CLOSE_LIMIT  # noqa: E402

__all__ = ["tables"]  # a fixture, used by name


def _until_turn(socket, holder: HeldFrame) -> tuple[dict[str, Any], int]:
    """Read (changes applied) until it is the seat's turn; the frame held, the resyncs asked."""
    asked = 0
    for _ in range(500):
        message = socket.receive_json()
        if message["type"] not in ("state", "change"):
            continue
        ask = holder.receive(message)
        if ask is not None:
            asked += 1
            socket.send_json(ask)
            continue
        frame = holder.frame
        if frame is not None and (frame["your_turn"] or frame["over"]):
            return frame, asked
    raise AssertionError("never the seat's turn")


def _drop_a_change(socket) -> dict[str, Any]:
    """Read until a change comes, and lose it (the frame held is not changed by it)."""
    for _ in range(50):
        message = socket.receive_json()
        if message["type"] == "change":
            return message
    raise AssertionError("no change")


def _whole(socket, held_number: int | None) -> dict[str, Any]:
    """Ask for the whole frame; the whole frame sent (changes before it skipped)."""
    socket.send_json({"type": "resync", "frame": held_number})
    for _ in range(500):
        message = socket.receive_json()
        if message["type"] == "state":
            return message
    raise AssertionError("no whole frame")


def _act(socket, frame: dict[str, Any]) -> None:
    options = [("bid", b["call"]) for b in frame["bids"]] or [
        ("play", c["code"]) for c in frame["hand"] if c["legal"]
    ]
    field, value = options[0]
    socket.send_json({"type": "act", "version": frame["version"], field: value})


def test_a_page_that_missed_a_change_asks_for_the_whole_frame_and_is_equal_again(tables):
    """A change lost on the way: the next one does not follow the frame held, so the client
    asks (``resync``), is sent the whole frame, and holds the server's frame again; and
    after more changes applied, what it holds equals the whole frame it is sent."""
    with _client(tables, messages_per_second=10_000) as client:
        host = _new_room(client, "computer")
        with client.websocket_connect(f"/ws/{host}") as socket:
            assert _hello(socket)["type"] == "seat"
            holder = HeldFrame()
            frame, _ = _until_turn(socket, holder)
            for turn in range(8):
                if frame["over"]:
                    break
                _act(socket, frame)
                frame, asked = _until_turn(socket, holder)
                assert asked == 0
                if turn % 2 == 0:
                    # While it is this seat's turn nothing else moves: a name given makes
                    # one change, which is lost; a second name makes the next, which does
                    # not follow the frame held.
                    socket.send_json({"type": "name", "name": f"Ann {turn}"})
                    lost = _drop_a_change(socket)
                    assert lost["base"] == frame["frame"]
                    socket.send_json({"type": "name", "name": f"Bo {turn}"})
                    frame, asked = _until_turn(socket, holder)
                    assert asked == 1
                    [me] = [s for s in frame["seats"] if s["who"] == "you"]
                    assert me["player_name"] == f"Bo {turn}"
                whole = _whole(socket, frame["frame"])
                # Nothing moves while it is this seat's turn: the same frame, text for text.
                assert whole["frame"] == frame["frame"]
                assert canonical(whole) == canonical(frame)
                holder.receive(whole)
            assert turn >= 5


BAD_RESYNCS = [
    ({"type": "resync", "frame": "7"}, "malformed"),
    ({"type": "resync", "frame": -1}, "malformed"),
    ({"type": "resync", "frame": True}, "malformed"),
    ({"type": "resync", "frame": 1.5}, "malformed"),
    ({"type": "resync", "frame": 2**40}, "malformed"),
    ({"type": "resync", "frame": 10_000}, "unknown_frame"),
    ({"type": "resync", "frame": None, "from": 3}, "unknown_field"),
]


def test_a_bad_resync_is_refused_with_its_reason_and_the_page_goes_on(tables, caplog):
    """A resync that is not one (a number of the wrong kind, a frame never sent, a field
    too many): refused with a specific reason and a sentence, nothing else changes, no
    traceback; the same socket is then sent the whole frame when it asks properly."""
    with _client(tables, messages_per_second=10_000) as client:
        host = _new_room(client, "computer")
        with client.websocket_connect(f"/ws/{host}") as socket:
            _hello(socket)
            frame, _ = _until_turn(socket, HeldFrame())
            for message, reason in BAD_RESYNCS:
                socket.send_json(message)
                for _ in range(50):
                    answer = socket.receive_json()
                    if answer["type"] == "refused":
                        break
                assert answer["reason"] == reason, (message, answer)
                assert answer["message"].endswith(".") and len(answer["message"]) > 20
            whole = _whole(socket, frame["frame"])
            assert canonical(whole) == canonical(frame)
    assert "Traceback" not in caplog.text


def test_a_flood_of_resyncs_is_bounded_by_the_seats_message_rate(tables):
    """Each resync costs the server a whole frame: a page asking again and again is held
    to the seat's message budget (bursts of twice the rate), then cut with 4429."""
    rate = 3
    with _client(tables, messages_per_second=rate) as client:
        host = _new_room(client, "computer")
        with client.websocket_connect(f"/ws/{host}") as socket:
            _hello(socket)
            for _ in range(40):
                socket.send_json({"type": "resync", "frame": None})
            read, code = _closed_with(socket)
    assert code == CLOSE_LIMIT
    assert any(m.get("reason") == "too_many_messages" for m in read)
    # The first whole frame, then a burst's worth of whole frames (and a few that stood
    # in for a change while a whole frame was still waiting): not one for each of the 40.
    assert sum(m["type"] == "state" for m in read) <= 1 + 2 * rate + 4


# --- permessage-deflate at the level chosen ---------------------------------------------


def test_the_sockets_deflate_at_the_level_chosen():
    """uvicorn deflates at zlib's default level; the table's protocol at the level chosen
    (``--compression-level``, 4 by default), with uvicorn's window and memory settings."""
    uvicorn = pytest.importorskip("uvicorn")
    import asyncio  # noqa: PLC0415

    from uvicorn.server import ServerState  # noqa: PLC0415

    from backalley.web.transport import DEFLATE_LEVEL, deflate_protocol  # noqa: PLC0415

    async def app(scope, receive, send):  # pragma: no cover -- never called
        raise AssertionError

    loop = asyncio.new_event_loop()
    try:
        for level, deflate in ((DEFLATE_LEVEL, True), (9, True), (1, True), (4, False)):
            config = uvicorn.Config(app, ws_per_message_deflate=deflate, lifespan="off")
            config.load()
            made = deflate_protocol(level)(config, ServerState(), {}, _loop=loop)
            factories = made.conn.available_extensions
            if not deflate:
                assert factories == []
                continue
            [factory] = factories
            assert factory.compress_settings == {"level": level, "memLevel": 5}
            assert factory.server_max_window_bits == factory.client_max_window_bits == 12
    finally:
        loop.close()
    assert DEFLATE_LEVEL == 4
    with pytest.raises(ValueError, match="from 1 to 9"):
        deflate_protocol(0)


def test_a_socket_is_read_no_more_once_read_ahead_messages_wait():
    """uvicorn stops reading a socket at the first message waiting for the application
    (two system calls a message); the table's protocol reads on until ``READ_AHEAD``
    wait, then stops, and reads again once the application has taken them all."""
    pytest.importorskip("uvicorn")
    import asyncio  # noqa: PLC0415

    import uvicorn  # noqa: PLC0415
    from uvicorn.server import ServerState  # noqa: PLC0415

    from backalley.web.transport import READ_AHEAD, deflate_protocol  # noqa: PLC0415

    async def app(scope, receive, send):  # pragma: no cover -- never called
        raise AssertionError

    class Transport:
        def __init__(self) -> None:
            self.calls: list[str] = []

        def pause_reading(self) -> None:
            self.calls.append("pause")

        def resume_reading(self) -> None:
            self.calls.append("resume")

    async def main() -> list[tuple[int, list[str]]]:
        config = uvicorn.Config(app, lifespan="off")
        config.load()
        made = deflate_protocol(4)(config, ServerState(), {}, _loop=asyncio.get_running_loop())
        made.transport = transport = Transport()
        seen = []
        for number in range(READ_AHEAD + 2):
            made.curr_msg_data_type = "text"
            made.frames = [f'{{"type":"name","name":"{number}"}}'.encode()]
            made.send_receive_event_to_app()
            seen.append((made.queue.qsize(), list(transport.calls)))
        for _ in range(READ_AHEAD + 2):
            await made.receive()
        seen.append((made.queue.qsize(), list(transport.calls)))
        return seen

    seen = asyncio.run(main())
    # One message waiting at a time (a page waiting for its answer): no call at all.
    assert seen[0] == (1, [])
    assert seen[READ_AHEAD - 2] == (READ_AHEAD - 1, [])
    # READ_AHEAD waiting: read no more (once), until every one is taken.
    assert seen[READ_AHEAD - 1] == (READ_AHEAD, ["pause"])
    assert seen[READ_AHEAD + 1] == (READ_AHEAD + 2, ["pause"])
    assert seen[-1] == (0, ["pause", "resume"])


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (["--compression-level", "0"], "from 1 to 9, not 0"),
        (["--compression-level", "3", "--no-compression"], "not with --no-compression"),
        (["--compression-level", "3", "--websocket", "websockets"], "another --websocket"),
    ],
)
def test_a_compression_level_that_cannot_be_is_refused_in_one_line(tmp_path, capsys, flags, words):
    """``backalley table`` with a level out of range, or with no deflate to set: exit 2,
    one line saying why, before anything is served."""
    from backalley.cli import main  # noqa: PLC0415

    assert main(["table", "--db", str(tmp_path / "rooms.db"), "--port", "0", *flags]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1


# --- the acknowledgement in the change the action made ----------------------------------


def test_an_action_is_acknowledged_in_the_change_it_made_one_message(tables):
    """The socket that acted is sent one message for its action: the change, carrying
    ``"ack": V`` (the action stored at version ``V``), never an ``ack`` of its own; what
    it holds after applying it is the whole frame it is then sent, text for text."""
    with _client(tables, messages_per_second=10_000) as client:
        host = _new_room(client, "computer")
        with client.websocket_connect(f"/ws/{host}") as socket:
            assert _hello(socket)["type"] == "seat"
            holder = HeldFrame()
            frame, _ = _until_turn(socket, holder)
            acted = 0
            while not frame["over"] and acted < 6:
                _act(socket, frame)
                answer = socket.receive_json()
                assert answer["type"] == "change", answer
                assert answer["ack"] == frame["version"] + 1
                assert answer["base"] == frame["frame"]
                assert holder.receive(answer) is None
                assert holder.frame is not None and "ack" not in holder.frame
                assert holder.frame["version"] == answer["ack"]
                acted += 1
                frame = holder.frame
                if not (frame["your_turn"] or frame["over"]):
                    # (A trick this seat won: it leads the next, its turn again at once.)
                    frame, _ = _until_turn(socket, holder)
            assert acted == 6
            whole = _whole(socket, frame["frame"])
            assert canonical(whole) == canonical(frame)


class _Socket:
    """A socket that keeps what it is sent (the messages, read back as JSON)."""

    def __init__(self) -> None:
        self.scope: dict[str, Any] = {}
        self.sent: list[dict[str, Any]] = []

    async def send_text(self, text: str) -> None:
        self.sent.append(json.loads(text))

    async def close(self, code: int = 1000) -> None:
        pass


def test_an_ack_goes_alone_before_the_frame_when_its_change_is_not_sent(tmp_path):
    """A socket whose outbox still holds a view is sent the whole frame, not the change:
    its acknowledgement then goes as a message of its own, before the frame; a socket
    that keeps up is sent one message, the change with the acknowledgement in it."""
    import asyncio  # noqa: PLC0415

    from backalley.web.connections import Connection, Hub  # noqa: PLC0415
    from backalley.web.limits import Limits  # noqa: PLC0415

    async def settle() -> None:
        for _ in range(20):
            await asyncio.sleep(0)

    async def main() -> list[tuple[int, list[dict[str, Any]]]]:
        tables = Tables(Store(tmp_path / "rooms.db"))
        room, _ = tables.create("friends", Rules(schedule="short"))
        for seat in room.seats:
            if seat is not Seat.SOUTH:
                tables.claim(room, seat)
        while tables.step(room) is not None:
            pass
        limits = Limits()
        hub = Hub(tables, limits, pace=0)
        seen = []
        for keeping_up in (False, True):
            mover = room.state.to_move
            socket = _Socket()
            connection = Connection(socket, room, mover, limits, hub.budget(room, mover))  # type: ignore[arg-type]
            hub.sockets[room.id] = {mover: {connection}}
            hub.broadcast(room)  # the whole frame, queued
            if keeping_up:
                await settle()  # sent
            bid = next(a for a in legal_actions(room.state))
            tables.act(room, mover, room.version, "bid", bid.call)  # type: ignore[attr-defined]
            hub.broadcast(room, acked=connection)
            await settle()
            connection.outbox.stop()
            await connection.outbox.join(connection.sender, 1.0)
            seen.append((room.version, socket.sent))
        tables.store.close()
        return seen

    (behind_at, behind), (keeping_at, keeping) = asyncio.run(main())
    assert [m["type"] for m in behind] == ["ack", "state"]
    assert behind[0] == {"type": "ack", "version": behind_at} and behind[1]["version"] == behind_at
    assert [m["type"] for m in keeping] == ["state", "change"]
    assert keeping[1]["ack"] == keeping_at and keeping[1]["base"] == keeping[0]["frame"]
