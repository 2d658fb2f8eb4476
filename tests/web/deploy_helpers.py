"""Helpers of the deployment tests: Debian's caddy and coturn on loopback, from deploy/."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
CADDY = shutil.which("caddy")
TURNSERVER = shutil.which("turnserver")
START_SECONDS = 30
"""How long caddy or coturn may take to listen."""


def free_udp_port() -> int:
    """A UDP port on 127.0.0.1 that nothing uses now."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def caddy_env(folder: Path, **more: str) -> dict[str, str]:
    """Caddy's data, config and home in ``folder``: nothing of the machine is touched."""
    return {
        **os.environ,
        "HOME": str(folder / "home"),
        "XDG_DATA_HOME": str(folder / "data"),
        "XDG_CONFIG_HOME": str(folder / "config"),
        **more,
    }


def turn_config(folder: Path, *, port: int, secret: str, **more: str) -> Path:
    """``deploy/turnserver.conf`` with this test's port, secret, files and loopback only.

    coturn lets its configuration file override the command line, so the shipped
    file's lines are replaced here, the rest kept as shipped.
    """
    overrides = {
        "listening-port": str(port),
        "listening-ip": "127.0.0.1",
        "relay-ip": "127.0.0.1",
        "static-auth-secret": secret,
        "realm": "backalley.test",
        "log-file": str(folder / "turn.log"),
        "pidfile": str(folder / "turn.pid"),
        "userdb": str(folder / "turn.db"),
        **more,
    }
    kept = []
    for line in (DEPLOY / "turnserver.conf").read_text().splitlines():
        name = line.strip().partition("=")[0].strip()
        if name not in overrides:
            kept.append(line)
    kept += [f"{name}={value}" if value else name for name, value in overrides.items()]
    path = folder / "turnserver.conf"
    path.write_text("\n".join(kept) + "\n")
    return path


def wait_listening(port: int, *, udp: bool = False, process: subprocess.Popen[bytes]) -> None:
    """Wait until something listens on 127.0.0.1 ``port`` (TCP, or UDP bound)."""
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"exited with {process.returncode} before listening")
        if udp:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
                try:
                    probe.bind(("127.0.0.1", port))
                except OSError:
                    return
        else:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    return
        time.sleep(0.1)
    raise AssertionError(f"nothing listened on port {port} within {START_SECONDS} s")


def caddy_in_front(folder: Path, site: Path, port: int) -> subprocess.Popen[bytes]:
    """``caddy run`` on the site file ``site``, plain HTTP on 127.0.0.1 ``port``; started.

    The global options go first (admin API off, no certificates, loopback only), then
    the site file, its site address ``http://127.0.0.1:PORT`` (``BACKALLEY_SITE``).
    """
    config = folder / "Caddyfile.front"
    config.write_text(
        "{\n"
        "\tadmin off\n"
        "\tauto_https off\n"
        f"\thttp_port {port}\n"
        "\tdefault_bind 127.0.0.1\n"
        "}\n"
        f"import {site}\n"
    )
    log = (folder / "caddy-front.log").open("wb")
    process = subprocess.Popen(
        [CADDY or "caddy", "run", "--config", str(config), "--adapter", "caddyfile"],
        env=caddy_env(folder, BACKALLEY_SITE=f"http://127.0.0.1:{port}"),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    log.close()
    try:
        wait_listening(port, process=process)
    except AssertionError:
        process.kill()
        process.wait(timeout=10)
        raise
    return process


def stop(process: subprocess.Popen[bytes]) -> None:
    """Stop a process as SIGTERM asks, killing it if it does not go within ten seconds."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
