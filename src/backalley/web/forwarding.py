"""Where each request comes from and where it was sent: the middleware that says so once.

:class:`Forwarding` sees every HTTP request and socket before the routes, and

- puts in the scope the client's address (:data:`~backalley.web.addresses.CLIENT_KEY`):
  the connection's own, or the one a trusted proxy names
  (:class:`~backalley.web.proxies.TrustedProxies`); every per-address limit reads
  it through :func:`~backalley.web.addresses.client_address`;
- puts in the scope the table's public URL (:data:`PUBLIC_KEY`), from which
  :func:`public_link` makes the links the host is given;
- refuses a socket whose ``Origin`` is not the table's
  (:func:`~backalley.web.origins.origin_allowed`) before the application sees it:
  the handshake is answered 403, and one line is logged.

Starlette and uvicorn are the ``web`` extra: only :mod:`backalley.web.app` imports this.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Final

from .._extras import require_extra

require_extra("backalley table", "web", ["starlette", "uvicorn", "websockets"])

from starlette.types import ASGIApp, Receive, Scope, Send  # noqa: E402

from .addresses import CLIENT_KEY, client_address  # noqa: E402
from .origins import PublicUrl, origin_allowed  # noqa: E402
from .proxies import TrustedProxies  # noqa: E402

__all__ = ["PUBLIC_KEY", "Forwarding", "public_link"]

PUBLIC_KEY: Final = "backalley.public"
"""Where the table's :class:`~backalley.web.origins.PublicUrl` (or None) is kept in a scope."""

MAX_LOGGED_ORIGIN: Final = 100
"""The characters of a refused ``Origin`` a log line quotes at most."""

log = logging.getLogger("backalley.web")


def public_link(scope: Mapping[str, Any], path: str) -> str:
    """``path`` (``/seat/TOKEN``) as the host should give it: whole, with the public origin.

    Without ``--public-url`` the path alone, which the browser completes with the
    address the host opened.
    """
    public = scope.get(PUBLIC_KEY)
    return public.link(path) if isinstance(public, PublicUrl) else path


def _origin_header(scope: Scope) -> str:
    for key, value in scope.get("headers", []):
        if key == b"origin":
            return str(value.decode("latin-1"))
    return ""


class Forwarding:
    """Middleware: the client and the public URL in each scope; foreign sockets refused."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        public: PublicUrl | None = None,
        proxies: TrustedProxies | None = None,
    ) -> None:
        self.app = app
        self.public = public
        self.proxies = TrustedProxies() if proxies is None else proxies

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer ``scope`` through the application, or refuse a socket of another origin."""
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        if client and self.proxies.networks:
            scope[CLIENT_KEY] = self.proxies.client(str(client[0]), scope.get("headers", []))
        scope[PUBLIC_KEY] = self.public
        if scope["type"] == "websocket" and not origin_allowed(scope, self.public, self.proxies):
            origin = _origin_header(scope)[:MAX_LOGGED_ORIGIN]
            log.warning(
                "address %s: socket refused: origin %r is not this table's",
                client_address(scope),
                origin,
            )
            # The handshake's first event, then a close before accepting: HTTP 403.
            message = await receive()
            if message["type"] == "websocket.connect":
                await send({"type": "websocket.close", "code": 1008})
            return
        await self.app(scope, receive, send)
