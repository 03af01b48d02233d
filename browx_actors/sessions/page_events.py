"""What a session records from its pages' events: console lines and requests in flight.

Both are fed by Playwright event handlers on the Playwright thread and read by tools,
so each is built to need no lock.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import deque
from typing import Any

__all__ = ["ConsoleLog", "RequestTracker"]


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


class RequestTracker:
    """Requests in flight on the page, counted on the Playwright thread.

    An action that starts requests (a fetch behind "Load more", a form post) has not
    settled until they finish; :meth:`wait_idle` lets the action wait for exactly
    those, never for a fixed time.
    """

    def __init__(self) -> None:
        self.started = 0
        self._inflight: set[Any] = set()
        self._idle: Any = None

    def on_request(self, request: Any) -> None:
        self.started += 1
        self._inflight.add(request)

    def on_done(self, request: Any) -> None:
        self._inflight.discard(request)
        if not self._inflight and self._idle is not None:
            self._idle.set()

    async def wait_idle(self, timeout: float) -> bool:
        """On the Playwright thread: wait until nothing is in flight; False on timeout."""
        if not self._inflight:
            return True
        self._idle = asyncio.Event()
        try:
            await asyncio.wait_for(self._idle.wait(), timeout)
            return True
        except TimeoutError:
            return False
        finally:
            self._idle = None
