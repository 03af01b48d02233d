"""The workspace chokepoint: every path a tool reads or writes resolves here.

Symlinks are followed before the check, so a link inside the workspace cannot point
out of it; ``..`` and absolute paths that leave the root are refused with one message
that does not reveal whether the target exists.
"""

from __future__ import annotations

from pathlib import Path

from .errors import ToolError

__all__ = ["resolve_in_workspace"]


def resolve_in_workspace(root: Path, relative: str, *, field: str = "path") -> Path:
    """The real path of ``relative`` under ``root``, or ``bad-arg`` if it escapes."""
    base = root.resolve()
    candidate = (base / relative).resolve()
    if candidate != base and base not in candidate.parents:
        raise ToolError("bad-arg", f"{field} must stay inside the workspace", field=field)
    return candidate
