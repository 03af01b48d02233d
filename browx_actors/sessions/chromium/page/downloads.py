"""The session's downloads: what the pages downloaded, where it went in the workspace.

Playwright owns the browser context's download behaviour (it sets the context's
download folder and accepts them), so the session takes each download from
Playwright's ``download`` event and saves it (:mod:`.saves`) under
``<workspace>/downloads/<session>/`` with a file name made safe from what the page
suggested (:func:`safe_filename`), never overwriting an earlier one
(:func:`free_name`). A record says where it is and how it ended; the newest
:data:`MAX_RECORDS` are kept.

The filename rules are pure and tested directly; :class:`Downloads` is plain data,
changed on the Playwright thread and read by tools.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections import deque
from collections.abc import Callable
from pathlib import Path

import attrs

from ....workspace import file_to_write
from ..network.log import size_text

__all__ = ["DOWNLOAD_WAIT_S", "MAX_RECORDS", "Download", "Downloads", "free_name", "safe_filename"]

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

    def __init__(self, folder: Path) -> None:
        #: ``<workspace>/downloads/<session>``.
        self.folder = folder
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
