"""One workload per run, for counting its instructions under valgrind (load-independent).

Run: ``valgrind --tool=callgrind --callgrind-out-file=/dev/null python
benchmarks/workloads.py WORK N`` for WORK in ``none`` (imports and set-up only,
to subtract), ``raw`` (N random standard playouts), ``simulate-random``,
``simulate-heuristic`` (``simulate`` of N matches), ``check`` (N records, made
before the count starts are subtracted through ``make-records``), ``fuzz-walk``
(the fuzzer's walk of N matches and a protocol server answering its lines, in one
process), ``fuzz`` (the fuzzer's own process fuzzing ``python -m backalley.protocol``
for N standard matches: add ``--trace-children=no`` so that the server is not
counted) and ``observe`` (a seat's information-state tensor written at every step
of N standard matches, through the adapters' kept views). Compare the
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
    elif work == "fuzz-walk":
        fuzz_walk(matches)
    elif work == "fuzz":
        fuzz_run(matches)
    elif work == "observe":
        observe(matches)
    elif work != "none":
        raise SystemExit(f"unknown workload {work!r}")


def fuzz_walk(matches: int) -> None:
    """The fuzzer's walk of ``matches`` matches, then a server answering every line it wrote."""
    from backalley.protocol.cases import new_match_line, walk_deal  # noqa: PLC0415
    from backalley.protocol.choices import RandomSource  # noqa: PLC0415
    from backalley.protocol.fuzzer import SAFE_SEEDS, draw_rules  # noqa: PLC0415
    from backalley.protocol.server import Session  # noqa: PLC0415

    rng = random.Random(0)
    for _ in range(matches):
        rules = draw_rules(rng, Rules(), True)
        first = new_match_line(rules, rng.randrange(SAFE_SEEDS))
        session = Session()
        session.answer(first)
        source = RandomSource(rng, 3)
        lines, expected = [], []
        while True:
            walked = walk_deal(session, source)
            lines += walked.lines
            expected += walked.expected
            if walked.script.kind == "open":
                break
        server = Session()
        server.answer(first)
        assert [server.answer(line) for line in lines] == expected


def fuzz_run(matches: int) -> None:
    """``backalley fuzz`` of ``matches`` standard matches against our own server."""
    import shlex  # noqa: PLC0415

    from backalley.protocol.fuzzer import Mode, Settings, fuzz  # noqa: PLC0415

    settings = Settings(
        matches=matches, seed=1, rules=Rules(), schedule_only=True, mode=Mode.STRICT
    )
    result = fuzz(f"{shlex.quote(sys.executable)} -m backalley.protocol", settings)
    assert result.difference is None


def observe(matches: int) -> None:
    """The information state of the seat to move at every step of ``matches`` standard matches."""
    from backalley.adapters._views import seat_view  # noqa: PLC0415
    from backalley.adapters.encoding import (  # noqa: PLC0415
        INFORMATION_STATE,
        write_information_state,
    )

    rng = random.Random(2)
    out = [0.0] * INFORMATION_STATE.size
    for seed in range(matches):
        state = new_match(Rules(), seed=seed)
        while not state.is_over:
            if state.deal is not None:
                write_information_state(seat_view(state, state.to_move), out)
            state = apply(state, rng.choice(legal_actions(state)))


if __name__ == "__main__":
    main()
