"""A path to write is at most ``PATH_PARTS_MAX`` parts deep (``workspace.py``).

``a/a/.../x.png`` with 2,000 folders fits in PATH_MAX, and making its folders recursed
once per level: ``screenshot {path}`` answered ``internal`` (a RecursionError, and 6.6 MB
of traceback on stderr). The chokepoint now refuses it before anything is made.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from browx_actors.errors import ToolError
from browx_actors.workspace import PATH_PARTS_MAX, file_to_write, write_file


@pytest.mark.parametrize("parts", [PATH_PARTS_MAX + 1, 2001])
def test_a_path_deeper_than_the_limit_is_refused_before_anything_is_made(tmp_path: Path, parts: int) -> None:
    with pytest.raises(ToolError) as refused:
        file_to_write(tmp_path, "a/" * (parts - 1) + "x.png")
    assert refused.value.code == "bad-arg" and refused.value.details == {"field": "path"}
    assert refused.value.message == f"path has {parts:,} parts; a path has at most {PATH_PARTS_MAX}"
    assert not any(tmp_path.iterdir())


def test_a_path_as_deep_as_the_limit_is_written(tmp_path: Path) -> None:
    relative = "./" + "a//" * (PATH_PARTS_MAX - 1) + "x.png"  # empty and "." parts are no levels
    target = file_to_write(tmp_path, relative)
    write_file(target, b"png")
    assert target.read_bytes() == b"png" and len(target.relative_to(tmp_path.resolve()).parts) == PATH_PARTS_MAX
