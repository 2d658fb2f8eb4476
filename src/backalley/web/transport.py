"""The table's HTTP layer below the routes: headers, request rates, connections, deadlines.

- :class:`SecurityHeaders`, a middleware adding the security headers to every HTTP
  answer, and leaving in each socket's scope (:data:`ABORT_KEY`) a way to drop its
  connection at once;
- :class:`RequestLimits`, a middleware holding each address to
  :attr:`Limits.requests_per_second <backalley.web.limits.Limits.requests_per_second>`
  on every route (an unknown seat's link is a lookup of the database: it counts too);
- :func:`http_protocol`, uvicorn's h11 protocol with a deadline on each request's
  head and a cap on the connections open at once.

Starlette and uvicorn are the ``web`` extra: only :mod:`backalley.web.app` imports this.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Final

from .._extras import require_extra

require_extra("backalley table", "web", ["starlette", "uvicorn", "websockets"])

from starlette.types import ASGIApp, Message, Receive, Scope, Send  # noqa: E402

from .addresses import client_address  # noqa: E402
from .connections import ABORT_KEY, log  # noqa: E402
from .counts import STATIC_RATE_FACTOR, Counts  # noqa: E402
from .limits import CLOSE_LIMIT  # noqa: E402

__all__ = [
    "ABORT_KEY",
    "DEFLATE_LEVEL",
    "STATIC_RATE_FACTOR",
    "RequestLimits",
    "SecurityHeaders",
    "deflate_protocol",
    "http_protocol",
]

SECURITY_HEADERS: Final = [
    # Nothing is fetched from other hosts: scripts, styles and sockets are this server's.
    (
        b"content-security-policy",
        b"default-src 'self'; img-src 'self' data:; "
        b"connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    ),
    # A seat's address holds its invitation: never send it on to another site.
    (b"referrer-policy", b"no-referrer"),
    (b"x-content-type-options", b"nosniff"),
]

NO_STORE: Final = (b"cache-control", b"no-store")
"""Unless an answer says otherwise (a fixed answer: ``no-cache``), nothing is kept."""

_TOO_MANY: Final = (
    b"<!doctype html><title>Too many requests</title><p role=alert>Too many requests "
    b"from this address: wait a little.</p>"
)


class SecurityHeaders:
    """Middleware adding the security headers to every HTTP response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer ``scope`` through the application, the headers added to an HTTP answer."""
        if scope["type"] == "websocket":
            # A socket that never reads blocks every send, the close frame's too: the
            # only way to let go of it at once is the server's transport. uvicorn's
            # send is a method of its protocol object, which holds the transport.
            transport = getattr(getattr(send, "__self__", None), "transport", None)
            abort = getattr(transport, "abort", None)
            if callable(abort):
                scope[ABORT_KEY] = abort
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [*message.get("headers", []), *SECURITY_HEADERS]
                if not any(name.lower() == b"cache-control" for name, _ in headers):
                    headers.append(NO_STORE)
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_with_headers)


class RequestLimits:
    """Middleware: each address's requests and socket openings held to a rate.

    Over its budget an address is answered ``429`` (a socket: closed with
    :data:`~backalley.web.limits.CLOSE_LIMIT` before it is accepted), with one log line,
    before any route looks anything up. The budgets are kept by ``counts``: this
    process's, or those every process of the table shares
    (:class:`~backalley.web.counts.SharedCounts`).
    """

    def __init__(self, app: ASGIApp, counts: Counts, rate: float) -> None:
        self.app = app
        self.counts = counts
        self.rate = rate
        """The rate, for the log line of a refusal."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer ``scope`` through the application, or refuse it if over the rate."""
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        address = client_address(scope)
        # A page's static files (the card sprite above all: every card drawn refers to
        # it) come in bursts that the pages' own requests never make: they are counted
        # apart, at STATIC_RATE_FACTOR times the rate, so that a table drawing its cards
        # never spends the budget of its page's requests.
        static = scope["type"] == "http" and str(scope.get("path", "")).startswith("/static/")
        if await self.counts.ask("static" if static else "request", address):
            if static:
                await self.app(scope, receive, _cached(send))
            else:
                await self.app(scope, receive, send)
            return
        rate = STATIC_RATE_FACTOR * self.rate if static else self.rate
        log.warning("address %s: request refused: over %g a second", address, rate)
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": CLOSE_LIMIT})
            return
        await send(
            {
                "type": "http.response.start",
                "status": 429,
                "headers": [
                    (b"content-type", b"text/html; charset=utf-8"),
                    (b"retry-after", b"1"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": _TOO_MANY})


STATIC_MAX_AGE: Final = 300
"""Seconds a browser keeps a static file before it asks again (``Cache-Control``)."""


def _cached(send: Send) -> Send:
    """``send`` with a static file's answer marked cacheable for ``STATIC_MAX_AGE`` seconds.

    Without it a browser asks again for the card sprite each time a card is drawn.
    """

    async def wrapped(message: Message) -> None:
        if message["type"] == "http.response.start" and message["status"] == 200:
            headers = [(k, v) for k, v in message.get("headers", []) if k != b"cache-control"]
            headers.append((b"cache-control", f"public, max-age={STATIC_MAX_AGE}".encode()))
            message = {**message, "headers": headers}
        await send(message)

    return wrapped


def http_protocol(request_deadline: float, connections: int = 1000) -> type[asyncio.Protocol]:
    """The HTTP protocol of uvicorn (h11) with a deadline on each request's head.

    uvicorn times out a connection idle between requests, but not one that has begun
    a request and does not finish its head (a byte now and then holds it open for
    good): here each head must arrive within ``request_deadline`` seconds of the
    connection, or of the answer before it; past that the connection is closed, and
    one line logged. A connection made while ``connections`` are open (HTTP and
    sockets, uvicorn's count) is closed at once, so that the server never runs out of
    open files.
    """
    from uvicorn.protocols.http.h11_impl import H11Protocol  # noqa: PLC0415 -- the extra

    class DeadlinedH11Protocol(H11Protocol):
        _head_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            if len(self.connections) > connections:
                client = self.client[0] if self.client else "unknown"
                log.warning(
                    "address %s: connection closed: %d connections open", client, connections
                )
                transport.abort()
                return
            self._arm()

        def data_received(self, data: bytes) -> None:
            cycle = self.cycle
            super().data_received(data)
            # A head has come (a new request, or the socket's upgrade): no more deadline.
            if self.cycle is not cycle or self.transport.get_protocol() is not self:
                self._disarm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _arm(self) -> None:
            self._disarm()
            self._head_timer = self.loop.call_later(request_deadline, self._late)

        def _disarm(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _late(self) -> None:
            self._head_timer = None
            if self.transport.get_protocol() is self and not self.transport.is_closing():
                client = self.client[0] if self.client else "unknown"
                log.warning(
                    "address %s: connection closed: no whole request within %g s",
                    client,
                    request_deadline,
                )
                self.transport.close()

    return DeadlinedH11Protocol


DEFLATE_LEVEL: Final = 4
"""zlib's level for the frames' permessage-deflate (``--compression-level``).

Chosen by measurement (``benchmarks/table_frames.py``; ``docs/table.md``, "Frames that
carry what changed"): on the changes of whole matches, level 4 sends a fifth fewer bytes
than level 1 for a tenth more CPU a message; level 6 (zlib's default) saves only 6 %
more bytes for a fifth more CPU. No compression would send four times the bytes.
"""


READ_AHEAD: Final = 4
"""Messages a socket may have waiting for the application before it is read no more."""


def deflate_protocol(level: int = DEFLATE_LEVEL) -> type[asyncio.Protocol]:
    """The ``websockets-sansio`` protocol of uvicorn, deflating at zlib's ``level`` (1 to 9).

    uvicorn deflates at zlib's default level 6 and offers no setting: this protocol makes
    its sockets' extension itself, as uvicorn does (a 4 KiB window each way, ``memLevel``
    5), with the level chosen. It stops reading a socket once :data:`READ_AHEAD` messages
    wait for the application, not at the first (uvicorn's way, two system calls a message).
    """
    if not 1 <= level <= 9:
        raise ValueError(f"a deflate level is from 1 to 9, not {level}")
    from uvicorn.protocols.websockets.websockets_sansio_impl import (  # noqa: PLC0415
        WebSocketsSansIOProtocol,
    )
    from websockets.extensions.permessage_deflate import (  # noqa: PLC0415
        ServerPerMessageDeflateFactory,
    )
    from websockets.server import ServerProtocol  # noqa: PLC0415

    class DeflatingProtocol(WebSocketsSansIOProtocol):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            if self.config.ws_per_message_deflate:
                self.conn = ServerProtocol(
                    extensions=[
                        ServerPerMessageDeflateFactory(
                            server_max_window_bits=12,
                            client_max_window_bits=12,
                            compress_settings={"level": level, "memLevel": 5},
                        )
                    ],
                    max_size=self.config.ws_max_size,
                    logger=logging.getLogger("uvicorn.error"),
                )

        # uvicorn stops reading a socket as soon as one message waits for the
        # application, and reads again once it is taken: two epoll system calls a
        # message. Reading stops here once READ_AHEAD messages wait (each at most
        # ws_max_size): still a bound on what a socket holds, and no calls for a page
        # that sends one message at a time and waits for its answer.
        def send_receive_event_to_app(self) -> None:
            paused = self.read_paused
            self.read_paused = True  # uvicorn's own method then leaves reading alone
            super().send_receive_event_to_app()
            self.read_paused = paused
            if not paused and self.queue.qsize() >= READ_AHEAD:
                self.read_paused = True
                self.transport.pause_reading()

    return DeflatingProtocol
