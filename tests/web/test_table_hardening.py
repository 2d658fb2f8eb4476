"""The table's server as a process, against an attacker: SIGKILLs, bad frames, floods.

Each test starts ``backalley table`` (:class:`table_helpers.Server`) on loopback.
"""

from __future__ import annotations

import contextlib
import json
import random
import secrets

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
