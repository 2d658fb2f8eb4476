"""Memory: bytes a state adds, and the peak memory of a long playout.

Run: ``python benchmarks/memory.py``. States share everything that did not change
(see ENGINE-7 in docs/rules.md), so the honest size of "one more state" is what an
action allocates, not the deep size of everything the state can reach; both are
printed.
"""

from __future__ import annotations

import gc
import random
import sys
import tracemalloc
from collections.abc import Iterator

from backalley import Rules, apply, legal_actions, new_match


def deep_size(root: object) -> int:
    """Bytes of every object reachable from ``root`` through attrs fields and containers."""
    seen: set[int] = set()
    total = 0
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, type):
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        stack.extend(_children(obj))
    return total


def _children(obj: object) -> Iterator[object]:
    if isinstance(obj, tuple | list | set | frozenset):
        yield from obj
    elif isinstance(obj, dict):
        yield from obj.keys()
        yield from obj.values()
    for name in getattr(type(obj), "__slots__", ()):
        if hasattr(obj, name) and name != "__weakref__":
            yield getattr(obj, name)


def main() -> None:
    """Print the sizes for a seeded standard match."""
    rng = random.Random(1)
    gc.collect()
    tracemalloc.start()
    state = new_match(Rules(), seed=1)
    actions = 0
    while not state.is_over:
        state = apply(state, rng.choice(legal_actions(state)))
        actions += 1
    current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"actions in the match              {actions}")
    print(f"deep size of the final state      {deep_size(state):,} bytes")
    print(f"  per action of the match         {deep_size(state) / actions:,.0f} bytes")
    print(f"peak traced memory of the playout {peak:,} bytes")
    print(f"traced memory kept at the end     {current:,} bytes")


if __name__ == "__main__":
    main()
