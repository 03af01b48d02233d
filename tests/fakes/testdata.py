"""Where the test data is: ``tests/testdata``, real device output kept in the repository
(a copy of the team's shared test data, so a clean clone needs nothing beside it)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["PIXEL_LAUNCHER_DUMP", "TESTDATA", "testdata"]

TESTDATA = Path(__file__).resolve().parents[1] / "testdata"


def testdata(*parts: str) -> Path:
    """``tests/testdata/<parts>``."""
    return TESTDATA.joinpath(*parts)


PIXEL_LAUNCHER_DUMP = testdata("android", "pixel-launcher-window_dump.xml")
