"""The table on several processes: each room on one, Caddy routing by the mark in its links.

- Without a server: the marks (``backalley.web.placement``), the tokens a marked
  :class:`~backalley.web.rooms.Tables` makes, the options each process is given,
  the Caddyfile ``--print-caddyfile`` writes (read by Debian's ``caddy`` itself:
  ``adapt``, ``validate``, ``fmt``), and the counts every process shares
  (:mod:`backalley.web.counts`), over a real Unix socket.
- With servers (``-m server``): ``backalley table --processes 2`` behind ``caddy run``
  on loopback. Rooms made through Caddy land on both processes; every address of a
  room (its seats, sockets, QR codes, record, analysis) reaches the process that holds
  it and no other; a process killed is started again by its supervisor with its rooms;
  and a client's sockets, rooms and requests are counted once across the processes.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest
from deploy_helpers import CADDY, caddy_env

from backalley import Bid, Rules, Seat
from backalley.cli import build_parser
from backalley.cli.table import _passed_on
from backalley.web import counts as counts_module
from backalley.web.counts import CountServer, LocalCounts, SharedCounts
from backalley.web.placement import caddyfile, database_of, mark, process_of
from backalley.web.rooms import Tables
from backalley.web.store import Store

needs_caddy = pytest.mark.skipif(
    CADDY is None, reason="needs Debian's caddy: apt-get install caddy"
)


# --- marks and tokens ---------------------------------------------------------------


def test_marks_name_their_process_and_nothing_else_is_taken_for_one():
    assert [process_of(mark(index) + "abc") for index in (0, 1, 17, 255)] == [0, 1, 17, 255]
    # A token of a table of one process has no dot: process 0, which kept its database.
    assert process_of("AbC-_09" * 4) == 0
    for malformed in ("01.abc", "x.abc", "-1.abc", "256.abc", "1000.abc", ".abc"):
        assert process_of(malformed) is None, malformed
    with pytest.raises(ValueError, match="from 0 to 255"):
        mark(256)
    assert database_of("rooms.db", 0) == "rooms.db"
    assert database_of("/var/lib/t/rooms.db", 3) == "/var/lib/t/rooms-3.db"


def test_every_invitation_a_marked_process_makes_carries_its_mark():
    tables = Tables(Store(":memory:"), mark=mark(3))
    rules = Rules(schedule=[1])
    room, host = tables.create("friends", rules)
    tokens = [row.token for row in room.seats.values()]
    assert host.startswith("3.") and all(token.startswith("3.") for token in tokens)
    assert all(len(token) == 34 for token in tokens)
    assert tables.seat_of(host) == (room, Seat.SOUTH)
    fresh = tables.reinvite(room, Seat.SOUTH, Seat.WEST)
    assert fresh.startswith("3.") and fresh not in tokens
    # Unmarked (a table of one process): the tokens are as they always were.
    _, plain = Tables(Store(":memory:")).create("computer", rules)
    assert process_of(plain) == 0 and "." not in plain


def test_the_finished_match_keeps_marked_links_when_the_room_plays_again():
    tables = Tables(Store(":memory:"), mark=mark(1))
    room = _finished_room(tables)
    again = tables.again(room, Seat.SOUTH)
    archived = [row.token for row in room.seats.values() if row.token is not None]
    assert archived and all(token.startswith("1.") for token in archived)
    assert all(row.token.startswith("1.") for row in again.seats.values() if row.token is not None)


# --- the command line ---------------------------------------------------------------


def _table_args(*words: str):
    return build_parser().parse_args(["table", *words])


def test_each_process_is_given_the_options_of_the_table_as_they_were():
    args = _table_args(
        "--processes",
        "2",
        "--port",
        "9000",
        "--db",
        "x.db",
        "--pace",
        "0.25",
        "--trusted-proxy",
        "127.0.0.1",
        "--trusted-proxy",
        "::1",
        "--public-url",
        "https://table.example",
        "--no-compression",
        "--sockets-per-address",
        "7",
        "--stun",
        "stun:stun.example:3478",
    )
    passed = _passed_on(args)
    again = _table_args(*passed)
    for name in ("pace", "trusted_proxy", "public_url", "no_compression", "stun"):
        assert getattr(again, name) == getattr(args, name), name
    assert again.sockets_per_address == 7
    # Each process gets its own port, database and index from the supervisor.
    assert not {"--port", "--db", "--processes", "--host"} & set(passed)


def _run_table(*words: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    import sys  # noqa: PLC0415

    return subprocess.run(
        [sys.executable, "-m", "backalley", "table", *words],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


@pytest.mark.parametrize(
    ("words", "said"),
    [
        (["--processes", "0"], "--processes is a number from 1 to 256, or auto, not '0'"),
        (["--processes", "two"], "--processes is a number from 1 to 256, or auto"),
        (["--processes", "2", "--port", "0", "--print-caddyfile"], "needs the ports"),
        (["--processes", "2", "--port", "65535"], "leaves no room for 2 ports"),
    ],
)
def test_a_wrong_number_of_processes_is_one_sentence(tmp_path, words, said):
    pytest.importorskip("uvicorn")
    done = _run_table(*words, "--db", str(tmp_path / "r.db"))
    assert done.returncode == 2, done
    assert said in done.stderr and "Traceback" not in done.stderr


def test_the_printed_caddyfile_routes_each_process_by_its_mark():
    pytest.importorskip("uvicorn")
    done = _run_table("--processes", "3", "--port", "8100", "--print-caddyfile")
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert text == caddyfile(
        ["127.0.0.1:8100", "127.0.0.1:8101", "127.0.0.1:8102"],
        command="backalley table --processes 3 --host 127.0.0.1 --port 8100 --print-caddyfile",
    )
    for index in range(3):
        assert f"@process{index} path_regexp ^/(seat|ws|qr|record|analysis)/{index}\\." in text
        assert f"reverse_proxy @process{index} 127.0.0.1:{8100 + index}" in text


@needs_caddy
def test_caddy_reads_the_printed_caddyfile(tmp_path):
    """``caddy adapt`` gives the routes in order; ``validate`` loads them; ``fmt`` keeps them."""
    site = tmp_path / "Caddyfile"
    site.write_text(caddyfile(["127.0.0.1:8100", "127.0.0.1:8101"]))
    env = caddy_env(tmp_path, BACKALLEY_SITE="play.example")
    adapted = subprocess.run(
        [CADDY, "adapt", "--config", str(site), "--adapter", "caddyfile"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=True,
    )
    server = json.loads(adapted.stdout)["apps"]["http"]["servers"]["srv0"]
    assert "logs" not in server  # the seats' links hold their invitations
    routes = server["routes"][0]["handle"][0]["routes"][0]["handle"][0]["routes"]
    dials = [[up["dial"] for up in route["handle"][0]["upstreams"]] for route in routes]
    assert dials == [
        ["127.0.0.1:8100"],
        ["127.0.0.1:8101"],
        ["127.0.0.1:8100"],
        ["127.0.0.1:8100", "127.0.0.1:8101"],
    ]
    assert routes[1]["match"] == [
        {"path_regexp": {"pattern": "^/(seat|ws|qr|record|analysis)/1\\."}}
    ]
    assert "match" not in routes[3]  # the lobby, the how-to, static files: any process
    assert routes[3]["handle"][0]["load_balancing"]["selection_policy"]["policy"] == ("round_robin")
    validated = subprocess.run(
        [CADDY, "validate", "--config", str(site), "--adapter", "caddyfile"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert validated.returncode == 0, validated.stderr
    formatted = subprocess.run(
        [CADDY, "fmt", str(site)], capture_output=True, text=True, env=env, timeout=60, check=True
    )
    assert formatted.stdout == site.read_text()


# --- the counts every process shares -------------------------------------------------


def _counting(tmp_path: Path, test, **limits) -> None:
    async def main() -> None:
        server = CountServer(LocalCounts(**limits), tmp_path / "counts.sock")
        await server.start()
        try:
            await test(server)
        finally:
            await server.stop()

    asyncio.run(main())


def test_two_processes_share_one_budget_per_address(tmp_path):
    async def test(server: CountServer) -> None:
        first, second = SharedCounts(server.path), SharedCounts(server.path)
        await first.open()
        await second.open()
        # Sockets: two for the address in all, wherever they are open.
        assert await first.ask("socket", "192.0.2.7")
        assert await second.ask("socket", "192.0.2.7")
        assert not await first.ask("socket", "192.0.2.7")
        assert not await second.ask("socket", "192.0.2.7")
        assert await second.ask("socket", "192.0.2.8")  # another address: its own
        second.give_back("socket", "192.0.2.7")
        assert await first.ask("socket", "192.0.2.7")
        # Rooms a minute: three in all; a room not made after all is given back.
        answers = [await each.ask("room", "192.0.2.7") for each in (first, second) * 2]
        assert answers == [True, True, True, False]
        first.give_back("room", "192.0.2.7")
        assert await second.ask("room", "192.0.2.7")
        # Requests: a burst of twice the rate in all (4), not per process.
        taken = [await each.ask("request", "192.0.2.9") for each in (first, second) * 4]
        assert taken.count(True) == 4
        await first.close()
        await second.close()

    _counting(tmp_path, test, requests_per_second=2.0, sockets_per_address=2, rooms_per_minute=3)


def test_a_socket_granted_after_its_deadline_is_given_back(tmp_path, monkeypatch):
    """A table process refuses an ask the counting process answers too late; if that late
    answer granted something held, the process gives it back rather than leak it."""
    monkeypatch.setattr(counts_module, "ANSWER_SECONDS", 0.05)
    path = str(tmp_path / "slow.sock")
    heard: list[bytes] = []

    async def main() -> None:
        async def slow(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            line = await reader.readline()
            heard.append(line)
            await asyncio.sleep(0.2)  # past the deadline
            writer.write(line.split(b" ")[0] + b" 1\n")
            await writer.drain()
            heard.append(await asyncio.wait_for(reader.readline(), 5))
            writer.close()

        server = await asyncio.start_unix_server(slow, path)
        counts = SharedCounts(path)
        await counts.open()
        assert not await counts.ask("socket", "192.0.2.7")  # refused: no answer in time
        for _ in range(100):
            if len(heard) == 2:
                break
            await asyncio.sleep(0.05)
        await counts.close()
        server.close()

    asyncio.run(main())
    assert heard[0].split(b" ")[1:] == [b"O", b"192.0.2.7\n"]
    assert heard[1] == b"0 C 192.0.2.7\n"  # the late grant given back


def test_a_question_not_understood_is_refused_and_the_connection_kept(tmp_path):
    async def test(server: CountServer) -> None:
        reader, writer = await asyncio.open_unix_connection(server.path)
        writer.write(b"7 X 192.0.2.7\nnonsense\n8 R 192.0.2.7\n")
        assert await reader.readline() == b"7 0\n"  # an unknown letter: refused
        assert await reader.readline() == b"8 1\n"  # the line without a number: no answer
        writer.close()

    _counting(tmp_path, test)


def test_the_sockets_of_a_process_that_dies_are_given_back(tmp_path):
    async def test(server: CountServer) -> None:
        lost: list[bool] = []
        dying, living = (
            SharedCounts(server.path),
            SharedCounts(server.path, lambda: lost.append(True)),
        )
        await dying.open()
        await living.open()
        assert await dying.ask("socket", "192.0.2.7")
        assert not await living.ask("socket", "192.0.2.7")
        await dying.close()  # its connection gone, as when the process is killed
        for _ in range(50):
            if await living.ask("socket", "192.0.2.7"):
                break
            await asyncio.sleep(0.02)
        else:
            raise AssertionError("the dead process's socket was never given back")
        # A process cannot give back what it never held: the count stays.
        living2 = SharedCounts(server.path)
        await living2.open()
        living2.give_back("socket", "192.0.2.7")
        assert not await living2.ask("socket", "192.0.2.7")
        await living2.close()
        await living.close()
        assert lost == []  # closed on purpose: not a loss

    _counting(tmp_path, test, sockets_per_address=1)


def test_a_process_whose_counts_are_gone_is_told_and_refuses(tmp_path):
    async def main() -> None:
        server = CountServer(LocalCounts(), tmp_path / "counts.sock")
        await server.start()
        told = asyncio.Event()
        counts = SharedCounts(server.path, told.set)
        await counts.open()
        assert await counts.ask("request", "192.0.2.7")
        await server.stop()  # as when the supervisor is gone: every connection closed
        async with asyncio.timeout(10):
            await told.wait()
        assert not await counts.ask("request", "192.0.2.7")
        await counts.close()

    asyncio.run(main())


def _finished_room(tables: Tables):
    room, _ = tables.create("computer", Rules(schedule=[1]), "random")
    tables.claim(room, Seat.SOUTH)
    for _ in range(200):
        if room.is_over:
            return room
        if tables.step(room) is None:
            choice = room.legal_choices()[0]
            if isinstance(choice, Bid):
                tables.act(room, Seat.SOUTH, room.version, "bid", str(choice.call))
            else:
                tables.act(room, Seat.SOUTH, room.version, "play", choice.card.code)
    raise AssertionError("the match did not end")


def test_an_addresss_analyses_are_counted_across_the_processes(tmp_path):
    from backalley.web.analysis import Analyses  # noqa: PLC0415
    from backalley.web.limits import Limits  # noqa: PLC0415
    from backalley.web.rooms import Refused  # noqa: PLC0415

    release = asyncio.Event()

    class Held(Analyses):
        async def _analyse(self, room, state, job):  # the worker, held until released
            await release.wait()
            job.finish()

    async def test(server: CountServer) -> None:
        limits = Limits(analysis_per_address=1)
        processes = []
        for index in range(2):
            counts = SharedCounts(server.path)
            await counts.open()
            tables = Tables(Store(":memory:"), mark=mark(index))
            processes.append((Held(limits, tables.store, shared=counts), tables, counts))
        (first, first_tables, _), (second, second_tables, _) = processes
        one, two = _finished_room(first_tables), _finished_room(second_tables)
        job = await first.ask(one, "192.0.2.7")
        assert job.status in ("queued", "running")
        with pytest.raises(Refused) as refused:
            await second.ask(two, "192.0.2.7")  # its one analysis runs on the other process
        assert refused.value.reason == "analysis_share"
        assert (await second.ask(two, "192.0.2.8")).counted  # another address: its own
        release.set()
        for _ in range(100):
            await asyncio.sleep(0.02)
            if job.status == "done" and server.counts.held["analysis"].get("192.0.2.7") is None:
                break
        third = _finished_room(second_tables)
        assert (await second.ask(third, "192.0.2.7")).status in ("queued", "running", "done")
        # Asked again, a room's analysis is the same job, counted once.
        assert await first.ask(one, "192.0.2.7") is job
        for analyses, _, counts in processes:
            await analyses.stop()
            await counts.close()

    _counting(tmp_path, test, analysis_per_address=1)


# --- two processes behind Caddy -------------------------------------------------------


def _get(port: int, path: str, *, source: str = "127.0.0.1", method: str = "GET", body=None):
    connection = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=20, source_address=(source, 0)
    )
    headers = {"content-type": "application/x-www-form-urlencoded"} if body else {}
    try:
        connection.request(method, path, body=body, headers=headers)
        answer = connection.getresponse()
        return answer.status, answer.getheader("location") or "", answer.read()
    finally:
        connection.close()


def _new_room(port: int, *, source: str = "127.0.0.1") -> tuple[int, str]:
    status, location, _ = _get(
        port, "/rooms", source=source, method="POST", body="mode=friends&schedule=short"
    )
    return status, location.rsplit("/", 1)[-1]


def _socket(port: int, token: str, *, source: str = "127.0.0.1"):
    from websockets.sync.client import connect  # noqa: PLC0415

    raw = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
    return connect(f"ws://127.0.0.1:{port}/ws/{token}", sock=raw, open_timeout=10, proxy=None)


def _hello(ws, secret: str | None = None) -> dict:
    message = {"type": "hello"} if secret is None else {"type": "hello", "secret": secret}
    ws.send(json.dumps(message))
    return json.loads(ws.recv(timeout=10))


def _refused_code(ws) -> int | None:
    """The close code of a socket the server refuses (after its ``refused`` message)."""
    from websockets.exceptions import ConnectionClosed  # noqa: PLC0415

    try:
        for _ in range(10):
            ws.recv(timeout=10)
    except ConnectionClosed as closed:
        return closed.rcvd.code if closed.rcvd else None
    return None


@pytest.fixture
def two(tmp_path):
    if CADDY is None:
        pytest.skip("needs Debian's caddy: apt-get install caddy")
    pytest.importorskip("uvicorn")
    from table_helpers import ProxiedTable  # noqa: PLC0415

    # Every bot comes from 127.0.0.1, and a bot answers a refusal at once: the rates the
    # server allows one address and one seat are raised (the limits have a test below).
    table = ProxiedTable(
        tmp_path, 2, flags=["--requests-per-second", "1000", "--messages-per-second", "1000"]
    )
    try:
        yield table
    finally:
        table.stop()


@pytest.mark.server
def test_rooms_land_on_both_processes_and_each_address_reaches_only_its_own(two):
    from backalley.web.scripted import play_friends_room  # noqa: PLC0415

    async def play() -> list:
        return await asyncio.gather(
            *(play_friends_room(two.base, seed, schedule="short") for seed in range(4))
        )

    runs = asyncio.run(play())
    hosts = [run.host_token for run in runs]
    assert sorted(process_of(host) for host in hosts) == [0, 0, 1, 1], hosts
    for run in runs:
        # Every seat of the room, host and guests, is on the host's process.
        assert {process_of(token) for token in run.secrets} == {process_of(run.host_token)}
        assert run.latencies  # the match was played through Caddy to its end
    for host in hosts:
        owner = two.ports[process_of(host)]
        other = two.ports[1 - process_of(host)]
        for path in (f"/seat/{host}", f"/qr/{host}.svg", f"/record/{host}", f"/analysis/{host}"):
            through, _, body = _get(two.port, path)
            direct, _, _ = _get(owner, path)
            elsewhere, _, _ = _get(other, path)
            assert (through, direct, elsewhere) == (200, 200, 404), path
        status, _, body = _get(two.port, f"/record/{host}")
        assert b"[Event" in body or body.startswith(b"{")
    # Two analyses at once from one address (its share, counted across the processes).
    for host in hosts[:2]:
        status, _, body = _get(two.port, f"/analysis/{host}/status")
        assert status == 200 and json.loads(body)["status"] in ("queued", "running", "done")
    # A seat's socket through Caddy is its own process's: its seat, with the secret kept.
    run = runs[0]
    token, secret = next(iter(run.secrets.items()))
    with _socket(two.port, token) as ws:
        seat = _hello(ws, secret)
    assert seat["type"] == "seat"


@pytest.mark.server
def test_a_process_killed_is_started_again_with_its_rooms(two):
    made = [_new_room(two.port) for _ in range(2)]
    assert [status for status, _ in made] == [303, 303]
    tokens = {process_of(token): token for _, token in made}
    assert set(tokens) == {0, 1}
    with _socket(two.port, tokens[1]) as ws:
        secret = _hello(ws)["secret"]
    before = two.children()
    os.kill(before[1], signal.SIGKILL)
    # Whatever comes meanwhile waits in the port's queue: the supervisor keeps listening.
    status, _, _ = _get(two.port, f"/seat/{tokens[1]}")
    assert status == 200
    after = two.children()
    assert after[1] != before[1] and after[0] == before[0]
    with _socket(two.port, tokens[1]) as ws:
        seat = _hello(ws, secret)
    assert seat["type"] == "seat" and seat["seat"] == "S"
    # The other process never stopped, and its room is there too.
    assert _get(two.port, f"/seat/{tokens[0]}")[0] == 200
    # Ctrl-C stops the supervisor and every process with it, cleanly.
    two.stop()
    assert two.server.process.returncode == 0
    assert not any(Path(f"/proc/{pid}").exists() for pid in after.values())
    assert "Stopped; every room is kept in" in two.server.process.stdout.read()


@pytest.fixture
def strict(tmp_path):
    if CADDY is None:
        pytest.skip("needs Debian's caddy: apt-get install caddy")
    pytest.importorskip("uvicorn")
    from table_helpers import ProxiedTable  # noqa: PLC0415

    table = ProxiedTable(
        tmp_path,
        2,
        flags=[
            "--sockets-per-address",
            "2",
            "--rooms-per-minute",
            "3",
            "--requests-per-second",
            "5",
        ],
    )
    try:
        yield table
    finally:
        table.stop()


@pytest.mark.server
def test_a_clients_limits_are_counted_once_across_the_processes(strict):
    port = strict.port
    # Rooms a minute (3): made by 127.0.0.2 on both processes in turn, then refused.
    made = [_new_room(port, source="127.0.0.2") for _ in range(4)]
    assert [status for status, _ in made] == [303, 303, 303, 429]
    tokens = [token for _, token in made[:3]]
    assert {process_of(token) for token in tokens} == {0, 1}
    # Another visitor has its own minute.
    assert _new_room(port, source="127.0.0.3")[0] == 303
    time.sleep(2)  # the request budget refilled (the forms spent some)
    # Sockets (2 an address): one on each process, then a third refused, wherever it is.
    first = next(token for token in tokens if process_of(token) == 0)
    second = next(token for token in tokens if process_of(token) == 1)
    with contextlib.ExitStack() as stack:
        for token in (first, second):
            ws = stack.enter_context(_socket(port, token, source="127.0.0.2"))
            assert _hello(ws)["type"] == "seat"
        for token in (first, second):
            with _socket(port, token, source="127.0.0.2") as third:
                assert _refused_code(third) == 4429
        # 127.0.0.3 is another visitor: its sockets are its own.
        with _socket(port, second, source="127.0.0.3") as other:
            assert _hello(other)["type"] in ("seat", "refused")
    time.sleep(2)
    # Requests (5 a second, bursts of 10): spread over both processes, refused at the
    # address's budget, not twice it.
    statuses = [_get(port, "/how-to", source="127.0.0.4")[0] for _ in range(24)]
    assert statuses.count(200) <= 13, statuses
    assert statuses.count(429) >= 10, statuses
