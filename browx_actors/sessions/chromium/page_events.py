"""What a session records from its tabs' events: console entries, requests, and the
counters an action's settle reads.

Every tab's raw CDP event session carries a :class:`~.tab_tap.TabTap`, which the
connection's reader calls for each console and network event, in the order the browser
sent them (:class:`~browx_actors.cdp.protocol.EventTap`). So when a command's reply comes back on
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

from .console_text import ConsoleEntry
from .network_log import NetworkLog
from .tab_tap import SAMPLE_BURST, SAMPLE_RATE, Sampler, TabTap

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
]

#: Console entries kept per tab.
CONSOLE_MAX = 1000

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
