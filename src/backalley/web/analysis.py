"""A finished match's analysis at the table, made in worker processes off the event loop.

The analysis itself is the solver's (:mod:`backalley.solver.analysis`): each
deal's double-dummy tricks beside the tricks taken, and the cards that cost
tricks. Here it is scheduled: at most ``analysis_workers`` matches are analysed
at once, each in a worker process of its own, and at most ``analysis_queue``
more wait for one (:class:`~backalley.web.limits.Limits`); a request beyond
them is refused, never queued. Each match has ``analysis_budget`` seconds: a
worker still busy then is ended (a process can be stopped where a thread
cannot), and the deals it had not done are "not analysed in time".

The worker sends each deal's analysis as it is done, so the page shows the
deals done of the deals; a finished analysis is kept per room, in memory (the
``KEPT_ANALYSES`` most recent) and in the rooms' database, so asking again,
reloading the page or starting the server again does not analyse again.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import multiprocessing
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, Final, Literal

import attrs

from ..core.cards import Card
from ..core.scoring import score
from ..engine.state import DealResult, MatchState
from ..pictures.prose import deal_label, score_rows
from ..pictures.svg import deal_svg
from ..solver.analysis import DealAnalysis, analysis_document, analyze_result
from .counts import Counts
from .limits import Limits
from .rooms import Refused, Room
from .store import Store, analysis_write

__all__ = [
    "KEPT_ANALYSES",
    "POLL_SECONDS",
    "Analyses",
    "Job",
    "die_with_parent",
    "start_worker",
]

KEPT_ANALYSES: Final = 256
"""Finished analyses kept in memory (the oldest leaves first)."""

POLL_SECONDS: Final = 0.05
"""How often a worker's pipe is looked at (a look never waits)."""

log = logging.getLogger("backalley.web")

_CONTEXT: Final = multiprocessing.get_context("spawn")
"""Spawned, not forked: the server has threads (the store's writer) a fork would copy."""


PARENT_POLL_SECONDS: Final = 0.5
"""How often a worker looks whether the server that started it is still there."""


def die_with_parent(parent: int) -> None:
    """End this process as soon as the process ``parent`` is gone (a SIGKILL included).

    A daemon thread looks, every ``PARENT_POLL_SECONDS``, whether this process's parent
    is still ``parent`` (a process whose parent died is adopted by another) and ends
    the process at once if not. A worker left behind would keep a core busy for
    nothing, and the server started again would start another. (Linux's
    ``PR_SET_PDEATHSIG`` is not used: it follows the *thread* that started the
    worker, not the process.)
    """

    def watch() -> None:
        # Runs as long as the process: one look every PARENT_POLL_SECONDS.
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_SECONDS)
        os._exit(1)

    if os.getppid() != parent:  # gone before the watch began
        os._exit(1)
    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _worker_main(parent: int, target: Callable[..., object], args: tuple[Any, ...]) -> None:
    die_with_parent(parent)
    target(*args)


def start_worker(target: Callable[..., object], args: tuple[Any, ...]) -> BaseProcess:
    """Start ``target(*args)`` in a worker process that ends when this process is gone."""
    process = _CONTEXT.Process(target=_worker_main, args=(os.getpid(), target, args), daemon=True)
    process.start()
    return process


def _work(state: MatchState, pipe: Connection) -> None:
    """The worker: each finished deal's analysis, sent as ``(index, analysis)`` when done."""
    for index, result in enumerate(state.history):
        pipe.send((index, analyze_result(result)))
    pipe.close()


@attrs.define
class Job:
    """One match's analysis: queued, running or done; its deals as they are done."""

    labels: tuple[str, ...]
    results: tuple[DealResult, ...] = ()
    """The match's deals, to draw each one's hands and to price its costly cards."""
    status: Literal["queued", "running", "done"] = "queued"
    analyses: dict[int, DealAnalysis | None] = attrs.Factory(dict)
    timed_out: bool = False
    failed: bool = False
    document: dict[str, Any] | None = None
    stored: dict[str, Any] | None = None
    """The answer as the database kept it, for a match analysed before a restart."""
    address: str = "unknown"
    """Who asked for it (its share of the queue is counted by address)."""
    counted: bool = False
    """Counted also by the counts every process of the table shares (given back when done)."""

    @property
    def total(self) -> int:
        """The match's deals (thrown-in deals included)."""
        return len(self.labels)

    def as_json(self, budget: float) -> dict[str, Any]:
        """What the page is sent: where the analysis stands, and the analysis once done."""
        if self.stored is not None:
            return self.stored
        return {
            "status": self.status,
            "done": len(self.analyses),
            "total": self.total,
            "budget": budget,
            "timed_out": self.timed_out,
            "failed": self.failed,
            "analysis": self.document,
        }

    def finish(self) -> None:
        """Make the document: every deal, in order, each one analysed or not in time."""
        done = [self.analyses.get(index) for index in range(self.total)]
        document = analysis_document(done)
        deals: list[dict[str, Any]] = document["deals"]  # type: ignore[assignment]
        for index, entry in enumerate(deals):
            entry["label"] = self.labels[index]
            entry["analysed"] = index in self.analyses
            if index not in self.analyses:
                entry["played"] = None
            analysis = self.analyses.get(index)
            if analysis is not None and index < len(self.results):
                _for_players(entry, analysis, self.results[index])
        self.document = document
        self.status = "done"


def _symbol(card: Card) -> str:
    """A card as a player reads it: ``K♠``, ``10♥``, or the big or the little blooper."""
    if card.is_joker:
        return "big blooper" if card is Card.BIG else "little blooper"
    return card.symbol


def _for_players(entry: dict[str, Any], analysis: DealAnalysis, result: DealResult) -> None:
    """What a player reads of a deal beside the figures: its hands drawn, points lost.

    The four hands drawn (the costly cards marked), each costly card as a symbol, and
    the points it cost its side: the side's score had it taken the tricks lost, less
    its score (none on a tiebreak deal, which scores nothing).
    """
    deal = result.deal
    contracts = deal.contracts
    won = deal.tricks_won
    size = deal.hand_size
    for costly, shown in zip(analysis.costly, entry["costly"], strict=True):
        shown["card_symbol"] = _symbol(costly.card)
        shown["best_symbols"] = [_symbol(card) for card in costly.best]
        side = 0 if costly.seat.letter in "NS" else 1
        if contracts is None:
            shown["points"] = None
            continue
        got = score(contracts[side], hand_size=size, tricks=won[side])
        best = score(contracts[side], hand_size=size, tricks=min(size, won[side] + costly.lost))
        shown["points"] = best - got
    marks = {(costly.trick, costly.seat): costly.lost for costly in analysis.costly}
    entry["svg"] = deal_svg(result, marks=marks)


class Analyses:
    """The table's analyses: a bounded queue, bounded workers, a budget, a cache per room."""

    def __init__(self, limits: Limits, store: Store, shared: Counts | None = None) -> None:
        self.store = store
        self.shared = shared
        """In a table of several processes, the counts they share: an address's analyses
        are counted there too, across the processes (:meth:`ask`)."""
        self.workers = limits.analysis_workers
        self.queue = limits.analysis_queue
        self.per_address = limits.analysis_per_address
        self.budget = limits.analysis_budget
        self.jobs: OrderedDict[str, Job] = OrderedDict()
        self._slots: asyncio.Semaphore | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._processes: set[BaseProcess] = set()

    async def ask(self, room: Room, address: str = "unknown") -> Job:
        """As :meth:`request`; a new analysis counted against the address in every process.

        In a table of several processes, one visitor's analyses are held to
        ``analysis_per_address`` across all of them, not in each; in a table of one,
        this is :meth:`request`.
        """
        fresh = (
            self.shared is not None
            and room.is_over
            and room.id not in self.jobs
            and self.store.analysis(room.id) is None
        )
        if not fresh or self.shared is None:
            return self.request(room, address)
        if not await self.shared.ask("analysis", address):
            raise Refused(
                "analysis_share",
                f"{self.per_address} analyses asked for from this address are being made or "
                "waiting: ask again when one is done.",
            )
        if room.id in self.jobs:
            # Asked for meanwhile by someone else: theirs is the one counted.
            self.shared.give_back("analysis", address)
            return self.request(room, address)
        try:
            return self.request(room, address, counted=True)
        except Refused:
            self.shared.give_back("analysis", address)
            raise

    def request(self, room: Room, address: str = "unknown", *, counted: bool = False) -> Job:
        """The room's analysis: the one made or being made, else a new one queued.

        Raises :class:`Refused` while the match is on, when the workers and the queue
        are full, or when ``address`` already has its share of them waiting or running
        (``analysis_per_address``): one visitor cannot fill the queue so that everyone
        else is refused.
        """
        if not room.is_over:
            raise Refused(
                "analysis_not_yet",
                "The analysis is ready when the match is over (it shows every hand).",
            )
        found = self.jobs.get(room.id)
        if found is not None:
            self.jobs.move_to_end(room.id)
            return found
        text = self.store.analysis(room.id)
        if text is not None:
            stored = json.loads(text)
            found = self.jobs[room.id] = Job((), status="done", stored=stored)
            self._forget_old()
            return found
        busy = sum(1 for job in self.jobs.values() if job.status != "done")
        mine = sum(
            1 for job in self.jobs.values() if job.status != "done" and job.address == address
        )
        if mine >= self.per_address:
            raise Refused(
                "analysis_share",
                f"{mine} analyses asked for from this address are being made or waiting: "
                "ask again when one is done.",
            )
        if busy >= self.workers + self.queue:
            raise Refused(
                "analysis_busy",
                f"{busy} matches are being analysed or waiting: ask again in a few minutes.",
            )
        deals = room.state.rules.deals
        labels = tuple(
            deal_label(row.scheduled, deals, redeal=row.redeal, tiebreak=row.kind == "tiebreak")
            for row in score_rows(room.state)
        )
        job = self.jobs[room.id] = Job(
            labels, tuple(room.state.history), address=address, counted=counted
        )
        self._forget_old()
        task = asyncio.get_running_loop().create_task(self._run(room.id, room.state, job))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return job

    def _forget_old(self) -> None:
        done = [key for key, job in self.jobs.items() if job.status == "done"]
        for key in done[: max(0, len(done) - KEPT_ANALYSES)]:
            del self.jobs[key]

    async def _run(self, room: str, state: MatchState, job: Job) -> None:
        try:
            await self._analyse(room, state, job)
        finally:
            # Done, failed, or cancelled while waiting: no longer the address's.
            if job.counted and self.shared is not None:
                self.shared.give_back("analysis", job.address)

    async def _analyse(self, room: str, state: MatchState, job: Job) -> None:
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.workers)
        async with self._slots:
            job.status = "running"
            try:
                await self._watch(state, job)
            finally:
                job.finish()
            if not (job.timed_out or job.failed):
                # Kept for good: a restart answers from it. One not done in time is not
                # kept, so a server given a longer budget may try again.
                text = json.dumps(job.as_json(self.budget))
                try:
                    await self.store.submit_async(analysis_write(room, text))
                except Exception:
                    # The disk's fault, not a client's: the analysis stays in memory.
                    log.exception("room %s: the analysis was not stored", room)

    async def _watch(self, state: MatchState, job: Job) -> None:
        """Start the worker and read its deals until all are done, it fails or time is up."""
        mine, theirs = _CONTEXT.Pipe(duplex=False)
        process = start_worker(_work, (state, theirs))
        theirs.close()
        self._processes.add(process)
        deadline = time.monotonic() + self.budget
        try:
            while len(job.analyses) < job.total:
                try:
                    while mine.poll():
                        index, analysis = mine.recv()
                        job.analyses[index] = analysis
                except EOFError:
                    # The worker ended before every deal was sent: it failed.
                    job.failed = len(job.analyses) < job.total
                    return
                if len(job.analyses) >= job.total:
                    return
                if time.monotonic() >= deadline:
                    job.timed_out = True
                    return
                await asyncio.sleep(POLL_SECONDS)
        finally:
            mine.close()
            if process.is_alive():
                process.kill()
            # Killed or finished: the join is short, and off the loop all the same.
            await asyncio.to_thread(process.join, 5.0)
            self._processes.discard(process)

    async def stop(self) -> None:
        """End the workers and the tasks watching them."""
        for process in list(self._processes):
            with contextlib.suppress(Exception):
                process.kill()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
