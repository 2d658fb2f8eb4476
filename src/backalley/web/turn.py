"""TURN credentials for the rooms' voice: coturn's shared-secret ("REST API") scheme.

Two browsers behind NAT often cannot reach each other directly; a TURN server
relays their audio. ``backalley table --turn turn:turn.example:3478
--turn-secret-file PATH`` gives each seat of a room, with the room's voice roster,
credentials of its own that expire: the TURN server and the table share a secret
(coturn's ``use-auth-secret`` and ``static-auth-secret``), and the table makes

- username: ``"<expiry, unix time>:<id>"``,
- password: ``base64(HMAC-SHA1(secret, username))``,

which the TURN server checks with the same secret and refuses once the time has
passed (draft-uberti-behave-turn-rest-00, the scheme coturn implements). The
secret itself never leaves the server, and only a page that holds a seat (its
socket said a valid ``hello``) is sent credentials.

>>> turn = Turn(urls=("turn:turn.example:3478",), secret=b"s3cret", lifetime=3600)
>>> credentials("1700003600:room7-S", b"s3cret")   # openssl dgst -sha1 -hmac s3cret, base64
'ltxhI/sUGuSgkIsXGUFlYVrhO1E='
>>> server = turn.ice_server("room7-S", now=1700000000)
>>> server["username"], server["credential"] == credentials(server["username"], b"s3cret")
('1700003600:room7-S', True)
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from typing import Any, Final

import attrs

__all__ = ["DEFAULT_TURN_LIFETIME", "MAX_SECRET_BYTES", "Turn", "credentials"]

DEFAULT_TURN_LIFETIME: Final = 12 * 3600.0
"""Seconds a seat's TURN credentials stay valid (a page is sent new ones on each roster)."""

MAX_SECRET_BYTES: Final = 4096
"""The longest shared secret read from ``--turn-secret-file``."""


def credentials(username: str, secret: bytes) -> str:
    """The password of ``username``: base64 of its HMAC-SHA1 under the shared secret."""
    digest = hmac.new(secret, username.encode("utf-8"), hashlib.sha1).digest()
    return base64.b64encode(digest).decode("ascii")


def _urls(instance: Turn, attribute: attrs.Attribute[Any], value: tuple[str, ...]) -> None:
    for url in value:
        if not url.startswith(("turn:", "turns:")) or len(url) > 200 or " " in url:
            raise ValueError(f"a TURN server is an address such as turn:host:3478, not {url!r}")


def _secret(instance: Turn, attribute: attrs.Attribute[Any], value: bytes) -> None:
    if not value:
        raise ValueError("the TURN shared secret is empty")


@attrs.frozen
class Turn:
    """TURN servers and the secret they share with the table."""

    urls: tuple[str, ...] = attrs.field(validator=_urls)
    secret: bytes = attrs.field(validator=_secret, repr=False)
    lifetime: float = attrs.field(default=DEFAULT_TURN_LIFETIME, validator=attrs.validators.gt(0))

    def ice_server(self, who: str, *, now: float | None = None) -> dict[str, Any]:
        """An RTCIceServer entry for ``who`` (a seat of a room), valid ``lifetime`` seconds."""
        expiry = int((time.time() if now is None else now) + self.lifetime)
        username = f"{expiry}:{who}"
        return {
            "urls": list(self.urls),
            "username": username,
            "credential": credentials(username, self.secret),
        }
