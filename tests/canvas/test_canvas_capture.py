"""canvas_capture, gesture_chain and canvas_diff on real headless Chromium.

Pages are served on loopback (a second server is the second origin for taint). The
checks look at pixels: where a stroke landed, which colour sits in the top row, what a
tainted canvas refuses, not only at ``ok``.
"""

from __future__ import annotations

import base64
import io
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from browx_actors import RuntimeConfig, open_runtime
from browx_actors.canvas.cache import MAX_ENTRIES
from browx_actors.demo import serve_directory

pytestmark = pytest.mark.chromium

PAGES = Path(__file__).parents[1] / "pages"
STROKE = [(120, 140), (220, 170), (320, 200)]  # viewport points; the pad sits at (20, 40)


@asynccontextmanager
async def canvas_runtime(tmp_path: Path, caps: str = "canvas,eval") -> AsyncIterator[Any]:
    config = RuntimeConfig.from_env({}, workspace=tmp_path, capabilities=caps)
    async with open_runtime(config=config, capabilities=caps.split(",")) as runtime:
        yield runtime


async def ok(runtime: Any, tool: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    result = await runtime.call_tool(tool, args or {})
    assert result["ok"] is True, (tool, result)
    return result


async def fails(runtime: Any, tool: str, args: dict[str, Any], code: str) -> dict[str, Any]:
    result = await runtime.call_tool(tool, args)
    assert result["ok"] is False and result["code"] == code, (tool, result)
    return result


def pixels(capture: dict[str, Any]) -> np.ndarray:
    """A capture as a (height, width, 4) array, decoding PNGs with Pillow."""
    raw = base64.b64decode(capture["contentBase64"])
    if capture["format"] == "png":
        return np.asarray(Image.open(io.BytesIO(raw)).convert("RGBA"))
    return np.frombuffer(raw, np.uint8).reshape(capture["height"], capture["width"], 4)


async def test_a_stroke_lands_and_diff_finds_it_by_base64_and_by_id(tmp_path: Path) -> None:
    with serve_directory(PAGES) as base:
        async with canvas_runtime(tmp_path) as runtime:
            await ok(runtime, "navigate", {"url": f"{base}/canvas_draw.html"})
            before = await ok(runtime, "canvas_capture", {"format": "2d-imagedata"})
            assert (before["width"], before["height"], before["channelCount"]) == (640, 400, 4)
            assert before["byteLength"] == 640 * 400 * 4 and before["box"] == {
                "x": 20, "y": 40, "width": 640, "height": 400}
            png_before = await ok(runtime, "canvas_capture", {"format": "png", "includeContent": False})
            assert "contentBase64" not in png_before and png_before["captureId"]

            (x0, y0), (x1, y1), (x2, y2) = STROKE
            chain = await ok(runtime, "gesture_chain", {"steps": [
                {"kind": "down", "x": x0, "y": y0},
                {"kind": "move", "x": x1, "y": y1, "ms": 10},
                {"kind": "move", "x": x2, "y": y2},
                {"kind": "up", "x": x2, "y": y2},
            ]})
            assert chain["stepsExecuted"] == 4 and chain["totalDurationMs"] >= 10 and "warnings" not in chain
            assert (await ok(runtime, "eval_js", {"expr": "window.strokes"}))["value"] == 1

            after = await ok(runtime, "canvas_capture", {"format": "2d-imagedata"})
            red = pixels(after)[200 - 40, 320 - 20]  # the stroke's end, in canvas pixels
            assert tuple(red) == (0xD0, 0x20, 0x20, 255)

            by_base64 = await ok(runtime, "canvas_diff", {
                "beforeBase64": before["contentBase64"], "afterBase64": after["contentBase64"],
                "width": 640, "height": 400})
            box = by_base64["bboxOfChanges"]
            # The stroke runs from (100, 100) to (300, 160) in canvas pixels, 6 px wide.
            assert 94 <= box["x"] <= 100 and 94 <= box["y"] <= 100
            assert 300 <= box["x"] + box["w"] <= 306 and 160 <= box["y"] + box["h"] <= 166
            assert 500 < by_base64["changedPixelCount"] < 4000
            assert by_base64["changedBytes"] > by_base64["changedPixelCount"] * 100
            assert by_base64["percentageChanged"] == round(100 * by_base64["changedPixelCount"] / 256000, 4)

            by_id = await ok(runtime, "canvas_diff", {"beforeId": before["captureId"],
                                                      "afterId": after["captureId"]})
            assert by_id == by_base64
            mixed = await ok(runtime, "canvas_diff", {"beforeId": before["captureId"],
                                                      "afterBase64": after["contentBase64"]})
            assert mixed == by_base64  # the base64 side takes its size from the capture

            png_after = await ok(runtime, "canvas_capture", {"format": "png"})
            assert pixels(png_after).shape == (400, 640, 4)
            png_diff = await ok(runtime, "canvas_diff", {"beforeId": png_before["captureId"],
                                                         "afterId": png_after["captureId"]})
            assert png_diff["bboxOfChanges"] == box
            assert png_diff["changedPixelCount"] == by_id["changedPixelCount"]

            elsewhere = await ok(runtime, "canvas_diff", {
                "beforeId": before["captureId"], "afterId": after["captureId"],
                "region": {"x": 400, "y": 250, "w": 1000, "h": 1000}})
            assert elsewhere["changedPixelCount"] == 0 and elsewhere["bboxOfChanges"] is None
            assert "clamped" in elsewhere["warnings"][0]

            across = await ok(runtime, "canvas_diff", {"beforeId": after["captureId"],
                                                       "afterId": png_after["captureId"]})
            assert across["changedPixelCount"] == 0  # PNG and ImageData of one canvas agree

            swatch = await ok(runtime, "canvas_capture", {"format": "2d-imagedata", "selector": "#swatch"})
            mismatch = await fails(runtime, "canvas_diff", {"beforeId": before["captureId"],
                                                            "afterId": swatch["captureId"]}, "size-mismatch")
            assert mismatch["beforeSize"] == {"width": 640, "height": 400}
            assert mismatch["afterSize"] == {"width": 64, "height": 32}


async def test_pacing_floor_waits_and_wheel(tmp_path: Path) -> None:
    with serve_directory(PAGES) as base:
        async with canvas_runtime(tmp_path) as runtime:
            await ok(runtime, "navigate", {"url": f"{base}/canvas_draw.html"})
            moves = [{"kind": "move", "x": 100 + i, "y": 100, "ms": 0} for i in range(10)]
            paced = await ok(runtime, "gesture_chain", {"steps": moves})
            assert paced["totalDurationMs"] >= 10 * 5  # each move waited the 5 ms floor
            assert len(paced["warnings"]) == 10 and "5 ms floor" in paced["warnings"][0]

            waited = await ok(runtime, "gesture_chain", {"steps": [{"kind": "wait", "ms": 60}]})
            assert waited["totalDurationMs"] >= 60 and waited["stepsExecuted"] == 1

            wheel = await ok(runtime, "gesture_chain", {"steps": [
                {"kind": "wheel", "x": 200, "y": 200, "deltaY": 120},
                {"kind": "wheel", "deltaY": 30, "pointerId": 2}]})
            assert wheel["stepsExecuted"] == 2
            assert (await ok(runtime, "eval_js", {"expr": "window.wheelY"}))["value"] == 150

            held = await ok(runtime, "gesture_chain", {"steps": [{"kind": "down", "x": 150, "y": 150}]})
            assert "button down" in held["warnings"][0]
            await ok(runtime, "gesture_chain", {"steps": [{"kind": "up", "x": 160, "y": 150}]})
            assert (await ok(runtime, "eval_js", {"expr": "window.strokes"}))["value"] == 1

            too_many = await fails(runtime, "gesture_chain",
                                   {"steps": [{"kind": "wait", "ms": 0}] * 201}, "too-many-steps")
            assert too_many["maxSteps"] == 200
            bad = await fails(runtime, "gesture_chain", {"steps": [{"kind": "down", "x": 1}]}, "bad-arg")
            assert bad["field"] == "steps[0].y"


async def test_a_final_wheel_step_has_landed_when_the_chain_answers(tmp_path: Path) -> None:
    """The page was handed the last wheel and has scrolled by it before gesture_chain
    answers: an eval right after reads both, with no polling."""
    with serve_directory(PAGES) as base:
        async with canvas_runtime(tmp_path) as runtime:
            await ok(runtime, "navigate", {"url": f"{base}/wheel_chain.html"})
            read = "[window.wheels, Math.round(scrollY), document.getElementById('box').scrollTop]"
            page = await ok(runtime, "gesture_chain", {"steps": [
                {"kind": "move", "x": 100, "y": 300}, {"kind": "wheel", "deltaY": 240}]})
            assert page["stepsExecuted"] == 2 and "warnings" not in page
            assert (await ok(runtime, "eval_js", {"expr": read}))["value"] == [["page dy=240"], 240, 0]
            inner = await ok(runtime, "gesture_chain", {"steps": [
                {"kind": "wheel", "x": 500, "y": 100, "deltaY": 120}]})
            assert inner["stepsExecuted"] == 1 and "warnings" not in inner
            assert (await ok(runtime, "eval_js", {"expr": read}))["value"] == [
                ["page dy=240", "box dy=120"], 240, 120]
            back = await ok(runtime, "gesture_chain", {"steps": [
                {"kind": "wait", "ms": 0}, {"kind": "wheel", "x": 100, "y": 300, "deltaY": -90}]})
            assert back["stepsExecuted"] == 2 and "warnings" not in back
            assert (await ok(runtime, "eval_js", {"expr": read}))["value"] == [
                ["page dy=240", "box dy=120", "page dy=-90"], 150, 120]


async def test_targets_by_ref_selector_and_first_canvas(tmp_path: Path) -> None:
    with serve_directory(PAGES) as base:
        async with canvas_runtime(tmp_path) as runtime:
            await ok(runtime, "navigate", {"url": f"{base}/canvas_draw.html"})
            found = await ok(runtime, "find", {"role": "canvas", "name": "swatch"})
            ref = found["matches"][0]["ref"]
            by_ref = await ok(runtime, "canvas_capture", {"format": "2d-imagedata", "ref": ref})
            assert (by_ref["width"], by_ref["height"]) == (64, 32)
            assert tuple(pixels(by_ref)[16, 32]) == (0, 128, 255, 255)
            by_selector = await ok(runtime, "canvas_capture", {"format": "png", "selector": "#swatch"})
            assert tuple(pixels(by_selector)[0, 0]) == (0, 128, 255, 255)
            first = await ok(runtime, "canvas_capture", {"format": "png"})
            assert (first["width"], first["height"]) == (640, 400)
            several = await ok(runtime, "canvas_capture", {"format": "png", "selector": "canvas",
                                                           "includeContent": False})
            assert several["width"] == 640 and "matched 2 elements" in several["warnings"][0]

            await fails(runtime, "canvas_capture", {"format": "png", "selector": "#note"}, "not-a-canvas")
            await fails(runtime, "canvas_capture", {"format": "png", "selector": "#nothing"}, "target-not-found")
            await fails(runtime, "canvas_capture", {"format": "png", "ref": "e999"}, "unknown-ref")
            await fails(runtime, "canvas_capture", {"format": "png", "ref": ref, "selector": "canvas"}, "bad-arg")
            await fails(runtime, "canvas_capture", {"format": "jpeg"}, "bad-arg")
            await fails(runtime, "canvas_capture", {"format": "webgl-framebuffer", "selector": "#swatch"},
                        "context-mismatch")
            await ok(runtime, "navigate", {"url": f"{base}/canvas_taint.html?img=none.png"})
            await ok(runtime, "eval_js", {"expr": "document.querySelector('canvas').remove()"})
            await fails(runtime, "canvas_capture", {"format": "png"}, "target-not-found")


async def test_webgl_capture_is_top_left_and_never_creates_a_context(tmp_path: Path) -> None:
    with serve_directory(PAGES) as base:
        async with canvas_runtime(tmp_path) as runtime:
            await ok(runtime, "navigate", {"url": f"{base}/canvas_webgl.html"})
            await ok(runtime, "wait_for", {"text": "drawn"})
            gl = await ok(runtime, "canvas_capture", {"format": "webgl-framebuffer"})
            assert gl["isWebGL"] is True and gl["channelCount"] == 4 and "warnings" not in gl
            image = pixels(gl)
            assert image.shape == (128, 256, 4)
            # Red was drawn in the top half: it reads back in the top rows.
            assert (image[:64] == (255, 0, 0, 255)).all() and (image[64:] == (0, 0, 255, 255)).all()
            flat = await ok(runtime, "canvas_capture", {"format": "2d-imagedata"})
            same = await ok(runtime, "canvas_diff", {"beforeId": gl["captureId"], "afterId": flat["captureId"]})
            assert same["changedPixelCount"] == 0  # the two RGBA formats agree
            png = await ok(runtime, "canvas_capture", {"format": "png"})
            assert tuple(pixels(png)[0, 0]) == (255, 0, 0, 255)

            # A canvas the page has not drawn on yet: read as it is (transparent), and left
            # without a context, so the page's own getContext of any kind still gets one.
            for fmt in ("webgl-framebuffer", "2d-imagedata", "png"):
                fresh = await ok(runtime, "canvas_capture", {"format": fmt, "selector": "#fresh"})
                assert (fresh["width"], fresh["height"]) == (32, 16) and not pixels(fresh).any()
            assert fresh["format"] == "png"
            fresh = await ok(runtime, "canvas_capture", {"format": "webgl-framebuffer", "selector": "#fresh"})
            assert "isWebGL" not in fresh and "did not ask it for a WebGL context" in fresh["warnings"][0]
            own = await ok(runtime, "eval_js", {"expr": "(() => { const c = document.getElementById('fresh');"
                                                "const g = c.getContext('2d'); g.fillStyle = '#00ff00';"
                                                "g.fillRect(0, 0, 32, 16); return g instanceof "
                                                "CanvasRenderingContext2D; })()"})
            assert own["value"] is True
            drawn = await ok(runtime, "canvas_capture", {"format": "2d-imagedata", "selector": "#fresh"})
            assert tuple(pixels(drawn)[8, 16]) == (0, 255, 0, 255)
            await fails(runtime, "canvas_capture", {"format": "webgl-framebuffer", "selector": "#fresh"},
                        "context-mismatch")
            await fails(runtime, "canvas_capture", {"format": "webgl-framebuffer", "selector": "#flat"},
                        "context-mismatch")

            # The page's own context without a preserved buffer, drawn once: empty, and said so.
            await ok(runtime, "navigate", {"url": f"{base}/canvas_webgl.html?preserve=0"})
            await ok(runtime, "wait_for", {"text": "drawn"})
            cleared = await ok(runtime, "canvas_capture", {"format": "webgl-framebuffer"})
            assert not pixels(cleared).any()
            assert "preserveDrawingBuffer:false" in cleared["warnings"][0]

            # The same context on a page that keeps drawing: read inside the next frame.
            await ok(runtime, "navigate", {"url": f"{base}/canvas_webgl.html?preserve=0&animate=1"})
            await ok(runtime, "wait_for", {"text": "drawn"})
            live = await ok(runtime, "canvas_capture", {"format": "webgl-framebuffer"})
            assert "warnings" not in live and tuple(pixels(live)[0, 0]) == (255, 0, 0, 255)
            assert tuple(pixels(live)[127, 0]) == (0, 0, 255, 255)


async def test_tainted_canvas_refuses_with_the_taint_codes(tmp_path: Path) -> None:
    other = tmp_path / "other-origin"
    other.mkdir()
    Image.new("RGBA", (8, 8), (0, 200, 0, 255)).save(other / "dot.png")
    with serve_directory(PAGES) as base, serve_directory(other) as second:
        assert base.rsplit(":", 1)[1] != second.rsplit(":", 1)[1]
        async with canvas_runtime(tmp_path / "ws") as runtime:
            await ok(runtime, "navigate", {"url": f"{base}/canvas_taint.html?img={second}/dot.png"})
            await ok(runtime, "wait_for", {"text": "drawn"})
            encode = await fails(runtime, "canvas_capture", {"format": "png"}, "taint-or-encode")
            assert "SecurityError" in encode["error"]
            await fails(runtime, "canvas_capture", {"format": "2d-imagedata"}, "taint-or-read")
            # Tainted, so drawn on by a 2D context: not a WebGL one.
            await fails(runtime, "canvas_capture", {"format": "webgl-framebuffer"}, "context-mismatch")

            # Control: the same picture from a data: URL does not taint.
            inline = base64.b64encode((other / "dot.png").read_bytes()).decode()
            await ok(runtime, "navigate", {"url": f"{base}/canvas_taint.html?img=data:image/png;base64,{inline}"})
            await ok(runtime, "wait_for", {"text": "drawn"})
            clean = await ok(runtime, "canvas_capture", {"format": "2d-imagedata"})
            assert tuple(pixels(clean)[4, 4]) == (0, 200, 0, 255)


async def test_size_cap_and_empty_canvas(tmp_path: Path) -> None:
    with serve_directory(PAGES) as base:
        async with canvas_runtime(tmp_path) as runtime:
            await ok(runtime, "navigate", {"url": f"{base}/canvas_sizes.html"})
            edge = await ok(runtime, "canvas_capture", {"format": "2d-imagedata", "selector": "#edge"})
            assert (edge["width"], edge["height"]) == (16384, 2)
            assert tuple(pixels(edge)[0, 16383]) == (10, 20, 30, 255)
            for fmt in ("png", "2d-imagedata", "webgl-framebuffer"):
                big = await fails(runtime, "canvas_capture", {"format": fmt, "selector": "#big"}, "too-large")
                assert (big["width"], big["height"]) == (16385, 2)
                await fails(runtime, "canvas_capture", {"format": fmt, "selector": "#tall"}, "too-large")
                await fails(runtime, "canvas_capture", {"format": fmt, "selector": "#zero"}, "empty-canvas")


async def test_capture_ids_are_per_session_and_evicted_lru(tmp_path: Path) -> None:
    with serve_directory(PAGES) as base:
        async with canvas_runtime(tmp_path) as runtime:
            await ok(runtime, "navigate", {"url": f"{base}/canvas_draw.html"})
            args = {"format": "2d-imagedata", "selector": "#swatch", "includeContent": False}
            ids = [(await ok(runtime, "canvas_capture", args))["captureId"] for _ in range(MAX_ENTRIES)]
            assert len(set(ids)) == MAX_ENTRIES
            await ok(runtime, "canvas_diff", {"beforeId": ids[0], "afterId": ids[-1]})  # ids[0] used
            newest = (await ok(runtime, "canvas_capture", args))["captureId"]
            evicted = await fails(runtime, "canvas_diff", {"beforeId": ids[1], "afterId": newest},
                                  "capture-evicted")
            assert evicted["field"] == "beforeId" and "capture again" in evicted["error"]
            kept = await ok(runtime, "canvas_diff", {"beforeId": ids[0], "afterId": newest})
            assert kept["changedPixelCount"] == 0

            await ok(runtime, "open_session", {"session": "other"})
            await ok(runtime, "navigate", {"session": "other", "url": f"{base}/canvas_draw.html"})
            theirs = (await ok(runtime, "canvas_capture", {**args, "session": "other"}))["captureId"]
            foreign = await fails(runtime, "canvas_diff", {"beforeId": theirs, "afterId": newest},
                                  "unknown-capture")
            assert "same session" in foreign["error"]
            await ok(runtime, "canvas_diff", {"beforeId": theirs, "afterId": theirs, "session": "other"})
            await fails(runtime, "canvas_diff", {"beforeId": newest, "afterId": newest, "session": "nope"},
                        "unknown-capture")


async def test_canvas_tools_need_the_canvas_capability(tmp_path: Path) -> None:
    async with canvas_runtime(tmp_path, caps="eval") as runtime:
        for tool, args in [("canvas_capture", {"format": "png"}),
                           ("gesture_chain", {"steps": [{"kind": "wait", "ms": 1}]}),
                           ("canvas_world_to_screen", {"worldX": 0, "worldY": 0}),
                           ("canvas_screen_to_world", {"screenX": 0, "screenY": 0}),
                           ("canvas_query", {"adapter": "figma", "op": "x"})]:
            denied = await fails(runtime, tool, args, "capability-denied")
            assert denied["capability"] == "canvas"
        assert await runtime.session_ids() == []
