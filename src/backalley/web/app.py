"""The table's web server: a Starlette application over :class:`~backalley.web.rooms.Tables`.

This module only composes the table's parts, one module per concern:

- :mod:`~backalley.web.pages`: the lobby and its form (``GET /``, ``POST /rooms``),
  the how-to (``GET /how-to``, ``GET /how-to/steps.json``), a seat's page
  (``GET /seat/TOKEN``) and the finished match's record (``GET /record/TOKEN``);
- :mod:`~backalley.web.sessions`: ``/ws/TOKEN``, a seat's WebSocket (its hello,
  then its messages in and frames out);
- :mod:`~backalley.web.connections`: the rooms live (their open sockets, a lock
  per room, each seat's frame, the automatic actions);
- :mod:`~backalley.web.talk`: chat and voice signalling in a room of friends;
- :mod:`~backalley.web.analysis_pages`: ``GET /analysis/TOKEN`` and its status,
  over the worker processes of :mod:`~backalley.web.analysis`;
- :mod:`~backalley.web.transport`: the security headers, each address's request
  rate, the deadline on each request's head and the cap on open connections;
- :mod:`~backalley.web.fixed`: the answers made once (the pages, the how-to's
  steps, finished records), served with an ETag;
- :mod:`~backalley.web.addresses`: the client's address that every per-address
  limit counts;
- :mod:`~backalley.web.forwarding`: the client's address as a trusted proxy names
  it, the public origin, and the origin check of every socket.

The server makes the automatic actions itself (the seeded deal, the computer
players' bids and cards), one at a time per room, ``pace`` seconds apart so
that people can follow them. Started on a database that already holds rooms,
it goes on with each room in play where it stopped.

No room waits on a socket: each socket has its own :class:`~backalley.web.outbox.Outbox`
(a bounded queue, a send deadline), and a change is stored by the store's writer
thread while the event loop goes on; each room's changes are made one at a time
(a lock per room). What one visitor may take is bounded by
:class:`~backalley.web.limits.Limits`. A condition a client caused (a cut-off
request, a socket gone, a limit reached) is one log line naming the room, the
seat and the reason, never a traceback.

Starlette and uvicorn are the ``web`` extra: importing this module without
them raises :class:`~backalley._extras.MissingExtra`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from typing import Final

from .._extras import require_extra

require_extra("backalley table", "web", ["starlette", "uvicorn", "websockets"])

from starlette.applications import Starlette  # noqa: E402 -- after the extra's check
from starlette.routing import Mount, Route, WebSocketRoute  # noqa: E402
from starlette.staticfiles import StaticFiles  # noqa: E402

from .analysis import Analyses  # noqa: E402
from .analysis_pages import AnalysisPages  # noqa: E402
from .connections import Hub  # noqa: E402
from .counts import Counts, LocalCounts  # noqa: E402
from .forwarding import Forwarding  # noqa: E402
from .limits import CLOSE_UNKNOWN_TOKEN, Limits  # noqa: E402
from .origins import PublicUrl  # noqa: E402
from .pages import DEFAULT_TIE, MAX_FORM_BYTES, STATIC, Pages  # noqa: E402
from .proxies import TrustedProxies  # noqa: E402
from .rooms import Tables  # noqa: E402
from .sessions import SeatSessions  # noqa: E402
from .talk import Talk  # noqa: E402
from .transport import (  # noqa: E402
    DEFLATE_LEVEL,
    RequestLimits,
    SecurityHeaders,
    deflate_protocol,
    http_protocol,
)
from .turn import Turn  # noqa: E402

__all__ = [
    "CLOSE_UNKNOWN_TOKEN",
    "DEFAULT_PACE",
    "DEFAULT_TIE",
    "DEFLATE_LEVEL",
    "MAX_FORM_BYTES",
    "TableServer",
    "deflate_protocol",
    "http_protocol",
    "make_app",
]

DEFAULT_PACE: Final = 0.7
"""Seconds between two actions of computer players, so that people can follow them."""

SWEEP_SECONDS: Final = 5.0
"""How often idle sockets, finished and abandoned rooms and old counts are looked for."""


class TableServer:
    """The table's parts, composed: the rooms live, the sessions, talk, pages and analyses."""

    def __init__(  # noqa: PLR0913 - the server's settings, keyword-only after the rooms
        self,
        tables: Tables,
        *,
        pace: float = DEFAULT_PACE,
        limits: Limits | None = None,
        stun: tuple[str, ...] = (),
        turn: Turn | None = None,
        counts: Counts | None = None,
    ) -> None:
        self.tables = tables
        self.limits = Limits() if limits is None else limits
        self.counts = LocalCounts.of(self.limits) if counts is None else counts
        """Each address's requests, open sockets and rooms made: this process's own, or
        those every process of the table shares (:mod:`~backalley.web.counts`)."""
        self.hub = Hub(tables, self.limits, pace)
        """The rooms live: open sockets, locks, frames, automatic actions."""
        self.talk = Talk(self.hub, tables, self.limits, stun, turn)
        """Chat and voice signalling."""
        self.sessions = SeatSessions(self.hub, self.talk, tables, self.limits, self.counts)
        """The seats' sockets."""
        self.pages = Pages(tables, self.limits, self.counts)
        """The lobby, the how-to, the seats' pages and records."""
        self.analyses = Analyses(self.limits, tables.store, shared=counts)
        """Finished matches' analyses, made in worker processes."""
        self.analysis_pages = AnalysisPages(tables, self.analyses)

    async def start(self) -> None:
        """Resume the rooms in play and start the sweeper."""
        await self.counts.open()
        for room in list(self.tables.rooms.values()):
            self.hub.drive(room)
        self.hub.spawn(self._sweep())

    async def stop(self) -> None:
        """Stop the analyses, cancel the drivers and the sweeper (the actions so far are stored)."""
        await self.analyses.stop()
        await self.hub.stop()
        await self.counts.close()

    async def _sweep(self) -> None:
        # Runs as long as the server: one pass every few seconds, each pass bounded.
        while True:
            await asyncio.sleep(min(SWEEP_SECONDS, self.limits.idle))
            self.sweep()

    def sweep(self) -> None:
        """Close idle sockets; let finished and abandoned rooms leave memory; forget old counts."""
        now = time.monotonic()
        gone = self.hub.sweep(now)
        self.talk.sweep(now, gone)
        self.counts.sweep(now)

    def routes(self) -> list[Route | WebSocketRoute | Mount]:
        """The table's addresses and what answers each."""
        pages, analysis = self.pages, self.analysis_pages
        return [
            Route("/", pages.lobby),
            Route("/rooms", pages.new_room, methods=["POST"]),
            Route("/how-to", pages.howto_page),
            Route("/how-to/steps.json", pages.howto_json),
            Route("/seat/{token}", pages.seat_page, name="seat"),
            Route("/qr/{token}.svg", pages.qr_code),
            Route("/record/{token}", pages.record),
            Route("/analysis/{token}", analysis.analysis_page),
            Route("/analysis/{token}/status", analysis.analysis_status),
            WebSocketRoute("/ws/{token}", self.sessions.seat_socket),
            Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
        ]


def make_app(  # noqa: PLR0913 - the server's settings, keyword-only after the rooms
    tables: Tables,
    *,
    pace: float = DEFAULT_PACE,
    limits: Limits | None = None,
    stun: tuple[str, ...] = (),
    public: PublicUrl | None = None,
    proxies: TrustedProxies | None = None,
    turn: Turn | None = None,
    counts: Counts | None = None,
) -> Starlette:
    """The table's ASGI application over ``tables``.

    ``stun`` names the STUN servers the pages' voice may use (none by default: only
    the addresses of the browsers' own machines), ``turn`` a TURN relay and its
    shared secret. ``public`` is the table's public URL (the links, the origin its
    sockets must come from), ``proxies`` the reverse proxies whose forwarded client
    addresses are believed (none by default). ``counts`` keeps each address's requests,
    sockets and rooms made (this process's own by default; those of every process in a
    table of several, :class:`~backalley.web.counts.SharedCounts`).
    ``app.state.server`` is its :class:`TableServer`.
    """
    server = TableServer(tables, pace=pace, limits=limits, stun=stun, turn=turn, counts=counts)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        # Rooms stored by an earlier run go on: their computers act again where they stopped.
        await server.start()
        yield
        await server.stop()

    app = Starlette(routes=server.routes(), lifespan=lifespan)
    app.state.server = server
    # The last added runs first: an address over its rate is refused before any route
    # looks anything up, and the refusal carries the security headers too.
    app.add_middleware(RequestLimits, counts=server.counts, rate=server.limits.requests_per_second)
    app.add_middleware(SecurityHeaders)
    # Outermost: every scope has its client and public origin before anything reads them.
    app.add_middleware(Forwarding, public=public, proxies=proxies)
    return app
