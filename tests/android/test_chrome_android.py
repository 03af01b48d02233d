"""chrome-android end to end: the session leases the device, has the adb server forward
Chrome's DevTools socket, and runs the chromium engine over it, on its own tab only.

The fake adb server forwards ``localabstract:chrome_devtools_remote`` to a real headless
Chromium started here, which plays the phone's Chrome: it already has a tab of its own
(the phone user's), which the session must neither adopt nor close.
"""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from android.android_support import Adb, android_server
from browx_actors.cdp import ChromiumProcess, launch_chromium, open_cdp_connection
from browx_actors.devices.adb import AdbAddress
from browx_actors.errors import ToolError
from browx_actors.sessions.android import chrome
from browx_actors.sessions.android.chrome import DEVTOOLS_SOCKET, ChromeAndroidSession
from browx_actors.sessions.android.table import CHROME_ANDROID
from browx_actors.sessions.chromium.options import SessionOptions
from e2e_support import fails, ok

pytestmark = pytest.mark.chromium


async def _pages(phone_chrome: ChromiumProcess) -> list[dict[str, Any]]:
    async with open_cdp_connection(phone_chrome.ws_url) as cdp:
        targets = (await cdp.send("Target.getTargets"))["targetInfos"]
    return [t for t in targets if t["type"] == "page"]


async def test_chrome_on_the_device_through_the_forward(tmp_path: Path, adb: Adb, pages_url: str) -> None:
    async with launch_chromium() as phone_chrome:
        async with open_cdp_connection(phone_chrome.ws_url) as cdp:
            await cdp.send("Target.createTarget", {"url": f"{pages_url}/e2e_second.html"})  # the user's own tab
        users = {t["targetId"] for t in await _pages(phone_chrome)}
        adb.device().sockets[DEVTOOLS_SOCKET] = ("127.0.0.1", phone_chrome.port)
        async with android_server(tmp_path, adb) as client:
            web = {"session": "web"}
            opened = await ok(client, "open_session", {**web, "engine": "chrome-android"})
            assert opened["engine"] == "chrome-android" and opened["device"]["id"] == "emulator-5554"
            (forward,) = _forwards(adb)
            assert forward[0] == "emulator-5554" and forward[2] == DEVTOOLS_SOCKET, "the DevTools socket is forwarded"
            taken = await fails(client, "open_session", {"session": "app", "engine": "android-app"},
                                "device-leased")
            assert taken["holder"] == "web", "chrome-android leases the device like any native session"

            # The chromium engine's tools, on the session's own tab.
            navigated = await ok(client, "navigate", {**web, "url": f"{pages_url}/e2e_small.html"})
            assert navigated["title"] == "E2E small"
            shot = await ok(client, "snapshot", web)
            assert 'heading "Hello E2E"' in shot["snapshot"] and 'button "Go"' in shot["snapshot"]
            await ok(client, "fill", {**web, "selector": "#name", "value": "Grace"})
            await ok(client, "verify_value", {**web, "selector": "#name", "value": "Grace"})
            clicked = await ok(client, "click", {**web, "selector": "text=Second page"})
            assert clicked["navigation"]["to"] == f"{pages_url}/e2e_second.html"
            tabs = await ok(client, "list_tabs", web)
            assert len(tabs["tabs"]) == 1, "the phone's other tab is not the session's"
            (described,) = (await ok(client, "list_sessions"))["sessions"]
            assert described["engine"] == "chrome-android" and described["device"]["serial"] == "emulator-5554"
            during = {t["targetId"] for t in await _pages(phone_chrome)}
            assert users < during and len(during) == len(users) + 1

            # A popup its tab opens is the session's too; a tab the phone's user opens is not.
            await ok(client, "navigate", {**web, "url": f"{pages_url}/tabs_opener.html"})
            popup = await ok(client, "click", {**web, "selector": "a[target=_blank]"})
            assert [t["id"] for t in popup["opened"]] == [2]
            async with open_cdp_connection(phone_chrome.ws_url) as cdp:
                later = (await cdp.send("Target.createTarget", {"url": f"{pages_url}/e2e_second.html?later"}))
            users.add(later["targetId"])
            assert [t["id"] for t in (await ok(client, "list_tabs", web))["tabs"]] == [1, 2]

            await ok(client, "close_session", web)
            after = {t["targetId"] for t in await _pages(phone_chrome)}
            assert after == users, "closing the session closes its tabs (the popup too), and only those"
            assert _forwards(adb) == [], "and removes the forward"
            reopened = await ok(client, "open_session", {"session": "app", "engine": "android-app"})
            assert reopened["device"]["id"] == "emulator-5554", "and releases the device"
        assert phone_chrome.process.returncode is None, "the phone's Chrome keeps running"


def _forwards(adb: Adb) -> list[list[str]]:
    """What the fake adb server forwards now (``adb forward --list``)."""
    with socket.create_connection(("127.0.0.1", adb.port)) as sock:
        request = b"host:list-forward"
        sock.sendall(f"{len(request):04x}".encode() + request)
        assert sock.recv(4) == b"OKAY"
        size = int(sock.recv(4), 16)
        data = b""
        while len(data) < size:
            data += sock.recv(size - len(data))
    return [line.split() for line in data.decode().splitlines()]


class _Android:
    """An AndroidDevice stand-in that records the shell commands it is sent."""

    serial = "emulator-5554"

    def __init__(self) -> None:
        self.commands: list[str] = []

    async def shell(self, command: str, *, timeout: float) -> None:
        self.commands.append(command)


async def test_chrome_not_running_is_started_then_waited_for(monkeypatch: pytest.MonkeyPatch,
                                                            autojump_clock: trio.testing.MockClock) -> None:
    attempts = 0

    async def resolve(endpoint: str, *, timeout: float) -> str:
        nonlocal attempts
        attempts += 1
        raise chrome.CdpEndpointError("connection refused")

    monkeypatch.setattr(chrome, "resolve_attach_endpoint", resolve)
    session = ChromeAndroidSession(
        "s", table=CHROME_ANDROID, registry=lambda: None, adb=AdbAddress(), serial=None, pool=lambda: None,  # type: ignore[arg-type, return-value]
        driver=None, options=SessionOptions())  # type: ignore[arg-type]
    android = _Android()
    started = trio.current_time()
    with pytest.raises(ToolError) as caught:
        await session._devtools_url(android, "http://127.0.0.1:1")  # type: ignore[arg-type]
    assert caught.value.code == "unavailable" and "USB debugging" in caught.value.message
    assert trio.current_time() - started == pytest.approx(chrome.CHROME_START_SECONDS)
    assert android.commands == ["am start -n com.android.chrome/com.google.android.apps.chrome.Main"]
    assert attempts == 1 + chrome.CHROME_START_SECONDS / 0.5, "asked again every half second until the deadline"
