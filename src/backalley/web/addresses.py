"""Where a request or a socket comes from: the one address every per-address limit counts.

Every limit counted per visitor (rooms a minute, open sockets) takes the visitor's
address from :func:`client_address` and from nowhere else, so that what the server
believes about an address is decided in one place.

>>> client_address({"client": ("192.0.2.7", 51000)})
'192.0.2.7'
>>> client_address({})
'unknown'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["client_address"]


def client_address(scope: Mapping[str, Any]) -> str:
    """The client's IP address of an ASGI ``scope`` (HTTP or WebSocket); ``unknown`` if none."""
    client = scope.get("client")
    return str(client[0]) if client else "unknown"
