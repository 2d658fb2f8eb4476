"""A finished match's analysis at the table (test client): access, refusal, cache, bound."""

from __future__ import annotations

import time
import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    # Starlette's test client announces a move to another HTTP client; httpx still works.
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from backalley import Bid, Rules, Seat, legal_actions
from backalley.core.cards import Card
from backalley.solver.analysis import analysis_document, analyze_match
from backalley.web import analysis as analysis_module
from backalley.web.app import make_app
from backalley.web.limits import Limits
from backalley.web.rooms import Room, Tables
from backalley.web.store import Store

HOST = Seat.SOUTH


@pytest.fixture
def tables(tmp_path):
    made = Tables(Store(tmp_path / "rooms.db"))
    yield made
    made.store.close()


def _client(tables, **limits):
    # The status is polled every 50 ms: more than a visitor's request rate allows.
    limits.setdefault("requests_per_second", 1000)
    return TestClient(make_app(tables, pace=0, limits=Limits(**limits)), follow_redirects=False)


def _finished(tables: Tables, schedule=(2, 3)) -> tuple[Room, str]:
    """A room of friends, computers at the three other seats, the host playing first legal."""
    room, token = tables.create("friends", Rules(schedule=list(schedule)))
    tables.fill(room, HOST, "heuristic")
    for _ in range(2000):  # a bound: a short match is far fewer actions
        if room.is_over:
            return room, token
        if room.automatic_due:
            tables.step(room)
            continue
        action = legal_actions(room.state)[0]
        if isinstance(action, Bid):
            tables.act(room, HOST, room.version, "bid", action.call)
        else:
            tables.act(room, HOST, room.version, "play", action.card.code)
    raise AssertionError("the match did not finish")


def _labels(room: Room) -> list[str]:
    """Deal N of M as the table says it: a thrown-in deal is dealt again, marked, at its place."""
    labels, scheduled, redeal = [], 1, False
    for result in room.state.history:
        if result.setup.tiebreak:
            labels.append("Tiebreak deal")
            continue
        labels.append(f"Deal {scheduled} of 2" + (" (re-deal)" if redeal else ""))
        redeal = result.thrown_in
        scheduled += 0 if redeal else 1
    return labels


def _wait(client, token, seconds=60.0):
    """Poll the status until the analysis is done (bounded)."""
    deadline = time.monotonic() + seconds
    seen = []
    while time.monotonic() < deadline:
        answer = client.get(f"/analysis/{token}/status")
        assert answer.status_code == 200, answer.text
        body = answer.json()
        seen.append(body)
        if body["status"] == "done":
            return body, seen
        time.sleep(0.05)
    raise AssertionError(f"the analysis did not finish: {seen[-1]}")


def test_refused_while_the_match_is_on_and_for_unknown_links(tables):
    """Like the record, the analysis shows every hand: refused (409) until the match is over."""
    _room, token = tables.create("friends", Rules(schedule=[2, 3]))
    with _client(tables) as client:
        answer = client.get(f"/analysis/{token}/status")
        assert answer.status_code == 409
        assert answer.json()["reason"] == "analysis_not_yet"
        assert "match is over" in answer.json()["message"]
        assert client.get("/analysis/" + "C" * 32 + "/status").status_code == 404
        assert client.get("/analysis/" + "C" * 32).status_code == 404
        assert client.app.state.server.analyses.jobs == {}


def test_a_finished_match_is_analysed_deal_by_deal_as_the_solver_says(tables):
    """The page's analysis is the solver's, each deal labelled as the table numbers it."""
    room, token = _finished(tables)
    with _client(tables) as client:
        page = client.get(f"/analysis/{token}")
        assert page.status_code == 200 and "analysis.js" in page.text
        body, seen = _wait(client, token)
    assert body["total"] == len(room.state.history) == body["done"]
    assert all(0 <= s["done"] <= s["total"] for s in seen)
    assert not body["timed_out"] and not body["failed"]
    expected = analysis_document(analyze_match(room.state))
    deals = body["analysis"]["deals"]
    assert [d["label"] for d in deals] == _labels(room)
    for index, (entry, want) in enumerate(zip(deals, expected["deals"], strict=True)):
        assert entry["analysed"] is True
        players = ("label", "analysed", "svg")
        shown = {k: v for k, v in entry.items() if k not in players}
        # Each costly card also as a player reads it, with the points it cost its side.
        for costly in shown.get("costly", []):
            card, symbol = Card.parse(costly["card"]), costly.pop("card_symbol")
            blooper = f"{card.name.lower()[:3].replace('lit', 'little')} blooper"
            assert symbol == (blooper if card.is_joker else card.symbol)
            symbols = costly.pop("best_symbols")
            assert len(symbols) == len(costly["best"])
            points = costly.pop("points")
            # A trick more never lowers a side's score, and may not raise it (a contract
            # missed by more than the tricks lost scores the same).
            assert costly["lost"] > 0 and (points is None or points >= 0)
        assert shown == want
        if want["played"]:
            # The deal's four hands drawn, as the library draws them (backalley analyze --svg).
            result = room.state.history[index]
            assert entry["svg"].startswith("<svg") and result.deal.setup.hands
    assert body["analysis"]["seats"] == expected["seats"]
    assert body["seat"] == "S"


def test_the_analysis_is_made_once_per_room(tables):
    """Asking again (a reload) answers from the room's analysis."""
    room, token = _finished(tables)
    with _client(tables) as client:
        first, _ = _wait(client, token)
        analyses = client.app.state.server.analyses
        job = analyses.jobs[room.id]
        again = client.get(f"/analysis/{token}/status").json()
        assert again == first
        assert analyses.jobs[room.id] is job and len(analyses.jobs) == 1


def test_a_restarted_server_answers_from_the_database(tmp_path):
    """The analysis is stored with the room: a new server on the database answers at once."""
    path = tmp_path / "kept.db"
    first = Tables(Store(path))
    room, token = _finished(first)
    with _client(first) as client:
        made, _ = _wait(client, token)
    first.store.close()
    again = Tables(Store(path))
    try:
        with _client(again) as client:
            answer = client.get(f"/analysis/{token}/status").json()
            job = client.app.state.server.analyses.jobs[room.id]
        assert answer == made and answer["status"] == "done"
        # The seat is the asking link's, not the analysis's: the rest is what was stored.
        assert job.stored == {k: v for k, v in made.items() if k != "seat"}
        assert job.analyses == {}  # nothing analysed this time
    finally:
        again.store.close()


def test_a_match_past_its_budget_reports_deals_not_analysed_in_time(tables):
    """The worker is ended at the budget; its deals not done say so, and nothing hangs."""
    room, token = _finished(tables)
    with _client(tables, analysis_budget=0.01) as client:
        body, _ = _wait(client, token, seconds=30.0)
    assert body["timed_out"]
    assert body["done"] < body["total"]
    late = [d for d in body["analysis"]["deals"] if not d["analysed"]]
    assert late and all(d["played"] is None for d in late)
    assert len(body["analysis"]["deals"]) == body["total"]
    # Not kept: a server given a longer budget may try again.
    assert tables.store.analysis(room.id) is None


def _stuck(state, pipe):
    """A worker on a pathological deal: it never answers."""
    time.sleep(3600)


def test_a_stuck_worker_is_ended_at_the_budget_and_the_table_goes_on(tables, monkeypatch):
    """A worker that never finishes is ended at the budget; meanwhile the server answers."""
    monkeypatch.setattr(analysis_module, "_work", _stuck)
    room, token = _finished(tables)
    with _client(tables, analysis_budget=2.0) as client:
        started = time.monotonic()
        assert client.get(f"/analysis/{token}/status").json()["status"] in ("queued", "running")
        # The event loop is free while the worker runs: pages answer at once.
        answered = time.monotonic()
        assert client.get("/").status_code == 200
        assert time.monotonic() - answered < 1.0
        body, _ = _wait(client, token, seconds=30.0)
        took = time.monotonic() - started
        analyses = client.app.state.server.analyses
        assert analyses._processes == set()
    assert body["timed_out"] and body["done"] == 0
    assert all(d["analysed"] is False for d in body["analysis"]["deals"])
    assert 2.0 <= took < 20.0
    assert tables.store.analysis(room.id) is None


def test_requests_beyond_the_workers_and_the_queue_are_refused(tables):
    """One worker, no queue: a second match asked for meanwhile is refused by name."""
    _first, one = _finished(tables)
    _second, two = _finished(tables)
    with _client(tables, analysis_workers=1, analysis_queue=0) as client:
        assert client.get(f"/analysis/{one}/status").status_code == 200
        busy = client.get(f"/analysis/{two}/status")
        assert busy.status_code == 503
        assert busy.json()["reason"] == "analysis_busy"
        _wait(client, one)
        # The worker free again: the second is taken now.
        _wait(client, two)
