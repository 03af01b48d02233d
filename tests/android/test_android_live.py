"""Live view of native sessions, end to end: the real server over real stdio MCP, the
reference daemon on the operator socket, the fake adb server and the WDA peer.

An android-app session streams its screen (screencap, re-encoded as JPEG at the view's
width and quality) while its tools keep working; a stream follows what the device shows
and ends with ``session-closed`` when the session closes. An ios-app session answers
``view-unsupported`` and goes on serving its tools.
"""

from __future__ import annotations

import io
import itertools
import math
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing
from PIL import Image

from android.android_support import Adb, android_server
from browx_actors.daemon import Daemon
from browx_actors.errors import ToolError
from browx_actors.sessions.android.live import ScreencapSource, jpeg_frame
from browx_actors.streams.framing import ReceivedFrame
from browx_actors.streams.source import SourceFailed, SourceFrame, SourceSettings
from e2e_support import ok
from fakes.wda_server import serve_wda
from ios.ios_support import SHOP
from polling import poll_until

TOKEN = "native-live-5b7e"
WAIT = 60


@pytest.fixture
def autojump_clock() -> trio.testing.MockClock:
    return trio.testing.MockClock(autojump_threshold=0)


def _png(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (10, 200, 30)).save(out, "PNG")
    return out.getvalue()


def test_a_capture_is_scaled_to_the_width_and_never_enlarged() -> None:
    small = jpeg_frame(_png(1080, 1794), 400, 50)
    with Image.open(io.BytesIO(small)) as image:
        assert image.format == "JPEG" and image.size == (400, 664)
        assert abs(image.getpixel((200, 300))[1] - 200) < 8
    with Image.open(io.BytesIO(jpeg_frame(_png(300, 500), 960, 60))) as image:
        assert image.size == (300, 500)
    assert len(jpeg_frame(_png(1080, 1794), 400, 10)) < len(jpeg_frame(_png(1080, 1794), 400, 80))


async def _until(condition: Any) -> None:
    await poll_until(condition, interval=0.05, timeout=WAIT)


async def test_android_streams_its_screen_and_ios_answers_view_unsupported(tmp_path: Path, adb: Adb) -> None:
    socket_path = tmp_path / "op.sock"
    lines: list[dict[str, Any]] = []
    frames: list[ReceivedFrame] = []
    daemon = Daemon(str(socket_path), TOKEN, out=lambda text: None, on_line=lines.append, on_frame=frames.append)
    device = adb.device()
    device.show("login")

    def of(session: str, kind: str) -> list[dict[str, Any]]:
        return [line for line in lines if line.get("session") == session and line["type"] == kind]

    with serve_wda() as (wda_url, _):
        async with trio.open_nursery() as nursery:
            await nursery.start(daemon.run)
            async with android_server(tmp_path, adb, "native-device,operator-channel,live-view",
                                      BROWX_OPERATOR_SOCKET=str(socket_path), BROWX_OPERATOR_TOKEN=TOKEN,
                                      BROWX_IOS_WDA_URL=wda_url, BROWX_IOS_APP_ID=SHOP) as client:
                await ok(client, "open_session", {"session": "p", "engine": "android-app"})
                await ok(client, "open_session", {"session": "i", "engine": "ios-app"})
                await _until(lambda: daemon.links > 0)

                # -- ios-app: no frame source; the session lives on --------------------------
                await daemon.start_view("i")
                await _until(lambda: of("i", "error"))
                assert of("i", "error")[0]["code"] == "view-unsupported" and not of("i", "view.started")
                assert (await ok(client, "snapshot", {"session": "i"}))["nodeCount"] > 0

                # -- android-app: screencap frames at the view's width --------------------------
                await daemon.start_view("p", maxWidth=400, quality=50)
                await _until(lambda: len(frames) >= 2)
                (started,) = of("p", "view.started")
                assert started["maxWidth"] == 400 and started["quality"] == 50
                for frame in frames:
                    assert frame.session == "p" and (frame.width, frame.height) == (400, 664)
                    with Image.open(io.BytesIO(frame.jpeg)) as image:
                        assert image.format == "JPEG" and image.size == (400, 664)

                # A tool call beside the stream, and the stream shows what it did.
                captures = len([c for c in device.commands if c.command == "screencap -p"])
                assert captures >= 2
                await ok(client, "click", {"session": "p", "selector": "Log in"})
                assert device.screen.name == "catalog"
                seen = len(frames)
                await _until(lambda: len(frames) >= seen + 2)
                assert frames[-1].jpeg != frames[0].jpeg, "the catalog is not the login screen"

                await daemon.stop_view("p")
                await _until(lambda: of("p", "view.stopped"))
                assert of("p", "view.stopped")[0]["reason"] == "daemon"

                # -- a view ends with its session ------------------------------------------------
                await daemon.start_view("p")
                await _until(lambda: len(of("p", "view.started")) == 2)
                await ok(client, "close_session", {"session": "p"})
                await _until(lambda: len(of("p", "view.stopped")) == 2)
                assert of("p", "view.stopped")[1]["reason"] == "session-closed"
            nursery.cancel_scope.cancel()


class _Phone:
    """An AndroidDevice stand-in: screencap answers at once with the next screen's PNG, or fails."""

    def __init__(self, *, fail: bool = False) -> None:
        self.fail = fail
        self.captures: list[float] = []

    async def exec_out(self, command: str, *, timeout: float) -> bytes:
        assert command == "screencap -p"
        self.captures.append(trio.current_time())
        if self.fail:
            raise ToolError("adb-failed", "device offline", exitCode=None)
        return _png(1080, 1794)


async def test_the_source_paces_itself_and_follows_the_width_it_is_given(
        autojump_clock: trio.testing.MockClock) -> None:
    # Counted, not timed: the mock clock jumps while Pillow works in its thread, so the
    # only deadlines here are the source's own.
    phone = _Phone()
    got: list[tuple[float, tuple[int, int]]] = []
    wanted = {"at": -math.inf, "frames": 6}
    enough = trio.Event()

    def deliver(frame: SourceFrame) -> float:
        with Image.open(io.BytesIO(frame.jpeg)) as image:
            got.append((trio.current_time(), image.size))
        if len(got) >= wanted["frames"]:
            enough.set()
        return wanted["at"]

    source = ScreencapSource(phone, "emulator-5554")  # type: ignore[arg-type]
    async with trio.open_nursery() as nursery:
        await nursery.start(source.run, SourceSettings(max_width=320, quality=40, fps=2), deliver)
        await enough.wait()
        nursery.cancel_scope.cancel()
    times = [at for at, _ in got]
    assert {size for _, size in got} == {(320, 532)}
    assert all(b - a >= 0.5 for a, b in itertools.pairwise(times)), "never above the stream's rate"

    # A stream that wants nothing more (a stalled daemon, say) costs the device no capture.
    wanted.update(at=math.inf, frames=1)
    got.clear()
    enough = trio.Event()
    async with trio.open_nursery() as nursery:
        await nursery.start(source.run, SourceSettings(max_width=160, quality=40, fps=5), deliver)
        await enough.wait()
        before = len(phone.captures)
        await trio.sleep(60)
        assert len(phone.captures) == before and [size for _, size in got] == [(160, 266)]
        nursery.cancel_scope.cancel()


async def test_a_failed_capture_ends_the_source_saying_why_without_the_screen() -> None:
    source = ScreencapSource(_Phone(fail=True), "emulator-5554")  # type: ignore[arg-type]
    with pytest.raises(SourceFailed, match=r"screencap failed \(adb-failed\): device offline"):
        await source.run(SourceSettings(max_width=320, quality=40, fps=2), lambda frame: -math.inf)
