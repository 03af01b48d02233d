"""Where the shared test data is: ``shared/testdata`` beside the checkout.

The main checkout sits at ``/work/main`` and worktrees at ``/work/wt/<name>``, so the
folder is found by walking up from the repository rather than at a fixed depth.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["PIXEL_LAUNCHER_DUMP", "shared_testdata"]


def shared_testdata(*parts: str) -> Path:
    """``shared/testdata/<parts>`` in the first ancestor of the repository that has it."""
    repo = Path(__file__).resolve().parents[2]
    for ancestor in repo.parents:
        candidate = ancestor / "shared" / "testdata"
        if candidate.is_dir():
            return candidate.joinpath(*parts)
    raise FileNotFoundError(f"no shared/testdata above {repo}")


PIXEL_LAUNCHER_DUMP = shared_testdata("android", "pixel-launcher-window_dump.xml")
