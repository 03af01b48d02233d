"""A call's way into its tab, and the way out of a page that cannot answer.

An agent leaves a page with ``navigate`` (or ``close_tab``, which needs nothing from
the page). Neither may depend on the page's cooperation, and three things take it away:

* a dialog left open (the ``ask`` policy), or opened again as soon as it is answered
  (an interval, a ``for(;;)`` of alerts): navigate answers it, and each one the page
  opens while it is being left (:meth:`~..dialogs.book.DialogBook.leaving`), and the
  result lists them (``dialogs``);
* a main thread that never yields (a script spinning, alerts in a synchronous loop):
  the renderer cannot commit a navigation. When it stays silent for
  :data:`BUSY_AFTER` seconds, or the page is opening dialogs in a loop, a fresh page
  takes the tab's place (:meth:`~.lifecycle.TabLifecycle.replace`) and the old one is
  closed;
* a renderer that crashed: the same replacement (the session's notes).

What the session set up lives on its browser context (routes, the dialog policy, init
scripts, emulation), so it applies to the page that takes the place. The tab keeps its
id; its history does not survive, and the warning says so.

Other tools on a page that stays silent answer ``timeout`` naming the busy page
(:func:`busy`), not the command that found it out; a tab found busy is asked again
before the next call waits on it. :func:`way_in` is what every call meets before it
runs on its tab, :func:`cause_of` what its failure is made of afterwards.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Final

from ....errors import ToolError
from ..losses import is_crash, tab_crashed, timed_out
from .tabset import Tab

if TYPE_CHECKING:
    from ..host import SessionHost

__all__ = ["AGAIN", "BUSY_AFTER", "CRASH_SAFE", "PROBE_S", "busy", "cause_of", "clear_the_way", "way_in"]

#: How long a live renderer may take to answer the probe that tells what a failure was.
PROBE_S = 1.0
#: Tools that still work on a crashed tab (navigate by replacing its page).
CRASH_SAFE = frozenset({"navigate", "list_tabs", "select_tab", "close_tab"})
#: :func:`cause_of`'s answer for a navigate that met a crash it had not heard of: go again.
AGAIN: Final = "again"

#: How long a page's main thread may stay silent before navigate stops waiting for it.
#: A healthy renderer answers the probe in about a millisecond; a heavy script that
#: yields within this is waited for, and the navigation keeps the tab's history.
BUSY_AFTER = 1.5


def busy(tab: Tab, tool: str) -> ToolError:
    """``timeout`` for a call that met a page whose main thread does not answer."""
    return ToolError(
        "timeout", f"tab {tab.id}'s page is busy: its main thread does not answer (a script that never yields, "
        f"or dialogs in a loop), so {tool} cannot run; navigate or close_tab leaves it", tab=tab.id)


async def clear_the_way(session: SessionHost, tab: Tab) -> str | None:
    """Make ``tab``'s page one navigate can leave (see the module notes); the warning
    that says what it took, or None when the page was fine as it was."""
    dialogs = session.dialogs
    page = tab.page
    trapped = dialogs.open_on(page) is not None
    if trapped:
        await session.pw(dialogs.answer_open, page)
    silent = tab.cdp is not None and await tab.renderer_answers(BUSY_AFTER) is None
    # Asked after the probe: answered on the way out, a loop shows itself meanwhile. A
    # page in a loop of dialogs is left for a fresh one even when the probe got through
    # (a renderer can answer inside a dialog's nested loop, and still never commit).
    looping = dialogs.looping(page)
    if not silent and not looping:
        return None
    await session.tab_lifecycle.replace(tab, "did not answer")
    why = f"opened dialogs in a loop ({looping} in a row)" if looping else \
        f"kept its main thread busy (no answer for {BUSY_AFTER:g} s)"
    return (f"tab {tab.id}'s page {why}: a fresh page took its place for this navigation (the old one is closed; "
            "its history is gone)")


@contextlib.asynccontextmanager
async def way_in(session: SessionHost, tool: str, *, page_free: bool) -> AsyncIterator[list[str]]:
    """What a call meets on its tab before it runs (module notes): a crashed tab is
    replaced for navigate and refused to the rest; a tab found busy is asked again
    (unless the tool needs nothing of the page, ``page_free``); a page navigate leaves
    has its dialogs answered and, stuck, its place taken. Yields the warnings that say
    what was done, for the call's result."""
    tab = session.tabs.current
    notes: list[str] = []
    if tab is not None and tab.crashed:
        if tool == "navigate":
            await session.tab_lifecycle.replace(tab)
            notes.append(f"tab {tab.id}'s renderer had crashed: a fresh page took its place for this navigation")
        elif tool not in CRASH_SAFE:
            raise tab_crashed(tab)
    elif tab is not None and tool == "navigate":
        dialogs = session.dialogs
        trapped = dialogs.open_on(tab.page) is not None or dialogs.looping(tab.page)
        with dialogs.leaving(tab.page) if trapped else contextlib.nullcontext():
            note = await clear_the_way(session, tab)
            yield [note] if note is not None else notes
        return
    elif tab is not None and tab.busy and not page_free:
        if await tab.renderer_answers(PROBE_S) is None:
            raise busy(tab, tool)
        tab.busy = False
    yield notes


async def cause_of(session: SessionHost, tool: str, tab: Tab, exc: Exception) -> ToolError | str | None:
    """What a call's failure on ``tab`` was made of, when the browser says more than
    the exception: the renderer crashed under it (``tab-crashed``, or :data:`AGAIN` for
    a navigate, which goes once more and finds the tab crashed: Playwright reports a
    goto on a crashed page as a detached frame); the page stopped answering (``timeout``
    naming it); the tab closed under it. None: the exception stands."""
    if tab.crashed or await _crashed_under(tool, tab, exc):
        tab.crashed = True
        return AGAIN if tool == "navigate" and session.tabs.current is tab else tab_crashed(tab)
    if timed_out(exc) and tab.cdp is not None and (tab.busy or await tab.renderer_answers(PROBE_S) is None):
        # Found busy already (by a wait beside this call, or by this call's own check):
        # no second probe.
        tab.busy = True
        return busy(tab, tool)
    if tool != "close_tab" and not isinstance(exc, ToolError) and session.tabs.find(tab.page) is None:
        # The tab went during the call (a ui.wait that outlived close_tab, polling while
        # the next tab was being wired): whatever broke next, that is why. (close_tab
        # closes its own tab: what breaks after that is its bug.)
        return ToolError("tab-closed", f"tab {tab.id} closed during the call; list_tabs shows the open tabs")
    return None


async def _crashed_under(tool: str, tab: Tab, exc: Exception) -> bool:
    """Only the browser's words for a crash and a renderer that does not answer say so;
    a navigate that failed asks the renderer whatever the words."""
    if is_crash(exc):
        return await tab.renderer_answers(PROBE_S) is not True
    if tool == "navigate" and not (isinstance(exc, ToolError) and exc.code == "tab-closed"):
        return await tab.renderer_answers(PROBE_S) is False
    return False
