"""What a firefox session's pages logged and requested, from BiDi's ``log`` and ``network`` events.

The session subscribes once per browser (:mod:`..pool`) and routes each event by its
context (:meth:`~..events.SessionEvents.on_event`); these books keep what they are
handed, bounded (the newest :data:`KEEP` per tab), with ids that only grow, so a
reader's ``since`` stays meaningful after old entries are dropped. Pure bookkeeping.

Console entries are chromium's own :class:`~...chromium.console.text.ConsoleEntry`, kept
in chromium's per-tab :class:`~...chromium.tabs.records.ConsoleLog` (keyed by the tab's
BiDi context instead of a target id), so ``console_read`` prints, filters and counts
them exactly as on chromium. Requests are :class:`Request`, whose details carry
chromium's field names; URLs and headers are redacted as they come in, as on chromium.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Mapping

import attrs

from ....jsonsafe import JsonObject, JsonValue
from ...chromium.console.text import STACK_MAX, ConsoleEntry, clip
from ...chromium.network.redact import redact_headers, redact_url
from ...chromium.tabs.records import ConsoleLog

__all__ = ["KEEP", "ConsoleBook", "NetworkBook", "Request", "resource_type"]

#: Entries kept per tab (console) and per book (requests).
KEEP = 1000

#: A console method -> the level console_read filters with (chromium's names).
_METHOD_LEVELS = {"error": "error", "assert": "error", "warn": "warn", "debug": "debug", "trace": "debug"}
#: BiDi's log levels -> chromium's.
_LEVELS = {"debug": "debug", "info": "info", "warn": "warn", "error": "error"}
#: Console method -> chromium's ``kind`` for it (CDP says ``warning`` where the console says ``warn``).
_KINDS = {"warn": "warning"}

#: Fetch's ``destination`` -> the resource type chromium names (what ``types`` filters on).
_DESTINATIONS = {"document": "document", "iframe": "document", "frame": "document", "style": "stylesheet",
                 "script": "script", "worker": "script", "sharedworker": "script", "serviceworker": "script",
                 "audioworklet": "script", "paintworklet": "script", "image": "image", "font": "font",
                 "audio": "media", "video": "media", "track": "texttrack", "manifest": "manifest",
                 "report": "cspviolationreport"}
#: ``initiatorType`` for what has no destination (``fetch()``, XHR, beacons, EventSource).
_INITIATORS = {"fetch": "fetch", "xmlhttprequest": "xhr", "beacon": "ping", "other": "other"}


def resource_type(request: Mapping[str, JsonValue]) -> str:
    """The resource type of a BiDi request, by chromium's names: from Fetch's
    ``destination`` where it has one, else the ``initiatorType`` (empty destinations
    are script requests: fetch, XHR, beacons)."""
    destination = str(request.get("destination") or "")
    if destination in _DESTINATIONS:
        return _DESTINATIONS[destination]
    return _INITIATORS.get(str(request.get("initiatorType") or ""), "other")


def _stack(params: Mapping[str, JsonValue]) -> tuple[list[Mapping[str, JsonValue]], tuple[str, ...]]:
    trace = params.get("stackTrace")
    frames = trace.get("callFrames") if isinstance(trace, Mapping) else None
    frames = [f for f in frames if isinstance(f, Mapping)] if isinstance(frames, list) else []
    lines = tuple(f"{f.get('functionName') or '(anonymous)'} ({f.get('url') or '?'}:"
                  f"{int(f.get('lineNumber') or 0) + 1}:{int(f.get('columnNumber') or 0) + 1})"
                  for f in frames[:STACK_MAX])
    return frames, lines


def console_entry(entry_id: int, context: str, params: Mapping[str, JsonValue]) -> ConsoleEntry:
    """A ``log.entryAdded`` as chromium's entry: a console call (``type: console``, its
    ``method``) or an uncaught error (``type: javascript``)."""
    frames, stack = _stack(params)
    top = frames[0] if frames else {}
    url = str(top.get("url") or "") or None
    line = int(top.get("lineNumber") or 0) + 1 if frames else None
    column = int(top.get("columnNumber") or 0) + 1 if frames else None
    stamp = params.get("timestamp")
    at = round(float(stamp), 3) if isinstance(stamp, (int, float)) else None
    text = clip(str(params.get("text") or ""))
    if params.get("type") == "javascript":
        return ConsoleEntry(entry_id, context, "error", "exception", text, "exception", url, line, column, at, stack)
    method = str(params.get("method") or "log")
    level = _METHOD_LEVELS.get(method) or _LEVELS.get(str(params.get("level")), "info")
    return ConsoleEntry(entry_id, context, level, _KINDS.get(method, method), text, "console", url, line, column, at,
                        stack)


class ConsoleBook:
    """The console of every tab of a session: chromium's log, keyed by BiDi context."""

    def __init__(self) -> None:
        self.log = ConsoleLog(KEEP)

    @property
    def last(self) -> int:
        return self.log.last_seq

    def add(self, context: str, params: JsonObject) -> ConsoleEntry:
        entry = console_entry(self.log.next_id(), context, params)
        self.log.append(context, entry)
        return entry

    def since(self, last: int, *, contexts: set[str] | None = None, errors_only: bool = False) -> list[ConsoleEntry]:
        chosen = None if contexts is None else sorted(contexts)
        return [e for e in self.log.entries(chosen) if e.id > last and (not errors_only or e.is_error)]

    def forget(self, context: str) -> None:
        """A closed tab's console goes with it, as on chromium."""
        self.log.forget(context)


@attrs.define(eq=False)
class Request:
    id: int
    #: BiDi's request id (a redirect chain shares it).
    request: str
    context: str
    url: str
    method: str
    type: str = "other"
    status: int | None = None
    status_text: str | None = None
    mime: str | None = None
    request_headers: dict[str, str] = attrs.Factory(dict)
    response_headers: dict[str, str] = attrs.Factory(dict)
    has_body: bool = False
    protocol: str | None = None
    from_cache: bool = False
    size: int | None = None
    duration_ms: float | None = None
    failure: str | None = None
    redirected_to: str | None = None
    initiator: str | None = None
    #: Milliseconds since the epoch, as the browser stamped the request.
    started: float | None = None
    done: bool = False

    @property
    def failed(self) -> bool:
        return self.failure is not None

    def details(self) -> dict[str, object]:
        """Chromium's details fields; what BiDi does not report (remote address, blocked
        reason) is null."""
        return {
            "id": self.id, "method": self.method, "url": self.url, "type": self.type,
            "status": self.status, "statusText": self.status_text, "mimeType": self.mime,
            "requestHeaders": self.request_headers, "hasRequestBody": self.has_body,
            "responseHeaders": self.response_headers, "remoteAddress": None, "protocol": self.protocol,
            "fromCache": self.from_cache, "size": self.size, "durationMs": self.duration_ms,
            "failure": self.failure, "blockedReason": None, "redirectedTo": self.redirected_to,
            "initiator": self.initiator, "finished": self.done, "startedAt": self.started,
        }


def _headers(value: JsonValue) -> dict[str, str]:
    """BiDi's ``[{name, value: {type: string, value}}]`` as chromium's redacted ``{name: value}``."""
    pairs: list[tuple[str, object]] = []
    for header in value if isinstance(value, list) else []:
        if isinstance(header, Mapping):
            raw = header.get("value")
            text = raw.get("value") if isinstance(raw, Mapping) else raw
            pairs.append((str(header.get("name")), str(text or "")))
    return redact_headers(pairs)


def _duration(request: Mapping[str, JsonValue]) -> float | None:
    timings = request.get("timings")
    if not isinstance(timings, Mapping):
        return None
    start, end = timings.get("fetchStart") or timings.get("requestTime"), timings.get("responseEnd")
    if isinstance(start, (int, float)) and isinstance(end, (int, float)) and start > 0 and end >= start:
        return round(float(end - start), 1)
    return None


class NetworkBook:
    """The requests of every tab of a session, newest last, one id sequence."""

    def __init__(self) -> None:
        self._ids = itertools.count(1)
        self.requests: deque[Request] = deque(maxlen=KEEP)
        self._open: dict[str, Request] = {}
        #: The newest entry of each BiDi request id, open or not (a redirect names its hop's successor).
        self._latest: dict[str, Request] = {}
        self.last = 0
        #: Requests seen, and let go to stay within the bound.
        self.total = 0
        self.dropped = 0

    def get(self, entry_id: int) -> Request | None:
        return next((r for r in self.requests if r.id == entry_id), None)

    def started(self, context: str, params: JsonObject) -> None:
        request = params.get("request") or {}
        key = str(request.get("request"))
        url = redact_url(str(request.get("url")))
        previous = self._latest.get(key)
        if previous is not None and (params.get("redirectCount") or 0) > 0:
            # A redirect continues the same request: its hop ends, the new one is listed after it.
            previous.redirected_to = url
            previous.done = True
        entry = Request(next(self._ids), key, context, url, str(request.get("method")),
                        type=resource_type(request), request_headers=_headers(request.get("headers")),
                        has_body=bool(request.get("bodySize")),
                        initiator=str(request.get("initiatorType") or "") or None)
        stamp = params.get("timestamp")
        entry.started = float(stamp) if isinstance(stamp, (int, float)) else None
        if len(self.requests) == self.requests.maxlen:
            self.dropped += 1
        self.requests.append(entry)
        self.total += 1
        self._open[key] = entry
        self._latest[key] = entry
        if len(self._latest) > 4 * KEEP:  # ids of requests long gone: keep the map bounded
            for old in list(self._latest)[: KEEP]:
                self._latest.pop(old, None)
        self.last = entry.id

    def finished(self, params: JsonObject) -> None:
        request = params.get("request") or {}
        entry = self._open.pop(str(request.get("request")), None)
        if entry is None:
            return
        response = params.get("response") or {}
        entry.status = response.get("status")
        entry.status_text = str(response.get("statusText") or "") or None
        entry.mime = response.get("mimeType")
        entry.response_headers = _headers(response.get("headers"))
        entry.protocol = str(response.get("protocol") or "") or None
        entry.from_cache = bool(response.get("fromCache"))
        size = response.get("bytesReceived")
        entry.size = int(size) if isinstance(size, (int, float)) else None
        entry.duration_ms = _duration(request)
        entry.done = True

    def failed(self, params: JsonObject) -> None:
        request = params.get("request") or {}
        entry = self._open.pop(str(request.get("request")), None)
        if entry is not None:
            entry.failure = str(params.get("errorText") or "failed")
            entry.duration_ms = _duration(request)
            entry.done = True

    def pending(self, contexts: set[str], since: int) -> int:
        """Requests of ``contexts`` started after ``since`` and not finished."""
        return sum(1 for r in self._open.values() if r.context in contexts and r.id > since and not r.done)
