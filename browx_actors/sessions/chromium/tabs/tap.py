"""The tap on one event session: console and network events into the session's logs.

The CDP reader calls :class:`TabTap` for each event of the methods it names, in the
order the browser sent them (:class:`~browx_actors.cdp.protocol.EventTap`), and asks it
first whether a console message may be counted and dropped undecoded (a flood being
sampled: :meth:`TabTap.skip` looks at the message's raw head for its level). Each
handler is a few dictionary and counter updates: nothing here waits. When the console
bucket runs dry the tap asks (``on_flood``) for the flooding context to be sampled in
the page itself (:mod:`.console.sampler`), and counts what the page then holds back.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Protocol

from ....cdp import CdpEvent, TargetLink
from ....jsonsafe import JsonObject
from ..console.sampler import held_back_counts
from ..console.text import ConsoleEntry, entry_from_console_api, entry_from_exception, entry_from_log
from ..network.log import NetworkLog
from .records import ConsoleLog, RequestTracker


class TapRecords(Protocol):
    """What a tap records into: a session's :class:`~.tabs.events.PageEvents`."""

    record: bool
    #: What the page's sampler signs its held-back counts with (:mod:`.console.sampler`).
    sampling_nonce: str
    console: ConsoleLog
    requests: RequestTracker
    clock: Callable[[], float]

    def network(self, target: str) -> NetworkLog: ...

    def download_begun(self) -> None: ...

__all__ = ["CONSOLE_METHODS", "CONTEXT_METHODS", "FLOOD_LOOK_S", "NETWORK_METHODS", "PAGE_METHODS",
           "RESAMPLE_AFTER_S", "SAMPLE_BURST", "SAMPLE_RATE", "Sampler", "TabTap", "TapRecords", "browser_own_request"]

#: Console entries recorded per second per tab and bucket, and the burst allowed.
SAMPLE_RATE = 500.0
SAMPLE_BURST = 1000.0

CONSOLE_METHODS = frozenset({"Runtime.consoleAPICalled", "Runtime.exceptionThrown", "Log.entryAdded"})
PAGE_METHODS = frozenset({"Page.frameNavigated", "Page.downloadWillBegin", "Page.frameAttached",
                          "Page.frameDetached"})
#: Main-world contexts by frame, so a frame's own page agent can be reached (frames).
CONTEXT_METHODS = frozenset({"Runtime.executionContextCreated", "Runtime.executionContextDestroyed",
                             "Runtime.executionContextsCleared"})
NETWORK_METHODS = frozenset({
    "Network.requestWillBeSent", "Network.requestWillBeSentExtraInfo", "Network.responseReceived",
    "Network.responseReceivedExtraInfo", "Network.requestServedFromCache", "Network.loadingFinished",
    "Network.loadingFailed",
})

_CONSOLE_TYPE_AT = '{"method":"Runtime.consoleAPICalled","params":{"type":"'
#: Outside any string value (whose quotes are escaped), so the first match is the field.
_CONTEXT_ID = re.compile(r'"executionContextId":(\d+)')
#: A context still flooding this long after its sampler was asked for is asked again
#: (the sampler steps aside after a calm second; the page may start again).
RESAMPLE_AFTER_S = 5.0
#: How often a dry bucket looks for the flooding context at most (a look is a search of
#: the raw message, which can be long; a flood sends thousands a second).
FLOOD_LOOK_S = 0.25
_ERROR_TYPES = ("error", "assert")


class Sampler:
    """A token bucket: ``rate`` admissions a second on average, ``burst`` at once."""

    def __init__(self, rate: float = SAMPLE_RATE, burst: float = SAMPLE_BURST,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._tokens = burst
        self._last = clock()

    def admit(self) -> bool:
        now = self._clock()
        self._tokens = min(self.burst, self._tokens + (now - self._last) * self.rate)
        self._last = now
        if self._tokens >= 1:
            self._tokens -= 1
            return True
        return False


class TabTap:
    """The console and network events of one flat session (a tab, or an out-of-process
    frame of one), fed to the session's logs by the CDP reader.

    ``record=False`` keeps only what an action's settle needs: errors for its result
    and the request counters; every other message is counted, never decoded.
    """

    methods = CONSOLE_METHODS | NETWORK_METHODS | PAGE_METHODS | CONTEXT_METHODS

    def __init__(self, events: TapRecords, target: str, source: TargetLink, *, main_frame: str | None,
                 worker: bool = False) -> None:
        self.events = events
        #: The tab's target id, which keys its buffers.
        self.target = target
        #: The flat session it taps (entries remember it, to ask for bodies).
        self.source = source
        self.key = getattr(source, "session_id", target)
        self.main_frame = main_frame
        #: What its console calls are listed as: a dedicated worker's say ``worker``.
        self.console_source = "worker" if worker else "console"
        self.console = events.console.tab(target)
        self.network = events.network(target)
        self._errors = Sampler(clock=events.clock)
        self._others = Sampler(clock=events.clock)
        self._navigation_ids: set[str] = set()
        #: Documents committed in the tab's main frame: a read that comes back after
        #: this moved ran in a newer document than the one it was meant for.
        self.commits = 0
        #: The main world's execution context of each frame this session hosts, and the
        #: parent of each frame attached under it (out-of-process ones included).
        self.contexts: dict[str, int] = {}
        self.parents: dict[str, str] = {}
        #: Called with a flooding execution context's id, to sample it in the page; when
        #: each context last asked for that.
        self.on_flood: Callable[[int], None] | None = None
        self._sampling_asked: dict[int, float] = {}
        self._flood_looked_at = float("-inf")

    def __repr__(self) -> str:
        return f"<TabTap {self.target} via {self.key}>"

    # -- the reader's questions ---------------------------------------------------------

    def skip(self, method: str, raw: str) -> bool:
        if method == "Runtime.exceptionThrown":
            kind, error = "error", True
        elif method == "Runtime.consoleAPICalled":
            kind = _peek_console_type(raw)
            error = kind in _ERROR_TYPES
        else:
            return False
        # Admission is asked with recording off too: a dry bucket is how a flood shows.
        admitted = (self._errors if error else self._others).admit()
        if admitted and (error or self.events.record):
            return False
        if kind == "debug" and self.events.sampling_nonce in raw:
            return False  # the page's sampler saying what it held back: always read
        if not admitted:
            self._flooding(raw)
        self.console.sampled_out += 1
        self.console.seen["error" if error else "warn" if kind == "warning" else "info"] += 1
        return True

    def _flooding(self, raw: str) -> None:
        """Ask for the context this message came from to be sampled in the page."""
        now = self.events.clock()
        if self.on_flood is None or now - self._flood_looked_at < FLOOD_LOOK_S:
            return
        self._flood_looked_at = now
        found = _CONTEXT_ID.search(raw)
        if found is None:
            return
        context = int(found.group(1))
        asked = self._sampling_asked.get(context)
        if asked is not None and now - asked < RESAMPLE_AFTER_S:
            return
        self._sampling_asked[context] = now
        self.on_flood(context)

    def on_event(self, event: CdpEvent) -> None:
        handler = _HANDLERS.get(event.method)
        if handler is not None:
            handler(self, event.params)

    # -- console ------------------------------------------------------------------------

    def _console_api(self, params: JsonObject) -> None:
        held = held_back_counts(params, self.events.sampling_nonce)
        if held is not None:
            self.console.held_in_page(held)
            return
        self._record(entry_from_console_api(self.events.console.next_id(), self.target, params,
                                            self.console_source))

    def _exception(self, params: JsonObject) -> None:
        self._record(entry_from_exception(self.events.console.next_id(), self.target, params))

    def _log(self, params: JsonObject) -> None:
        if (params.get("entry") or {}).get("source") == "worker":
            return  # a worker's console call, relayed; its own tap has it, arguments and all
        self._record(entry_from_log(self.events.console.next_id(), self.target, params))

    def _record(self, entry: ConsoleEntry) -> None:
        if self.events.record or entry.is_error:
            self.console.add(entry)
        else:
            self.console.seen[entry.level] += 1
            self.console.sampled_out += 1

    def _frame_navigated(self, params: JsonObject) -> None:
        frame = params.get("frame") or {}
        if frame.get("id") == self.main_frame and not frame.get("parentId"):
            # The document committed: its request is no longer one that ends without.
            self._navigation_ids.discard(frame.get("loaderId"))
            self.commits += 1

    def _context_created(self, params: JsonObject) -> None:
        context = params.get("context") or {}
        aux = context.get("auxData") or {}
        if aux.get("isDefault") and isinstance(aux.get("frameId"), str) and isinstance(context.get("id"), int):
            self.contexts[aux["frameId"]] = context["id"]

    def _context_destroyed(self, params: JsonObject) -> None:
        gone = params.get("executionContextId")
        for frame, context in list(self.contexts.items()):
            if context == gone:
                del self.contexts[frame]

    def _contexts_cleared(self, params: JsonObject) -> None:
        self.contexts.clear()
        self._sampling_asked.clear()  # those contexts are gone, and their ids with them

    def _frame_attached(self, params: JsonObject) -> None:
        frame, parent = params.get("frameId"), params.get("parentFrameId")
        if isinstance(frame, str) and isinstance(parent, str):
            self.parents[frame] = parent

    def _frame_detached(self, params: JsonObject) -> None:
        # A frame that swaps to another process detaches here and lives on there.
        if params.get("reason") != "swap":
            self.parents.pop(str(params.get("frameId")), None)

    def _download(self, params: JsonObject) -> None:
        self.events.download_begun()
        if params.get("frameId") == self.main_frame:
            # A link with `download` becomes a download without any request of the page's:
            # a navigation that started (the page said it was leaving) and ended uncommitted.
            self.events.requests.end(("download", str(params.get("guid"))), main_navigation=True)

    # -- network ------------------------------------------------------------------------

    def _request(self, params: JsonObject) -> None:
        request_id = params.get("requestId")
        if not isinstance(request_id, str):
            return
        if params.get("redirectResponse") is None and not browser_own_request(params):
            self.events.requests.begin((self.key, request_id), _request_line(params), tab=self.target)
        if (params.get("type") == "Document" and request_id == params.get("loaderId")
                and self.main_frame is not None and params.get("frameId") == self.main_frame):
            self._navigation_ids.add(request_id)
        if self.events.record:
            self.network.request(params, self.source)

    def _ended(self, params: JsonObject, failed: bool) -> None:
        request_id = params.get("requestId")
        if not isinstance(request_id, str):
            return
        navigation = request_id in self._navigation_ids  # still uncommitted
        self._navigation_ids.discard(request_id)
        self.events.requests.end((self.key, request_id), main_navigation=navigation)
        if self.events.record:
            if failed:
                self.network.failed(params)
            else:
                self.network.finished(params)



def _request_line(params: JsonObject) -> tuple[str, str]:
    """The method and URL of a ``Network.requestWillBeSent``."""
    request = params.get("request")
    if not isinstance(request, dict):
        return "?", "?"
    method, url = request.get("method"), request.get("url")
    return (method if isinstance(method, str) else "?"), (url if isinstance(url, str) else "?")


def browser_own_request(params: JsonObject) -> bool:
    """Is this ``Network.requestWillBeSent`` the browser's own fetch of the page's icon
    (``/favicon.ico``, initiated by no script or element of the page)? It is listed in the
    network log, but no action started it, so an action's settle never waits for it
    (it went out during the first click after a load and cost that click a network
    wait)."""
    request = params.get("request")
    url = request.get("url") if isinstance(request, dict) else None
    initiator = params.get("initiator")
    return (isinstance(url, str) and url.split("?", 1)[0].endswith("/favicon.ico")
            and params.get("type") in (None, "Other")
            and (not isinstance(initiator, dict) or initiator.get("type") == "other"))


def _when_recording(fn: Callable[[NetworkLog, JsonObject], object]) -> Callable[[TabTap, JsonObject], None]:
    def handle(tap: TabTap, params: JsonObject) -> None:
        if tap.events.record:
            fn(tap.network, params)
    return handle


_HANDLERS: dict[str, Callable[[TabTap, JsonObject], None]] = {
    "Runtime.consoleAPICalled": TabTap._console_api,
    "Runtime.exceptionThrown": TabTap._exception,
    "Log.entryAdded": TabTap._log,
    "Page.frameNavigated": TabTap._frame_navigated,
    "Page.downloadWillBegin": TabTap._download,
    "Page.frameAttached": TabTap._frame_attached,
    "Page.frameDetached": TabTap._frame_detached,
    "Runtime.executionContextCreated": TabTap._context_created,
    "Runtime.executionContextDestroyed": TabTap._context_destroyed,
    "Runtime.executionContextsCleared": TabTap._contexts_cleared,
    "Network.requestWillBeSent": TabTap._request,
    "Network.requestWillBeSentExtraInfo": _when_recording(NetworkLog.request_extra),
    "Network.responseReceived": _when_recording(NetworkLog.response),
    "Network.responseReceivedExtraInfo": _when_recording(NetworkLog.response_extra),
    "Network.requestServedFromCache": _when_recording(NetworkLog.served_from_cache),
    "Network.loadingFinished": lambda tap, params: tap._ended(params, failed=False),
    "Network.loadingFailed": lambda tap, params: tap._ended(params, failed=True),
}


def _peek_console_type(raw: str) -> str:
    """The console method of a raw ``consoleAPICalled`` message (``log``, ``error``...),
    read from its head where Chromium writes it; ``""`` if it is not there."""
    if not raw.startswith(_CONSOLE_TYPE_AT):
        return ""
    start = len(_CONSOLE_TYPE_AT)
    end = raw.find('"', start, start + 32)
    return raw[start:end] if end > 0 else ""


