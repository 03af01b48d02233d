"""A chromium session on a persistent profile: ``open_session({userDataDir})``.

A profile on disk belongs to one Chromium process, and a context made in the pool's
shared browser is off the record, so such a session runs a Chromium of its own on
that folder and works in its default context, whose cookies and storage are the
profile's. Playwright's ``launch_persistent_context`` starts it: it makes that default
context with the same options ``new_context`` takes (viewport, device, user agent,
locale, proxy, ...), so the session's options mean the same as in the shared browser.
The session's raw CDP socket reaches the same process through its DevTools port
(``--remote-debugging-port=0``, read from ``DevToolsActivePort`` in the profile, as the
pool's launcher does).

:func:`hold_persistent_browser` owns it for the session's life, as the pool's task
owns the shared browser: the profile is held first (:mod:`..profile_lock`: a second
user is refused at once), a browser that dies marks the :class:`~.pool.Browser` lost
(the session ends with ``browser-crashed``), and the end closes the context, which
quits this Chromium gracefully, so what the pages stored is on disk for the next
session (a killed Chromium may lose its last cookie writes).
"""

from __future__ import annotations

import contextlib
import socket
from pathlib import Path
from typing import TYPE_CHECKING

import attrs
import trio
from playwright.async_api import BrowserContext, Page

from ...cdp.launcher import CHROMIUM_FLAGS, DEVTOOLS_ACTIVE_PORT, find_chromium, parse_devtools_active_port
from ...cdp.opening import open_cdp_connection
from ...errors import ToolError
from ...workspace import folder_to_use
from ..profile_lock import hold_profile, lock_owner
from .bridge.driver import PlaywrightDriver
from .options import DEFAULT_VIEWPORT
from .pool import Browser

if TYPE_CHECKING:
    from .host import SessionHost

__all__ = ["PersistentBrowser", "hold_persistent_browser", "persistent_flags", "start_persistent"]

#: How long the profile's browser may take to start and to quit.
_START_S = 30.0
_QUIT_S = 10.0


def persistent_flags() -> list[str]:
    """The pool's automation flags for Playwright's launch (which adds its own headless
    switch and start page)."""
    return [flag for flag in CHROMIUM_FLAGS if flag not in ("--headless", "about:blank")]


@attrs.frozen
class PersistentBrowser:
    """What the session gets: the browser, its default context, and the pages the
    profile's browser opened by itself (the session closes them once its own tab is up)."""

    browser: Browser
    context: BrowserContext
    startup_pages: tuple[Page, ...]


async def _endpoint(folder: Path) -> str:
    """The browser's websocket URL from ``DevToolsActivePort`` (written before Playwright
    returns the context; polled briefly should a slow disk lag)."""
    with trio.move_on_after(5):
        while True:
            with contextlib.suppress(OSError, UnicodeDecodeError):
                found = parse_devtools_active_port((folder / DEVTOOLS_ACTIVE_PORT).read_text())
                if found is not None:
                    return f"ws://127.0.0.1:{found[0]}{found[1]}"
            await trio.sleep(0.02)
    raise ToolError("unavailable", "the profile's Chromium opened no DevTools port", component="browser")


def _pid(folder: Path) -> int | None:
    with contextlib.suppress(OSError):
        return lock_owner((folder / "SingletonLock").readlink().as_posix(), socket.gethostname())
    return None


async def hold_persistent_browser(folder: Path, relative: str, options: dict[str, object], driver: PlaywrightDriver,
                                  executable: str | None, headless: bool, *,
                                  task_status: trio.TaskStatus[PersistentBrowser]) -> None:
    """Take the profile, start its Chromium with the context ``options`` (Playwright's
    ``new_context`` keywords), hand over the :class:`PersistentBrowser`, and hold it until
    cancelled or the browser dies."""
    with hold_profile(folder, relative):
        (folder / DEVTOOLS_ACTIVE_PORT).unlink(missing_ok=True)  # a past run's port is no answer
        try:
            path = find_chromium(executable)
            with trio.fail_after(_START_S):
                context: BrowserContext = await driver.launch_persistent_context(
                    str(folder), executable_path=path, headless=headless, args=persistent_flags(), **options)
        except ToolError:
            raise
        except Exception as exc:
            raise ToolError("unavailable", f"could not start Chromium on the profile {relative!r}: {exc}",
                            component="browser") from exc
        died = False
        try:
            ws_url = await _endpoint(folder)
            async with open_cdp_connection(ws_url) as cdp:
                playwright_browser = context.browser
                assert playwright_browser is not None  # chromium's persistent context has one
                browser = Browser(0, ws_url, cdp, playwright_browser, pid=_pid(folder), attached=False)
                try:
                    task_status.started(PersistentBrowser(browser, context, tuple(context.pages)))
                    reason = await cdp.wait_lost()
                    died = True  # set before the loss wakes the session's watcher
                    browser.mark_lost(reason)
                finally:
                    browser.mark_lost("the session closed")
        finally:
            # A browser that died took its context with it: closing it would only hold
            # the profile (up to _QUIT_S) after the crash was reported, so that the
            # session opened next on it found it still in use.
            if not died:
                with trio.CancelScope(shield=True), trio.move_on_after(_QUIT_S):
                    await driver.bridge.run(context.close)


async def start_persistent(session: SessionHost) -> PersistentBrowser:
    """The session's own Chromium on its profile folder (checked by the workspace's
    chokepoint), started in the session's nursery. A storage state is refused beside
    it: the profile keeps its own, and ``storage_state_load`` loads one into it."""
    context = session.options.context
    assert context.user_data_dir is not None
    if context.storage_state is not None:
        raise ToolError("bad-arg", "storageState: a userDataDir session starts from its profile's own storage; "
                        "open it without storageState and storage_state_load the file", field="storageState")
    folder = folder_to_use(session.workspace, context.user_data_dir, field="userDataDir")
    width, height = session.options.viewport or DEFAULT_VIEWPORT
    options = {"viewport": {"width": width, "height": height}, **context.playwright()}
    held: PersistentBrowser = await session.nursery.start(
        hold_persistent_browser, folder, context.user_data_dir, options, session.driver, session.options.executable,
        session.options.headless)
    return held
