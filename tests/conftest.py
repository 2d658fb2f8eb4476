"""Shared test settings: Hypothesis profiles, and the bounds on an endless match.

``ci`` (the default) keeps the whole run under a few minutes on two cores, and a
run under a wrong rule too (each failure is shrunk for a second at most);
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
from hypothesis.internal.conjecture import engine

from backalley.engine import bounds

# Hypothesis shrinks a failure for up to five minutes (``MAX_SHRINKING_SECONDS``, which
# it leaves to be set). A wrong rule fails most property tests at once, each with
# examples that take milliseconds, so five minutes each would be hours; a second
# shrinks a fast test's failure well. The blob printed with each failure replays it,
# and ``thorough`` keeps the full five minutes to shrink it further. For the same
# reason ``ci`` shrinks and shows one failure of a test, not each distinct one.
CI_SHRINKING_SECONDS = 1

settings.register_profile(
    "ci",
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
    report_multiple_bugs=False,
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
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
settings.load_profile(PROFILE)
if PROFILE == "ci":
    engine.MAX_SHRINKING_SECONDS = CI_SHRINKING_SECONDS

# The bounds for each test, well above any run that correct rules give: the
# most passive players here (tests/test_random_matches.py) pass four bids in five,
# throwing a one-card deal in about two times in three, and their drawn picks can
# force 20 throw-ins in a row; 30 more by chance is about 3 in a million. A wrong
# rule that makes every match endless then fails a test after 50 deals, not 200.
TEST_THROW_INS_IN_A_ROW = 50
TEST_TIEBREAK_DEALS = 50


@pytest.fixture(autouse=True)
def _small_bounds(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bounds on an endless match, set small for each test here (``engine.bounds``).

    ``bounds`` is interpreted in both builds (``pyproject.toml``) and read at each
    call, so the compiled library sees these values too. A test may set a bound
    itself (``tests/test_bounds.py``); the doctests outside ``tests/`` keep 200, and
    so does a test marked ``library_bounds`` (one that runs the library's doctests).
    """
    if request.node.get_closest_marker("library_bounds"):
        return
    monkeypatch.setattr(bounds, "MAX_THROW_INS_IN_A_ROW", TEST_THROW_INS_IN_A_ROW)
    monkeypatch.setattr(bounds, "MAX_TIEBREAK_DEALS", TEST_TIEBREAK_DEALS)


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
