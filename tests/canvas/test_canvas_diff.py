"""canvas_diff math (against a plain per-pixel reference), region clamping, the capture
cache's bounds, and the tool through the dispatch path (no browser: base64 inputs
never open a session)."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from PIL import Image

from browx_actors import RuntimeConfig, open_runtime
from browx_actors.canvas.cache import CaptureCache
from browx_actors.canvas.diff import clamp_region, diff_rgba, rgba_view
from browx_actors.errors import ToolError


def _reference(before: np.ndarray, after: np.ndarray, x0: int, y0: int, x1: int, y1: int) -> dict:
    """The definition, spelled out pixel by pixel on int arrays."""
    b = before[y0:y1, x0:x1].astype(np.int64)
    a = after[y0:y1, x0:x1].astype(np.int64)
    changed = (b != a).any(axis=2)
    count = int(changed.sum())
    if count == 0:
        return {"count": 0, "bytes": 0, "bbox": None}
    ys, xs = np.nonzero(changed)
    return {"count": count, "bytes": int(np.abs(b - a).sum()),
            "bbox": {"x": x0 + int(xs.min()), "y": y0 + int(ys.min()),
                     "w": int(xs.max() - xs.min()) + 1, "h": int(ys.max() - ys.min()) + 1}}


def _view(pixels: np.ndarray) -> np.ndarray:
    height, width, _ = pixels.shape
    return rgba_view(np.ascontiguousarray(pixels).tobytes(), width, height, "x")


@st.composite
def image_pairs(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    height = draw(st.integers(1, 12))
    width = draw(st.integers(1, 12))
    before = draw(hnp.arrays(np.uint8, (height, width, 4)))
    mask = draw(hnp.arrays(np.bool_, (height, width, 4)))
    noise = draw(hnp.arrays(np.uint8, (height, width, 4)))
    after = np.where(mask, noise, before).astype(np.uint8)
    return before, after


@settings(max_examples=300, deadline=None)
@given(image_pairs(), st.none() | st.tuples(*[st.integers(-20, 30)] * 4))
def test_diff_matches_the_per_pixel_definition(pair: tuple[np.ndarray, np.ndarray], rect) -> None:
    before, after = pair
    height, width, _ = before.shape
    region = None if rect is None else dict(zip("xywh", rect, strict=True))
    result = diff_rgba(_view(before), _view(after), region)
    box, _ = clamp_region(region, width, height)
    ref = _reference(before, after, box.x0, box.y0, box.x1, box.y1)
    assert result.changed_pixels == ref["count"]
    assert result.changed_bytes == ref["bytes"]
    assert result.bbox == ref["bbox"]
    expected_pct = 0.0 if box.area == 0 else round(100 * ref["count"] / box.area, 4)
    assert result.percentage == expected_pct


def test_a_stroke_reports_its_box_and_nothing_changed_is_null() -> None:
    before = np.zeros((720, 1280, 4), np.uint8)
    after = before.copy()
    after[80:140, 210:330] = (255, 0, 0, 255)
    result = diff_rgba(_view(before), _view(after)).envelope()
    assert result == {"ok": True, "changedPixelCount": 60 * 120, "changedBytes": 60 * 120 * 510,
                      "percentageChanged": round(100 * 7200 / 921600, 4),
                      "bboxOfChanges": {"x": 210, "y": 80, "w": 120, "h": 60}, "warnings": []}
    same = diff_rgba(_view(before), _view(before.copy())).envelope()
    assert same["changedPixelCount"] == 0 and same["bboxOfChanges"] is None and same["changedBytes"] == 0


@given(st.fixed_dictionaries({k: st.floats(allow_nan=True, allow_infinity=True) | st.integers(-10**400, 10**400)
                              for k in "xywh"}),
       st.integers(1, 50), st.integers(1, 50))
def test_regions_clamp_and_never_throw(region: dict, width: int, height: int) -> None:
    box, warnings = clamp_region(region, width, height)
    assert 0 <= box.x0 <= box.x1 <= width and 0 <= box.y0 <= box.y1 <= height
    assert all(isinstance(w, str) for w in warnings)


def test_region_clamp_warnings() -> None:
    box, warnings = clamp_region({"x": -5, "y": 2, "w": 20, "h": 3}, 10, 10)
    assert (box.x0, box.y0, box.x1, box.y1) == (0, 2, 10, 5)
    assert "clamped" in warnings[0]
    box, warnings = clamp_region({"x": 50, "y": 50, "w": 5, "h": 5}, 10, 10)
    assert box.area == 0 and "nothing was compared" in warnings[0]
    assert clamp_region({"x": 1.5, "y": 1, "w": 2, "h": 2}, 10, 10) == (
        clamp_region({"x": 1, "y": 1, "w": 3, "h": 2}, 10, 10)[0], [])


def test_wrong_sizes_are_clear_errors() -> None:
    with pytest.raises(ToolError) as caught:
        rgba_view(b"\x00" * 12, 2, 2, "beforeBase64")
    assert caught.value.code == "bad-arg" and caught.value.details["field"] == "beforeBase64"
    assert "12 bytes" in caught.value.message and "2*2*4 = 16" in caught.value.message
    with pytest.raises(ToolError) as caught:
        diff_rgba(rgba_view(b"\x00" * 16, 2, 2, "a"), rgba_view(b"\x00" * 16, 4, 1, "b"))
    assert caught.value.code == "size-mismatch" and "2x2" in caught.value.message


# -- the capture cache ----------------------------------------------------------------


def test_cache_is_lru_by_count() -> None:
    cache = CaptureCache(max_entries=3, max_bytes=1000)
    ids = [cache.put("2d-imagedata", 1, 1, b"abcd").id for _ in range(3)]
    cache.get(ids[0], "beforeId")  # used: now the most recent
    fourth = cache.put("png", 1, 1, b"png!").id
    assert len(cache) == 3
    assert cache.get(ids[0], "beforeId").data == b"abcd"
    assert cache.get(fourth, "afterId").format == "png"
    with pytest.raises(ToolError) as caught:
        cache.get(ids[1], "beforeId")
    assert caught.value.code == "capture-evicted" and caught.value.details["captureId"] == ids[1]
    assert "3 most recently used" in caught.value.message


def test_cache_is_bounded_by_bytes_and_refuses_a_capture_larger_than_the_cap() -> None:
    cache = CaptureCache(max_entries=10, max_bytes=100)
    first = cache.put("2d-imagedata", 5, 1, b"x" * 60)
    second = cache.put("2d-imagedata", 5, 1, b"y" * 60)
    assert cache.bytes == 60 and len(cache) == 1 and cache.get(second.id, "afterId")
    with pytest.raises(ToolError):
        cache.get(first.id, "beforeId")
    assert cache.put("2d-imagedata", 1, 1, b"z" * 101) is None
    assert cache.stats()["evicted"] == 1


def test_ids_from_elsewhere_are_unknown_not_evicted() -> None:
    mine, other = CaptureCache(), CaptureCache()
    foreign = other.put("png", 1, 1, b"p").id
    for bogus in (foreign, "cap-zzz-1", "nope", "cap-" + foreign.split("-")[1] + "-99"):
        with pytest.raises(ToolError) as caught:
            mine.get(bogus, "beforeId")
        assert caught.value.code == "unknown-capture"


# -- the tool through the dispatch path -----------------------------------------------


def _png(pixels: np.ndarray, mode: str = "RGBA") -> str:
    out = io.BytesIO()
    Image.fromarray(pixels, "RGBA").convert(mode).save(out, "PNG")
    return base64.b64encode(out.getvalue()).decode()


def _b64(pixels: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(pixels).tobytes()).decode()


async def test_canvas_diff_rides_read_and_needs_no_session(tmp_path: Path) -> None:
    before = np.zeros((20, 30, 4), np.uint8)
    after = before.copy()
    after[5:7, 10:14] = (1, 2, 3, 4)
    config = RuntimeConfig.from_env({}, workspace=tmp_path)  # canvas off: diff is read
    async with open_runtime(config=config) as runtime:
        result = await runtime.call_tool("canvas_diff", {
            "beforeBase64": _b64(before), "afterBase64": _b64(after), "width": 30, "height": 20})
        assert result == {"ok": True, "changedPixelCount": 8, "changedBytes": 80,
                          "percentageChanged": round(800 / 600, 4),
                          "bboxOfChanges": {"x": 10, "y": 5, "w": 4, "h": 2}}
        assert await runtime.session_ids() == []

        clipped = await runtime.call_tool("canvas_diff", {
            "beforeBase64": _b64(before), "afterBase64": _b64(after), "width": 30, "height": 20,
            "region": {"x": 12, "y": -100, "w": 1000, "h": 106}})
        assert clipped["changedPixelCount"] == 2 and clipped["bboxOfChanges"] == {"x": 12, "y": 5, "w": 2, "h": 1}
        assert "clamped" in clipped["warnings"][0]

        # PNG inputs: decoded and diffed per pixel, sizes from the images (any colour mode).
        opaque = before.copy()
        opaque[..., 3] = 255
        changed = opaque.copy()
        changed[0, 0] = (200, 0, 0, 255)
        png = await runtime.call_tool("canvas_diff", {
            "beforeBase64": _png(opaque, "RGB"), "afterBase64": _png(changed), "inputFormat": "png"})
        assert png["changedPixelCount"] == 1 and png["changedBytes"] == 200
        assert png["bboxOfChanges"] == {"x": 0, "y": 0, "w": 1, "h": 1}

        refusals = [
            ({"beforeBase64": _b64(before), "afterBase64": _b64(after)}, "bad-arg", "width"),
            ({"beforeBase64": _b64(before), "afterBase64": _b64(after), "width": 30, "height": 21},
             "bad-arg", "beforeBase64"),
            ({"beforeBase64": "***", "afterBase64": _b64(after), "width": 30, "height": 20},
             "bad-arg", "beforeBase64"),
            ({"afterBase64": _b64(after), "width": 30, "height": 20}, "bad-arg", "beforeBase64"),
            ({"beforeBase64": _b64(before), "beforeId": "cap-1", "afterBase64": _b64(after)},
             "bad-arg", "beforeId"),
            ({"beforeBase64": _png(opaque), "afterBase64": _png(opaque[:5]), "inputFormat": "png"},
             "size-mismatch", None),
            ({"beforeBase64": _b64(before), "afterBase64": _b64(after), "inputFormat": "png"},
             "bad-arg", "beforeBase64"),
            ({"beforeId": "cap-abc-1", "afterId": "cap-abc-2"}, "unknown-capture", "beforeId"),
        ]
        for args, code, field in refusals:
            result = await runtime.call_tool("canvas_diff", args)
            assert result["ok"] is False and result["code"] == code, (args.keys(), result)
            if field is not None:
                assert result["field"] == field, result
        assert await runtime.session_ids() == []


async def test_large_images_diff_off_the_loop_with_the_same_answer(tmp_path: Path) -> None:
    before = np.zeros((1000, 1100, 4), np.uint8)  # 1.1 megapixels: above the inline limit
    after = before.copy()
    after[990:, 1090:] = 7
    async with open_runtime(config=RuntimeConfig.from_env({}, workspace=tmp_path)) as runtime:
        result = await runtime.call_tool("canvas_diff", {
            "beforeBase64": _b64(before), "afterBase64": _b64(after), "width": 1100, "height": 1000})
    assert result["changedPixelCount"] == 100 and result["changedBytes"] == 100 * 4 * 7
    assert result["bboxOfChanges"] == {"x": 1090, "y": 990, "w": 10, "h": 10}
