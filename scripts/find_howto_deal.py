"""Search for the how-to page's deals: the seven-card deal, and the throw-in and Board match.

The how-to page (``/how-to``, :mod:`backalley.web.howto`) walks one seven-card deal,
played by the heuristic computer players, step by step. This script plays deals from
seed 0 on and prints the first seed whose deal has each moment the page explains:

- a suit turned (so there are trumps), and bids that are not all passes;
- South, the reader's seat, holding a card the rules refuse when it is South's turn;
- a trump played to a trick led in another suit (trumps broken);
- a blooper (joker) led later, with a follower holding two trumps or more (so the
  force chooses among them);
- one side making its target and the other missing it (both ways of scoring).

With ``--more`` it searches the second match instead (``MORE_RULES``: one deal of
two cards): its first deal is thrown in by four passes, and the seed must have South
bid Board in the re-deal (``MORE_MOMENTS``). A seed whose number appears in the
page's frames (67 is a card picture's height) is skipped: the tests look for the
seed in every frame, as a leak.

    python scripts/find_howto_deal.py [--more] [--start 0] [--tries 20000]

The chosen seeds are written into ``src/backalley/web/howto.py`` (``HOWTO_SEED``,
``MORE_SEED``); the tests check that their deals still have every moment.
"""

from __future__ import annotations

import argparse
import json
import sys

from backalley.core.cards import Seat
from backalley.web.howto import (
    HOWTO_RULES,
    MORE_MOMENTS,
    MORE_RULES,
    _room,
    moments,
    tell,
    tell_more,
)
from backalley.web.messages import seat_frame


def _more_fits(seed: int) -> bool:
    """The second match of ``seed`` has every moment, and its frames never spell the seed."""
    told = tell_more(MORE_RULES, seed)
    if not all(moments(told, MORE_MOMENTS).values()):
        return False
    room = _room(MORE_RULES, seed)
    for step in told:
        room.state = step.state
        if str(seed) in json.dumps(seat_frame(room, Seat.SOUTH)):
            return False
    return True


def main() -> int:
    """Print the first seed from ``--start`` whose deal has every moment."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--more", action="store_true", help="search the second match's seed")
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--tries", type=int, default=20_000)
    args = parser.parse_args()
    for seed in range(args.start, args.start + args.tries):
        if _more_fits(seed) if args.more else all(moments(tell(HOWTO_RULES, seed)).values()):
            print(seed)
            return 0
    print(f"no seed in {args.start} to {args.start + args.tries - 1}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
