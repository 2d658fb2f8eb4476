"""Reaching a Dask cluster: an address, or ``local`` for a cluster on this machine.

Dask (the ``distributed`` package) is an optional extra; without it every entry
point here raises :class:`ClusterError` with a one-line message naming the
extra, never an ImportError traceback.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import TYPE_CHECKING, Any, Final

from .._extras import MissingExtra

if TYPE_CHECKING:
    from distributed import Client

__all__ = ["LOCAL", "MISSING_EXTRA", "ClusterError", "connect", "local_workers", "require"]

LOCAL: Final = "local"
"""The address that starts a cluster on this machine instead of joining one."""

MISSING_EXTRA: Final = str(MissingExtra("running on a cluster", "cluster"))
"""The one line said when Dask is not installed (worded as for every extra, in ``_extras``)."""

CONNECT_TIMEOUT: Final = 10
"""Seconds to wait for a scheduler before saying it cannot be reached."""


class ClusterError(Exception):
    """A cluster run that cannot start or finish, said in one sentence."""


def require() -> ModuleType:
    """The ``distributed`` module; ClusterError naming the extra when it is not installed."""
    try:
        import distributed  # noqa: PLC0415 - an optional extra, imported only when used
    except ImportError:
        raise ClusterError(MISSING_EXTRA) from None
    return distributed


def local_workers() -> int:
    """How many worker processes ``local`` starts: one per CPU this process may use.

    One thread each: a match is pure Python, so threads would queue on one lock.
    """
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        return os.cpu_count() or 1


def _leave_interrupts_to_client(distributed: ModuleType) -> Any:
    """A plugin making the workers of our own LocalCluster ignore Ctrl-C.

    Ctrl-C reaches every process of the terminal's group: the client stops the
    run and says how far it got, once; a worker would print a traceback. Given
    as a plugin, so that a worker started again after a crash ignores it too.
    """
    plugin: Any = distributed.WorkerPlugin

    class LeaveInterruptsToClient(plugin):  # type: ignore[misc]
        def setup(self, worker: object) -> None:
            if threading.current_thread() is threading.main_thread():
                signal.signal(signal.SIGINT, signal.SIG_IGN)

    return LeaveInterruptsToClient()


@contextmanager
def connect(address: str, *, workers: int | None = None) -> Iterator[Client]:
    """A Dask client for ``address`` (``tcp://host:8786``), or for a new local cluster.

    ``local`` starts a LocalCluster of ``workers`` processes (default
    :func:`local_workers`), one thread each, and stops it on leaving. A
    scheduler that cannot be reached raises ClusterError.
    """
    distributed = require()
    if address == LOCAL:
        cluster = distributed.LocalCluster(
            n_workers=workers or local_workers(),
            threads_per_worker=1,
            processes=True,
            # Any free port: the usual 8787 may be another cluster's. (Dask's dashboard shows
            # there when bokeh is installed.)
            # Workers keep quiet: a failing chunk is reported once, by the client, in a line.
            dashboard_address=":0",
            silence_logs=logging.CRITICAL,
        )
        try:
            with distributed.Client(cluster) as client:
                client.register_plugin(_leave_interrupts_to_client(distributed))
                yield client
        finally:
            cluster.close()
        return
    try:
        client = distributed.Client(address, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as error:
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise ClusterError(f"cannot reach a Dask scheduler at {address!r}: {reason}") from None
    with client:
        yield client
