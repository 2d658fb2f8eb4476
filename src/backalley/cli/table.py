"""``backalley table``: the online table of seed ``001`` in the browser (the ``web`` extra).

It serves the lobby and the rooms on ``--host`` (127.0.0.1 unless told) and
``--port``, keeps every room in the SQLite database ``--db``, and prints the
address to open. Started again on the same database, it goes on with every
room in play where it stopped. Each limit of
:class:`~backalley.web.limits.Limits` is a flag (``--sockets-per-seat``, ...).
``docs/table.md`` describes the table.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import logging
import socket
import sqlite3
import sys
from typing import Final

from .._extras import MissingExtra
from ..web.limits import Limits
from ._common import EXIT_OK, CommandError, Commands, add_command

__all__ = ["DEFAULT_DB", "add_parser", "run"]

DEFAULT_DB: Final = "backalley-table.sqlite3"
"""The rooms' database when ``--db`` is not given, in the current directory."""

MAX_WEBSOCKET_BYTES: Final = 64 * 1024
"""Frames longer than this close the socket in uvicorn itself; the table refuses far less."""

WEBSOCKET_IMPLEMENTATIONS: Final = ("websockets-sansio", "wsproto", "websockets")
"""uvicorn's WebSocket implementations (wsproto only where it is installed)."""

HELP = "serve the online table: play in the browser, against the computer or with friends"
"""The command's line in ``backalley --help``."""
DESCRIPTION = """\
Serve Back Alley in the browser: a lobby to play the computer or to make a room for three
friends (one link per seat), and the table. Rooms live in the SQLite database --db, each
action committed before it is acknowledged; started again on the same database, the
server goes on with every room. Needs the 'web' extra. See docs/table.md."""


_LIMIT_FLAGS: Final = (
    ("sockets_per_seat", int, "N", "open sockets at one seat"),
    ("sockets_per_address", int, "N", "open sockets from one IP address"),
    ("messages_per_second", float, "N", "messages a socket may send a second, on average"),
    ("rooms_per_minute", int, "N", "rooms one IP address may make a minute"),
    ("send_queue", int, "N", "messages waiting to go out on one socket before it is cut"),
    ("send_deadline", float, "SECONDS", "time one message may take to go out"),
    ("hello_deadline", float, "SECONDS", "time from opening a socket to its hello"),
    ("idle", float, "SECONDS", "time a socket may send nothing before it is closed"),
    ("request_deadline", float, "SECONDS", "time to send a request's head, and the form"),
    ("keep_alive", float, "SECONDS", "time an idle HTTP connection is kept open"),
    ("finished_keep", float, "SECONDS", "time a finished room stays in memory"),
    ("abandoned_after", float, "SECONDS", "time without a change before a room leaves memory"),
    ("chat_characters", int, "N", "the longest chat line, in characters"),
    ("chat_per_minute", int, "N", "chat lines one seat may send in a minute"),
    ("chat_kept", int, "N", "chat lines a page is sent when it opens"),
    ("analysis_workers", int, "N", "worker processes analysing finished matches"),
    ("analysis_queue", int, "N", "analyses waiting for a worker before more are refused"),
    ("analysis_budget", float, "SECONDS", "time one match's analysis may take"),
    ("think_workers", int, "N", "worker processes of the slow computer players"),
    ("think_seconds", float, "SECONDS", "time a slow computer may take a decision"),
)
"""The limits as flags: field of ``Limits``, type, metavar, help (the default is added)."""


def add_parser(commands: Commands) -> None:
    """Register ``backalley table``."""
    parser = add_command(commands, "table", run, HELP, DESCRIPTION)
    parser.add_argument(
        "--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)"
    )
    parser.add_argument(
        "--port", type=int, default=8000, help="the port (default 8000; 0 picks a free one)"
    )
    parser.add_argument(
        "--db",
        default=DEFAULT_DB,
        metavar="PATH",
        help=f"the rooms' database (default {DEFAULT_DB})",
    )
    parser.add_argument(
        "--pace",
        type=float,
        default=None,
        metavar="SECONDS",
        help="seconds between two computer actions, so that people can follow (default 0.7)",
    )
    parser.add_argument(
        "--stun",
        action="append",
        default=[],
        metavar="URL",
        help="a STUN server for the rooms' voice, such as stun:stun.example.org:3478 "
        "(repeatable; default none: voice then connects browsers that reach each other "
        "directly, and nothing else is contacted)",
    )
    parser.add_argument(
        "--no-compression",
        action="store_true",
        help="send frames uncompressed (less CPU a frame, about five times the bytes; "
        "default: permessage-deflate when the browser offers it)",
    )
    parser.add_argument(
        "--websocket",
        choices=WEBSOCKET_IMPLEMENTATIONS,
        default=WEBSOCKET_IMPLEMENTATIONS[0],
        help="uvicorn's WebSocket implementation (default %(default)s)",
    )
    limits = parser.add_argument_group(
        "limits", "what one visitor, socket and room may take (docs/table.md, 'Limits')"
    )
    defaults = Limits()
    for name, kind, metavar, words in _LIMIT_FLAGS:
        limits.add_argument(
            "--" + name.replace("_", "-"),
            dest=name,
            type=kind,
            default=None,
            metavar=metavar,
            help=f"{words} (default {getattr(defaults, name):g})",
        )


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted."""
    try:
        import uvicorn  # noqa: PLC0415 -- the extra, imported when the command runs

        from ..web.app import DEFAULT_PACE, http_protocol, make_app  # noqa: PLC0415
    except MissingExtra as missing:
        raise CommandError(str(missing)) from None
    except ImportError:
        raise CommandError(str(MissingExtra("backalley table", "web"))) from None
    from ..web.rooms import Tables  # noqa: PLC0415 -- with the rest of the table
    from ..web.store import Store, StoreError  # noqa: PLC0415

    pace = DEFAULT_PACE if args.pace is None else args.pace
    if not 0 <= pace <= 60:
        raise CommandError(f"--pace is a number of seconds from 0 to 60, not {args.pace}")
    if not 0 <= args.port <= 65535:
        raise CommandError(f"--port is a port number from 0 to 65535, not {args.port}")
    for url in args.stun:
        if not url.startswith(("stun:", "stuns:")) or len(url) > 200 or " " in url:
            raise CommandError(f"--stun is a STUN address such as stun:host:3478, not {url!r}")
    if args.websocket == "wsproto" and importlib.util.find_spec("wsproto") is None:
        raise CommandError("--websocket wsproto needs the wsproto package: pip install wsproto")
    chosen = {
        name: getattr(args, name)
        for name, *_ in _LIMIT_FLAGS
        if getattr(args, name, None) is not None
    }
    try:
        limits = Limits(**chosen)
    except ValueError as error:
        # attrs' validators name the field: say it as the flag.
        name = next((n for n in chosen if f"'{n}'" in str(error)), "")
        flag = "--" + name.replace("_", "-") if name else "a limit"
        raise CommandError(f"{flag} is out of range: {error}") from None
    try:
        tables = Tables(Store(args.db), resume_within=limits.abandoned_after)
    except (StoreError, sqlite3.Error) as error:
        raise CommandError(f"{args.db}: {error}") from None
    try:
        listening = socket.create_server((args.host, args.port))
    except OSError as error:
        raise CommandError(
            f"cannot listen on {args.host} port {args.port}: {error.strerror or error}"
        ) from None
    host, port = listening.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    rooms = len(tables.rooms)
    print(
        f"Back Alley table at http://{shown}:{port}/ (rooms in {args.db}, {rooms} kept); "
        "Ctrl-C stops it.",
        flush=True,
    )
    # A client-caused condition is one line (backalley.web), with the time.
    logging.basicConfig(format="%(asctime)s %(name)s: %(message)s", level=logging.WARNING)
    config = uvicorn.Config(
        make_app(tables, pace=pace, limits=limits, stun=tuple(args.stun)),
        log_level="warning",
        ws=args.websocket,
        ws_max_size=MAX_WEBSOCKET_BYTES,
        timeout_keep_alive=max(1, round(limits.keep_alive)),
        ws_per_message_deflate=not args.no_compression,
        http=http_protocol(limits.request_deadline),
        lifespan="on",
    )
    # Ctrl-C is how a server is stopped: not a failure. uvicorn has shut down cleanly.
    with contextlib.suppress(KeyboardInterrupt):
        uvicorn.Server(config).run(sockets=[listening])
    print(f"Stopped; every room is kept in {args.db}.", flush=True)
    sys.stdout.flush()
    return EXIT_OK
