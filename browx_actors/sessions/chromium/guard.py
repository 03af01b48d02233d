"""How a call that lost its page, its tab or its browser becomes the session's answer.

:mod:`.losses` says what an exception *says* went away; this is what the session does
about it, asking the browser and the tab before it believes the words:

- :func:`guard` is the session's hook around each call's work (``sessions/session.py``):
  a failure its tab explains (closed, crashed, busy, or a page replaced and worth one
  more try, :func:`~.tabs.exits.cause_of`) is raised as that, anything else as it came;
- :func:`unless_browser_lost` tells a tab that closed during the call (``tab-closed``)
  from a browser that died, whose :class:`~.losses.BrowserLost` is then the answer;
- :func:`watch_browser` is the session's task that watches its browser. When Chromium
  dies, it fails every waiting caller at once with :class:`~.losses.BrowserLost` as the
  cause and ends the session; the runtime turns that into the ``browser-crashed`` code
  for the agent.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Protocol, TypeVar

import trio

from ...errors import ToolError
from .host import SessionHost
from .losses import BrowserLost, first_line, went_away
from .tabs.exits import AGAIN, PROBE_S, cause_of

if TYPE_CHECKING:
    from .pool import Browser
    from .tabs.tabset import Tab

__all__ = ["guard", "unless_browser_lost", "watch_browser"]

#: How long the browser watcher gets to see a dead browser that Playwright saw first.
_LOSS_GRACE = 2.0
#: How long a live browser may take to answer the probe that tells a closed tab from it.
_PROBE_TIMEOUT = PROBE_S

T = TypeVar("T")


class Guarded(SessionHost, Protocol):
    """What the loss handling needs of the session, beyond any helper's: the actor's own
    way to fail its waiting callers (``kernel/actor.py``)."""

    def _mark_crashed(self, exc: BaseException) -> None: ...


async def guard(session: Guarded, tool: str, work: Callable[[], Awaitable[object]]) -> object:
    """Run the call's work; a call that failed because its page or browser went away,
    or its renderer crashed under it, says which (the session's module notes)."""
    tab = session.tabs.current
    try:
        return await unless_browser_lost(session, work, tab=tab)
    except (BrowserLost, MemoryError):
        raise
    except Exception as exc:
        cause = None if tab is None else await cause_of(session, tool, tab, exc)
        if cause == AGAIN:
            return await unless_browser_lost(session, work, tab=tab)
        if isinstance(cause, ToolError):
            raise cause from exc
        raise


async def unless_browser_lost(session: Guarded, fn: Callable[..., Awaitable[T]], *args: object,
                              tab: Tab | None = None) -> T:
    """Run ``fn``; if it failed because its page or the browser went away, say which.

    A tab that closed during the call (a page may close itself) is ``tab-closed``.
    A dead browser ends this actor with BrowserLost, which is the answer the caller
    should get instead of a confusing action or wait error; Playwright often
    notices before the process watcher does, so the watcher gets a moment. Words
    alone decide neither: a tab whose renderer still answers did not close (its
    page threw them), and the call fails as it would have.
    """
    try:
        return await fn(*args)
    except Exception as exc:
        if session.browser is None or not went_away(exc):
            raise
        if await session.browser.answers(_PROBE_TIMEOUT):
            if tab is not None and await tab.renderer_answers(_PROBE_TIMEOUT):
                raise
            raise ToolError("tab-closed", "the tab closed during the call; list_tabs shows the "
                            f"open tabs ({first_line(exc)})") from exc
        with trio.move_on_after(_LOSS_GRACE):
            await session.browser.lost.wait()
            await trio.sleep_forever()
        raise


async def watch_browser(session: Guarded, browser: Browser) -> None:
    """Wait for ``browser`` to die; then fail the waiting callers and end the session."""
    await browser.lost.wait()
    lost = BrowserLost(session.session_id, browser.lost_reason)
    # Fail waiting callers now, before the nursery unwinds the running call.
    session._mark_crashed(lost)
    raise lost
