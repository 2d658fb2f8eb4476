"""The how-to page's deal, and what a new player tripped on, in the frames a seat is sent."""

from __future__ import annotations

import warnings

import pytest
from hypothesis import given
from hypothesis import strategies as st
from table_helpers import leaks

from backalley import Bid, Card, Play, Rules, Seat, apply, new_match, seeded_deal
from backalley.core.bidding import Contract
from backalley.core.errors import IllegalAction
from backalley.core.scoring import score
from backalley.engine.view import view
from backalley.pictures.prose import score_working
from backalley.players import HeuristicPlayer, play_match
from backalley.web.howto import (
    HOWTO_RULES,
    HOWTO_SEED,
    MOMENTS,
    MORE_MOMENTS,
    MORE_RULES,
    MORE_SEED,
    howto_steps,
    moments,
    tell,
    tell_more,
    walk,
)
from backalley.web.messages import card_words, seat_frame
from backalley.web.rooms import Tables
from backalley.web.store import Store

# --- the how-to deal -------------------------------------------------------------------


def test_the_howto_deal_has_every_moment_the_page_explains():
    """Turned trump, bids and targets, a refusal, trumps broken, a blooper led and forcing."""
    told = tell()
    assert moments(told) == dict.fromkeys(MOMENTS, True)
    assert HOWTO_RULES.schedule == (7,)
    titles = [step.title for step in told]
    assert titles[0] == "The deal" and titles[-1] == "The score"
    assert [t for t in titles if t.startswith("Trick")][-1] == "Trick 7"
    # Each moment in the order a deal has them: the deal, the bids, then play.
    first = {kind: min(i for i, s in enumerate(told) if kind in s.kinds) for kind in MOMENTS}
    assert first["trump_turned"] < first["bids"] < first["trumps_broken"] < first["blooper_led"]


def test_the_howto_tells_a_bid_a_board_and_a_throw_in():
    """The bidding step says what each side bid, and what a Board and a throw-in are,
    in players' words (no pair codes), though this deal has neither."""
    steps = howto_steps()
    bidding = next(step for step in steps if "bids" in step["kinds"])
    text = " ".join(bidding["sentences"])
    assert "Board" in text and "every trick" in text and "ten a trick" in text
    assert "thrown in" in text and "re-deal" in text
    for step in steps:
        for sentence in step["sentences"]:
            assert "NS " not in sentence and "EW " not in sentence, sentence


def test_the_howto_deal_is_the_engine_playing_it_action_by_action():
    """Every step is a state the engine reaches by apply; the last is the match's end."""
    final = play_match({seat: HeuristicPlayer() for seat in Seat}, HOWTO_RULES, seed=HOWTO_SEED)
    told = tell()
    assert told[-1].state == final
    state = new_match(HOWTO_RULES, seed=HOWTO_SEED)
    reached = [state]
    state = apply(state, seeded_deal(state))
    reached.append(state)
    record = final.history[0].deal
    for bid in record.bids:
        state = apply(state, bid)
        reached.append(state)
    for trick in record.tricks:
        for seat, card in trick.plays:
            state = apply(state, Play(seat, card))
            reached.append(state)
    assert state == final
    for step in told:
        assert step.state in reached


def test_the_refused_card_is_refused_by_the_engine_with_the_sentence_shown():
    """South's refused card: in South's hand, South to play, and apply refuses it as told."""
    (step,) = [s for s in tell() if s.refused is not None]
    refusal = step.refused
    card = refusal.action.card
    assert step.state.to_move is Seat.SOUTH and card in step.state.hand(Seat.SOUTH)
    with pytest.raises(IllegalAction) as again:
        apply(step.state, Play(Seat.SOUTH, card))
    assert again.value.reason is refusal.reason and again.value.message == refusal.message
    assert refusal.message in " ".join(step.sentences)
    (frame,) = [s["frame"] for s in howto_steps() if "refused" in s["frame"]]
    assert frame["refused"] == {
        "code": card.code,
        "reason": refusal.reason.value,
        "message": refusal.message,
    }
    assert not next(c for c in frame["hand"] if c["code"] == card.code)["legal"]


def test_the_score_step_works_out_the_engines_scores():
    """The score is worked out in words ending in each side's score, the engine's own."""
    last = tell()[-1]
    result = last.state.history[0]
    text = " ".join(last.sentences)
    for pair in (0, 1):
        assert f"= {result.scores[pair]}".replace("-", "−") in text
    assert "missed" in text and "made it" in text


def test_the_howto_frames_are_souths_and_leak_no_hand():
    """Each step's frame is South's own seat frame: the view, and nothing hidden from it."""
    steps = howto_steps()
    told = walk()
    assert len(steps) == len(told)
    for step, frame in zip(told, (s["frame"] for s in steps), strict=True):
        assert frame["seat"] == "S" and frame["bids"] == []
        assert leaks(frame, step.state, Seat.SOUTH) == []
        assert frame["view"] == view(step.state, Seat.SOUTH).to_dict()


def test_after_the_deal_a_second_match_shows_a_throw_in_and_a_board():
    """Four passes throw the deal in and the next dealer deals again; South bids Board."""
    more = tell_more()
    assert moments(more, MORE_MOMENTS) == dict.fromkeys(MORE_MOMENTS, True)
    titles = [step.title for step in more]
    assert titles[:3] == ["Another deal", "Thrown in", "A Board bid"]
    assert titles[-1] == "The Board's score"
    thrown = next(step for step in more if "thrown_in" in step.kinds)
    (gone,) = thrown.state.history
    assert len(gone.deal.bids) == 4 and all(bid.is_pass for bid in gone.deal.bids)
    assert gone.scores == (0, 0) and thrown.state.counted_deals == 0
    again = thrown.state.dealer
    assert again is not gone.deal.setup.dealer and again is Seat.EAST
    assert f"The next dealer, {again.name.title()}, deals" in " ".join(thrown.sentences)
    board = next(step for step in more if "board_bid" in step.kinds)
    deal = board.state.deal
    assert deal.setup.dealer is again and deal.bid_of(Seat.SOUTH).board
    assert deal.contracts[Seat.SOUTH.pair].is_board
    last = more[-1]
    result = last.state.history[-1]
    text = " ".join(last.sentences)
    for pair in (0, 1):
        assert f"= {result.scores[pair]}".replace("-", "−") in text
    assert "Board, took all 2" in text and last.state.outcome is not None


def test_the_second_match_is_the_engine_playing_it_action_by_action():
    """Its steps are states apply reaches: four passes, the re-deal, the recorded play."""
    more = tell_more()
    final = more[-1].state
    state = new_match(MORE_RULES, seed=MORE_SEED)
    state = apply(state, seeded_deal(state))
    reached = [state]
    for _ in range(4):
        state = apply(state, Bid(state.to_move, 0))
        reached.append(state)
    state = apply(state, seeded_deal(state))
    reached.append(state)
    record = final.history[-1].deal
    for bid in record.bids:
        state = apply(state, bid)
        reached.append(state)
    for trick in record.tricks:
        for seat, card in trick.plays:
            state = apply(state, Play(seat, card))
            reached.append(state)
    assert state == final
    for step in more:
        assert step.state in reached


def test_the_page_names_the_throw_in_and_the_board():
    """steps.json, after the seven-card deal's score: the throw-in and the Board, in words."""
    steps = howto_steps()
    titles = [step["title"] for step in steps]
    assert len(steps) == len(tell()) + len(tell_more())
    assert titles.index("The score") < titles.index("Thrown in") < titles.index("A Board bid")
    thrown = steps[titles.index("Thrown in")]
    assert "thrown in" in " ".join(thrown["sentences"]) and "re-deal" in " ".join(
        thrown["sentences"]
    )
    assert thrown["frame"]["throw_in"].startswith("All four passed")
    board = steps[titles.index("A Board bid")]
    assert "you bid Board" in " ".join(board["sentences"])
    assert board["frame"]["deal_label"] == "Deal 1 of 1 (re-deal)"
    assert steps[-1]["sentences"][-1].endswith("Now open the table and play.")


def test_the_bloopers_have_seed_001s_names():
    """The table calls the jokers the big and the little blooper, and names the joker too."""
    assert card_words(Card.BIG) == "the big blooper (the BIG joker)"
    assert card_words(Card.LITTLE) == "the little blooper (the LITTLE joker)"
    told = " ".join(" ".join(step.sentences) for step in tell())
    assert "the little blooper" in told and "the big blooper" in told


@given(
    st.integers(0, 13).flatmap(lambda size: st.tuples(st.just(size), st.integers(0, size))),
    st.integers(0, 12),
    st.integers(0, 4),
)
def test_score_working_ends_in_the_score(size_tricks, target, multiplier):
    """Worked out in words, a score always ends in what the scoring rule gives."""
    size, tricks = size_tricks
    size = max(size, 1)
    tricks = min(tricks, size)
    contract = Contract(0, multiplier=multiplier) if multiplier else Contract(min(target, size))
    points = score(contract, hand_size=size, tricks=tricks)
    text = score_working(contract, hand_size=size, tricks=tricks)
    assert text.endswith(f"= {points}" if points >= 0 else f"= −{-points}")
    assert ("missed" in text) == (points < 0)


# --- what a new player tripped on, in the frames ---------------------------------------


def _computer_room(tmp_path, rules):
    tables = Tables(Store(tmp_path / "rooms.db"))
    room, _token = tables.create("computer", rules, "heuristic")
    return tables, room


def _pass_round(room):
    state = room.state
    if state.phase.value == "deal":
        state = apply(state, seeded_deal(state))
    while state.phase.value == "bid":
        state = apply(state, Bid(state.to_move, 0))
    room.state = state
    room.version += 1


def test_a_throw_in_says_all_passed_and_who_deals_again(tmp_path):
    """After four passes, the deal dealt again is marked and the throw-in told, with the dealer."""
    _tables, room = _computer_room(tmp_path, Rules(schedule=[1, 2]))
    _pass_round(room)
    frame = seat_frame(room, Seat.SOUTH)
    assert frame["throw_in"] == (
        "All four passed: the cards are thrown in, nobody scores, and East deals again, "
        "1 card each."
    )
    room.state = apply(room.state, seeded_deal(room.state))
    frame = seat_frame(room, Seat.SOUTH)
    assert frame["deal_label"] == "Deal 1 of 2 (re-deal)"
    assert frame["cards_each"] == "1 card each"
    assert frame["dealer"] == "East" and frame["throw_in"] is not None
    _pass_round(room)
    room.state = apply(room.state, seeded_deal(room.state))
    sheet = seat_frame(room, Seat.SOUTH)["sheet"]
    assert [row["deal"] for row in sheet] == ["1", "1 (re-deal)"]
    assert [row["kind"] for row in sheet] == ["thrown in", "thrown in"]


def test_the_deal_numbering_is_the_schedules_everywhere(tmp_path):
    """Header, last trick and score sheet number deals as the schedule does: N of M."""
    tables, room = _computer_room(tmp_path, Rules(schedule=[2, 1]))
    for _ in range(200):
        if room.is_over:
            break
        if tables.step(room) is None:
            seat = room.state.to_move
            frame = seat_frame(room, seat)
            if frame["bids"]:
                call = next(b["call"] for b in frame["bids"] if b["call"] != "pass")
                tables.act(room, seat, room.version, "bid", call)
            else:
                code = next(c["code"] for c in frame["hand"] if c["legal"])
                tables.act(room, seat, room.version, "play", code)
        frame = seat_frame(room, Seat.SOUTH)
        if frame["deal_label"] is not None:
            assert frame["deal_label"].startswith(f"Deal {room.state.counted_deals + 1} of 2")
        last = frame["last_trick"]
        if last is not None:
            assert last["deal_label"].startswith(("Deal 1", "Deal 2", "Tiebreak"))
    assert room.is_over
    frame = seat_frame(room, Seat.SOUTH)
    assert [row["deal"] for row in frame["sheet"]][:2] == ["1", "2"]
    # After the match, each side shows the last deal, not "No target yet / Tricks: 0".
    last = room.state.history[-1]
    for side, pair in zip(frame["sides"], (0, 1), strict=True):
        assert side["target_text"].startswith(("Last deal:", "Tiebreak", "Thrown in"))
        assert side["tricks"] == last.deal.tricks_won[pair]
        assert side["score"] == last.scores[pair]


def test_a_seat_is_sent_how_many_cards_each_hand_holds(tmp_path):
    """The other hands are drawn as backs: the counts the frame says are the hands' sizes."""
    tables, room = _computer_room(tmp_path, Rules(schedule=[3]))
    for _ in range(40):
        if room.is_over:
            break
        frame = seat_frame(room, Seat.SOUTH)
        if room.state.deal is not None:
            assert frame["held"] == {s.letter: len(room.state.hand(s)) for s in Seat}
        if tables.step(room) is None:
            seat = room.state.to_move
            options = seat_frame(room, seat)
            if options["bids"]:
                tables.act(room, seat, room.version, "bid", options["bids"][1]["call"])
            else:
                code = next(c["code"] for c in options["hand"] if c["legal"])
                tables.act(room, seat, room.version, "play", code)


def _client(tables):
    """Starlette's test client on the table's app (skipped without the web extra)."""
    pytest.importorskip("starlette")
    pytest.importorskip("httpx")
    with warnings.catch_warnings():
        # Starlette's test client announces a move to another HTTP client; httpx still works.
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient  # noqa: PLC0415

    from backalley.web.app import make_app  # noqa: PLC0415

    return TestClient(make_app(tables, pace=0), follow_redirects=False)


def test_the_table_defaults_to_seed_001s_tie_and_the_library_to_a_draw(tmp_path):
    """A room made without a tie field plays seed 001's extra deal; Rules() stays a draw."""
    pytest.importorskip("starlette")
    pytest.importorskip("httpx")
    from backalley.web.app import DEFAULT_TIE  # noqa: PLC0415 -- needs the web extra

    tables = Tables(Store(tmp_path / "rooms.db"))
    with _client(tables) as client:
        answer = client.post("/rooms", data={"mode": "computer", "schedule": "short"})
        assert answer.status_code == 303
        chosen = client.post("/rooms", data={"mode": "computer", "tie": "draw"})
        assert chosen.status_code == 303
        lobby = client.get("/").text
    made, drawn = list(tables.rooms.values())  # in the order they were made
    assert DEFAULT_TIE == "tiebreak-deal" == made.rules.tie
    assert drawn.rules.tie == "draw"
    assert Rules().tie == "draw"
    assert '<option value="tiebreak-deal" selected>' in lobby
    assert 'href="/how-to"' in lobby


def test_the_howto_page_and_its_steps_are_served(tmp_path):
    """/how-to is the table's page; its steps are the walk-through, the same every time."""
    tables = Tables(Store(tmp_path / "rooms.db"))
    with _client(tables) as client:
        page = client.get("/how-to")
        steps = client.get("/how-to/steps.json")
        token = tables.create("computer", Rules(schedule=[1]))[1]
        room_page = client.get(f"/seat/{token}").text
    assert page.status_code == 200 and 'id="howto"' in page.text
    assert page.headers["content-security-policy"].startswith("default-src 'self'")
    assert steps.status_code == 200 and steps.json() == howto_steps()
    assert 'href="/how-to"' in room_page
