"""The table's server as a process: killed with SIGKILL mid-match, it resumes every room."""

from __future__ import annotations

import json
import urllib.request

import pytest

pytest.importorskip("uvicorn")
websockets_sync = pytest.importorskip("websockets.sync.client")

from table_helpers import Server, new_room  # noqa: E402

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
        message = json.loads(self.socket.recv(timeout=20))
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
        assert b"Play the computer" in page.read()
    server.stop()
    assert server.process.returncode == 0
