"""Chat and voice between two Chromium pages of a room of friends.

Voice is WebRTC audio from Chromium's fake microphone
(``--use-fake-device-for-media-stream``, its permission granted by
``--use-fake-ui-for-media-stream``), every packet on loopback: Chromium's
``--allow-loopback-in-peer-connection``, and the pages pass each other only their
127.0.0.1 candidates (``data-voice-only``), with no STUN server. The server carries
the offer and the answer over the room's own sockets.
"""

from __future__ import annotations

import socket

import pytest

pytest.importorskip("uvicorn")
pytest.importorskip("selenium.webdriver")

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait
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
        return found if found and found["state"] == "connected" and found["packets"] > 0 else None

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
