"""Run asyncio code (Playwright) from Trio, on one dedicated asyncio thread.

Playwright's Python API is asyncio-only, and the runtime is Trio. Rather than mixing
the two loops in one thread, the bridge keeps a plain asyncio loop on a daemon thread
and ships coroutines to it. Results come back through the Trio token, so a Trio task
waiting on Playwright sleeps like any other Trio task.

Cancellation is structural: when the waiting Trio task is cancelled (a deadline, a
closed session, runtime shutdown), the asyncio task running the Playwright call is
cancelled too, and the Trio side waits briefly for it to unwind so that the next call
on the same page does not race a half-finished one.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager, suppress
from typing import TypeVar

import outcome
import trio

T = TypeVar("T")

#: How long a cancelled call may take to unwind on the asyncio side.
CANCEL_UNWIND_SECONDS = 2.0


class AsyncioThread:
    """An asyncio loop on its own thread, driven from Trio with :meth:`run`."""

    def __init__(self, name: str = "browx-asyncio") -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._main, name=name, daemon=True)
        self._detached: set[asyncio.Task[object]] = set()  # spawned tasks, held until done

    def _main(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_forever()
        # Give tasks that are still pending a chance to finish their cancellation.
        pending = asyncio.all_tasks(self._loop)
        for task in pending:
            task.cancel()
        if pending:
            self._loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        self._loop.close()

    def start(self) -> None:
        self._thread.start()

    async def stop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        await trio.to_thread.run_sync(self._thread.join, abandon_on_cancel=True)

    def spawn(self, fn: Callable[..., Coroutine[object, object, object]], *args: object) -> None:
        """Start ``fn(*args)`` on the loop and return at once, for best-effort work.

        Nobody awaits it: its result is dropped and an exception it lets out is
        retrieved and dropped, so ``fn`` must deal with its own failures.
        """
        def start() -> None:
            task: asyncio.Task[object] = self._loop.create_task(fn(*args))
            self._detached.add(task)
            task.add_done_callback(self._forget)

        self._loop.call_soon_threadsafe(start)

    def _forget(self, task: asyncio.Task[object]) -> None:
        self._detached.discard(task)
        if not task.cancelled():
            task.exception()

    async def run(self, fn: Callable[..., Awaitable[T]], *args: object) -> T:
        """Await ``fn(*args)`` on the asyncio loop; Trio cancellation cancels it there."""
        token = trio.lowlevel.current_trio_token()
        done = trio.Event()
        result: list[outcome.Outcome[T]] = []
        tasks: list[asyncio.Task[None]] = []

        async def call() -> None:
            result.append(await outcome.acapture(fn, *args))
            with suppress(trio.RunFinishedError):
                token.run_sync_soon(done.set)

        # Both callbacks run on the loop thread in submission order, so the task
        # exists by the time a cancellation looks for it.
        self._loop.call_soon_threadsafe(lambda: tasks.append(self._loop.create_task(call())))
        try:
            await done.wait()
        except BaseException:
            self._loop.call_soon_threadsafe(lambda: [t.cancel() for t in tasks])
            with trio.move_on_after(CANCEL_UNWIND_SECONDS) as scope:
                scope.shield = True
                await done.wait()
            raise
        value: T = result[0].unwrap()
        return value


@asynccontextmanager
async def open_asyncio_thread(name: str = "browx-asyncio") -> AsyncIterator[AsyncioThread]:
    bridge = AsyncioThread(name)
    bridge.start()
    try:
        yield bridge
    finally:
        with trio.CancelScope(shield=True):
            await bridge.stop()
