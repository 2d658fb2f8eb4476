"""Answers made once: their bytes encoded a single time, served with an ETag.

The lobby, the table page, the analysis page and the how-to deal's steps are the
same for every visitor, and a finished match's record never changes: each is
encoded once and kept (:class:`Fixed`), so a flood of requests for them costs a
lookup and a send, not a page's or a JSON document's encoding each. Each carries
an ``ETag`` (its bytes' SHA-256); a request whose ``If-None-Match`` names it is
answered ``304 Not Modified``, with no body.

>>> answer = Fixed(b'{"a": 1}', "application/json")
>>> answer.etag[:9], len(answer.etag)
('"f9d86028', 66)
>>> answer.matches('W/"x", ' + answer.etag), answer.matches('"other"'), answer.matches("*")
(True, False, True)
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Generic, TypeVar

__all__ = ["Fixed", "FixedCache"]

K = TypeVar("K")


class Fixed:
    """One answer made once: its bytes, its media type, its ETag and headers."""

    def __init__(
        self,
        body: bytes,
        media_type: str,
        *,
        cache_control: str = "no-cache",
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.body = body
        self.media_type = media_type
        self.etag = '"' + hashlib.sha256(body).hexdigest() + '"'
        self.headers = {"etag": self.etag, "cache-control": cache_control, **(headers or {})}
        """The headers of the answer (``cache-control``: ``no-cache``, so that a browser
        asks again, with the ETag, each time; ``no-store`` where the address is a seat's)."""

    def matches(self, if_none_match: str | None) -> bool:
        """Whether an ``If-None-Match`` header names this answer (a weak match, as for GET)."""
        if not if_none_match:
            return False
        tags = {tag.strip().removeprefix("W/") for tag in if_none_match.split(",")}
        return "*" in tags or self.etag in tags


class FixedCache(Generic[K]):
    """At most ``size`` answers made once each, by key, the least used let go first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._kept: OrderedDict[K, Fixed] = OrderedDict()

    def get(self, key: K, make: Callable[[], Fixed]) -> Fixed:
        """The answer kept for ``key``, made by ``make`` the first time."""
        found = self._kept.get(key)
        if found is None:
            found = self._kept[key] = make()
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)
        else:
            self._kept.move_to_end(key)
        return found
