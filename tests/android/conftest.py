"""Fixtures of the android-app tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from android.android_support import Adb, serving


@pytest.fixture
def adb() -> Iterator[Adb]:
    """The fake adb server (default scenario: emulator-5554 with the launcher and the shop)."""
    with serving() as served:
        yield served
