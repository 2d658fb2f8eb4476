"""Tests of the conformance vectors: they match the code, and say what the docs say."""

import hashlib
import importlib.util
import json
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import outsider
from backalley import Card, Deal, IllegalAction, Reason, apply, legal_actions, seeded_deck
from backalley.formats.checking import check, replay
from backalley.formats.notation import action_text, parse_action
from backalley.formats.perft import perft
from backalley.formats.records import parse_record
from backalley.formats.serialize import snapshot

ROOT = Path(__file__).resolve().parent.parent
VECTORS = ROOT / "conformance"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "make_conformance", ROOT / "scripts" / "make_conformance.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _load(name: str) -> Any:
    return json.loads((VECTORS / name).read_text(encoding="utf-8"))


def test_files_are_up_to_date() -> None:
    """Regenerating the vectors in memory gives exactly the files in conformance/."""
    built = _generator().build()
    on_disk = {
        str(path.relative_to(VECTORS)): path.read_text(encoding="utf-8")
        for path in VECTORS.rglob("*.json")
    }
    assert sorted(built) == sorted(on_disk)
    stale = [name for name, text in built.items() if on_disk[name] != text]
    assert not stale, f"run scripts/make_conformance.py: {stale} are out of date"


def test_files_are_modest() -> None:
    """The vectors stay small enough to vendor into another project."""
    total = sum(path.stat().st_size for path in VECTORS.rglob("*.json"))
    assert total < 3_000_000


# --- dealing, reimplemented from docs/dealing.md alone -----------------------------------


def _words(seed: int, number: int, block: int) -> list[int]:
    digest = hashlib.sha256(
        b"backalley-deal-v1"
        + seed.to_bytes(8, "big")
        + number.to_bytes(4, "big")
        + block.to_bytes(4, "big")
    ).digest()
    return [int.from_bytes(digest[i : i + 4], "big") for i in range(0, 32, 4)]


def _draw(n: int, stream: list[int]) -> tuple[int, int]:
    """The drawn index and how many words it used, by the rejection rule of the docs."""
    limit = 2**32 - 2**32 % n
    for used, word in enumerate(stream, start=1):
        if word < limit:
            return word % n, used
    raise AssertionError("the stream ran out")


def _deck_from_docs(seed: int, number: int) -> list[str]:
    stream: list[int] = []
    block = 0
    deck = [card.code for card in Card]
    for i in range(53, 0, -1):
        while len(stream) < 8:
            stream.extend(_words(seed, number, block))
            block += 1
        j, used = _draw(i + 1, stream)
        del stream[:used]
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def test_dealing_vectors_follow_the_documented_algorithm() -> None:
    """Every deck vector is what docs/dealing.md's algorithm, written from scratch, produces."""
    vectors = _load("dealing.json")
    for vector in vectors["decks"]:
        expected = _deck_from_docs(vector["seed"], vector["deal_number"])
        assert vector["deck"] == expected
        assert [
            card.code for card in seeded_deck(vector["seed"], vector["deal_number"])
        ] == expected
    for block in vectors["blocks"]:
        assert block["words"] == _words(block["seed"], block["deal_number"], block["block"])


def test_draw_vectors_follow_the_rejection_rule() -> None:
    """The draw vectors show the rejection rule: words at or above the limit are skipped."""
    draws = _load("dealing.json")["draws"]
    assert any(draw["used"] > 1 for draw in draws)
    for draw in draws:
        assert draw["limit"] == 2**32 - 2**32 % draw["n"]
        assert _draw(draw["n"], draw["words"]) == (draw["j"], draw["used"])


# --- positions, deals, records and perft ----------------------------------------------------


def _verdict(state: Any, name: str) -> str:
    action = (
        Deal(seeded_deck(state.seed, state.deal_number)) if name == "deal" else parse_action(name)
    )
    try:
        apply(state, action)
    except IllegalAction as refusal:
        return refusal.reason.value
    return "legal"


def test_positions_verdicts() -> None:
    """Each position replays to its snapshot, and every action's verdict is as listed."""
    vectors = _load("positions.json")
    universe = vectors["universe"]
    assert len(universe) == 1 + 4 * (15 + 54)
    reasons = set()
    for position in vectors["positions"]:
        state = replay(parse_record(position["record"]))
        assert snapshot(state) == position["snapshot"], position["name"]
        every = ["deal" if isinstance(a, Deal) else action_text(a) for a in legal_actions(state)]
        # legal_actions lists the players' moves, as the protocol's legal reply: the deal is
        # a chance action, legal among the verdicts but no player's move.
        legal = [name for name in every if name != "deal"]
        assert legal == position["legal_actions"], position["name"]
        verdicts = [_verdict(state, name) for name in universe]
        assert verdicts == position["verdicts"], position["name"]
        assert sorted(n for n, v in zip(universe, verdicts, strict=True) if v == "legal") == sorted(
            every
        )
        reasons.update(verdicts)
    assert reasons == {reason.value for reason in Reason} | {"legal"}


def test_deals_and_their_scores() -> None:
    """Each single-deal record checks out, and its deals score as the vectors say."""
    for entry in _load("deals.json")["deals"]:
        report = check(parse_record(entry["record"]))
        assert report.complete and report.consistent, entry["name"]
        history = report.state.history
        assert [list(result.scores) for result in history] == [
            d["scores"] for d in entry["expected"]
        ]
        assert [d["thrown_in"] for d in entry["expected"]] == [
            result.thrown_in for result in history
        ]


@pytest.mark.parametrize(
    "name", ["standard", "twenty-five", "short", "short-draw", "tiebreak-deal"]
)
def test_match_variants(name: str) -> None:
    """The whole-match records cover each variant and their claims are right."""
    data = _load(f"records/{name}.json")
    report = check(parse_record(data))
    assert report.complete and report.consistent
    outcome = report.state.outcome
    assert outcome is not None
    expected = {"short-draw": "draw", "tiebreak-deal": "tiebreak-deal"}.get(name, "score")
    assert outcome.termination.value == expected


def test_perft_counts() -> None:
    """The perft counts are what perft computes from each recorded position."""
    for position in _load("perft.json")["positions"]:
        state = replay(parse_record(position["record"]))
        counts = position["counts"]
        assert counts[0] == 1
        assert [perft(state, depth) for depth in range(len(counts))] == counts, position["name"]


# --- every value, recomputed from the docs alone (tests/outsider.py) -------------------------
#
# The tests above compare the files with the engine; these compare them with an
# implementation written from the documentation that imports nothing of backalley, so
# that a slip the generator and the engine share (seat 0 taken as "no winner") is caught.


def test_the_outsider_imports_nothing_of_backalley() -> None:
    source = (ROOT / "tests" / "outsider.py").read_text(encoding="utf-8")
    assert "backalley" not in "".join(
        line for line in source.splitlines() if line.startswith(("import", "from"))
    )


def test_every_file_has_its_format_and_version() -> None:
    formats = {
        "dealing.json": "backalley-dealing-vectors",
        "positions.json": "backalley-positions",
        "deals.json": "backalley-deals",
        "perft.json": "backalley-perft",
    }
    for name, kind in formats.items():
        data = _load(name)
        assert (data["format"], data["version"]) == (kind, 1)
    assert _load("dealing.json")["algorithm"] == "docs/dealing.md"
    for path in (VECTORS / "records").glob("*.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        assert (data["format"], data["version"]) == ("backalley-record", 1)


def test_the_universe_is_the_documented_list() -> None:
    expected = ["deal"]
    for seat in outsider.SEATS:
        expected += [f"{seat} pass", *(f"{seat} {n}" for n in range(1, 14)), f"{seat} board"]
        expected += [f"{seat} {card}" for card in outsider.CODES]
    assert _load("positions.json")["universe"] == expected


def test_dealing_vectors_by_the_outsider() -> None:
    for vector in _load("dealing.json")["decks"]:
        assert vector["deck"] == outsider.seeded_deck(vector["seed"], vector["deal_number"])


def _kind_holds(name: str, match: outsider.Match) -> bool:
    """Whether a position is of the kind its name says (docs/conformance.md)."""
    deal = match.deal
    seat = match.to_move()
    hand = deal["hands"][seat] if deal is not None and seat is not None else []
    trumps = [card for card in hand if match.is_trump(card)]
    trick = deal["trick"] if deal is not None else []
    leading = match.phase == "play" and not trick
    led = trick[0] if trick else None
    bid_board = (
        match.phase == "play"
        and seat is not None
        and not deal["tiebreak"]
        and deal["bids"][(seat - deal["dealer"] - 1) % 4] == "board"
    )
    kinds = {
        "between-deals": lambda: match.phase == "deal" and match.deal_number > 0,
        "first-bid": lambda: match.phase == "bid" and not deal["bids"] and deal["hand_size"] > 1,
        "dealer-bids": lambda: match.phase == "bid" and len(deal["bids"]) == 3,
        "one-card-bid": lambda: match.phase == "bid" and deal["hand_size"] == 1,
        "trumps-not-broken": lambda: (
            leading and not deal["broken"] and 0 < len(trumps) < len(hand) and not bid_board
        ),
        "board-bidder-leads-trumps": lambda: (
            leading and not deal["broken"] and 0 < len(trumps) < len(hand) and bid_board
        ),
        "only-trumps-lead": lambda: (
            leading
            and deal["trump"] is not None
            and not deal["broken"]
            and len(trumps) == len(hand) > 1
        ),
        "follow-suit": lambda: (
            led is not None
            and not match.is_trump(led)
            and 0 < sum(outsider.suit_of(c) == outsider.suit_of(led) for c in hand) < len(hand)
        ),
        "follow-trump": lambda: (
            led is not None
            and not outsider.is_joker(led)
            and match.is_trump(led)
            and 0 < len(trumps) < len(hand)
        ),
        "big-joker-led": lambda: led == "BIG" and len(trumps) >= 2,
        "little-joker-led": lambda: led == "LITTLE" and len(trumps) >= 2,
        "little-led-only-big": lambda: led == "LITTLE" and trumps == ["BIG"],
        "no-trumps": lambda: match.phase == "play" and deal["trump"] is None and bool(trick),
        "tiebreak-lead": lambda: leading and deal["tiebreak"] and not deal["tricks"],
        "after-level-tiebreak": lambda: (
            match.phase == "deal"
            and bool(match.finished)
            and match.finished[-1]["tiebreak"]
            and match.finished[-1]["tricks_won"][0] == match.finished[-1]["tricks_won"][1]
            and match.in_tiebreak
        ),
        "match-over": lambda: match.phase == "over",
    }
    if name.startswith("standard-step-"):
        return True
    return bool(kinds[name]())


def test_positions_by_the_outsider() -> None:
    """Each position's snapshot, legal actions and every verdict, recomputed from the docs."""
    vectors = _load("positions.json")
    universe = vectors["universe"]
    names = [position["name"] for position in vectors["positions"]]
    assert len(set(names)) == len(names)
    for position in vectors["positions"]:
        match = outsider.replay(position["record"])
        name = position["name"]
        assert match.snapshot() == position["snapshot"], name
        assert [action for action in match.legal() if action != "deal"] == position[
            "legal_actions"
        ], name
        verdicts = [match.refusal(action) or "legal" for action in universe]
        assert verdicts == position["verdicts"], name
        assert {letter: match.view(at) for at, letter in enumerate("NESW")} == position["views"], (
            name
        )
        assert _kind_holds(name, match), name
        assert isinstance(position["description"], str) and position["description"]
    assert {
        "between-deals",
        "first-bid",
        "dealer-bids",
        "one-card-bid",
        "trumps-not-broken",
        "board-bidder-leads-trumps",
        "only-trumps-lead",
        "follow-suit",
        "follow-trump",
        "big-joker-led",
        "little-joker-led",
        "little-led-only-big",
        "no-trumps",
        "tiebreak-lead",
        "match-over",
    } <= set(names)


def _claims_hold(record: dict[str, Any], match: outsider.Match) -> None:
    """A record's claimed scores, totals and result are what the outsider computes."""
    for claimed, played in zip(record["deals"], match.finished, strict=False):
        assert claimed["scores"] == played["scores"]
    if "totals" in record:
        assert record["totals"] == match.totals
    if "result" in record:
        assert record["result"] == match.outcome


def test_deals_by_the_outsider() -> None:
    """Every field of every deal's expected list, recomputed from the docs."""
    entries = _load("deals.json")["deals"]
    names = [entry["name"] for entry in entries]
    assert names[:13] == [f"{size}-cards" for size in range(1, 14)]
    assert set(names[13:]) == {"turned-joker-swap", "thrown-in", "all-board"}
    for entry in entries:
        record = entry["record"]
        match = outsider.replay(record)
        assert match.outcome is not None, entry["name"]
        _claims_hold(record, match)
        expected = [
            {
                "dealer": outsider.SEATS[deal["dealer"]],
                "hand_size": deal["hand_size"],
                "turned": deal["turned"],
                "trump": deal["trump"],
                "swap": deal["swap"],
                "thrown_in": deal["thrown_in"],
                "contracts": deal["contracts"],
                "winners": [outsider.SEATS[trick["winner"]] for trick in deal["tricks"]],
                "tricks_won": deal["tricks_won"],
                "scores": deal["scores"],
            }
            for deal in match.finished
        ]
        assert entry["expected"] == expected, entry["name"]
        for deal in entry["expected"]:
            assert len(deal["winners"]) == (0 if deal["thrown_in"] else deal["hand_size"])
    by_name = {entry["name"]: entry["expected"] for entry in entries}
    assert any(deal["swap"] is not None for deal in by_name["turned-joker-swap"])
    assert by_name["thrown-in"][0]["thrown_in"]
    assert any(
        [c["multiplier"] for c in deal["contracts"] or []] in ([4, 3], [3, 4])
        for deal in by_name["all-board"]
    )


@pytest.mark.parametrize("path", sorted((VECTORS / "records").glob("*.json")), ids=lambda p: p.stem)
def test_records_by_the_outsider(path: Path) -> None:
    """Each whole-match record replays by the docs to its claimed scores, totals and result."""
    record = json.loads(path.read_text(encoding="utf-8"))
    match = outsider.replay(record)
    _claims_hold(record, match)
    rules = record["rules"]
    expected = {
        "standard": ("standard", "draw", "N", "score"),
        "twenty-five": ("twenty-five", "draw", "S", "score"),
        "short": ("short", "draw", "N", "score"),
        "short-draw": ("short", "draw", "N", "draw"),
        "tiebreak-deal": ("short", "tiebreak-deal", "N", "tiebreak-deal"),
        "explicit-decks": ([3, 2, 1], "draw", "W", "score"),
        "partial": ("short", "draw", "N", None),
    }[path.stem]
    termination = None if match.outcome is None else match.outcome["termination"]
    assert (rules["schedule"], rules["tie"], rules["first_dealer"], termination) == expected
    if path.stem == "explicit-decks":
        assert all(isinstance(deal["deck"], list) for deal in record["deals"])
    if path.stem == "partial":
        assert "scores" not in record["deals"][-1] and match.deal is not None


PERFT_NODES = 60_000
"""The outsider's perft (plain Python, copying states) counts up to this many sequences a
position in the default run; ``pytest -m slow`` counts every depth."""


def _perft_depths(counts: list[int], budget: int | None) -> int:
    depth, spent = 0, 0
    while depth + 1 < len(counts) and (budget is None or spent + counts[depth + 1] <= budget):
        depth += 1
        spent += counts[depth]
    return depth


@pytest.mark.parametrize(
    "budget", [PERFT_NODES, pytest.param(None, marks=[pytest.mark.slow, pytest.mark.timeout(1800)])]
)
def test_perft_by_the_outsider(budget: int | None) -> None:
    for position in _load("perft.json")["positions"]:
        match = outsider.replay(position["record"])
        counts = position["counts"]
        depth = _perft_depths(counts, budget)
        assert depth >= min(3, len(counts) - 1), position["name"]
        assert [outsider.perft(match, d) for d in range(depth + 1)] == counts[: depth + 1]


def _keys(data: Any) -> set[str]:
    if isinstance(data, dict):
        return set(data) | {key for value in data.values() for key in _keys(value)}
    if isinstance(data, list):
        return {key for value in data for key in _keys(value)}
    return set()


def test_every_field_of_every_file_is_documented() -> None:
    """Each key of the vector files is named in docs/conformance.md; the records' in
    docs/records.md."""
    page = (ROOT / "docs" / "conformance.md").read_text(encoding="utf-8")
    for name in ("dealing.json", "positions.json", "deals.json", "perft.json"):
        data = _load(name)
        undocumented = sorted(
            key
            for key in _keys(data) - _record_keys(data)
            if not any(form in page for form in (f"`{key}`", f".{key}`", f'"{key}"'))
        )
        assert not undocumented, (name, undocumented)
    records_page = (ROOT / "docs" / "records.md").read_text(encoding="utf-8")
    for path in (VECTORS / "records").glob("*.json"):
        keys = _keys(json.loads(path.read_text(encoding="utf-8")))
        assert all(f"`{key}`" in records_page or f'"{key}"' in records_page for key in keys), path


def _record_keys(data: Any) -> set[str]:
    """The keys inside the records a vector file embeds (documented in docs/records.md)."""
    found: set[str] = set()
    for group in ("positions", "deals"):
        for entry in data.get(group, []) if isinstance(data, dict) else []:
            found |= _keys(entry.get("record", {})) - _keys(
                {k: v for k, v in entry.items() if k != "record"}
            )
    return found


# --- the order of refusal reasons -----------------------------------------------------------

_CONFORMANCE_PAGE = (ROOT / "docs" / "conformance.md").read_text(encoding="utf-8")
_PROTOCOL_PAGE = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")


def _documented_order() -> list[str]:
    section = _CONFORMANCE_PAGE.split("### The order of refusal reasons", 1)[1]
    return re.findall(r"^\d+\. `([a-z_]+)`$", section.split("| reasons that apply")[0], re.M)


def _documented_pairs() -> dict[tuple[str, str], tuple[str, str]]:
    """Each documented pair of reasons: its verdict and its example position."""
    pairs = {}
    for first, second, verdict, where in re.findall(
        r"^\| `([a-z_]+)`, `([a-z_]+)` \| `([a-z_]+)` \| `([a-z0-9-]+)`: ", _CONFORMANCE_PAGE, re.M
    ):
        pairs[first, second] = (verdict, where)
    return pairs


def test_one_order_of_refusal_reasons_in_both_pages_and_the_outsider() -> None:
    """conformance.md's numbered order is the outsider's, names every reason code once, and
    protocol.md's sentence and table give the same order."""
    order = _documented_order()
    assert order == outsider.REFUSAL_ORDER
    codes = {reason.value for reason in Reason}
    assert sorted(order) == sorted(codes)
    sentence = re.search(r"first in the table's order is given: (.*?)\. So", _PROTOCOL_PAGE, re.S)
    assert sentence is not None
    assert re.findall(r"`([a-z_]+)`", sentence.group(1)) == order
    rows = _PROTOCOL_PAGE.split("| reason | when | rule |")[1].split("\n\n")[0]
    assert re.findall(r"^\| `([a-z_]+)` \| ", rows, re.M) == order


def test_every_pair_of_reasons_that_can_apply_is_documented_with_a_position() -> None:
    """The pairs of reasons that apply together somewhere in positions.json are exactly the
    documented pairs; each documented example position shows its pair, and the verdict
    there is the first of the pair in the order, as the engine gives it."""
    vectors = _load("positions.json")
    universe = vectors["universe"]
    order = outsider.REFUSAL_ORDER
    documented = _documented_pairs()
    seen: dict[tuple[str, str], set[str]] = {}
    for position in vectors["positions"]:
        match = outsider.replay(position["record"])
        for action, verdict in zip(universe, position["verdicts"], strict=True):
            found = sorted(match.reasons(action), key=order.index)
            if found:
                assert verdict == found[0], (position["name"], action, found)
            for index, first in enumerate(found):
                for second in found[index + 1 :]:
                    seen.setdefault((first, second), set()).add(position["name"])
    assert set(seen) == set(documented)
    for pair, (verdict, where) in documented.items():
        assert verdict == pair[0]
        assert where in seen[pair], (pair, where)


def test_the_outsiders_reasons_refuse_exactly_what_the_engine_refuses() -> None:
    """An action no reason applies to is legal, and only such actions are."""
    vectors = _load("positions.json")
    for position in vectors["positions"][:8]:
        match = outsider.replay(position["record"])
        for action, verdict in zip(vectors["universe"], position["verdicts"], strict=True):
            assert (verdict == "legal") == (not match.reasons(action)), (position["name"], action)


@pytest.mark.rule("DEAL-5")
def test_the_views_cover_every_kind_of_moment_and_a_swap() -> None:
    """positions.json has every seat's view before a deal, in the bidding, in play, in a
    tiebreak deal and after the match, and a position where one seat alone sees a swap."""
    positions = _load("positions.json")["positions"]
    phases = {position["snapshot"]["phase"] for position in positions}
    assert phases == {"deal", "bid", "play", "over"}
    assert any(position["name"] == "tiebreak-lead" for position in positions)
    swapped = [
        position
        for position in positions
        if any(view["swap"] is not None for view in position["views"].values())
    ]
    assert swapped
    for position in swapped:
        assert sum(view["swap"] is not None for view in position["views"].values()) == 1
    for position in positions:
        assert sorted(position["views"]) == ["E", "N", "S", "W"]
        for letter, view in position["views"].items():
            assert view["seat"] == letter
            assert view["hand"] == position["snapshot"]["hands"][letter]
