"""What a session records from its pages' events: console lines, requests in flight,
and a pulse for whoever waits for page state to move on.

All are fed by Playwright event handlers on the Playwright thread and read by tools,
so each is built to need no lock.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import deque
from collections.abc import Callable
from typing import Any

from playwright.async_api import Error as PlaywrightError

__all__ = ["ConsoleLog", "Pulse", "RequestTracker"]


class ConsoleLog:
    """Console messages and page errors, appended from the Playwright thread.

    ``deque.append`` is atomic under the GIL, and readers only take snapshots by
    sequence number, so the two threads never need a lock.
    """

    def __init__(self, maxlen: int = 500) -> None:
        self._entries: deque[tuple[int, dict[str, Any]]] = deque(maxlen=maxlen)
        self._seq = itertools.count(1)
        self.last_seq = 0

    def append(self, entry: dict[str, Any]) -> None:
        seq = next(self._seq)
        self._entries.append((seq, entry))
        self.last_seq = seq

    def since(self, seq: int, *, errors_only: bool = False) -> list[dict[str, Any]]:
        return [
            e for s, e in list(self._entries)
            if s > seq and (not errors_only or e["type"] in ("error", "pageerror"))
        ]


class Pulse:
    """Wakes a waiter on the Playwright thread whenever the state it watches may have
    changed; the waiter re-checks its own condition, so a pulse carries no data and a
    missed one cannot be lost (the condition is checked before every wait)."""

    def __init__(self) -> None:
        self._events: list[asyncio.Event] = []

    def fire(self) -> None:
        for event in self._events:
            event.set()

    async def wait_until(self, condition: Callable[[], bool], timeout: float) -> bool:
        """Wait until ``condition()`` holds; False if ``timeout`` seconds pass first."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not condition():
            remaining = deadline - loop.time()
            if remaining <= 0:
                return False
            event = asyncio.Event()
            self._events.append(event)
            try:
                await asyncio.wait_for(event.wait(), remaining)
            except TimeoutError:
                pass
            finally:
                self._events.remove(event)
        return True


class RequestTracker:
    """Requests in flight on the session's pages, counted on the Playwright thread.

    An action that starts requests (a fetch behind "Load more", a form post) has not
    settled until they finish; :meth:`wait_idle` lets the action wait for exactly
    those, never for a fixed time. ``navigations_ended`` counts main-frame navigation
    requests that have finished or failed, so a wait for a navigation to commit can
    also end when its request ended without one (a 204, a download).
    """

    def __init__(self, pulse: Pulse | None = None) -> None:
        self.started = 0
        self.navigations_ended = 0
        self._inflight: set[Any] = set()
        self._pulse = pulse or Pulse()

    def on_request(self, request: Any) -> None:
        self.started += 1
        self._inflight.add(request)

    def on_done(self, request: Any) -> None:
        self._inflight.discard(request)
        if _is_main_navigation(request):
            self.navigations_ended += 1
        self._pulse.fire()

    async def wait_idle(self, timeout: float) -> bool:
        """On the Playwright thread: wait until nothing is in flight; False on timeout."""
        return await self._pulse.wait_until(lambda: not self._inflight, timeout)


def _is_main_navigation(request: Any) -> bool:
    try:
        return bool(request.is_navigation_request()) and request.frame.parent_frame is None
    except PlaywrightError:  # a request without a frame (a service worker's) is no navigation
        return False
