"""The diagnostics JSONL store on disk: paths, appends, discards, retention, reads.

Layout: ``$BROWX_WORKSPACE/diagnostics/<sessionId>/<server-start>.jsonl``, where
``<server-start>`` is the server's start time as ``2026-06-08T12-34-56.789Z`` (the ISO
form with ``:`` made ``-`` for file systems that refuse ``:``; fixed width, so file
names sort by start). Files are append-only and private (``0600`` in ``0700`` folders).

**One chokepoint for session folders.** :func:`session_dir` is the only way a session
id becomes a path, for writing, discarding and reading alike. It takes only what can
be a session's id (:func:`is_session_id`: what the dispatch lets an agent name, or an
HTTP client's ``c1~work``), so a call refused for its ``session`` (``sp ace``, ``-x``,
65 characters) can never make a folder. It resolves through the workspace chokepoint
(:func:`browx_actors.workspace.resolve_in_workspace`, rooted at the diagnostics folder,
so ``../escape``, absolute paths and symlinks out are refused) and then also requires
the id to name exactly one folder directly inside (``""``, ``.``, ``a/b`` and ``a/../b``
are refused too, so no two ids share a folder).

**No torn lines.** Each record is one line appended with a single ``os.write`` on an
``O_APPEND`` descriptor, so concurrent writers never interleave inside a line. A
single write is not enough on its own against SIGKILL: Linux copies a write into the
page cache one page at a time and gives up between pages when a fatal signal is
pending, so a line that straddles a page boundary could be cut in two. A record that
would straddle one is therefore preceded, *in the same write*, by spaces that end
exactly on the boundary; the record then sits inside one page and lands whole or not
at all (a kill between the two pages leaves only spaces, an unterminated tail readers
skip). The spaces open the record's own line rather than a line of their own, because
a whitespace-only line is not JSON and strict per-line JSONL readers refuse it, while
JSON allows whitespace before a value: every line of the store parses as it is. Call
records are kept within one page by construction
(``records.LINE_BUDGET``); a note longer than a page starts on a boundary, and if a
kill ever cuts one, the cut tail is the last bytes of that server start's file (each
start appends to its own file), which readers skip. The store tracks each file's size
itself (it is the file's only writer); two runtimes started in the same millisecond
on one workspace would share a file, and their lines would still never interleave
(``O_APPEND``), only the page alignment would no longer be guaranteed.

**Retention.** A session folder expires when the newest modification time among the
folder and its files is more than ``days`` days before ``now``; ``days == 0`` disables
the sweep. ``now`` is passed in, so tests control time instead of waiting for it.

The writer methods are not thread-safe: the Recorder actor runs them one batch at a
time under its lock, in a worker thread, so a slow disk never stalls the Trio loop.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
from pathlib import Path

from ..clients import SEPARATOR
from ..errors import ToolError
from ..jsonsafe import JsonObject
from ..tools.contract import SESSION_ID_PATTERN
from ..workspace import resolve_in_workspace

__all__ = [
    "PAGE",
    "DiagnosticsStore",
    "diagnostics_root",
    "is_expired",
    "is_session_id",
    "padding_for",
    "read_records",
    "session_dir",
]

log = logging.getLogger("browx_actors.recorder")

PAGE = 4096
_MAX_OPEN_FILES = 64
_DAY = 86_400.0
_SESSION_ID = re.compile(SESSION_ID_PATTERN)


def is_session_id(text: str) -> bool:
    """Whether ``text`` can be a session's id in the runtime: one an agent may send
    (``SESSION_ID_PATTERN``), or an HTTP client's scoped one, two such ids joined by ``~``."""
    client, separator, own = text.rpartition(SEPARATOR)
    return _SESSION_ID.match(own) is not None and (not separator or _SESSION_ID.match(client) is not None)


def diagnostics_root(workspace: Path) -> Path:
    return Path(workspace) / "diagnostics"


def session_dir(root: Path, session_id: str, *, field: str = "session") -> Path:
    """The folder of one session's records: the chokepoint every path goes through.

    Raises ``bad-arg`` naming ``field`` for what is not a session id, and for an id that
    escapes the diagnostics folder or does not name exactly one folder directly inside it.
    """
    if not is_session_id(session_id):
        raise ToolError("bad-arg", f"{field} is not a session id", field=field)
    try:
        path = resolve_in_workspace(root, session_id, field=field)
        base = root.resolve()
    except (ValueError, OSError):  # an embedded NUL, a name the OS cannot hold
        path, base = None, None
    if path is None or path.parent != base or path.name != session_id:
        raise ToolError("bad-arg", f"{field} must name one folder inside the diagnostics folder",
                        field=field)
    return path


def padding_for(size: int, length: int) -> bytes:
    """Spaces that move a ``length``-byte record starting at ``size`` to the next page
    boundary when it would otherwise straddle one (else nothing); they open the
    record's own line, so the line is still one JSON value."""
    used = size % PAGE
    if used == 0 or used + length <= PAGE:
        return b""
    return b" " * (PAGE - used)


def is_expired(newest_mtime: float, now: float, days: float) -> bool:
    """Whether a folder last touched at ``newest_mtime`` is past retention at ``now``."""
    return days > 0 and now - newest_mtime > days * _DAY


def _newest_mtime(folder: Path) -> float:
    newest = folder.stat().st_mtime
    for entry in os.scandir(folder):
        try:
            newest = max(newest, entry.stat(follow_symlinks=False).st_mtime)
        except FileNotFoundError:
            continue
    return newest


class DiagnosticsStore:
    """Appends, discards and sweeps under one diagnostics root for one server start."""

    def __init__(self, root: Path, stamp: str) -> None:
        self.root = Path(root)
        self.file_name = f"{stamp}.jsonl"
        self._dirs: dict[str, Path] = {}
        self._fds: dict[str, int] = {}
        #: Each open file's size: this store is its only writer (one file per server
        #: start), so tracking saves an fstat per record.
        self._sizes: dict[str, int] = {}

    def path_of(self, session_id: str) -> Path:
        """The session's file for this server start (via the chokepoint; cached)."""
        folder = self._dirs.get(session_id)
        if folder is None:
            folder = session_dir(self.root, session_id)
            self._dirs[session_id] = folder
        return folder / self.file_name

    def append(self, session_id: str, line: bytes) -> None:
        """Append one whole line (see the module notes); raises on refusal or I/O error."""
        fd = self._fd(session_id)
        data = padding_for(self._sizes[session_id], len(line)) + line
        written = os.write(fd, data)
        self._sizes[session_id] += written
        if written != len(data):
            raise OSError(f"short write to the diagnostics store ({written} of {len(data)} bytes)")

    def _fd(self, session_id: str) -> int:
        fd = self._fds.pop(session_id, None)
        if fd is None:
            path = self.path_of(session_id)
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
            self._sizes[session_id] = os.fstat(fd).st_size
            if len(self._fds) >= _MAX_OPEN_FILES:
                self._close(next(iter(self._fds)))
        self._fds[session_id] = fd  # most recently used last
        return fd

    def _close(self, session_id: str) -> None:
        fd = self._fds.pop(session_id, None)
        if fd is not None:
            os.close(fd)
        self._sizes.pop(session_id, None)
        self._dirs.pop(session_id, None)

    def discard(self, session_id: str) -> bool:
        """Remove a session's whole history (every server start). True if there was one."""
        folder = session_dir(self.root, session_id)
        self._close(session_id)
        if not folder.is_dir():
            return False
        shutil.rmtree(folder)
        return True

    def sweep(self, days: float, now: float) -> list[str]:
        """Remove expired session folders; returns their ids, sorted."""
        if days <= 0 or not self.root.is_dir():
            return []
        removed = []
        for entry in sorted(os.scandir(self.root), key=lambda e: e.name):
            if not entry.is_dir(follow_symlinks=False):
                continue
            folder = Path(entry.path)
            try:
                if not is_expired(_newest_mtime(folder), now, days):
                    continue
                self._close(entry.name)
                shutil.rmtree(folder)
            except OSError as err:
                log.warning("diagnostics retention could not remove %s: %s", folder, err)
                continue
            removed.append(entry.name)
        return removed

    def close(self) -> None:
        for session_id in list(self._fds):
            self._close(session_id)


def read_records(root: Path, session_id: str | None = None) -> tuple[list[JsonObject], int]:
    """Every record on disk (one session's, or all), in file order, plus the number of
    complete lines that did not parse.

    Sessions are read in name order and each session's files in start order. Blank
    lines are skipped (older stores wrote their padding as lines of spaces); so is an
    unterminated last fragment of a file, which is either a line being written right
    now or the cut tail described above.
    """
    if session_id is not None:
        folders = [session_dir(root, session_id, field="sessionId")]
    elif root.is_dir():
        folders = sorted((Path(e.path) for e in os.scandir(root) if e.is_dir(follow_symlinks=False)),
                         key=lambda p: p.name)
    else:
        folders = []
    records: list[JsonObject] = []
    bad = 0
    for folder in folders:
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.jsonl")):
            try:
                data = path.read_bytes()
            except FileNotFoundError:  # swept meanwhile
                continue
            for raw in data.split(b"\n")[:-1]:
                if not raw.strip():
                    continue
                try:
                    record = json.loads(raw)
                except ValueError:
                    bad += 1
                    continue
                if isinstance(record, dict):
                    records.append(record)
                else:
                    bad += 1
    return records, bad
