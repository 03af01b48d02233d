"""``internal`` is a bug, never the answer to what a device sends: the native cases an audit found.

A 5,000-level hierarchy (a ``uiautomator dump``, a WebDriverAgent source) overran
Python's recursion limit (after 133 MB of node paths on Android) and answered
``internal``; a broken screenshot PNG (``screencap -p`` cut short, garbage after the PNG
signature) answered ``internal`` from Pillow. Now each parser refuses a hierarchy deeper
than ``MAX_DEPTH`` as it reads (``too-large``, naming the source), both readers of a dump
alike, and a PNG no decoder reads is the platform tool's failure (``adb-failed``,
``wda-error``). Pure parser checks first, then the real runtime and dispatch against the
adb server peer and the WebDriverAgent peer.
"""

from __future__ import annotations

import io
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

import fakes.wda_server as wda_server
from android.android_support import serving
from browx_actors import open_runtime
from browx_actors.config import NativeConfig, RuntimeConfig, parse_capabilities
from browx_actors.devices.nodes import MAX_DEPTH
from browx_actors.devices.uiautomator import parse_dump, parse_with_expat, scan_plain_dump
from browx_actors.devices.wda_source import parse_source
from browx_actors.errors import ToolError
from browx_actors.sessions.native.capture import UnreadablePng, shape_capture
from fakes.adb_device import FakeDevice, Screen
from fakes.adb_server import serve_adb
from fakes.wda_server import WdaModel, serve_wda
from ios.ios_support import ios_env
from uiautomator_support import dump, dump_node

_OPEN = dump_node("android.widget.FrameLayout").removesuffix(" />") + ">"


def chain(depth: int) -> str:
    """A dump whose one window nests ``depth`` levels below the hierarchy (the window is 1)."""
    return dump(_OPEN * (depth - 1) + dump_node() + "</node>" * (depth - 1))


def _png(size: tuple[int, int] = (1080, 1794)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (200, 30, 30)).save(out, "PNG")
    return out.getvalue()


PNG = _png()
#: Screenshots no decoder reads, each with what the platform's tool did.
BROKEN_PNGS = {
    "garbage after the signature": b"\x89PNG\r\n\x1a\n" + b"x" * 40,
    "cut short": PNG[: len(PNG) // 2],
    "a header and zeros": PNG[:33] + b"\0" * 100,
}


# -- the parsers, pure ----------------------------------------------------------------


@pytest.mark.parametrize("read", [parse_dump, parse_with_expat], ids=["scan-first", "expat"])
def test_a_dump_as_deep_as_the_limit_reads_and_one_level_more_is_too_large(read: Callable[[str], Any]) -> None:
    root = read(chain(MAX_DEPTH))
    assert max(len(node.path) for node in root.walk()) == MAX_DEPTH
    for depth in (MAX_DEPTH + 1, 5000):
        with pytest.raises(ToolError) as refused:
            read(chain(depth))
        assert refused.value.code == "too-large"
        assert refused.value.details == {"source": "uiautomator dump", "limit": MAX_DEPTH}
    assert scan_plain_dump(chain(MAX_DEPTH)) is not None  # the fast reader takes the deep plain dump itself


def _wda_chain(depth: int) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "Other"}
    for _ in range(depth):
        node = {"type": "Other", "children": [node]}
    return node


def test_a_wda_source_past_the_limit_is_too_large() -> None:
    assert parse_source(_wda_chain(MAX_DEPTH)) is not None
    with pytest.raises(ToolError) as refused:
        parse_source(_wda_chain(MAX_DEPTH + 1))
    assert refused.value.code == "too-large" and refused.value.details["source"] == "WebDriverAgent source"


@pytest.mark.parametrize("png", BROKEN_PNGS.values(), ids=BROKEN_PNGS.keys())
@pytest.mark.parametrize("shape", [{}, {"crop": (0, 0, 10, 10)}, {"max_dimension": 100}, {"fmt": "jpeg"}],
                         ids=["as-is", "cropped", "scaled", "jpeg"])
def test_a_png_that_cannot_be_read_is_unreadable_whatever_is_asked_of_it(png: bytes, shape: dict[str, Any]) -> None:
    asked: dict[str, Any] = {"crop": None, "max_dimension": 4000, "fmt": "png", "quality": 80, **shape}
    with pytest.raises(UnreadablePng) as refused:
        shape_capture(png, **asked)
    assert refused.value.why and "BytesIO" not in refused.value.why
    assert shape_capture(PNG, **asked).width > 0  # the whole PNG is read as before


# -- android-app over the adb server peer -----------------------------------------------


@asynccontextmanager
async def _android(tmp_path: Path) -> AsyncIterator[tuple[Any, FakeDevice]]:
    with serving() as adb:
        config = RuntimeConfig(workspace=tmp_path, capabilities=parse_capabilities("native-device"),
                               native=NativeConfig(adb_port=adb.port))
        async with open_runtime(capabilities=["read", "action", "native-device"], config=config) as runtime:
            opened = await runtime.call_tool("open_session", {"session": "p", "engine": "android-app"})
            assert opened["ok"], opened
            yield runtime, adb.device()


async def test_android_a_5000_level_screen_is_too_large_and_the_session_serves_on(tmp_path: Path) -> None:
    async with _android(tmp_path) as (runtime, device):
        deep, fine = chain(5000), chain(MAX_DEPTH)
        device.screens["deep"] = Screen("deep", "com.example.deep", ".Deep", lambda _: deep)
        device.screens["fine"] = Screen("fine", "com.example.deep", ".Deep", lambda _: fine)
        device.show("deep")
        for tool, args in (("snapshot", {}), ("find", {"text": "x"}), ("ui.get_visual_tree", {}),
                           ("ui.query_nodes", {"role": "container"}), ("click", {"selector": "~x"})):
            refused = await runtime.call_tool(tool, {"session": "p", **args})
            assert refused["code"] == "too-large", (tool, refused)
            assert (refused["source"], refused["limit"]) == ("uiautomator dump", MAX_DEPTH)
        device.show("fine")
        assert (await runtime.call_tool("snapshot", {"session": "p"}))["ok"]
        tree = await runtime.call_tool("ui.get_visual_tree", {"session": "p", "maxDepth": 2})
        assert tree["ok"] and tree["root"]["childCount"] == 1


@pytest.mark.parametrize("png", BROKEN_PNGS.values(), ids=BROKEN_PNGS.keys())
async def test_android_a_broken_screencap_is_adb_failed(tmp_path: Path, png: bytes,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    async with _android(tmp_path) as (runtime, _):
        monkeypatch.setattr(FakeDevice, "screencap", lambda self: png)
        for tool, args in (("screenshot", {}), ("screenshot", {"maxDimension": 100}),
                           ("screenshot_region", {"x": 0, "y": 0, "width": 10, "height": 10})):
            refused = await runtime.call_tool(tool, {"session": "p", **args})
            assert refused["code"] == "adb-failed" and "screencap -p" in refused["error"], (tool, refused)
        monkeypatch.undo()
        assert (await runtime.call_tool("screenshot", {"session": "p"}))["ok"]


# -- ios-app over the WebDriverAgent peer ------------------------------------------------


def _deep_source(depth: int) -> str:
    """WDA's source JSON nested ``depth`` levels, as text (encoding it would recurse)."""
    node = '{"type": "Other", "rect": {"x": 0, "y": 0, "width": 10, "height": 10}, "isEnabled": "1"'
    return node + ', "children": [' + (node + ', "children": [') * (depth - 1) + node + "}" + "]}" * depth


@asynccontextmanager
async def _ios(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source_depth: int) -> AsyncIterator[Any]:
    with serve_wda() as (url, model), serve_adb() as (adb_port, _):
        env = ios_env(tmp_path / "home", url, adb_port)
        monkeypatch.setenv("PATH", env["PATH"])
        monkeypatch.setenv("BROWX_FAKE_XCRUN_STATE", env["BROWX_FAKE_XCRUN_STATE"])
        answer = wda_server._Handler.do_GET

        def deep_source(handler: Any) -> None:
            if not handler.path.endswith("/source?format=json"):
                return answer(handler)
            payload = json.dumps({"sessionId": model.session_id, "value": None}).encode()
            payload = payload.replace(b'"value": null', b'"value": ' + _deep_source(source_depth).encode())
            handler.send_response(200)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(payload)))
            handler.end_headers()
            handler.wfile.write(payload)
            return None

        if source_depth:
            monkeypatch.setattr(wda_server._Handler, "do_GET", deep_source)
        config = RuntimeConfig.from_env({**env, "BROWX_CAPABILITIES": "native-device"}, workspace=tmp_path)
        async with open_runtime(capabilities=["read", "action", "native-device"], config=config) as runtime:
            opened = await runtime.call_tool("open_session", {"session": "p", "engine": "ios-app"})
            assert opened["ok"], opened
            yield runtime


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 5000])
async def test_ios_a_source_past_the_limit_is_too_large(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        depth: int) -> None:
    async with _ios(tmp_path, monkeypatch, depth) as runtime:
        for tool in ("snapshot", "ui.get_visual_tree"):
            refused = await runtime.call_tool(tool, {"session": "p"})
            assert refused["code"] == "too-large", (tool, refused)
            assert (refused["source"], refused["limit"]) == ("WebDriverAgent source", MAX_DEPTH)


async def test_ios_a_screenshot_that_cannot_be_read_is_wda_error(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    async with _ios(tmp_path, monkeypatch, 0) as runtime:
        assert (await runtime.call_tool("screenshot", {"session": "p"}))["ok"]
        monkeypatch.setattr(WdaModel, "_screenshot", lambda self: BROKEN_PNGS["cut short"])
        for args in ({}, {"format": "jpeg"}):
            refused = await runtime.call_tool("screenshot", {"session": "p", **args})
            assert refused["code"] == "wda-error" and refused["command"] == "GET /screenshot", refused
