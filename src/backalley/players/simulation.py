"""Many matches between computer players, and what they add up to.

:func:`simulate` plays ``matches`` matches of one pair of computer players
against another and returns a :class:`Summary`: wins and draws per pair with a
Wilson confidence interval, average scores, Boards bid and made, throw-ins, and
average targets against tricks taken. Each match's seed is derived from the run
seed and the match's index, and results are gathered in index order, so a run
in parallel processes gives exactly the result of a run in one.

>>> from backalley import Rules
>>> summary = simulate("heuristic", "random", Rules(schedule=[3, 1]), seed=5, matches=4)
>>> summary.matches, sum(pair.wins for pair in summary.pairs) + summary.draws
(4, 4)
"""

from __future__ import annotations

import collections
import contextlib
import functools
import hashlib
import math
import os
import signal
import tempfile
from collections.abc import Callable, Generator, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Final

import attrs

from .._extras import MissingExtra
from ..core import position
from ..core.cards import PAIRS, Pair
from ..core.rules import Rules
from ..engine.state import MatchState
from ..formats.records import dumps, record_from_state
from . import PLAYER_KINDS, play_match

__all__ = [
    "MAX_MATCHES",
    "MatchStats",
    "PairStats",
    "PairSummary",
    "Played",
    "RecordsNotWritten",
    "RunSettings",
    "Runner",
    "Summary",
    "check_folder",
    "check_run",
    "match_seed",
    "match_stats",
    "play_numbered",
    "play_one",
    "record_path",
    "record_text",
    "replace_file",
    "simulate",
    "store_record",
    "summarize",
    "wilson_interval",
    "worker_signals",
    "write_record",
]

SIMULATION_SEED_DOMAIN: Final = b"backalley-simulate-v1"
"""Prefix of the hash deriving each match's seed from the run seed."""

CONFIDENCE_Z: Final = 1.959964
"""The normal quantile of a two-sided 95% interval."""

MAX_MATCHES: Final = 2**32
"""A run's matches are numbered in 4 bytes when their seeds are derived (:func:`match_seed`)."""

_WINDOW_PER_JOB: Final = 4
"""Matches submitted ahead per process: enough to keep each busy, few enough to hold."""


def match_seed(run_seed: int, index: int) -> int:
    """The seed of match ``index`` (from 0) of a run seeded ``run_seed`` (64 bits each).

    SHA-256 of ``b"backalley-simulate-v1"``, the run seed (8 bytes, big-endian)
    and the index (4 bytes, big-endian); the digest's first 8 bytes, big-endian.
    """
    if not isinstance(run_seed, int) or not 0 <= run_seed < 2**64:
        raise ValueError(f"a seed is a whole number from 0 to 2**64 - 1, not {run_seed!r}")
    payload = SIMULATION_SEED_DOMAIN + run_seed.to_bytes(8, "big") + index.to_bytes(4, "big")
    return int.from_bytes(hashlib.sha256(payload).digest()[:8], "big")


def wilson_interval(successes: int, trials: int, z: float = CONFIDENCE_Z) -> tuple[float, float]:
    """The Wilson score interval for a proportion: (low, high); (0, 1) without trials."""
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
    return (max(0.0, centre - half), min(1.0, centre + half))


@attrs.frozen
class PairStats:
    """One pair's figures in one match, over the counted deals."""

    score: int
    boards_bid: int = 0
    boards_made: int = 0
    numeric_deals: int = 0
    targets: int = 0
    """Sum of the pair's numeric targets."""
    tricks: int = 0
    """Sum of the tricks the pair took on those same deals."""


@attrs.frozen
class MatchStats:
    """What one finished match contributes to a summary."""

    winner: Pair | None
    pairs: tuple[PairStats, PairStats]
    throw_ins: int
    deals: int


def match_stats(state: MatchState) -> MatchStats:
    """The figures of a finished match."""
    outcome = state.outcome
    if outcome is None:
        raise ValueError("the match is not over yet")
    # Per pair: boards bid, boards made, numeric deals, targets, tricks; one pass over the
    # deals for both pairs, each deal's contracts worked out once.
    sums = ([0] * 5, [0] * 5)
    throw_ins = 0
    for result in state.history:
        throw_ins += result.thrown_in
        if not result.counts:
            continue
        # Read off the deal's final position: making each finished deal's tricks
        # would cost more than the rest of the figures together.
        pos = result.position
        size = pos[position.SIZE]
        for tally, (target, multiplier), taken in zip(
            sums, position.contracts_of(pos), position.tricks_won(pos), strict=True
        ):
            if multiplier:
                tally[0] += 1
                tally[1] += taken == size
            else:
                tally[2] += 1
                tally[3] += target
                tally[4] += taken
    totals = state.totals
    first, second = (PairStats(totals[pair], *sums[pair]) for pair in PAIRS)
    return MatchStats(
        winner=outcome.winner,
        pairs=(first, second),
        throw_ins=throw_ins,
        deals=state.counted_deals,
    )


@attrs.frozen
class PairSummary:
    """One pair's results over a run."""

    pair: Pair
    player: str
    wins: int
    win_interval: tuple[float, float]
    average_score: float
    boards_bid: int
    boards_made: int
    average_target: float
    """Average numeric target per deal bid with numbers."""
    average_tricks: float
    """Average tricks taken on those deals."""


@attrs.frozen
class Summary:
    """The results of a run of matches.

    With ``duplicate`` every set of deals was played twice, the pairs exchanged:
    ``pairs[0]`` is then the first kind of player, whichever seats it held.
    """

    matches: int
    draws: int
    throw_ins: int
    pairs: tuple[PairSummary, PairSummary]
    duplicate: bool = False

    @property
    def draw_interval(self) -> tuple[float, float]:
        """The 95% Wilson interval of the draw rate."""
        return wilson_interval(self.draws, self.matches)


def summarize(
    results: Iterable[MatchStats], players: tuple[str, str], *, duplicate: bool = False
) -> Summary:
    """Add up match figures, in the order given, in one pass: nothing is kept per match.

    ``duplicate``: see :class:`Summary`.
    The memory a run needs so does not grow with its number of matches.
    """
    n = draws = throw_ins = 0
    # Per pair: wins, score, boards bid, boards made, numeric deals, targets, tricks.
    sums = [[0] * 7, [0] * 7]
    for result in results:
        n += 1
        draws += result.winner is None
        throw_ins += result.throw_ins
        for pair in PAIRS:
            stats = result.pairs[pair]
            tally = sums[pair]
            tally[0] += result.winner == pair
            tally[1] += stats.score
            tally[2] += stats.boards_bid
            tally[3] += stats.boards_made
            tally[4] += stats.numeric_deals
            tally[5] += stats.targets
            tally[6] += stats.tricks
    pairs = []
    for pair in PAIRS:
        wins, score, boards_bid, boards_made, numeric, targets, tricks = sums[pair]
        pairs.append(
            PairSummary(
                pair=pair,
                player=players[pair],
                wins=wins,
                win_interval=wilson_interval(wins, n),
                average_score=score / n if n else 0.0,
                boards_bid=boards_bid,
                boards_made=boards_made,
                average_target=targets / numeric if numeric else 0.0,
                average_tricks=tricks / numeric if numeric else 0.0,
            )
        )
    return Summary(
        matches=n,
        draws=draws,
        throw_ins=throw_ins,
        pairs=(pairs[0], pairs[1]),
        duplicate=duplicate,
    )


class RecordsNotWritten(Exception):
    """A record file of ``simulate`` could not be written; the run stopped there.

    ``path`` is the file, ``reason`` why, ``written`` how many records were written
    before it (every one of them whole).
    """

    def __init__(self, path: Path, reason: str, written: int) -> None:
        records = "1 record was" if written == 1 else f"{written} records were"
        super().__init__(
            f"cannot write {path}: {reason}; the run stopped there and {records} written"
        )
        self.path = path
        self.reason = reason
        self.written = written


def check_folder(folder: str) -> None:
    """Refuse a records folder that is missing or cannot be written, before any match is played.

    Writing a file is the only test that holds for every user (root included) and every
    file system (read-only mounts included); the probe file is removed at once.
    """
    path = Path(folder)
    if not path.is_dir():
        raise ValueError(f"no folder {folder!r} to write the records in")
    try:
        with tempfile.NamedTemporaryFile(dir=path, prefix=".backalley-probe-"):
            pass
    except OSError as error:
        raise ValueError(
            f"cannot write in the folder {folder!r}: {error.strerror or error}"
        ) from None


def check_run(ns: str, ew: str, matches: int, records: str | None) -> None:
    """Refuse a run's settings before any match is played: ValueError says which and why."""
    for name in (ns, ew):
        if name not in PLAYER_KINDS:
            raise ValueError(f"unknown player {name!r}: choose from {', '.join(PLAYER_KINDS)}")
        try:  # a player whose extra is missing (the learned one needs NumPy) says so now
            PLAYER_KINDS[name]()
        except MissingExtra as missing:
            raise ValueError(str(missing)) from None
    if not 1 <= matches <= MAX_MATCHES:
        raise ValueError(f"play from 1 to {MAX_MATCHES} matches (2**32), not {matches}")
    if records is not None:
        check_folder(records)


RunSettings = tuple[str, str, Rules, int, bool]
"""A run: the players' kinds (North-South's, East-West's), the rules, the run's seed, and
whether each match gives back its record."""

_Job = tuple[str, str, Rules, int, int, bool, int | None]
"""A match: the players' kinds, the rules, the run's seed, the index, whether to give back
its record, and in a duplicate run which seating of its set it is (0 as given, 1
exchanged; else None)."""

Played = tuple[int, MatchStats, str | None]
"""A match played: its number among the run's records, its figures, its record's text."""

Runner = Callable[[RunSettings, int, bool], Generator[Played, None, None]]
"""Where a run's matches are played: ``runner(settings, matches, duplicate)`` gives each
match played, in order of number; a runner that goes on past a failed match leaves it
out and says so itself (:func:`backalley.cluster.simulate`)."""


def record_path(folder: str, index: int) -> Path:
    """Where ``simulate`` writes the record of match ``index``: ``match-00001.json`` and on."""
    return Path(folder) / f"match-{index + 1:05d}.json"


def play_numbered(ns: str, ew: str, rules: Rules, seed: int, index: int) -> MatchState:
    """Match ``index`` (from 0) of a run seeded ``seed``: ``ns`` players against ``ew``.

    The same match wherever and whenever it is played, so any split of a run
    between processes or machines plays the same matches.
    """
    players = [PLAYER_KINDS[ns](), PLAYER_KINDS[ew](), PLAYER_KINDS[ns](), PLAYER_KINDS[ew]()]
    return play_match(players, rules, seed=match_seed(seed, index))


def record_text(state: MatchState, ns: str, ew: str, index: int) -> str:
    """The game record ``simulate`` writes for match ``index``, tagged with the players."""
    tags = {"north-south": ns, "east-west": ew, "match": str(index + 1)}
    return dumps(record_from_state(state, tags=tags))


def write_record(folder: str, index: int, text: str) -> None:
    """Write the record text of match ``index`` to :func:`record_path`, whole or not at all.

    A temporary file in the same folder, then a rename: a reader never sees half a
    record, and a failure (an OSError) leaves no file behind.
    """
    replace_file(record_path(folder, index), text)


def replace_file(path: Path, text: str) -> None:
    """Write ``text`` and a newline to ``path``, whole or not at all (an OSError says why).

    A temporary file in the same folder, then a rename: a reader never sees half a
    file, and a failure leaves no file behind.
    """
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text + "\n")
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def store_record(folder: str, index: int, text: str, written: int) -> None:
    """:func:`write_record`, its failure raised as :class:`RecordsNotWritten` after ``written``."""
    try:
        write_record(folder, index, text)
    except OSError as error:
        raise RecordsNotWritten(
            record_path(folder, index), error.strerror or str(error), written
        ) from None


def play_one(job: _Job) -> Played:
    """Play one match wherever it runs: players are named, so only plain data crosses.

    The record's text comes back with the figures: the caller writes the files, in
    order, so a failure leaves exactly the records before it.
    """
    first, second, rules, seed, index, records, seating = job
    ns, ew = (second, first) if seating else (first, second)
    # Both seatings of a duplicate set play match ``index`` of the run: the same seed.
    state = play_numbered(ns, ew, rules, seed, index)
    number = index if seating is None else 2 * index + seating
    text = record_text(state, ns, ew, number) if records else None
    stats = match_stats(state)
    return number, (_exchanged(stats) if seating else stats), text


def _exchanged(stats: MatchStats) -> MatchStats:
    """A match's figures seen from the other side: pair 0 is the first kind of player."""
    winner = None if stats.winner is None else stats.winner.other
    return MatchStats(winner, (stats.pairs[1], stats.pairs[0]), stats.throw_ins, stats.deals)


def simulate(  # noqa: PLR0913 - the run's settings, keyword-only after the players
    ns: str,
    ew: str,
    rules: Rules,
    *,
    seed: int,
    matches: int,
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
    records: str | None = None,
    duplicate: bool = False,
    runner: Runner | None = None,
) -> Summary:
    """Play ``matches`` matches, ``ns`` players for North-South against ``ew`` for East-West.

    ``ns`` and ``ew`` name computer players (``heuristic``, ``random``). ``jobs``
    processes play them; the summary does not depend on it. ``progress`` is told
    how many matches are done, as they finish in order. With ``records`` (a
    folder, which must exist and be writable: checked before the first match)
    each match is also written there as a game record, whole or not at all (a
    temporary file renamed), in order; a file that cannot be written stops the
    run with :class:`RecordsNotWritten`, the records before it written and none
    after. Matches are made as they are played, so memory does not grow with
    ``matches``. ``runner`` plays them elsewhere than in ``jobs`` local processes:
    :func:`backalley.cluster.simulate` plays the same run on a Dask cluster through
    it. With ``duplicate`` each match's deals are played twice, the second
    time with the pairs exchanged (``2 * matches`` matches; the summary's pairs
    are then the two kinds of player, whichever seats they held). The deals are
    the same as long as the two matches throw in the same deals: a thrown-in deal
    is redealt from the next deal of the seed.
    """
    check_run(ns, ew, matches, records)
    if jobs < 1:
        raise ValueError(f"use at least one process, not {jobs}")
    if runner is not None and jobs != 1:
        raise ValueError("play the matches in local processes (jobs) or through a runner, not both")
    run = functools.partial(_run_here, jobs=jobs) if runner is None else runner
    played = run((ns, ew, rules, seed, records is not None), matches, duplicate)
    try:
        return summarize(_results(played, records, progress), (ns, ew), duplicate=duplicate)
    finally:
        # Stop the workers now, on a failure too, not whenever the generator is collected.
        played.close()


def _results(
    played: Iterator[Played], records: str | None, progress: Callable[[int], None] | None
) -> Iterator[MatchStats]:
    """Each match's figures in order, its record written first; progress told of each.

    A match's number is its record's: in a duplicate run the two seatings of a set
    come one after the other.
    """
    for written, (number, stats, text) in enumerate(played):
        if records is not None and text is not None:
            store_record(records, number, text, written)
        if progress is not None:
            progress(written + 1)
        yield stats


def _run_here(
    settings: RunSettings, matches: int, duplicate: bool, *, jobs: int
) -> Generator[Played, None, None]:
    """The matches of a run played in this process (``jobs`` 1) or in ``jobs`` processes."""
    # Made as they are needed, so a run of any length holds only the matches in flight.
    seatings: tuple[int | None, ...] = (0, 1) if duplicate else (None,)
    ns, ew, rules, seed, records = settings
    work = (
        (ns, ew, rules, seed, index, records, seating)
        for index in range(matches)
        for seating in seatings
    )
    if jobs == 1:
        yield from map(play_one, work)
        return
    # Executor.map would submit every match at once; a window of a few matches a process
    # keeps memory flat however many are asked for, and results still come in order.
    window = jobs * _WINDOW_PER_JOB
    pool = ProcessPoolExecutor(max_workers=jobs, initializer=worker_signals)
    pending: collections.deque[Future[Played]] = collections.deque()
    try:
        for job in work:
            pending.append(pool.submit(play_one, job))
            if len(pending) >= window:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        # On Ctrl-C or a failure, drop the queued matches rather than wait for them.
        for future in pending:
            future.cancel()
        pool.shutdown(wait=True, cancel_futures=True)


def worker_signals() -> None:
    """In a worker process: leave Ctrl-C to the parent, and die of SIGTERM and SIGHUP.

    The parent stops the run and reports it once; a signal sent to the whole process
    group (a closed terminal, a job scheduler) ends the workers at once. A forked worker
    would otherwise inherit the parent's handlers (``backalley.cli`` makes SIGTERM and
    SIGHUP stop a command as Ctrl-C does) and outlive a parent killed outright.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)
