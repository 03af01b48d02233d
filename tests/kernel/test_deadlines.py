"""The deadline keeper behind ActorRef.call: expiry order, early wake-ups, few wakes.

Time is ``MockClock(autojump_threshold=0)``; nothing sleeps for real.
"""

from __future__ import annotations

import trio
import trio.testing

from browx_actors.kernel.deadlines import DeadlineBook


class Call:
    def __init__(self, name: str) -> None:
        self.name = name
        self.settled = False

    @property
    def done(self) -> bool:  # answered, with no handler left running for it
        return self.settled


class CountingBook(DeadlineBook[Call]):
    """Counts the keeper's passes (each pass follows a wake-up)."""

    def __init__(self, on_expired) -> None:  # type: ignore[no-untyped-def]
        super().__init__(on_expired)
        self.passes = 0

    def _expire_due(self, now: float) -> None:
        self.passes += 1
        super()._expire_due(now)


async def test_expires_due_calls_in_deadline_order_and_never_settled_ones(autojump_clock):
    expired: list[tuple[str, float]] = []
    book = DeadlineBook[Call](lambda call: expired.append((call.name, trio.current_time())))
    async with trio.open_nursery() as nursery:
        nursery.start_soon(book.keep)
        await trio.testing.wait_all_tasks_blocked()
        assert book.keeping
        t0 = trio.current_time()
        calls = {name: Call(name) for name in ("five", "one", "three")}
        book.book(t0 + 5, calls["five"], 3)
        book.book(t0 + 1, calls["one"], 3)
        book.book(t0 + 3, calls["three"], 3)
        await trio.sleep(2)
        calls["three"].settled = True  # answered before its deadline
        await trio.sleep(10)
        assert expired == [("one", t0 + 1), ("five", t0 + 5)]
        assert len(book) == 0
        nursery.cancel_scope.cancel()
    assert not book.keeping


async def test_keeper_sleeps_through_answered_calls(autojump_clock):
    book = CountingBook(lambda call: None)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(book.keep)
        await trio.testing.wait_all_tasks_blocked()
        start_passes = book.passes
        # 1,000 calls over 10 s, each answered 10 ms after it was booked.
        for n in range(1_000):
            call = Call(str(n))
            book.book(trio.current_time() + 30, call, 1)
            await trio.sleep(0.01)
            call.settled = True
        await trio.sleep(120)
        # Woken by the first booking after the idle start, then at most once per
        # 30 s period while answered calls drain: not once per call.
        assert book.passes - start_passes <= 6
        assert len(book) == 0
        nursery.cancel_scope.cancel()


async def test_a_sooner_deadline_wakes_a_keeper_that_sleeps_for_a_later_one(autojump_clock):
    expired: list[float] = []
    book = DeadlineBook[Call](lambda call: expired.append(trio.current_time()))
    async with trio.open_nursery() as nursery:
        nursery.start_soon(book.keep)
        await trio.testing.wait_all_tasks_blocked()
        t0 = trio.current_time()
        book.book(t0 + 60, Call("late"), 2)
        await trio.testing.wait_all_tasks_blocked()
        book.book(t0 + 0.5, Call("soon"), 2)
        await trio.sleep(61)
        assert expired == [t0 + 0.5, t0 + 60]
        nursery.cancel_scope.cancel()


def test_booking_compacts_answered_entries_to_a_bound():
    book = DeadlineBook[Call](lambda call: None)
    live = [Call("live") for _ in range(10)]
    for n, call in enumerate(live):
        book.book(1000.0 + n, call, len(live))
    for n in range(5_000):
        answered = Call(str(n))
        answered.settled = True
        book.book(2000.0 + n, answered, len(live))
        assert len(book) <= 4 * len(live) + 64 + 1
    remaining = sorted(entry[2].name for entry in book._heap if not entry[2].settled)
    assert remaining == ["live"] * 10
