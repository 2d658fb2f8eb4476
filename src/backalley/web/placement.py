"""Which process a room lives on: the mark its links carry, and the proxy's routes by it.

A table of several processes (``backalley table --processes N``) keeps each room
on exactly one of them, the one whose lobby made it: that process holds the room
in memory, drives its computers, and stores it in a database of its own. Every
link of a room names its seat by a token (``/seat/TOKEN``, ``/ws/TOKEN``,
``/qr/TOKEN.svg``, ``/record/TOKEN``, ``/analysis/TOKEN`` and its ``/status``), and
every token a process makes starts with the process's **mark**, its index and a
dot: ``1.`` then 32 URL-safe characters. The dot is never one of those
characters, so a token made by a table of one process (no mark) is never taken
for a marked one.

The reverse proxy routes by the mark (:func:`caddyfile`): a path
``/seat/1.…`` goes to process 1, and nowhere else. A mark is fixed when the
token is made, so adding processes later moves no room (a hash of the path
over the processes would send most rooms elsewhere when their number changes),
and a process that is down is waited for, never replaced by one that does not
hold its rooms. Unmarked links, made before the table had several processes,
go to process 0, which keeps the first database. The lobby, the how-to and the
static files may be answered by any process.

>>> mark(1), process_of("1.abc"), process_of("abc"), process_of("x.abc")
('1.', 1, 0, None)
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Final

__all__ = [
    "MAX_PROCESSES",
    "ROOM_ROUTES",
    "caddyfile",
    "database_of",
    "mark",
    "process_of",
]

MAX_PROCESSES: Final = 256
"""The most processes a table may have (a mark of at most three digits)."""

ROOM_ROUTES: Final = ("seat", "ws", "qr", "record", "analysis")
"""The first part of every path that names a room's token: the proxy routes them by mark."""


def mark(index: int) -> str:
    """The start of every token process ``index`` makes: its index and a dot."""
    if not 0 <= index < MAX_PROCESSES:
        raise ValueError(f"a process index is from 0 to {MAX_PROCESSES - 1}, not {index}")
    return f"{index}."


def process_of(token: str) -> int | None:
    """The process a token's room lives on: its mark, 0 when unmarked, None if malformed."""
    index, dot, _ = token.partition(".")
    if not dot:
        return 0
    if not index.isdigit() or len(index) > 3 or str(int(index)) != index:
        return None
    return int(index) if int(index) < MAX_PROCESSES else None


def database_of(path: str, index: int) -> str:
    """Process ``index``'s database: ``path`` itself for process 0, else ``NAME-INDEX.EXT``.

    Process 0 keeps the database a table of one process had, with its unmarked rooms.

    >>> database_of("rooms.sqlite3", 0), database_of("data/rooms.sqlite3", 2)
    ('rooms.sqlite3', 'data/rooms-2.sqlite3')
    """
    if index == 0:
        return path
    file = Path(path)
    return str(file.with_name(f"{file.stem}-{index}{file.suffix}"))


def caddyfile(upstreams: Sequence[str], *, command: str = "") -> str:
    """A Caddyfile putting Caddy in front of the processes at ``upstreams`` (host:port each).

    A room's paths go to its process by their mark (``path_regexp``), unmarked ones to
    process 0; the rest (the lobby, its form, the how-to, the static files) to any
    process that answers, in turn (``lb_policy round_robin``), passing over one that
    refused a connection in the last ten seconds (``fail_duration``) and trying
    another for up to five (``lb_try_duration``). No active health check: its requests
    would come from the proxy's own address and spend that address's request budget;
    on one machine the supervisor keeps every port listening while a process starts
    again, so a request waits for it rather than failing. ``command`` is the command
    that made it, quoted in its first lines.
    """
    if not upstreams:
        raise ValueError("a Caddyfile for the table needs at least one process")
    rooms = "|".join(ROOM_ROUTES)
    paths = " ".join(f"/{route}/*" for route in ROOM_ROUTES)
    lines = [
        "# Caddy in front of a Back Alley table of "
        f"{len(upstreams)} process{'es' if len(upstreams) > 1 else ''}.",
    ]
    if command:
        lines.append(f"# Made by: {command}")
    lines += [
        "#",
        "# Each room lives on one process; every link of a room carries its process's mark",
        "# (/seat/1.TOKEN goes to process 1): see backalley.web.placement and docs/table.md,",
        '# "Several processes". Run it as deploy/Caddyfile is run:',
        "#",
        "#     BACKALLEY_SITE=table.example caddy run --config Caddyfile",
        "",
        "{$BACKALLEY_SITE:table.example} {",
    ]
    for index in range(len(upstreams)):
        lines.append(f"\t@process{index} path_regexp ^/({rooms})/{index}\\.")
    lines += [
        f"\t@unmarked path {paths}",
        "",
        "\t# In this order: the first route that matches answers.",
        "\troute {",
    ]
    for index, upstream in enumerate(upstreams):
        lines.append(f"\t\treverse_proxy @process{index} {upstream}")
    lines += [
        "\t\t# Links made while the table had one process: process 0 kept its database.",
        f"\t\treverse_proxy @unmarked {upstreams[0]}",
        "\t\t# The lobby (a new room lives where it was made), the how-to, static files.",
        f"\t\treverse_proxy {' '.join(upstreams)} {{",
        "\t\t\tlb_policy round_robin",
        "\t\t\tlb_try_duration 5s",
        "\t\t\tfail_duration 10s",
        "\t\t}",
        "\t}",
        "",
        "\t# No access log: a seat's address holds its invitation (/seat/TOKEN).",
        "}",
        "",
    ]
    return "\n".join(lines)
