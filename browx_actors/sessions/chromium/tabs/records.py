"""The records a session's page events feed, and the counters an action's settle waits on.

:class:`RequestTracker` and :class:`Pulse` are what :mod:`.input.settle` waits on, on the
Playwright thread: the tap (:mod:`.tabs.tap`) updates them from the Trio thread, and the
pulse crosses threads only when somebody waits. :class:`ConsoleLog` keeps each tab's
newest :data:`CONSOLE_MAX` console entries. :class:`~.tabs.events.PageEvents` holds one
of each per session.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections import Counter, deque
from collections.abc import Callable, Iterator
from typing import TypedDict

from ....credentials import redact_url
from ..console.text import ConsoleEntry, clip

__all__ = ["CONSOLE_MAX", "ConsoleCounts", "ConsoleLog", "Pulse", "RequestTracker", "TabConsole"]

#: Console entries kept per tab.
CONSOLE_MAX = 1000
#: How much of a URL a request still in flight is named by.
_URL_SHOWN = 200

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
    those, on its own tab: a tab the action opened loads on its own time (and can be
    held by its setup before it may load at all), and it is the agent's to select.
    ``navigations_ended`` counts main-frame navigation requests that finished or
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
        #: Requests begun, by the tab (target id) whose session reported them.
        self._started_on: Counter[str] = Counter()
        #: Each request in flight, by its flat session and request id: its method, its
        #: URL (for a settle that gives up on it to name, redacted only then), its tab.
        self._inflight: dict[tuple[str, str], tuple[str, str, str | None]] = {}
        self._pulse = pulse or Pulse()

    def begin(self, key: tuple[str, str], what: tuple[str, str] = ("?", "?"), tab: str | None = None) -> None:
        self.started += 1
        if tab is not None:
            self._started_on[tab] += 1
        self._inflight[key] = (*what, tab)

    def end(self, key: tuple[str, str], *, main_navigation: bool = False) -> None:
        self._inflight.pop(key, None)
        if main_navigation:
            self.navigations_ended += 1
        self._pulse.fire_threadsafe()

    def forget(self, source: str) -> None:
        """A flat session ended (its tab closed): what it had in flight never ends."""
        self._inflight = {key: what for key, what in self._inflight.items() if key[0] != source}
        self._pulse.fire_threadsafe()

    def started_on(self, tab: str | None) -> int:
        """Requests the tab's sessions (its own, its frames', its workers') have begun;
        with no tab (not attached yet), those of every tab."""
        return self.started if tab is None else self._started_on[tab]

    @property
    def in_flight(self) -> int:
        return len(self._inflight)

    def _on(self, tab: str | None) -> Iterator[tuple[str, str, str | None]]:
        return (what for what in self._inflight.values() if tab is None or what[2] == tab)

    def pending(self, limit: int = 3, tab: str | None = None) -> list[str]:
        """The oldest requests still in flight (on ``tab``; None: on any), at most
        ``limit``: ``GET <url>``, the URL redacted and cut to :data:`_URL_SHOWN`
        characters (a ``data:`` URL can be megabytes)."""
        oldest = itertools.islice(self._on(tab), limit)
        return [f"{method} {clip(redact_url(url), _URL_SHOWN)}" for method, url, _ in oldest]

    async def wait_idle(self, timeout: float, tab: str | None = None) -> bool:
        """On the Playwright thread: wait until nothing is in flight on ``tab`` (None: on
        any tab); False on timeout."""
        return await self._pulse.wait_until(lambda: next(self._on(tab), None) is None, timeout)


class ConsoleCounts(TypedDict):
    """What ``console_read`` counts of one tab's console."""

    seen: int
    byLevel: dict[str, int]
    kept: int
    dropped: int
    sampledOut: int
    sampledInPage: int


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
        #: Of those, the ones the page's own sampler held back (:mod:`.console.sampler`).
        self.sampled_in_page = 0

    def add(self, entry: ConsoleEntry) -> None:
        if len(self.entries) == self.entries.maxlen:
            self.dropped += 1
        self.entries.append(entry)
        self.seen[entry.level] += 1

    def held_in_page(self, counts: dict[str, int]) -> None:
        """Messages the page logged and its sampler held back: seen, never recorded."""
        for level, held in counts.items():
            if held:
                self.seen[level] += held
                self.sampled_out += held
                self.sampled_in_page += held

    def counts(self) -> ConsoleCounts:
        return {"seen": sum(self.seen.values()), "byLevel": dict(self.seen), "kept": len(self.entries),
                "dropped": self.dropped, "sampledOut": self.sampled_out, "sampledInPage": self.sampled_in_page}


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

    def since(self, seq: int, *, errors_only: bool = False) -> list[dict[str, object]]:
        """What an action's result lists: entries after ``seq`` (errors only if asked)."""
        return [e.compat() for e in self.entries() if e.id > seq and (not errors_only or e.is_error)]

    def find(self, entry_id: int) -> ConsoleEntry | None:
        return next((e for e in self.entries() if e.id == entry_id), None)

    def clear(self, targets: list[str] | None = None) -> None:
        for target, tab in self._tabs.items():
            if targets is None or target in targets:
                tab.entries.clear()
