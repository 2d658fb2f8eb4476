"""One workload per run, for counting its instructions under valgrind (load-independent).

Run: ``valgrind --tool=callgrind --callgrind-out-file=/dev/null python
benchmarks/workloads.py WORK N`` for WORK in ``none`` (imports and set-up only,
to subtract), ``raw`` (N random standard playouts), ``simulate-random``,
``simulate-heuristic`` (``simulate`` of N matches) and ``check`` (N records, made
before the count starts are subtracted through ``make-records``). Compare the
``Collected`` figures, less that of ``none`` (or of ``make-records``).
"""

from __future__ import annotations

import random
import sys

from backalley import Rules, apply, legal_actions, new_match
from backalley.formats.checking import check
from backalley.formats.records import dumps, loads, record_from_state
from backalley.players.simulation import simulate


def playouts(matches: int) -> list:
    """The final states of ``matches`` random standard playouts, seeds 0 and on."""
    finals = []
    for seed in range(matches):
        choice = random.Random(seed).choice
        state = new_match(Rules(), seed=seed)
        while not state.is_over:
            state = apply(state, choice(legal_actions(state)))
        finals.append(state)
    return finals


def main() -> None:
    """Run the named workload."""
    work, matches = sys.argv[1], int(sys.argv[2])
    if work == "raw":
        playouts(matches)
    elif work.startswith("simulate-"):
        kind = work.removeprefix("simulate-")
        simulate(kind, kind, Rules(), seed=1, matches=matches)
    elif work in ("make-records", "check"):
        texts = [dumps(record_from_state(state)) for state in playouts(matches)]
        if work == "check":
            for text in texts:
                assert check(loads(text)).consistent
    elif work != "none":
        raise SystemExit(f"unknown workload {work!r}")


if __name__ == "__main__":
    main()
