"""Live view on Chrome on an Android device (``chrome-android``): the stream follows the
session's tab on the phone's Chrome. (Native app sessions are in
``tests/android/test_android_live.py``: android-app streams its screen, ios-app answers
``view-unsupported``.)

The runtime runs in the test's Trio loop with native-device, operator-channel and
live-view on, the reference daemon listens on a real Unix socket, and the fake adb
server (``tests/fakes``) plays the device: for chrome-android it forwards
``localabstract:chrome_devtools_remote`` to a real headless Chromium started here,
which plays the phone's Chrome (README, "Native apps").
"""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import trio
from PIL import Image

from android.android_support import Adb, serving
from browx_actors import RuntimeConfig, open_runtime
from browx_actors.cdp import launch_chromium
from browx_actors.config import NativeConfig, parse_capabilities
from browx_actors.daemon import Daemon
from browx_actors.runtime.tree import Runtime
from browx_actors.sessions.android.chrome import DEVTOOLS_SOCKET
from browx_actors.streams.framing import ReceivedFrame
from polling import poll_until

pytestmark = pytest.mark.chromium

TOKEN = "engines-live-51c0"
WAIT = 30


@pytest.fixture
def adb() -> Any:
    with serving() as served:
        yield served


@asynccontextmanager
async def live(tmp_path: Path, adb: Adb) -> AsyncIterator[tuple[Runtime, Daemon, list[tuple[float, ReceivedFrame]],
                                                                list[dict[str, Any]]]]:
    path = str(tmp_path / "op.sock")
    frames: list[tuple[float, ReceivedFrame]] = []
    seen: list[dict[str, Any]] = []
    daemon = Daemon(path, TOKEN, out=lambda text: None,
                    on_line=lambda m: None if m["type"] == "frame" else seen.append(m),
                    on_frame=lambda frame: frames.append((trio.current_time(), frame)))
    config = RuntimeConfig(capabilities=parse_capabilities("native-device,operator-channel,live-view"),
                           operator_socket=path, operator_token=TOKEN, workspace=tmp_path / "ws",
                           native=NativeConfig(adb_port=adb.port))
    async with trio.open_nursery() as nursery:
        await nursery.start(daemon.run)
        async with open_runtime(config=config, capabilities="native-device") as runtime:
            await poll_until(lambda: daemon.links != 0, interval=0.01, timeout=WAIT)
            yield runtime, daemon, frames, seen
        nursery.cancel_scope.cancel()


async def _line(seen: list[dict[str, Any]], predicate: Any, after: int = 0) -> dict[str, Any]:
    with trio.fail_after(WAIT):
        while True:
            for message in seen[after:]:
                if predicate(message):
                    return message
            await trio.sleep(0.01)


def _redness(frame: ReceivedFrame) -> float:
    image = Image.open(io.BytesIO(frame.jpeg))
    pixels = np.asarray(image.convert("RGB").resize((32, 18)), dtype=np.int32)
    return float(((pixels[..., 0] > 180) & (pixels[..., 1] < 80) & (pixels[..., 2] < 80)).mean())


async def _frames_where(frames: list[tuple[float, ReceivedFrame]], since: float, test: Any) -> None:
    await poll_until(lambda: any(test(frame) for when, frame in frames if when >= since), interval=0.05, timeout=WAIT)


async def test_a_chrome_android_view_follows_the_current_tab(tmp_path: Path, adb: Adb, pages_url: str) -> None:
    async with launch_chromium() as phone_chrome:
        adb.device().sockets[DEVTOOLS_SOCKET] = ("127.0.0.1", phone_chrome.port)
        async with live(tmp_path, adb) as (runtime, daemon, frames, seen):
            web = {"session": "web"}
            opened = await runtime.call_tool("open_session", {**web, "engine": "chrome-android"})
            assert opened["ok"] and opened["engine"] == "chrome-android", opened
            assert (await runtime.call_tool("navigate", {**web, "url": f"{pages_url}/live_anim.html"}))["ok"]
            await daemon.start_view("web")
            started = await _line(seen, lambda m: m["type"] == "view.started")
            assert started["session"] == "web" and started["maxFps"] == 5
            await _frames_where(frames, 0, lambda frame: _redness(frame) < 0.1)
            status = await runtime.live_view_status()
            (stream,) = status["streams"]
            assert stream["source"] == "chromium screencast, tab 1" and stream["level"] == 0

            clicked = await runtime.call_tool("click", {**web, "selector": "#open-red"})
            assert clicked["ok"] and [tab["id"] for tab in clicked["opened"]] == [2]
            await runtime.call_tool("select_tab", {**web, "tab": 2})
            moved = trio.current_time()
            await _frames_where(frames, moved, lambda frame: _redness(frame) > 0.9)
            (stream,) = (await runtime.live_view_status())["streams"]
            assert stream["source"] == "chromium screencast, tab 2"

            await runtime.call_tool("close_tab", {**web, "tab": 2})
            back = trio.current_time()
            await _frames_where(frames, back, lambda frame: _redness(frame) < 0.1)
            (stream,) = (await runtime.live_view_status())["streams"]
            assert stream["source"] == "chromium screencast, tab 1" and stream["restarts"]["follow"] >= 2
            assert [m["type"] for m in seen].count("view.started") == 1, "one view all along"

            assert (await runtime.call_tool("close_session", web))["ok"]
            stopped = await _line(seen, lambda m: m["type"] == "view.stopped")
            assert stopped == {"v": 1, "type": "view.stopped", "session": "web", "reason": "session-closed"}
        assert phone_chrome.process.returncode is None, "the phone's Chrome keeps running"
