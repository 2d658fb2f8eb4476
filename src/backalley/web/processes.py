"""A table of several processes: started, watched, started again, and counted once.

``backalley table --processes N`` runs :class:`Supervisor` in the process it
starts: it listens on N ports itself (so that a process started again finds
its port, and connections made meanwhile wait in the port's queue rather than
being refused), starts one ``backalley table`` process on each (its index, its
own database, the listening socket handed down), answers every process's
questions about the per-address limits (:class:`~backalley.web.counts.CountServer`,
on a Unix socket in a folder only this user may open), and starts again a
process that stops without being asked, after a pause that doubles while it
keeps failing at once (:data:`RESTART_PAUSE`, up to :data:`MAX_RESTART_PAUSE`).

Stopped (SIGINT or SIGTERM), it asks each process to stop as Ctrl-C would, waits
up to :data:`STOP_SECONDS`, and kills what is left. The processes run in their
own session, so that a Ctrl-C at the terminal reaches them once, through the
supervisor; a process whose supervisor is gone notices it (its counts'
connection closes) and stops.

Which process holds a room, and the reverse proxy's routes to it:
:mod:`~backalley.web.placement`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shutil
import signal
import socket
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

from .counts import CountServer, LocalCounts

__all__ = ["MAX_RESTART_PAUSE", "RESTART_PAUSE", "STOP_SECONDS", "Supervisor"]

RESTART_PAUSE: Final = 0.5
"""Seconds before a process that stopped unasked is started again (the first time)."""

MAX_RESTART_PAUSE: Final = 30.0
"""The longest pause before a process is started again (it keeps failing at once)."""

STEADY_SECONDS: Final = 30.0
"""A process that ran this long before stopping is started again after the first pause."""

STOP_SECONDS: Final = 20.0
"""Seconds the processes have to stop (their rooms are stored already) before being killed."""

log = logging.getLogger("backalley.web")

Command = Callable[[int, int, str], list[str]]
"""A process's command line: from its index, its listening socket's descriptor, the
counts' socket path."""


class Supervisor:
    """N table processes on the listening sockets ``listening``, one each."""

    def __init__(self, listening: Sequence[socket.socket], counts: LocalCounts, command: Command):
        self.listening = list(listening)
        self.counts = counts
        self.command = command
        self._stopping = asyncio.Event()
        self._children: dict[int, asyncio.subprocess.Process] = {}
        self.restarts = 0
        """Processes started again since the start (for the log and the tests)."""

    def run(self) -> None:
        """Serve until SIGINT or SIGTERM; then stop every process."""
        asyncio.run(self._main())

    async def _main(self) -> None:
        loop = asyncio.get_running_loop()
        for stop in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(stop, self._stopping.set)
        folder = Path(tempfile.mkdtemp(prefix="backalley-table-"))
        server = CountServer(self.counts, folder / "counts.sock")
        try:
            await server.start()
            watchers = [
                loop.create_task(self._keep(index, server.path))
                for index in range(len(self.listening))
            ]
            await self._stopping.wait()
            await self._stop_all()
            for watcher in watchers:
                watcher.cancel()
            await asyncio.gather(*watchers, return_exceptions=True)
        finally:
            await server.stop()
            shutil.rmtree(folder, ignore_errors=True)

    async def _keep(self, index: int, counts_path: str) -> None:
        """Process ``index``, started again whenever it stops unasked."""
        pause = RESTART_PAUSE
        fd = self.listening[index].fileno()
        while not self._stopping.is_set():
            started = time.monotonic()
            child = await asyncio.create_subprocess_exec(
                *self.command(index, fd, counts_path),
                pass_fds=(fd,),
                start_new_session=True,
            )
            self._children[index] = child
            code = await child.wait()
            if self._stopping.is_set():
                return
            pause = RESTART_PAUSE if time.monotonic() - started >= STEADY_SECONDS else pause
            log.error("process %d stopped (exit code %s): started again in %gs", index, code, pause)
            self.restarts += 1
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(pause):
                    await self._stopping.wait()
            pause = min(MAX_RESTART_PAUSE, 2 * pause)

    async def _stop_all(self) -> None:
        """Ask every process to stop as Ctrl-C would; kill those still there after a while."""
        running = [child for child in self._children.values() if child.returncode is None]
        for child in running:
            with contextlib.suppress(ProcessLookupError):
                child.send_signal(signal.SIGINT)
        waits = [child.wait() for child in running]
        try:
            async with asyncio.timeout(STOP_SECONDS):
                await asyncio.gather(*waits)
        except TimeoutError:
            for child in running:
                if child.returncode is None:
                    with contextlib.suppress(ProcessLookupError):
                        child.kill()
            await asyncio.gather(*(child.wait() for child in running))
        sys.stdout.flush()
