"""Shared test setup. A missing Chromium fails loudly: nothing here skips."""

from __future__ import annotations

import os
import shutil

import pytest
from hypothesis import settings

from cdp_fixtures import cdp, chromium  # noqa: F401  (fixtures)
from e2e_support import pages_url, pages_url2  # noqa: F401  (fixtures)

# No property test has a wall-clock deadline: a shared 2-core host under load ran an
# example of test_simctl's in 296 ms against Hypothesis's default 200, and speed goals
# live in benchmarks/ as same-run ratios, never as timings in tests. The suite's examples
# are the same on every run (`make test` and CI give one answer for one commit);
# BROWX_HYPOTHESIS=explore draws fresh ones on every run, to hunt for new cases (random
# draws found the uiautomator encoding refusal).
settings.register_profile("browx", deadline=None, derandomize=True)
settings.register_profile("explore", deadline=None)
settings.load_profile(os.environ.get("BROWX_HYPOTHESIS", "browx"))


def pytest_sessionstart(session: pytest.Session) -> None:
    if shutil.which("chromium") is None:
        raise pytest.UsageError(
            "Debian's chromium is not on PATH: run `make test` (it installs it) or "
            "`apt-get install chromium`. The suite never skips browser tests."
        )
