"""Scripted clients of the table: people simulated over real WebSockets, for load tests.

:func:`play_friends_room` makes a room of friends through the lobby's form, opens
the four seats' sockets as four browsers would (the host first; the guests from
the links the host is sent), each claiming its seat with a ``hello`` and keeping
the secret it is given, and plays every seat to the end of the match, each
choosing at random among the bids and cards its own frame offers. Every
acknowledgement is timed from the moment its action was sent. It needs the
``web`` extra (the ``websockets`` client).

``benchmarks/table_load.py`` runs many rooms at once through it.
"""

from __future__ import annotations

import asyncio
import json
import random
import secrets
import time
import urllib.parse
import urllib.request
from typing import Any, Final, cast

from .._extras import require_extra

require_extra("backalley.web.scripted", "web", ["websockets"])

import websockets  # noqa: E402 -- after the extra's check
from websockets.asyncio.client import ClientConnection  # noqa: E402
from websockets.client import ClientProtocol  # noqa: E402
from websockets.extensions.permessage_deflate import (  # noqa: E402
    enable_client_permessage_deflate,
)
from websockets.frames import Frame, Opcode  # noqa: E402
from websockets.http11 import Response  # noqa: E402
from websockets.uri import parse_uri  # noqa: E402

from .changes import HeldFrame  # noqa: E402

__all__ = [
    "MAX_FRAMES",
    "RoomRun",
    "SeatPlayer",
    "create_room",
    "hello",
    "host_links",
    "play_friends_room",
    "play_seat",
    "play_seat_light",
]

MAX_FRAMES: Final = 200_000
"""A seat's client stops after this many frames: a bound on a match that would not end."""


class RoomRun:
    """What one scripted room saw: its host token, the latencies, the frames per seat.

    ``secrets`` holds each seat's secret by its token, once claimed; ``acked`` the
    newest version each seat's actions were acknowledged at (stored, so on disk);
    ``received_bytes`` the bytes its seats' sockets read off the wire (compressed
    frames and their headers: what the server sent them).
    """

    def __init__(self) -> None:
        self.host_token = ""
        self.secrets: dict[str, str] = {}
        self.acked: dict[str, int] = {}
        self.latencies: list[float] = []
        self.frames: dict[str, list[dict[str, Any]]] = {}
        self.refusals: list[dict[str, Any]] = []
        self.received_bytes = 0
        self.resyncs = 0


class CountingConnection(ClientConnection):
    """A client socket that counts the bytes it reads off the wire (``received``)."""

    received = 0

    def data_received(self, data: bytes) -> None:
        """Count ``data``, then read it as any client socket would."""
        self.received += len(data)
        super().data_received(data)


def create_room(base: str, mode: str = "friends", schedule: str = "short") -> str:
    """Make a room through the lobby's form; the host's token (from the redirect)."""
    form = urllib.parse.urlencode({"mode": mode, "schedule": schedule}).encode()

    class _NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any, **kwargs: Any) -> None:
            return None

    opener = urllib.request.build_opener(_NoRedirect)
    try:
        opener.open(urllib.request.Request(f"{base}/rooms", data=form, method="POST"))
    except urllib.error.HTTPError as answer:
        if answer.code == 303:
            return str(answer.headers["location"]).rsplit("/", 1)[-1]
        raise
    raise RuntimeError("the lobby did not redirect to a seat")


async def hello(socket: Any, token: str, run: RoomRun) -> None:
    """Say hello on a seat's socket with its secret, made and kept first if ``run`` has none.

    As the page does: a claim with the client's own secret, kept before it is sent, is
    not lost if the server dies before answering.
    """
    secret = run.secrets.setdefault(token, secrets.token_urlsafe(24))
    await socket.send(json.dumps({"type": "hello", "secret": secret}))
    answer = json.loads(await socket.recv())
    if answer["type"] != "seat":
        raise RuntimeError(f"seat {token[:6]}…: not admitted: {answer}")
    if answer["secret"]:
        run.secrets[token] = answer["secret"]


async def play_seat(
    base: str, token: str, rng: random.Random, run: RoomRun, *, keep: bool = False
) -> dict[str, Any]:
    """Play one seat to the end of the match; its last frame.

    ``keep`` keeps every frame the seat received in ``run.frames`` (for leak tests).
    """
    url = base.replace("http://", "ws://", 1) + f"/ws/{token}"
    frames = run.frames.setdefault(token, [])
    async with websockets.connect(
        url, max_size=2**22, create_connection=CountingConnection
    ) as opened:
        socket = cast("CountingConnection", opened)
        try:
            return await _play(socket, token, rng, run, frames, keep=keep)
        finally:
            run.received_bytes += socket.received


async def _play(  # noqa: PLR0913 -- one seat's socket and what it keeps
    socket: CountingConnection,
    token: str,
    rng: random.Random,
    run: RoomRun,
    frames: list[dict[str, Any]],
    *,
    keep: bool,
) -> dict[str, Any]:
    await hello(socket, token, run)
    player = SeatPlayer(token, rng, run, frames, keep=keep)
    for _ in range(MAX_FRAMES):
        answer = player.receive(json.loads(await socket.recv()))
        if player.last is not None:
            return player.last
        if answer is not None:
            await socket.send(json.dumps(answer))
    raise RuntimeError(f"seat {token[:6]}…: no end after {MAX_FRAMES} frames")


class SeatPlayer:
    """One seat's play, whatever carries its messages: the frame held, the choices made.

    :meth:`receive` takes each message the seat is sent (after its ``seat``) and answers
    the message to send, if any (an action, or a ``resync``); ``last`` is the seat's last
    frame once the match is over. Each acknowledgement is timed from its action's sending.
    """

    def __init__(
        self,
        token: str,
        rng: random.Random,
        run: RoomRun,
        frames: list[dict[str, Any]],
        *,
        keep: bool = False,
    ) -> None:
        self.token = token
        self.rng = rng
        self.run = run
        self.frames = frames
        self.keep = keep
        self.table = HeldFrame()
        self.sent_for = -1
        self.sent_at = 0.0
        self.last: dict[str, Any] | None = None

    def receive(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """Take one message; the message to send in answer, if any."""
        kind = message["type"]
        run = self.run
        if kind == "ack":
            _acked(run, self.token, message["version"], self.sent_at)
            return None
        if kind in ("state", "change"):
            if "ack" in message:
                # The acknowledgement in the change the action made (the page's case).
                _acked(run, self.token, message["ack"], self.sent_at)
            ask = self.table.receive(message)
            if ask is not None:
                run.resyncs += 1
                return ask
            if self.keep:
                self.frames.append(json.loads(json.dumps(self.table.frame)))
        elif kind == "refused":
            # Choose again, from the newest frame held.
            run.refusals.append(message)
            self.sent_for = -1
        else:
            return None  # the chat, voice and seat messages of a room of friends
        frame = self.table.frame
        if frame is None:
            return None
        if frame["over"]:
            self.last = frame
            return None
        if not frame["your_turn"] or frame["version"] == self.sent_for:
            return None
        bids = [bid["call"] for bid in frame["bids"]]
        cards = [card["code"] for card in frame["hand"] if card["legal"]]
        field, options = ("bid", bids) if bids else ("play", cards)
        if not options:
            return None
        self.sent_for = frame["version"]
        self.sent_at = time.perf_counter()
        return {"type": "act", "version": self.sent_for, field: self.rng.choice(options)}


def _acked(run: RoomRun, token: str, version: int, sent_at: float) -> None:
    run.latencies.append(time.perf_counter() - sent_at)
    run.acked[token] = max(run.acked.get(token, 0), version)


class _LightSeat(asyncio.Protocol):
    """One seat's socket read and written in the event loop's callbacks, no task a message.

    The WebSocket protocol (handshake, frames, permessage-deflate) is the ``websockets``
    library's sans-I/O :class:`~websockets.client.ClientProtocol`; each message is read
    and answered as it arrives, without the asyncio client's future, queue and task
    switch a message: the same bot, at less CPU a message (``table_load.py``'s default).
    """

    def __init__(self, url: str, token: str, player: SeatPlayer, done: asyncio.Future[Any]) -> None:
        self.url = url
        self.token = token
        self.player = player
        self.done = done
        self.transport: asyncio.Transport | None = None
        self.seated = False
        self.count = 0
        self.ws = ClientProtocol(
            parse_uri(url), extensions=enable_client_permessage_deflate(None), max_size=2**22
        )

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Send the opening handshake."""
        self.transport = cast("asyncio.Transport", transport)
        self.ws.send_request(self.ws.connect())
        self._flush()

    def data_received(self, data: bytes) -> None:
        """Read what came: the handshake's answer, then messages, each answered at once."""
        self.player.run.received_bytes += len(data)
        self.ws.receive_data(data)
        for event in self.ws.events_received():
            if self.done.done():
                break
            if isinstance(event, Response):
                if event.status_code != 101:
                    self._fail(f"the server refused the socket ({event.status_code})")
                    break
                secret = self.player.run.secrets.setdefault(self.token, secrets.token_urlsafe(24))
                self._send({"type": "hello", "secret": secret})
            elif isinstance(event, Frame) and event.opcode is Opcode.TEXT:
                self._message(json.loads(bytes(event.data)))
        self._flush()

    def _message(self, message: dict[str, Any]) -> None:
        self.count += 1
        if self.count > MAX_FRAMES:
            self._fail(f"no end after {MAX_FRAMES} frames")
            return
        if not self.seated:
            # As hello() reads it: the seat's answer first, and its secret kept.
            if message["type"] != "seat":
                self._fail(f"not admitted: {message}")
                return
            self.seated = True
            if message["secret"]:
                self.player.run.secrets[self.token] = message["secret"]
            return
        answer = self.player.receive(message)
        if self.player.last is not None:
            self.done.set_result(self.player.last)
            self.ws.send_close()
        elif answer is not None:
            self._send(answer)

    def _send(self, message: dict[str, Any]) -> None:
        self.ws.send_text(json.dumps(message).encode())

    def _flush(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            data = self.ws.data_to_send()
            if data:
                self.transport.write(b"".join(data))

    def _fail(self, why: str) -> None:
        if not self.done.done():
            self.done.set_exception(RuntimeError(f"seat {self.token[:6]}…: {why}"))
        if self.transport is not None:
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        """The socket closed: an end before the match's is a failure."""
        if not self.done.done():
            self._fail("the socket closed before the match ended")


async def play_seat_light(
    base: str, token: str, rng: random.Random, run: RoomRun, *, keep: bool = False
) -> dict[str, Any]:
    """:func:`play_seat` through the lighter client (:class:`_LightSeat`); its last frame."""
    url = base.replace("http://", "ws://", 1) + f"/ws/{token}"
    address = urllib.parse.urlsplit(url)
    loop = asyncio.get_running_loop()
    done: asyncio.Future[dict[str, Any]] = loop.create_future()
    player = SeatPlayer(token, rng, run, run.frames.setdefault(token, []), keep=keep)
    transport, _ = await loop.create_connection(
        lambda: _LightSeat(url, token, player, done), address.hostname or "", address.port or 80
    )
    try:
        return await done
    finally:
        transport.close()


async def host_links(base: str, host: str, run: RoomRun) -> dict[str, str]:
    """Claim the host's seat (its secret kept in ``run``); the guests' links it is sent."""
    url = base.replace("http://", "ws://", 1) + f"/ws/{host}"
    async with websockets.connect(url) as socket:
        await hello(socket, host, run)
        for _ in range(100):
            message = json.loads(await socket.recv())
            if message["type"] == "state" and "links" in message:
                links: dict[str, str] = message["links"]
                return links
    raise RuntimeError("the host was never sent the guests' links")


async def play_friends_room(  # noqa: PLR0913 -- the room, and how its bots play
    base: str,
    seed: int,
    *,
    schedule: str = "short",
    keep: bool = False,
    run: RoomRun | None = None,
    light: bool = False,
) -> RoomRun:
    """Make a room of four scripted friends and play it to the end; what they saw.

    ``run``: where to keep it (read it even if the match is cut short); ``light``: the
    seats play through the lighter client (:func:`play_seat_light`).
    """
    run = RoomRun() if run is None else run
    loop = asyncio.get_running_loop()
    run.host_token = await loop.run_in_executor(None, create_room, base, "friends", schedule)
    links = await host_links(base, run.host_token, run)
    tokens = [run.host_token, *(path.rsplit("/", 1)[-1] for path in links.values())]
    rng = random.Random(seed)
    play = play_seat_light if light else play_seat
    await asyncio.gather(
        *(play(base, token, random.Random(rng.random()), run, keep=keep) for token in tokens)
    )
    return run
