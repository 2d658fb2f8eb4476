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


def next_message(holder: Any, read: Any) -> dict[str, Any]:
    """The next message ``read()`` gives, a change applied (see :func:`held`).

    A change that carries the acknowledgement of the holder's action (``"ack": V``) is
    read as a page reads it: the acknowledgement (given as ``{"type": "ack", "version":
    V}``), then, at the next call, the frame held after the change.
    """
    pending = holder.__dict__.pop("backalley_pending", None)
    if pending is not None:
        return pending  # type: ignore[no-any-return]
    message = read()
    if message.get("type") == "change" and "ack" in message:
        holder.__dict__["backalley_pending"] = held(message, holder)
        return {"type": "ack", "version": message["ack"]}
    return held(message, holder)


def receive(socket: Any) -> dict[str, Any]:
    """The next message of a test client's socket, a change applied (see :func:`next_message`)."""
    return next_message(socket, socket.receive_json)


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
        self.line = line
        """The first line the server printed (its addresses)."""
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


# --- a table of several processes behind Caddy ------------------------------------------


class ProxiedTable:
    """``backalley table --processes N`` behind ``caddy run`` on the Caddyfile it writes.

    ``base`` is Caddy's address (plain HTTP on 127.0.0.1), ``ports`` the processes'
    own, ``server`` the supervising process. N of 1 is one ``backalley table``
    process (no supervisor) behind the same Caddyfile.
    """

    def __init__(self, folder, processes: int, flags=()) -> None:
        from deploy_helpers import caddy_in_front  # noqa: PLC0415 -- with the deploy tests

        from backalley.web.placement import caddyfile  # noqa: PLC0415

        self.folder = folder
        self.server = Server(
            folder / "rooms.db",
            flags=["--processes", str(processes), "--trusted-proxy", "127.0.0.1", *flags],
        )
        self.ports = [int(port) for port in re.findall(r"127\.0\.0\.1:(\d+)/", self.server.line)]
        assert len(self.ports) == processes, self.server.line
        site = folder / "Caddyfile"
        site.write_text(caddyfile([f"127.0.0.1:{port}" for port in self.ports]))
        self.port = free_port()
        try:
            self.caddy = caddy_in_front(folder, site, self.port)
        except BaseException:
            self.server.kill()
            raise
        self.base = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + SERVER_START_SECONDS
        while processes > 1 and len(self.children()) < processes:
            if time.monotonic() > deadline or self.server.process.poll() is not None:
                self.stop()
                raise AssertionError(f"the {processes} processes did not start")
            time.sleep(0.1)

    def children(self) -> dict[int, int]:
        """The table processes' ids by index (the supervisor's children); the server's if one."""
        pid = self.server.process.pid
        with open(f"/proc/{pid}/task/{pid}/children") as file:
            children = [int(word) for word in file.read().split()]
        found = {}
        for child in children:
            try:
                with open(f"/proc/{child}/cmdline", "rb") as file:
                    words = file.read().decode().split("\0")
            except FileNotFoundError:
                continue
            if "--process-index" in words:
                found[int(words[words.index("--process-index") + 1])] = child
        return found or {0: pid}

    def stop(self) -> None:
        from deploy_helpers import stop  # noqa: PLC0415

        try:
            stop(self.caddy)
        finally:
            self.server.stop()
