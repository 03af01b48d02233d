"""What a firefox session's pages logged and requested, from BiDi's ``log`` and ``network`` events.

The session subscribes once per browser (:mod:`.pool`) and routes each event by its
context (:meth:`~.session.FirefoxSession.on_event`); these books keep what they are
handed, bounded (the newest :data:`KEEP` per book), with ids that only grow, so a
reader's ``since`` stays meaningful after old entries are dropped. Pure bookkeeping.
"""

from __future__ import annotations

import itertools
from collections import deque

import attrs

from ...jsonsafe import JsonObject

__all__ = ["KEEP", "ConsoleBook", "ConsoleEntry", "NetworkBook", "Request"]

#: Entries kept per book.
KEEP = 1000

#: BiDi's log levels, by the names console_read filters with.
_LEVELS = {"debug": "debug", "info": "info", "warn": "warning", "error": "error"}


@attrs.define
class ConsoleEntry:
    id: int
    context: str
    level: str
    text: str
    #: ``console`` (a console.* call) or ``javascript`` (an uncaught error).
    kind: str
    url: str | None = None
    line: int | None = None


@attrs.define
class Request:
    id: int
    request: str
    context: str
    url: str
    method: str
    status: int | None = None
    failure: str | None = None
    mime: str | None = None
    done: bool = False


class ConsoleBook:
    def __init__(self) -> None:
        self._ids = itertools.count(1)
        self.entries: deque[ConsoleEntry] = deque(maxlen=KEEP)
        self.last = 0

    def add(self, context: str, params: JsonObject) -> ConsoleEntry:
        frame = (params.get("stackTrace") or {}).get("callFrames") or [{}]
        top = frame[0] if frame else {}
        entry = ConsoleEntry(next(self._ids), context, _LEVELS.get(str(params.get("level")), "info"),
                             str(params.get("text") or ""), str(params.get("type") or "console"),
                             top.get("url"), top.get("lineNumber"))
        self.entries.append(entry)
        self.last = entry.id
        return entry

    def since(self, last: int, *, contexts: set[str] | None = None, errors_only: bool = False) -> list[ConsoleEntry]:
        return [e for e in self.entries if e.id > last and (contexts is None or e.context in contexts)
                and (not errors_only or e.level == "error")]


class NetworkBook:
    def __init__(self) -> None:
        self._ids = itertools.count(1)
        self.requests: deque[Request] = deque(maxlen=KEEP)
        self._open: dict[str, Request] = {}
        self.last = 0

    def started(self, context: str, params: JsonObject) -> None:
        request = params.get("request") or {}
        key = str(request.get("request"))
        if key in self._open:  # a redirect continues the same request: the new hop replaces it
            self._open[key].done = True
        entry = Request(next(self._ids), key, context, str(request.get("url")), str(request.get("method")))
        self.requests.append(entry)
        self._open[key] = entry
        self.last = entry.id

    def finished(self, params: JsonObject) -> None:
        key = str((params.get("request") or {}).get("request"))
        entry = self._open.pop(key, None)
        if entry is None:
            return
        response = params.get("response") or {}
        entry.status = response.get("status")
        entry.mime = response.get("mimeType")
        entry.done = True

    def failed(self, params: JsonObject) -> None:
        key = str((params.get("request") or {}).get("request"))
        entry = self._open.pop(key, None)
        if entry is not None:
            entry.failure = str(params.get("errorText") or "failed")
            entry.done = True

    def pending(self, contexts: set[str], since: int) -> int:
        """Requests of ``contexts`` started after ``since`` and not finished."""
        return sum(1 for r in self._open.values() if r.context in contexts and r.id > since and not r.done)
