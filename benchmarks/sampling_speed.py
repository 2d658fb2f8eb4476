"""Measure information-set sampling: reading a view, drawing a whole match, drawing a deal.

Collects the views of the seat to move at every decision of a few heuristic
matches (short and standard schedules), then times, per view: building the
``InformationSet`` (reading the view and counting), ``sample`` (a whole match
state drawn and replayed through ``apply``) and ``DealSampler.draw_hands`` (the
deal in progress only, what a search player needs). Prints the median over
repeats of the mean time per view, in milliseconds (CPU time of this process).

    python benchmarks/sampling_speed.py --repeats 5
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from backalley import Rules, apply, legal_actions, new_match
from backalley.engine.sampling import InformationSet
from backalley.engine.view import SeatView, view
from backalley.players import HeuristicPlayer


def _views(schedule: str, matches: int) -> list[SeatView]:
    player = HeuristicPlayer()
    seen = []
    for seed in range(matches):
        state = new_match(Rules(schedule=schedule), seed=seed)
        while not state.is_over:
            seat = state.to_move
            if seat is None:
                state = apply(state, legal_actions(state)[0])
                continue
            own = view(state, seat)
            seen.append(own)
            state = apply(state, player(own, legal_actions(state)))  # type: ignore[arg-type]
    return seen


def _per_view_ms(views: list[SeatView], work: Callable[[SeatView], object]) -> float:
    start = time.process_time()
    for seen in views:
        work(seen)
    return 1000 * (time.process_time() - start) / len(views)


def _measure(schedule: str, matches: int, repeats: int) -> None:
    views = _views(schedule, matches)
    rng = random.Random(1)
    sets = {id(seen): InformationSet(seen) for seen in views}

    def whole(seen: SeatView) -> object:
        return sets[id(seen)].sample(rng)

    def deal_only(seen: SeatView) -> object:
        current = sets[id(seen)].current
        return None if current is None else current.draw_hands(rng)

    for name, work in (
        ("InformationSet(view)", InformationSet),
        ("sample (whole match)", whole),
        ("draw_hands (deal in progress)", deal_only),
    ):
        times = [_per_view_ms(views, work) for _ in range(repeats)]
        print(
            f"{schedule:8} {name:30} {statistics.median(times):7.3f} ms per view "
            f"({len(views)} views, median of {repeats})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--matches", type=int, default=2, help="matches per schedule")
    args = parser.parse_args()
    for schedule in ("short", "standard"):
        _measure(schedule, args.matches, args.repeats)


if __name__ == "__main__":
    main()
