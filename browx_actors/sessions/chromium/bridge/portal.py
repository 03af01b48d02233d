"""The way back: code on the Playwright thread awaiting a Trio coroutine.

:class:`~browx_actors.sessions.chromium.bridge.aiobridge.AsyncioThread` lets Trio await
Playwright. Some work that runs on the Playwright thread as one hop (an action's
settle) needs the session's raw CDP session for part of it: a read that must travel
on the flat session whose events the session's counters are fed from, so that when it
answers, the counters have seen everything the page did before it. :class:`Portal`
runs that part as a task in the session's nursery and hands its outcome back to the
asyncio task awaiting it.

Cancellation crosses both ways: cancelling the asyncio task cancels the Trio task, and
a Trio task cancelled because the session is closing fails the asyncio side with
:class:`PortalClosed`, so nothing waits on a session that is gone.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import TypeVar

import outcome
import trio

__all__ = ["Portal", "PortalClosed"]

T = TypeVar("T")


class PortalClosed(Exception):
    """The Trio side went away (the session is closing) before the call finished."""


class Portal:
    def __init__(self, token: trio.lowlevel.TrioToken, nursery: trio.Nursery) -> None:
        self._token = token
        self._nursery = nursery

    async def run(self, fn: Callable[..., Awaitable[T]], *args: object) -> T:
        """On the asyncio loop: await ``fn(*args)`` run as a Trio task."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[outcome.Outcome[T]] = loop.create_future()
        scopes: list[trio.CancelScope] = []

        def deliver(result: outcome.Outcome[T]) -> None:
            if not future.done():
                future.set_result(result)

        async def task() -> None:
            result: outcome.Outcome[T] = outcome.Error(PortalClosed("the session closed during the call"))
            try:
                with trio.CancelScope() as scope:
                    scopes.append(scope)
                    captured = await outcome.acapture(fn, *args)
                    if isinstance(captured, outcome.Error) and isinstance(captured.error, trio.Cancelled):
                        raise captured.error  # the scope's own cancellation ends here; the nursery's goes on
                    result = captured
            finally:
                with contextlib.suppress(RuntimeError):  # the loop is gone: nobody waits
                    loop.call_soon_threadsafe(deliver, result)

        def start() -> None:
            try:
                self._nursery.start_soon(task)
            except RuntimeError:  # the nursery is closed: the session is gone
                loop.call_soon_threadsafe(deliver, outcome.Error(PortalClosed("the session has closed")))

        try:
            self._token.run_sync_soon(start)
        except trio.RunFinishedError as exc:
            raise PortalClosed("the runtime has stopped") from exc
        try:
            result = await future
        except asyncio.CancelledError:
            def cancel() -> None:
                for scope in scopes:
                    scope.cancel()
            with contextlib.suppress(trio.RunFinishedError):
                self._token.run_sync_soon(cancel)
            raise
        return result.unwrap()
