"""The table's public origin: the address friends are given, and the origin sockets must come from.

``backalley table --public-url https://name.example`` says once where the table is
reached (behind a reverse proxy, or served over HTTPS directly). Every link the
host is given is built from it (the seats' invitations, the redirect to the host's
seat, the address the command prints), and a seat's WebSocket is accepted only
from a page of that origin: a browser always sends ``Origin`` with a socket, and
a page of another site (or a name rebound to this machine) opening a seat's
socket is refused before anything is read.

Without ``--public-url`` the expected origin is the one the request was made to:
its ``Host`` and scheme, or what a trusted proxy says the visitor asked for
(:class:`~backalley.web.proxies.TrustedProxies`). A page on the server's own
loopback address (``http://127.0.0.1:8000``, ``localhost``) is accepted too, so
that the host can open the table on the machine that serves it. A client that
sends no ``Origin`` is not a browser (the scripted clients, ``curl``): no other
site's page can make it act, and it is let through to the seat's checks.

>>> public = PublicUrl.parse("https://Table.Example:443/")
>>> public.origin, public.link("/seat/abc")
('https://table.example', 'https://table.example/seat/abc')
>>> PublicUrl.parse("https://table.example/games")  # doctest: +ELLIPSIS
Traceback (most recent call last):
ValueError: the public URL is a scheme and a name, such as https://table.example, with no path ...
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Any, Final
from urllib.parse import urlsplit

import attrs

from .proxies import Headers, TrustedProxies

__all__ = ["PublicUrl", "expected_origin", "origin_allowed"]

_DEFAULT_PORTS: Final = {"http": 80, "https": 443}


def _normal(scheme: str, host: str) -> str | None:
    """``scheme://host[:port]`` lower-cased, the scheme's default port left out; None if bad."""
    scheme = scheme.lower()
    if scheme not in _DEFAULT_PORTS or not host:
        return None
    try:
        parts = urlsplit(f"{scheme}://{host}")
        port = parts.port
    except ValueError:
        return None
    name = parts.hostname
    if not name or parts.username is not None or parts.path not in ("", "/"):
        return None
    if ":" in name:
        name = f"[{name}]"
    shown = "" if port in (None, _DEFAULT_PORTS[scheme]) else f":{port}"
    return f"{scheme}://{name}{shown}"


@attrs.frozen
class PublicUrl:
    """The table's public origin (``https://name.example``), from ``--public-url``."""

    origin: str

    @classmethod
    def parse(cls, text: str) -> PublicUrl:
        """From ``--public-url``: http(s), a name, maybe a port; no path, query or user."""
        parts = urlsplit(text.strip())
        origin = None
        if parts.path in ("", "/") and not parts.query and not parts.fragment:
            origin = _normal(parts.scheme, parts.netloc)
        if origin is None:
            raise ValueError(
                "the public URL is a scheme and a name, such as https://table.example, with no "
                f"path (the table is served at the root of its name); not {text!r}"
            )
        return cls(origin)

    @property
    def secure(self) -> bool:
        """Whether the public origin is HTTPS (voice needs it beyond ``localhost``)."""
        return self.origin.startswith("https:")

    def link(self, path: str) -> str:
        """An absolute address of this table (``path`` starts with ``/``)."""
        return self.origin + path


def _header(headers: Headers, name: bytes) -> str:
    for key, value in headers:
        if key == name:
            return value.decode("latin-1").strip()
    return ""


def _peer(scope: Mapping[str, Any]) -> str:
    client = scope.get("client")
    return str(client[0]) if client else ""


def expected_origin(
    scope: Mapping[str, Any], public: PublicUrl | None, proxies: TrustedProxies
) -> str | None:
    """The origin a request of ``scope`` was made to, as the visitor's browser names it."""
    if public is not None:
        return public.origin
    headers: Headers = scope.get("headers", [])
    forwarded = proxies.forwarded_origin(_peer(scope), headers)
    if forwarded is not None:
        return _normal(*forwarded)
    scheme = "https" if scope.get("scheme") in ("https", "wss") else "http"
    return _normal(scheme, _header(headers, b"host"))


def _loopback(origin: str) -> bool:
    name = urlsplit(origin).hostname or ""
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def origin_allowed(
    scope: Mapping[str, Any], public: PublicUrl | None, proxies: TrustedProxies
) -> bool:
    """Whether a socket's ``Origin`` (if it sent one) is this table's."""
    headers: Headers = scope.get("headers", [])
    sent = _header(headers, b"origin")
    if not sent:
        return True
    parts = urlsplit(sent)
    origin = _normal(parts.scheme, parts.netloc)
    if origin is None:
        return False
    if origin == expected_origin(scope, public, proxies):
        return True
    # The host's own machine: a page of this server's loopback address, requested by that
    # same address (a name rebound to 127.0.0.1 sends its own name in Host, not this).
    scheme = "https" if scope.get("scheme") in ("https", "wss") else "http"
    own = _normal(scheme, _header(headers, b"host"))
    return own is not None and origin == own and _loopback(origin)
