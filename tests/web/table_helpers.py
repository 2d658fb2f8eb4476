"""Helpers of the table's tests: replaying a stored room, and reading frames for leaks."""

from __future__ import annotations

import json
from typing import Any

from backalley import Card, MatchState, Seat, apply, new_match, seeded_deal
from backalley.engine.view import view
from backalley.formats.notation import parse_action
from backalley.web.rooms import Room


def states_by_version(room: Room, actions: list[str]) -> list[MatchState]:
    """The room's state after 0, 1, 2, ... of its stored actions, replayed through apply."""
    state = new_match(room.rules, seed=room.seed)
    states = [state]
    for text in actions:
        state = apply(state, seeded_deal(state) if text == "deal" else parse_action(text))
        states.append(state)
    return states


def hidden_from(state: MatchState, seat: Seat) -> set[Card]:
    """The cards other seats hold at ``state``: never to be named in a frame for ``seat``."""
    if state.deal is None:
        return set()
    return {card for other in Seat if other is not seat for card in state.hand(other)}


def held(message: dict[str, Any], holder: Any) -> dict[str, Any]:
    """``message``, or, if it is a frame (``state``) or a change, the whole frame held after it.

    ``holder`` keeps the frame (the socket it came on, any object that takes an
    attribute): a change is applied to it as a page would apply it, and must apply
    (these tests drop no frame). The frame given back is a copy, the holder's own kept.
    """
    from backalley.web.changes import HeldFrame  # noqa: PLC0415

    if message.get("type") not in ("state", "change"):
        return message
    frame = holder.__dict__.setdefault("backalley_held", HeldFrame())
    asked = frame.receive(message)
    assert asked is None, f"a change that does not apply to the frame held: {message}"
    return json.loads(json.dumps(frame.frame))


def receive(socket: Any) -> dict[str, Any]:
    """The next message of a test client's socket, a change applied (see :func:`held`)."""
    return held(socket.receive_json(), socket)


def leaks(frame: dict[str, Any], state: MatchState, seat: Seat) -> list[str]:
    """What a frame sent to ``seat`` says that the seat may not know (empty: nothing)."""
    # Finished deals are public, and their cards are dealt again later: what the frame says
    # of them is checked through the view (equal to the engine's own), not by the names.
    current = dict(frame)
    if "view" in current:
        current["view"] = {**current["view"], "history": []}
    last = current.get("last_trick")
    if last is not None and last["deal"] != current.get("deal_number"):
        current["last_trick"] = None
    text = json.dumps(current, ensure_ascii=False)
    found = [
        card.code
        for card in hidden_from(state, seat)
        if f'"{card.code}"' in text or card.words in text
    ]
    if str(state.seed) in text:
        found.append("the seed")
    if frame.get("type") == "state" and frame["view"] != view(state, seat).to_dict():
        found.append("a view other than the seat's own")
    return found


# --- a real server, as a process -------------------------------------------------------

import os  # noqa: E402
import re  # noqa: E402
import selectors  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

SERVER_START_SECONDS = 30
"""How long a server may take to print its address."""


def _limit_files(files: tuple[int, int]) -> None:
    import resource  # noqa: PLC0415 -- POSIX, in the child before it runs the server

    resource.setrlimit(resource.RLIMIT_NOFILE, files)


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Server:
    """``backalley table`` as a process on 127.0.0.1; ``base`` its address."""

    def __init__(self, db, *, port: int = 0, pace: float = 0.0, flags=(), files=None) -> None:
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "backalley",
                "table",
                "--port",
                str(port),
                "--db",
                str(db),
                "--pace",
                str(pace),
                *flags,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            # ``files``: the open-files limits (soft, hard) the server starts with, set in
            # the child before it runs (the tests start servers from one thread).
            preexec_fn=None if files is None else lambda: _limit_files(files),  # noqa: PLW1509
        )
        selector = selectors.DefaultSelector()
        selector.register(self.process.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + SERVER_START_SECONDS
        line = ""
        while time.monotonic() < deadline and self.process.poll() is None:
            if selector.select(timeout=0.5):
                line = self.process.stdout.readline()
                break
        selector.close()
        found = re.search(r"(https?)://127\.0\.0\.1:(\d+)/", line)
        if found is None:
            self.kill()
            raise AssertionError(f"the server did not start: {line!r}")
        self.port = int(found.group(2))
        self.base = f"{found.group(1)}://127.0.0.1:{self.port}"

    def kill(self) -> None:
        """SIGKILL: no shutdown, no flushing; what is on disk is all that is left."""
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        """Stop the server as Ctrl-C would."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()


def new_room(base: str, mode: str = "computer", **form: str) -> str:
    """Make a room through the lobby's form; the host's token."""
    from backalley.web.scripted import create_room  # noqa: PLC0415 -- needs the web extra

    assert not form or set(form) <= {"schedule"}
    return create_room(base, mode, form.get("schedule", "short"))


# --- a slow computer player, importable by the table's worker processes -----------------


SLOW_SECONDS = 3.0
"""How long :class:`SlowPlayer` takes a decision."""


class SlowPlayer:
    """A computer player that takes ``SLOW_SECONDS`` a decision, then its first legal action."""

    def __init__(self, **settings: object) -> None:
        self.settings = settings

    def __call__(self, seen: object, legal: tuple[Any, ...]) -> Any:
        time.sleep(SLOW_SECONDS)
        return legal[0]
