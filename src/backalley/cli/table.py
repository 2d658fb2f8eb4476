"""``backalley table``: the online table of seed ``001`` in the browser (the ``web`` extra).

It serves the lobby and the rooms on ``--host`` (127.0.0.1 unless told) and
``--port``, keeps every room in the SQLite database ``--db``, and prints the
address to open. Put online, ``--public-url`` names the table's public origin
(every link and origin check is built from it), ``--trusted-proxy`` the reverse
proxies whose forwarded client addresses are believed, ``--certfile`` and
``--keyfile`` serve HTTPS directly, and ``--turn`` with ``--turn-secret-file``
gives the rooms' voice a TURN relay (``docs/table.md``, "Putting the table
online"). Started again on the same database, it goes on with every
room in play where it stopped. Each limit of
:class:`~backalley.web.limits.Limits` is a flag (``--sockets-per-seat``, ...).
``docs/table.md`` describes the table.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import logging
import os
import signal
import socket
import sqlite3
import ssl
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from .._extras import MissingExtra
from ..web.counts import Counts, LocalCounts, SharedCounts
from ..web.limits import Limits
from ..web.origins import PublicUrl
from ..web.placement import MAX_PROCESSES, caddyfile, database_of, mark
from ..web.processes import Supervisor
from ..web.proxies import HEADERS, TrustedProxies
from ..web.turn import DEFAULT_TURN_LIFETIME, MAX_SECRET_BYTES, Turn
from ._common import EXIT_OK, CommandError, Commands, add_command

if TYPE_CHECKING:
    from ..web.rooms import Tables

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
    ("requests_per_second", float, "N", "requests one IP address may make a second, every route"),
    ("connections", int, "N", "open connections before a new one is closed at once"),
    ("messages_per_second", float, "N", "messages a seat may send a second, on average"),
    ("rooms_per_minute", int, "N", "rooms one IP address may make a minute"),
    ("rooms", int, "N", "rooms held in memory at once before a new one is refused"),
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
    ("analysis_per_address", int, "N", "analyses one IP address may have waiting or running"),
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
    online = parser.add_argument_group(
        "online",
        "serving the table to friends elsewhere (docs/table.md, 'Putting the table online')",
    )
    online.add_argument(
        "--public-url",
        metavar="URL",
        help="the address friends open, such as https://table.example: every link the host "
        "is given and the origin the pages' sockets must come from (default: the address "
        "each request was made to)",
    )
    online.add_argument(
        "--trusted-proxy",
        action="append",
        default=[],
        metavar="ADDRESS",
        help="a reverse proxy (an address, or a network such as 10.0.0.0/8) whose "
        "X-Forwarded-For and Forwarded headers name the client (repeatable; default none: "
        "those headers are ignored, and each visitor is the address it connects from)",
    )
    online.add_argument(
        "--proxy-header",
        choices=HEADERS,
        default=HEADERS[0],
        help="the header the trusted proxies name the client in (default %(default)s, as "
        "Caddy and nginx write it; the other header is ignored, since a proxy passes on "
        "what a visitor wrote there)",
    )
    online.add_argument(
        "--certfile",
        metavar="PATH",
        help="serve HTTPS directly with this certificate chain (PEM), with --keyfile",
    )
    online.add_argument("--keyfile", metavar="PATH", help="the certificate's private key (PEM)")
    online.add_argument(
        "--turn",
        action="append",
        default=[],
        metavar="URL",
        help="a TURN server relaying the rooms' voice, such as turn:turn.example:3478 "
        "(repeatable); each seat is given its own time-limited credentials, made with the "
        "secret it shares with the table (coturn's use-auth-secret)",
    )
    online.add_argument(
        "--turn-secret-file",
        metavar="PATH",
        help="the file holding the TURN server's static-auth-secret (one line)",
    )
    online.add_argument(
        "--turn-secret",
        metavar="SECRET",
        help="the TURN shared secret itself (other users of the machine may see it in the "
        "process list: prefer --turn-secret-file)",
    )
    online.add_argument(
        "--turn-lifetime",
        type=float,
        default=DEFAULT_TURN_LIFETIME,
        metavar="SECONDS",
        help="how long a seat's TURN credentials stay valid (default %(default)g)",
    )
    parser.add_argument(
        "--no-compression",
        action="store_true",
        help="send frames uncompressed (less CPU a frame, about four times the bytes; "
        "default: permessage-deflate when the browser offers it)",
    )
    parser.add_argument(
        "--compression-level",
        type=int,
        default=None,
        metavar="LEVEL",
        help="zlib's level for permessage-deflate, 1 (fastest) to 9 (smallest), with "
        "--websocket websockets-sansio (default 4, chosen by measurement: docs/table.md)",
    )
    parser.add_argument(
        "--websocket",
        choices=WEBSOCKET_IMPLEMENTATIONS,
        default=WEBSOCKET_IMPLEMENTATIONS[0],
        help="uvicorn's WebSocket implementation (default %(default)s)",
    )
    several = parser.add_argument_group(
        "processes",
        "a table on several processes behind a reverse proxy (docs/table.md, 'Several processes')",
    )
    several.add_argument(
        "--processes",
        default="1",
        metavar="N",
        help="serve with N processes, on --port, --port + 1, ..., each room on one of them; "
        "'auto' is one a core. Their links need the reverse proxy that --print-caddyfile "
        "writes (default 1: one process, no proxy needed)",
    )
    several.add_argument(
        "--print-caddyfile",
        action="store_true",
        help="print a Caddyfile routing each room to its process among --processes on "
        "--host and --port, and exit",
    )
    # Given by the supervising process to each process it starts: not for people.
    several.add_argument("--process-index", type=int, default=None, help=argparse.SUPPRESS)
    several.add_argument("--listen-fd", type=int, default=None, help=argparse.SUPPRESS)
    several.add_argument("--counts-socket", default=None, help=argparse.SUPPRESS)
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
    # The latest parser's (a parser may be built more than once in a process: the tests).
    _PASSED_ON[:] = [action for action in parser._actions if action.dest not in _NOT_PASSED_ON]


_NOT_PASSED_ON: Final = frozenset(
    {"help", "host", "port", "db", "processes", "print_caddyfile"}
    | {"process_index", "listen_fd", "counts_socket"}
)
"""The options the supervisor of several processes keeps: each process is given its own."""

_PASSED_ON: list[argparse.Action] = []
"""The options of ``backalley table`` each of several processes is given as they were."""


def _passed_on(args: argparse.Namespace) -> list[str]:
    """The command-line options of ``args`` that each process of the table is given."""
    words: list[str] = []
    for action in _PASSED_ON:
        value = getattr(args, action.dest)
        flag = action.option_strings[-1]
        if value is None or (value == action.default and not isinstance(value, list)):
            continue
        if isinstance(action, argparse._StoreTrueAction):
            words.append(flag)
        elif isinstance(value, list):
            for item in value:
                words += [flag, str(item)]
        else:
            words += [flag, str(value)]
    return words


FILES_SPARE: Final = 64
"""Open files kept for the server's own use (the database, its journal, the workers' pipes)."""

BACKLOG: Final = 100
"""Connections the system queues before the server accepts them, and the most asyncio
accepts at once: until a connection over the cap is closed, a few such bursts may
be open beyond it (:func:`_fit_connections` leaves room for four)."""


def _fit_connections(wanted: int) -> int:
    """Raise the open-files soft limit to the hard one; the connection cap that fits under it.

    Each connection is an open file: the cap stays ``FILES_SPARE`` and four accept
    bursts (:data:`BACKLOG`) below the limit, so that accepting never fails for want
    of one (asyncio would log each failure).
    """
    try:
        import resource  # noqa: PLC0415 -- POSIX only

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if hard == resource.RLIM_INFINITY or hard > soft:
            target = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
            with contextlib.suppress(ValueError, OSError):
                resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
                soft = target
    except ImportError:  # not POSIX: the system's own limit stands
        return wanted
    return max(1, min(wanted, soft - FILES_SPARE - 4 * BACKLOG))


def _origin(args: argparse.Namespace) -> tuple[PublicUrl | None, TrustedProxies]:
    """The public origin and the trusted proxies, from the flags."""
    try:
        public = None if args.public_url is None else PublicUrl.parse(args.public_url)
    except ValueError as error:
        raise CommandError(f"--public-url: {error}") from None
    try:
        return public, TrustedProxies.parse(args.trusted_proxy, args.proxy_header)
    except ValueError as error:
        raise CommandError(f"--trusted-proxy: {error}") from None


def _turn(args: argparse.Namespace) -> Turn | None:
    """The voice's relays: the STUN addresses checked; the TURN servers and secret, or None."""
    for url in args.stun:
        if not url.startswith(("stun:", "stuns:")) or len(url) > 200 or " " in url:
            raise CommandError(f"--stun is a STUN address such as stun:host:3478, not {url!r}")
    if args.turn_secret is not None and args.turn_secret_file is not None:
        raise CommandError("give the TURN secret once: --turn-secret or --turn-secret-file")
    if not args.turn:
        if args.turn_secret is not None or args.turn_secret_file is not None:
            raise CommandError("a TURN secret needs --turn URL, the TURN server it is for")
        return None
    if args.turn_secret_file is not None:
        try:
            with Path(args.turn_secret_file).open("rb") as file:
                raw = file.read(MAX_SECRET_BYTES + 1)
        except OSError as error:
            raise CommandError(
                f"--turn-secret-file {args.turn_secret_file}: {error.strerror or error}"
            ) from None
        if len(raw) > MAX_SECRET_BYTES:
            raise CommandError(
                f"--turn-secret-file {args.turn_secret_file}: longer than "
                f"{MAX_SECRET_BYTES} bytes: is it the secret?"
            )
        secret = raw.strip()
    elif args.turn_secret is not None:
        secret = args.turn_secret.encode("utf-8")
    else:
        raise CommandError(
            "--turn needs the secret it shares with the TURN server: --turn-secret-file PATH"
        )
    try:
        return Turn(urls=tuple(args.turn), secret=secret, lifetime=args.turn_lifetime)
    except ValueError as error:
        raise CommandError(f"--turn: {error}") from None


def _tls(args: argparse.Namespace) -> dict[str, Any]:
    """The TLS settings of uvicorn from ``--certfile`` and ``--keyfile``, checked now."""
    if args.certfile is None and args.keyfile is None:
        return {}
    if args.certfile is None or args.keyfile is None:
        raise CommandError("HTTPS needs both --certfile and --keyfile")
    # Loaded once here so that a wrong file is one sentence, not uvicorn's traceback.
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    try:
        context.load_cert_chain(args.certfile, args.keyfile)
    # An SSLError is an OSError: the files' contents first, then the files themselves.
    except ssl.SSLError as error:
        raise CommandError(
            f"--certfile {args.certfile} / --keyfile {args.keyfile}: not a certificate and "
            f"its key in PEM ({error.reason or error})"
        ) from None
    except OSError as error:
        raise CommandError(
            f"--certfile {args.certfile} / --keyfile {args.keyfile}: {error.strerror or error}"
        ) from None
    return {"ssl_certfile": args.certfile, "ssl_keyfile": args.keyfile}


def _announce(public: PublicUrl | None, local: str, rooms: str) -> None:
    """Print the address to open (the public one, when given) and what it will lack."""
    where = local if public is None else f"{public.origin}/ (listening on {local})"
    print(f"Back Alley table at {where} ({rooms}); Ctrl-C stops it.", flush=True)
    if public is not None and not public.secure:
        # Browsers give the microphone only to secure pages: say it before anyone tries.
        print(
            f"Note: {public.origin} is plain HTTP: friends' browsers will offer no microphone "
            "for voice there (docs/table.md, 'Putting the table online').",
            flush=True,
        )


def _limits(args: argparse.Namespace) -> Limits:
    """The limits of the flags given, the defaults for the others, checked now."""
    chosen = {
        name: getattr(args, name)
        for name, *_ in _LIMIT_FLAGS
        if getattr(args, name, None) is not None
    }
    try:
        return Limits(**chosen)
    except ValueError as error:
        # attrs' validators name the field: say it as the flag.
        name = next((n for n in chosen if f"'{n}'" in str(error)), "")
        flag = "--" + name.replace("_", "-") if name else "a limit"
        raise CommandError(f"{flag} is out of range: {error}") from None


def _websocket(args: argparse.Namespace) -> Any:
    """Uvicorn's ``ws`` setting: websockets-sansio deflating at the level chosen, or as named."""
    from ..web.app import DEFLATE_LEVEL, deflate_protocol  # noqa: PLC0415 -- the extra

    level = DEFLATE_LEVEL if args.compression_level is None else args.compression_level
    if not 1 <= level <= 9:
        raise CommandError(f"--compression-level is from 1 to 9, not {level}")
    sansio = args.websocket == WEBSOCKET_IMPLEMENTATIONS[0]
    if args.compression_level is not None and (args.no_compression or not sansio):
        raise CommandError(
            "--compression-level sets the level of --websocket websockets-sansio's "
            "compression: not with --no-compression nor another --websocket"
        )
    return deflate_protocol(level) if sansio and not args.no_compression else args.websocket


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted."""
    try:
        import uvicorn  # noqa: PLC0415 -- the extra, imported when the command runs

        from ..web.app import DEFAULT_PACE, http_protocol, make_app  # noqa: PLC0415
        from ..web.logs import install as install_one_line  # noqa: PLC0415
    except MissingExtra as missing:
        raise CommandError(str(missing)) from None
    except ImportError:
        raise CommandError(str(MissingExtra("backalley table", "web"))) from None
    pace = DEFAULT_PACE if args.pace is None else args.pace
    if not 0 <= pace <= 60:
        raise CommandError(f"--pace is a number of seconds from 0 to 60, not {args.pace}")
    if not 0 <= args.port <= 65535:
        raise CommandError(f"--port is a port number from 0 to 65535, not {args.port}")
    public, proxies = _origin(args)
    turn = _turn(args)
    tls = _tls(args)
    if args.websocket == "wsproto" and importlib.util.find_spec("wsproto") is None:
        raise CommandError("--websocket wsproto needs the wsproto package: pip install wsproto")
    websocket = _websocket(args)
    limits = _limits(args)
    processes = _processes(args)
    if args.print_caddyfile:
        print(_caddyfile(args, processes), end="", flush=True)
        return EXIT_OK
    if processes > 1 and args.process_index is None:
        return _supervise(args, processes, limits)
    connections = _fit_connections(limits.connections)
    index = args.process_index
    tables = _tables(args, limits)
    if args.listen_fd is not None:
        # A process of several: its supervisor listens, and hands the socket down.
        listening = socket.socket(fileno=args.listen_fd)
    else:
        listening = _listen(args.host, args.port)
    host, port = listening.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    scheme = "https" if tls else "http"
    local = f"{scheme}://{shown}:{port}/"
    if index is None:
        _announce(public, local, f"rooms in {args.db}, {len(tables.rooms)} kept")
    if connections < limits.connections:
        print(
            f"--connections lowered to {connections} to fit the open-files limit "
            "(raise it with ulimit -n)",
            flush=True,
        )
    # A client-caused condition is one line (backalley.web), with the time.
    logging.basicConfig(format="%(asctime)s %(name)s: %(message)s", level=logging.WARNING)
    # What a client can make the server log (its own lines, uvicorn's, asyncio's): one
    # line each, never a traceback, and the same line at most a few times in a while.
    install_one_line()
    config = uvicorn.Config(
        make_app(
            tables,
            pace=pace,
            limits=limits,
            stun=tuple(args.stun),
            public=public,
            proxies=proxies,
            turn=turn,
            counts=None if args.counts_socket is None else _shared_counts(args.counts_socket),
        ),
        log_level="warning",
        # The forwarded headers are read by the table itself, from --trusted-proxy only
        # (uvicorn's own reading believes any header sent from 127.0.0.1).
        proxy_headers=False,
        **tls,
        ws=websocket,
        ws_max_size=MAX_WEBSOCKET_BYTES,
        timeout_keep_alive=max(1, round(limits.keep_alive)),
        ws_per_message_deflate=not args.no_compression,
        http=http_protocol(limits.request_deadline, connections),
        backlog=BACKLOG,
        lifespan="on",
    )
    # Ctrl-C is how a server is stopped: not a failure. uvicorn has shut down cleanly.
    with contextlib.suppress(KeyboardInterrupt):
        uvicorn.Server(config).run(sockets=[listening])
    if index is None:
        print(f"Stopped; every room is kept in {args.db}.", flush=True)
    sys.stdout.flush()
    return EXIT_OK


def _tables(args: argparse.Namespace, limits: Limits) -> Tables:
    """The rooms of ``--db``, those in play resumed; this process's mark on new links."""
    from ..web.rooms import Tables  # noqa: PLC0415 -- with the rest of the table
    from ..web.store import Store, StoreError  # noqa: PLC0415

    index = args.process_index
    try:
        return Tables(
            Store(args.db),
            resume_within=limits.abandoned_after,
            mark="" if index is None else mark(index),
        )
    except (StoreError, sqlite3.Error) as error:
        raise CommandError(f"{args.db}: {error}") from None


def _listen(host: str, port: int) -> socket.socket:
    """A socket listening on ``host`` and ``port``, or a sentence saying why not."""
    try:
        return socket.create_server((host, port), backlog=BACKLOG)
    except OSError as error:
        raise CommandError(
            f"cannot listen on {host} port {port}: {error.strerror or error}"
        ) from None


def _processes(args: argparse.Namespace) -> int:
    """The number of processes ``--processes`` asks for (``auto``: one a core)."""
    text = str(args.processes).strip().lower()
    if text == "auto":
        return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1)
    if not text.isdigit() or not 1 <= int(text) <= MAX_PROCESSES:
        raise CommandError(
            f"--processes is a number from 1 to {MAX_PROCESSES}, or auto, not {args.processes!r}"
        )
    return int(text)


def _upstreams(args: argparse.Namespace, processes: int) -> list[str]:
    shown = f"[{args.host}]" if ":" in args.host else args.host
    return [f"{shown}:{args.port + index}" for index in range(processes)]


def _caddyfile(args: argparse.Namespace, processes: int) -> str:
    """The Caddyfile of ``--print-caddyfile``: each room routed to its process."""
    if args.port == 0 or args.port + processes - 1 > 65535:
        raise CommandError(
            f"--print-caddyfile needs the ports the {processes} processes listen on: "
            "--port PORT (they use PORT, PORT + 1, ...)"
        )
    command = f"backalley table --processes {processes} --host {args.host} --port {args.port}"
    return caddyfile(_upstreams(args, processes), command=command + " --print-caddyfile")


def _shared_counts(path: str) -> Counts:
    """The per-address counts kept by the supervisor; losing them stops this process."""
    return SharedCounts(path, on_lost=lambda: os.kill(os.getpid(), signal.SIGINT))


def _supervise(args: argparse.Namespace, processes: int, limits: Limits) -> int:
    """Serve with ``processes`` processes on consecutive ports, until interrupted."""
    from ..web.store import Store, StoreError  # noqa: PLC0415 -- with the rest of the table

    databases = [database_of(args.db, index) for index in range(processes)]
    kept = 0
    for database in databases:
        # Each database opened once here: a wrong one is one sentence, not N restarts.
        try:
            store = Store(database)
        except (StoreError, sqlite3.Error) as error:
            raise CommandError(f"{database}: {error}") from None
        kept += sum(1 for _ in store.rooms(active_since=time.time() - limits.abandoned_after))
        store.close()
    if args.port != 0 and args.port + processes - 1 > 65535:
        raise CommandError(f"--port {args.port} leaves no room for {processes} ports")
    listening: list[socket.socket] = []
    try:
        for index in range(processes):
            listening.append(_listen(args.host, 0 if args.port == 0 else args.port + index))
    except CommandError:
        for each in listening:
            each.close()
        raise
    passed = _passed_on(args)

    def command(index: int, fd: int, counts: str) -> list[str]:
        return [
            sys.executable,
            "-m",
            "backalley",
            "table",
            *passed,
            "--db",
            databases[index],
            "--process-index",
            str(index),
            "--listen-fd",
            str(fd),
            "--counts-socket",
            counts,
        ]

    scheme = "https" if args.certfile else "http"
    addresses = []
    for each in listening:
        host, port = each.getsockname()[:2]
        addresses.append(f"{scheme}://{f'[{host}]' if ':' in host else host}:{port}/")
    print(
        f"Back Alley table of {processes} processes at {' '.join(addresses)} (rooms in "
        f"{', '.join(databases)}, {kept} kept); put the reverse proxy of "
        f"'backalley table --processes {processes} --port PORT --print-caddyfile' in "
        "front of them. Ctrl-C stops it.",
        flush=True,
    )
    logging.basicConfig(format="%(asctime)s %(name)s: %(message)s", level=logging.WARNING)
    # Ctrl-C is how the table is stopped: the supervisor has stopped every process.
    with contextlib.suppress(KeyboardInterrupt):
        Supervisor(listening, LocalCounts.of(limits), command).run()
    print(f"Stopped; every room is kept in {', '.join(databases)}.", flush=True)
    return EXIT_OK
