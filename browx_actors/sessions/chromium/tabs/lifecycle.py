"""A chromium session's tabs as they come and go: opened, adopted, wired, replaced, forgotten.

A page becomes a tab in two ways. The session opens one (:meth:`TabLifecycle.open_page`:
the first tab, ``new_tab``'s, the blank one after the last closed, a crashed tab's
replacement), or the context reports one (Playwright's ``page`` event: a popup, a
``target=_blank`` link, ``window.open``). Either way :meth:`~TabLifecycle.adopt` makes
it a tab, listens to its events and starts wiring it: its raw CDP sessions
(:mod:`.tabs.wiring`) and the human bridge's world, so its console and requests are recorded
from its start, whoever opened it. A closed tab's records go with it.

Two threads meet here. The page events (``adopt`` and the ``_on_*`` handlers) run on
the Playwright thread, where the tab set changes (:mod:`.tabs.tabset`) and the waiters on
``page_moved`` wait; what must run in Trio (wiring, forgetting) they hand to the
session's nursery. The rest runs in Trio and reaches Playwright through ``session.pw``.

The session's call boundary relies on how this code changes what it keeps (see
``session.py``): each change is one step, made after the thing it records has happened.
A tab's CDP session is stored only once attached; the tab set changes on the Playwright
thread in one event handler.

A crashed renderer marks its tab ``crashed``, and :meth:`~TabLifecycle.replace`
puts a fresh page in its place for ``navigate`` (the session's notes say which calls
do what on a crashed tab); so it does for a page that no longer answers at all
(:mod:`.exits`). Right after a renderer is killed, the browser may hand the fresh page
a renderer process it has not yet found dead (its spare one, killed too): Playwright's
``new_page`` then fails (``Target crashed``) or never returns. So each attempt is
bounded (:data:`OPEN_S`), a page stuck opening is closed, and a second attempt, once
the browser knows, gets a live process. Attached to a shared browser (:mod:`.attached`), the context
is the user's: only the pages our tabs opened become tabs.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

import attrs
import trio
from playwright.async_api import BrowserContext, Frame, Page

from ....cdp import CdpFailure
from ....errors import ToolError
from ....jsonsafe import JsonObject
from ..attached import adopt_if_ours, expected_tabs, page_of_target, prepare_leased
from ..losses import first_line, went_away
from ..page.saves import on_download
from .tabset import Tab

if TYPE_CHECKING:
    from ..host import SessionHost

__all__ = ["OPEN_S", "TabLifecycle"]

T = TypeVar("T")

#: How long one attempt at a crashed tab's fresh page may take. A page opens in well
#: under a second on a loaded 2-core host; one given a dead renderer never does, and
#: Playwright waits for it without a bound (see the module notes).
OPEN_S = 5.0
#: Attempts at that fresh page: the second comes after the browser has had the first's
#: bound to find its dead processes, so it gets a live one.
OPEN_ATTEMPTS = 2


class TabLifecycle:
    """Opens, adopts, wires, replaces and forgets one session's tabs (see the module notes)."""

    def __init__(self, session: SessionHost) -> None:
        self._session = session
        #: The CDP id of the browser context, learnt when the first tab is wired.
        self.context_id: str | None = None
        #: Tabs being wired, so a tab is wired once however many ask.
        self._wiring: dict[int, trio.Event] = {}
        #: Helper pages being opened (they are not tabs: see open_helper_page).
        self._helpers_opening = 0
        #: The crashed tab whose fresh page is being adopted into its place.
        self._replacing: Tab | None = None
        #: Fresh pages being opened for a tab's place: the context's event does not
        #: adopt them (a page that fails to open is reported too, and closed at once).
        self._fresh_opening = 0
        self._trio_token: trio.lowlevel.TrioToken | None = None

    def bind(self) -> None:
        """Learn the Trio run's token (from the Trio thread, before any tab is adopted):
        until then, the page events have no nursery to hand work to."""
        self._trio_token = trio.lowlevel.current_trio_token()

    # -- in Trio ----------------------------------------------------------------------

    async def open_first(self) -> Tab:
        """The session's first tab, made current and wired, and from then on every page
        the context opens (a popup) adopted as it opens."""
        session = self._session
        page = await self.open_page()
        # On the Playwright thread: page.on() may send a subscription message, which
        # needs that thread's running asyncio loop.
        tab: Tab = await session.pw(_on_loop, self.adopt, page)
        await session.pw(_on_new_pages, self._context(), self._on_context_page)
        await self.attach_current()
        return tab

    async def open_page(self) -> Page:
        """A new page of the session's context, for a tab: the first, ``new_tab``'s, the
        blank one after the last closed, a crashed tab's replacement. Attached to a
        shared browser, the context is the user's and has no agent init script: each of
        our pages gets its own, and the session's viewport (:func:`~.attached.prepare_leased`)."""
        session = self._session
        if not session.attached:
            page: Page = await session.pw(self._context().new_page)
            return page
        # Its own window: a browser we did not launch throttles a tab that is not in
        # front of its window (no frames, so a screenshot waits seconds, timers slowed),
        # and every session's tabs would share the user's window otherwise. A window of
        # its own is always in front.
        assert session.browser is not None
        created = await session.browser.cdp.send("Target.createTarget", {"url": "about:blank", "newWindow": True})
        page = await session.pw(page_of_target, self._context(), created["targetId"])
        await session.pw(prepare_leased, page, session.options.viewport)
        return page

    async def attach_current(self) -> None:
        """Make the current tab usable from Trio: its raw CDP session, and a fresh
        blank tab when the pages closed every tab, as a browser window would open."""
        session = self._session
        if session.tabs.current is None:
            page = await self.open_page()
            await session.pw(_on_loop, self.adopt, page)
        tab = session.tabs.current
        assert tab is not None
        if tab.cdp is not None:
            return
        await self.wire(tab)
        # A tab new to the tools gets Playwright's selector warm-up too.
        session.warmup.new_tab()

    async def wire(self, tab: Tab) -> None:
        """Give ``tab`` its raw CDP session (once, however many ask), and the human
        bridge's world, whoever opened the tab."""
        session = self._session
        while tab.cdp is None:
            pending = self._wiring.get(tab.id)
            if pending is None:
                break
            await pending.wait()
        if tab.cdp is not None:
            return
        done = self._wiring[tab.id] = trio.Event()
        try:
            info = await session.pw(_target_info_of, session.context, tab.page)
            tab.target_id, self.context_id = info["targetId"], info.get("browserContextId")
            assert session.wiring is not None and tab.target_id is not None
            tab.events = await session.wiring.attach(tab.target_id)
            tab.cdp = await session.wiring.command_session(tab.target_id)
        except Exception as exc:
            raise ToolError("tab-closed", f"tab {tab.id} closed before it could be used; "
                            "list_tabs shows the open tabs", tab=tab.id) from exc
        finally:
            del self._wiring[tab.id]
            done.set()
        if session.human is not None:
            session.human.wire(tab.target_id)

    async def settle_tabs(self, timeout: float = 2.0) -> None:
        """Wait until every page the browser holds in this session's context has been
        reported as a tab: Playwright announces a popup a little after the browser
        has created it, and the browser's count is the one to trust."""
        session = self._session
        if session.browser is None or self.context_id is None:
            return
        try:
            targets = await session.browser.cdp.send("Target.getTargets")
        except CdpFailure:
            return  # the browser is going; what Playwright knows will do
        ours = {t.target_id for t in session.tabs if t.target_id is not None}
        expected = expected_tabs(targets["targetInfos"], self.context_id, ours, attached=session.attached)
        await session.pw(session.page_moved.wait_until, lambda: len(session.tabs) >= expected, timeout)

    async def open_helper_page(self) -> Page:
        """A page in the session's context that is no tab: not listed, not wired, no tool
        acts on it (``storage_state_load`` loads an origin's storage through one). The
        caller closes it. A page the site opens at that very moment is not adopted either."""
        self._helpers_opening += 1
        try:
            return await self._session.pw(self._context().new_page)
        finally:
            self._helpers_opening -= 1

    async def replace(self, tab: Tab, why: str = "crashed") -> None:
        """A fresh page in ``tab``'s place, then the old page closed: a crashed one
        (Playwright refuses every call on it, ``goto`` included) or one whose main thread
        never yields (its renderer cannot commit a navigation). ``why`` is for the error."""
        session = self._session
        old = tab.page
        page = await self._fresh_page(tab, why)
        if not await session.pw(_on_loop, self._put_in_place, tab, page):
            # The tab set changed meanwhile (the tab closed): the fresh page has no place.
            with contextlib.suppress(Exception):
                with trio.move_on_after(2):
                    await session.pw(page.close)
            raise _not_replaced(tab, why, "it closed meanwhile")
        with contextlib.suppress(Exception):
            with trio.move_on_after(2):
                await session.pw(old.close)

    async def _fresh_page(self, tab: Tab, why: str) -> Page:
        """A new page for ``tab``'s place, not adopted yet; each attempt bounded, one
        stuck opening closed, a second attempt after a failed one (module notes)."""
        failure = ""
        for _ in range(OPEN_ATTEMPTS):
            before = await self._context_page_targets()
            self._fresh_opening += 1
            try:
                with trio.move_on_after(OPEN_S):
                    return await self.open_page()
            except Exception as exc:
                if went_away(exc):  # the browser or the context is gone: the session says which
                    raise
                failure = first_line(exc)
            else:
                failure = f"no fresh page opened within {OPEN_S:g} s"
                await self._close_new_targets(before)
            finally:
                self._fresh_opening -= 1
        raise _not_replaced(tab, why, failure)

    async def _context_page_targets(self) -> set[str] | None:
        """The ids of the pages the browser holds in this session's context (None when
        it cannot say), so a page stuck opening can be told from them afterwards."""
        session = self._session
        if session.browser is None or self.context_id is None:
            return None
        try:
            with trio.move_on_after(OPEN_S):
                targets = await session.browser.cdp.send("Target.getTargets")
                return {str(t["targetId"]) for t in targets["targetInfos"]
                        if t.get("type") == "page" and t.get("browserContextId") == self.context_id}
        except CdpFailure:
            pass
        return None

    async def _close_new_targets(self, before: set[str] | None) -> None:
        """Close the pages of this context that are new since ``before``: the one stuck
        opening, which Playwright would otherwise report (as a tab) whenever it ends,
        and the browser would count as the session's page meanwhile."""
        session = self._session
        now = await self._context_page_targets()
        if before is None or now is None or session.browser is None:
            return
        for target_id in now - before:
            with contextlib.suppress(CdpFailure):
                with trio.move_on_after(OPEN_S):
                    await session.browser.cdp.send("Target.closeTarget", {"targetId": target_id})

    def _context(self) -> BrowserContext:
        context = self._session.context
        assert context is not None  # made in on_start, before the first tab
        return context

    async def _wire_in_background(self, tab: Tab) -> None:
        # A tab that closes before it is wired needs nothing more.
        with contextlib.suppress(ToolError):
            await self.wire(tab)

    async def _forget(self, tab: Tab) -> None:
        """A closed tab's records go, with what its sessions had in flight."""
        session = self._session
        if tab.target_id is not None and session.wiring is not None:
            session.events.forget(tab.target_id, session.wiring.keys_of(tab.target_id))
            session.wiring.forget(tab.target_id)
            session.frame_books.pop(tab.target_id, None)

    # -- page events (called on the Playwright thread) --------------------------------

    def adopt(self, page: Page) -> Tab:
        """A new page of the context becomes a tab (or takes the place of the crashed tab
        being replaced), wired at once: its console and requests are recorded over its
        raw CDP session, not through Playwright. Idempotent: a known page keeps its tab."""
        session = self._session
        known = session.tabs.find(page)
        if known is not None:
            return known
        replacing = self._replacing
        if replacing is not None:
            self._replacing = None
            crashed = attrs.evolve(replacing)  # its records go with its old target
            tab = session.tabs.replace(replacing, page)
            self._on_trio(self._forget, crashed)
        else:
            tab = session.tabs.add(page)
        page.on("framenavigated", self._on_frame_navigated)
        page.on("close", self._on_page_closed)
        page.on("download", functools.partial(on_download, session))
        page.on("crash", self._on_page_crashed)
        page.on("dialog", session.dialogs.on_dialog)
        session.page_moved.fire()
        self._on_trio(self._wire_in_background, tab)
        return tab

    def _put_in_place(self, tab: Tab, page: Page) -> bool:
        """A fresh ``page`` takes ``tab``'s place (adopted, its events heard); False
        when the tab is no longer in the set."""
        if self._session.tabs.find(tab.page) is not tab:
            return False
        self._replacing = tab
        try:
            self.adopt(page)
        finally:
            self._replacing = None
        return True

    def drop_tab(self, page: Page) -> Tab | None:
        """On the Playwright thread: forget a closed page's tab and its records."""
        tab = self._session.tabs.close(page)
        if tab is not None:
            self._on_trio(self._forget, tab)
        return tab

    def _on_context_page(self, page: Page) -> None:
        """The context opened a page: a tab, unless the session is opening a helper or a
        fresh page for a tab's place (adopted there once it opened) or, attached to a
        shared browser, the page is not one our tabs opened."""
        if self._helpers_opening or self._fresh_opening:
            return
        if self._session.attached:
            self._session.driver.bridge.spawn(adopt_if_ours, self._session, page)
            return
        self.adopt(page)

    def _on_page_crashed(self, page: Page) -> None:
        tab = self._session.tabs.find(page)
        if tab is not None:
            tab.crashed = True
        self._session.page_moved.fire()

    def _on_page_closed(self, page: Page) -> None:
        self._session.dialogs.forget(page)
        self.drop_tab(page)
        self._session.page_moved.fire()

    def _on_frame_navigated(self, frame: Frame) -> None:
        session = self._session
        page = session.page
        if page is not None and frame is page.main_frame:
            session.navigations += 1
            session.page_moved.fire()

    def _on_trio(self, fn: Callable[..., Awaitable[object]], *args: object) -> None:
        """From the Playwright thread: start ``fn(*args)`` in the session's nursery."""
        def start() -> None:
            with contextlib.suppress(RuntimeError):  # the session is closing
                self._session.nursery.start_soon(fn, *args)
        if self._trio_token is not None:
            with contextlib.suppress(trio.RunFinishedError):
                self._trio_token.run_sync_soon(start)


def _not_replaced(tab: Tab, why: str, failure: str) -> ToolError:
    return ToolError("tab-crashed" if why == "crashed" else "timeout",
                     f"tab {tab.id} {why} and could not be replaced ({failure}); close_tab it", tab=tab.id)


async def _on_new_pages(context: BrowserContext, handler: Callable[[Page], None]) -> None:
    context.on("page", handler)


async def _on_loop(fn: Callable[..., T], *args: object) -> T:
    """Run a plain function on the Playwright thread (through the session's ``pw``)."""
    return fn(*args)


async def _target_info_of(context: BrowserContext, page: Page) -> JsonObject:
    """The CDP target info of a Playwright page (its target id, so raw CDP can attach to
    the same tab, and its browser context id)."""
    cdp_session = await context.new_cdp_session(page)
    try:
        info = await cdp_session.send("Target.getTargetInfo")
    finally:
        await cdp_session.detach()
    described: JsonObject = info["targetInfo"]
    return described
