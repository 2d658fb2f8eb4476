"""Search for the how-to page's deal: a seven-card deal where every moment it explains occurs.

The how-to page (``/how-to``, :mod:`backalley.web.howto`) walks one seven-card deal,
played by the heuristic computer players, step by step. This script plays deals from
seed 0 on and prints the first seed whose deal has each moment the page explains:

- a suit turned (so there are trumps), and bids that are not all passes;
- South, the reader's seat, holding a card the rules refuse when it is South's turn;
- a trump played to a trick led in another suit (trumps broken);
- a blooper (joker) led later, with a follower holding two trumps or more (so the
  force chooses among them);
- one side making its target and the other missing it (both ways of scoring).

    python scripts/find_howto_deal.py [--start 0] [--tries 20000]

The chosen seed is written into ``src/backalley/web/howto.py`` (``HOWTO_SEED``); the
tests check that its deal still has every moment.
"""

from __future__ import annotations

import argparse
import sys

from backalley.web.howto import HOWTO_RULES, moments, tell


def main() -> int:
    """Print the first seed from ``--start`` whose deal has every moment."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--tries", type=int, default=20_000)
    args = parser.parse_args()
    for seed in range(args.start, args.start + args.tries):
        found = moments(tell(HOWTO_RULES, seed))
        if all(found.values()):
            print(seed)
            return 0
    print(f"no seed in {args.start} to {args.start + args.tries - 1}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
