"""End to end: the canvas test app (``tests/pages/canvas_draw.html``) drawn into with the
mouse primitives and with touch, through the real server over stdio MCP; each stroke is
checked where it landed, in the canvas's own pixels (canvas_capture + canvas_diff)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from e2e_support import browx_server, ok

pytestmark = pytest.mark.chromium

#: Where the pad sits in the viewport (the page's CSS), and its stroke's half width.
PAD_X, PAD_Y, HALF_WIDTH = 20, 40, 3


async def _capture(client: Any) -> str:
    shot = await ok(client, "canvas_capture", {"format": "2d-imagedata", "selector": "#pad", "includeContent": False})
    return str(shot["captureId"])


async def _strokes(client: Any) -> int:
    return int((await ok(client, "eval_js", {"expr": "window.strokes"}))["value"])


async def _changed(client: Any, before: str) -> dict[str, Any]:
    diff = await ok(client, "canvas_diff", {"beforeId": before, "afterId": await _capture(client)})
    assert diff["changedPixelCount"] > 0
    return diff["bboxOfChanges"]


def _around(box: dict[str, Any], x0: float, y0: float, x1: float, y1: float) -> None:
    """The change is the stroke from (x0, y0) to (x1, y1) in pad pixels, with round caps."""
    assert abs(box["x"] - (min(x0, x1) - HALF_WIDTH)) <= 1 and abs(box["y"] - (min(y0, y1) - HALF_WIDTH)) <= 1, box
    assert abs(box["w"] - (abs(x1 - x0) + 2 * HALF_WIDTH)) <= 2 and abs(box["h"] - (abs(y1 - y0) + 2 * HALF_WIDTH)) <= 2


async def test_the_sketch_pad_is_drawn_into_with_the_mouse_and_with_a_finger(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval,canvas") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/canvas_draw.html"})

        # The mouse: press, a paced move with the button held, release where it stopped.
        before = await _capture(client)
        await ok(client, "mouse_down", {"coords": {"x": PAD_X + 100, "y": PAD_Y + 100}})
        moved = await ok(client, "mouse_move", {"coords": {"x": PAD_X + 300, "y": PAD_Y + 100}, "steps": 5,
                                                "durationMs": 100})
        assert moved["pointer"]["buttons"] == ["left"] and moved["target"]["name"] == "drawing pad"
        await ok(client, "mouse_up", {})
        assert await _strokes(client) == 1
        _around(await _changed(client, before), 100, 100, 300, 100)

        # An L-shaped stroke: the move goes on from where the pointer is, each leg paced.
        before = await _capture(client)
        await ok(client, "mouse_down", {"coords": {"x": PAD_X + 400, "y": PAD_Y + 50}})
        await ok(client, "mouse_move", {"coords": {"x": PAD_X + 400, "y": PAD_Y + 250}, "steps": 4, "durationMs": 40})
        await ok(client, "mouse_move", {"coords": {"x": PAD_X + 550, "y": PAD_Y + 250}, "steps": 3, "durationMs": 30})
        await ok(client, "mouse_up", {})
        assert await _strokes(client) == 2
        _around(await _changed(client, before), 400, 50, 550, 250)

        # A finger: touch_start, a paced touch_move, touch_end (pointer events of type touch).
        before = await _capture(client)
        await ok(client, "touch_start", {"points": [{"x": PAD_X + 100, "y": PAD_Y + 300}]})
        await ok(client, "touch_move", {"points": [{"x": PAD_X + 250, "y": PAD_Y + 350}], "steps": 5,
                                        "durationMs": 80})
        ended = await ok(client, "touch_end", {})
        assert "navigation" not in ended and ended["touches"] == []
        assert await _strokes(client) == 3
        _around(await _changed(client, before), 100, 300, 250, 350)

        # A swipe is one finger's stroke too.
        before = await _capture(client)
        await ok(client, "gesture_swipe", {"from": {"x": PAD_X + 50, "y": PAD_Y + 30},
                                           "to": {"x": PAD_X + 350, "y": PAD_Y + 30}, "durationMs": 100})
        assert await _strokes(client) == 4
        _around(await _changed(client, before), 50, 30, 350, 30)

        # gesture_chain (Playwright's mouse) leaves the pointer where it stopped, button held:
        # mouse_up with no coordinates finishes its stroke.
        before = await _capture(client)
        await ok(client, "gesture_chain", {"steps": [{"kind": "down", "x": PAD_X + 500, "y": PAD_Y + 320},
                                                     {"kind": "move", "x": PAD_X + 600, "y": PAD_Y + 380, "ms": 5}]})
        up = await ok(client, "mouse_up", {})
        assert up["pointer"] == {"x": PAD_X + 600, "y": PAD_Y + 380, "buttons": []} and "warnings" not in up
        assert await _strokes(client) == 5
        _around(await _changed(client, before), 500, 320, 600, 380)

        # The wheel over the pad reaches its listener.
        await ok(client, "mouse_wheel", {"deltaY": 240, "coords": {"x": PAD_X + 10, "y": PAD_Y + 10}})
        wheel = await ok(client, "poll_eval", {"expr": "window.wheelY", "until": "y => y === 240", "timeoutMs": 5000})
        assert wheel["value"] == 240
