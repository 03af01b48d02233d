"""A session attached to a browser elsewhere: ``open_session({cdpEndpoint})``.

The pool's browser serves every other session; this one connects, for itself only, to
a browser the user runs (a Chrome started with ``--remote-debugging-port``, a browser
grid's or browserless' CDP endpoint, an Electron app with a debugging port). It opens
one socket to it, whatever the endpoint does per socket (a fleet starts a browser for
each): Playwright and the session's events share it. That browser is shared with
whoever else uses it, so the session:

* leases one tab of its own in the browser's default context (its cookies are the
  user's: that is the point of attaching to a logged-in Chrome), and adopts only the
  popups that tab, or a popup of it, opens; the user's other tabs are never listed,
  wired or touched;
* puts the page agent into its own tabs only (a page-level init script), never into
  the context, whose other pages are the user's;
* closes its own tabs when it ends, then disconnects: the browser and its other tabs
  live on.

:func:`hold_attached_browser` owns the connection for the session's lifetime;
:func:`expected_tabs` is the pure rule for which of the browser's pages are the
session's.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

import trio
from playwright.async_api import Browser as PlaywrightBrowser
from playwright.async_api import BrowserContext, Page

from ...cdp.attach import resolve_attach_endpoint
from ...cdp.opening import open_cdp_connection
from ...cdp.relay import open_playwright_relay
from ...config import CDP_TIMEOUT
from ...errors import ToolError
from ...jsonsafe import JsonValue
from .agent.pageagent import AGENT_SOURCE
from .bridge.driver import PlaywrightDriver
from .pool import Browser

if TYPE_CHECKING:
    from .host import SessionHost

__all__ = ["adopt_if_ours", "close_pages", "default_context", "expected_tabs", "hold_attached_browser",
           "page_of_target", "prepare_leased"]


def expected_tabs(targets: Iterable[Mapping[str, JsonValue]], context_id: str | None, ours: set[str],
                  *, attached: bool) -> int:
    """How many of the browser's pages are the session's tabs: every page of its own
    context, or, attached to a shared browser, its own tabs and the popups they opened
    (and those popups opened), found by following ``openerId``."""
    pages = [t for t in targets if t.get("type") == "page"]
    if not attached:
        return sum(1 for t in pages if t.get("browserContextId") == context_id)
    owned = set(ours)
    grew = True
    while grew:
        grew = False
        for target in pages:
            target_id = target.get("targetId")
            if target_id not in owned and target.get("openerId") in owned:
                owned.add(str(target_id))
                grew = True
    return sum(1 for t in pages if t.get("targetId") in owned)


async def hold_attached_browser(endpoint: str, driver: PlaywrightDriver, headers: tuple[tuple[str, str], ...] = (), *,
                                timeout: float = CDP_TIMEOUT, task_status: trio.TaskStatus[Browser]) -> None:
    """Connect to ``endpoint`` (raw CDP and Playwright), hand over the :class:`~.pool.Browser`,
    and hold both until cancelled; a browser that goes away marks it lost.

    One socket reaches the endpoint, whatever it does per connection (a fleet starts a
    browser for each): Playwright's commands ride it through a loopback relay
    (:mod:`~browx_actors.cdp.relay`), and the session's events ride it too."""
    try:
        ws_url = await resolve_attach_endpoint(endpoint, headers=headers, timeout=timeout)
    except Exception as exc:
        raise ToolError("unavailable", f"no browser answers at the CDP endpoint: {exc}", component="browser") from exc
    async with open_cdp_connection(ws_url, headers=headers, connect_timeout=timeout) as cdp, \
            contextlib.AsyncExitStack() as relay:
        try:
            relay_url = await relay.enter_async_context(open_playwright_relay(cdp, timeout=timeout))
            playwright = await driver.connect_over_cdp(relay_url, timeout_ms=timeout * 1000)
        except Exception as exc:
            raise ToolError("unavailable", f"Playwright could not attach to the CDP endpoint: {exc}",
                            component="browser") from exc
        browser = Browser(0, ws_url, cdp, playwright, pid=None, attached=True)
        try:
            task_status.started(browser)
            browser.mark_lost(await cdp.wait_lost())
        finally:
            browser.mark_lost("the session closed")
            with trio.CancelScope(shield=True), trio.move_on_after(3):
                # For a browser Playwright connected to, close() disconnects: it never
                # closes the browser.
                await driver.bridge.run(playwright.close)


# -- on the Playwright thread ---------------------------------------------------------


async def default_context(playwright_browser: PlaywrightBrowser) -> BrowserContext:
    """The browser's own context (its cookies are the user's)."""
    contexts = playwright_browser.contexts
    return contexts[0] if contexts else await playwright_browser.new_context()


async def page_of_target(context: BrowserContext, target_id: str, *, timeout: float = 10.0) -> Page:
    """The Playwright page of the target ``target_id`` that raw CDP just created, once
    Playwright has announced it: among the context's pages, the one whose target it is,
    asked newest first (it is the newest, and the user's other tabs need no question)."""
    asked: set[Page] = set()
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        for page in reversed(context.pages):
            if page in asked:
                continue
            asked.add(page)
            with contextlib.suppress(Exception):  # closed meanwhile: not it
                cdp_session = await context.new_cdp_session(page)
                try:
                    info = await cdp_session.send("Target.getTargetInfo")
                finally:
                    await cdp_session.detach()
                if info["targetInfo"]["targetId"] == target_id:
                    return page
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError(f"Playwright never announced the page of target {target_id}")
        await asyncio.sleep(0.02)


async def prepare_leased(page: Page, viewport: tuple[int, int] | None) -> None:
    """The leased tab: the agent in its documents, the session's viewport (None: the
    browser's own, as on a phone)."""
    await page.add_init_script(script=AGENT_SOURCE)
    if viewport is not None:
        await page.set_viewport_size({"width": viewport[0], "height": viewport[1]})


async def adopt_if_ours(session: SessionHost, page: Page) -> None:
    """A page of the shared context becomes a tab only if one of our tabs opened it."""
    with contextlib.suppress(Exception):  # closed meanwhile: nothing to adopt
        opener = await page.opener()
        if opener is not None and session.tabs.of_page(opener) is not None:
            await page.add_init_script(script=AGENT_SOURCE)
            session.tab_lifecycle.adopt(page)


async def close_pages(pages: list[Page]) -> None:
    for page in pages:
        with contextlib.suppress(Exception):
            await page.close()
