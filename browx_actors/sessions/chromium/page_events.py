"""What a session records from its tabs' events: console entries, requests, and the
counters an action's settle reads.

Every tab's raw CDP flat session carries a :class:`TabTap`, which the connection's
reader calls for each console and network event, in the order the browser sent them
(:class:`~browx_actors.cdp.protocol.EventTap`). So when a command's reply comes back on
that session, the tap has seen every event the browser sent before it: a settle that
reads the page over the same session finds the counters current, with no wait.

Nothing here is processed one by one on an action's path beyond a few counter bumps:

* console messages are counted per tab and *sampled*: a token bucket admits up to
  :data:`SAMPLE_RATE` a second (errors have a bucket of their own, so a flood of logs
  cannot hide them), and a message the bucket refuses is counted from a peek at its
  raw text, never decoded (a page logging 40,000 messages a second costs a string
  search per message);
* each tab keeps its newest :data:`CONSOLE_MAX` console entries and
  :data:`~.network_log.MAX_ENTRIES` requests, counting what it let go.

:class:`RequestTracker` and :class:`Pulse` are what :mod:`.settle` waits on, on the
Playwright thread: the tap updates them from the Trio thread, and the pulse crosses
threads only when somebody waits.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator
from typing import Any

from ...cdp import CdpEvent
from .console_text import (
    ConsoleEntry,
    entry_from_console_api,
    entry_from_exception,
    entry_from_log,
)
from .network_log import NetworkLog

__all__ = [
    "CONSOLE_MAX",
    "SAMPLE_BURST",
    "SAMPLE_RATE",
    "ConsoleLog",
    "PageEvents",
    "Pulse",
    "RequestTracker",
    "Sampler",
    "TabConsole",
    "TabTap",
]

#: Console entries kept per tab.
CONSOLE_MAX = 1000
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
_ERROR_TYPES = ("error", "assert")


class Pulse:
    """Wakes a waiter on the Playwright thread whenever the state it watches may have
    changed; the waiter re-checks its own condition, so a pulse carries no data.

    A waiter registers before it checks, so a change made from another thread between
    its check and its wait still wakes it (:meth:`fire_threadsafe` looks for waiters
    after the change is made).
    """

    def __init__(self) -> None:
        self._events: list[asyncio.Event] = []
        self._loop: asyncio.AbstractEventLoop | None = None

    def fire(self) -> None:
        """On the Playwright thread."""
        for event in list(self._events):
            event.set()

    def fire_threadsafe(self) -> None:
        """From any thread; costs nothing while nobody waits."""
        loop = self._loop
        if self._events and loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop has closed: nobody is left to wake
                loop.call_soon_threadsafe(self.fire)

    async def wait_until(self, condition: Callable[[], bool], timeout: float) -> bool:
        """Wait until ``condition()`` holds; False if ``timeout`` seconds pass first."""
        loop = asyncio.get_running_loop()
        self._loop = loop
        deadline = loop.time() + timeout
        while True:
            event = asyncio.Event()
            self._events.append(event)
            try:
                if condition():
                    return True
                remaining = deadline - loop.time()
                if remaining <= 0:
                    return False
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(event.wait(), remaining)
            finally:
                self._events.remove(event)


class RequestTracker:
    """Requests in flight on the session's tabs, counted from their raw Network events.

    An action that starts requests (a fetch behind "Load more", a form post) has not
    settled until they finish; :meth:`wait_idle` lets the action wait for exactly
    those. ``navigations_ended`` counts main-frame navigation requests that finished or
    failed without committing a document, so a wait for a navigation to commit can
    also end when its request ended without one (a 204, a download; a ``download``
    link, which makes no request of the page's, counts when its download begins). A navigation that
    commits is not counted: its commit is what the wait sees (through Playwright, which
    also updates the page's URL), and counting its request too could end the wait
    before Playwright has heard of the new document.
    """

    def __init__(self, pulse: Pulse | None = None) -> None:
        self.started = 0
        self.navigations_ended = 0
        self._inflight: set[tuple[str, str]] = set()
        self._pulse = pulse or Pulse()

    def begin(self, key: tuple[str, str]) -> None:
        self.started += 1
        self._inflight.add(key)

    def end(self, key: tuple[str, str], *, main_navigation: bool = False) -> None:
        self._inflight.discard(key)
        if main_navigation:
            self.navigations_ended += 1
        self._pulse.fire_threadsafe()

    def forget(self, source: str) -> None:
        """A flat session ended (its tab closed): what it had in flight never ends."""
        self._inflight = {key for key in self._inflight if key[0] != source}
        self._pulse.fire_threadsafe()

    @property
    def in_flight(self) -> int:
        return len(self._inflight)

    async def wait_idle(self, timeout: float) -> bool:
        """On the Playwright thread: wait until nothing is in flight; False on timeout."""
        return await self._pulse.wait_until(lambda: not self._inflight, timeout)


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


class TabConsole:
    """One tab's console: its newest entries and the counts of everything it saw."""

    def __init__(self, maxlen: int = CONSOLE_MAX) -> None:
        self.entries: deque[ConsoleEntry] = deque(maxlen=maxlen)
        #: Messages seen, recorded or not, by level.
        self.seen: Counter[str] = Counter()
        #: Entries let go to stay within the bound.
        self.dropped = 0
        #: Messages counted but not recorded, because they came faster than the sampler admits.
        self.sampled_out = 0

    def add(self, entry: ConsoleEntry) -> None:
        if len(self.entries) == self.entries.maxlen:
            self.dropped += 1
        self.entries.append(entry)
        self.seen[entry.level] += 1

    def counts(self) -> dict[str, Any]:
        return {"seen": sum(self.seen.values()), "byLevel": dict(self.seen), "kept": len(self.entries),
                "dropped": self.dropped, "sampledOut": self.sampled_out}


class ConsoleLog:
    """The console of every tab of a session, keyed by the tab's target id; one id
    sequence across tabs, so ``since`` reads them together in order."""

    def __init__(self, maxlen: int = CONSOLE_MAX) -> None:
        self._tabs: dict[str, TabConsole] = {}
        self._maxlen = maxlen
        self._ids = itertools.count(1)
        self.last_seq = 0

    def next_id(self) -> int:
        self.last_seq = next(self._ids)
        return self.last_seq

    def tab(self, target: str) -> TabConsole:
        found = self._tabs.get(target)
        if found is None:
            found = self._tabs[target] = TabConsole(self._maxlen)
        return found

    def forget(self, target: str) -> None:
        self._tabs.pop(target, None)

    def append(self, target: str, entry: ConsoleEntry) -> None:
        self.tab(target).add(entry)

    def entries(self, targets: list[str] | None = None) -> list[ConsoleEntry]:
        """Every kept entry of the given tabs (default all), oldest first."""
        chosen = self._tabs.items() if targets is None else ((t, self._tabs[t]) for t in targets if t in self._tabs)
        merged = [entry for _, tab in chosen for entry in list(tab.entries)]
        merged.sort(key=lambda e: e.id)
        return merged

    def since(self, seq: int, *, errors_only: bool = False) -> list[dict[str, Any]]:
        """What an action's result lists: entries after ``seq`` (errors only if asked)."""
        return [e.compat() for e in self.entries() if e.id > seq and (not errors_only or e.is_error)]

    def find(self, entry_id: int) -> ConsoleEntry | None:
        return next((e for e in self.entries() if e.id == entry_id), None)

    def clear(self, targets: list[str] | None = None) -> None:
        for target, tab in self._tabs.items():
            if targets is None or target in targets:
                tab.entries.clear()


class TabTap:
    """The console and network events of one flat session (a tab, or an out-of-process
    frame of one), fed to the session's logs by the CDP reader.

    ``record=False`` keeps only what an action's settle needs: errors for its result
    and the request counters; every other message is counted, never decoded.
    """

    methods = CONSOLE_METHODS | NETWORK_METHODS | PAGE_METHODS | CONTEXT_METHODS

    def __init__(self, events: PageEvents, target: str, source: Any, *, main_frame: str | None) -> None:
        self.events = events
        #: The tab's target id, which keys its buffers.
        self.target = target
        #: The flat session it taps (entries remember it, to ask for bodies).
        self.source = source
        self.key = getattr(source, "session_id", target)
        self.main_frame = main_frame
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

    def __repr__(self) -> str:
        return f"<TabTap {self.target} via {self.key}>"

    # -- the reader's questions ---------------------------------------------------------

    def skip(self, method: str, raw: str) -> bool:
        if method != "Runtime.consoleAPICalled":
            return False
        kind = _peek_console_type(raw)
        error = kind in _ERROR_TYPES
        if error and self._errors.admit():
            return False
        if not error and self.events.record and self._others.admit():
            return False
        self.console.sampled_out += 1
        self.console.seen["error" if error else "warn" if kind == "warning" else "info"] += 1
        return True

    def on_event(self, event: CdpEvent) -> None:
        handler = _HANDLERS.get(event.method)
        if handler is not None:
            handler(self, event.params)

    # -- console ------------------------------------------------------------------------

    def _console_api(self, params: dict[str, Any]) -> None:
        self._record(entry_from_console_api(self.events.console.next_id(), self.target, params))

    def _exception(self, params: dict[str, Any]) -> None:
        self._record(entry_from_exception(self.events.console.next_id(), self.target, params))

    def _log(self, params: dict[str, Any]) -> None:
        self._record(entry_from_log(self.events.console.next_id(), self.target, params))

    def _record(self, entry: ConsoleEntry) -> None:
        if self.events.record or entry.is_error:
            self.console.add(entry)
        else:
            self.console.seen[entry.level] += 1
            self.console.sampled_out += 1

    def _frame_navigated(self, params: dict[str, Any]) -> None:
        frame = params.get("frame") or {}
        if frame.get("id") == self.main_frame and not frame.get("parentId"):
            # The document committed: its request is no longer one that ends without.
            self._navigation_ids.discard(frame.get("loaderId"))
            self.commits += 1

    def _context_created(self, params: dict[str, Any]) -> None:
        context = params.get("context") or {}
        aux = context.get("auxData") or {}
        if aux.get("isDefault") and isinstance(aux.get("frameId"), str) and isinstance(context.get("id"), int):
            self.contexts[aux["frameId"]] = context["id"]

    def _context_destroyed(self, params: dict[str, Any]) -> None:
        gone = params.get("executionContextId")
        for frame, context in list(self.contexts.items()):
            if context == gone:
                del self.contexts[frame]

    def _frame_attached(self, params: dict[str, Any]) -> None:
        frame, parent = params.get("frameId"), params.get("parentFrameId")
        if isinstance(frame, str) and isinstance(parent, str):
            self.parents[frame] = parent

    def _frame_detached(self, params: dict[str, Any]) -> None:
        # A frame that swaps to another process detaches here and lives on there.
        if params.get("reason") != "swap":
            self.parents.pop(str(params.get("frameId")), None)

    def _download(self, params: dict[str, Any]) -> None:
        self.events.download_begun()
        if params.get("frameId") == self.main_frame:
            # A link with `download` becomes a download without any request of the page's:
            # a navigation that started (the page said it was leaving) and ended uncommitted.
            self.events.requests.end(("download", str(params.get("guid"))), main_navigation=True)

    # -- network ------------------------------------------------------------------------

    def _request(self, params: dict[str, Any]) -> None:
        request_id = params.get("requestId")
        if not isinstance(request_id, str):
            return
        if params.get("redirectResponse") is None:
            self.events.requests.begin((self.key, request_id))
        if (params.get("type") == "Document" and request_id == params.get("loaderId")
                and self.main_frame is not None and params.get("frameId") == self.main_frame):
            self._navigation_ids.add(request_id)
        if self.events.record:
            self.network.request(params, self.source)

    def _ended(self, params: dict[str, Any], failed: bool) -> None:
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



def _when_recording(fn: Callable[[NetworkLog, dict[str, Any]], Any]) -> Callable[[TabTap, dict[str, Any]], None]:
    def handle(tap: TabTap, params: dict[str, Any]) -> None:
        if tap.events.record:
            fn(tap.network, params)
    return handle


_HANDLERS: dict[str, Callable[[TabTap, dict[str, Any]], None]] = {
    "Runtime.consoleAPICalled": TabTap._console_api,
    "Runtime.exceptionThrown": TabTap._exception,
    "Log.entryAdded": TabTap._log,
    "Page.frameNavigated": TabTap._frame_navigated,
    "Page.downloadWillBegin": TabTap._download,
    "Page.frameAttached": TabTap._frame_attached,
    "Page.frameDetached": TabTap._frame_detached,
    "Runtime.executionContextCreated": TabTap._context_created,
    "Runtime.executionContextDestroyed": TabTap._context_destroyed,
    "Runtime.executionContextsCleared": lambda tap, params: tap.contexts.clear(),
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


class PageEvents:
    """A session's console and network records, per tab, and settle's counters.

    ``record`` (``BROWX_PAGE_RECORDING``) off keeps no console entries but errors and
    no network entries; the request counters and the pulse work either way.
    """

    def __init__(self, pulse: Pulse, *, record: bool = True, clock: Callable[[], float] = time.monotonic) -> None:
        self.record = record
        self.clock = clock
        self.console = ConsoleLog()
        self.requests = RequestTracker(pulse)
        self._networks: dict[str, NetworkLog] = {}
        self._network_ids = itertools.count(1)
        #: The newest request id handed out (0 before the first).
        self.last_request_id = 0
        #: Downloads the browser reported starting (Playwright reports each a moment later).
        self.downloads_begun = 0
        #: The tap of each tab's own event session (not its frames'), and every tap by tab.
        self._page_taps: dict[str, TabTap] = {}
        self._taps: dict[str, list[TabTap]] = {}

    def network(self, target: str) -> NetworkLog:
        found = self._networks.get(target)
        if found is None:
            found = self._networks[target] = NetworkLog(target, self._next_request_id)
        return found

    def _next_request_id(self) -> int:
        self.last_request_id = next(self._network_ids)
        return self.last_request_id

    def networks(self, targets: list[str] | None = None) -> Iterator[NetworkLog]:
        for target, log in list(self._networks.items()):
            if targets is None or target in targets:
                yield log

    def tap(self, target: str, source: Any, *, main_frame: str | None) -> TabTap:
        tap = TabTap(self, target, source, main_frame=main_frame)
        if main_frame == target:
            self._page_taps[target] = tap
        self._taps.setdefault(target, []).append(tap)
        return tap

    def context_of(self, target: str, frame_id: str) -> int | None:
        """The main-world context of a frame of the tab, as its hosting session knows it."""
        for tap in reversed(self._taps.get(target, [])):
            if frame_id in tap.contexts and getattr(tap.source, "lost", None) is None:
                return tap.contexts[frame_id]
        return None

    def parent_of(self, target: str, frame_id: str) -> str | None:
        for tap in self._taps.get(target, []):
            if frame_id in tap.parents:
                return tap.parents[frame_id]
        return None

    def download_begun(self) -> None:
        self.downloads_begun += 1

    def commits(self, target: str | None) -> int:
        """Main-frame documents the tab has committed, as its event session reported."""
        tap = None if target is None else self._page_taps.get(target)
        return 0 if tap is None else tap.commits

    def forget(self, target: str, source_keys: list[str]) -> None:
        """A tab closed: its records go, and what its sessions had in flight."""
        self.console.forget(target)
        self._networks.pop(target, None)
        self._page_taps.pop(target, None)
        self._taps.pop(target, None)
        for key in source_keys:
            self.requests.forget(key)
