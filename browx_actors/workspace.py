"""The workspace chokepoint: every path a tool reads or writes resolves here.

Symlinks are followed before the check, so a link inside the workspace cannot point
out of it; ``..`` and absolute paths that leave the root are refused with one message
that does not reveal whether the target exists.

A file a tool writes (:func:`file_to_write`, :func:`write_file`) must also be a file
the operating system can hold and the server does not keep for itself: no NUL, no
part longer than 255 bytes, not a folder (``.``, ``ok/``, an existing directory), and
not inside a folder the server owns (:data:`RESERVED`: ``diagnostics/``, where the
recorder's files live). Each is a ``bad-arg`` naming the field, and so is an OS refusal
while writing (a part of the path that is a file, a full disk): the message says why in
the OS's words, never with an absolute path.

The server reads no file through a URL: a ``file:`` URL is refused by the navigation
tools' rule (``tools/navigation.py``), checked in the dispatch, so the workspace is the
only part of the disk a tool can read or write.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from .errors import ToolError

__all__ = ["DIAGNOSTICS", "NAME_MAX", "PATH_MAX", "RESERVED", "file_to_write", "resolve_in_workspace",
           "write_file"]

#: The folder of the diagnostics store, inside the workspace.
DIAGNOSTICS = "diagnostics"
#: Folders inside the workspace that only the server writes.
RESERVED = (DIAGNOSTICS,)
#: Longest part of a path, and longest path, in bytes (Linux's NAME_MAX and PATH_MAX).
NAME_MAX = 255
PATH_MAX = 4096


def _bad(field: str, message: str) -> ToolError:
    return ToolError("bad-arg", message, field=field)


def resolve_in_workspace(root: Path, relative: str, *, field: str = "path") -> Path:
    """The real path of ``relative`` under ``root``, or ``bad-arg`` if it escapes."""
    if "\0" in relative:
        raise _bad(field, f"{field} must not contain a NUL character")
    base = root.resolve()
    try:
        candidate = (base / relative).resolve()
    except (OSError, ValueError, RuntimeError) as err:  # a loop of links, a name the OS refuses
        raise _bad(field, f"{field} cannot be resolved: {_why(err)}") from None
    if candidate != base and base not in candidate.parents:
        raise _bad(field, f"{field} must stay inside the workspace")
    return candidate


def file_to_write(root: Path, relative: str, *, field: str = "path") -> Path:
    """Where a tool may write the file ``relative`` names (see the module notes)."""
    if "\0" in relative:
        raise _bad(field, f"{field} must not contain a NUL character")
    encoded = os.fsencode(relative)
    if len(encoded) > PATH_MAX:
        raise _bad(field, f"{field} is {len(encoded):,} bytes long; a path is at most {PATH_MAX:,}")
    longest = max((len(part) for part in encoded.split(b"/")), default=0)
    if longest > NAME_MAX:
        raise _bad(field, f"a part of {field} is {longest:,} bytes long; each part is at most {NAME_MAX}")
    if not relative.strip() or relative.endswith(("/", "/.", "/..")) or Path(relative).name in ("", ".", ".."):
        raise _bad(field, f"{field} must name a file, not a folder")
    target = resolve_in_workspace(root, relative, field=field)
    base = root.resolve()
    if target == base or target.is_dir():
        raise _bad(field, f"{field} must name a file, not a folder")
    inside = target.relative_to(base).parts
    if inside and inside[0] in RESERVED:
        raise _bad(field, f"{field} is inside {inside[0]}/, which the server keeps for its own records")
    return target


def write_file(target: Path, data: bytes, *, field: str = "path") -> None:
    """Write ``data`` at ``target`` (from :func:`file_to_write`), its folders made as
    needed; blocking, for a worker thread. An OS refusal is ``bad-arg`` naming ``field``."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    except OSError as err:
        raise _bad(field, f"{field} could not be written: {_why(err)}") from None


def _why(err: BaseException) -> str:
    """The OS's reason without the path it names (an absolute path is not for agents)."""
    if isinstance(err, OSError) and err.errno is not None:
        if err.errno in (errno.ENOTDIR, errno.EEXIST):
            return "a part of the path is a file, not a folder"
        return os.strerror(err.errno)
    return type(err).__name__
