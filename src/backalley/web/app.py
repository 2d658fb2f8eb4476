"""The table's web server: a Starlette application over :class:`~backalley.web.rooms.Tables`.

Pages and addresses:

- ``GET /``: the lobby (``static/lobby.html``): play the computer, or make a
  room for three friends; the short or the full game and the variants.
- ``POST /rooms``: make a room (a form: ``mode``, ``schedule``, ``tie``,
  ``first_dealer``, ``player``); answered by a redirect to the host's seat.
- ``GET /seat/TOKEN``: the table (``static/table.html``) for the seat of that
  link; the page opens ``/ws/TOKEN``, the seat's WebSocket
  (:mod:`backalley.web.messages`), and opens it again whenever it closes.
- ``GET /how-to``: the how-to page, the table's own page walking a seven-card
  deal step by step (next, back, autoplay); ``GET /how-to/steps.json`` its steps
  (:mod:`backalley.web.howto`).
- ``GET /record/TOKEN``: the finished match as a game record (``backalley
  check`` validates it); refused while the match is on, since the record names
  the seed, and the seed tells every hand.

The server makes the automatic actions itself (the seeded deal, the computer
players' bids and cards), one at a time per room, ``pace`` seconds apart so
that people can follow them. Started on a database that already holds rooms,
it goes on with each of them where it stopped.

Starlette and uvicorn are the ``web`` extra: importing this module without
them raises :class:`~backalley._extras.MissingExtra`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Mapping
from importlib import resources
from typing import Any, Final
from urllib.parse import parse_qs

from .._extras import require_extra

require_extra("backalley table", "web", ["starlette", "uvicorn", "websockets"])

from starlette.applications import Starlette  # noqa: E402 -- after the extra's check
from starlette.requests import Request  # noqa: E402
from starlette.responses import (  # noqa: E402
    FileResponse,
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import Mount, Route, WebSocketRoute  # noqa: E402
from starlette.staticfiles import StaticFiles  # noqa: E402
from starlette.types import ASGIApp, Message, Receive, Scope, Send  # noqa: E402
from starlette.websockets import WebSocket, WebSocketDisconnect  # noqa: E402

from ..core.cards import Seat  # noqa: E402
from ..core.rules import SCHEDULES, Rules  # noqa: E402
from ..formats.records import dumps, record_from_state  # noqa: E402
from .howto import howto_steps  # noqa: E402
from .messages import parse_message, seat_frame  # noqa: E402
from .rooms import MODES, Refused, Room, Tables  # noqa: E402

__all__ = ["DEFAULT_PACE", "DEFAULT_TIE", "MAX_FORM_BYTES", "TableServer", "make_app"]

DEFAULT_PACE: Final = 0.7
"""Seconds between two actions of computer players, so that people can follow them."""

DEFAULT_TIE: Final = "tiebreak-deal"
"""The table's tie rule unless the lobby says otherwise: seed ``001``'s "a tie at the end
plays one more deal with no bidding" (the library's default, a draw, is ``docs/rules.md``'s)."""

MAX_FORM_BYTES: Final = 2048
"""The longest lobby form the server reads."""

CLOSE_UNKNOWN_TOKEN: Final = 4404
"""The WebSocket close code for a link that opens no seat (4000-4999 are the application's)."""

STATIC: Final = resources.files("backalley.web") / "static"

_SECURITY_HEADERS: Final = [
    # Nothing is fetched from other hosts: scripts, styles and sockets are this server's.
    (
        b"content-security-policy",
        b"default-src 'self'; img-src 'self' data:; "
        b"connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    ),
    # A seat's address holds its token: never send it on to another site.
    (b"referrer-policy", b"no-referrer"),
    (b"x-content-type-options", b"nosniff"),
    (b"cache-control", b"no-store"),
]

log = logging.getLogger("backalley.web")


def _security_headers(app: ASGIApp) -> ASGIApp:
    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *_SECURITY_HEADERS]
            await send(message)

        await app(scope, receive, send_with_headers)

    return wrapped


def _page(title: str, sentence: str, status: int) -> HTMLResponse:
    body = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>{title}</title><link rel="stylesheet" href="/static/table.css"></head>'
        f'<body class="message"><main><h1>{title}</h1><p role="alert">{sentence}</p>'
        '<p><a href="/">Back to the lobby</a></p></main></body></html>'
    )
    return HTMLResponse(body, status_code=status)


class TableServer:
    """The rooms, their open sockets, and the tasks that make the automatic actions."""

    def __init__(self, tables: Tables, *, pace: float = DEFAULT_PACE) -> None:
        self.tables = tables
        self.pace = pace
        self.sockets: dict[str, dict[Seat, set[WebSocket]]] = {}
        self._drivers: dict[str, asyncio.Task[None]] = {}

    # --- the automatic actions ---------------------------------------------------------

    def drive(self, room: Room) -> None:
        """Make sure the room's automatic actions are being made (one task per room)."""
        running = self._drivers.get(room.id)
        if room.automatic_due and (running is None or running.done()):
            self._drivers[room.id] = asyncio.get_running_loop().create_task(self._drive(room))

    async def _drive(self, room: Room) -> None:
        # Bounded: each step is one action of a finite match, and the loop stops as soon as
        # a person is to act (a room always has one: its host).
        while room.automatic_due:
            if self.pace > 0:
                await asyncio.sleep(self.pace)
            try:
                action = self.tables.step(room)
            except Exception:
                log.exception("room %s: the automatic action failed", room.id)
                return
            if action is None:
                return
            await self.broadcast(room)

    async def stop(self) -> None:
        """Cancel the drivers (their actions so far are stored) when the server stops."""
        for task in self._drivers.values():
            task.cancel()
        for task in self._drivers.values():
            with contextlib.suppress(asyncio.CancelledError):
                await task

    # --- sockets ------------------------------------------------------------------

    def connected(self, room: Room) -> frozenset[Seat]:
        """The seats of a room that have a page open."""
        return frozenset(seat for seat, open_ in self.sockets.get(room.id, {}).items() if open_)

    async def broadcast(self, room: Room) -> None:
        """Send each open page of the room its own seat's frame."""
        connected = self.connected(room)
        for seat, sockets in list(self.sockets.get(room.id, {}).items()):
            if not sockets:
                continue
            frame = seat_frame(room, seat, connected=connected, token=room.seats[seat].token)
            for socket in list(sockets):
                with contextlib.suppress(Exception):
                    await socket.send_json(frame)

    async def seat_socket(self, socket: WebSocket) -> None:
        """One page at one seat: its frames out, its bids and cards in."""
        await socket.accept()
        try:
            room, seat = self.tables.seat_of(socket.path_params["token"])
        except Refused as refusal:
            await socket.send_json(_refusal(refusal, None))
            await socket.close(code=CLOSE_UNKNOWN_TOKEN)
            return
        self.tables.join(room, seat)
        self.sockets.setdefault(room.id, {}).setdefault(seat, set()).add(socket)
        try:
            await self.broadcast(room)
            self.drive(room)
            while True:
                received = await socket.receive()
                if received["type"] == "websocket.disconnect":
                    return
                await self._answer(socket, room, seat, received)
        except WebSocketDisconnect:
            return
        finally:
            self.sockets[room.id][seat].discard(socket)
            with contextlib.suppress(Exception):
                await self.broadcast(room)

    async def _answer(
        self, socket: WebSocket, room: Room, seat: Seat, received: Mapping[str, Any]
    ) -> None:
        text = received.get("text")
        try:
            message = parse_message(text if text is not None else received.get("bytes") or b"")
            if message.kind == "act":
                self.tables.act(room, seat, message.version, message.field, message.value)
                # Stored: now it may be acknowledged.
                await socket.send_json({"type": "ack", "version": room.version})
            else:
                self.tables.fill(room, seat, message.value)
        except Refused as refusal:
            await socket.send_json(_refusal(refusal, room))
            return
        await self.broadcast(room)
        self.drive(room)

    # --- pages --------------------------------------------------------------------

    async def lobby(self, request: Request) -> Response:
        """The lobby page."""
        return FileResponse(str(STATIC / "lobby.html"))

    async def new_room(self, request: Request) -> Response:
        """Make a room from the lobby's form; go to the host's seat."""
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_FORM_BYTES:
                return _page("Not a room", "That form is too long to be the lobby's.", 413)
        fields = {
            key: values[-1] for key, values in parse_qs(body.decode("utf-8", "replace")).items()
        }
        mode = fields.get("mode", "")
        schedule = fields.get("schedule", "short")
        if mode not in MODES:
            return _page("Not a room", "Choose to play the computer or with three friends.", 400)
        if schedule not in SCHEDULES:
            names = ", ".join(SCHEDULES)
            return _page("Not a room", f"The game is one of {names}, not {schedule!r}.", 400)
        try:
            rules = Rules(
                schedule=schedule,
                tie=fields.get("tie", DEFAULT_TIE),
                first_dealer=Seat.parse(fields.get("first_dealer", "N")),
            )
            _room, token = self.tables.create(mode, rules, fields.get("player", "heuristic"))
        except Refused as refusal:
            return _page("Not a room", refusal.message, 400)
        except ValueError as error:
            return _page("Not a room", f"{error}.", 400)
        return RedirectResponse(f"/seat/{token}", status_code=303)

    async def howto_page(self, request: Request) -> Response:
        """The how-to page: the table's page, walking the how-to deal instead of a seat."""
        return FileResponse(str(STATIC / "table.html"))

    async def howto_json(self, request: Request) -> Response:
        """The how-to deal's steps (made once: the same deal every time)."""
        return JSONResponse(howto_steps())

    async def seat_page(self, request: Request) -> Response:
        """The table page for a seat's link."""
        try:
            self.tables.seat_of(request.path_params["token"])
        except Refused as refusal:
            return _page("No such seat", refusal.message, 404)
        return FileResponse(str(STATIC / "table.html"))

    async def record(self, request: Request) -> Response:
        """The finished match as a game record, to download."""
        try:
            room, seat = self.tables.seat_of(request.path_params["token"])
        except Refused as refusal:
            return _page("No such seat", refusal.message, 404)
        if not room.is_over:
            return _page(
                "Not yet",
                "The record is ready when the match is over (it names the seed, which "
                "would tell every hand).",
                409,
            )
        tags = {"event": "backalley table", "room": room.id, "seat": seat.letter}
        text = dumps(record_from_state(room.state, tags=tags))
        return Response(
            text,
            media_type="application/json",
            headers={"content-disposition": f'attachment; filename="backalley-{room.id}.json"'},
        )


def _refusal(refusal: Refused, room: Room | None) -> dict[str, Any]:
    return {
        "type": "refused",
        "reason": refusal.reason,
        "message": refusal.message,
        "version": None if room is None else room.version,
    }


def make_app(tables: Tables, *, pace: float = DEFAULT_PACE) -> Starlette:
    """The table's ASGI application over ``tables``.

    ``app.state.server`` is its :class:`TableServer`.
    """
    server = TableServer(tables, pace=pace)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        # Rooms stored by an earlier run go on: their computers act again where they stopped.
        for room in tables.rooms.values():
            server.drive(room)
        yield
        await server.stop()

    app = Starlette(
        routes=[
            Route("/", server.lobby),
            Route("/rooms", server.new_room, methods=["POST"]),
            Route("/how-to", server.howto_page),
            Route("/how-to/steps.json", server.howto_json),
            Route("/seat/{token}", server.seat_page),
            Route("/record/{token}", server.record),
            WebSocketRoute("/ws/{token}", server.seat_socket),
            Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
        ],
        lifespan=lifespan,
    )
    app.state.server = server
    app.add_middleware(_SecurityHeaders)
    return app


class _SecurityHeaders:
    """Middleware adding the security headers to every HTTP response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = _security_headers(app)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app(scope, receive, send)
