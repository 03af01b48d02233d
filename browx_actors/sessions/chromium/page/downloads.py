"""The session's downloads: what the pages downloaded, where it went in the workspace.

Playwright owns the browser context's download behaviour (it sets the context's
download folder and accepts them), so the session takes each download from
Playwright's ``download`` event and saves it (:mod:`.saves`) under
``<workspace>/downloads/<session>/`` with a file name made safe from what the page
suggested (:func:`safe_filename`), never overwriting an earlier one
(:func:`free_name`). A record says where it is and how it ended; the newest
:data:`MAX_RECORDS` are kept.

No download is saved larger than the session's cap (``BROWX_DOWNLOAD_MAX_BYTES``): one
whose size breaks it is cancelled while it arrives (:mod:`.download_cap` watches the
browser's progress events and notes it here), and one that finished before it was
caught is not copied into the workspace. Either way its record is ``canceled`` and its
``failure`` says it was larger than the cap (:meth:`Downloads.over_cap_failure`).

The filename rules and the cap's test (:func:`over_cap`) are pure and tested directly;
:class:`Downloads` is plain data, changed on the Playwright thread (records) and in the
CDP reader (progress, under a lock) and read by tools.
"""

from __future__ import annotations

import itertools
import re
import threading
import unicodedata
from collections import deque
from collections.abc import Callable
from pathlib import Path

import attrs

from ....config import DOWNLOAD_MAX_BYTES
from ....workspace import file_to_write
from ..network.log import size_text

__all__ = ["DOWNLOAD_WAIT_S", "MAX_RECORDS", "Download", "Downloads", "free_name", "over_cap", "safe_filename"]

#: How long a call that started a download waits for Playwright to report it, and for
#: a small one to finish, before it answers (it says "in-progress" past that).
DOWNLOAD_WAIT_S = 5.0

MAX_RECORDS = 200
NAME_MAX = 120
_RESERVED = re.compile(r'[<>:"/\\|?*\x00-\x1f\x7f]')


def safe_filename(suggested: str, fallback: str = "download") -> str:
    """A file name that stays one file in one folder: no directories, no control or
    reserved characters, no leading dots, at most :data:`NAME_MAX` characters with the
    extension kept."""
    name = unicodedata.normalize("NFC", suggested).replace("\\", "/").rsplit("/", 1)[-1]
    name = _RESERVED.sub("_", name).strip().lstrip(".").strip()
    if not name or set(name) <= {"_", " ", "."}:
        name = fallback
    if len(name) > NAME_MAX:
        stem, dot, ext = name.rpartition(".")
        if dot and 0 < len(ext) <= 16:
            name = stem[: NAME_MAX - len(ext) - 1] + "." + ext
        else:
            name = name[:NAME_MAX]
    return name


def free_name(name: str, taken: Callable[[str], bool]) -> str:
    """``name``, or ``name (2).ext``, ``name (3).ext``... whichever is not ``taken``."""
    if not taken(name):
        return name
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem:
        stem, ext = name, ""
    for n in itertools.count(2):
        candidate = f"{stem} ({n}).{ext}" if ext else f"{stem} ({n})"
        if not taken(candidate):
            return candidate
    raise AssertionError("unreachable")


def over_cap(received: int, total: int, cap: int) -> int | None:
    """The size that breaks the ``cap``, or None: the size the response announced
    (``total``, 0 when it gave none) once it is over the cap, else the bytes that
    arrived once they are."""
    if total > cap:
        return total
    if received > cap:
        return received
    return None


@attrs.define(eq=False)
class Download:
    id: int
    url: str
    suggested: str
    tab: int | None
    state: str = "in-progress"
    path: str | None = None
    #: The path relative to the workspace, as tools take paths.
    relative: str | None = None
    size: int | None = None
    failure: str | None = None

    def describe(self) -> dict[str, object]:
        return {"id": self.id, "state": self.state, "suggestedFilename": self.suggested, "path": self.relative,
                "size": self.size, "url": self.url, "tab": self.tab, "failure": self.failure}

    def line(self) -> str:
        where = self.relative or "-"
        why = f" ({self.failure})" if self.failure else ""
        return f"d{self.id} {self.state}{why} {self.suggested} {size_text(self.size)} {where} from {self.url}"


class Downloads:
    """The session's download records, newest last."""

    def __init__(self, folder: Path, max_bytes: int = DOWNLOAD_MAX_BYTES) -> None:
        #: ``<workspace>/downloads/<session>``.
        self.folder = folder
        #: The largest download saved, in bytes.
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        #: The URL of each download the browser is running, by its guid (CDP reader).
        self._running: dict[str, str] = {}
        #: Downloads cancelled for the cap, not yet told to their record: guid -> (URL, size).
        self._over: dict[str, tuple[str, int]] = {}
        self.records: deque[Download] = deque(maxlen=MAX_RECORDS)
        self._ids = itertools.count(1)
        self.last_id = 0
        self._claimed: set[str] = set()

    def begin(self, url: str, suggested: str, tab: int | None) -> Download:
        record = Download(next(self._ids), url, suggested, tab)
        self.last_id = record.id
        self.records.append(record)
        return record

    def since(self, last_id: int) -> list[Download]:
        return [r for r in self.records if r.id > last_id]

    # -- the cap (the browser's progress events, from the CDP reader) ------------------

    def started(self, guid: str, url: str) -> None:
        """The browser began download ``guid`` of ``url``."""
        with self._lock:
            if len(self._running) >= MAX_RECORDS:  # ended ones whose last event never came
                self._running.pop(next(iter(self._running)))
            self._running[guid] = url

    def progressed(self, guid: str, received: int, total: int, state: str) -> bool:
        """Download ``guid`` reports its bytes; True when it has just gone over the cap
        and is to be cancelled (once: later events of it say False)."""
        with self._lock:
            url = self._running.get(guid)
            if state != "inProgress":
                self._running.pop(guid, None)
                return False
            size = over_cap(received, total, self.max_bytes)
            if url is None or size is None or guid in self._over:
                return False
            self._over[guid] = (url, size)
            if len(self._over) > MAX_RECORDS:
                self._over.pop(next(iter(self._over)))
            return True

    def cancelled_for_size(self, url: str) -> int | None:
        """The size of a download of ``url`` cancelled for the cap (its record claims
        it, so it is told once), or None when none was."""
        with self._lock:
            for guid, (seen, size) in self._over.items():
                if seen == url:
                    del self._over[guid]
                    return size
        return None

    def over_cap_failure(self, size: int) -> str:
        """What a record says of a download cancelled for the cap."""
        return (f"larger than the download cap (BROWX_DOWNLOAD_MAX_BYTES = {self.max_bytes:,} bytes): at least "
                f"{size:,} bytes")

    def place(self, record: Download, workspace: Path) -> Path:
        """Where the download goes: a free, safe name in the session's folder (made),
        through the workspace chokepoint like any file a tool writes, so a link
        planted in the workspace (``downloads`` pointing out of it) is refused."""
        name = free_name(safe_filename(record.suggested),
                         lambda n: n in self._claimed or (self.folder / n).exists())
        base = workspace.resolve()
        relative = str((self.folder / name).relative_to(base))
        path = file_to_write(base, relative, field="download")
        path.parent.mkdir(parents=True, exist_ok=True)
        self._claimed.add(name)
        record.path = str(path)
        record.relative = relative
        return path
