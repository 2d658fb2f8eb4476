"""The table put online for real, on loopback: HTTPS directly, and behind Debian's Caddy.

- ``backalley table --certfile --keyfile``: a certificate made in the test with the
  ``openssl`` command; pages over ``https://`` and a seat's socket over ``wss://``.
- The shipped ``deploy/Caddyfile`` under ``caddy run``, with the test's global
  options in front of it: Caddy's internal certificate authority (``local_certs``),
  its admin API off, its data and config in a temporary folder, its ports free ones
  on 127.0.0.1. The table behind it has ``--public-url https://table.test:PORT``
  and ``--trusted-proxy 127.0.0.1``. Chromium is told that ``table.test`` is
  127.0.0.1 (``--host-resolver-rules``) and trusts Caddy's root certificate,
  added with ``certutil`` to the NSS database of its own temporary home (not by
  ignoring certificate errors); it makes a room of friends over ``https://`` and
  ``wss://``, and a guest opens the link it is given and plays.
- The limits see the visitor through the proxy: sockets opened from 127.0.0.2 and
  127.0.0.3 (both loopback, so that Caddy's visitor is not Caddy's own address)
  are counted each against its own address, whatever ``X-Forwarded-For`` they
  forge.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("uvicorn")
websockets_client = pytest.importorskip("websockets.sync.client")
from deploy_helpers import CADDY, DEPLOY, caddy_env, wait_listening  # noqa: E402
from table_helpers import Server, free_port  # noqa: E402
from websockets.exceptions import ConnectionClosed, InvalidStatus  # noqa: E402

from backalley.web.limits import CLOSE_LIMIT  # noqa: E402

OPENSSL = shutil.which("openssl")
CERTUTIL = shutil.which("certutil")
NAME = "table.test"

pytestmark = [pytest.mark.server]


def _self_signed(folder: Path, name: str = "127.0.0.1") -> tuple[Path, Path]:
    """A certificate for ``name`` (an IP address here) and its key, made by openssl."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            OPENSSL or "openssl",
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-days",
            "2",
            "-subj",
            f"/CN={name}",
            "-addext",
            f"subjectAltName=IP:{name}",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return cert, key


def _https(port, path, context, *, host=None, source="127.0.0.1", method="GET", body=None):
    """One HTTPS request to 127.0.0.1 ``port`` (SNI and Host ``host``), from ``source``."""
    raw = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
    connection = http.client.HTTPSConnection(host or "127.0.0.1", port, context=context)
    connection.sock = context.wrap_socket(raw, server_hostname=host or "127.0.0.1")
    headers = {"content-type": "application/x-www-form-urlencoded"} if body else {}
    connection.request(method, path, body=body, headers=headers)
    answer = connection.getresponse()
    data = answer.read()
    connection.close()
    return answer, data


def _wss(port, path, context, *, host, source="127.0.0.1", origin=None, headers=None):
    """A WebSocket over TLS to 127.0.0.1 ``port`` for ``host``, opened from ``source``."""
    raw = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
    return websockets_client.connect(
        f"wss://{host}{path}",
        sock=raw,
        ssl=context,
        server_hostname=host.split(":")[0],
        origin=origin,
        additional_headers=headers or {},
        proxy=None,
        open_timeout=10,
    )


def _new_friends_room(port, context, host=None, source="127.0.0.1"):
    answer, _ = _https(
        port,
        "/rooms",
        context,
        host=host,
        source=source,
        method="POST",
        body="mode=friends&schedule=short",
    )
    assert answer.status == 303
    return answer.getheader("location")


# --- HTTPS directly -------------------------------------------------------------------


@pytest.mark.skipif(OPENSSL is None, reason="needs the openssl command (Debian: openssl)")
def test_https_directly_with_a_certificate_and_its_key(tmp_path):
    cert, key = _self_signed(tmp_path)
    server = Server(
        tmp_path / "rooms.db",
        port=free_port(),
        flags=["--certfile", str(cert), "--keyfile", str(key)],
    )
    try:
        assert server.base.startswith("https://127.0.0.1:")
        context = ssl.create_default_context(cafile=str(cert))
        answer, page = _https(server.port, "/", context)
        assert answer.status == 200 and b"<html" in page.lower()
        location = _new_friends_room(server.port, context)
        assert location.startswith("/seat/")
        token = location.rsplit("/", 1)[-1]
        origin = f"https://127.0.0.1:{server.port}"
        with _wss(
            server.port, f"/ws/{token}", context, host=f"127.0.0.1:{server.port}", origin=origin
        ) as seat:
            seat.send(json.dumps({"type": "hello", "secret": None}))
            first = json.loads(seat.recv(timeout=10))
            assert first["type"] == "seat" and first["seat"] == "S" and first["secret"]
        # Plain http on the same port is no page: TLS is all it speaks.
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as plain:
            plain.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            assert not plain.recv(100).startswith(b"HTTP/1.1 200")
    finally:
        server.kill()


def _table_fails(tmp_path, *flags):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "backalley",
            "table",
            "--port",
            "0",
            "--db",
            str(tmp_path / "rooms.db"),
            *flags,
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    return done.stderr


@pytest.mark.skipif(OPENSSL is None, reason="needs the openssl command (Debian: openssl)")
def test_wrong_certificate_flags_are_one_sentence(tmp_path):
    cert, key = _self_signed(tmp_path)
    assert "both --certfile and --keyfile" in _table_fails(tmp_path, "--certfile", str(cert))
    said = _table_fails(tmp_path, "--certfile", str(tmp_path / "none.pem"), "--keyfile", str(key))
    assert "none.pem" in said and "No such file" in said
    said = _table_fails(tmp_path, "--certfile", str(key), "--keyfile", str(key))
    assert "not a certificate and its key in PEM" in said
    assert "--public-url" in _table_fails(tmp_path, "--public-url", "table.example")
    assert "--trusted-proxy" in _table_fails(tmp_path, "--trusted-proxy", "proxy.example")
    assert "--turn needs the secret" in _table_fails(tmp_path, "--turn", "turn:x:3478")


def _post_room(base, headers):
    request = urllib.request.Request(
        base + "/rooms", data=b"mode=friends&schedule=short", headers=headers, method="POST"
    )
    try:
        with _NO_REDIRECT.open(request, timeout=10) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code


class _Keep(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


_NO_REDIRECT = urllib.request.build_opener(_Keep)


def test_a_forged_forwarded_for_moves_no_limit_of_the_server(tmp_path):
    """uvicorn believes X-Forwarded-For from 127.0.0.1 by default: the table does not."""
    server = Server(tmp_path / "rooms.db", port=free_port(), flags=["--rooms-per-minute", "2"])
    try:
        codes = [_post_room(server.base, {"X-Forwarded-For": f"198.51.100.{n}"}) for n in range(4)]
        assert codes == [303, 303, 429, 429]
    finally:
        log = _log(server)
    assert "address 127.0.0.1: room refused" in log and "198.51.100" not in log
    trusted = Server(
        tmp_path / "rooms.db",
        port=free_port(),
        flags=["--rooms-per-minute", "1", "--trusted-proxy", "127.0.0.1"],
    )
    try:
        codes = [
            _post_room(trusted.base, {"X-Forwarded-For": f"198.51.100.{n}"}) for n in (1, 1, 2)
        ]
        assert codes == [303, 429, 303]
    finally:
        log = _log(trusted)
    assert "address 198.51.100.1: room refused" in log


def test_a_plain_http_public_url_is_served_with_a_note_about_voice(tmp_path):
    server = Server(
        tmp_path / "rooms.db", port=free_port(), flags=["--public-url", "http://table.example"]
    )
    try:
        note = server.process.stdout.readline()  # the line after the address
    finally:
        server.kill()
    assert note.startswith("Note: http://table.example is plain HTTP") and "microphone" in note


# --- behind Caddy ---------------------------------------------------------------------


class Caddy:
    """``caddy run`` on the shipped Caddyfile, for ``table.test`` in front of ``upstream``."""

    def __init__(self, folder: Path, upstream: int) -> None:
        self.folder = folder
        self.https_port = free_port()
        http_port = free_port()
        # Global options first (a Caddyfile has one such block), then the shipped site.
        config = folder / "Caddyfile"
        config.write_text(
            "{\n"
            "\tadmin off\n"
            "\tlocal_certs\n"
            "\tskip_install_trust\n"
            f"\thttp_port {http_port}\n"
            f"\thttps_port {self.https_port}\n"
            "\tdefault_bind 127.0.0.1\n"
            "}\n"
            f"import {DEPLOY / 'Caddyfile'}\n"
        )
        self.env = caddy_env(
            folder, BACKALLEY_SITE=NAME, BACKALLEY_UPSTREAM=f"127.0.0.1:{upstream}"
        )
        self.log = (folder / "caddy.log").open("wb")
        self.process = subprocess.Popen(
            [CADDY or "caddy", "run", "--config", str(config), "--adapter", "caddyfile"],
            env=self.env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        wait_listening(self.https_port, process=self.process)
        self.root = folder / "data" / "caddy" / "pki" / "authorities" / "local" / "root.crt"
        self.origin = f"https://{NAME}:{self.https_port}"
        self.context = ssl.create_default_context(cafile=str(self.root))

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self.log.close()


@pytest.fixture
def online(tmp_path):
    if CADDY is None:
        pytest.skip("needs Debian's caddy: apt-get install caddy")
    table_port = free_port()
    caddy = Caddy(tmp_path, table_port)
    server = Server(
        tmp_path / "rooms.db",
        port=table_port,
        flags=[
            "--public-url",
            caddy.origin,
            "--trusted-proxy",
            "127.0.0.1",
            "--sockets-per-address",
            "2",
        ],
    )
    try:
        yield caddy, server
    finally:
        server.kill()
        caddy.stop()


def _log(server: Server) -> str:
    server.kill()
    return server.process.stdout.read()


def test_behind_caddy_links_carry_the_public_origin_and_limits_see_the_visitor(online):
    caddy, server = online
    context = caddy.context
    answer, page = _https(caddy.https_port, "/", context, host=NAME)
    assert answer.status == 200 and b"<html" in page.lower()
    # The redirect to the host's seat is built from the public origin.
    location = _new_friends_room(caddy.https_port, context, host=NAME, source="127.0.0.2")
    assert location.startswith(caddy.origin + "/seat/")
    token = location.rsplit("/", 1)[-1]
    path = f"/ws/{token}"
    host = f"{NAME}:{caddy.https_port}"
    with contextlib.ExitStack() as opened:
        # Two sockets from 127.0.0.2 (open, their hello not yet said), each forging another
        # client: both count as 127.0.0.2.
        for forged in ("198.51.100.1", "198.51.100.2"):
            opened.enter_context(
                _wss(
                    caddy.https_port,
                    path,
                    context,
                    host=host,
                    source="127.0.0.2",
                    origin=caddy.origin,
                    headers={"X-Forwarded-For": forged, "Forwarded": f"for={forged}"},
                )
            )
        # A third from 127.0.0.2 is over its limit of 2, forged header or not.
        with _wss(
            caddy.https_port,
            path,
            context,
            host=host,
            source="127.0.0.2",
            origin=caddy.origin,
            headers={"X-Forwarded-For": "203.0.113.77", "Forwarded": "for=203.0.113.77"},
        ) as third:
            refusal = json.loads(third.recv(timeout=10))
            assert refusal["reason"] == "too_many_sockets"
            with pytest.raises(ConnectionClosed) as closed:
                third.recv(timeout=10)
            assert closed.value.rcvd.code == CLOSE_LIMIT
        # Another visitor (127.0.0.3) through the same proxy is not counted with them.
        with _wss(
            caddy.https_port, path, context, host=host, source="127.0.0.3", origin=caddy.origin
        ) as other:
            other.send(json.dumps({"type": "hello", "secret": None}))
            assert json.loads(other.recv(timeout=10))["type"] == "seat"
        # A page of another origin is refused before anything is read.
        with (
            pytest.raises(InvalidStatus) as refused,
            _wss(
                caddy.https_port,
                path,
                context,
                host=host,
                source="127.0.0.3",
                origin="https://evil.example",
            ),
        ):
            pass
        assert refused.value.response.status_code == 403
    log = _log(server)
    assert "address 127.0.0.2 has 2 sockets open" in log, log
    assert "198.51.100" not in log and "203.0.113.77" not in log
    assert "https://evil.example" in log


# --- Chromium through Caddy -----------------------------------------------------------


def _chromium_home(root: Path) -> str:
    """A home whose NSS database trusts Caddy's root: Chromium on Linux reads it there."""
    home = tempfile.mkdtemp(prefix="backalley-chromium-home-")
    database = Path(home) / ".pki" / "nssdb"
    database.mkdir(parents=True)
    subprocess.run(
        [CERTUTIL or "certutil", "-d", f"sql:{database}", "-N", "--empty-password"],
        check=True,
        capture_output=True,
        timeout=60,
    )
    subprocess.run(
        [
            CERTUTIL or "certutil",
            "-d",
            f"sql:{database}",
            "-A",
            "-t",
            "C,,",
            "-n",
            "caddy-local-root",
            "-i",
            str(root),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return home


@pytest.mark.browser
def test_chromium_plays_a_room_of_friends_through_caddy(online):
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service  # noqa: PLC0415
    from selenium.webdriver.common.by import By  # noqa: PLC0415
    from selenium.webdriver.support.ui import WebDriverWait  # noqa: PLC0415
    from test_table_browser import CHROMEDRIVER, CHROMIUM, FLAGS, WAIT  # noqa: PLC0415

    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        pytest.skip("needs the system chromium: apt-get install chromium chromium-driver")
    if CERTUTIL is None:
        pytest.skip("needs certutil to trust Caddy's root: apt-get install libnss3-tools")
    caddy, server = online
    homes, drivers = [], []

    def launch():
        home = _chromium_home(caddy.root)
        homes.append(home)
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in FLAGS:
            options.add_argument(flag)
        options.add_argument(f"--user-data-dir={home}/profile")
        options.add_argument(f"--host-resolver-rules=MAP {NAME} 127.0.0.1")
        options.add_argument("--window-size=1000,1300")
        service = Service(CHROMEDRIVER, env={"HOME": home, "PATH": "/usr/bin:/bin"})
        driver = webdriver.Chrome(service=service, options=options)
        drivers.append(driver)
        return driver

    try:
        host = launch()
        host.get(caddy.origin + "/")
        assert host.execute_script("return window.isSecureContext") is True
        host.find_element(By.ID, "friends-short").click()
        WebDriverWait(host, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#links input"))
        assert host.current_url.startswith(caddy.origin + "/seat/")
        links = [
            field.get_attribute("value")
            for field in host.find_elements(By.CSS_SELECTOR, "#links input")
        ]
        assert len(links) == 3 and all(link.startswith(caddy.origin + "/seat/") for link in links)
        guest = launch()
        guest.get(links[1])  # North, the host's partner
        WebDriverWait(guest, WAIT).until(
            lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-version")
        )
        # Computers at the two seats left; then each person bids once, over wss://.
        host.find_element(By.ID, "fill-heuristic").click()
        people = [host, guest]
        moved = set()
        for _ in range(12):
            for driver in people:
                WebDriverWait(driver, WAIT).until(
                    lambda d: len(d.find_elements(By.CSS_SELECTOR, "#hand button")) == 7
                )
            WebDriverWait(host, WAIT).until(
                lambda d: any(
                    "my-turn" in p.find_element(By.TAG_NAME, "body").get_attribute("class")
                    for p in people
                )
            )
            mover = next(
                p
                for p in people
                if "my-turn" in p.find_element(By.TAG_NAME, "body").get_attribute("class")
            )
            before = mover.find_element(By.TAG_NAME, "body").get_attribute("data-version")
            mover.find_elements(By.CSS_SELECTOR, "#bids button")[1].click()
            WebDriverWait(mover, WAIT).until(
                lambda d, b=before: (
                    d.find_element(By.TAG_NAME, "body").get_attribute("data-version") != b
                )
            )
            moved.add(id(mover))
            if len(moved) == 2:
                break
        assert len(moved) == 2
        for driver in people:
            assert driver.execute_script(
                "return performance.getEntriesByType('navigation')[0].name"
            ).startswith(caddy.origin)
    finally:
        for driver in drivers:
            driver.quit()
        for home in homes:
            shutil.rmtree(home, ignore_errors=True)
    log = _log(server)
    assert "Traceback" not in log
