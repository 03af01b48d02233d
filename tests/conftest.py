"""Shared test setup. A missing Chromium fails loudly: nothing here skips."""

from __future__ import annotations

import shutil

import pytest

from cdp_fixtures import cdp, chromium  # noqa: F401  (fixtures)
from e2e_support import pages_url, pages_url2  # noqa: F401  (fixtures)


def pytest_sessionstart(session: pytest.Session) -> None:
    if shutil.which("chromium") is None:
        raise pytest.UsageError(
            "Debian's chromium is not on PATH: run `make test` (it installs it) or "
            "`apt-get install chromium`. The suite never skips browser tests."
        )
