"""What a session records from its tabs' events: console entries, requests, and the
counters an action's settle reads.

Every tab's raw CDP event session carries a :class:`~.tabs.tap.TabTap`, which the
connection's reader calls for each console and network event, in the order the browser
sent them (:class:`~browx_actors.cdp.protocol.EventTap`). So when a command's reply comes back on
that session, the tap has seen every event the browser sent before it: a settle that
reads the page over the same session finds the counters current, with no wait.

Nothing here is processed one by one on an action's path beyond a few counter bumps:

* console messages are counted per tab and *sampled*: a token bucket admits up to
  :data:`~.tabs.tap.SAMPLE_RATE` a second (errors have a bucket of their own, so a flood of logs
  cannot hide them), and a message the bucket refuses is counted from a peek at its
  raw text, never decoded (a page logging 40,000 messages a second costs a string
  search per message);
* each tab keeps its newest :data:`~.tabs.records.CONSOLE_MAX` console entries and
  :data:`~.network.log.MAX_ENTRIES` requests, counting what it let go.

:class:`~.tabs.records.RequestTracker` and :class:`~.tabs.records.Pulse` are what
:mod:`.input.settle` waits on, on the
Playwright thread: the tap updates them from the Trio thread, and the pulse crosses
threads only when somebody waits.
"""

from __future__ import annotations

import itertools
import secrets
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from ..network.log import NetworkLog
from .records import CONSOLE_MAX, ConsoleLog, Pulse, RequestTracker, TabConsole
from .tap import SAMPLE_BURST, SAMPLE_RATE, Sampler, TabTap

if TYPE_CHECKING:
    from ....cdp import TargetLink

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

class PageEvents:
    """A session's console and network records, per tab, and settle's counters.

    ``record`` (``BROWX_PAGE_RECORDING``) off keeps no console entries but errors and
    no network entries; the request counters and the pulse work either way.
    """

    def __init__(self, pulse: Pulse, *, record: bool = True, clock: Callable[[], float] = time.monotonic) -> None:
        self.record = record
        self.clock = clock
        #: Signs the held-back counts of the page's console sampler: a page cannot know it,
        #: so it cannot pass its own messages off as counts.
        self.sampling_nonce = secrets.token_hex(12)
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

    def tap(self, target: str, source: TargetLink, *, main_frame: str | None, worker: bool = False) -> TabTap:
        tap = TabTap(self, target, source, main_frame=main_frame, worker=worker)
        if main_frame == target:
            self._page_taps[target] = tap
        if not worker:  # a worker hosts no frame, and a page may start thousands
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
