"""The requests of one tab, as the ``Network`` domain reports them: a bounded log.

Fed the ``params`` of ``Network.requestWillBeSent``, ``responseReceived``,
``loadingFinished``, ``loadingFailed`` and the ``*ExtraInfo`` events (which carry the
headers as sent on the wire, cookies included) in the order the browser sends them.
Each request becomes one :class:`NetworkEntry`; a redirect closes the hop it ends and
opens a new entry for where it leads, as DevTools lists them. URLs and headers are
redacted as they come in (:mod:`.redact`), so no credential is ever held.

The log keeps the newest :data:`MAX_ENTRIES` entries and counts the ones it let go.
Response bodies are not copied: ``network_body`` asks the browser for one when it is
wanted, through the flat session the entry remembers (``source``).

Pure: no I/O; :class:`~.tabs.tap.TabTap` feeds it.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING

import attrs

from ....jsonsafe import JsonObject, JsonValue
from .redact import redact_headers, redact_url

if TYPE_CHECKING:
    from ....cdp import TargetLink

__all__ = ["MAX_ENTRIES", "NetworkEntry", "NetworkLog", "size_text", "summary_line"]

MAX_ENTRIES = 1000
#: Extra-info events held while their request has not been seen yet.
_PENDING_MAX = 200
#: Longest URL in a summary line.
SUMMARY_URL_MAX = 160


@attrs.define(eq=False)
class NetworkEntry:
    id: int
    #: The target id of the tab it came from.
    target: str
    request_id: str
    #: The flat session that reported it (to ask for its body), opaque here.
    source: TargetLink
    method: str
    url: str
    type: str
    frame_id: str | None
    started: float | None
    request_headers: dict[str, str] = attrs.Factory(dict)
    has_body: bool = False
    status: int | None = None
    status_text: str | None = None
    mime: str | None = None
    response_headers: dict[str, str] = attrs.Factory(dict)
    remote: str | None = None
    protocol: str | None = None
    from_cache: bool = False
    size: int | None = None
    duration_ms: float | None = None
    failure: str | None = None
    blocked: str | None = None
    redirected_to: str | None = None
    initiator: str | None = None
    #: Monotonic seconds (the browser's clock) of the request, for the duration.
    _t0: float | None = None
    done: bool = False

    @property
    def failed(self) -> bool:
        return self.failure is not None

    def details(self) -> dict[str, object]:
        return {
            "id": self.id, "method": self.method, "url": self.url, "type": self.type,
            "status": self.status, "statusText": self.status_text, "mimeType": self.mime,
            "requestHeaders": self.request_headers, "hasRequestBody": self.has_body,
            "responseHeaders": self.response_headers, "remoteAddress": self.remote, "protocol": self.protocol,
            "fromCache": self.from_cache, "size": self.size, "durationMs": self.duration_ms,
            "failure": self.failure, "blockedReason": self.blocked, "redirectedTo": self.redirected_to,
            "initiator": self.initiator, "finished": self.done, "startedAt": self.started,
        }


def size_text(size: int | None) -> str:
    if size is None:
        return "-"
    if size < 1000:
        return f"{size} B"
    if size < 1_000_000:
        return f"{size / 1000:.1f} kB"
    return f"{size / 1_000_000:.1f} MB"


def summary_line(entry: NetworkEntry) -> str:
    """``#7 GET 200 fetch 1.2 kB 34 ms http://host/api/items``; a failure or a redirect
    in place of the status."""
    if entry.failure is not None:
        status = f"failed({entry.failure}, {entry.blocked})" if entry.blocked else f"failed({entry.failure})"
    elif entry.status is None:
        status = "pending"
    else:
        status = str(entry.status)
    duration = "-" if entry.duration_ms is None else f"{entry.duration_ms:.0f} ms"
    url = entry.url if len(entry.url) <= SUMMARY_URL_MAX else entry.url[: SUMMARY_URL_MAX - 1] + "\u2026"
    cache = " (cache)" if entry.from_cache else ""
    redirect = f" -> {entry.redirected_to}" if entry.redirected_to else ""
    return f"#{entry.id} {entry.method} {status} {entry.type} {size_text(entry.size)} {duration}{cache} {url}{redirect}"


def _initiator(initiator: Mapping[str, JsonValue] | None) -> str | None:
    if not isinstance(initiator, Mapping):
        return None
    kind = str(initiator.get("type") or "other")
    url = initiator.get("url")
    line = initiator.get("lineNumber")
    if not url:
        stack = initiator.get("stack") or {}
        frames = stack.get("callFrames") if isinstance(stack, Mapping) else None
        if isinstance(frames, list) and frames and isinstance(frames[0], Mapping):
            url, line = frames[0].get("url"), frames[0].get("lineNumber")
    if url:
        where = redact_url(str(url)) + (f":{int(line) + 1}" if isinstance(line, (int, float)) else "")
        return f"{kind} {where}"
    return kind


class NetworkLog:
    """One tab's requests (``target`` is its target id), newest last, at most :data:`MAX_ENTRIES`."""

    def __init__(self, target: str, next_id: Callable[[], int] | None = None, maxlen: int = MAX_ENTRIES) -> None:
        self.target = target
        self._next_id = next_id or itertools.count(1).__next__
        self._entries: deque[NetworkEntry] = deque()
        self._maxlen = maxlen
        #: The newest entry of each request id (a redirect chain shares its id).
        self._live: dict[str, NetworkEntry] = {}
        self._pending_request: OrderedDict[str, JsonObject] = OrderedDict()
        self._pending_response: OrderedDict[str, JsonObject] = OrderedDict()
        #: Entries let go to stay within the bound.
        self.dropped = 0
        self.total = 0

    def __iter__(self) -> Iterator[NetworkEntry]:
        return iter(list(self._entries))

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, entry_id: int) -> NetworkEntry | None:
        return next((e for e in self._entries if e.id == entry_id), None)

    def clear(self) -> None:
        self._entries.clear()
        self._live.clear()

    # -- events -------------------------------------------------------------------------

    def request(self, params: Mapping[str, JsonValue], source: TargetLink) -> NetworkEntry | None:
        request_id = params.get("requestId")
        request = params.get("request")
        if not isinstance(request_id, str) or not isinstance(request, Mapping):
            return None
        redirect = params.get("redirectResponse")
        previous = self._live.get(request_id)
        if isinstance(redirect, Mapping) and previous is not None:
            self._response_fields(previous, redirect)
            previous.redirected_to = redact_url(str(request.get("url", "")))
            self._finish(previous, params.get("timestamp"))
        url = str(request.get("url", ""))
        if request.get("urlFragment"):
            url += str(request["urlFragment"])
        entry = NetworkEntry(
            id=self._next_id(), target=self.target, request_id=request_id, source=source,
            method=str(request.get("method") or "GET"), url=redact_url(url),
            type=str(params.get("type") or "other").lower(), frame_id=params.get("frameId"),
            started=_wall_ms(params.get("wallTime")),
            request_headers=redact_headers(request.get("headers") or {}),
            has_body=bool(request.get("hasPostData")), initiator=_initiator(params.get("initiator")),
        )
        entry._t0 = params.get("timestamp") if isinstance(params.get("timestamp"), (int, float)) else None
        extra = self._pending_request.pop(request_id, None)
        if extra is not None:
            entry.request_headers = redact_headers(extra)
        self._add(entry)
        return entry

    def request_extra(self, params: Mapping[str, JsonValue]) -> None:
        """``requestWillBeSentExtraInfo``: the headers as sent (cookies included)."""
        request_id, headers = params.get("requestId"), params.get("headers")
        if not isinstance(request_id, str) or not isinstance(headers, Mapping):
            return
        entry = self._live.get(request_id)
        if entry is not None and not entry.done:
            entry.request_headers = redact_headers(headers)
        else:
            _bounded_put(self._pending_request, request_id, dict(headers))

    def response(self, params: Mapping[str, JsonValue]) -> None:
        entry = self._live.get(str(params.get("requestId")))
        response = params.get("response")
        if entry is None or not isinstance(response, Mapping):
            return
        self._response_fields(entry, response)
        if params.get("type"):
            entry.type = str(params["type"]).lower()
        extra = self._pending_response.pop(entry.request_id, None)
        if extra is not None:
            entry.response_headers = redact_headers(extra)

    def response_extra(self, params: Mapping[str, JsonValue]) -> None:
        """``responseReceivedExtraInfo``: the headers as received (``set-cookie`` included)."""
        request_id, headers = params.get("requestId"), params.get("headers")
        if not isinstance(request_id, str) or not isinstance(headers, Mapping):
            return
        entry = self._live.get(request_id)
        if entry is not None and entry.status is not None and not entry.done:
            entry.response_headers = redact_headers(headers)
        else:
            _bounded_put(self._pending_response, request_id, dict(headers))

    def served_from_cache(self, params: Mapping[str, JsonValue]) -> None:
        entry = self._live.get(str(params.get("requestId")))
        if entry is not None:
            entry.from_cache = True

    def finished(self, params: Mapping[str, JsonValue]) -> NetworkEntry | None:
        entry = self._live.get(str(params.get("requestId")))
        if entry is None:
            return None
        size = params.get("encodedDataLength")
        if isinstance(size, (int, float)):
            entry.size = int(size)
        self._finish(entry, params.get("timestamp"))
        return entry

    def failed(self, params: Mapping[str, JsonValue]) -> NetworkEntry | None:
        entry = self._live.get(str(params.get("requestId")))
        if entry is None:
            return None
        entry.failure = "canceled" if params.get("canceled") else str(params.get("errorText") or "failed")
        blocked = params.get("blockedReason") or (params.get("corsErrorStatus") or {}).get("corsError")
        entry.blocked = str(blocked) if blocked else None
        self._finish(entry, params.get("timestamp"))
        return entry

    # -- helpers ------------------------------------------------------------------------

    def _add(self, entry: NetworkEntry) -> None:
        if len(self._entries) >= self._maxlen:
            old = self._entries.popleft()
            if self._live.get(old.request_id) is old:
                del self._live[old.request_id]
            self.dropped += 1
        self._entries.append(entry)
        self._live[entry.request_id] = entry
        self.total += 1

    def _response_fields(self, entry: NetworkEntry, response: Mapping[str, JsonValue]) -> None:
        status = response.get("status")
        entry.status = int(status) if isinstance(status, (int, float)) else None
        entry.status_text = str(response.get("statusText") or "") or None
        entry.mime = response.get("mimeType") or None
        entry.response_headers = redact_headers(response.get("headers") or {})
        ip, port = response.get("remoteIPAddress"), response.get("remotePort")
        entry.remote = f"{ip}:{port}" if ip else None
        entry.protocol = response.get("protocol") or None
        if response.get("fromDiskCache") or response.get("fromPrefetchCache") or response.get("fromServiceWorker"):
            entry.from_cache = True

    def _finish(self, entry: NetworkEntry, timestamp: JsonValue) -> None:
        entry.done = True
        if isinstance(timestamp, (int, float)) and entry._t0 is not None:
            entry.duration_ms = round((timestamp - entry._t0) * 1000, 1)


def _wall_ms(wall: JsonValue) -> float | None:
    return round(float(wall) * 1000, 1) if isinstance(wall, (int, float)) else None


def _bounded_put(store: OrderedDict[str, JsonObject], key: str, value: JsonObject) -> None:
    store[key] = value
    store.move_to_end(key)
    while len(store) > _PENDING_MAX:
        store.popitem(last=False)
