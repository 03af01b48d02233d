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

Past the lease and the forward this is exactly a chromium session attached to a browser
elsewhere (``open_session {cdpEndpoint}``, ``sessions/chromium/attached.py``): one
mechanism for "a browser that is someone else's", whether a desktop Chrome or a phone's.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

import attrs
import trio

from ...cdp.attach import resolve_attach_endpoint
from ...cdp.protocol import CdpEndpointError
from ...devices import adb_commands as commands
from ...devices.adb import AdbAddress, AndroidDevice
from ...devices.choice import find_android_device
from ...devices.device_info import android_info
from ...devices.leases import AcquireDevice, hold_lease
from ...errors import ToolError
from ...jsonsafe import JsonObject
from ...kernel.actor_ref import ActorRef
from ...tools import Table
from ..chromium.bridge.driver import PlaywrightDriver
from ..chromium.options import SessionOptions
from ..chromium.session import ChromiumSession

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
        table: Table,
        registry: Callable[[], ActorRef],
        adb: AdbAddress,
        serial: str | None,
        pool: Callable[[], ActorRef],
        driver: PlaywrightDriver,
        options: SessionOptions,
        workspace: Path = Path(".browx"),
    ) -> None:
        super().__init__(session_id, table=table, pool=pool, driver=driver, options=options, workspace=workspace)
        self._registry = registry
        self.adb = adb
        self.wanted_serial = serial
        self.device: JsonObject = {}

    async def on_start(self) -> None:
        server, entry = await find_android_device(self.adb, self.wanted_serial, timeout=30)
        android = server.device(entry.serial)
        await self.nursery.start(hold_lease, self._registry(), AcquireDevice(
            f"android:{entry.serial}", self.session_id, self.ref, {"platform": "android", "model": entry.model,
                                                                   "engine": ENGINE}))
        self.device = {"id": entry.serial, "platform": "android", **await android_info(android, entry, timeout=30)}
        ws_url = await self.nursery.start(self._hold_forward, android)
        # From here on this is a chromium session attached to a browser elsewhere: its
        # own tab in Chrome's one context, the popups that tab opens, nothing else; the
        # phone's screen is the viewport.
        self.options = attrs.evolve(self.options, cdp_endpoint=ws_url, viewport=None)
        await super().on_start()

    def describe(self) -> dict[str, object]:
        return {**super().describe(), "device": dict(self.device)}

    # -- Chrome over the forwarded DevTools socket ----------------------------------------

    async def _hold_forward(self, android: AndroidDevice, *, task_status: trio.TaskStatus[str]) -> None:
        """The forward, for as long as this task runs; hands over the websocket URL of
        the browser behind it."""
        port = await android.forward(DEVTOOLS_SOCKET, timeout=10)
        try:
            task_status.started(await self._devtools_url(android, f"http://{self.adb.host}:{port}"))
            await trio.sleep_forever()
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


