"""Pixel deltas between two RGBA images, in numpy, with no I/O.

``canvas_diff`` answers "did anything change, where, and how much" for captures of a
1280x720 canvas (3.7 MB each) and larger, so it is written to stay near the cost of
reading both buffers once:

1. one vectorised compare of the images as ``uint32`` pixels (4 bytes per compare,
   no widening), restricted to the region by a strided view, gives the changed mask;
2. ``count_nonzero`` and two ``any`` reductions of that mask give the count and the
   tight bounding box;
3. per-channel absolute deltas are computed only inside that box, with
   ``max - min`` in ``uint8`` (no overflow, no ``int16`` copies), and summed as
   ``uint64``. Unchanged pixels inside the box add zero, so the sum is exact.

A small stroke therefore costs one compare pass plus work proportional to its box.

Decoding the inputs (base64, PNG) is not done here: :func:`rgba_view` and
:func:`decode_png` turn bytes into the ``(height, width)`` ``uint32`` views this
module works on, and the tool layer decides which thread runs them.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Mapping

import attrs
import numpy as np

from ..errors import ToolError
from ..jsonsafe import JsonObject, JsonValue

__all__ = ["DiffResult", "Region", "clamp_region", "decode_png", "diff_rgba", "rgba_view"]

#: The largest image side canvas_diff accepts, the same cap as canvas_capture.
MAX_SIDE = 16384


@attrs.frozen
class Region:
    """A pixel rectangle ``[x0, x1) x [y0, y1)`` inside an image (possibly empty)."""

    x0: int
    y0: int
    x1: int
    y1: int

    @property
    def area(self) -> int:
        return max(0, self.x1 - self.x0) * max(0, self.y1 - self.y0)


@attrs.frozen
class DiffResult:
    changed_pixels: int
    changed_bytes: int
    percentage: float
    bbox: dict[str, int] | None
    warnings: tuple[str, ...] = ()

    def envelope(self) -> JsonObject:
        return {
            "ok": True,
            "changedPixelCount": self.changed_pixels,
            "changedBytes": self.changed_bytes,
            "percentageChanged": self.percentage,
            "bboxOfChanges": self.bbox,
            "warnings": list(self.warnings),
        }


def _bound(value: float, low: int, high: int) -> int:
    """``value`` limited to ``[low, high]``; NaN counts as ``low``."""
    if value != value:  # NaN
        return low
    if value <= low:
        return low
    if value >= high:
        return high
    return int(value)


def clamp_region(region: Mapping[str, JsonValue] | None, width: int, height: int) -> tuple[Region, list[str]]:
    """The part of ``region`` inside a ``width x height`` image, and warnings; never raises.

    Fractional edges widen to whole pixels (floor the start, ceil the end), so a
    region always covers every pixel it touches. A region that overflows the image is
    clipped with a warning; one that misses it entirely (or has no area) compares
    nothing, also with a warning.
    """
    whole = Region(0, 0, width, height)
    if region is None:
        return whole, []
    x, y, w, h = (_as_float(region[k]) for k in ("x", "y", "w", "h"))
    start_x, start_y = _edge(x, math.floor), _edge(y, math.floor)
    end_x, end_y = _edge(x + w, math.ceil), _edge(y + h, math.ceil)
    clamped = Region(
        _bound(start_x, 0, width), _bound(start_y, 0, height),
        _bound(end_x, 0, width), _bound(end_y, 0, height),
    )
    asked = (x, y, w, h)
    if not (w > 0 and h > 0) or clamped.area == 0:
        return Region(0, 0, 0, 0), [
            f"region {_fmt(asked)} has no pixels inside the {width}x{height} image; nothing was compared"
        ]
    exact = (start_x, start_y, end_x, end_y) == (clamped.x0, clamped.y0, clamped.x1, clamped.y1)
    if exact:
        return clamped, []
    return clamped, [
        f"region {_fmt(asked)} was clamped to the {width}x{height} image: "
        f"x={clamped.x0}, y={clamped.y0}, w={clamped.x1 - clamped.x0}, h={clamped.y1 - clamped.y0}"
    ]


def _as_float(value: float) -> float:
    """JSON integers can exceed a float; those are infinitely far for clamping purposes."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def _edge(value: float, rounding: Callable[[float], float]) -> float:
    """Whole-pixel edge; infinities (and NaN) pass through for :func:`_bound` to clamp."""
    return rounding(value) if math.isfinite(value) else value


def _fmt(values: tuple[float, float, float, float]) -> str:
    return "x={:g}, y={:g}, w={:g}, h={:g}".format(*values)


def rgba_view(data: bytes | bytearray | memoryview | np.ndarray, width: int, height: int,
              field: str) -> np.ndarray:
    """``data`` as a ``(height, width)`` array of ``uint32`` pixels, without copying.

    The length must be exactly ``width * height * 4``; otherwise ``bad-arg`` names
    ``field`` and both numbers, because a wrong size is the usual sign of swapped or
    stale dimensions.
    """
    buf = data if isinstance(data, np.ndarray) else np.frombuffer(data, dtype=np.uint8)
    expected = width * height * 4
    if buf.size != expected:
        raise ToolError(
            "bad-arg",
            f"{field} holds {buf.size} bytes, but width*height*4 = {width}*{height}*4 = {expected}; "
            "pass the width and height of the capture it came from",
            field=field,
        )
    return buf.reshape(-1).view(np.uint32).reshape(height, width)


def decode_png(data: bytes, field: str) -> np.ndarray:
    """A PNG's pixels as a ``(height, width)`` ``uint32`` RGBA view (Pillow).

    Any colour mode is converted to RGBA first, so a palette or RGB PNG diffs the same
    as the canvas it shows. Runs in a worker thread at the call site: Pillow releases
    the GIL while it inflates.
    """
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as image:
            width, height = image.size
            if width > MAX_SIDE or height > MAX_SIDE:
                raise ToolError("too-large", f"{field} is a {width}x{height} PNG, larger than "
                                f"{MAX_SIDE}x{MAX_SIDE}", field=field)
            rgba = image.convert("RGBA") if image.mode != "RGBA" else image
            rgba.load()
            pixels = np.asarray(rgba, dtype=np.uint8)
    except ToolError:
        raise
    except Image.DecompressionBombError as err:
        raise ToolError("too-large", f"{field}: {err}", field=field) from err
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as err:
        raise ToolError("bad-arg", f"{field} is not a readable PNG: {err}", field=field) from err
    return np.ascontiguousarray(pixels).reshape(-1).view(np.uint32).reshape(height, width)


def diff_rgba(before: np.ndarray, after: np.ndarray, region: Mapping[str, JsonValue] | None = None
              ) -> DiffResult:
    """Compare two ``(height, width)`` ``uint32`` RGBA views (see :func:`rgba_view`).

    Sizes must agree (``size-mismatch`` otherwise). ``region`` is ``{x, y, w, h}`` in
    image pixels and is clamped, never refused. ``percentageChanged`` is relative to
    the compared area and rounded to four decimals; the bounding box is in image
    coordinates.
    """
    if before.shape != after.shape:
        (bh, bw), (ah, aw) = before.shape, after.shape
        raise ToolError(
            "size-mismatch",
            f"the images differ in size: before is {bw}x{bh}, after is {aw}x{ah}; "
            "canvas_diff compares images of one size (capture the same canvas twice)",
            beforeSize={"width": bw, "height": bh}, afterSize={"width": aw, "height": ah},
        )
    height, width = before.shape
    box, warnings = clamp_region(region, width, height)
    if box.area == 0:
        return DiffResult(0, 0, 0.0, None, tuple(warnings))
    b = before[box.y0:box.y1, box.x0:box.x1]
    a = after[box.y0:box.y1, box.x0:box.x1]
    changed = b != a
    count = int(np.count_nonzero(changed))
    if count == 0:
        return DiffResult(0, 0, 0.0, None, tuple(warnings))
    rows = np.flatnonzero(changed.any(axis=1))
    cols = np.flatnonzero(changed.any(axis=0))
    y0, y1, x0, x1 = int(rows[0]), int(rows[-1]) + 1, int(cols[0]), int(cols[-1]) + 1
    # Per-channel deltas inside the tight box only: uint32 pixels viewed as uint8 channels.
    bb = b[y0:y1, x0:x1].view(np.uint8)
    ab = a[y0:y1, x0:x1].view(np.uint8)
    changed_bytes = int((np.maximum(bb, ab) - np.minimum(bb, ab)).sum(dtype=np.uint64))
    bbox = {"x": box.x0 + x0, "y": box.y0 + y0, "w": x1 - x0, "h": y1 - y0}
    return DiffResult(count, changed_bytes, round(100.0 * count / box.area, 4), bbox, tuple(warnings))
