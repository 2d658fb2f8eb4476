"""The card table in a real browser: the how-to page walked to its end, the table's look.

Headless Chromium through Selenium, as ``test_table_browser.py`` (its fixtures). The
phone checks set the viewport to 390 × 844 and the desktop ones to 1280 × 900 through
Chromium's own device emulation, so that the sizes are exact whatever the window.
"""

from __future__ import annotations

import time
import urllib.request

import pytest

pytest.importorskip("uvicorn")
pytest.importorskip("selenium.webdriver")

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait
from test_table_browser import (
    WAIT,
    _my_move,
    _over,
    _version,
    _wait_turn_or_end,
    browsers,
    server,
    shots,
)

from backalley.web.howto import MOMENTS, howto_steps

pytestmark = [pytest.mark.browser]
__all__ = ["browsers", "server", "shots"]  # fixtures, used by name


def _viewport(driver, width, height, *, reduced_motion=False):
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600},
    )
    motion = "reduce" if reduced_motion else "no-preference"
    driver.execute_cdp_cmd(
        "Emulation.setEmulatedMedia",
        {"features": [{"name": "prefers-reduced-motion", "value": motion}]},
    )


def _body(driver, name):
    return driver.find_element(By.TAG_NAME, "body").get_attribute(name)


def _step(driver):
    value = _body(driver, "data-step")
    return -1 if value in (None, "") else int(value)


def _faceless(driver, selector):
    """Cards drawn without their picture: no face from the sprite, or one of no size."""
    return driver.execute_script(
        """
        const found = [];
        document.querySelectorAll(arguments[0]).forEach((card) => {
          const use = card.querySelector('svg.face use');
          const href = use ? use.getAttribute('href') : '';
          const box = use ? use.getBoundingClientRect() : null;
          if (!href.startsWith('/static/cards.svg#') || !box || box.width < 20 || box.height < 28)
            found.push(card.getAttribute('aria-label') + ': ' + href);
        });
        return found;
        """,
        selector,
    )


def test_the_howto_page_walks_a_deal_to_its_score(server, browsers, shots):
    """From the lobby's link: next to the end, every moment told, back, then autoplay."""
    steps = howto_steps()
    driver = browsers()
    _viewport(driver, 1280, 900)
    driver.get(server.base + "/")
    driver.find_element(By.ID, "howto-link").click()
    WebDriverWait(driver, WAIT).until(lambda d: _step(d) == 0)
    assert driver.find_element(By.ID, "howto-back").get_attribute("disabled") == "true"
    seen = set()
    texts = []
    for index in range(len(steps)):
        assert _step(driver) == index
        seen.update(_body(driver, "data-kinds").split())
        texts.append(driver.find_element(By.ID, "howto-text").text)
        assert texts[-1] == "\n".join(steps[index]["sentences"])
        frame = steps[index]["frame"]
        # The other hands as backs, as many as each holds; the trick placed by seat.
        for place, seat in (("top", "N"), ("left", "W"), ("right", "E")):
            backs = driver.find_elements(By.CSS_SELECTOR, f"#pos-{place} .back")
            assert len(backs) == frame["held"].get(seat, 0)
        played = driver.find_elements(By.CSS_SELECTOR, "#trick .played")
        if frame["trick"]:
            assert [p.get_attribute("data-seat") for p in played] == [
                c["seat"] for c in frame["trick"]
            ]
        elif frame["last_trick"] and frame["last_trick"]["current"]:
            # A finished trick stays on the table, its winner marked, until the next lead.
            assert len(played) == 4
            winner = driver.find_element(By.CSS_SELECTOR, "#trick .played.winner")
            assert winner.get_attribute("data-seat") == frame["last_trick"]["winner"]
        if "blooper_led" in steps[index]["kinds"] and not _body(driver, "data-shot-done"):
            time.sleep(0.5)  # the card's slide in is over: the picture shows it still
            driver.save_screenshot(str(shots / "howto.png"))
            driver.execute_script("document.body.dataset.shotDone = '1'")
        if index == 1:
            # The turned card is drawn, with the trump in words.
            turned = driver.find_element(By.CSS_SELECTOR, "#turned .card")
            assert turned.get_attribute("aria-label") == frame["turned"]["words"]
            assert driver.find_element(By.ID, "turned").text.endswith(frame["trump_words"])
        if "refused" in steps[index]["kinds"]:
            refused = driver.find_element(By.CSS_SELECTOR, "#hand button.refused")
            assert refused.get_attribute("data-code") == frame["refused"]["code"]
            assert driver.find_element(By.ID, "notice").text == frame["refused"]["message"]
        if index < len(steps) - 1:
            driver.find_element(By.ID, "howto-next").click()
            WebDriverWait(driver, WAIT).until(lambda d, i=index: _step(d) == i + 1)
    assert seen >= set(MOMENTS)
    assert driver.find_element(By.ID, "howto-next").get_attribute("disabled") == "true"
    assert driver.find_element(By.ID, "howto-end").is_displayed()
    # No dead end: every link in sight goes somewhere that answers.
    shown = [
        link.get_attribute("href")
        for link in driver.find_elements(By.CSS_SELECTOR, "a[href]")
        if link.is_displayed()
    ]
    assert shown and all(href.startswith(server.base) for href in shown), shown
    for href in set(shown):
        assert not href.endswith("#"), href
        with urllib.request.urlopen(href) as answer:
            assert answer.status == 200, href
    # The seven-card deal's score, then the second match: a throw-in and a Board.
    score = [step["title"] for step in steps].index("The score")
    assert "made it" in texts[score] and "missed" in texts[score]
    assert {"thrown_in", "board_bid"} <= seen
    assert texts[-1].endswith("Now open the table and play.")
    for back in range(len(steps) - score):
        driver.find_element(By.ID, "howto-back").click()
        WebDriverWait(driver, WAIT).until(lambda d, b=back: _step(d) == len(steps) - 2 - b)
    assert _step(driver) == score - 1
    # The last trick, at any moment, in place; and back to the trick.
    driver.find_element(By.ID, "show-last").click()
    caption = driver.find_element(By.ID, "trick-caption").text
    assert caption.startswith("Last trick (Deal 1 of 1, trick ")
    assert driver.find_element(By.ID, "show-last").get_attribute("aria-pressed") == "true"
    driver.find_element(By.ID, "show-last").click()
    # Autoplay, quickened for the test, plays on to the end and stops there.
    driver.execute_script("document.body.dataset.pace = '60'")
    driver.find_element(By.ID, "howto-back").click()
    driver.find_element(By.ID, "howto-auto").click()
    WebDriverWait(driver, WAIT).until(lambda d: _step(d) == len(steps) - 1)
    WebDriverWait(driver, WAIT).until(
        lambda d: d.find_element(By.ID, "howto-auto").get_attribute("aria-pressed") == "false"
    )
    assert driver.get_log("browser") == []


def test_the_howto_on_a_phone_and_without_motion(server, browsers, shots):
    """At 390 px every card has its face, of a readable size; reduced motion: none."""
    steps = howto_steps()
    blooper = next(i for i, step in enumerate(steps) if "blooper_led" in step["kinds"])
    driver = browsers(390, 844)
    _viewport(driver, 390, 844, reduced_motion=True)
    driver.get(server.base + "/how-to")
    WebDriverWait(driver, WAIT).until(lambda d: _step(d) == 0)
    for index in range(blooper + 1):
        if index:
            driver.find_element(By.ID, "howto-next").click()
            WebDriverWait(driver, WAIT).until(lambda d, i=index: _step(d) == i)
        # The sprite is fetched once, after the first cards are drawn: wait for it.
        WebDriverWait(driver, WAIT).until(lambda d: _faceless(d, ".card") == [])
    assert driver.execute_script("return innerWidth") == 390
    joker = driver.find_element(By.CSS_SELECTOR, "#trick .card.joker")
    assert "little blooper" in joker.get_attribute("aria-label")
    face = joker.find_element(By.CSS_SELECTOR, "svg.face use")
    assert face.get_attribute("href") == "/static/cards.svg#LITTLE"
    fresh = driver.find_element(By.CSS_SELECTOR, "#trick .played.fresh")
    assert fresh.value_of_css_property("animation-name") == "none"
    driver.save_screenshot(str(shots / "howto-phone.png"))
    # With motion allowed, the card played slides in from its seat.
    _viewport(driver, 390, 844)
    driver.find_element(By.ID, "howto-back").click()
    driver.find_element(By.ID, "howto-next").click()
    fresh = driver.find_element(By.CSS_SELECTOR, "#trick .played.fresh")
    assert fresh.value_of_css_property("animation-name").startswith("from-")
    # No page scrolls sideways on a phone.
    assert driver.execute_script("return document.documentElement.scrollWidth") <= 390


def _start_short_match_west_dealing(driver, server):
    """A short match against the computer, West dealing first: North, South's partner,
    bids before South, so that South's bids can take the side past the tricks there are
    (an overbid, warned)."""
    _viewport(driver, 1280, 900)
    driver.get(server.base + "/")
    form = driver.find_element(By.ID, "computer-form")
    form.find_element(By.TAG_NAME, "summary").click()
    form.find_element(By.CSS_SELECTOR, 'select[name="first_dealer"] option[value="W"]').click()
    driver.find_element(By.ID, "computer-short").click()
    WebDriverWait(driver, WAIT).until(lambda d: "/seat/" in d.current_url)


def _overbid_written(driver):
    """Whether South is offered an overbid now; if so, its warning is written on the page,
    not only in a tooltip."""
    overbids = driver.find_elements(By.CSS_SELECTOR, "#bids button.overbid")
    if not overbids:
        return False
    note = driver.find_element(By.ID, "overbid-note")
    assert note.is_displayed()
    label = overbids[0].get_attribute("aria-label")
    warning = label.split("Warning: ", 1)[1].removesuffix(" You may still bid it.")
    assert warning in note.text
    return True


@pytest.mark.timeout(360)  # up to four more short matches if the first offers no overbid
def test_the_table_keeps_a_finished_trick_and_fits_the_screen(server, browsers, shots):
    """A finished trick stays 1.5 s though the computers lead at once; the layout fits."""
    driver = browsers(1280, 900)
    _start_short_match_west_dealing(driver, server)
    # The last trick is above the fold at 1280 by 900, as soon as there is one.
    kept = False
    warned = False
    for _ in range(400):
        if _over(driver):
            break
        _wait_turn_or_end(driver)
        if _over(driver):
            break
        warned = warned or _overbid_written(driver)
        # The cards of the trick in play (the page may still be showing the last one).
        in_trick = int(_body(driver, "data-trick") or 0)
        playing = _body(driver, "data-phase") == "play"
        if playing and in_trick == 3 and not kept:
            # South completes the trick; at pace 0 the next lead follows at once.
            before = _version(driver)
            # Played and watched from inside the page, where the hold is timed: from the
            # first frame drawn after South's card, the table is sampled every 50 ms for
            # 1.2 s (a round trip of the driver's, slow on a loaded machine, would eat
            # into the 1.5 s).
            samples = driver.execute_async_script(
                """
                const [before, done] = arguments;
                const seen = () => Number(document.body.dataset.version || -1) > before;
                const cards = () => Array.from(document.querySelectorAll("#trick .played"))
                  .map((p) => p.dataset.seat).join(",");
                const watch = () => {
                  const started = performance.now();
                  const found = [];
                  const sample = () => {
                    found.push(cards());
                    if (performance.now() - started < 1200) setTimeout(sample, 50);
                    else done(found);
                  };
                  sample();
                };
                const wait = () => (seen() ? watch() : setTimeout(wait, 10));
                document.querySelector("#hand button.legal").click();
                wait();
                """,
                before,
            )
            assert samples, "no frame after South's card"
            assert all(len(seats.split(",")) == 4 for seats in samples), (
                f"the finished trick left the table too soon: {samples}"
            )
            assert len(set(samples)) == 1
            kept = True
            last = driver.find_element(By.ID, "last-heading").rect
            assert last["y"] + last["height"] <= driver.execute_script("return innerHeight")
            driver.save_screenshot(str(shots / "trick-kept.png"))
            continue
        _my_move(driver)
    assert kept
    WebDriverWait(driver, WAIT).until(_over)
    # After the match each side shows the last deal, not an empty "No target yet".
    sides = driver.find_element(By.CSS_SELECTOR, ".sides").text
    assert "No target yet" not in sides and "Last deal" in sides
    rows = driver.find_elements(By.CSS_SELECTOR, "#sheet tbody tr")
    labels = [row.find_elements(By.TAG_NAME, "td")[0].text for row in rows]
    counted = [label for label in labels if label.isdigit()]
    assert counted == [str(n) for n in range(1, 15)][: len(counted)]
    assert all(label.isdigit() or "re-deal" in label or label == "tiebreak" for label in labels)
    # On a phone the score sheet's totals are in sight, not cut off.
    _viewport(driver, 390, 844)
    driver.find_element(By.CSS_SELECTOR, "details.sheet").location_once_scrolled_into_view  # noqa: B018
    right = driver.execute_script(
        "return Math.max(...Array.from(document.querySelectorAll('#sheet tr > :last-child'))"
        ".map((cell) => cell.getBoundingClientRect().right))"
    )
    assert right <= 390
    # An overbid is offered only after North bids two or more, which a match's seed may
    # never bring: a few more matches, each played until South is offered one.
    for _match in range(4):
        if warned:
            break
        _start_short_match_west_dealing(driver, server)
        for _ in range(400):
            _wait_turn_or_end(driver)
            if _over(driver):
                break
            warned = _overbid_written(driver)
            if warned:
                break
            _my_move(driver)
    assert warned


_AUTOPLAY = """
const done = arguments[arguments.length - 1];
const started = performance.now();
// South's moves, pressed in the page until the match is over (bounded in time).
const step = () => {
  if (!document.getElementById("result").hidden) { done("over"); return; }
  if (performance.now() - started > 240000) { done("timeout"); return; }
  const body = document.body;
  if (body.classList.contains("my-turn") && !body.dataset.busy) {
    const bids = document.querySelectorAll("#bids button");
    const legal = document.querySelector("#hand button.legal");
    if (bids.length) bids[Math.min(1, bids.length - 1)].click();
    else if (legal) legal.click();
  }
  setTimeout(step, 20);
};
step();
"""


def _no_sideways_scroll(driver):
    return driver.execute_script(
        "return document.documentElement.scrollWidth <= innerWidth"
        " && document.body.scrollWidth <= innerWidth"
    )


@pytest.mark.timeout(420)
def test_a_double_press_is_sent_once_and_play_again_keeps_the_seat(server, browsers, shots):
    """On a phone: a bid and a card pressed twice at once go out once (no "the table has
    moved on"); nothing scrolls sideways; the match played out, its analysis fits the
    screen too; Play again deals a new match at the same link, with the same secret."""
    driver = browsers(390, 844)
    _viewport(driver, 390, 844)
    driver.get(server.base + "/")
    driver.find_element(By.ID, "play-now").click()
    WebDriverWait(driver, WAIT).until(lambda d: "/seat/" in d.current_url)
    _wait_turn_or_end(driver)
    link = driver.current_url
    key = "backalley-seat:" + link.rsplit("/", 1)[-1]
    secret = driver.execute_script("return localStorage.getItem(arguments[0])", key)
    assert secret
    assert _no_sideways_scroll(driver)
    driver.save_screenshot(str(shots / "phone-bidding.png"))
    pressed = {"bid": False, "card": False}
    for _ in range(60):
        _wait_turn_or_end(driver)
        if _over(driver) or all(pressed.values()):
            break
        before = _version(driver)
        kind = "bid" if driver.find_elements(By.CSS_SELECTOR, "#bids button") else "card"
        selector = "#bids button" if kind == "bid" else "#hand button.legal"
        if pressed[kind]:
            _my_move(driver)
            continue
        # Two presses in one go, as a double click sends them: the second finds the
        # hand (or the bids) locked until the server answers the first.
        sent = driver.execute_script(
            """
            const button = document.querySelectorAll(arguments[0])[arguments[1]];
            button.click();
            const locked = document.body.dataset.busy === "1";
            button.click();
            return locked;
            """,
            selector,
            1 if kind == "bid" else 0,
        )
        assert sent, "the first press did not lock the hand"
        WebDriverWait(driver, WAIT).until(lambda d, v=before: _version(d) > v)
        WebDriverWait(driver, WAIT).until(lambda d: not _body(d, "data-busy"))
        time.sleep(0.3)  # a refusal of the second press, if one was sent, arrives meanwhile
        assert "moved on" not in driver.find_element(By.ID, "notice").text
        assert _body(driver, "data-refused") != "stale"
        assert _no_sideways_scroll(driver)
        pressed[kind] = True
    assert all(pressed.values())
    driver.save_screenshot(str(shots / "phone-playing.png"))
    driver.set_script_timeout(300)
    assert driver.execute_async_script(_AUTOPLAY) == "over"
    assert _no_sideways_scroll(driver)
    analysis = driver.find_element(By.ID, "analysis").get_attribute("href")
    driver.get(analysis)
    WebDriverWait(driver, 120).until(
        lambda d: d.find_element(By.ID, "analysis-status").text.startswith("Analysed")
    )
    assert _no_sideways_scroll(driver), driver.execute_script(
        "return document.documentElement.scrollWidth"
    )
    driver.save_screenshot(str(shots / "analysis-phone.png"))
    driver.get(link)
    WebDriverWait(driver, WAIT).until(_over)
    driver.find_element(By.ID, "again").click()
    WebDriverWait(driver, WAIT).until(lambda d: _body(d, "data-again") == "1")
    WebDriverWait(driver, WAIT).until(
        lambda d: d.find_element(By.ID, "deal-line").text.startswith("Deal 1 of 14")
    )
    _wait_turn_or_end(driver)
    assert not _over(driver)
    assert driver.current_url == link
    assert driver.execute_script("return localStorage.getItem(arguments[0])", key) == secret
    assert driver.find_elements(By.CSS_SELECTOR, "#hand button")
    assert driver.find_element(By.CSS_SELECTOR, "#sheet tbody").text == "No deal finished yet."
    # Reloaded, the same link and secret open the seat of the new match.
    driver.refresh()
    _wait_turn_or_end(driver)
    assert driver.find_element(By.ID, "deal-line").text.startswith("Deal 1 of 14")
    assert not _body(driver, "data-refused")


def test_names_are_text_at_the_seat_and_in_chat(server, browsers, shots):
    """A guest's name with markup in it is shown as the characters typed, at the seat on
    every page and in the chat; nothing of it runs; the host's links fold away."""
    host = browsers(1280, 900)
    _viewport(host, 1280, 900)
    host.get(server.base + "/")
    host.find_element(By.ID, "friends-now").click()
    WebDriverWait(host, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#links input"))
    seats = [
        li.get_attribute("data-seat") for li in host.find_elements(By.CSS_SELECTOR, "#links li")
    ]
    assert seats == ["W", "N", "E"]  # guest 1, 2, 3: round the table from the host
    WebDriverWait(host, WAIT).until(
        lambda d: all(
            img.get_attribute("naturalWidth") not in (None, "0")
            for img in d.find_elements(By.CSS_SELECTOR, "#links img.qr")
        )
    )
    host.find_element(By.ID, "name-text").send_keys("Host")
    host.find_element(By.ID, "name-save").click()
    host.save_screenshot(str(shots / "host-links.png"))
    west = host.find_element(By.CSS_SELECTOR, '#links li[data-seat="W"] input').get_attribute(
        "value"
    )
    typed = '<img src=x onerror="document.body.dataset.pwned=1">Bo'
    guest = browsers(1280, 900)
    guest.get(west)
    WebDriverWait(guest, WAIT).until(lambda d: d.find_element(By.ID, "name-form").is_displayed())
    guest.find_element(By.ID, "name-text").send_keys(typed)
    guest.find_element(By.ID, "name-save").click()
    kept = typed[:24]
    WebDriverWait(host, WAIT).until(
        lambda d: d.find_element(By.CSS_SELECTOR, "#pos-left .name").text == kept
    )
    guest.find_element(By.ID, "chat-text").send_keys("hello")
    guest.find_element(By.ID, "chat-send").click()
    WebDriverWait(host, WAIT).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, '#chat-lines li[data-seat="W"]')
    )
    line = host.find_element(By.CSS_SELECTOR, '#chat-lines li[data-seat="W"] .speaker').text
    assert line == f"{kept} (West):"
    for driver in (host, guest):
        assert driver.find_elements(By.CSS_SELECTOR, ".seat img, .chat-lines img") == []
        assert not _body(driver, "data-pwned")
    # A name is asked once: the guest's page opened again does not ask.
    guest.refresh()
    WebDriverWait(guest, WAIT).until(lambda d: _body(d, "data-version"))
    assert not guest.find_element(By.ID, "name-form").is_displayed()
    # Every seat taken: the links fold into one "Room links" line.
    host.find_element(By.CSS_SELECTOR, "#fill-buttons button").click()
    WebDriverWait(host, WAIT).until(
        lambda d: d.find_element(By.ID, "host-panel").get_attribute("open") is None
    )
    assert host.find_element(By.ID, "host-heading").text == "Room links"
