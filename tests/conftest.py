"""Shared test settings: Hypothesis profiles.

``ci`` (the default) keeps the whole run under a few minutes on two cores;
``thorough`` is for long local runs: ``HYPOTHESIS_PROFILE=thorough pytest``;
``mutation`` is for mutation testing (``docs/testing.md``): few examples, no
example database and a fixed seed, so every mutant meets the same examples.

``BACKALLEY_EXPECT_COMPILED=1`` (or ``0``) makes the run refuse to start unless the
``backalley`` it imports is the compiled build (or the pure-Python one): CI's second
run tests the installed compiled wheel and must never fall back to the source.
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


def pytest_configure(config: pytest.Config) -> None:
    """Stop at once if the build under test is not the one the run expects."""
    expected = os.environ.get("BACKALLEY_EXPECT_COMPILED")
    if expected is None:
        return
    import backalley  # noqa: PLC0415 -- only when a build is expected

    if backalley.__compiled__ is not (expected == "1"):
        build = "compiled" if backalley.__compiled__ else "pure Python"
        raise pytest.UsageError(
            f"BACKALLEY_EXPECT_COMPILED={expected}, but the backalley imported from "
            f"{backalley.__file__} is {build}"
        )
