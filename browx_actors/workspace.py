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

Only regular files are read or written. Opening a named pipe waits until someone opens
its other end, and a socket or a device is no file either: a tool given one would
block its session, and the server's shutdown with it. So a path that names one is
refused before anything opens it (:func:`file_to_read`, :func:`file_to_write`, by
``stat`` after resolving), and each open is made so that one swapped in after that
check still cannot block: ``O_NONBLOCK`` (a pipe opens at once, or fails), then
``fstat`` on what was opened, and a file to write is truncated only once it is known to
be regular. The blocking reads and writes run in a worker thread the caller's deadline
abandons (:func:`load_file`, :func:`save_file`), so a disk that hangs never holds a
session past its deadline.

The server reads no file through a URL: a ``file:`` URL is refused by the navigation
tools' rule (``tools/navigation.py``), checked in the dispatch, so the workspace is the
only part of the disk a tool can read or write.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import stat
from pathlib import Path

import trio

from .errors import ToolError

__all__ = ["DIAGNOSTICS", "NAME_MAX", "PATH_MAX", "RESERVED", "copy_file", "existing_file", "file_to_read",
           "file_to_write", "folder_to_use", "kind_of", "load_file", "read_file", "resolve_in_workspace", "save_file",
           "write_file"]

#: The folder of the diagnostics store, inside the workspace.
DIAGNOSTICS = "diagnostics"
#: Folders inside the workspace that only the server writes.
RESERVED = (DIAGNOSTICS,)
#: Longest part of a path, and longest path, in bytes (Linux's NAME_MAX and PATH_MAX).
NAME_MAX = 255
PATH_MAX = 4096
#: Most parts a path to write may have: its missing folders are made one call deeper
#: per level, and 2,000 levels fit in PATH_MAX but not in Python's recursion limit.
PATH_PARTS_MAX = 100
#: Bytes copied at a time (:func:`copy_file`).
_CHUNK = 1024 * 1024


def _bad(field: str, message: str) -> ToolError:
    return ToolError("bad-arg", message, field=field)


def kind_of(mode: int) -> str | None:
    """What a ``stat`` mode names, in words, when it is not a regular file (None when it is)."""
    if stat.S_ISREG(mode):
        return None
    for test, words in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe"), (stat.S_ISSOCK, "a socket"),
                        (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                        (stat.S_ISLNK, "a symbolic link")):
        if test(mode):
            return words
    return "something other than a file"


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


def existing_file(path: Path, *, field: str = "path", label: str | None = None, folders: bool = False) -> Path:
    """``path`` (resolved) if it is a regular file, or a folder when ``folders`` (an iOS
    app bundle); ``bad-arg`` naming ``field`` and saying what it is otherwise. ``label``
    is how the message names it (``paths[2]``), default the field."""
    label = label or field
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        raise _bad(field, f"{label} is not a {'file or folder' if folders else 'file'} in the workspace") from None
    except OSError as err:
        raise _bad(field, f"{label} cannot be read: {_why(err)}") from None
    kind = kind_of(mode)
    if kind is not None and not (folders and stat.S_ISDIR(mode)):
        raise _bad(field, f"{label} is {kind}, not a regular file")
    return path


def file_to_read(root: Path, relative: str, *, field: str = "path", label: str | None = None,
                 folders: bool = False) -> Path:
    """Where a tool may read the file ``relative`` names: inside the workspace, and a
    regular file there (see :func:`existing_file`)."""
    return existing_file(resolve_in_workspace(root, relative, field=field), field=field, label=label,
                         folders=folders)


def file_to_write(root: Path, relative: str, *, field: str = "path") -> Path:
    """Where a tool may write the file ``relative`` names (see the module notes): a
    path that does not exist yet, or a regular file to replace."""
    if "\0" in relative:
        raise _bad(field, f"{field} must not contain a NUL character")
    encoded = os.fsencode(relative)
    if len(encoded) > PATH_MAX:
        raise _bad(field, f"{field} is {len(encoded):,} bytes long; a path is at most {PATH_MAX:,}")
    longest = max((len(part) for part in encoded.split(b"/")), default=0)
    if longest > NAME_MAX:
        raise _bad(field, f"a part of {field} is {longest:,} bytes long; each part is at most {NAME_MAX}")
    parts = sum(1 for part in encoded.split(b"/") if part not in (b"", b"."))
    if parts > PATH_PARTS_MAX:
        raise _bad(field, f"{field} has {parts:,} parts; a path has at most {PATH_PARTS_MAX}")
    if not relative.strip() or relative.endswith(("/", "/.", "/..")) or Path(relative).name in ("", ".", ".."):
        raise _bad(field, f"{field} must name a file, not a folder")
    target = resolve_in_workspace(root, relative, field=field)
    base = root.resolve()
    if target == base:
        raise _bad(field, f"{field} must name a file, not a folder")
    inside = target.relative_to(base).parts
    if inside and inside[0] in RESERVED:
        raise _bad(field, f"{field} is inside {inside[0]}/, which the server keeps for its own records")
    try:
        mode: int | None = os.stat(target).st_mode
    except OSError:  # nothing there yet (the usual case), or a part that is a file: writing says so
        mode = None
    if mode is not None:
        _refuse_unless_regular(mode, field)
    return target


def folder_to_use(root: Path, relative: str, *, field: str = "path") -> Path:
    """A folder the server keeps for a tool's own use (a browser profile): inside the
    workspace, neither its root nor a reserved folder, made if missing; ``bad-arg``
    naming ``field`` for anything else there."""
    target = resolve_in_workspace(root, relative, field=field)
    base = root.resolve()
    if target == base:
        raise _bad(field, f"{field} must name a folder inside the workspace, not the workspace itself")
    inside = target.relative_to(base).parts
    if inside[0] in RESERVED:
        raise _bad(field, f"{field} is inside {inside[0]}/, which the server keeps for its own records")
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as err:  # a file where the folder would be, a full disk
        raise _bad(field, f"{field} cannot be a folder: {_why(err)}") from None
    return target


def _refuse_unless_regular(mode: int, field: str, label: str | None = None) -> None:
    kind = kind_of(mode)
    if kind == "a folder":
        raise _bad(field, f"{label or field} must name a file, not a folder")
    if kind is not None:
        raise _bad(field, f"{label or field} is {kind}, not a regular file")


def _say_what_it_is(err: OSError, path: Path, field: str, label: str | None) -> None:
    """An open the OS refused because of what the path is (a pipe with no reader, a
    socket, a folder) is refused as that; any other error is the caller's to report."""
    if err.errno in (errno.ENXIO, errno.EISDIR, errno.EOPNOTSUPP):
        with contextlib.suppress(OSError):  # gone again: the open's own error says why
            _refuse_unless_regular(os.stat(path).st_mode, field, label)


def _open_to_write(target: Path, field: str) -> int:
    """A descriptor on the regular file ``target``, created if need be and emptied; a
    pipe, socket or device there (one swapped in after :func:`file_to_write` looked)
    is refused without blocking and left as it was."""
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | os.O_CLOEXEC, 0o666)
    except OSError as err:
        _say_what_it_is(err, target, field, None)
        raise
    try:
        _refuse_unless_regular(os.fstat(fd).st_mode, field)
        os.ftruncate(fd, 0)
    except BaseException:
        os.close(fd)
        raise
    return fd


def write_file(target: Path, data: bytes, *, field: str = "path") -> None:
    """Write ``data`` at ``target`` (from :func:`file_to_write`), its folders made as
    needed; blocking, for a worker thread (:func:`save_file`). What is no regular file,
    or an OS refusal, is ``bad-arg`` naming ``field``."""
    try:
        with os.fdopen(_open_to_write(target, field), "wb") as out:
            out.write(data)
    except OSError as err:
        raise _bad(field, f"{field} could not be written: {_why(err)}") from None


def _open_to_read(path: Path, field: str, label: str | None) -> tuple[int, int]:
    """A descriptor on the regular file ``path`` and its size; a pipe opens at once
    (``O_NONBLOCK``) and is refused by what ``fstat`` says of it."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as err:
        _say_what_it_is(err, path, field, label)
        raise
    try:
        status = os.fstat(fd)
        _refuse_unless_regular(status.st_mode, field, label)
    except BaseException:
        os.close(fd)
        raise
    return fd, status.st_size


def read_file(path: Path, *, field: str = "path", label: str | None = None, max_bytes: int | None = None) -> bytes:
    """The bytes of the regular file ``path`` (from :func:`file_to_read`); blocking, for a
    worker thread (:func:`load_file`). A file over ``max_bytes``, what is no regular file,
    or an OS refusal is ``bad-arg`` naming ``field``."""
    label = label or field
    try:
        fd, size = _open_to_read(path, field, label)
        with os.fdopen(fd, "rb") as source:
            if max_bytes is not None and size > max_bytes:
                raise _bad(field, f"{label} is {size:,} bytes; at most {max_bytes:,} are read")
            data = source.read() if max_bytes is None else source.read(max_bytes + 1)
    except (FileNotFoundError, NotADirectoryError):
        raise _bad(field, f"{label} is not a file in the workspace") from None
    except OSError as err:
        raise _bad(field, f"{label} could not be read: {_why(err)}") from None
    if max_bytes is not None and len(data) > max_bytes:  # it grew after fstat
        raise _bad(field, f"{label} is more than {max_bytes:,} bytes; at most {max_bytes:,} are read")
    return data


def copy_file(source: Path, target: Path, *, field: str = "path", max_bytes: int | None = None) -> int:
    """Copy the regular file ``source`` to ``target`` (from :func:`file_to_write`), at most
    ``max_bytes`` of it: a larger one is ``too-large`` and leaves no file behind. Returns
    the bytes copied; blocking, for a worker thread."""
    try:
        fd, size = _open_to_read(source, field, None)
        with os.fdopen(fd, "rb") as src:
            if max_bytes is not None and size > max_bytes:
                raise ToolError("too-large", f"{size:,} bytes, more than {max_bytes:,}", field=field, sizeBytes=size)
            copied = 0
            with os.fdopen(_open_to_write(target, field), "wb") as out:
                while chunk := src.read(_CHUNK):
                    copied += len(chunk)
                    if max_bytes is not None and copied > max_bytes:
                        break
                    out.write(chunk)
            if max_bytes is not None and copied > max_bytes:  # it grew after fstat
                with contextlib.suppress(OSError):
                    target.unlink()
                raise ToolError("too-large", f"more than {max_bytes:,} bytes", field=field, sizeBytes=copied)
    except OSError as err:
        raise _bad(field, f"{field} could not be written: {_why(err)}") from None
    return copied


async def save_file(target: Path, data: bytes, *, field: str = "path") -> None:
    """:func:`write_file` in a worker thread that the caller's deadline (or the
    session's end) abandons, so the session serves on whatever the disk does."""
    await trio.to_thread.run_sync(functools.partial(write_file, target, data, field=field), abandon_on_cancel=True)


async def load_file(path: Path, *, field: str = "path", label: str | None = None,
                    max_bytes: int | None = None) -> bytes:
    """:func:`read_file` in a worker thread the caller's deadline abandons."""
    read = functools.partial(read_file, path, field=field, label=label, max_bytes=max_bytes)
    return await trio.to_thread.run_sync(read, abandon_on_cancel=True)


def _why(err: BaseException) -> str:
    """The OS's reason without the path it names (an absolute path is not for agents)."""
    if isinstance(err, OSError) and err.errno is not None:
        if err.errno in (errno.ENOTDIR, errno.EEXIST):
            return "a part of the path is a file, not a folder"
        return os.strerror(err.errno)
    return type(err).__name__
