"""A third-party MCP server drives the fake adb peer as it drives an emulator.

mobile-mcp (npm ``@mobilenext/mobile-mcp``, pinned in peers/package.json) runs over
stdio under the MCP SDK's own Python client; its Android robot (``MOBILEMCP_LEGACY_ROBOT``:
the one that talks to devices through the ``adb`` binary) reaches the fake server through
Debian's adb and parses what the fake device's shell prints: ``pm list features``, ``cmd
package query-activities``, ``wm size`` / ``density``, ``monkey``, ``uiautomator dump
/dev/tty``, ``dumpsys SurfaceFlinger --display-id``, ``screencap -p``, ``input tap`` /
``swipe``. Every call must answer without an error, and what it says must be the device's.
"""

from __future__ import annotations

import base64
import io
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import mcp.types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from PIL import Image

from android.android_support import Adb
from fakes.adb_shop import SHOP
from peers import mobile_mcp

SERIAL = "emulator-5554"


@asynccontextmanager
async def mobile_mcp_client(adb: Adb, home: Path) -> AsyncIterator[ClientSession]:
    command = mobile_mcp()
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "ANDROID_ADB_SERVER_PORT": str(adb.port),
           "MOBILEMCP_LEGACY_ROBOT": "1", "MOBILEMCP_DISABLE_TELEMETRY": "1"}
    params = StdioServerParameters(command=command[0], args=command[1:], env=env)
    with (home / "mobile-mcp.stderr").open("w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session


async def call(session: ClientSession, tool: str, **args: object) -> list[types.ContentBlock]:
    result = await session.call_tool(tool, {"device": SERIAL, **args} if tool != "mobile_list_available_devices"
                                     else {})
    texts = [block.text for block in result.content if isinstance(block, types.TextContent)]
    assert not result.is_error, f"{tool}: {texts}"
    return list(result.content)


def text(blocks: list[types.ContentBlock]) -> str:
    return "\n".join(block.text for block in blocks if isinstance(block, types.TextContent))


async def test_mobile_mcp_lists_reads_taps_swipes_and_launches_on_the_adb_peer(adb: Adb, tmp_path: Path) -> None:
    device = adb.device(SERIAL)
    device.busy_dumps = 0  # the shop's splash settles before the first dump
    async with mobile_mcp_client(adb, tmp_path) as session:
        devices = text(await call(session, "mobile_list_available_devices"))
        assert f'"id":"{SERIAL}"' in devices and '"name":"Pixel 7 API 34"' in devices and '"version":"14"' in devices

        apps = text(await call(session, "mobile_list_apps"))
        assert f"({SHOP})" in apps and "(com.android.settings)" in apps

        assert text(await call(session, "mobile_get_screen_size")) == "Screen size is 1080x1794 pixels"

        assert text(await call(session, "mobile_launch_app", packageName=SHOP)) == f"Launched app {SHOP}"
        assert device.screen.name == "splash"  # settles into "login" at the first dump

        elements = text(await call(session, "mobile_list_elements_on_screen"))
        assert 'TextView text="Welcome back"' in elements
        assert 'EditText text="Email" label="Email address"' in elements
        assert 'Button text="Log in" id="com.example.shop:id/login_button" at=80,860 size=920x120' in elements

        shot = await call(session, "mobile_take_screenshot")
        image = next(block for block in shot if isinstance(block, types.ImageContent))
        assert Image.open(io.BytesIO(base64.b64decode(image.data))).size == (1080, 1794)

        await call(session, "mobile_click_on_screen_at_coordinates", x=540, y=920)  # "Log in"
        assert device.screen.name == "catalog"
        catalog = text(await call(session, "mobile_list_elements_on_screen"))
        assert catalog.count('ViewGroup label="Add to cart"') == 3

        await call(session, "mobile_swipe_on_screen", direction="up")
        assert device.gestures[-1] == "swipe 540 1435 540 358 1000"

        await call(session, "mobile_launch_app", packageName=SHOP)  # already running: brought to front
        assert device.screen.name == "catalog"
