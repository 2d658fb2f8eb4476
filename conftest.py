"""Collection settings for the whole run: skip what needs an extra that is not installed.

The framework adapters import their frameworks; without the extra their modules
(and the docs pages whose examples use them) are left out of the doctest run,
and their tests skip themselves with ``pytest.importorskip``.
"""

from importlib.util import find_spec

# docs/pettingzoo.md among them: its vector environment runs on the batch engine.
_BATCH = ["src/backalley/batch", "docs/batch.md", "docs/pettingzoo.md", "tests/batch_reference.py"]

# The table's server modules: they import Starlette (the web extra).
_WEB_SERVER = [
    f"src/backalley/web/{name}.py"
    for name in ("app", "pages", "sessions", "analysis_pages", "transport", "forwarding")
]

_NEEDS = {
    "pyspiel": [
        "src/backalley/openspiel.py",
        "src/backalley/adapters/openspiel.py",
        "docs/openspiel.md",
    ],
    "pettingzoo": [
        "src/backalley/batch/vector.py",
        "src/backalley/batch/sb3.py",
        "src/backalley/pettingzoo.py",
        "src/backalley/adapters/pettingzoo.py",
        "docs/pettingzoo.md",
    ],
    "starlette": [*_WEB_SERVER, "docs/table.md"],
    "uvicorn": [*_WEB_SERVER, "docs/table.md"],
    "websockets": ["src/backalley/web/scripted.py", "docs/table.md"],
    # The host's QR codes (the web extra).
    "segno": [*_WEB_SERVER, "docs/table.md"],
    # The trained player plays with NumPy (the learned extra).
    "numpy": [*_BATCH, "src/backalley/players/learned.py"],
    "jax": _BATCH,
    "pgx": ["src/backalley/batch/pgx_env.py", "docs/batch.md"],
    # The training example of docs/batch.md needs optax beside JAX.
    "optax": ["docs/batch.md"],
    "stable_baselines3": ["src/backalley/batch/sb3.py"],
    "gymnasium": [
        "src/backalley/batch/vector.py",
        "src/backalley/batch/sb3.py",
        "src/backalley/pettingzoo.py",
        "src/backalley/adapters/pettingzoo.py",
        "docs/pettingzoo.md",
    ],
}

collect_ignore = sorted(
    {path for module, paths in _NEEDS.items() if find_spec(module) is None for path in paths}
)


def pytest_configure(config):
    """Make every truth test of a seat, pair, suit or card fail (tests/truth_guard.py)."""
    import sys  # noqa: PLC0415
    from pathlib import Path  # noqa: PLC0415

    sys.path.insert(0, str(Path(__file__).parent / "tests"))
    import truth_guard  # noqa: PLC0415

    truth_guard.install()
