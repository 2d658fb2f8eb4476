"""One socket's outgoing messages: a bounded queue, a send deadline, and nobody waiting on it.

The room hands each socket its messages with :meth:`Outbox.put` and
:meth:`Outbox.put_view`, which never wait; the socket's own task
(:meth:`Outbox.run`) sends them in order. A newer view replaces a view still
waiting (a slow page skips to the current table rather than replaying it), so
the queue grows only with acknowledgements, refusals and notices, up to
``limit``. A queue over its limit, or a send not done within ``deadline``
seconds, cuts the socket: the ``on_cut`` callback closes it with
:data:`~backalley.web.limits.CLOSE_TOO_SLOW`, and its page reconnects and is
sent the current view. Nothing but the socket's own task ever awaits its sends.

>>> import asyncio
>>> async def demo():
...     sent = []
...     async def send(text):
...         sent.append(text)
...     box = Outbox(send, limit=4, deadline=1.0, on_cut=print)
...     task = asyncio.get_running_loop().create_task(box.run())
...     box.put_view("view 1"); box.put("ack"); box.put_view("view 2")
...     box.put_view("change 2-3", whole=lambda: "view 3")
...     await box.finish()
...     await task
...     return sent
>>> asyncio.run(demo())
['ack', 'view 3']
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Final

__all__ = ["Outbox"]

_VIEW: Final = 0
_OTHER: Final = 1


class Outbox:
    """The bounded, deadlined queue of one socket's outgoing text frames."""

    def __init__(
        self,
        send: Callable[[str], Awaitable[None]],
        *,
        limit: int,
        deadline: float,
        on_cut: Callable[[str], object],
    ) -> None:
        self._send = send
        self._limit = limit
        self._deadline = deadline
        self._on_cut = on_cut
        self._queue: deque[tuple[int, str]] = deque()
        self._wake = asyncio.Event()
        self._closing = False
        self.cut: str | None = None
        """Why the socket was cut (None while it keeps up)."""
        self.sent = 0
        """Messages sent so far."""

    def put(self, text: str) -> None:
        """Queue a message (an acknowledgement, a refusal, a notice); never waits."""
        self._append(_OTHER, text)

    def put_view(self, text: str, whole: Callable[[], str] | None = None) -> None:
        """Queue the seat's newest view, replacing one still waiting; never waits.

        ``text`` may be what changed since the view before (a ``change``): ``whole``
        then gives the whole view, queued instead when a view still waits (the change
        would not apply to the view the page holds before that one is sent).
        """
        if self._closing:
            return
        for index, (kind, _) in enumerate(self._queue):
            if kind == _VIEW:
                del self._queue[index]
                if whole is not None:
                    text = whole()
                break
        self._append(_VIEW, text)

    @property
    def holds_view(self) -> bool:
        """Whether a view waits in the queue (a view put now would replace it)."""
        return any(kind == _VIEW for kind, _ in self._queue)

    def _append(self, kind: int, text: str) -> None:
        if self._closing:
            return
        if len(self._queue) >= self._limit:
            self._fail(f"its outgoing queue passed {self._limit} messages")
            return
        self._queue.append((kind, text))
        self._wake.set()

    async def finish(self) -> None:
        """Send what is queued, then stop :meth:`run` (no more messages are taken)."""
        self._closing = True
        self._wake.set()

    def stop(self) -> None:
        """Stop at once, dropping what is queued."""
        self._closing = True
        self._queue.clear()
        self._wake.set()

    def _fail(self, reason: str) -> None:
        if self.cut is None:
            self.cut = reason
            self._closing = True
            self._queue.clear()
            self._wake.set()
            self._on_cut(reason)

    async def run(self) -> None:
        """Send the queued messages in order until stopped, cut, or the socket fails."""
        # Bounded: each turn sends one message or waits; it ends once closing and empty.
        while True:
            if not self._queue:
                if self._closing:
                    return
                self._wake.clear()
                await self._wake.wait()
                continue
            _, text = self._queue.popleft()
            try:
                async with asyncio.timeout(self._deadline):
                    await self._send(text)
            except TimeoutError:
                self._fail(f"a message took over {self._deadline:g} s to go out")
                return
            except Exception:  # the socket is gone: nothing more to send
                self.stop()
                return
            self.sent += 1

    async def join(self, task: asyncio.Task[None], timeout: float) -> None:
        """Wait up to ``timeout`` for ``task`` (this outbox's :meth:`run`), then cancel it."""
        with contextlib.suppress(TimeoutError, asyncio.CancelledError):
            async with asyncio.timeout(timeout):
                await asyncio.shield(task)
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
