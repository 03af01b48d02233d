"""Live view of native sessions, end to end: the real server over real stdio MCP, the
reference daemon on the operator socket, the fake adb server and the WDA peer.

An android-app session streams its screen (screencap, re-encoded as JPEG at the view's
width and quality) while its tools keep working; a stream follows what the device shows
and ends with ``session-closed`` when the session closes. An ios-app session answers
``view-unsupported`` and goes on serving its tools.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import trio
from android.android_support import Adb, android_server
from fakes.wda_server import serve_wda
from ios.ios_support import SHOP
from PIL import Image

from browx_actors.daemon import Daemon
from browx_actors.sessions.android.live import jpeg_frame
from browx_actors.streams.framing import ReceivedFrame
from e2e_support import ok

TOKEN = "native-live-5b7e"
WAIT = 60


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
    with trio.fail_after(WAIT):
        while not condition():
            await trio.sleep(0.05)


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
