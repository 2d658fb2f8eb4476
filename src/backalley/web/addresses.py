"""Where a request or a socket comes from: the one address every per-address limit counts.

Every limit counted per visitor (rooms a minute, open sockets) takes the visitor's
address from :func:`client_address` and from nowhere else, so that what the server
believes about an address is decided in one place. Behind a trusted reverse proxy
(``--trusted-proxy``), the address the proxy names for the connection, put in the
scope under :data:`CLIENT_KEY` by :class:`~backalley.web.forwarding.Forwarding`
(:class:`~backalley.web.proxies.TrustedProxies` decides whom to believe); else the
address the connection comes from.

>>> client_address({"client": ("192.0.2.7", 51000)})
'192.0.2.7'
>>> client_address({})
'unknown'
>>> client_address({"client": ("127.0.0.1", 51000), CLIENT_KEY: "203.0.113.9"})
'203.0.113.9'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = ["CLIENT_KEY", "client_address"]

CLIENT_KEY: Final = "backalley.client"
"""Where the client's address, as a trusted proxy names it, is kept in a scope."""


def client_address(scope: Mapping[str, Any]) -> str:
    """The client's IP address of an ASGI ``scope`` (HTTP or WebSocket); ``unknown`` if none."""
    forwarded = scope.get(CLIENT_KEY)
    if forwarded:
        return str(forwarded)
    client = scope.get("client")
    return str(client[0]) if client else "unknown"
