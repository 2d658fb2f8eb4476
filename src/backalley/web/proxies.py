"""Trusted proxies: whose ``X-Forwarded-For`` and ``Forwarded`` headers the table believes.

Behind a reverse proxy (Caddy, nginx) every connection comes from the proxy, and
the proxy names the visitor in a header. Anyone can write that header, so it is
believed only from the proxies given with ``backalley table --trusted-proxy
ADDRESS/CIDR`` (none by default: every visitor is the address its connection
comes from). From a trusted peer the client is found the way RFC 7239 section 7.4
asks: the forwarded addresses read from the right (the nearest proxy's entry
last), skipping the trusted ones; the first address not trusted is the client.
An entry that is not an IP address (``unknown``, an obfuscated name, garbage)
ends the walk, and the last trusted hop stands for the client: a header never
turns into a limit's key that a visitor chose.

One header is read, the one the proxy writes (``--proxy-header``):
``X-Forwarded-For`` by default (Caddy, nginx, HAProxy, Traefik), or ``Forwarded``
(RFC 7239). The other is ignored: a proxy passes on the headers it does not write,
so a visitor could write it. The scheme and host the visitor asked for
(``X-Forwarded-Proto``/``X-Forwarded-Host``, or ``proto=``/``host=``) are read
with it, from the nearest proxy's entry.

>>> proxies = TrustedProxies.parse(["127.0.0.1", "10.0.0.0/8"])
>>> headers = [(b"x-forwarded-for", b"203.0.113.9, 10.1.2.3")]
>>> proxies.client("127.0.0.1", headers)
'203.0.113.9'
>>> proxies.client("198.51.100.7", headers)   # not a trusted peer: its header is ignored
'198.51.100.7'
>>> TrustedProxies().client("127.0.0.1", headers)   # no proxy trusted (the default)
'127.0.0.1'
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence
from typing import Final

import attrs

__all__ = ["HEADERS", "MAX_FORWARDED_HOPS", "Network", "TrustedProxies"]

HEADERS: Final = ("x-forwarded-for", "forwarded")
"""The headers a trusted proxy may name the client in (``--proxy-header``)."""

Network = ipaddress.IPv4Network | ipaddress.IPv6Network

MAX_FORWARDED_HOPS: Final = 32
"""Forwarded entries read at most (from the right): a longer chain stops at the last one read."""

Headers = Sequence[tuple[bytes, bytes]]
"""An ASGI scope's headers: lower-case names, raw values."""


def _network(text: str) -> Network:
    try:
        return ipaddress.ip_network(text.strip(), strict=False)
    except ValueError:
        raise ValueError(
            f"a trusted proxy is an IP address or a network such as 10.0.0.0/8, not {text!r}"
        ) from None


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address of one forwarded entry (quotes, brackets and a port taken off), or None."""
    text = text.strip().strip('"').strip()
    if text.startswith("["):  # "[2001:db8::1]:4711" (RFC 7239) or "[2001:db8::1]"
        text = text[1:].split("]", 1)[0]
    elif text.count(":") == 1:  # "192.0.2.43:47011"
        text = text.split(":", 1)[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    mapped = getattr(address, "ipv4_mapped", None)
    return mapped if mapped is not None else address


def _values(headers: Headers, name: bytes) -> list[str]:
    """Every comma-separated entry of every header ``name``, in order (latin-1, as HTTP)."""
    found: list[str] = []
    for key, value in headers:
        if key == name:
            found.extend(part.strip() for part in value.decode("latin-1").split(","))
    return [part for part in found if part]


def _forwarded_pairs(element: str) -> dict[str, str]:
    """One ``Forwarded`` element (``for=...;proto=...``) as lower-case names to values."""
    pairs: dict[str, str] = {}
    for pair in element.split(";"):
        name, equals, value = pair.partition("=")
        if equals:
            pairs[name.strip().lower()] = value.strip().strip('"')
    return pairs


@attrs.frozen
class TrustedProxies:
    """The proxies whose forwarding headers are believed (none by default)."""

    networks: tuple[Network, ...] = ()
    header: str = attrs.field(default="x-forwarded-for", validator=attrs.validators.in_(HEADERS))
    """The header the proxies write: ``x-forwarded-for`` or ``forwarded``."""

    @classmethod
    def parse(cls, texts: Iterable[str], header: str = "x-forwarded-for") -> TrustedProxies:
        """From addresses and networks (``127.0.0.1``, ``::1``, ``10.0.0.0/8``).

        >>> TrustedProxies.parse(["proxy.example"])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ValueError: a trusted proxy is an IP address or a network such as 10.0.0.0/8, not ...
        """
        return cls(tuple(_network(text) for text in texts), header.lower())

    def trusts(self, address: str) -> bool:
        """Whether a connection from ``address`` may say whom it forwards."""
        if not self.networks:
            return False
        ip = _ip(address)
        return ip is not None and any(ip in network for network in self.networks)

    def _chain(self, headers: Headers) -> list[dict[str, str]]:
        """The forwarded entries of the proxies' header, nearest proxy last."""
        if self.header == "forwarded":
            return [_forwarded_pairs(element) for element in _values(headers, b"forwarded")]
        chain = [{"for": entry} for entry in _values(headers, b"x-forwarded-for")]
        proto = _values(headers, b"x-forwarded-proto")
        host = _values(headers, b"x-forwarded-host")
        if chain:
            # The scheme and host the nearest proxy was asked for: its own (last) entries.
            if proto:
                chain[-1]["proto"] = proto[-1]
            if host:
                chain[-1]["host"] = host[-1]
        return chain

    def client(self, peer: str, headers: Headers) -> str:
        """The visitor's address: ``peer`` unless a trusted proxy names someone beyond it."""
        if not self.trusts(peer):
            return peer
        client = peer
        for entry in reversed(self._chain(headers)[-MAX_FORWARDED_HOPS:]):
            ip = _ip(entry.get("for", ""))
            if ip is None:
                return client
            client = str(ip)
            if not self.trusts(client):
                return client
        return client

    def forwarded_origin(self, peer: str, headers: Headers) -> tuple[str, str] | None:
        """The scheme and host the visitor asked the nearest trusted proxy for, if it said."""
        if not self.trusts(peer):
            return None
        chain = self._chain(headers)
        if not chain:
            return None
        nearest = chain[-1]
        proto = nearest.get("proto", "").lower()
        if proto not in ("http", "https"):
            return None
        host = nearest.get("host") or _host_header(headers)
        return (proto, host) if host else None


def _host_header(headers: Headers) -> str:
    for key, value in headers:
        if key == b"host":
            return value.decode("latin-1").strip()
    return ""
