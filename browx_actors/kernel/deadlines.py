"""Call deadlines kept by one task per actor instead of a cancel scope per call.

A caller blocked inside a cancel scope costs Trio more than the whole rest of an actor
hop: measured on a 2-core host, wrapping the same wait in a scope added about 17 µs to
a 15-25 µs round trip. So a call that finds room in the mailbox does not open one.
It books its deadline here and waits on its reply; the actor's keeper task sleeps
until the earliest deadline of a call still waiting and fails that call's reply with a
timeout when it passes. The keeper wakes about once per timeout period, not once per
call, because answered calls are dropped whenever they reach the front of the heap,
whatever their deadline; it is woken early only by a deadline sooner than the one it
sleeps for (the first call after an idle spell, or a shorter timeout than the rest).

Answered calls stay in the heap until they reach its front, so booking compacts it
when it holds many more entries than there are calls in flight: amortised constant
time, memory bounded by a small multiple of the calls in flight.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

import trio

__all__ = ["DeadlineBook", "Expiring"]

#: Compact when the heap holds more than this many entries per call in flight (+ slack).
_COMPACT_FACTOR = 4
_COMPACT_SLACK = 64


class Expiring(Protocol):
    """What the book keeps: something that can tell its deadline no longer matters
    (answered, and no handler left running for it)."""

    @property
    def done(self) -> bool: ...


T = TypeVar("T", bound=Expiring)


class DeadlineBook(Generic[T]):
    """The deadlines of one actor's calls in flight, and the task that keeps them."""

    __slots__ = ("_heap", "_next", "_on_expired", "_rearm", "_seq", "keeping")

    def __init__(self, on_expired: Callable[[T], None]) -> None:
        self._heap: list[tuple[float, int, T]] = []
        self._seq = itertools.count()
        #: When the keeper next looks (inf while it waits for a first deadline).
        self._next = math.inf
        self._rearm = trio.Event()
        self._on_expired = on_expired
        #: True while :meth:`keep` runs; callers must time themselves out otherwise.
        self.keeping = False

    def __len__(self) -> int:
        return len(self._heap)

    def book(self, deadline: float, item: T, in_flight: int) -> None:
        """Expire ``item`` at ``deadline`` unless it is done by then."""
        heapq.heappush(self._heap, (deadline, next(self._seq), item))
        if len(self._heap) > _COMPACT_FACTOR * in_flight + _COMPACT_SLACK:
            self._heap = [entry for entry in self._heap if not entry[2].done]
            heapq.heapify(self._heap)
        if deadline < self._next:
            self._next = deadline
            self._rearm.set()

    async def keep(self) -> None:
        """Expire what is due, forever; run it in the nursery of the actor it serves."""
        self.keeping = True
        try:
            while True:
                self._expire_due(trio.current_time())
                self._next = self._heap[0][0] if self._heap else math.inf
                self._rearm = trio.Event()
                with trio.move_on_at(self._next):
                    await self._rearm.wait()
        finally:
            self.keeping = False

    def _expire_due(self, now: float) -> None:
        heap = self._heap
        while heap:
            deadline, _, item = heap[0]
            if item.done:
                heapq.heappop(heap)
            elif deadline <= now:
                heapq.heappop(heap)
                self._on_expired(item)
            else:
                return
