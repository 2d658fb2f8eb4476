"""The fuzzer finds deliberately wrong engines, shrinks what it finds, and survives broken ones.

Each wrong engine is ours with one rule changed (``tests/wrong_engines.py``,
run as a separate process). The budget is the number of matches the fuzzer may
play with the given seed; the shrunk case must stay within a few dozen
actions (the tie rule needs several deals with equal totals, so more).
"""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

import backalley
from backalley import Rules, apply, legal_actions, new_match
from backalley.cli import fuzz as fuzz_command
from backalley.cli import main
from backalley.core.action_index import action_index
from backalley.core.actions import Deal
from backalley.formats.checking import replay
from backalley.formats.records import loads
from backalley.protocol._codec import record_text
from backalley.protocol.cases import PROBE_DECK, Invalid, ScriptSource, new_match_line, walk_deal
from backalley.protocol.choices import RandomSource, draw_rules
from backalley.protocol.client import EngineProcess, ProtocolBroken
from backalley.protocol.coverage import REACHABLE_RULES, rules_reached, tiebreak_kinds
from backalley.protocol.fuzzer import (
    RARE_EVENTS,
    SAFE_SEEDS,
    Mode,
    Settings,
    fuzz,
    handshake,
    rare_events,
    reference_matches,
)
from backalley.protocol.messages import action_text
from backalley.protocol.server import Session

HERE = Path(__file__).resolve().parent
OWN = f"{sys.executable} -m backalley.protocol"

# The wrong engines change one rule by replacing a function of the engine's modules.
# In the compiled build, compiled callers are bound to the original functions when the
# wheel is built, so the replacement would not take and the engine would stay right:
# these tests check the fuzzer, which the pure-Python run does in full.
patches_the_engine = pytest.mark.skipif(
    backalley.__compiled__,
    reason="a wrong engine replaces engine functions, which compiled callers do not look up",
)


def wrong(name: str) -> str:
    return f"{sys.executable} {HERE / 'wrong_engines.py'} {name}"


# engine, the rule the message must cite, matches allowed, most actions after shrinking
WRONG = [
    ("follow_suit", "PLAY-2", 5, 30),
    ("follow_trump", "PLAY-3", 5, 30),
    ("trumps_broken", "PLAY-4", 5, 30),
    ("big_joker", "JOKER-1", 10, 30),
    ("little_joker", "JOKER-2", 10, 30),
    ("no_swap", "DEAL-4", 20, 30),
    ("board_multiplier", "BID-4", 10, 60),
    ("no_throw_in", "MATCH-3", 10, 30),
    ("first_board_leads", "BID-8", 10, 30),
    ("little_beats_big", "CARD-3", 20, 30),
    ("no_tiebreak", "END-3", 20, 60),
    ("north_deals_first", "MATCH-1", 5, 30),
    ("level_tiebreak_draw", "END-4", 40, 100),
    ("lone_big_not_forced", "JOKER-2", 60, 30),
    ("board_bidder_banned", "PLAY-5", 5, 30),
    ("passing_pair_vs_board", "SCORE-3", 10, 30),
    ("ace_low", "CARD-2", 10, 30),
    ("highest_rank_wins", "PLAY-7", 10, 30),
    ("winners_left_leads", "PLAY-8", 10, 30),
    ("deal_passes_counterclockwise", "MATCH-2", 10, 30),
    ("standard_one_one_card_deal", "SCHED-1", 40, 500),
    ("twenty_five_two_one_card_deals", "SCHED-2", 40, 500),
    ("short_one_one_card_deal", "SCHED-3", 80, 200),
    ("custom_reversed", "SCHED-4", 10, 30),
    ("dealt_from_the_dealer", "DEAL-1", 10, 30),
    ("last_card_turned", "DEAL-2", 10, 30),
    ("joker_turned_spades_trumps", "DEAL-3", 20, 30),
    ("dealer_bids_first", "BID-1", 10, 30),
    ("bid_the_hand_size", "BID-2", 10, 30),
    ("bids_must_increase", "BID-3", 10, 30),
    ("inherit_multiplier", "BID-5", 20, 60),
    ("larger_bid_is_the_target", "BID-6", 20, 60),
    ("no_overbid", "BID-7", 20, 30),
    ("throw_in_counts", "MATCH-4", 10, 30),
    ("counterclockwise_play", "PLAY-1", 10, 30),
    ("only_trumps_may_not_lead", "PLAY-6", 20, 30),
    ("lowest_without_trumps", "JOKER-3", 20, 30),
    ("joker_response_forces", "JOKER-4", 20, 30),
    ("nothing_against_a_board", "SCORE-1", 20, 60),
    ("no_overtricks", "SCORE-2", 20, 60),
    ("failed_board_costs_nothing", "SCORE-4", 20, 60),
    ("tiebreak_at_last_size", "END-3", 200, 100),
    ("partner_board_leads_trumps", "PLAY-5", 30, 30),
    ("tiebreak_dealer_leads", "END-3", 20, 60),
    ("swap_skips_a_card", "DEAL-4", 20, 30),
    ("lower_total_wins", "END-1", 20, 100),
    ("draw_goes_north_south", "END-2", 200, 100),
    ("range_before_turn", "BID-1", 10, 30),
    ("play_rule_before_holding", "PLAY-1", 10, 30),
    ("lowest_board_counts", "BID-5", 10, 60),
    ("failed_board_single", "SCORE-4", 10, 60),
    ("tiebreak_deal_scored", "END-3", 20, 100),
    ("custom_short", "SCHED-4", 10, 60),
    ("hook", "BID-2", 10, 30),
    ("jokers_below_the_ace", "CARD-3", 10, 30),
    ("swap_shown_to_all", "DEAL-5", 20, 30),
    ("hands_leaked", "DEAL-5", 10, 30),
]

RULES_PAGE = (HERE.parent / "docs" / "rules.md").read_text(encoding="utf-8")
PROMISES_PAGE = (HERE.parent / "docs" / "engine.md").read_text(encoding="utf-8")
PROTOCOL_PAGE = (HERE.parent / "docs" / "protocol.md").read_text(encoding="utf-8")
FUZZING_PAGE = (HERE.parent / "docs" / "fuzzing.md").read_text(encoding="utf-8")


def _not_broken_by_an_action() -> set[str]:
    """The rule IDs docs/protocol.md lists as not breakable through the protocol."""
    section = PROTOCOL_PAGE.split("Rules no action can break", 1)[1].split("\n\n|", 1)[1]
    rows = section.split("\n\n", 1)[0]
    return set(re.findall(r"^\| ([A-Z]+-\d+) \|", "|" + rows, re.M))


def test_the_wrong_engines_table_of_fuzzing_md_lists_each_engine_its_rule_and_budget():
    for name, rule, budget, _ in WRONG:
        assert f"(`{name}`) | {rule} | {budget} |" in FUZZING_PAGE, name


def test_every_rule_an_action_can_break_has_a_wrong_engine():
    """Each rule ID of docs/rules.md has a wrong engine cited by that ID, except those
    docs/protocol.md lists (with why) as not breakable through the protocol, as it lists
    the library's promises of docs/engine.md."""
    ids = set(re.findall(r"^### ([A-Z]+-\d+) ", RULES_PAGE + PROMISES_PAGE, re.M))
    exempt = _not_broken_by_an_action()
    assert exempt <= ids
    assert {rule for _, rule, _, _ in WRONG} == ids - exempt


def test_each_wrong_engine_is_tested_for_the_rule_it_breaks():
    """The table above and the engines' own table name the same rule for each engine."""
    sys.path.insert(0, str(HERE))
    import wrong_engines  # noqa: PLC0415 - the engines' module, run as a script elsewhere

    assert {name: rule for name, rule, _, _ in WRONG} == {
        name: rule for name, (rule, _) in wrong_engines.WRONG_RULES.items() if rule
    }


@patches_the_engine
@pytest.mark.parametrize(("name", "rule", "budget", "most"), WRONG)
def test_the_fuzzer_catches_each_wrong_engine_and_shrinks_it(name, rule, budget, most, tmp_path):
    status = main(
        ["fuzz", "--engine", wrong(name), "--matches", str(budget), "--out", str(tmp_path)]
    )
    assert status == 1
    message = (tmp_path / "difference.txt").read_text()
    assert f"({rule})" in message.splitlines()[0]
    # The record is a valid partial record of the position, and the requests replay it.
    record = loads((tmp_path / "difference.record.json").read_text())
    replay(record)
    requests = (tmp_path / "difference.jsonl").read_bytes().splitlines()
    actions = [line for line in requests if b'"apply"' in line]
    assert len(actions) <= most, len(actions)
    status = main(["fuzz", "--engine", wrong(name), "--replay", str(tmp_path / "difference.jsonl")])
    assert status == 1


@patches_the_engine
def test_the_replay_command_reproduces_the_difference(tmp_path, capsys):
    main(["fuzz", "--engine", wrong("little_joker"), "--matches", "10", "--out", str(tmp_path)])
    found = capsys.readouterr().out.splitlines()[0].removeprefix("fuzz: difference in match 1: ")
    requests = str(tmp_path / "difference.jsonl")
    assert main(["fuzz", "--engine", wrong("little_joker"), "--replay", requests]) == 1
    assert capsys.readouterr().out == f"fuzz: difference: {found}\n"
    assert main(["fuzz", "--engine", OWN, "--replay", requests]) == 0
    # The requests are plain protocol lines: our server answers every one of them.
    done = subprocess.run(
        [sys.executable, "-m", "backalley.protocol"],
        input=Path(requests).read_bytes(),
        capture_output=True,
        timeout=60,
        check=True,
    )
    assert b'"error"' not in done.stdout
    assert len(done.stdout.splitlines()) == len(Path(requests).read_bytes().splitlines())


def test_our_own_server_shows_no_difference(capsys):
    assert main(["fuzz", "--engine", OWN, "--matches", "40", "--seed", "3"]) == 0
    assert "no difference in 40 matches" in capsys.readouterr().out


@patches_the_engine
def test_the_located_message_names_position_action_reason_and_rule(tmp_path, capsys):
    main(["fuzz", "--engine", wrong("follow_suit"), "--matches", "5", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert re.match(r"fuzz: difference in match 1: deal 1 \((one card|\d+ cards)\), ", first)
    assert re.search(r", trick \d+, card [234], after [0-9JQKA]+[CDHS] by [A-Z][a-z]+: ", first)
    assert "you allow " in first
    assert "the rules forbid it: must_follow_suit (PLAY-2)" in first
    assert "replay: backalley fuzz --engine" in out


@patches_the_engine
def test_legality_mode_ignores_reason_codes_and_off_sends_no_illegal_actions(tmp_path):
    # An engine that refuses with the wrong reason: fine under legality, a difference
    # under strict; off never sends an illegal action at all.
    settings = Settings(matches=3, seed=1, mode=Mode.LEGALITY)
    assert fuzz(wrong("wrong_reasons"), settings).difference is None
    strict = fuzz(wrong("wrong_reasons"), Settings(matches=3, seed=1)).difference
    assert strict is not None
    assert "with wrong_phase, the rules refuse it with not_your_turn" in strict.message
    assert fuzz(wrong("follow_suit"), Settings(matches=3, seed=1, mode=Mode.OFF)).difference


@patches_the_engine
def test_replies_are_compared_by_meaning_before_any_replay(monkeypatch):
    """An engine that words its refusals, spaces and orders its replies its own way agrees
    with the rules: no difference, and no deal is replayed on the reference to find that
    out (the replay is only for explaining a difference)."""
    from backalley.protocol import fuzzer as fuzzer_module  # noqa: PLC0415

    replays = []
    walk = fuzzer_module.walk_deal

    def counting(*args, **kwargs):
        if kwargs.get("detail"):
            replays.append(1)
        return walk(*args, **kwargs)

    monkeypatch.setattr(fuzzer_module, "walk_deal", counting)
    result = fuzz(wrong("reworded"), Settings(matches=4, seed=5))
    assert result.difference is None
    assert replays == []
    # The same engine with a wrong reason code is a difference, explained after a replay.
    strict = fuzz(wrong("wrong_reasons"), Settings(matches=3, seed=1))
    assert strict.difference is not None
    assert replays


def test_same_meaning_compares_refusals_by_code_and_legal_lists_as_sets():
    from backalley.protocol.compare import same_meaning  # noqa: PLC0415

    want = b'{"type":"refused","reason":"must_follow_suit","message":"You must follow suit."}\n'
    other = b'{"reason": "must_follow_suit", "type": "refused", "message": "Follow!"}\n'
    wrong_code = b'{"type":"refused","reason":"wrong_phase","message":"You must follow suit."}\n'
    assert same_meaning(other, want, Mode.STRICT)
    assert not same_meaning(wrong_code, want, Mode.STRICT)
    assert same_meaning(wrong_code, want, Mode.LEGALITY)
    assert not same_meaning(b'{"type":"ok"}\n', want, Mode.LEGALITY)
    legal = b'{"type":"legal","actions":["N 2C","N 3C"]}\n'
    assert same_meaning(b'{"type":"legal","actions":["N 3C","N 2C"]}\n', legal, Mode.STRICT)
    assert not same_meaning(b'{"type":"legal","actions":["N 3C"]}\n', legal, Mode.STRICT)
    assert not same_meaning(b'{"type":"legal","actions":["N 3C","N 3C"]}\n', legal, Mode.STRICT)
    assert not same_meaning(b"not json\n", legal, Mode.STRICT)
    assert same_meaning(b'{"type": "ok"}\n', b'{"type":"ok"}\n', Mode.STRICT)


def test_an_engine_without_capabilities_is_fuzzed_without_them(capsys):
    command = wrong("minimal")
    assert main(["fuzz", "--engine", command, "--matches", "5", "--reasons", "legality"]) == 0
    assert main(["fuzz", "--engine", command, "--matches", "5"]) == 2
    assert "does not announce the 'reasons' capability" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("garbage", "not JSON"),
        ("hang", "did not answer"),
        ("exit", "exited"),
        ("crash_later", "exited"),
        ("no_hello", "hello"),
        # Every reply sent twice: seen as surplus replies, or, when the surplus arrives
        # after the exchange it belongs to, as the wrong reply to the next request.
        ("twice", r"replies to \d+ requests|expected an? \w+ reply, found"),
    ],
)
def test_an_engine_that_breaks_the_protocol_is_exit_2_with_its_stderr(name, words, capsys):
    # A short timeout only where the engine hangs: a busy machine may take more than a
    # second to start the others, which must fail for their own reason.
    timeout = "1" if name == "hang" else "10"
    status = main(["fuzz", "--engine", wrong(name), "--matches", "3", "--timeout", timeout])
    assert status == 2
    err = capsys.readouterr().err
    assert "the engine broke the protocol" in err
    assert re.search(words, err)
    if name in ("exit", "crash_later"):
        assert "engine: " in err  # the engine's own last words


def test_long_runs_show_a_progress_line(monkeypatch, capsys):
    monkeypatch.setattr(fuzz_command, "_PROGRESS_SECONDS", 0.0)
    assert main(["fuzz", "--engine", OWN, "--matches", "2", "--rules", "1"]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("fuzz: 1/2 matches, ")
    assert lines[1].startswith("fuzz: 2/2 matches, ")
    assert lines[1].endswith(" matches/s, no difference so far")


def test_a_command_that_cannot_start_is_exit_2(capsys):
    assert main(["fuzz", "--engine", "/nonexistent/engine"]) == 2
    assert "cannot start the engine" in capsys.readouterr().err


@pytest.mark.parametrize(
    "options",
    [["--matches", "-1"], ["--timeout", "0"], ["--rules", "3,x"], ["--rules", '{"schedule": 1}']],
)
def test_bad_options_are_one_line_and_exit_2(options, capsys):
    assert main(["fuzz", "--engine", OWN, *options]) == 2
    err = capsys.readouterr().err
    assert err.startswith("backalley fuzz: ")
    assert len(err.strip().splitlines()) == 1


@pytest.mark.skipif(shutil.which("cat") is None, reason="needs cat")
def test_an_engine_that_echoes_is_told_its_reply_is_no_hello(capsys):
    """``fuzz --engine cat``: the hello comes back unchanged, which the message says."""
    assert main(["fuzz", "--engine", "cat", "--matches", "1"]) == 2
    err = capsys.readouterr().err
    assert "the engine's reply to hello was not a hello (it sent the request back" in err
    assert "version None" not in err
    assert len(err.strip().splitlines()) == 1


def test_a_hung_engine_is_killed(tmp_path):
    engine = EngineProcess(wrong("hang"), timeout=0.5)
    assert handshake(engine) == {"legal", "reasons", "view"}
    with pytest.raises(ProtocolBroken, match=r"within 0\.5 s"):
        engine.exchange([b'{"type":"legal"}\n'])
    assert engine._process.poll() is not None
    engine.close()


def test_replies_that_are_the_expected_bytes_are_not_split_into_lines():
    """``exchange_expecting``: None for the expected bytes, else the lines as ``exchange``."""
    engine = EngineProcess(OWN)
    try:
        handshake(engine)
        start = b'{"type":"new_match","rules":{"schedule":[2]},"seed":5}\n'
        [facts] = engine.exchange([start])
        legal = b'{"type":"legal"}\n'
        [reply] = engine.exchange([legal])
        assert engine.exchange_expecting([legal, legal], reply + reply) is None
        assert engine.sent == 5
        # One byte off: the lines come back, each reply as it was sent.
        other = reply[:-3] + b"X]}\n"
        assert engine.exchange_expecting([legal, start], other + facts) == [reply, facts]
        # Fewer bytes than the replies: read to the last reply, not cut at the expected length.
        assert engine.exchange_expecting([legal, legal], reply[:10]) == [reply, reply]
        assert engine.sent == 9
    finally:
        engine.close()


def test_rules_options_fix_the_rules(tmp_path):
    rules = json.dumps({"schedule": [1], "tie": "draw", "first_dealer": "W"})
    assert main(["fuzz", "--engine", OWN, "--matches", "5", "--rules", rules]) == 0
    assert main(["fuzz", "--engine", OWN, "--matches", "2", "--rules", "3,2,1"]) == 0


@pytest.mark.slow
@pytest.mark.timeout(1800)  # minutes on a shared machine: past the suite's two-minute limit
def test_a_long_run_against_our_own_server_shows_no_difference():
    result = fuzz(OWN, Settings(matches=3000, seed=2026))
    assert result.difference is None
    assert result.matches == 3000


def test_the_default_run_reaches_every_rule_and_rare_ending_within_200_matches():
    """Every rule an action can break decides something, and tiebreak deals of every hand
    size and after a schedule ending below its largest, level tiebreaks, draws, four
    Boards, throw-in runs, turned jokers, swaps and a lone BIG after a LITTLE lead all
    happen, in the default run's first 200 matches (the counts are in docs/fuzzing.md,
    which scripts/fuzz_tables.py rewrites)."""
    seen, rules, kinds = Counter(), Counter(), Counter()
    for state in reference_matches(Settings(matches=200)):
        seen.update(rare_events(state))
        rules.update(rules_reached(state))
        kinds.update(tiebreak_kinds(state))
    assert [event for event in RARE_EVENTS if not seen[event]] == []
    assert [rule for rule in REACHABLE_RULES if not rules[rule]] == []
    assert kinds["tiebreak deal after a schedule ending below its largest size"]
    page = FUZZING_PAGE
    for event in RARE_EVENTS:
        assert f"| {event} | {seen[event]} |" in page, event
    for rule in REACHABLE_RULES:
        assert f"| [{rule}](rules.md#{rule}) | {rules[rule]} |" in page, rule
    for kind in (
        "tiebreak deal after a schedule ending on its largest size",
        "tiebreak deal after a schedule ending below its largest size",
        "tiebreak deal after a named schedule",
    ):
        assert f"| {kind} | {kinds[kind]} |" in page, kind


def test_the_rules_covered_are_the_rules_the_wrong_engines_break():
    """Coverage is counted for exactly the rules an action can break."""
    assert set(REACHABLE_RULES) == {rule for _, rule, _, _ in WRONG}
    ids = re.findall(r"^### ([A-Z]+-\d+) ", RULES_PAGE, re.M)
    assert list(REACHABLE_RULES) == [rule for rule in ids if rule in REACHABLE_RULES]


def test_rules_reached_sees_what_a_match_puts_to_the_test():
    """A one-card match of four passes then a deal: the throw-in rules and the dealing are
    reached, no trick rule is; a longer match reaches the trick rules."""
    state = new_match(Rules(schedule=[1]), seed=0)
    state = apply(state, PROBE_DECK)
    for _ in range(4):
        state = apply(state, legal_actions(state)[0])  # pass
    reached = rules_reached(state)
    assert {"MATCH-1", "MATCH-3", "MATCH-4", "DEAL-1", "SCHED-4"} <= reached
    assert not reached & {"PLAY-1", "PLAY-7", "CARD-2", "END-1"}
    played = new_match(Rules(schedule="short"), seed=3)
    while not played.is_over:
        played = apply(played, legal_actions(played)[-1])
    reached = rules_reached(played)
    # Every seat bids Board (the last legal bid): four Boards, each pair at its own multiplier.
    assert {"SCHED-3", "PLAY-1", "PLAY-7", "PLAY-8", "BID-8", "BID-4", "SCORE-4"} <= reached
    assert reached & {"END-1", "END-2", "END-3"}


def test_a_script_takes_its_steps_in_order_and_refuses_a_misfit() -> None:
    """A script gives its deck and moves in order, None after the last, Invalid for a misfit."""
    state = new_match(Rules(schedule=[1]), seed=0)
    dealt = apply(state, PROBE_DECK)
    legal = legal_actions(dealt)
    source = ScriptSource((("deal", PROBE_DECK.deck), ("move", action_index(legal[-1]))))
    assert source.deck(state) == PROBE_DECK.deck
    assert source.move(dealt, legal) == legal[-1]
    assert source.done()
    assert source.move(dealt, legal) is None
    assert source.deck(state) is None
    with pytest.raises(Invalid, match=r"^a move where a deal is due$"):
        ScriptSource((("move", 0),)).deck(state)
    with pytest.raises(Invalid, match=r"^a deal where a move is due$"):
        ScriptSource((("deal", PROBE_DECK.deck),)).move(dealt, legal)


def _documented_reason_pairs() -> set[tuple[str, str]]:
    page = (HERE.parent / "docs" / "conformance.md").read_text(encoding="utf-8")
    return set(re.findall(r"^\| `([a-z_]+)`, `([a-z_]+)` \| `[a-z_]+` \| ", page, re.M))


def test_the_probes_put_every_documented_pair_of_refusal_reasons_to_the_test():
    """In the default run's first 20 matches, the probes of illegal actions include, for
    every pair of reasons docs/conformance.md says can apply to one action, an action both
    apply to: judged by the outside implementation (tests/outsider.py), not the library."""
    sys.path.insert(0, str(HERE))
    import outsider  # noqa: PLC0415 - the outside implementation, beside the tests

    rng = random.Random(Settings().seed)
    pairs: set[tuple[str, str]] = set()
    for number in range(20):
        rules = draw_rules(rng, None, False, number)
        seed = rng.randrange(SAFE_SEEDS)
        session = Session()
        session.answer(new_match_line(rules, seed))
        source = RandomSource(rng, Settings().probes)
        for _ in range(200):  # a bound: a match has far fewer deals
            walked = walk_deal(session, source, detail=True)
            for item in walked.items or ():
                if item.kind != "probe":
                    continue
                match = outsider.replay(json.loads(record_text(item.before)))
                name = "deal" if isinstance(item.action, Deal) else action_text(item.action)
                found = sorted(match.reasons(name), key=outsider.REFUSAL_ORDER.index)
                pairs.update(
                    (first, second)
                    for index, first in enumerate(found)
                    for second in found[index + 1 :]
                )
            if walked.script.kind == "open":
                break
    documented = _documented_reason_pairs()
    assert len(documented) == 18
    assert documented - pairs == set()


def test_one_card_experiments_tell_the_board_rules_apart():
    """Each experiment of protocol.diagnose is scored wrong by the engine it is meant to
    catch and right by the others; our server scores all three right."""
    from backalley.protocol.diagnose import EXPERIMENTS, board_rule  # noqa: PLC0415

    assert [test.rule for test in EXPERIMENTS] == ["BID-4", "SCORE-4", "BID-5"]
    assert board_rule(OWN, 10.0, handshake) is None
    if backalley.__compiled__:
        return
    for name, rule in [
        ("board_multiplier", "BID-4"),
        ("failed_board_single", "SCORE-4"),
        ("failed_board_costs_nothing", "SCORE-4"),
        ("lowest_board_counts", "BID-5"),
    ]:
        assert board_rule(wrong(name), 10.0, handshake) == rule, name
    # A wrong rule that no experiment shows leaves the first citation to stand.
    assert board_rule(wrong("inherit_multiplier"), 10.0, handshake) is None
