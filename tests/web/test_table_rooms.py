"""The table's rooms without a web server: seats, tokens, refusals, the store, the frames."""

from __future__ import annotations

import json
import random
import sqlite3
from concurrent.futures import Future

import pytest
from hypothesis import given
from hypothesis import strategies as st
from table_helpers import hidden_from, leaks, states_by_version

from backalley import Rules, Seat, legal_actions
from backalley.engine.view import view
from backalley.formats.checking import check
from backalley.formats.records import dumps, loads, record_from_state
from backalley.web.messages import (
    MAX_MESSAGE_BYTES,
    parse_message,
    seat_frame,
)
from backalley.web.rooms import ROLES, Refused, Tables
from backalley.web.store import Store, StoreError


def _tables(tmp_path, name="rooms.db"):
    return Tables(Store(tmp_path / name))


def _friends(tables, schedule=(2, 1)):
    room, host = tables.create("friends", Rules(schedule=list(schedule)))
    tokens = {Seat.SOUTH: host}
    for seat, row in room.seats.items():
        if seat is not Seat.SOUTH:
            tokens[seat] = row.token
            tables.claim(room, seat)
    return room, tokens


def _legal_for(room, seat):
    return [a for a in legal_actions(room.state) if getattr(a, "seat", None) is seat]


def _act_first_legal(tables, room):
    while tables.step(room) is not None:
        pass
    seat = room.state.to_move
    legal = legal_actions(room.state)
    # Not always the first (a pass): four passes would throw the deal in again and again.
    action = random.Random(room.version).choice(legal)
    field, value = ("bid", action.call) if hasattr(action, "call") else ("play", action.card.code)
    return tables.act(room, seat, room.version, field, value)


class TestSeats:
    def test_a_computer_room_seats_one_person_at_south(self, tmp_path):
        """Play the computer: you at South, computers at the three other seats (001)."""
        tables = _tables(tmp_path)
        room, token = tables.create("computer", Rules(schedule="short"), "montecarlo")
        assert tables.seat_of(token) == (room, Seat.SOUTH)
        assert {seat: row.occupant for seat, row in room.seats.items()} == {
            Seat.NORTH: "computer",
            Seat.EAST: "computer",
            Seat.SOUTH: "person",
            Seat.WEST: "computer",
        }
        assert {row.player for seat, row in room.seats.items() if seat is not Seat.SOUTH} == {
            "montecarlo"
        }
        assert room.started

    def test_a_room_of_friends_waits_for_four_and_pairs_host_with_guest_2(self, tmp_path):
        """The host and guest 2 are one side, guests 1 and 3 the other; play waits for all four."""
        tables = _tables(tmp_path)
        room, _host = tables.create("friends", Rules(schedule="short"))
        assert ROLES[Seat.SOUTH] == "host" and ROLES[Seat.NORTH] == "guest 2"
        assert Seat.SOUTH.partner is Seat.NORTH and Seat.WEST.partner is Seat.EAST
        assert not room.started and tables.step(room) is None
        with pytest.raises(Refused) as refused:
            tables.act(room, Seat.SOUTH, 0, "bid", "pass")
        assert refused.value.reason == "waiting_for_players"
        tokens = {row.token for row in room.seats.values()}
        assert len(tokens) == 4 and all(len(token) >= 32 for token in tokens)
        for seat in (Seat.WEST, Seat.NORTH):
            tables.claim(room, seat)
        assert not room.started
        tables.claim(room, Seat.EAST)
        assert room.started and tables.step(room) is not None  # the deal

    def test_the_host_fills_empty_seats_with_computers_and_their_links_stop(self, tmp_path):
        """Beyond the seed: the host seats computers; the voided links open nothing."""
        tables = _tables(tmp_path)
        room, _host = tables.create("friends", Rules(schedule="short"))
        west = room.seats[Seat.WEST].token
        east = room.seats[Seat.EAST].token
        tables.claim(room, Seat.WEST)
        with pytest.raises(Refused) as refused:
            tables.fill(room, Seat.WEST, "heuristic")
        assert refused.value.reason == "not_host"
        assert tables.fill(room, Seat.SOUTH, "heuristic") == [Seat.NORTH, Seat.EAST]
        assert room.started
        assert tables.seat_of(west) == (room, Seat.WEST)
        with pytest.raises(Refused) as refused:
            tables.seat_of(east)
        assert refused.value.reason == "unknown_token"
        with pytest.raises(Refused) as refused:
            tables.fill(room, Seat.SOUTH, "heuristic")
        assert refused.value.reason == "already_started"

    @pytest.mark.parametrize("token", ["", "x" * 32, None, 3, ["a"]])
    def test_a_forged_or_missing_token_opens_nothing(self, tmp_path, token):
        """Only a token the server made opens a seat."""
        tables = _tables(tmp_path)
        tables.create("friends", Rules(schedule="short"))
        with pytest.raises(Refused) as refused:
            tables.seat_of(token)
        assert refused.value.reason == "unknown_token"
        assert "link" in refused.value.message


class TestActions:
    def test_an_illegal_card_is_refused_in_the_engines_own_words(self, tmp_path):
        """A dimmed card pressed: apply's reason code and sentence come back; nothing changes."""
        tables = _tables(tmp_path)
        room, _tokens = _friends(tables, schedule=(7,))
        tables.step(room)
        for _ in range(4):
            seat = room.state.to_move
            tables.act(room, seat, room.version, "bid", "1")
        leader = room.state.to_move
        legal = {a.card for a in _legal_for(room, leader)}
        dimmed = [card for card in room.state.hand(leader) if card not in legal]
        before = (room.state, room.version, tables.store.action_count(room.id))
        if not dimmed:
            pytest.skip("this deal leaves the leader no card to refuse")
        with pytest.raises(Refused) as refused:
            tables.act(room, leader, room.version, "play", dimmed[0].code)
        assert refused.value.reason == "trumps_not_broken"
        assert refused.value.message.startswith("Trumps are not broken")
        assert (room.state, room.version, tables.store.action_count(room.id)) == before

    def test_stale_and_repeated_messages_are_refused_and_change_nothing(self, tmp_path):
        """An action for an older version (or sent twice) is refused; the room stays as it was."""
        tables = _tables(tmp_path)
        room, _ = _friends(tables)
        tables.step(room)
        seat = room.state.to_move
        version = room.version
        tables.act(room, seat, version, "bid", "pass")
        after = (room.state, room.version)
        with pytest.raises(Refused) as refused:
            tables.act(room, seat, version, "bid", "pass")  # the same message again
        assert refused.value.reason == "stale"
        with pytest.raises(Refused):
            tables.act(room, room.state.to_move, version + 5, "bid", "pass")
        assert (room.state, room.version) == after
        assert tables.store.action_count(room.id) == room.version

    def test_out_of_turn_is_the_engines_refusal(self, tmp_path):
        """A seat acting when another is to move: not_your_turn, from apply."""
        tables = _tables(tmp_path)
        room, _ = _friends(tables)
        tables.step(room)
        other = room.state.to_move.after(1)
        with pytest.raises(Refused) as refused:
            tables.act(room, other, room.version, "bid", "pass")
        assert refused.value.reason == "not_your_turn"

    @pytest.mark.parametrize(
        ("field", "value", "reason"),
        [
            ("bid", "seven", "unknown_bid"),
            ("play", "ZZ", "unknown_play"),
            ("bid", "9", "bid_out_of_range"),
        ],
    )
    def test_what_is_not_a_bid_or_card_is_refused(self, tmp_path, field, value, reason):
        """Unreadable bids and cards are refused with a sentence; the room is unchanged."""
        tables = _tables(tmp_path)
        room, _ = _friends(tables)
        tables.step(room)
        before = (room.state, room.version)
        with pytest.raises(Refused) as refused:
            tables.act(room, room.state.to_move, room.version, field, value)
        assert refused.value.reason == reason and refused.value.message
        assert (room.state, room.version) == before


class TestStore:
    def test_every_room_resumes_at_the_same_position_from_the_database(self, tmp_path):
        """Reopened on the same file, every room is where it was, every action on disk."""
        tables = _tables(tmp_path)
        computer, token = tables.create("computer", Rules(schedule="short"), "heuristic")
        friends, tokens = _friends(tables, schedule=(3, 2))
        for _ in range(5):
            _act_first_legal(tables, computer)
            _act_first_legal(tables, friends)
        assert tables.store.action_count(computer.id) == computer.version
        tables.store.close()
        again = _tables(tmp_path)
        for room in (computer, friends):
            copy = again.rooms[room.id]
            assert (copy.state, copy.version, copy.seed) == (room.state, room.version, room.seed)
            assert copy.seats == room.seats
        assert again.seat_of(token)[0].id == computer.id
        assert again.seat_of(tokens[Seat.EAST])[1] is Seat.EAST

    def test_an_action_is_on_disk_before_the_room_moves_on(self, tmp_path):
        """Another connection to the file sees each action as soon as act returns."""
        tables = _tables(tmp_path)
        room, _ = _friends(tables)
        reader = sqlite3.connect(tmp_path / "rooms.db")
        for _ in range(6):
            _act_first_legal(tables, room)
            (count,) = reader.execute(
                "SELECT COUNT(*) FROM actions WHERE room = ?", (room.id,)
            ).fetchone()
            assert count == room.version

    def test_a_failed_write_changes_nothing(self, tmp_path, monkeypatch):
        """If the commit fails, the room does not move on and the error is not swallowed."""
        tables = _tables(tmp_path)
        room, _ = _friends(tables)
        tables.step(room)
        before = (room.state, room.version)

        def full_disk(*args, **kwargs):
            failed = Future()
            failed.set_exception(sqlite3.OperationalError("database or disk is full"))
            return failed

        monkeypatch.setattr(tables.store, "submit", full_disk)
        with pytest.raises(sqlite3.OperationalError):
            tables.act(room, room.state.to_move, room.version, "bid", "pass")
        assert (room.state, room.version) == before

    def test_a_tampered_database_is_refused_with_its_position(self, tmp_path):
        """A stored action the rules refuse stops the server with the room and number."""
        tables = _tables(tmp_path)
        room, _ = _friends(tables)
        _act_first_legal(tables, room)
        tables.store.close()
        db = sqlite3.connect(tmp_path / "rooms.db")
        db.execute("INSERT INTO actions VALUES (?, ?, ?)", (room.id, room.version, "N AS"))
        db.commit()
        with pytest.raises(StoreError, match=f"room {room.id}: stored action {room.version}"):
            _tables(tmp_path)

    def test_another_programs_database_is_refused(self, tmp_path):
        """A SQLite file with other tables is not taken over."""
        db = sqlite3.connect(tmp_path / "other.db")
        db.execute("CREATE TABLE notes (x)")
        db.commit()
        with pytest.raises(StoreError, match="not a table's database"):
            Store(tmp_path / "other.db")


class TestFrames:
    def test_a_whole_match_sends_each_seat_its_own_view_only(self, tmp_path):
        """Every frame of a two-deal match, for each seat: its own view, no other hand, no seed."""
        tables = _tables(tmp_path)
        room, tokens = _friends(tables, schedule=(3, 2))
        sent = []
        for _ in range(200):
            if room.is_over:
                break
            for seat in Seat:
                sent.append((room.version, seat, seat_frame(room, seat, token=tokens[seat])))
            _act_first_legal(tables, room)
        assert room.is_over
        actions = [text for text in tables.store.rooms().__next__().actions]
        states = states_by_version(room, actions)
        for version, seat, frame in sent:
            assert frame["version"] == version
            assert leaks(frame, states[version], seat) == []
            assert "links" not in frame or seat is Seat.SOUTH

    def test_only_the_host_is_sent_the_guests_links(self, tmp_path):
        """A guest never sees another seat's token; the host sees the empty seats' links."""
        tables = _tables(tmp_path)
        room, host = tables.create("friends", Rules(schedule="short"))
        tables.claim(room, Seat.WEST)
        frame = seat_frame(room, Seat.SOUTH, token=host)
        assert set(frame["links"]) == {"N", "E"}
        guest = json.dumps(seat_frame(room, Seat.WEST, token=room.seats[Seat.WEST].token))
        for seat in (Seat.SOUTH, Seat.NORTH, Seat.EAST):
            assert room.seats[seat].token not in guest

    def test_the_frame_rings_the_legal_cards_and_offers_the_legal_bids(self, tmp_path):
        """Legal bids as buttons, each with the overbid warning the engine would give."""
        tables = _tables(tmp_path)
        room, _ = _friends(tables, schedule=(3,))
        tables.step(room)
        first = room.state.to_move
        frame = seat_frame(room, first)
        assert [bid["call"] for bid in frame["bids"]] == ["pass", "1", "2", "board"]
        assert all(bid["warning"] is None for bid in frame["bids"])
        tables.act(room, first, room.version, "bid", "pass")
        partner = first.partner
        tables.act(room, room.state.to_move, room.version, "bid", "2")
        frame = seat_frame(room, partner)
        warned = {bid["call"]: bid["warning"] for bid in frame["bids"]}
        assert warned["2"] is None or "bid" in warned["2"]
        assert seat_frame(room, first)["bids"] == []
        while room.state.phase.value == "bid":
            tables.act(room, room.state.to_move, room.version, "bid", "pass")
        seat = room.state.to_move
        frame = seat_frame(room, seat)
        legal = {a.card.code for a in legal_actions(room.state)}
        assert {c["code"] for c in frame["hand"] if c["legal"]} == legal
        assert len(frame["hand"]) == 3 and frame["trump_words"].endswith(("trumps", "no trumps"))

    def test_an_overbid_is_warned_on_its_button(self, tmp_path):
        """A bid that takes a side past the tricks there are carries the engine's warning,
        in the player's words: their side, never a pair code."""
        tables = _tables(tmp_path)
        room, _ = _friends(tables, schedule=(3,))
        tables.step(room)
        tables.act(room, room.state.to_move, room.version, "bid", "2")
        tables.act(room, room.state.to_move, room.version, "bid", "pass")
        partner = room.state.to_move
        frame = seat_frame(room, partner)
        warned = {bid["call"]: bid["warning"] for bid in frame["bids"]}
        assert warned["1"] is None
        assert warned["2"] == "Your side has bid 4 tricks, but only 3 will be played."
        tables.act(room, partner, room.version, "bid", "2")
        # The same warning, seen from the other side, once the bid is made.
        other = seat_frame(room, partner.left)
        assert other["warnings"] == ["The other side has bid 4 tricks, but only 3 will be played."]
        assert not any(code in other["warnings"][0] for code in ("NS", "EW"))

    def test_a_finished_match_gives_a_record_that_check_validates(self, tmp_path):
        """The record of the finished room replays to the same match, with every claim right."""
        tables = _tables(tmp_path)
        room, _ = _friends(tables, schedule=(2, 1))
        for _ in range(100):
            if room.is_over:
                break
            _act_first_legal(tables, room)
        report = check(loads(dumps(record_from_state(room.state))))
        assert report.complete and report.consistent


class TestPlayAgain:
    def test_the_same_links_and_secrets_open_the_same_seats_of_a_new_match(self, tmp_path):
        tables = _tables(tmp_path)
        room, _ = tables.create("friends", Rules(schedule=[1]))
        held = {Seat.SOUTH: tables.claim(room, Seat.SOUTH)}
        tokens = {seat: row.token for seat, row in room.seats.items()}
        for seat in (Seat.WEST, Seat.NORTH, Seat.EAST):
            held[seat] = tables.claim(room, seat)
        room.names[Seat.WEST] = "Ann"
        with pytest.raises(Refused) as early:
            tables.again(room, Seat.SOUTH)
        assert early.value.reason == "not_over"
        for _ in range(100):
            if room.is_over:
                break
            _act_first_legal(tables, room)
        record = dumps(record_from_state(room.state))
        new = tables.again(room, Seat.WEST)
        assert new.id != room.id and not new.is_over and new.seed != room.seed
        assert new.rules == room.rules and new.names == {Seat.WEST: "Ann"}
        # No new links: each seat's link and its holder's secret open it in the new match.
        for seat, token in tokens.items():
            assert tables.seat_of(token) == (new, seat)
            assert tables.holds(new, seat, held[seat])
            assert not tables.holds(new, seat, held[seat.partner])
        # Asked again, the same new match; the old one keeps its record under links of
        # its own, no seat's link among them.
        assert tables.again(room, Seat.SOUTH) is new
        archived = {seat: row.token for seat, row in room.seats.items()}
        assert not set(archived.values()) & set(tokens.values())
        old, seat = tables.seat_of(archived[Seat.NORTH])
        assert old is room and seat is Seat.NORTH
        assert dumps(record_from_state(old.state)) == record
        # The server started again reads the same: links to the new match.
        tables.store.close()
        again = _tables(tmp_path)
        for seat, token in tokens.items():
            loaded, at = again.seat_of(token)
            assert loaded.id == new.id and at is seat
            assert again.holds(loaded, seat, held[seat])
        assert again.seat_of(archived[Seat.EAST])[0].id == room.id

    def test_only_a_player_starts_another_match(self, tmp_path):
        tables = _tables(tmp_path)
        room, _ = tables.create("computer", Rules(schedule=[1]))
        tables.claim(room, Seat.SOUTH)
        for _ in range(100):
            while tables.step(room) is not None:  # the computers, up to South's turn
                pass
            if room.is_over:
                break
            _act_first_legal(tables, room)
        with pytest.raises(Refused) as refused:
            tables.again(room, Seat.NORTH)
        assert refused.value.reason == "not_a_player"
        new = tables.again(room, Seat.SOUTH)
        assert all(new.seats[s].occupant == "computer" for s in Seat if s is not Seat.SOUTH)


class TestMessages:
    @pytest.mark.parametrize(
        ("text", "reason"),
        [
            (b"\x00\x01", "not_text"),
            ("x" * (MAX_MESSAGE_BYTES + 1), "too_large"),
            ("{", "malformed"),
            ("[1, 2]", "malformed"),
            ('{"type": "shout"}', "unknown_type"),
            ('{"type": "act", "version": 1, "bid": "2", "seat": "N"}', "unknown_field"),
            ('{"type": "act", "version": true, "bid": "2"}', "malformed"),
            ('{"type": "act", "version": 1}', "malformed"),
            ('{"type": "act", "version": 1, "bid": "2", "play": "AS"}', "malformed"),
            ('{"type": "act", "version": 1, "play": 5}', "malformed"),
            ('{"type": "fill"}', "malformed"),
            ("[" * 100_000, "too_large"),
        ],
    )
    def test_bad_messages_are_refused_with_a_reason(self, text, reason):
        """Each kind of bad message has its own reason code and a sentence."""
        with pytest.raises(Refused) as refused:
            parse_message(text)
        assert refused.value.reason == reason
        assert refused.value.message.endswith(".")

    @given(
        st.one_of(
            st.text(max_size=300),
            st.binary(max_size=50),
            st.recursive(
                st.none() | st.booleans() | st.integers() | st.text(max_size=10),
                lambda inner: (
                    st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=8), inner, max_size=4)
                ),
                max_leaves=10,
            ).map(json.dumps),
        )
    )
    def test_random_messages_are_read_or_refused_never_crash(self, text):
        """Whatever arrives, the reader returns a message or a Refused: nothing else escapes."""
        try:
            message = parse_message(text)
        except Refused as refused:
            assert refused.reason and refused.message
        else:
            assert message.kind in ("act", "fill")


def test_the_view_in_a_frame_is_the_engines(tmp_path):
    """The frame's view is SeatView.to_dict of the engine's own view."""
    tables = _tables(tmp_path)
    room, _ = _friends(tables)
    tables.step(room)
    assert seat_frame(room, Seat.EAST)["view"] == view(room.state, Seat.EAST).to_dict()


def test_the_leak_reader_finds_another_hand(tmp_path):
    """The leak test itself: a frame carrying another seat's card or the seed is caught."""
    tables = _tables(tmp_path)
    room, _ = _friends(tables)
    tables.step(room)
    frame = seat_frame(room, Seat.EAST)
    assert leaks(frame, room.state, Seat.EAST) == []
    stolen = sorted(hidden_from(room.state, Seat.EAST))[0]
    assert leaks({**frame, "extra": stolen.code}, room.state, Seat.EAST) == [stolen.code]
    assert leaks({**frame, "note": stolen.words}, room.state, Seat.EAST) == [stolen.code]
    assert leaks({**frame, "seed": room.seed}, room.state, Seat.EAST) == ["the seed"]
    north = seat_frame(room, Seat.NORTH)
    assert "a view other than the seat's own" in leaks(
        {**frame, "view": north["view"]}, room.state, Seat.EAST
    )


def test_without_the_web_extra_the_command_says_which_to_install(monkeypatch, capsys, tmp_path):
    """No Starlette: importing the server, or backalley table, names the extra in one line."""
    import importlib  # noqa: PLC0415
    import sys  # noqa: PLC0415

    from backalley._extras import MissingExtra  # noqa: PLC0415
    from backalley.cli import main  # noqa: PLC0415

    monkeypatch.setitem(sys.modules, "starlette", None)
    monkeypatch.delitem(sys.modules, "backalley.web.app", raising=False)
    with pytest.raises(MissingExtra) as missing:
        importlib.import_module("backalley.web.app")
    install = "pip install 'backalley[web]' (in a clone of the repository: pip install -e '.[web]')"
    assert str(missing.value) == f"backalley table needs the 'web' extra: {install}"
    assert main(["table", "--db", str(tmp_path / "rooms.db")]) == 2
    assert capsys.readouterr().err == (
        f"backalley table: backalley table needs the 'web' extra: {install}\n"
    )
    assert not (tmp_path / "rooms.db").exists()


def test_a_file_that_is_not_a_database_is_one_line(tmp_path, capsys):
    """backalley table --db on a file that is not SQLite: one line, exit status 2."""
    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")
    from backalley.cli import main  # noqa: PLC0415

    bad = tmp_path / "notes.txt"
    bad.write_text("not a database at all, just some words " * 40)
    assert main(["table", "--db", str(bad), "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"backalley table: {bad}: ") and err.count("\n") == 1
