"""Waiting by looking again: for the states a test has nothing to await on.

A test that waits on state its own Trio code keeps awaits it (an Event, a memory
channel, ``trio.testing.wait_all_tasks_blocked``). Some of what the tests wait for has
no such handle:

- a real process: a pid leaving, the last process of a browser profile exiting;
- a real browser and what reaches us from it over a socket: frames it paints, a tab
  that crashed or closed, a page's title, a binding call from the page, the operator
  daemon's links and view messages;
- production objects that offer no event for the change a test waits for (an
  ``ActorRef`` becoming gone, a stream supervisor's status): the tests do not add
  events to ``browx_actors`` only to wait on them.

There the only wait is to check again after a short interval. :func:`poll_until` is
that loop, in one place (so ruff's ASYNC110 is waived once, here, for that reason). It
waits exactly as the loops it replaced: check, sleep ``interval``, check again; the
caller keeps its bound, as ``timeout`` or an enclosing ``fail_after`` /
``move_on_after``. (Not ``browx_actors.sessions.chromium.reading.poll.poll_until``: its fixed
schedule and its result instead of an error would change when these waits give up.)
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from contextlib import nullcontext
from typing import TypeVar

import trio

T = TypeVar("T")


async def poll_until(
    predicate: Callable[[], T | Awaitable[T]], *, interval: float, timeout: float | None = None
) -> T:
    """Call ``predicate`` (plain or async) until it returns something true, sleeping
    ``interval`` seconds between calls; return that value. With ``timeout``, raise
    :class:`trio.TooSlowError` once that many seconds have gone by (without, the
    caller's cancel scopes bound the wait)."""
    with trio.fail_after(timeout) if timeout is not None else nullcontext():
        while not (value := await _value_of(predicate)):  # noqa: ASYNC110 - nothing to await, see above
            await trio.sleep(interval)
        return value


async def _value_of(predicate: Callable[[], T | Awaitable[T]]) -> T:
    value = predicate()
    if inspect.isawaitable(value):
        return await value
    return value
