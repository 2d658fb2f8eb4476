"""The table's server as a process: killed with SIGKILL mid-match, it resumes every room."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import random
import socket
import sqlite3
import threading
import time
import urllib.request

import pytest

pytest.importorskip("uvicorn")
websockets_sync = pytest.importorskip("websockets.sync.client")

from table_helpers import Server, new_room, next_message  # noqa: E402

from backalley.web import scripted  # noqa: E402
from backalley.web.rooms import Tables  # noqa: E402
from backalley.web.store import Store  # noqa: E402

pytestmark = pytest.mark.server


class Seat:
    """One seat's socket, read frame by frame (a timeout, never a hang)."""

    def __init__(self, base: str, token: str, secret: str | None = None) -> None:
        self.token = token
        self._connection = websockets_sync.connect(base.replace("http", "ws", 1) + f"/ws/{token}")
        self.socket = self._connection.__enter__()
        self.last: dict | None = None
        # The first browser to say hello claims the seat; it shows the secret from then on.
        self.socket.send(json.dumps({"type": "hello", "secret": secret}))
        answer = json.loads(self.socket.recv(timeout=20))
        assert answer["type"] == "seat", answer
        self.secret = answer["secret"] or secret

    def receive(self) -> dict:
        message = next_message(self, lambda: json.loads(self.socket.recv(timeout=20)))
        if message["type"] == "state":
            self.last = message
        return message

    def state(self) -> dict:
        while True:
            message = self.receive()
            if message["type"] == "state":
                return message

    def catch_up(self, version: int) -> dict:
        """The first frame of at least ``version`` past the deal (the newest read, if it is)."""
        frame = self.last
        while frame is None or frame["version"] < version or frame["phase"] == "deal":
            frame = self.state()
        return frame

    def until_turn(self) -> dict:
        frame = self.last if self.last is not None else self.state()
        while not (frame["your_turn"] or frame["over"]):
            frame = self.state()
        return frame

    def act(self, frame: dict, index: int = 0) -> dict:
        """Send one of the frame's legal bids or cards; the acknowledgement."""
        options = [("bid", b["call"]) for b in frame["bids"]] or [
            ("play", c["code"]) for c in frame["hand"] if c["legal"]
        ]
        # Bid something (never pass) so that the deal is not thrown in.
        field, value = options[min(index, len(options) - 1)]
        self.socket.send(json.dumps({"type": "act", "version": frame["version"], field: value}))
        while True:
            message = self.receive()
            if message["type"] in ("ack", "refused"):
                self.last = None  # what comes next is newer than the frame acted on
                return message

    def close(self) -> None:
        self._connection.__exit__(None, None, None)


def test_sigkill_mid_match_and_a_restart_resume_every_room(tmp_path):
    """Two rooms mid-match, the server SIGKILLed, started again: both where they were."""
    db = tmp_path / "rooms.db"
    server = Server(db)
    try:
        computer = Seat(server.base, new_room(server.base, "computer"))
        for _ in range(6):
            assert computer.act(computer.until_turn(), index=1)["type"] == "ack"
        computer_frame = computer.until_turn()

        host_token = new_room(server.base, "friends")
        host = Seat(server.base, host_token)
        links = host.state()["links"]
        guests = [Seat(server.base, path.rsplit("/", 1)[-1]) for path in links.values()]
        seats = [host, *guests]
        acked = 0
        for _ in range(7):
            # Everyone reads up to the newest version; the one to move acts.
            frames = [seat.catch_up(acked) for seat in seats]
            newest = max(frame["version"] for frame in frames)
            frames = [seat.catch_up(newest) for seat in seats]
            mover, frame = next(
                (s, f) for s, f in zip(seats, frames, strict=True) if f["your_turn"]
            )
            ack = mover.act(frame, index=1)
            assert ack["type"] == "ack"
            acked = ack["version"]
        friends_views = {seat.token: seat.catch_up(acked)["view"] for seat in seats}
        held = {seat.token: seat.secret for seat in seats}

        server.kill()
        for seat in [computer, *seats]:
            seat.close()

        again = Server(db)
        try:
            back = Seat(again.base, computer.token, computer.secret)
            frame = back.state()
            assert frame["version"] == computer_frame["version"]
            assert frame["view"] == computer_frame["view"] and frame["your_turn"]
            assert back.act(frame)["type"] == "ack"  # and play goes on
            back.close()
            for token, seen in friends_views.items():
                seat = Seat(again.base, token, held[token])
                frame = seat.state()
                assert frame["version"] == acked and frame["view"] == seen
                seat.close()
        finally:
            again.stop()
    finally:
        server.kill()


def test_the_command_prints_its_address_and_stops_on_ctrl_c(tmp_path):
    """backalley table says where it listens; SIGINT stops it with status 0."""
    server = Server(tmp_path / "rooms.db")
    with urllib.request.urlopen(server.base + "/") as page:  # serving: its signals handled
        assert b"Play now" in page.read()
    server.stop()
    assert server.process.returncode == 0


# --- the service under attack: a socket that never reads, kills during group commits -----


def _raw_socket_that_never_reads(port: int, token: str, secret: str):
    """A WebSocket opened by hand with a tiny receive buffer, said hello, then never read."""
    raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
    raw.settimeout(10)
    raw.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    raw.sendall(
        (
            f"GET /ws/{token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += raw.recv(1)  # byte by byte: not one byte of the frames after it
    assert answer.startswith(b"HTTP/1.1 101"), answer
    _send_masked(raw, {"type": "hello", "secret": secret})
    return raw


def _send_masked(raw: socket.socket, message: dict) -> None:
    """One short text frame, masked as a client's must be."""
    payload = json.dumps(message).encode()
    mask = os.urandom(4)
    masked = bytes(byte ^ mask[index % 4] for index, byte in enumerate(payload))
    assert len(payload) < 126
    raw.sendall(bytes([0x81, 0x80 | len(payload)]) + mask + masked)


def _ask_whole_frames(raw: socket.socket, stop: threading.Event) -> None:
    """Ask for the whole frame again and again (never reading it), until cut or stopped.

    The frames of a match carry only what changed, far too little to fill the buffers of
    a socket that never reads; the whole frames it asks for fill them.
    """
    with contextlib.suppress(OSError):
        while not stop.wait(0.02):
            _send_masked(raw, {"type": "resync", "frame": None})


def test_a_socket_that_never_reads_delays_no_other_seat_past_the_deadline(tmp_path):
    """A second page at the host's seat that never reads: the room plays on, every other
    acknowledgement within the send deadline, and the server cuts the slow socket."""
    deadline = 2.0
    server = Server(
        tmp_path / "rooms.db",
        flags=["--send-deadline", str(deadline), "--messages-per-second", "1000"],
    )
    stuck = None
    stop = threading.Event()
    try:

        async def play() -> scripted.RoomRun:
            nonlocal stuck
            run = scripted.RoomRun()
            loop = asyncio.get_running_loop()
            run.host_token = await loop.run_in_executor(
                None, scripted.create_room, server.base, "friends", "standard"
            )
            links = await scripted.host_links(server.base, run.host_token, run)
            stuck = _raw_socket_that_never_reads(
                server.port, run.host_token, run.secrets[run.host_token]
            )
            threading.Thread(target=_ask_whole_frames, args=(stuck, stop), daemon=True).start()
            tokens = [run.host_token, *(path.rsplit("/", 1)[-1] for path in links.values())]
            await asyncio.gather(
                *(
                    scripted.play_seat(server.base, token, random.Random(number), run)
                    for number, token in enumerate(tokens)
                )
            )
            return run

        run = asyncio.run(asyncio.wait_for(play(), 240))
        assert len(run.latencies) > 300  # a whole standard match was played
        assert max(run.latencies) < deadline, sorted(run.latencies)[-5:]
    finally:
        stop.set()
        server.stop()
        if stuck is not None:
            stuck.close()
    log = server.process.stdout.read()
    assert "too slow" in log and "seat S" in log, log
    assert "Traceback" not in log, log


_MANY_BOTS = (
    "--sockets-per-address",
    "1000",
    "--rooms-per-minute",
    "1000",
    "--requests-per-second",
    "1000",
)


def _room_counts(db) -> dict[str, int]:
    with contextlib.closing(sqlite3.connect(db)) as reader:
        return dict(
            reader.execute(
                "SELECT seats.token, COUNT(actions.seq) FROM seats "
                "LEFT JOIN actions ON actions.room = seats.room GROUP BY seats.token"
            ).fetchall()
        )


def test_sigkill_during_group_commits_loses_no_acknowledged_action(tmp_path):
    """Twenty rooms of bots at once (many actions a commit), SIGKILLed three times: every
    acknowledged action is on disk, and every room replays through apply."""
    db = tmp_path / "rooms.db"
    acknowledged = 0
    for kill in range(3):
        # Eighty bots from one address: the per-address limits raised to let them in.
        server = Server(db, flags=[*_MANY_BOTS, "--messages-per-second", "1000"])
        runs = [scripted.RoomRun() for _ in range(20)]

        async def play(base=server.base, runs=runs):
            await asyncio.gather(
                *(scripted.play_friends_room(base, seed, run=run) for seed, run in enumerate(runs)),
                return_exceptions=True,
            )

        def in_thread(play=play):
            with contextlib.suppress(Exception):
                asyncio.run(play())

        players = threading.Thread(target=in_thread, daemon=True)
        players.start()
        time.sleep(2.0 + kill)
        server.kill()
        players.join(timeout=60)
        counts = _room_counts(db)
        for run in runs:
            assert run.host_token, "every room was made"
            for token, version in run.acked.items():
                assert counts[token] >= version, (token, version, counts[token])
                acknowledged += 1
    assert acknowledged > 60
    # Every room on disk is a position the rules allow (replayed through apply).
    tables = Tables(Store(db), resume_within=10**9)
    assert len(tables.rooms) >= 20
    tables.store.close()


def test_the_light_bots_play_whole_matches_as_the_asyncio_client_does(tmp_path):
    """The load benchmark's lighter client (the sans-I/O protocol read in callbacks) and the
    websockets asyncio client, two rooms each at once: every match played to its end, its
    record valid, every action of the room acknowledged up to its last (the version on
    disk), no resync and no refusal, and every seat's frame applied equal to its whole
    frame at the end (the seat's socket opened again and sent it whole; who is connected
    apart)."""
    from backalley.formats.checking import check  # noqa: PLC0415
    from backalley.formats.records import loads  # noqa: PLC0415

    db = tmp_path / "rooms.db"
    # Four rooms alone play fast: a seat acts more often than a person may.
    server = Server(db, flags=[*_MANY_BOTS, "--messages-per-second", "1000"])
    try:

        async def play():
            return await asyncio.gather(
                *(
                    scripted.play_friends_room(server.base, seed, light=seed % 2 == 1, keep=True)
                    for seed in range(4)
                )
            )

        runs = asyncio.run(play())
        for run in runs:
            with urllib.request.urlopen(f"{server.base}/record/{run.host_token}") as answer:
                report = check(loads(answer.read().decode()))
            assert report.complete and report.consistent
            assert run.resyncs == 0 and not run.refusals
            assert len(run.frames) == 4
            for token, frames in run.frames.items():
                assert frames[-1]["over"]
                seat = Seat(server.base, token, run.secrets[token])
                try:
                    whole = seat.state()
                finally:
                    seat.close()
                # All but the frame's number and who is connected now (this socket only).
                kept = {key: value for key, value in frames[-1].items() if key != "seats"}
                assert {**kept, "frame": 0} == {
                    **{key: value for key, value in whole.items() if key != "seats"},
                    "frame": 0,
                }
    finally:
        server.stop()
    counts = _room_counts(db)
    for run in runs:
        assert max(run.acked.values()) == counts[run.host_token] > 100


def test_a_cut_off_post_is_one_log_line_and_no_traceback(tmp_path):
    """A form that stops mid-body, then closes: one line in the server's log."""
    server = Server(tmp_path / "rooms.db")
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as raw:
            raw.sendall(
                b"POST /rooms HTTP/1.1\r\nHost: x\r\n"
                b"Content-Type: application/x-www-form-urlencoded\r\n"
                b"Content-Length: 100\r\n\r\nmode=comp"
            )
            time.sleep(0.3)
        time.sleep(0.5)
        with urllib.request.urlopen(server.base + "/") as page:  # still serving
            assert page.status == 200
    finally:
        server.stop()
    log = server.process.stdout.read()
    lines = [line for line in log.splitlines() if "cut off" in line]
    assert len(lines) == 1 and "Traceback" not in log, log


def test_a_half_sent_request_is_closed_at_the_deadline(tmp_path):
    """A connection that begins a request and never finishes its head is closed; the
    server keeps serving others meanwhile; one log line."""
    server = Server(tmp_path / "rooms.db", flags=["--request-deadline", "1"])
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as raw:
            started = time.monotonic()
            raw.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            with urllib.request.urlopen(server.base + "/") as page:  # others are served
                assert page.status == 200
            closed = False
            for _ in range(50):  # a byte now and then does not hold it open
                try:
                    raw.sendall(b"a")
                except OSError:  # the server has closed it
                    closed = True
                    break
                time.sleep(0.1)
            if not closed:
                assert raw.recv(1024) == b""
            elapsed = time.monotonic() - started
            assert 0.9 < elapsed < 5, elapsed
        # A connection that sends nothing at all: closed too.
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as idle:
            assert idle.recv(1024) == b""
    finally:
        server.stop()
    log = server.process.stdout.read()
    assert log.count("no whole request within 1 s") == 2 and "Traceback" not in log, log
