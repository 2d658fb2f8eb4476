"""JAX's persistent compilation cache, on by default for the batch engine.

Compiling the batch engine's step, ``init`` and ``reset`` takes seconds to tens
of seconds on a CPU (``docs/batch.md``, "Compile time"); JAX can keep what it
compiled on disk and load it in the next process instead. It is safe where JAX
offers it (the cache key covers the program, the JAX and XLA versions, the
device and the compile options, so a stale entry is never used), so importing
:mod:`backalley.batch` turns it on, in ``$XDG_CACHE_HOME/backalley/jax``
(``~/.cache/backalley/jax`` by default), unless:

- the process already chose a cache (``jax_compilation_cache_dir`` set, or the
  ``JAX_COMPILATION_CACHE_DIR`` variable): theirs is kept;
- ``BACKALLEY_JAX_CACHE`` is ``0``, ``off`` or ``no``: nothing is cached;
- ``BACKALLEY_JAX_CACHE`` is a path: the cache is there.
"""

from __future__ import annotations

import os
from pathlib import Path

import jax

__all__ = ["cache_dir", "use_compilation_cache"]

_OFF = ("0", "off", "no", "false")


def cache_dir() -> Path | None:
    """Where the batch engine keeps compiled programs by default (None: nowhere)."""
    chosen = os.environ.get("BACKALLEY_JAX_CACHE", "").strip()
    if chosen.lower() in _OFF:
        return None
    if chosen:
        return Path(chosen).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "backalley" / "jax"


def use_compilation_cache() -> Path | None:
    """Turn JAX's persistent cache on unless the process chose otherwise; where it is."""
    chosen = getattr(jax.config, "jax_compilation_cache_dir", None)
    if chosen or os.environ.get("JAX_COMPILATION_CACHE_DIR"):
        return None
    path = cache_dir()
    if path is not None:
        jax.config.update("jax_compilation_cache_dir", str(path))  # type: ignore[no-untyped-call]
    return path
