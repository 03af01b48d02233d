"""Fixtures of the chaos tests."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """A TMPDIR of the test's own, short: Chromium puts its singleton's Unix socket in
    TMPDIR and aborts when the path passes 107 bytes (pytest's tmp_path does)."""
    path = Path(tempfile.mkdtemp(prefix="bx-", dir="/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
