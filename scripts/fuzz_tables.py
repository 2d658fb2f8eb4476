"""Rewrite the tables of docs/fuzzing.md that depend on the fuzzer's random draws.

The wrong engines' "caught in match" and "actions before → after shrinking"
columns (each engine fuzzed with seed 0 within its budget), and the default
run's coverage: how many of its first 200 matches put each rule to the test,
the rare events and the tiebreak kinds. Run it after changing the fuzzer's
choices (``backalley.protocol.choices``); ``tests/test_protocol_fuzz.py``
checks the coverage counts and each engine's rule and budget.

    python scripts/fuzz_tables.py           # rewrite docs/fuzzing.md
    python scripts/fuzz_tables.py --check   # exit 1 if the page is out of date
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

from backalley.protocol.coverage import REACHABLE_RULES, rules_reached, tiebreak_kinds
from backalley.protocol.fuzzer import RARE_EVENTS, Settings, fuzz, rare_events, reference_matches

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "fuzzing.md"
_ROW = re.compile(
    r"^(\| [^|]*\(`(?P<name>[a-z_]+)`\) \| (?P<rule>[A-Z]+-\d+) \| (?P<budget>\d+) \| )"
    r"[^|]* \| [^|]* \|$",
    re.M,
)


def _wrong_engine_columns(text: str) -> str:
    def row(match: re.Match[str]) -> str:
        name, budget = match["name"], int(match["budget"])
        command = f"{sys.executable} {ROOT / 'tests' / 'wrong_engines.py'} {name}"
        result = fuzz(command, Settings(matches=budget))
        found = result.difference
        if found is None:
            raise SystemExit(f"{name}: no difference within {budget} matches")
        after = sum(1 for line in found.requests if b'"apply"' in line)
        print(f"{name}: match {result.matches}, {found.found_actions} → {after}", file=sys.stderr)
        return f"{match[1]}{result.matches} | {found.found_actions} → {after} |"

    return _ROW.sub(row, text)


def _coverage(text: str) -> str:
    seen: Counter[str] = Counter()
    rules: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    for state in reference_matches(Settings(matches=200)):
        seen.update(rare_events(state))
        rules.update(rules_reached(state))
        kinds.update(tiebreak_kinds(state))
    for rule in REACHABLE_RULES:
        text = re.sub(
            rf"^\| \[{rule}\]\(rules\.md#{rule}\) \| \d+ \|$",
            f"| [{rule}](rules.md#{rule}) | {rules[rule]} |",
            text,
            flags=re.M,
        )
    for name, counts in [(event, seen) for event in RARE_EVENTS] + [
        (kind, kinds) for kind in sorted(set(kinds) | _kinds(text))
    ]:
        text = re.sub(
            rf"^\| {re.escape(name)} \| \d+ \|$", f"| {name} | {counts[name]} |", text, flags=re.M
        )
    return text


def _kinds(text: str) -> set[str]:
    return set(re.findall(r"^\| (tiebreak deal after [^|]+?) \| \d+ \|$", text, re.M))


def main() -> int:
    """Rewrite the page (or, with ``--check``, say whether it is current: exit 1 if not)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether the page is current")
    parser.add_argument("--coverage-only", action="store_true", help="skip the wrong engines")
    options = parser.parse_args()
    old = PAGE.read_text(encoding="utf-8")
    new = _coverage(old)
    if not options.coverage_only:
        new = _wrong_engine_columns(new)
    if options.check:
        return 0 if new == old else 1
    PAGE.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
