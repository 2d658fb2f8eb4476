"""The table's server as a process, against an attacker: SIGKILLs, bad frames, floods.

Each test starts ``backalley table`` (:class:`table_helpers.Server`) on loopback.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import random
import resource
import secrets
import signal
import socket
import struct
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("uvicorn")
websockets_sync = pytest.importorskip("websockets.sync.client")

from table_helpers import Server, free_port, new_room  # noqa: E402

pytestmark = pytest.mark.server


def _ws(base: str, token: str):
    return websockets_sync.connect(base.replace("http", "ws", 1) + f"/ws/{token}")


def test_a_claim_cut_off_by_sigkill_is_claimed_with_the_pages_secret_after(tmp_path):
    """SIGKILL between a claim and its answer: the page's kept secret opens the seat after."""
    db, port = tmp_path / "rooms.db", free_port()
    rng = random.Random(43)
    for trial in range(4):
        server = Server(db, port=port)
        try:
            token = new_room(server.base, "friends")
            proposal = secrets.token_urlsafe(24)
            with _ws(server.base, token) as socket:
                socket.send(json.dumps({"type": "hello", "secret": proposal}))
                if trial:  # the first trial is killed at once, the others a little later
                    with contextlib.suppress(TimeoutError):
                        socket.recv(timeout=rng.uniform(0.0001, 0.004))
                server.kill()
        finally:
            server.kill()
        server = Server(db, port=port)
        try:
            with _ws(server.base, token) as socket:
                socket.send(json.dumps({"type": "hello", "secret": proposal}))
                answer = json.loads(socket.recv(timeout=20))
                assert answer == {"type": "seat", "seat": "S", "secret": None}, trial
        finally:
            server.stop()


def _frame(payload: bytes, opcode: int = 1) -> bytes:
    """One masked client frame (RFC 6455), as a browser would send it."""
    mask = os.urandom(4)
    size = len(payload)
    head = bytes([0x80 | opcode])
    head += bytes([0x80 | size]) if size < 126 else bytes([0x80 | 126]) + struct.pack("!H", size)
    return head + mask + bytes(byte ^ mask[i % 4] for i, byte in enumerate(payload))


def _upgrade(port: int, path: str) -> socket.socket:
    raw = socket.create_connection(("127.0.0.1", port), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    head = (
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
    )
    raw.sendall(head.encode() + b"\r\n")
    assert raw.recv(1024).startswith(b"HTTP/1.1 101"), path
    return raw


def test_invalid_utf8_frames_are_a_few_lines_and_never_a_traceback(tmp_path):
    """Text frames of invalid UTF-8 before any hello: one line each, capped; no traceback."""
    server = Server(tmp_path / "rooms.db")
    try:
        token = new_room(server.base, "friends")
        for _ in range(40):
            with contextlib.closing(_upgrade(server.port, f"/ws/{token}")) as raw:
                raw.sendall(_frame(b"\xff\xfe\xfd invalid"))
                raw.recv(1024)  # the close frame (1007), or the end
        with urllib.request.urlopen(server.base + "/") as page:  # still serving
            assert page.status == 200
    finally:
        server.stop()
    log = server.process.stdout.read()
    assert "Traceback" not in log, log[:2000]
    lines = [line for line in log.splitlines() if "UTF-8" in line]
    assert 1 <= len(lines) <= 6, log[:2000]


def test_the_open_files_limit_is_raised_to_the_hard_limit_at_start(tmp_path):
    """Started with a low soft limit, the server raises it to the hard one."""
    hard = min(4096, resource.getrlimit(resource.RLIMIT_NOFILE)[1])
    if hard <= 256:
        pytest.skip(f"the hard open-files limit here is {hard}")
    server = Server(tmp_path / "rooms.db", files=(256, hard))
    try:
        limits = Path(f"/proc/{server.process.pid}/limits").read_text()
        line = next(line for line in limits.splitlines() if line.startswith("Max open files"))
        assert line.split()[3:5] == [str(hard), str(hard)], line
    finally:
        server.stop()


def test_half_sent_heads_past_the_open_files_limit_are_refused_quietly(tmp_path):
    """More half-sent requests than open files: over the connection cap each is closed at
    once, nothing fails to be accepted, a few lines are logged, and the server serves on."""
    # The test holds 1,100 sockets itself: its own soft limit raised to fit them.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 1400:
        if hard != resource.RLIM_INFINITY and hard < 1400:
            pytest.skip(f"the hard open-files limit here is {hard}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (1400, hard))
    server = Server(tmp_path / "rooms.db", files=(1024, 1024))
    held = []
    try:
        for _ in range(1100):
            raw = socket.create_connection(("127.0.0.1", server.port), timeout=10)
            with contextlib.suppress(OSError):
                raw.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            held.append(raw)
        time.sleep(1.5)
        for raw in held:
            raw.close()
        held.clear()
        deadline = time.monotonic() + 10
        while True:  # the cap frees as the held connections are seen closed
            try:
                with urllib.request.urlopen(server.base + "/", timeout=5) as page:
                    assert page.status == 200
                    break
            except OSError:
                assert time.monotonic() < deadline
                time.sleep(0.2)
    finally:
        for raw in held:
            raw.close()
        server.stop()
    log = server.process.stdout.read()
    assert "Traceback" not in log and "Too many open files" not in log, log[:3000]
    assert "--connections lowered to 560" in log, log[:3000]
    assert len(log.splitlines()) < 20, log[:3000]


_PARENT = """
import sys, time
from backalley.web.analysis import start_worker

if __name__ == "__main__":
    worker = start_worker(time.sleep, (120,))
    print(worker.pid, flush=True)
    time.sleep(120)
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has ended; only its parent's reaping is left


def test_an_analysis_worker_ends_when_its_server_is_killed(tmp_path):
    """A worker started as the server starts them: SIGKILL the parent, the worker ends."""
    script = tmp_path / "parent.py"
    script.write_text(_PARENT)
    parent = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, text=True, cwd=tmp_path
    )
    try:
        worker = int(parent.stdout.readline())
        assert _alive(worker)
        time.sleep(1.0)  # the worker is running (its watch started)
        assert _alive(worker)
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(timeout=10)
        deadline = time.monotonic() + 5
        while _alive(worker) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(worker)
    finally:
        if parent.poll() is None:
            parent.kill()


def test_a_hello_trickled_a_byte_at_a_time_is_closed_at_the_hello_deadline(tmp_path):
    """Slowloris on a socket: a hello frame sent a byte now and then is cut at the deadline."""
    server = Server(tmp_path / "rooms.db", flags=["--hello-deadline", "1"])
    try:
        token = new_room(server.base, "friends")
        frame = _frame(json.dumps({"type": "hello", "secret": None}).encode())
        with contextlib.closing(_upgrade(server.port, f"/ws/{token}")) as raw:
            started = time.monotonic()
            closed = False
            for byte in frame[:-1]:  # never the last byte
                try:
                    raw.sendall(bytes([byte]))
                except OSError:
                    closed = True
                    break
                raw.settimeout(0.2)
                try:
                    raw.recv(1024)  # the refusal and the close frame, or the end
                except TimeoutError:
                    continue
                closed = True
                break
            assert closed, "the socket was held open past the hello deadline"
            assert time.monotonic() - started < 5
    finally:
        server.stop()
    log = server.process.stdout.read()
    assert "no hello in time" in log and "Traceback" not in log, log
