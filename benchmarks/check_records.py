"""Validating recorded matches: records checked per second, as ``backalley check`` does it.

Run: ``python benchmarks/check_records.py [--records N] [--repeats R]``. Makes N
standard 26-deal records of seeded random play (their claimed scores included),
then times reading each from its JSON text, replaying every action through the
engine and comparing every claim. Prints the median of R repeats.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from backalley import Rules, apply, legal_actions, new_match
from backalley.formats.checking import check
from backalley.formats.records import dumps, loads, record_from_state


def make_records(count: int) -> list[str]:
    """The JSON text of ``count`` finished standard matches, with claims."""
    texts = []
    for seed in range(count):
        rng = random.Random(seed)
        state = new_match(Rules(), seed=seed)
        while not state.is_over:
            state = apply(state, rng.choice(legal_actions(state)))
        texts.append(dumps(record_from_state(state)))
    return texts


def check_all(texts: list[str]) -> float:
    """Seconds to read and check every record; each must come out valid."""
    start = time.perf_counter()
    for text in texts:
        report = check(loads(text))
        if not (report.complete and report.consistent):
            raise SystemExit("a generated record did not check out")
    return time.perf_counter() - start


def main() -> None:
    """Make the records, check them R times, print the median rate."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    texts = make_records(args.records)
    rates = [len(texts) / check_all(texts) for _ in range(args.repeats)]
    print(f"records checked per second (median of {args.repeats}): {statistics.median(rates):.0f}")
    print(f"repeats: {', '.join(f'{rate:.0f}' for rate in rates)}")


if __name__ == "__main__":
    main()
