"""Tab tools of the chromium engine: list_tabs, select_tab, new_tab, close_tab.

Every other tool acts on the session's current tab. A page that opens another (a
``target=_blank`` link, ``window.open``) adds a tab without moving the current one; the
action that did it lists the new tab under ``opened``, and ``select_tab`` moves there.
``new_tab`` opens one in the session's context (its cookies and storage) and moves
there. Every tab is wired the same way, whoever opened it: its console and requests
recorded, the human bridge's world in it, the session's emulation and routes applied.

Closing the last tab does what a browser window does when its last tab closes and a
new one is asked for: the session keeps its context, cookies and storage, and a blank
tab takes the closed one's place; the result says so (``replacedBy``).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, NotRequired, TypedDict

from ....tools import Reply
from ....tools.contract import SessionArgs
from ....tools.navigation import CloseTabArgs, NavigateArgs, NewTabArgs, SelectTabArgs
from ..page import handlers as page_tools
from .tabset import Tab

if TYPE_CHECKING:
    from ..dialogs.book import OpenDialog
    from ..session import ChromiumSession

__all__ = ["close_tab", "list_tabs", "new_tab", "select_tab"]

#: A tab's title is read with this bound: a page busy in a long script answers late.
TITLE_TIMEOUT_S = 2.0


class TabEntry(TypedDict):
    """One tab as the tab tools list it."""

    id: int
    url: str
    title: str | None
    current: bool
    crashed: bool
    #: The dialog that blocks the tab, when one does.
    dialog: NotRequired[dict[str, str]]


async def _title(tab: Tab) -> str | None:
    try:
        return await asyncio.wait_for(tab.page.title(), TITLE_TIMEOUT_S)
    except Exception:  # closed meanwhile, or too busy to answer: no title to show
        return None


async def _no_title() -> None:
    return None


async def _describe_all(session: ChromiumSession) -> list[TabEntry]:
    """On the Playwright thread: every open tab, titles read concurrently. A tab a
    dialog blocks says so (``dialog``), and its title is not asked for: the page cannot
    answer until the dialog is, and would hold the list for the title's whole bound."""
    tabs = list(session.tabs)
    dialogs = [session.dialogs.open_on(tab.page) for tab in tabs]
    titles = await asyncio.gather(*(_title(tab) if dialog is None else _no_title()
                                    for tab, dialog in zip(tabs, dialogs, strict=True)))
    current = session.tabs.current
    described = []
    for tab, title, dialog in zip(tabs, titles, dialogs, strict=True):
        entry: TabEntry = {"id": tab.id, "url": tab.page.url, "title": title, "current": tab is current,
                           "crashed": tab.crashed}
        if dialog is not None:
            entry["dialog"] = dialog.describe()
        described.append(entry)
    return described


def _current_id(tabs: list[TabEntry]) -> int | None:
    return next((t["id"] for t in tabs if t["current"]), None)


async def list_tabs(session: ChromiumSession, args: SessionArgs) -> Reply:
    await session.tab_lifecycle.settle_tabs()
    tabs = await session.pw(_describe_all, session)
    return Reply.of(tabs=tabs, current=_current_id(tabs))


async def select_tab(session: ChromiumSession, args: SelectTabArgs) -> Reply:
    await session.tab_lifecycle.settle_tabs()

    async def select() -> None:
        tab = session.tabs.select(args.tab)
        # Headless pages are all "visible", but the one in front gets focus events.
        await tab.page.bring_to_front()

    await session.pw(select)
    await session.tab_lifecycle.attach_current()
    tabs = await session.pw(_describe_all, session)
    # None only if the tab closed in the moment since it was selected.
    return Reply.of(tab=next((t for t in tabs if t["current"]), None), tabs=tabs)


async def close_tab(session: ChromiumSession, args: CloseTabArgs) -> Reply:
    await session.tab_lifecycle.settle_tabs()

    async def close() -> tuple[int, OpenDialog | None]:
        tab = session.tabs.current if args.tab is None else session.tabs.get(args.tab)
        assert tab is not None
        pending = session.dialogs.open_on(tab.page)
        await tab.page.close()  # a dialog open, a page that never yields: the browser closes it all the same
        session.tab_lifecycle.drop_tab(tab.page)  # the close event may come after close() returns
        return tab.id, pending

    closed, pending = await session.pw(close)
    last = len(session.tabs) == 0
    await session.tab_lifecycle.attach_current()  # a fresh blank tab if that was the last one
    tabs = await session.pw(_describe_all, session)
    reply = Reply.of(closed=closed, current=_current_id(tabs), tabs=tabs)
    if pending is not None:
        reply.warn(f"tab {closed} closed with its {pending.type} dialog open ({pending.message!r}); the dialog went "
                   "with it")
    if last:
        reply["replacedBy"] = reply["current"]
        reply.warn(f"tab {closed} was the session's last: blank tab {reply['current']} took its place; the session "
                   "keeps its cookies and storage (close_session ends it)")
    return reply


async def new_tab(session: ChromiumSession, args: NewTabArgs) -> Reply:
    page = await session.tab_lifecycle.open_page()

    async def adopt_and_select() -> Tab:
        # The context's page event adopts it too; adopting is idempotent.
        tab = session.tab_lifecycle.adopt(page)
        session.tabs.select(tab.id)
        await page.bring_to_front()
        return tab

    tab = await session.pw(adopt_and_select)
    await session.tab_lifecycle.attach_current()
    reply = Reply(warnings=[])
    if args.url is not None:
        # The call's own dialog scope watches the tab it began on; a dialog the new page
        # opens before its load blocks that load, and would leave the navigation waiting
        # out its whole timeout in silence. Its own scope answers at once, as navigate does.
        with session.dialogs.interruptible(page) as scope:
            navigated = await page_tools.navigate(session, NavigateArgs(session=args.session, url=args.url,
                                                                        wait_until=args.wait_until,
                                                                        timeout_ms=args.timeout_ms))
        if scope.cancelled_caught:
            navigated = session.interrupted_by_dialog("new_tab")
        reply.fields.update(navigated.fields)
        reply.warnings = list(navigated.warnings or [])
    tabs = await session.pw(_describe_all, session)
    reply["tab"] = next((t for t in tabs if t["id"] == tab.id), None)
    reply["tabs"] = tabs
    return reply


