"""Shared test settings: Hypothesis profiles.

``ci`` (the default) keeps the whole run under a few minutes on two cores;
``thorough`` is for long local runs: ``HYPOTHESIS_PROFILE=thorough pytest``;
``mutation`` is for mutation testing (``docs/testing.md``): few examples, no
example database and a fixed seed, so every mutant meets the same examples.

Tests marked ``long`` (millions of steps) run only when selected: ``pytest -m long``.
"""

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile(
    "thorough",
    max_examples=2_000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile(
    "mutation",
    max_examples=10,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip the ``long`` tests unless the marker expression asks for them."""
    if "long" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="a long run: select it with -m long")
    for item in items:
        if "long" in item.keywords:
            item.add_marker(skip)
