"""Where a request or a socket comes from: the one address every per-address limit counts.

Every limit counted per visitor (rooms a minute, open sockets) takes the visitor's
address from :func:`client_address` and from nowhere else, so that what the server
believes about an address is decided in one place. Behind a trusted reverse proxy
(``--trusted-proxy``), the address the proxy names for the connection, put in the
scope under :data:`CLIENT_KEY` by :class:`~backalley.web.forwarding.Forwarding`
(:class:`~backalley.web.proxies.TrustedProxies` decides whom to believe); else the
address the connection comes from.

An IPv6 visitor is counted by its /64 network: one home or one machine is usually
given a whole /64, and would otherwise be a new "address" with each of its 2**64
addresses, which no per-address limit could hold.

>>> client_address({"client": ("192.0.2.7", 51000)})
'192.0.2.7'
>>> client_address({})
'unknown'
>>> client_address({"client": ("127.0.0.1", 51000), CLIENT_KEY: "203.0.113.9"})
'203.0.113.9'
>>> client_address({"client": ("2001:db8:1:2:aaaa:bbbb:cccc:dddd", 51000)})
'2001:db8:1:2::/64'
>>> client_address({"client": ("::ffff:192.0.2.7", 51000)})
'192.0.2.7'
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Any, Final

__all__ = ["CLIENT_KEY", "client_address"]

CLIENT_KEY: Final = "backalley.client"
"""Where the client's address, as a trusted proxy names it, is kept in a scope."""


def client_address(scope: Mapping[str, Any]) -> str:
    """The client's IP address of an ASGI ``scope`` (HTTP or WebSocket); ``unknown`` if none."""
    forwarded = scope.get(CLIENT_KEY)
    client = scope.get("client")
    address = str(forwarded) if forwarded else str(client[0]) if client else "unknown"
    return _limit_key(address)


def _limit_key(address: str) -> str:
    """An IPv4 address as it is; an IPv6 one as its /64 (an IPv4-mapped one as the IPv4)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address  # "unknown", or a test client's name
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        if not ip.is_loopback:
            return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)
