"""World/screen transforms: explicit round trips (hypothesis), probe interpretation, and
discovery on pages exposing each app-state shape (real Chromium)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from browx_actors import RuntimeConfig, open_runtime
from browx_actors.canvas.transform import (
    HEURISTIC_WARNING,
    NO_TRANSFORM,
    Affine,
    ExplicitTransform,
    explicit_transform,
    interpret_probe,
)
from browx_actors.demo import serve_directory
from browx_actors.errors import ToolError

PAGES = Path(__file__).parents[1] / "pages"
BOARD = {"x": 50.0, "y": 30.0, "width": 400.0, "height": 300.0}  # #board in canvas_app.html

coords = st.floats(-1e6, 1e6, allow_nan=False)
scales = st.floats(1e-3, 1e3) | st.floats(-1e3, -1e-3)


def _close(got: float, want: float, *magnitudes: float) -> bool:
    return math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-9 * (1 + sum(abs(m) for m in magnitudes)))


@given(coords, coords, scales, coords, coords, coords, coords)
def test_explicit_round_trip(wx: float, wy: float, scale: float, px: float, py: float,
                             ox: float, oy: float) -> None:
    t = ExplicitTransform(scale, px, py, ox, oy)
    sx, sy = t.to_screen(wx, wy)
    assert sx == (wx + px) * scale + ox and sy == (wy + py) * scale + oy  # the explicit transform's formula
    bx, by = t.to_world(sx, sy)
    assert _close(bx, wx, wx, px, ox / scale) and _close(by, wy, wy, py, oy / scale)
    # And from the screen side.
    rx, ry = t.to_screen(*t.to_world(sx, sy))
    assert _close(rx, sx, sx, ox, px * scale) and _close(ry, sy, sy, oy, py * scale)


@given(coords, coords, *[st.floats(-10, 10)] * 4, coords, coords)
def test_affine_round_trip(wx: float, wy: float, a: float, b: float, c: float, d: float,
                           e: float, f: float) -> None:
    det = a * d - b * c
    assume(abs(det) > 1e-2 and max(abs(a), abs(b), abs(c), abs(d)) / abs(det) < 1e3)
    t = Affine((a, b, c, d, e, f), 3.0, -4.0)
    bx, by = t.to_world(*t.to_screen(wx, wy))
    span = abs(wx) + abs(wy) + abs(e) + abs(f) + 10
    assert math.isclose(bx, wx, abs_tol=1e-6 * span) and math.isclose(by, wy, abs_tol=1e-6 * span)


def test_explicit_transform_checks() -> None:
    assert explicit_transform({"scale": 2, "panX": 1, "panY": -1}) == ExplicitTransform(2, 1, -1, 0, 0)
    for raw, field in [({"scale": 0, "panX": 0, "panY": 0}, "transform.scale"),
                       ({"scale": 1, "panX": math.inf, "panY": 0}, "transform.panX"),
                       ({"scale": 1, "panY": 0}, "transform.panX")]:
        with pytest.raises(ToolError) as caught:
            explicit_transform(raw)
        assert caught.value.code == "bad-arg" and caught.value.details["field"] == field


def _probe(**shapes: Any) -> dict[str, Any]:
    return {"figma": None, "tldraw": None, "generic": None, "rect": dict(BOARD),
            "viewport": {"width": 1280, "height": 720}, **shapes}


def test_probe_interpretation_order_and_validity() -> None:
    figma = {"zoom": 2, "x": 100, "y": 50}
    tldraw = {"scale": 0.5, "x": 40, "y": -20}
    found, notes = interpret_probe(_probe(figma=figma, tldraw=tldraw, generic=[1, 0, 0, 1, 0, 0]))
    assert found.adapter_hint == "figma" and notes == []
    assert found.transform == ExplicitTransform(2, -100, -50, 250, 180)
    found, _ = interpret_probe(_probe(figma={"zoom": 0, "x": 1, "y": 1}, tldraw=tldraw))
    assert found.adapter_hint == "tldraw" and found.transform == ExplicitTransform(0.5, 40, -20, 50, 30)
    found, _ = interpret_probe(_probe(tldraw={"scale": None, "x": 1, "y": 1}, generic=[0, 2, -2, 0, 5, 6]))
    assert found.adapter_hint == "generic" and found.transform == Affine((0, 2, -2, 0, 5, 6), 50, 30)
    assert interpret_probe(_probe(generic=[1, 2, 2, 4, 0, 0]))[0] is None  # singular
    assert interpret_probe(_probe(generic=[1, 0, 0, 1, 0, None]))[0] is None
    assert interpret_probe(_probe())[0] is None
    found, notes = interpret_probe({**_probe(figma=figma), "rect": None})
    assert found.transform.origin_x == 640 and "viewport" in notes[0]


async def test_explicit_mode_is_pure_and_touches_no_page(tmp_path: Path) -> None:
    config = RuntimeConfig.from_env({}, workspace=tmp_path, capabilities="canvas")
    async with open_runtime(config=config, capabilities=["canvas"]) as runtime:
        t = {"scale": 1.5, "panX": 10, "panY": -4, "originX": 100, "originY": 20}
        fwd = await runtime.call_tool("canvas_world_to_screen", {"worldX": 2, "worldY": 6, "transform": t})
        assert fwd == {"ok": True, "screenX": 118.0, "screenY": 23.0}
        back = await runtime.call_tool("canvas_screen_to_world", {"screenX": 118, "screenY": 23, "transform": t,
                                                                  "selector": "canvas"})
        assert (back["worldX"], back["worldY"]) == (2.0, 6.0) and "not used" in back["warnings"][0]
        zero = await runtime.call_tool("canvas_world_to_screen", {"worldX": 0, "worldY": 0,
                                                                  "transform": {**t, "scale": 0}})
        assert zero["code"] == "bad-arg" and zero["field"] == "transform.scale"
        partial = await runtime.call_tool("canvas_world_to_screen", {"worldX": 0, "worldY": 0,
                                                                     "transform": {"scale": 1}})
        assert partial["code"] == "bad-arg" and partial["field"] == "transform.panX"
        assert await runtime.session_ids() == []


async def test_discovery_on_each_app_state_shape(tmp_path: Path) -> None:
    with serve_directory(PAGES) as base:
        config = RuntimeConfig.from_env({}, workspace=tmp_path, capabilities="canvas")
        async with open_runtime(config=config, capabilities=["canvas"]) as runtime:
            expected = {
                # zoom 2 around world (100, 50) at the board's centre (250, 180).
                "figma": ((110, 55), (270.0, 190.0),
                          {"scale": 2.0, "panX": -100.0, "panY": -50.0, "originX": 250.0, "originY": 180.0}),
                # (world + offset) * scale from the board's corner (50, 30).
                "tldraw": ((60, 40), (100.0, 40.0),
                           {"scale": 0.5, "panX": 40.0, "panY": -20.0, "originX": 50.0, "originY": 30.0}),
                # [0 -2; 2 0] * world + (200, 150), from the corner: a quarter turn, doubled.
                "generic": ((10, 5), (240.0, 200.0),
                            {"matrix": [0.0, 2.0, -2.0, 0.0, 200.0, 150.0], "originX": 50.0, "originY": 30.0}),
            }
            for shape, ((wx, wy), (sx, sy), discovered) in expected.items():
                nav = await runtime.call_tool("navigate", {"url": f"{base}/canvas_app.html?shape={shape}"})
                assert nav["ok"], nav
                fwd = await runtime.call_tool("canvas_world_to_screen", {"worldX": wx, "worldY": wy})
                assert fwd == {"ok": True, "screenX": sx, "screenY": sy, "transformDiscovered": discovered,
                               "adapterHint": shape, "warnings": [HEURISTIC_WARNING]}, fwd
                assert fwd["warnings"][0].startswith("discovery probes are HEURISTIC — ")
                back = await runtime.call_tool("canvas_screen_to_world",
                                               {"screenX": sx, "screenY": sy, "selector": "#board"})
                assert back["ok"] and back["adapterHint"] == shape
                assert math.isclose(back["worldX"], wx) and math.isclose(back["worldY"], wy)
                if "scale" in discovered:  # feeds straight back as an explicit transform
                    again = await runtime.call_tool("canvas_world_to_screen",
                                                    {"worldX": wx, "worldY": wy, "transform": discovered})
                    assert (again["screenX"], again["screenY"]) == (sx, sy)

            for shape in ("none", "broken"):
                await runtime.call_tool("navigate", {"url": f"{base}/canvas_app.html?shape={shape}"})
                for tool, args in [("canvas_world_to_screen", {"worldX": 1, "worldY": 1}),
                                   ("canvas_screen_to_world", {"screenX": 1, "screenY": 1})]:
                    failed = await runtime.call_tool(tool, args)
                    assert failed == {"ok": False, "code": "no-transform", "error": NO_TRANSFORM}
            assert NO_TRANSFORM == ("no transform discoverable — pass `transform` explicitly OR use a "
                                    "canvas-app adapter plugin")
            missing = await runtime.call_tool("canvas_world_to_screen", {"worldX": 1, "worldY": 1,
                                                                         "selector": "#nope"})
            assert missing["code"] == "target-not-found"
