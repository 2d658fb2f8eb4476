"""The deployment files in ``deploy/``: each one parses, and says what the table accepts.

The Caddy site file is read by Debian's ``caddy`` itself (``caddy adapt`` and
``caddy validate``, its storage in a temporary folder); the systemd unit's command
line is read by ``backalley table``'s own parser; coturn's configuration has the
shared-secret lines the table's ``--turn`` needs. ``test_table_online.py`` runs them.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from deploy_helpers import (
    CADDY,
    DEPLOY,
    TURNSERVER,
    caddy_env,
    free_udp_port,
    turn_config,
    wait_listening,
)

from backalley.cli import build_parser


@pytest.mark.skipif(CADDY is None, reason="needs Debian's caddy: apt-get install caddy")
def test_the_caddyfile_adapts_to_a_reverse_proxy_of_the_table(tmp_path):
    env = caddy_env(tmp_path, BACKALLEY_SITE="play.example", BACKALLEY_UPSTREAM="127.0.0.1:8123")
    done = subprocess.run(
        [CADDY, "adapt", "--config", str(DEPLOY / "Caddyfile"), "--adapter", "caddyfile"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    config = json.loads(done.stdout)
    server = config["apps"]["http"]["servers"]["srv0"]
    assert server["listen"] == [":443"]
    route = server["routes"][0]
    assert route["match"] == [{"host": ["play.example"]}]
    text = json.dumps(route["handle"])
    assert '"handler": "reverse_proxy"' in text and '"dial": "127.0.0.1:8123"' in text
    # No access log: the seats' links hold their invitations.
    assert "logs" not in server
    # Unchanged by caddy fmt: the file is as Caddy writes it.
    formatted = subprocess.run(
        [CADDY, "fmt", str(DEPLOY / "Caddyfile")],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=True,
    ).stdout
    assert formatted == (DEPLOY / "Caddyfile").read_text()


@pytest.mark.skipif(CADDY is None, reason="needs Debian's caddy: apt-get install caddy")
def test_the_caddyfile_validates(tmp_path):
    """``caddy validate`` loads every module (TLS automation included) without serving."""
    done = subprocess.run(
        [CADDY, "validate", "--config", str(DEPLOY / "Caddyfile"), "--adapter", "caddyfile"],
        capture_output=True,
        text=True,
        env=caddy_env(tmp_path),
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Valid configuration" in done.stdout + done.stderr


def _exec_start(unit: str) -> list[str]:
    """The ``ExecStart=`` command of a unit, its continuation lines joined."""
    joined = unit.replace("\\\n", " ")
    line = next(line for line in joined.splitlines() if line.startswith("ExecStart="))
    return shlex.split(line.removeprefix("ExecStart="))


def test_the_systemd_unit_runs_the_table_with_flags_it_accepts():
    unit = (DEPLOY / "backalley-table.service").read_text()
    command = _exec_start(unit)
    assert command[0].endswith("/bin/backalley") and command[1] == "table"
    args = build_parser().parse_args(
        [word.replace("${CREDENTIALS_DIRECTORY}", "/run/credentials/x") for word in command[1:]]
    )
    assert args.public_url == "https://table.example"
    assert args.trusted_proxy == ["127.0.0.1", "::1"]
    assert args.host == "127.0.0.1"
    assert args.turn == ["turn:table.example:3478"]
    assert args.turn_secret_file == "/run/credentials/x/turn-secret"
    # The secret the unit hands over is the one its LoadCredential names.
    assert "LoadCredential=turn-secret:/etc/backalley/turn-secret" in unit
    # One process a core, Caddy's routes written for them by the table itself.
    assert args.processes == "auto" and args.port == 8000
    assert "--processes auto --port 8000 \\\n#         --print-caddyfile" in unit
    # Stopped as Ctrl-C stops it: the supervisor stops each process, and each its
    # analysis workers; the rest of the group is killed only when the time is up.
    assert "KillSignal=SIGINT" in unit and "KillMode=mixed" in unit


def _conf(text: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            name, _, value = line.partition("=")
            found.setdefault(name.strip(), []).append(value.strip())
    return found


def test_the_coturn_configuration_uses_the_tables_shared_secret_scheme():
    conf = _conf((DEPLOY / "turnserver.conf").read_text())
    assert "use-auth-secret" in conf and "static-auth-secret" in conf
    assert "lt-cred-mech" not in conf and "user" not in conf  # no fixed users
    assert conf["listening-port"] == ["3478"]
    # Nothing of the private networks is reachable through the relay.
    denied = conf["denied-peer-ip"]
    for network in ("10.0.0.0", "172.16.0.0", "192.168.0.0", "169.254.0.0"):
        assert any(entry.startswith(network + "-") for entry in denied), network
    assert "allow-loopback-peers" not in conf


@pytest.mark.skipif(TURNSERVER is None, reason="needs coturn: apt-get install coturn")
def test_coturn_starts_on_the_configuration(tmp_path):
    """coturn reads the shipped file (this test's port, secret and log put in) and serves."""
    port = free_udp_port()
    config = turn_config(tmp_path, port=port, secret="s3cret")
    process = subprocess.Popen(
        [TURNSERVER, "-c", str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_listening(port, udp=True, process=process)
    finally:
        process.terminate()
        process.wait(timeout=10)
    text = "".join(path.read_text(errors="replace") for path in tmp_path.glob("turn*.log"))
    assert "Default realm: backalley.test" in text, text[-2000:]
    assert "CONFIG ERROR: " not in text.replace("CONFIG ERROR: Empty cli-password", ""), text[
        -2000:
    ]


@pytest.mark.skipif(
    shutil.which("systemd-analyze") is None, reason="needs systemd-analyze (Debian: systemd)"
)
def test_systemd_reads_the_unit_without_a_complaint(tmp_path):
    """``systemd-analyze verify`` on the unit, its program this environment's backalley."""
    program = Path(sys.executable).with_name("backalley")
    if not program.exists():
        pytest.skip("no backalley script beside this Python (an installed package has one)")
    unit = (DEPLOY / "backalley-table.service").read_text()
    copy = tmp_path / "backalley-table.service"
    copy.write_text(unit.replace("/opt/backalley/venv/bin/backalley", str(program)))
    done = subprocess.run(
        ["systemd-analyze", "verify", str(copy)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0 and done.stderr.strip() == "", done.stderr


@pytest.mark.skipif(CADDY is None, reason="needs Debian's caddy: apt-get install caddy")
def test_the_caddyfile_the_service_asks_for_validates(tmp_path):
    """The unit's own step (``--processes auto --port 8000 --print-caddyfile``) gives a
    Caddyfile that Caddy loads, one route a core's process."""
    pytest.importorskip("uvicorn")
    step = ["--processes", "auto", "--port", "8000", "--print-caddyfile"]
    made = subprocess.run(
        [sys.executable, "-m", "backalley", "table", *step],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    site = tmp_path / "Caddyfile"
    site.write_text(made.stdout)
    cores = len(os.sched_getaffinity(0))
    assert made.stdout.count("reverse_proxy @process") == cores
    assert f"127.0.0.1:{8000 + cores - 1}" in made.stdout
    done = subprocess.run(
        [CADDY, "validate", "--config", str(site), "--adapter", "caddyfile"],
        capture_output=True,
        text=True,
        env=caddy_env(tmp_path),
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
