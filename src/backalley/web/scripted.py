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

from .changes import HeldFrame  # noqa: E402

__all__ = [
    "MAX_FRAMES",
    "RoomRun",
    "create_room",
    "hello",
    "host_links",
    "play_friends_room",
    "play_seat",
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
    table = HeldFrame()
    sent_for = -1
    sent_at = 0.0
    for _ in range(MAX_FRAMES):
        message = json.loads(await socket.recv())
        kind = message["type"]
        if kind == "ack":
            _acked(run, token, message["version"], sent_at)
            continue
        if kind in ("state", "change"):
            if "ack" in message:
                # The acknowledgement in the change the action made (the page's case).
                _acked(run, token, message["ack"], sent_at)
            ask = table.receive(message)
            if ask is not None:
                run.resyncs += 1
                await socket.send(json.dumps(ask))
                continue
            if keep:
                frames.append(json.loads(json.dumps(table.frame)))
        elif kind == "refused":
            # Choose again, from the newest frame held.
            run.refusals.append(message)
            sent_for = -1
        else:
            continue  # the chat, voice and seat messages of a room of friends
        frame = table.frame
        if frame is None:
            continue
        if frame["over"]:
            return frame
        if not frame["your_turn"] or frame["version"] == sent_for:
            continue
        bids = [bid["call"] for bid in frame["bids"]]
        cards = [card["code"] for card in frame["hand"] if card["legal"]]
        field, options = ("bid", bids) if bids else ("play", cards)
        if not options:
            continue
        sent_for = frame["version"]
        sent_at = time.perf_counter()
        await socket.send(
            json.dumps({"type": "act", "version": sent_for, field: rng.choice(options)})
        )
    raise RuntimeError(f"seat {token[:6]}…: no end after {MAX_FRAMES} frames")


def _acked(run: RoomRun, token: str, version: int, sent_at: float) -> None:
    run.latencies.append(time.perf_counter() - sent_at)
    run.acked[token] = max(run.acked.get(token, 0), version)


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


async def play_friends_room(
    base: str,
    seed: int,
    *,
    schedule: str = "short",
    keep: bool = False,
    run: RoomRun | None = None,
) -> RoomRun:
    """Make a room of four scripted friends and play it to the end; what they saw.

    ``run``: where to keep it (read it even if the match is cut short).
    """
    run = RoomRun() if run is None else run
    loop = asyncio.get_running_loop()
    run.host_token = await loop.run_in_executor(None, create_room, base, "friends", schedule)
    links = await host_links(base, run.host_token, run)
    tokens = [run.host_token, *(path.rsplit("/", 1)[-1] for path in links.values())]
    rng = random.Random(seed)
    await asyncio.gather(
        *(play_seat(base, token, random.Random(rng.random()), run, keep=keep) for token in tokens)
    )
    return run
