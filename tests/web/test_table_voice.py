"""Chat and voice between two Chromium pages of a room of friends.

Voice is WebRTC audio from Chromium's fake microphone
(``--use-fake-device-for-media-stream``, its permission granted by
``--use-fake-ui-for-media-stream``), every packet on loopback: Chromium's
``--allow-loopback-in-peer-connection``, and the pages pass each other only their
127.0.0.1 candidates (``data-voice-only``), with no STUN server. The server carries
the offer and the answer over the room's own sockets.

Through a relay: Debian's coturn on loopback, on the shipped ``deploy/turnserver.conf``
(this test's port and secret put in, loopback peers allowed), the table started with
``--turn``; both pages forced to relay (``iceTransportPolicy: "relay"``, by
``data-voice-policy``) connect and receive audio through it with the credentials the
table made, and after the server is killed and started again their voice comes back
by itself (new connections made). And the page says why voice cannot start: a plain
HTTP page under a name, a microphone permission refused.
"""

from __future__ import annotations

import socket
import subprocess

import pytest

pytest.importorskip("uvicorn")
pytest.importorskip("selenium.webdriver")

from deploy_helpers import TURNSERVER, free_udp_port, turn_config, wait_listening
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait
from table_helpers import Server, free_port
from test_table_browser import WAIT, browsers, server, shots

pytestmark = [pytest.mark.browser]
__all__ = ["browsers", "server", "shots"]  # fixtures, used by name

MEDIA = (
    "--use-fake-device-for-media-stream",
    "--use-fake-ui-for-media-stream",
    "--allow-loopback-in-peer-connection",
    "--autoplay-policy=no-user-gesture-required",
)


def _local(address):
    """Whether ``address`` is one of this machine's own (a socket can be bound to it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.bind((address, 0))
        except OSError:
            return False
    return True


def _voice(driver):
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1]; window.backalleyVoice().then(done);"
    )


def _chat_lines(driver):
    return [
        (li.get_attribute("data-seat"), li.text)
        for li in driver.find_elements(By.CSS_SELECTOR, "#chat-lines li")
    ]


def test_two_friends_chat_and_talk_over_loopback(server, browsers, shots):
    """Chat with names, escaped, kept over a reload; voice on both sides, connected, muted."""
    host = browsers(1280, 900, extra=MEDIA)
    host.get(server.base + "/")
    host.find_element(By.ID, "friends-short").click()
    WebDriverWait(host, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#links input"))
    link = host.find_element(By.CSS_SELECTOR, '#links li[data-seat="N"] input').get_attribute(
        "value"
    )
    guest = browsers(1000, 1000, extra=MEDIA)
    guest.get(link)
    for driver in (host, guest):
        WebDriverWait(driver, WAIT).until(lambda d: d.find_element(By.ID, "talk").is_displayed())
        # Voice is off, and nothing has asked for the microphone.
        assert driver.find_element(By.ID, "voice-on").get_attribute("aria-pressed") == "false"
        assert not driver.find_element(By.ID, "voice-mute").is_displayed()
    hostile = '<img src=x onerror="document.title=1"> hello & welcome'
    field = host.find_element(By.ID, "chat-text")
    field.send_keys(hostile, Keys.ENTER)
    expected = [("S", f"South (host): {hostile}")]
    for driver in (host, guest):
        WebDriverWait(driver, WAIT).until(lambda d: _chat_lines(d) == expected)
        assert driver.find_elements(By.CSS_SELECTOR, "#chat-lines img") == []
    guest.find_element(By.ID, "chat-text").send_keys("Hi partner", Keys.ENTER)
    WebDriverWait(host, WAIT).until(lambda d: len(_chat_lines(d)) == 2)
    assert _chat_lines(host)[1] == ("N", "North (guest 2): Hi partner")
    # A reload shows the chat again: it is kept with the room.
    guest.refresh()
    WebDriverWait(guest, WAIT).until(lambda d: len(_chat_lines(d)) == 2)
    assert host.title != "1" and guest.title != "1"
    # Voice, opted into on both pages; only loopback candidates exchanged.
    for driver in (host, guest):
        driver.execute_script("document.body.dataset.voiceOnly = '127.0.0.1'")
        driver.find_element(By.ID, "voice-on").click()
        WebDriverWait(driver, WAIT).until(
            lambda d: d.find_element(By.ID, "voice-on").get_attribute("aria-pressed") == "true"
        )

    def connected(driver, seat):
        found = _voice(driver).get(seat)
        # The chosen candidate pair can show in a later report than the first packets.
        if found and found["state"] == "connected" and found["packets"] > 0:
            return found if found["localType"] is not None else None
        return None

    WebDriverWait(host, WAIT).until(lambda d: connected(d, "N"))
    WebDriverWait(guest, WAIT).until(lambda d: connected(d, "S"))
    remotes = []
    for driver, other in ((host, "N"), (guest, "S")):
        pair = connected(driver, other)
        # The other page's only candidate is 127.0.0.1. Its checks may come from another
        # address of the same machine (a peer-reflexive candidate, whose address the
        # browser hides): between two addresses of one machine, traffic stays on loopback.
        assert pair["remote"] == "127.0.0.1" or (
            pair["remote"] is None and pair["remoteType"] == "prflx"
        )
        assert pair["local"] is None or _local(pair["local"])
        remotes.append(pair["remote"])
        assert len(driver.find_elements(By.CSS_SELECTOR, "#voice-audio audio")) == 1
    assert "127.0.0.1" in remotes
    assert "North" in host.find_element(By.ID, "voice-who").text
    mute = host.find_element(By.ID, "voice-mute")
    mute.click()
    assert mute.get_attribute("aria-pressed") == "true" and mute.text == "Unmute"
    assert host.execute_script(
        "return document.querySelector('#voice-audio') !== null"
        " && navigator.mediaDevices !== undefined"
    )
    host.save_screenshot(str(shots / "friends.png"))
    # Voice off on one side: the other is told, and its connection closes.
    guest.find_element(By.ID, "voice-on").click()
    WebDriverWait(host, WAIT).until(lambda d: _voice(d) == {})
    assert host.get_log("browser") == [] and guest.get_log("browser") == []


# --- through a TURN relay, and back after a restart ---------------------------------------


@pytest.fixture
def coturn(tmp_path):
    """Debian's coturn on 127.0.0.1 with the shipped configuration; its port and secret."""
    if TURNSERVER is None:
        pytest.skip("needs coturn: apt-get install coturn")
    port = free_udp_port()
    secret = "voice-test-secret"
    # Both relayed ends are on this machine: the test lets coturn relay between them.
    # Verbose: each allocation is logged with its username, which the test reads.
    config = turn_config(
        tmp_path, port=port, secret=secret, **{"allow-loopback-peers": "", "verbose": ""}
    )
    process = subprocess.Popen(
        [TURNSERVER, "-c", str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_listening(port, udp=True, process=process)
        yield port, secret, tmp_path
    finally:
        process.terminate()
        process.wait(timeout=10)


def _reconnects(driver):
    return int(driver.find_element(By.TAG_NAME, "body").get_attribute("data-reconnects") or 0)


def _peers(driver):
    """The voice connections the page has made so far."""
    return int(driver.find_element(By.TAG_NAME, "body").get_attribute("data-voice-peers") or 0)


def _turn_log(folder):
    return "".join(path.read_text(errors="replace") for path in folder.glob("turn*.log"))


def test_voice_through_a_turn_relay_and_back_after_the_server_restarts(coturn, browsers, tmp_path):
    """Two pages forced to relay talk through coturn, with the credentials the table made;
    the server killed and started again, the pages' voice comes back by itself."""
    port, secret, folder = coturn
    (folder / "secret").write_text(secret + "\n")
    flags = ["--turn", f"turn:127.0.0.1:{port}", "--turn-secret-file", str(folder / "secret")]
    table_port = free_port()
    running = Server(tmp_path / "rooms.db", port=table_port, flags=flags)
    try:
        host = browsers(1000, 900, extra=MEDIA)
        host.get(running.base + "/")
        host.find_element(By.ID, "friends-short").click()
        WebDriverWait(host, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#links input"))
        link = host.find_element(By.CSS_SELECTOR, '#links li[data-seat="N"] input').get_attribute(
            "value"
        )
        guest = browsers(1000, 900, extra=MEDIA)
        guest.get(link)
        for driver in (host, guest):
            WebDriverWait(driver, WAIT).until(
                lambda d: d.find_element(By.ID, "talk").is_displayed()
            )
            driver.execute_script("document.body.dataset.voicePolicy = 'relay'")
            driver.find_element(By.ID, "voice-on").click()

        def relayed(driver, seat):
            found = _voice(driver).get(seat)
            # The chosen candidate pair can show in a later report than the first packets.
            if (
                found
                and found["state"] == "connected"
                and found["packets"] > 0
                and found["localType"] is not None
            ):
                return found
            return None

        for driver, other in ((host, "N"), (guest, "S")):
            pair = WebDriverWait(driver, WAIT).until(lambda d, o=other: relayed(d, o))
            # Relay only: this side's candidate is coturn's, on loopback.
            assert pair["localType"] == "relay" and pair["local"] in (None, "127.0.0.1")
        log = _turn_log(folder)
        # coturn checked the table's credentials (username "<expiry>:<room>-<seat>").
        assert "-S>" in log and "-N>" in log, log[-3000:]

        # The server killed and started again: both pages reconnect and say voice on again,
        # and new connections are made (the server forgot who had voice on).
        made = {driver: _peers(driver) for driver in (host, guest)}
        running.kill()
        running = Server(tmp_path / "rooms.db", port=table_port, flags=flags)
        for driver in (host, guest):
            WebDriverWait(driver, WAIT).until(
                lambda d: (
                    int(d.find_element(By.TAG_NAME, "body").get_attribute("data-reconnects") or 0)
                    >= 1
                )
            )
        for driver, other in ((host, "N"), (guest, "S")):
            WebDriverWait(driver, WAIT).until(
                lambda d, o=other: _peers(d) > made[d] and relayed(d, o)
            )
            assert driver.find_element(By.ID, "voice-on").get_attribute("aria-pressed") == "true"
        assert "North" in host.find_element(By.ID, "voice-who").text
        assert "South" in guest.find_element(By.ID, "voice-who").text
    finally:
        running.kill()


def test_the_page_says_why_voice_cannot_start(server, browsers):
    """Over plain HTTP under a name (not this machine's own) the page says voice needs
    HTTPS; with the microphone refused it says the permission was refused."""
    # The host opens the table as friends elsewhere would over plain HTTP: by a name.
    host = browsers(1000, 900, extra=(*MEDIA, "--host-resolver-rules=MAP table.test 127.0.0.1"))
    host.get(f"http://table.test:{server.port}/")
    host.find_element(By.ID, "friends-short").click()
    WebDriverWait(host, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#links input"))
    assert host.execute_script("return window.isSecureContext") is False
    WebDriverWait(host, WAIT).until(lambda d: d.find_element(By.ID, "talk").is_displayed())
    said = host.find_element(By.ID, "voice-who").text
    assert "Voice needs a secure page" in said and "HTTPS" in said
    host.find_element(By.ID, "voice-on").click()
    assert host.find_element(By.TAG_NAME, "body").get_attribute("data-voice-problem") == "insecure"
    assert host.find_element(By.ID, "voice-on").get_attribute("aria-pressed") == "false"
    assert "did not allow" not in host.find_element(By.ID, "voice-who").text
    link = host.find_element(By.CSS_SELECTOR, '#links li[data-seat="N"] input').get_attribute(
        "value"
    )
    # A guest on a secure page (this machine's own address) whose browser refuses the
    # microphone: a permission refused, said as such.
    guest = browsers(
        1000,
        900,
        extra=("--use-fake-device-for-media-stream", "--deny-permission-prompts"),
    )
    guest.get(link.replace("table.test", "127.0.0.1"))
    WebDriverWait(guest, WAIT).until(lambda d: d.find_element(By.ID, "talk").is_displayed())
    assert guest.execute_script("return window.isSecureContext") is True
    assert guest.find_element(By.ID, "voice-who").text == ""
    guest.find_element(By.ID, "voice-on").click()
    WebDriverWait(guest, WAIT).until(
        lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-voice-problem")
    )
    assert (
        guest.find_element(By.TAG_NAME, "body").get_attribute("data-voice-problem")
        == "NotAllowedError"
    )
    assert "permission was refused" in guest.find_element(By.ID, "voice-who").text
    assert guest.find_element(By.ID, "voice-on").get_attribute("aria-pressed") == "false"
