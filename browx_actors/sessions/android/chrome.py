"""chrome-android: Chrome on the leased Android device, driven by the chromium engine.

The session leases the device like an android-app session (same choice rule, same
exclusivity), has the adb server forward ``localabstract:chrome_devtools_remote`` (the
socket Chrome for Android serves DevTools on) to a free local port, attaches raw CDP and
Playwright to it, and from there is a chromium session: snapshot refs, actions, the
human bridge, the same tool handlers (the catalog runs every chromium handler for
``chrome-android``). Chrome on the phone is shared with whoever uses it, so the session
opens and drives its own tab only, and the popups that tab opens: it never adopts the
phone's other tabs, never closes the browser or its context, and closing the session
closes its tabs, removes the forward and releases the device, nothing else.

If nothing answers on the forward, Chrome is not running: the session starts it
(``am start`` of its launcher activity) and waits a few seconds for DevTools.

This subclasses the chromium session rather than teaching the browser pool about
per-session endpoints: the pool owns the runtime's one browser, and a device's Chrome is
the session's own, for as long as it lives.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import trio

from ...actor import ActorRef
from ...cdp.connection import open_cdp_connection
from ...cdp.launcher import CdpEndpointError, resolve_attach_endpoint
from ...devices import adb_commands as commands
from ...devices.adb import AdbAddress, AndroidDevice
from ...devices.choice import find_android_device
from ...devices.device_info import android_info
from ...devices.leases import AcquireDevice, hold_lease
from ...errors import ToolError
from ...human.bridge import HumanBridge
from ..chromium.driver import PlaywrightDriver
from ..chromium.pageagent import AGENT_SOURCE
from ..chromium.pool import Browser
from ..chromium.session import ChromiumSession, SessionOptions
from ..chromium.tabset import Tab

__all__ = ["CHROME_PACKAGE", "DEVTOOLS_SOCKET", "ENGINE", "ChromeAndroidSession"]

ENGINE = "chrome-android"
#: The abstract socket Chrome for Android serves DevTools on.
DEVTOOLS_SOCKET = "localabstract:chrome_devtools_remote"
CHROME_PACKAGE = "com.android.chrome"
#: How long Chrome, once started, has to open its DevTools socket.
CHROME_START_SECONDS = 15.0


class ChromeAndroidSession(ChromiumSession):
    engine = ENGINE

    def __init__(
        self,
        session_id: str,
        *,
        registry: Callable[[], ActorRef],
        adb: AdbAddress,
        serial: str | None,
        pool: Callable[[], ActorRef],
        driver: PlaywrightDriver,
        options: SessionOptions,
        workspace: Path = Path(".browx"),
    ) -> None:
        super().__init__(session_id, pool=pool, driver=driver, options=options, workspace=workspace)
        self._registry = registry
        self.adb = adb
        self.wanted_serial = serial
        self.device: dict[str, Any] = {}
        self._popup_scripts: set[asyncio.Future[Any]] = set()

    async def on_start(self) -> None:
        server, entry = await find_android_device(self.adb, self.wanted_serial, timeout=30)
        android = server.device(entry.serial)
        await self.nursery.start(hold_lease, self._registry(), AcquireDevice(
            f"android:{entry.serial}", self.session_id, self.ref, {"platform": "android", "model": entry.model,
                                                                   "engine": ENGINE}))
        self.device = {"id": entry.serial, "platform": "android", **await android_info(android, entry, timeout=30)}
        self.browser = await self.nursery.start(self._hold_chrome, android)
        # Chrome for Android has one browser context, the phone's own: use it, but only
        # for the tab this session opens (and what that tab opens).
        self.context = self.browser.playwright.contexts[0]
        page = await self.pw(self.context.new_page)
        await self.pw(page.add_init_script, script=AGENT_SOURCE)
        tab = await self.pw(_on_loop, self._adopt_own, page)
        await self.attach_current()
        self.human = await self.nursery.start(HumanBridge(self.session_id, tab.cdp, self.browser.cdp).run)
        self.nursery.start_soon(self._watch_browser, self.browser)

    async def on_stop(self) -> None:
        """Close this session's tabs; the browser, its context and the phone stay."""
        with trio.move_on_after(5):
            for tab in list(self.tabs):
                with contextlib.suppress(Exception):
                    await self.pw(tab.page.close)

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "device": dict(self.device)}

    # -- Chrome over the forwarded DevTools socket ----------------------------------------

    async def _hold_chrome(self, android: AndroidDevice, *, task_status: trio.TaskStatus[Browser]) -> None:
        """The forward and the browser connection, for as long as this task runs."""
        port = await android.forward(DEVTOOLS_SOCKET, timeout=10)
        try:
            ws_url = await self._devtools_url(android, f"http://{self.adb.host}:{port}")
            async with open_cdp_connection(ws_url) as cdp:
                playwright = await self.driver.connect_over_cdp(ws_url)
                browser = Browser(0, ws_url, cdp, playwright, pid=None, attached=True)
                try:
                    task_status.started(browser)
                    browser.mark_lost(f"Chrome on {android.serial} went away: {await cdp.wait_lost()}")
                finally:
                    browser.mark_lost("the session ended")
                    with trio.CancelScope(shield=True), trio.move_on_after(3):
                        await self.driver.bridge.run(playwright.close)
        finally:
            with trio.CancelScope(shield=True), trio.move_on_after(3), contextlib.suppress(ToolError):
                await android.remove_forward(f"tcp:{port}", timeout=3)

    async def _devtools_url(self, android: AndroidDevice, endpoint: str) -> str:
        """The browser's websocket URL behind the forward, starting Chrome if it is not running."""
        try:
            return await resolve_attach_endpoint(endpoint, timeout=5)
        except CdpEndpointError:
            pass
        await android.shell(commands.start_activity_command(f"{CHROME_PACKAGE}/com.google.android.apps.chrome.Main"),
                            timeout=10)
        failure: Exception | None = None
        with trio.move_on_after(CHROME_START_SECONDS):
            while True:
                try:
                    return await resolve_attach_endpoint(endpoint, timeout=5)
                except CdpEndpointError as error:
                    failure = error
                await trio.sleep(0.5)
        raise ToolError("unavailable", f"Chrome on {android.serial} does not serve DevTools on {DEVTOOLS_SOCKET} "
                        f"({failure}): is Chrome installed, and USB debugging on?", component="chrome-android")

    # -- tabs: this session's own, and the popups they open (on the Playwright thread) ----

    def _adopt_own(self, page: Any) -> Tab:
        tab = self._adopt(page)
        page.on("popup", self._adopt_popup)
        return tab

    def _adopt_popup(self, page: Any) -> None:
        self._adopt_own(page)
        # The agent for the popup's next documents; the one it has now is injected on first use.
        task = asyncio.ensure_future(page.add_init_script(script=AGENT_SOURCE))
        self._popup_scripts.add(task)  # the loop keeps only weak references to tasks
        task.add_done_callback(self._popup_scripts.discard)


async def _on_loop(fn: Callable[..., Any], *args: Any) -> Any:
    return fn(*args)
