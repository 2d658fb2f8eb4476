"""The table's HTTP layer below the routes: security headers, and deadlines on request heads.

- :class:`SecurityHeaders`, a middleware adding the security headers to every HTTP
  answer, and leaving in each socket's scope (:data:`ABORT_KEY`) a way to drop its
  connection at once;
- :func:`http_protocol`, uvicorn's h11 protocol with a deadline on each request's head.

Starlette and uvicorn are the ``web`` extra: only :mod:`backalley.web.app` imports this.
"""

from __future__ import annotations

import asyncio
from typing import Final

from .._extras import require_extra

require_extra("backalley table", "web", ["starlette", "uvicorn", "websockets"])

from starlette.types import ASGIApp, Message, Receive, Scope, Send  # noqa: E402

from .connections import ABORT_KEY, log  # noqa: E402

__all__ = ["ABORT_KEY", "SecurityHeaders", "http_protocol"]

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
    (b"cache-control", b"no-store"),
]


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
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
            await send(message)

        await self.app(scope, receive, send_with_headers)


def http_protocol(request_deadline: float) -> type[asyncio.Protocol]:
    """The HTTP protocol of uvicorn (h11) with a deadline on each request's head.

    uvicorn times out a connection idle between requests, but not one that has begun
    a request and does not finish its head (a byte now and then holds it open for
    good): here each head must arrive within ``request_deadline`` seconds of the
    connection, or of the answer before it; past that the connection is closed, and
    one line logged.
    """
    from uvicorn.protocols.http.h11_impl import H11Protocol  # noqa: PLC0415 -- the extra

    class DeadlinedH11Protocol(H11Protocol):
        _head_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
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
