"""The tabs of one chromium session: its pages, and which one the tools act on.

A session's browser context can hold more than one page: a link with
``target=_blank``, ``window.open``, a popup. Each becomes a tab with an id that is never
reused in the session, so an agent can name it after others have closed. Tools act on
the current tab; ``select_tab`` moves it. When the current tab closes, the tab opened
just before it (or the oldest left) becomes current, as a browser would show.

The set is changed only on the Playwright thread (page and close events, and the tab
tools, which run there), so it needs no lock. Trio reads ``current`` as one attribute.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import attrs
from playwright.async_api import Page

from ....cdp import TargetLink, answers
from ....errors import ToolError
from ..input.state import InputState

__all__ = ["Tab", "TabSet"]


@attrs.define(eq=False)
class Tab:
    id: int
    page: Page
    #: The CDP target id and the raw flat sessions (see :mod:`.wiring`), attached as
    #: soon as the session adopts the page, so its console and requests are recorded
    #: from its start: ``cdp`` for commands, ``events`` for the domains with events.
    target_id: str | None = None
    cdp: TargetLink | None = None
    #: Its renderer crashed: the page answers nothing until it is replaced.
    crashed: bool = False
    #: Its main thread stopped answering during a call (see :mod:`.exits`); the next
    #: call asks it again before it waits on it.
    busy: bool = False
    #: Where the tab's mouse is, what it holds, which fingers are down.
    input: InputState = attrs.Factory(InputState)
    events: TargetLink | None = None

    async def renderer_answers(self, timeout: float) -> bool | None:
        """Whether the tab's renderer answers a command: True; False when its session
        says it is gone (closed, crashed); None when it is silent past ``timeout`` (busy)
        or cannot be asked (not wired yet: a crashed tab's replacement being made).

        What decides when an error's words say the tab closed or crashed: a page's own
        script can throw those words (``throw 'Target crashed'``), the browser cannot. So
        only True overrules them; None proves nothing, and the words stand.
        """
        if self.cdp is None:
            return None
        return await answers(self.cdp, "Runtime.evaluate", timeout, {"expression": "0", "returnByValue": True})


class TabSet:
    def __init__(self) -> None:
        self._tabs: list[Tab] = []
        self._ids = itertools.count(1)
        self.current: Tab | None = None
        #: The newest tab id handed out (0 before the first).
        self.last_id = 0

    def __len__(self) -> int:
        return len(self._tabs)

    def __iter__(self) -> Iterator[Tab]:
        return iter(list(self._tabs))

    def add(self, page: Page) -> Tab:
        """Note a new page (idempotent: a page already known keeps its tab)."""
        for tab in self._tabs:
            if tab.page is page:
                return tab
        tab = Tab(next(self._ids), page)
        self.last_id = tab.id
        self._tabs.append(tab)
        if self.current is None:
            self.current = tab
        return tab

    def replace(self, tab: Tab, page: Page) -> Tab:
        """Put a fresh ``page`` in ``tab``'s place (a crashed tab reloaded): same id,
        same position, nothing attached yet."""
        tab.page, tab.target_id, tab.cdp, tab.events, tab.crashed, tab.busy = page, None, None, None, False, False
        return tab

    def find(self, page: Page) -> Tab | None:
        return next((t for t in self._tabs if t.page is page), None)

    def close(self, page: Page) -> Tab | None:
        """Forget a closed page; if it was current, fall back to its left neighbour."""
        index = next((i for i, t in enumerate(self._tabs) if t.page is page), None)
        if index is None:
            return None
        tab = self._tabs.pop(index)
        if self.current is tab:
            self.current = self._tabs[max(0, index - 1)] if self._tabs else None
        return tab

    def get(self, tab_id: int) -> Tab:
        for tab in self._tabs:
            if tab.id == tab_id:
                return tab
        raise ToolError("target-not-found", f"no open tab {tab_id} (open: {self.ids() or 'none'})",
                        field="tab", tabs=self.ids())

    def select(self, tab_id: int) -> Tab:
        self.current = self.get(tab_id)
        return self.current

    def of_page(self, page: Page) -> Tab | None:
        return next((t for t in self._tabs if t.page is page), None)

    def of_target(self, target_id: str) -> Tab | None:
        return next((t for t in self._tabs if t.target_id == target_id), None)

    def ids(self) -> list[int]:
        return [t.id for t in self._tabs]

    def opened_since(self, last_id: int) -> list[Tab]:
        """Tabs opened after the one numbered ``last_id`` that are still open."""
        return [t for t in self._tabs if t.id > last_id]
