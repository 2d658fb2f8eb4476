"""Shared test settings: Hypothesis profiles.

``ci`` (the default) keeps the whole run under a few minutes on two cores;
``thorough`` is for long local runs: ``HYPOTHESIS_PROFILE=thorough pytest``;
``mutation`` is for mutation testing (``docs/testing.md``): few examples, no
example database and a fixed seed, so every mutant meets the same examples.
"""

import os

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
