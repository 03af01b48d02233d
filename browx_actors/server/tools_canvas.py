"""The canvas tools: declarations plus the thin handlers that pick where work runs.

``canvas_capture`` is a plain session tool. The others are runtime-level handlers
because part of their work must not open or occupy a session:

- ``canvas_diff`` (capability ``read``: pure byte math) runs base64 inputs without any
  session; only ``beforeId`` / ``afterId`` visit the session actor, to fetch captures
  from its cache, and the numpy work then runs outside the actor so the session keeps
  serving;
- ``gesture_chain`` validates the whole program before touching a session and gives
  the session call room for the waits it asked for;
- ``canvas_world_to_screen`` / ``canvas_screen_to_world`` with an explicit transform
  are pure math and never reach the page;
- ``canvas_query`` checks the adapter op's own capability and arguments first.
"""

from __future__ import annotations

import binascii
import math
from typing import Any

import numpy as np
import trio

from ..actor import ToolError
from ..canvas import adapters, capture, diff, gestures, transform
from ..canvas.cache import Capture, cache_of
from .registry import Tool
from .schema import Param

__all__ = ["canvas_tools"]

_RGBA_FORMATS = ("rgba", "2d-imagedata", "webgl-framebuffer")
#: Images up to this many pixels are diffed on the Trio loop: under a millisecond for a
#: small change, about 7 ms when every pixel of 1280x720 changed. Larger ones go to a
#: worker thread, where numpy runs without the GIL and the loop keeps serving.
#: (Base64 decoding stays inline: binascii holds the GIL, so a thread gains nothing;
#: benchmarks/canvas_diff.py measures both.)
_INLINE_DIFF_PIXELS = 1 << 20

# -- canvas_diff ----------------------------------------------------------------------


async def _fetch_captures(session: Any, args: dict[str, Any]) -> dict[str, Capture]:
    """Inside the session actor: the named captures (marked as used)."""
    cache = cache_of(session)
    return {field: cache.get(capture_id, field) for field, capture_id in args["ids"].items()}


def _decode_base64(text: str, field: str) -> bytes:
    try:
        return binascii.a2b_base64(text, strict_mode=True)
    except (binascii.Error, ValueError) as err:
        raise ToolError("bad-arg", f"{field} is not valid base64 ({err})", field=field) from err


async def _canvas_diff(runtime: Any, args: dict[str, Any]) -> dict[str, Any]:
    warnings: list[str] = []
    ids: dict[str, str] = {}
    for side in ("before", "after"):
        b64, cid = args[f"{side}Base64"], args[f"{side}Id"]
        if (b64 is None) == (cid is None):
            raise ToolError("bad-arg", f"give exactly one of {side}Base64, {side}Id",
                            field=f"{side}Id" if cid is not None else f"{side}Base64")
        if cid is not None:
            ids[f"{side}Id"] = cid
    captures: dict[str, Capture] = {}
    if ids:
        if args["session"] not in runtime.session_ids():
            field = next(iter(ids))
            raise ToolError("unknown-capture", f"{field} {ids[field]!r}: no open session {args['session']!r} "
                            "holds captures; ids come from canvas_capture in the same session",
                            field=field, captureId=ids[field])
        captures = await runtime.call_session(args["session"], "canvas_diff", _fetch_captures, {"ids": ids})

    # Each side: (bytes, format, size-or-None), by id or from base64.
    sides: dict[str, tuple[bytes, str, tuple[int, int] | None]] = {}
    for side in ("before", "after"):
        found = captures.get(f"{side}Id")
        if found is not None:
            fmt = "png" if found.is_png else "rgba"
            sides[side] = (found.data, fmt, (found.width, found.height))
        else:
            fmt = "png" if args["inputFormat"] == "png" else "rgba"
            sides[side] = (_decode_base64(args[f"{side}Base64"], f"{side}Base64"), fmt, None)
            await trio.lowlevel.checkpoint()  # let other tasks in between two long decodes

    size = _rgba_size(args, sides, warnings)
    arrays: dict[str, np.ndarray] = {}
    pngs: dict[str, bytes] = {}
    for side, (data, fmt, known) in sides.items():
        if fmt == "png":
            pngs[side] = data
        else:
            width, height = known or size
            arrays[side] = diff.rgba_view(data, width, height, _field(args, side))
    arrays.update(await _decode_pngs(pngs, args))
    before, after = arrays["before"], arrays["after"]
    if before.size <= _INLINE_DIFF_PIXELS:
        result = diff.diff_rgba(before, after, args["region"])
    else:
        result = await trio.to_thread.run_sync(diff.diff_rgba, before, after, args["region"])
    envelope = result.envelope()
    envelope["warnings"] = warnings + envelope["warnings"]
    return envelope


async def _decode_pngs(pngs: dict[str, bytes], args: dict[str, Any]) -> dict[str, np.ndarray]:
    """Decode PNG sides side by side in worker threads (Pillow inflates without the GIL)."""
    decoded: dict[str, np.ndarray] = {}
    errors: dict[str, ToolError] = {}

    async def one(side: str, data: bytes) -> None:
        try:
            decoded[side] = await trio.to_thread.run_sync(diff.decode_png, data, _field(args, side))
        except ToolError as err:
            errors[side] = err

    async with trio.open_nursery() as nursery:
        for side, data in pngs.items():
            nursery.start_soon(one, side, data)
    for side in ("before", "after"):
        if side in errors:
            raise errors[side]
    return decoded


def _field(args: dict[str, Any], side: str) -> str:
    return f"{side}Id" if args[f"{side}Id"] is not None else f"{side}Base64"


def _rgba_size(args: dict[str, Any], sides: dict[str, tuple[bytes, str, tuple[int, int] | None]],
               warnings: list[str]) -> tuple[int, int]:
    """width x height for base64 RGBA sides: the arguments, else the other side's capture."""
    width, height = args["width"], args["height"]
    needs = [s for s, (_, fmt, known) in sides.items() if fmt == "rgba" and known is None]
    known_sizes = [known for _, fmt, known in sides.values() if fmt == "rgba" and known is not None]
    if needs:
        if width is None or height is None:
            if known_sizes and width is None and height is None:
                return known_sizes[0]
            raise ToolError("bad-arg", "RGBA inputs need width and height (the bytes do not carry their "
                            "size); pass both, or use inputFormat png", field="width" if width is None else "height")
        return width, height
    if width is not None or height is not None:
        given = (width, height)
        sized = [known for _, _, known in sides.values() if known is not None]
        if any(fmt == "png" for _, fmt, _ in sides.values()):
            warnings.append("width/height are not used for png inputs: sizes come from the images")
        elif sized and any(given != s for s in sized):
            warnings.append("width/height are not used for captures named by id: they carry their own size")
    return (0, 0)


# -- gesture_chain --------------------------------------------------------------------


async def _run_plan(session: Any, args: dict[str, Any]) -> dict[str, Any]:
    return await session.pw(gestures.run_chain, session.page, args["plan"])


async def _gesture_chain(runtime: Any, args: dict[str, Any]) -> dict[str, Any]:
    from ..runtime import SESSION_CALL_TIMEOUT

    plan = gestures.plan_steps(args["steps"])
    return await runtime.call_session(args["session"], "gesture_chain", _run_plan, {"plan": plan},
                                      timeout=SESSION_CALL_TIMEOUT + plan.planned_ms / 1000)


# -- world <-> screen -----------------------------------------------------------------


async def _discover(session: Any, args: dict[str, Any]) -> tuple[transform.Discovered, list[str]]:
    warnings: list[str] = []
    found = await transform.discover(session, args, warnings)
    return found, warnings


def _point(args: dict[str, Any], keys: tuple[str, str]) -> tuple[float, float]:
    values = []
    for key in keys:
        try:
            value = float(args[key])
        except OverflowError:
            value = math.inf
        if not math.isfinite(value):
            raise ToolError("bad-arg", f"{key} must be a finite number", field=key)
        values.append(value)
    return values[0], values[1]


async def _convert(runtime: Any, args: dict[str, Any], to_screen: bool) -> dict[str, Any]:
    world, screen = ("worldX", "worldY"), ("screenX", "screenY")
    keys, out = (world, screen) if to_screen else (screen, world)
    x, y = _point(args, keys)
    if args["transform"] is not None:
        explicit = transform.explicit_transform(args["transform"])
        warnings = []
        if args.get("ref") is not None or args.get("selector") is not None:
            warnings.append("ref and selector are not used with an explicit transform (no page contact)")
        rx, ry = explicit.to_screen(x, y) if to_screen else explicit.to_world(x, y)
        return {"ok": True, out[0]: rx, out[1]: ry, "warnings": warnings}
    tool = "canvas_world_to_screen" if to_screen else "canvas_screen_to_world"
    found, notes = await runtime.call_session(args["session"], tool, _discover, args)
    rx, ry = found.transform.to_screen(x, y) if to_screen else found.transform.to_world(x, y)
    return {"ok": True, out[0]: rx, out[1]: ry, "transformDiscovered": found.transform.describe(),
            "adapterHint": found.adapter_hint, "warnings": [transform.HEURISTIC_WARNING, *notes]}


async def _world_to_screen(runtime: Any, args: dict[str, Any]) -> dict[str, Any]:
    return await _convert(runtime, args, to_screen=True)


async def _screen_to_world(runtime: Any, args: dict[str, Any]) -> dict[str, Any]:
    return await _convert(runtime, args, to_screen=False)


# -- the declarations -----------------------------------------------------------------

_TRANSFORM = Param(
    "transform", "object",
    "Explicit affine: screenX = (worldX + panX) * scale + originX (same for y). Omit it to "
    "discover the transform from the page's window.app (HEURISTIC).",
    properties={k: {"type": "number"} for k in ("scale", "panX", "panY", "originX", "originY")},
    required_keys=("scale", "panX", "panY"),
)
_CANVAS_REF = Param("ref", "string", "Ref of the <canvas> (from snapshot or find); default: the first canvas.")
_CANVAS_SELECTOR = Param("selector", "string", "Selector of the <canvas> when no ref is at hand.")
_BASE64_NOTE = "base64 of an RGBA buffer (or of a PNG with inputFormat png)"


def canvas_tools() -> list[Tool]:
    # tools.py imports this module; its helpers are complete by the time this runs.
    from .tools import SESSION, session_tool

    C, R = "canvas", "read"
    region = Param("region", "object", "Image rectangle to compare, in pixels; clamped to the image "
                   "(never refused).", properties={k: {"type": "number"} for k in ("x", "y", "w", "h")},
                   required_keys=("x", "y", "w", "h"))
    return [
        session_tool(
            "canvas_capture", C,
            "Read a <canvas> (ref, selector, or the first one): format png (toDataURL) returns "
            "{format, contentBase64, byteLength, width, height}; 2d-imagedata returns RGBA (row-major, "
            "top-left origin) with channelCount 4; webgl-framebuffer reads the WebGL drawing buffer "
            "(flipped to top-left order) with isWebGL true. Every capture also returns captureId, kept "
            f"by the session (the {capture_cache_rule()}) for canvas_diff beforeId/afterId, and box (the "
            "canvas's viewport rectangle in CSS pixels). Refuses: too-large (over 16384x16384), "
            "taint-or-encode / taint-or-read (tainted by cross-origin content), not-a-canvas, "
            "context-mismatch (webgl-framebuffer on a 2D canvas), empty-canvas.",
            capture.capture, _CANVAS_REF, _CANVAS_SELECTOR,
            Param("format", "string", "What to read.", required=True, enum=capture.FORMATS),
            Param("includeContent", "boolean", "Return contentBase64; false returns only captureId and "
                  "the size, for diffs by id without shipping the pixels.", default=True),
        ),
        Tool(
            "canvas_diff", R,
            "Pixel delta of two captures (pure byte math): {changedPixelCount, changedBytes (sum of "
            "absolute per-channel deltas), percentageChanged (of the compared area, 0-100), "
            "bboxOfChanges {x,y,w,h} in image pixels or null, warnings}. Give each side as base64 "
            "(RGBA needs width and height; inputFormat png decodes PNGs and takes their sizes) or as a "
            "captureId of this session (beforeId / afterId), which ships no pixels. Errors: "
            "size-mismatch, unknown-capture, capture-evicted.",
            (Param("beforeBase64", "string", f"Before: {_BASE64_NOTE}."),
             Param("afterBase64", "string", f"After: {_BASE64_NOTE}."),
             Param("beforeId", "string", "Before: a captureId from canvas_capture in this session."),
             Param("afterId", "string", "After: a captureId from canvas_capture in this session."),
             Param("width", "integer", "Image width of base64 RGBA inputs.", minimum=1, maximum=diff.MAX_SIDE),
             Param("height", "integer", "Image height of base64 RGBA inputs.", minimum=1,
                   maximum=diff.MAX_SIDE),
             region,
             Param("inputFormat", "string", "Encoding of the base64 inputs (rgba, or the capture format "
                   "names that mean RGBA; png).", default="rgba", enum=(*_RGBA_FORMATS, "png")),
             SESSION),
            _canvas_diff,
        ),
        Tool(
            "gesture_chain", C,
            "Multi-step pointer program through the mouse pipeline. steps: [{kind, x?, y?, deltaX?, "
            "deltaY?, ms?, pointerId?}]; down/up/move need x and y (viewport CSS pixels); move takes an "
            "optional ms pacing delay (floored at 5 ms with a warning); wait sleeps ms (clamped at 5000 "
            "ms with a warning); wheel needs a non-zero deltaX or deltaY and may move to x, y first. "
            "At most 200 steps (too-many-steps). pointerId is accepted; all steps use the single mouse. "
            "Returns {stepsExecuted, totalDurationMs, warnings}.",
            (Param("steps", "array", "The program, in order.", required=True, items="object"), SESSION),
            _gesture_chain,
        ),
        Tool(
            "canvas_world_to_screen", C,
            "App world coordinates to viewport CSS pixels. With transform: pure math. Without: probes "
            "window.app for app.viewport.{zoom,center} (adapterHint figma), app.scale + app.offset "
            "(tldraw) or app.transform.matrix [a,b,c,d,e,f] (generic), anchored on the canvas, and "
            "returns transformDiscovered, adapterHint and a HEURISTIC warning; no-transform when "
            "nothing matches.",
            (Param("worldX", "number", "World x.", required=True),
             Param("worldY", "number", "World y.", required=True),
             _CANVAS_REF, _CANVAS_SELECTOR, _TRANSFORM, SESSION),
            _world_to_screen,
        ),
        Tool(
            "canvas_screen_to_world", C,
            "Viewport CSS pixels to app world coordinates; the exact inverse of canvas_world_to_screen "
            "under the same transform (explicit, or discovered the same way).",
            (Param("screenX", "number", "Viewport x in CSS pixels.", required=True),
             Param("screenY", "number", "Viewport y in CSS pixels.", required=True),
             _CANVAS_REF, _CANVAS_SELECTOR, _TRANSFORM, SESSION),
            _screen_to_world,
        ),
        Tool(
            "canvas_query", C,
            "Run <adapter>.<op> of a canvas-app adapter plugin (Python entry point group "
            f"{adapters.ENTRY_POINT_GROUP}) with args, in the session. The op's own capability is "
            "enforced as well as canvas. no-adapter (with requestedAdapter, requestedOp and "
            "registeredAdapters) when no plugin has that namespace; unknown-op when it lacks the op.",
            (Param("adapter", "string", "Adapter namespace, e.g. figma.", required=True),
             Param("op", "string", "Operation name.", required=True),
             Param("args", "object", "Arguments for the op."),
             SESSION),
            adapters.canvas_query,
        ),
    ]


def capture_cache_rule() -> str:
    from ..canvas.cache import MAX_BYTES, MAX_ENTRIES

    return (f"{MAX_ENTRIES} most recently used captures, at most {MAX_BYTES // (1024 * 1024)} MiB, "
            "least recently used evicted first")
