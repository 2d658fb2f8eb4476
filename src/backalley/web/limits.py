"""The table server's limits and close codes: what one visitor may take, and how it is told.

Each limit has a default here, a ``backalley table`` flag (the field's name with
dashes) and a line in ``docs/table.md``. A socket over a limit is closed with a
close code of the application's range (4000-4999), after a ``refused`` message
saying which limit in words; a page reconnects after the codes that allow it
(:data:`RECONNECT`) and gets the current view.

>>> Limits().sockets_per_seat, CLOSE_TOO_SLOW
(4, 4408)
"""

from __future__ import annotations

from typing import Final, Generic, TypeVar

import attrs

__all__ = [
    "CLOSE_AGAIN",
    "CLOSE_IDLE",
    "CLOSE_LIMIT",
    "CLOSE_NO_HELLO",
    "CLOSE_REINVITED",
    "CLOSE_SEAT_TAKEN",
    "CLOSE_TOO_SLOW",
    "CLOSE_UNKNOWN_TOKEN",
    "RECONNECT",
    "Budget",
    "Limits",
    "Rates",
]

CLOSE_UNKNOWN_TOKEN: Final = 4404
"""The link opens no seat (never made, re-invited, or a computer sits there now)."""
CLOSE_SEAT_TAKEN: Final = 4403
"""The seat is held by the browser that claimed it, and this one does not hold its secret."""
CLOSE_REINVITED: Final = 4410
"""The host gave this seat a new invitation: this browser's secret opens nothing now."""
CLOSE_TOO_SLOW: Final = 4408
"""The socket fell behind: its outgoing queue was full, or a send passed its deadline."""
CLOSE_LIMIT: Final = 4429
"""Over a limit: sockets per seat or per address, or messages per second."""
CLOSE_IDLE: Final = 4411
"""The socket sent nothing for longer than the idle limit."""
CLOSE_NO_HELLO: Final = 4401
"""No ``hello`` (the seat's secret, or a claim) within the deadline after opening."""
CLOSE_AGAIN: Final = 4412
"""The room plays again: the same link and secret now open the new match's seat."""

RECONNECT: Final = frozenset({CLOSE_TOO_SLOW, CLOSE_LIMIT, CLOSE_NO_HELLO, CLOSE_IDLE, CLOSE_AGAIN})
"""The close codes after which a page opens its seat's socket again (with a pause)."""


@attrs.frozen(kw_only=True)
class Limits:
    """What the server allows one visitor, one socket and one room; each a flag."""

    sockets_per_seat: int = attrs.field(default=4, validator=attrs.validators.ge(1))
    """Open sockets at one seat (tabs of the browser holding it)."""
    sockets_per_address: int = attrs.field(default=32, validator=attrs.validators.ge(1))
    """Open sockets from one IP address (all rooms)."""
    requests_per_second: float = attrs.field(default=20.0, validator=attrs.validators.gt(0))
    """Requests one IP address may make a second, on average, on every route, sockets
    opened included (bursts of twice as many allowed)."""
    connections: int = attrs.field(default=1000, validator=attrs.validators.ge(1))
    """Open connections (HTTP and sockets, all addresses) before a new one is closed at
    once; lowered at start to fit the open-files limit."""
    messages_per_second: float = attrs.field(default=10.0, validator=attrs.validators.gt(0))
    """A seat's messages per second, all its sockets together, on average (bursts of twice as
    many allowed)."""
    rooms_per_minute: int = attrs.field(default=10, validator=attrs.validators.ge(1))
    """Rooms one IP address may make in a minute."""
    rooms: int = attrs.field(default=5000, validator=attrs.validators.ge(1))
    """Rooms held in memory at once (all addresses); a new one beyond is refused until some
    leave (finished, abandoned)."""
    send_queue: int = attrs.field(default=64, validator=attrs.validators.ge(2))
    """Messages waiting to go out on one socket (a newer view replaces a waiting one)."""
    send_deadline: float = attrs.field(default=5.0, validator=attrs.validators.gt(0))
    """Seconds one message may take to go out before its socket is closed as too slow."""
    hello_deadline: float = attrs.field(default=10.0, validator=attrs.validators.gt(0))
    """Seconds from opening a socket to its ``hello``."""
    idle: float = attrs.field(default=1800.0, validator=attrs.validators.gt(0))
    """Seconds a socket may send nothing before it is closed (its page reconnects)."""
    request_deadline: float = attrs.field(default=10.0, validator=attrs.validators.gt(0))
    """Seconds to send a request's head (from the connection, or the last answer on it),
    and the lobby's form once its head has come."""
    keep_alive: float = attrs.field(default=5.0, validator=attrs.validators.gt(0))
    """Seconds an idle HTTP connection is kept open between requests."""
    finished_keep: float = attrs.field(default=600.0, validator=attrs.validators.ge(0))
    """Seconds a finished room stays in memory (its database rows are kept)."""
    abandoned_after: float = attrs.field(default=6 * 3600.0, validator=attrs.validators.gt(0))
    """Seconds without a change after which a room leaves memory and is not resumed at start."""
    chat_characters: int = attrs.field(default=300, validator=attrs.validators.ge(1))
    """The longest chat line, in characters."""
    chat_per_minute: int = attrs.field(default=12, validator=attrs.validators.ge(1))
    """Chat lines one seat may send in a minute (all its pages together)."""
    chat_kept: int = attrs.field(default=200, validator=attrs.validators.ge(0))
    """Chat lines a page is sent when it opens (every line stays in the database)."""
    analysis_workers: int = attrs.field(default=1, validator=attrs.validators.ge(1))
    """Worker processes analysing finished matches (each one match at a time)."""
    analysis_queue: int = attrs.field(default=8, validator=attrs.validators.ge(0))
    """Analyses waiting for a worker; a request beyond them is refused until one is done."""
    analysis_per_address: int = attrs.field(default=2, validator=attrs.validators.ge(1))
    """Analyses one IP address may have waiting or running at once (its fair share)."""
    analysis_budget: float = attrs.field(default=300.0, validator=attrs.validators.gt(0))
    """Seconds one match's analysis may take; deals not done by then are "not analysed in time"."""
    think_workers: int = attrs.field(default=2, validator=attrs.validators.ge(1))
    """Worker processes in which the slow computer players (Strong, Expert) choose."""
    think_seconds: float = attrs.field(default=5.0, validator=attrs.validators.gt(0))
    """Seconds a slow computer may take a decision; past them it plays the heuristic's choice."""


class Budget:
    """A token bucket: ``rate`` a second on average, bursts of twice as many.

    A seat's messages (kept by seat, not by socket: a new socket for each burst starts
    from what the seat has left), an address's requests.

    >>> budget = Budget(2.0, now=0.0)
    >>> [budget.take(0.0) for _ in range(5)]
    [True, True, True, True, False]
    >>> budget.take(0.5)
    True
    """

    def __init__(self, rate: float, now: float) -> None:
        self.rate = rate
        self._left = 2 * rate
        self._at = now

    def take(self, now: float) -> bool:
        """Take one message (the bucket refilled up to ``now``); whether there was one."""
        self._left = min(2 * self.rate, self._left + (now - self._at) * self.rate)
        self._at = now
        if self._left < 1:
            return False
        self._left -= 1
        return True

    def full(self, now: float) -> bool:
        """Whether the bucket would be full at ``now`` (then it may be forgotten)."""
        return self._left + (now - self._at) * self.rate >= 2 * self.rate


K = TypeVar("K")


class Rates(Generic[K]):
    """A :class:`Budget` per key (a seat, an address), made when first asked for.

    :meth:`sweep` forgets those full again (a new one would be the same).

    >>> rates = Rates(1.0)
    >>> [rates.take("192.0.2.7", 0.0) for _ in range(3)], rates.take("192.0.2.8", 0.0)
    ([True, True, False], True)
    >>> rates.sweep(10.0); len(rates)
    0
    """

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self._budgets: dict[K, Budget] = {}

    def __len__(self) -> int:
        return len(self._budgets)

    def budget(self, key: K, now: float) -> Budget:
        """The key's budget (a full one, the first time)."""
        found = self._budgets.get(key)
        if found is None:
            found = self._budgets[key] = Budget(self.rate, now)
        return found

    def take(self, key: K, now: float) -> bool:
        """Take one from the key's budget; whether it had one."""
        return self.budget(key, now).take(now)

    def sweep(self, now: float) -> None:
        """Forget the budgets that are full again."""
        for key, budget in list(self._budgets.items()):
            if budget.full(now):
                del self._budgets[key]
