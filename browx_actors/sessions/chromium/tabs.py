"""Tab tools of the chromium engine: list_tabs, select_tab, close_tab.

Every other tool acts on the session's current tab. A page that opens another (a
``target=_blank`` link, ``window.open``) adds a tab without moving the current one; the
action that did it lists the new tab under ``opened``, and ``select_tab`` moves there.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ...tooling import Args, Param, Reply, session_tool
from .session import ChromiumSession
from .tabset import Tab

__all__ = ["TOOLS", "close_tab", "list_tabs", "select_tab"]

#: A tab's title is read with this bound: a page busy in a long script answers late.
TITLE_TIMEOUT_S = 2.0


async def _title(tab: Tab) -> str | None:
    try:
        return await asyncio.wait_for(tab.page.title(), TITLE_TIMEOUT_S)
    except Exception:  # closed meanwhile, or too busy to answer: no title to show
        return None


async def _describe_all(session: ChromiumSession) -> list[dict[str, Any]]:
    """On the Playwright thread: every open tab, titles read concurrently."""
    tabs = list(session.tabs)
    titles = await asyncio.gather(*(_title(tab) for tab in tabs))
    current = session.tabs.current
    return [{"id": tab.id, "url": tab.page.url, "title": title, "current": tab is current}
            for tab, title in zip(tabs, titles, strict=True)]


def _current_id(tabs: list[dict[str, Any]]) -> int | None:
    return next((t["id"] for t in tabs if t["current"]), None)


@session_tool(
    "list_tabs", "read",
    "The session's tabs (pages a link or script opened included): id, url, title, which one is current. Tools act "
    "on the current tab.",
)
async def list_tabs(session: ChromiumSession, args: Args) -> Reply:
    await session.settle_tabs()
    tabs = await session.pw(_describe_all, session)
    return Reply.of(tabs=tabs, current=_current_id(tabs))


@session_tool(
    "select_tab", "navigation", "Make tab `tab` current: later tools act on it.",
    params=(Param("tab", "integer", "Tab id, from list_tabs or an action's `opened`.", required=True, minimum=1),),
)
async def select_tab(session: ChromiumSession, args: Args) -> Reply:
    await session.settle_tabs()

    async def select() -> None:
        tab = session.tabs.select(args["tab"])
        # Headless pages are all "visible", but the one in front gets focus events.
        await tab.page.bring_to_front()

    await session.pw(select)
    await session.attach_current()
    tabs = await session.pw(_describe_all, session)
    # None only if the tab closed in the moment since it was selected.
    return Reply.of(tab=next((t for t in tabs if t["current"]), None), tabs=tabs)


@session_tool(
    "close_tab", "navigation",
    "Close a tab (default: the current one). The tab opened before it becomes current; closing the last one "
    "leaves a fresh blank tab.",
    params=(Param("tab", "integer", "Tab id; default the current tab.", minimum=1),),
)
async def close_tab(session: ChromiumSession, args: Args) -> Reply:
    await session.settle_tabs()

    async def close() -> int:
        tab = session.tabs.current if args.get("tab") is None else session.tabs.get(args["tab"])
        assert tab is not None
        await tab.page.close()
        session.drop_tab(tab.page)  # the close event may come after close() returns
        return tab.id

    closed = await session.pw(close)
    await session.attach_current()  # a fresh blank tab if that was the last one
    tabs = await session.pw(_describe_all, session)
    return Reply.of(closed=closed, current=_current_id(tabs), tabs=tabs)


TOOLS = [list_tabs, select_tab, close_tab]
