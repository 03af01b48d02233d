"""Sending a gesture's steps at their times, and letting go when it is interrupted.

:func:`play` waits until each :class:`~.motion.Step` is due, measured from the
gesture's start on Trio's clock (``sleep_until``, so time spent sending one step is not
added to the next), and performs it. Under ``trio.testing.MockClock`` the same code
runs in no real time, which is how the pacing is tested.

A gesture cancelled half way (the call's deadline, the session closing) must not leave
a button held or fingers down on the page: :func:`letting_go` sends the release its
caller names, shielded and briefly, before the cancellation goes on.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager

import trio

from .motion import Step

__all__ = ["RELEASE_TIMEOUT_S", "letting_go", "play"]

#: How long the release of an interrupted gesture may take.
RELEASE_TIMEOUT_S = 2.0


async def play(steps: Sequence[Step], perform: Callable[[Step], Awaitable[None]]) -> float:
    """Perform each step when it is due; the milliseconds the whole gesture took."""
    start = trio.current_time()
    for step in steps:
        await trio.sleep_until(start + step.at_ms / 1000)
        await perform(step)
    return (trio.current_time() - start) * 1000


@asynccontextmanager
async def letting_go(release: Callable[[], Awaitable[None]]) -> AsyncIterator[None]:
    """On any failure inside (cancellation included), await ``release()`` before
    re-raising; a release that fails in turn is dropped, the first failure wins."""
    try:
        yield
    except BaseException:
        # A release that fails (the tab is gone) is dropped: the original failure explains more.
        with trio.CancelScope(shield=True), trio.move_on_after(RELEASE_TIMEOUT_S), \
                contextlib.suppress(Exception):
            await release()
        raise
