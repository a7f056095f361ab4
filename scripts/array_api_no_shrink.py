"""A pytest plugin for `scripts/array_api.py`: the conformance suite without Hypothesis'
shrinking phase. Which tests pass or fail is unchanged; only the minimal failing
example is not searched for, which on a backend with many failures (TensorFlow's
`TensorShape` shapes) takes most of the run."""

from __future__ import annotations

import pytest
from hypothesis import Phase, settings


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    # after the suite's conftest has loaded its own profile, which this one extends
    settings.register_profile("array-api-no-shrink", parent=settings.default,
                              phases=[p for p in Phase if p is not Phase.shrink])
    settings.load_profile("array-api-no-shrink")
