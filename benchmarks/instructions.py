"""Machine instructions per player action, counted by valgrind: a figure that load cannot move.

Run: ``python benchmarks/instructions.py [--python PATH] [--openspiel]``; needs
``valgrind`` on the PATH. On a shared, busy machine a clock measures the neighbours
as much as the engine; the count of instructions executed does not. Each figure is
the difference between two runs of the same positions, replayed twice and once, so
interpreter start-up, imports and building the positions cancel out. It counts the
same work as ``compare_openspiel.py`` (legal actions + seeded choice + apply, for
the player actions of seeded random standard matches, or of OpenSpiel's ``oh_hell``
games) but says nothing about how fast each instruction runs: read it beside the
timed figures, never instead of them.

``--solver`` counts the double-dummy search instead: instructions per search node,
solving the first lead of ``--solver-deals`` random deals of ``--solver-size``
cards (``solve_speed.py``'s deals) twice and once.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
OPENSPIEL_GAME = "oh_hell(players=4,num_tricks_fixed=12)"


def ours(matches: int, passes: int) -> int:
    """Replay the player actions of ``matches`` matches ``passes`` times; their count."""
    from backalley import Deal, Rules, apply, legal_actions, new_match  # noqa: PLC0415

    rng = random.Random(1)
    positions = []
    for seed in range(matches):
        state = new_match(Rules(), seed=seed)
        while not state.is_over:
            action = rng.choice(legal_actions(state))
            if type(action) is not Deal:
                positions.append(state)
            state = apply(state, action)
    for _ in range(passes):
        choice = random.Random(2).choice
        for state in positions:
            apply(state, choice(legal_actions(state)))
    return len(positions)


def deals(matches: int, passes: int) -> int:
    """Apply the seeded first deal of ``matches`` seeds ``passes`` times (no shuffle counted)."""
    from backalley import Rules, apply, new_match, seeded_deal  # noqa: PLC0415

    starts = [new_match(Rules(), seed=seed) for seed in range(matches)]
    chosen = [seeded_deal(state) for state in starts]
    for _ in range(passes):
        for state, deal in zip(starts, chosen, strict=True):
            apply(state, deal)
    return len(starts)


SOLVER_SIZE = 8
"""The hand size of the deals ``--solver`` solves (``--solver-size``)."""


def solver(deals: int, passes: int) -> int:
    """Solve the first lead of ``deals`` random deals ``passes`` times; the nodes of one pass."""
    sys.path.insert(0, str(HERE))
    from solve_speed import first_leads  # noqa: PLC0415

    from backalley.core.position import to_move  # noqa: PLC0415
    from backalley.solver import Search, solve_position  # noqa: PLC0415

    size = int(os.environ.get("SOLVER_SIZE", SOLVER_SIZE))
    starts = [state.position for state in first_leads(size, deals, 2026 + size)]
    nodes = 0
    # Passes 0 (the run that is not counted) solves once, for the number of nodes.
    for _ in range(max(passes, 1)):
        nodes = 0
        for pos in starts:
            search = Search.of(pos, to_move(pos) % 2)
            solve_position(pos, search)
            nodes += search.nodes
    return nodes


def theirs(games: int, passes: int) -> int:
    """The same on OpenSpiel's Oh Hell: replay each game's player actions from clones."""
    import pyspiel  # noqa: PLC0415 -- optional: only this comparison needs it

    game = pyspiel.load_game(OPENSPIEL_GAME)
    rng = random.Random(1)
    positions = []
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
            else:
                positions.append(state.clone())
                state.apply_action(rng.choice(state.legal_actions()))
    # Applying changes an OpenSpiel state in place: each pass works on fresh clones, as
    # our immutable states need no copy. Two batches are always made, so that the
    # difference between two passes and one counts no cloning.
    batches = [[position.clone() for position in positions] for _ in range(2)]
    for batch in batches[:passes]:
        choice = random.Random(2).choice
        for state in batch:
            state.apply_action(choice(state.legal_actions()))
    return len(positions)


def callgrind_count(command: list[str], env: dict[str, str]) -> int:
    """Instructions executed by ``command`` (an interpreter and its arguments) under callgrind.

    Run from the benchmarks folder; ``montecarlo_speed.py`` counts its decisions with it too.
    """
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "callgrind.out"
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *command],
            capture_output=True,
            env=env,
            cwd=HERE,
            check=True,
        )
        summary = re.search(r"^summary: (\d+)", out.read_text(), re.MULTILINE)
        assert summary is not None, "no summary line in the callgrind output"
        return int(summary.group(1))


def counted(python: str, which: str, size: int, passes: int, env: dict[str, str]) -> int:
    """Instructions executed by one worker run under callgrind."""
    return callgrind_count([python, __file__, "--worker", which, str(size), str(passes)], env)


def main() -> None:
    """Count each engine's instructions per player action and print them."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--python", action="append", default=[], help="an interpreter to count")
    parser.add_argument("--source", action="store_true", help="also count this checkout's src/")
    parser.add_argument(
        "--tree",
        action="append",
        default=[],
        help="a source tree to count (with any extension modules built in place beside it)",
    )
    parser.add_argument("--openspiel", action="store_true", help="also count OpenSpiel")
    parser.add_argument(
        "--deals", action="store_true", help="count an apply of a Deal instead of a player action"
    )
    parser.add_argument(
        "--solver", action="store_true", help="count a node of the double-dummy search instead"
    )
    parser.add_argument("--solver-deals", type=int, default=20)
    parser.add_argument("--solver-size", type=int, default=SOLVER_SIZE)
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        which, size, passes = args.worker
        run = {"ours": ours, "deals": deals, "theirs": theirs, "solver": solver}[which]
        print(run(int(size), int(passes)))
        return
    base = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    runs: list[tuple[str, str, str, int, dict[str, str]]] = []
    if args.source:
        source = {**base, "PYTHONPATH": str(HERE.parent / "src")}
        runs.append(("src/ (pure Python)", sys.executable, "ours", args.matches, source))
    runs.extend(
        (tree, sys.executable, "ours", args.matches, {**base, "PYTHONPATH": tree})
        for tree in args.tree
    )
    runs.extend((python, python, "ours", args.matches, base) for python in args.python)
    if args.openspiel:
        runs.append(("OpenSpiel oh_hell", sys.executable, "theirs", args.games, base))
    if args.deals:
        runs = [
            (label, python, "deals", 200, env)
            for label, python, which, _, env in runs
            if which == "ours"
        ]
    if args.solver:
        runs = [
            (
                label,
                python,
                "solver",
                args.solver_deals,
                {**env, "SOLVER_SIZE": str(args.solver_size)},
            )
            for label, python, which, _, env in runs
            if which == "ours"
        ]
    for label, python, which, size, env in runs:
        done = subprocess.run(
            [python, __file__, "--worker", which, str(size), "0"],
            capture_output=True,
            text=True,
            env=env,
            cwd=HERE,
            check=True,
        )
        actions = int(done.stdout)
        twice = counted(python, which, size, 2, env)
        once = counted(python, which, size, 1, env)
        what = "apply of a Deal" if args.deals else "player action"
        if which == "solver":
            what = f"search node ({actions} nodes, {args.solver_size}-card deals)"
        print(f"{label:48} {(twice - once) / actions:10.0f} instructions per {what}")


if __name__ == "__main__":
    main()
