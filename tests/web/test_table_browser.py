"""The table in a real browser: the system's headless Chromium, driven by Selenium.

Chromium and its driver are Debian's packages (``chromium``, ``chromium-driver``);
Selenium is pointed at ``/usr/bin/chromedriver`` so that it downloads nothing. The
screenshots go to ``$BACKALLEY_SCREENSHOTS`` if set (``docs/pictures/table`` holds the
ones ``docs/table.md`` shows), else to the test's temporary folder.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("uvicorn")
webdriver = pytest.importorskip("selenium.webdriver")

from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402
from table_helpers import Server, free_port  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
WAIT = 30
"""Seconds any one thing may take to appear on the page."""

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()),
        reason="needs the system chromium: apt-get install chromium chromium-driver",
    ),
]


@pytest.fixture
def shots(tmp_path):
    folder = Path(os.environ.get("BACKALLEY_SCREENSHOTS", tmp_path / "shots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def browsers():
    made = []
    homes = []

    def launch(width=1280, height=900, extra=()):
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in (*FLAGS, *extra):
            options.add_argument(flag)
        home = tempfile.mkdtemp(prefix="backalley-chromium-")
        homes.append(home)
        options.add_argument(f"--user-data-dir={home}")
        options.add_argument(f"--window-size={width},{height}")
        driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        made.append(driver)
        # The page's own size, exact (a window's size includes its frame): 1280 x 900 on
        # a desk, 390 x 844 for a phone (a window is never narrower than 500 px).
        driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600},
        )
        return driver

    yield launch
    for driver in made:
        driver.quit()
    for home in homes:
        shutil.rmtree(home, ignore_errors=True)


@pytest.fixture
def server(tmp_path):
    running = Server(tmp_path / "rooms.db", port=free_port())
    yield running
    running.kill()


def _version(driver) -> int:
    value = driver.find_element(By.TAG_NAME, "body").get_attribute("data-version")
    return -1 if value in (None, "") else int(value)


def _wait_turn_or_end(driver):
    WebDriverWait(driver, WAIT).until(
        lambda d: (
            "my-turn" in d.find_element(By.TAG_NAME, "body").get_attribute("class")
            or not d.find_element(By.ID, "result").get_attribute("hidden")
        )
    )


def press_card(driver, card):
    """Press a card of the hand where a person would: its corner, always in sight in the
    fan (the next card covers the rest of it)."""
    # A card still flying in (the deal) or a trick being swept is not where it lands:
    # press once the table is still, as a person would.
    WebDriverWait(driver, WAIT).until(
        lambda d: d.execute_script(
            "return document.getAnimations().every((a) => a.playState !== 'running')"
        )
    )
    width = card.rect["width"]
    ActionChains(driver).move_to_element_with_offset(card, -width / 2 + 8, 0).click().perform()


def _my_move(driver, *, bid_index=1):
    """Bid (not a pass, so that deals are not thrown in) or play the first ringed card."""
    before = _version(driver)
    bids = driver.find_elements(By.CSS_SELECTOR, "#bids button")
    if bids:
        bids[min(bid_index, len(bids) - 1)].click()
    else:
        press_card(driver, driver.find_element(By.CSS_SELECTOR, "#hand button.legal"))
    WebDriverWait(driver, WAIT).until(lambda d: _version(d) > before)


def _over(driver) -> bool:
    return driver.find_element(By.ID, "result").get_attribute("hidden") is None


def _start_computer_game(driver, server, button="computer-short"):
    driver.get(server.base + "/")
    driver.find_element(By.ID, button).click()
    WebDriverWait(driver, WAIT).until(lambda d: "/seat/" in d.current_url)
    _wait_turn_or_end(driver)


def test_a_whole_short_match_against_the_computer(server, browsers, shots, tmp_path):
    """Lobby to result through the page; the downloaded record passes backalley check."""
    driver = browsers()
    driver.get(server.base + "/")
    driver.save_screenshot(str(shots / "lobby.png"))
    _start_computer_game(driver, server)
    status = driver.find_element(By.ID, "status").text
    assert status == "Your turn to bid."
    assert driver.find_element(By.ID, "trump").text.endswith(("are trumps.", "No trumps."))
    driver.save_screenshot(str(shots / "bidding.png"))
    played_screenshot = False
    for _ in range(400):
        if _over(driver):
            break
        if not played_screenshot and driver.find_elements(By.CSS_SELECTOR, "#hand button.dimmed"):
            time.sleep(0.5)  # the card just played has slid in: the picture shows it still
            driver.save_screenshot(str(shots / "playing.png"))
            played_screenshot = True
        _my_move(driver)
        _wait_turn_or_end(driver)
    assert _over(driver)
    assert driver.find_element(By.ID, "status").text.startswith("Match over:")
    rows = driver.find_elements(By.CSS_SELECTOR, "#sheet tbody tr")
    assert len(rows) >= 14
    driver.save_screenshot(str(shots / "result.png"))
    link = driver.find_element(By.ID, "record").get_attribute("href")
    record = tmp_path / "record.json"
    with urllib.request.urlopen(link) as answer:
        record.write_bytes(answer.read())
    checked = subprocess.run(
        [sys.executable, "-m", "backalley", "check", "--complete", str(record)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "valid: a complete match, 14 deals" in checked.stdout
    # The result offers the match's analysis: made in a worker, shown deal by deal.
    driver.find_element(By.ID, "analysis").click()
    WebDriverWait(driver, 120).until(
        lambda d: d.find_element(By.ID, "analysis-status").text.startswith("Analysed:")
    )
    labels = ".analysis-deal .deal-label"
    headings = [h.text for h in driver.find_elements(By.CSS_SELECTOR, labels)]
    # Each deal played, numbered as at the table (the thrown-in ones folded away).
    assert headings[:2] == ["Deal 1 of 14", "Deal 2 of 14"] and len(headings) >= 14
    assert all("of 14" in h or h == "Tiebreak deal" for h in headings)
    assert len(driver.find_elements(By.CSS_SELECTOR, ".analysis-deal .deal-picture svg")) >= 14
    assert driver.find_elements(By.CSS_SELECTOR, ".analysis-tricks")
    driver.save_screenshot(str(shots / "analysis.png"))


def test_a_dimmed_card_pressed_says_why_in_the_engines_words(server, browsers, shots):
    """Press a card that may not be played: the engine's sentence appears; nothing changes."""
    driver = browsers()
    _start_computer_game(driver, server)
    for _ in range(200):
        dimmed = driver.find_elements(By.CSS_SELECTOR, "#hand button.dimmed")
        if dimmed:
            break
        _my_move(driver)
        _wait_turn_or_end(driver)
    else:
        pytest.fail("no dimmed card in 200 moves")
    before = _version(driver)
    press_card(driver, dimmed[0])
    WebDriverWait(driver, WAIT).until(lambda d: d.find_element(By.ID, "notice").text)
    reason = driver.find_element(By.TAG_NAME, "body").get_attribute("data-refused")
    sentence = driver.find_element(By.ID, "notice").text
    sentences = {
        "must_follow_suit": "follow suit",
        "must_follow_trump": "trump",
        "trumps_not_broken": "Trumps are not broken",
        "big_joker_forces_highest": "highest",
        "little_joker_forces_lowest": "lowest",
    }
    assert reason in sentences and sentences[reason] in sentence, (reason, sentence)
    assert _version(driver) == before
    driver.save_screenshot(str(shots / "refused.png"))


def test_keyboard_play_and_a_reload_mid_match(server, browsers):
    """Bid and play with the keyboard; a reloaded tab is back at its seat, same position."""
    driver = browsers()
    _start_computer_game(driver, server)
    body = driver.find_element(By.TAG_NAME, "body")
    before = _version(driver)
    body.send_keys("1")  # focuses the bid 1
    driver.switch_to.active_element.send_keys(Keys.ENTER)
    WebDriverWait(driver, WAIT).until(lambda d: _version(d) > before)
    _wait_turn_or_end(driver)
    while driver.find_elements(By.CSS_SELECTOR, "#bids button"):
        _my_move(driver)
        _wait_turn_or_end(driver)
    hand = [
        b.get_attribute("data-code") for b in driver.find_elements(By.CSS_SELECTOR, "#hand button")
    ]
    version = _version(driver)
    driver.refresh()
    WebDriverWait(driver, WAIT).until(lambda d: _version(d) == version)
    again = [
        b.get_attribute("data-code") for b in driver.find_elements(By.CSS_SELECTOR, "#hand button")
    ]
    assert again == hand
    body = driver.find_element(By.TAG_NAME, "body")
    body.send_keys("h")  # the first ringed card
    focused = driver.switch_to.active_element
    assert "legal" in focused.get_attribute("class")
    focused.send_keys(Keys.ENTER)
    WebDriverWait(driver, WAIT).until(lambda d: _version(d) > version)


def test_the_server_killed_and_restarted_mid_match(server, browsers, tmp_path):
    """SIGKILL mid-match; started again on the same database and port, the page reconnects."""
    driver = browsers()
    _start_computer_game(driver, server)
    for _ in range(3):
        _my_move(driver)
        _wait_turn_or_end(driver)
    version = _version(driver)
    hand = [
        b.get_attribute("data-code") for b in driver.find_elements(By.CSS_SELECTOR, "#hand button")
    ]
    server.kill()
    WebDriverWait(driver, WAIT).until(
        lambda d: "reconnecting" in d.find_element(By.ID, "status").text
    )
    again = Server(tmp_path / "rooms.db", port=server.port)
    try:
        WebDriverWait(driver, WAIT).until(
            lambda d: (
                d.find_element(By.ID, "status").text == "Your turn to bid."
                or d.find_element(By.ID, "status").text == "Your turn to play."
            )
        )
        assert _version(driver) == version
        assert [
            b.get_attribute("data-code")
            for b in driver.find_elements(By.CSS_SELECTOR, "#hand button")
        ] == hand
        _my_move(driver)
    finally:
        again.kill()


def test_a_room_of_four_browsers(server, browsers, shots):
    """The host sends three links; four browsers play the first deal, each its own hand."""
    host = browsers()
    host.get(server.base + "/")
    host.find_element(By.ID, "friends-short").click()
    WebDriverWait(host, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#links input"))
    host.save_screenshot(str(shots / "host-links.png"))
    links = [
        field.get_attribute("value")
        for field in host.find_elements(By.CSS_SELECTOR, "#links input")
    ]
    assert len(links) == 3 and all(link.startswith(server.base + "/seat/") for link in links)
    guests = []
    for number, link in enumerate(links):
        # One of them on a phone-sized screen: the table must be usable there too.
        guest = browsers(390, 844) if number == 0 else browsers()
        if number == 0:
            # A window is never narrower than 500 px: the phone's width is emulated.
            guest.execute_cdp_cmd(
                "Emulation.setDeviceMetricsOverride",
                {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True},
            )
        guest.get(link)
        guests.append(guest)
    everyone = [host, *guests]
    WebDriverWait(host, WAIT).until(
        lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-phase") == "bid"
    )
    hands = []
    for driver in everyone:
        WebDriverWait(driver, WAIT).until(
            lambda d: len(d.find_elements(By.CSS_SELECTOR, "#hand button")) == 7
        )
        hands.append(
            {
                b.get_attribute("data-code")
                for b in driver.find_elements(By.CSS_SELECTOR, "#hand button")
            }
        )
    assert len(set().union(*hands)) == 28  # four different hands, no card twice
    for _ in range(4 + 28):
        version = max(_version(d) for d in everyone)
        for driver in everyone:
            WebDriverWait(driver, WAIT).until(lambda d, v=version: _version(d) >= v)
        movers = [
            d
            for d in everyone
            if "my-turn" in d.find_element(By.TAG_NAME, "body").get_attribute("class")
        ]
        if not movers:
            break
        assert len(movers) == 1
        if movers[0] is guests[0] and movers[0].find_elements(
            By.CSS_SELECTOR, "#hand button.dimmed"
        ):
            guests[0].save_screenshot(str(shots / "small-screen.png"))
        _my_move(movers[0])
    for driver in everyone:
        WebDriverWait(driver, WAIT).until(
            lambda d: len(d.find_elements(By.CSS_SELECTOR, "#sheet tbody tr td")) == 9
        )
        assert "Deal 1" in driver.find_element(By.ID, "last-sentence").text


_HAND = "return Array.from(document.querySelectorAll('#hand button'), b => b.dataset.code);"
"""The codes of the hand's cards, read in one step (the page may redraw meanwhile)."""


def test_a_claimed_seat_stays_its_browsers_and_the_page_reconnects_when_cut(browsers, tmp_path):
    """The seat's page, cut by the server (idle, 4411), reconnects to the same table; a
    second browser opening the same link gets no hand, only the sentence why."""
    server = Server(tmp_path / "rooms.db", port=free_port(), flags=["--idle", "1"])
    try:
        driver = browsers()
        _start_computer_game(driver, server)
        _my_move(driver)
        _wait_turn_or_end(driver)
        version = _version(driver)
        hand = driver.execute_script(_HAND)
        # Idle past the limit: the server closes the socket; the page opens it again.
        WebDriverWait(driver, WAIT).until(
            lambda d: (
                int(d.find_element(By.TAG_NAME, "body").get_attribute("data-reconnects") or 0) >= 1
            )
        )
        WebDriverWait(driver, WAIT).until(
            lambda d: d.find_element(By.ID, "status").text.startswith("Your turn")
        )
        assert _version(driver) == version
        assert driver.execute_script(_HAND) == hand
        other = browsers()
        other.get(driver.current_url)
        # A page that is not a table says so, once: no felt, no hand, the sentence once.
        WebDriverWait(other, WAIT).until(lambda d: d.find_elements(By.ID, "gone-text"))
        sentence = other.find_element(By.ID, "gone-text").text
        assert "already taken" in sentence
        WebDriverWait(other, WAIT).until(
            lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-closed") == "4403"
        )
        assert other.find_element(By.TAG_NAME, "body").text.count(sentence) == 1
        assert other.find_elements(By.CSS_SELECTOR, ".felt, #hand") == []
        assert other.find_element(By.CSS_SELECTOR, '#gone a[href="/"]')
        assert driver.execute_script(_HAND) == hand  # the seat's own page: its hand still
    finally:
        server.kill()


# The page's socket, wrapped before its script runs: what it sends is kept, and the first
# change after its first action is lost on the way (as if a frame went missing).
_LOSE_A_CHANGE = """
(() => {
  const Native = window.WebSocket;
  window.__sent = [];
  window.__lose = false;
  window.__lost = null;
  window.WebSocket = class extends Native {
    set onmessage(handler) {
      super.onmessage = (event) => {
        const message = JSON.parse(event.data);
        if (message.type === "change" && window.__lose) {
          window.__lose = false;
          window.__lost = message.frame;
          return;
        }
        handler(event);
      };
    }
    get onmessage() { return super.onmessage; }
    send(data) {
      const message = JSON.parse(data);
      if (message.type === "act" && window.__lost === null) window.__lose = true;
      window.__sent.push(message);
      return super.send(data);
    }
  };
})();
"""


def _drawn(driver) -> dict:
    """What the page shows of the table: the hand, the status, the deal, the seats (the
    trick in the middle is left out: a trick just won stays on it a moment, drawn by time)."""
    return driver.execute_script(
        """
        const text = (id) => document.getElementById(id).textContent;
        return {
          hand: [...document.querySelectorAll('#hand button')].map((b) => b.dataset.code),
          status: text('status'), deal: text('deal-line'),
          seats: ['pos-top', 'pos-left', 'pos-right', 'pos-bottom'].map(text),
          version: document.body.dataset.version,
        };
        """
    )


def test_a_change_lost_on_the_way_makes_the_page_ask_for_the_whole_frame(tmp_path, browsers):
    """The first change after the page's action never reaches it: the next one does not
    follow the frame it holds, so the page asks for the whole frame (``resync``, naming
    the frame it holds), draws it, and plays on; reloaded (a whole frame from scratch),
    it shows the same table."""
    # The computers a little apart, so that each of their actions is a change of its own.
    server = Server(tmp_path / "rooms.db", port=free_port(), pace=0.3)
    try:
        driver = browsers()
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": _LOSE_A_CHANGE})
        _start_computer_game(driver, server)
        _my_move(driver)
        WebDriverWait(driver, WAIT).until(
            lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-resyncs") == "1"
        )
        lost = driver.execute_script("return window.__lost")
        asked = driver.execute_script("return window.__sent.filter((m) => m.type === 'resync')")
        assert isinstance(lost, int) and asked == [{"type": "resync", "frame": lost - 1}]
        _wait_turn_or_end(driver)
        if not _over(driver):
            _my_move(driver)
            _wait_turn_or_end(driver)
        shown = _drawn(driver)
        driver.refresh()
        WebDriverWait(driver, WAIT).until(lambda d: _drawn(d)["version"] == shown["version"])
        assert _drawn(driver) == shown
    finally:
        server.kill()
