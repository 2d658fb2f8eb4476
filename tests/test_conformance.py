"""Tests of the conformance vectors: they match the code, and say what the docs say."""

import hashlib
import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from backalley import Card, Deal, IllegalAction, Reason, apply, legal_actions, seeded_deck
from backalley.formats.checking import check, replay
from backalley.formats.codec import snapshot
from backalley.formats.notation import action_text, parse_action
from backalley.formats.perft import perft
from backalley.formats.records import parse_record

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
        legal = ["deal" if isinstance(a, Deal) else action_text(a) for a in legal_actions(state)]
        assert legal == position["legal_actions"], position["name"]
        verdicts = [_verdict(state, name) for name in universe]
        assert verdicts == position["verdicts"], position["name"]
        assert sorted(n for n, v in zip(universe, verdicts, strict=True) if v == "legal") == sorted(
            legal
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
