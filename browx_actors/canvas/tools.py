"""The canvas tools that are not one module's own: canvas_diff and world/screen.

``canvas_capture`` is declared in :mod:`.capture`, ``gesture_chain`` in
:mod:`.gestures` and ``canvas_query`` in :mod:`.adapters`, beside their handlers. The
two here are runtime tools because part of their work must not open or occupy a
session:

- ``canvas_diff`` (capability ``read``: pure byte math) runs base64 inputs without any
  session; only ``beforeId`` / ``afterId`` visit the session actor, to fetch captures
  from its cache, and the numpy work then runs outside the actor so the session keeps
  serving;
- ``canvas_world_to_screen`` / ``canvas_screen_to_world`` with an explicit transform
  are pure math and never reach the page.

``TOOLS`` lists every canvas tool, in the order the reference shows them.
"""

from __future__ import annotations

import binascii
from typing import Any

import numpy as np
import trio

from ..errors import ToolError
from ..tools import SESSION, Args, Check, ExactlyOne, Param, Reply, runtime_tool
from ..tools.context import RuntimeContext
from ..tools.contract import SESSION_CALL_TIMEOUT
from ..tools.params import COORDINATE, MAX_COORDINATE
from . import adapters, capture, diff, gestures, transform
from .cache import Capture, cache_of

__all__ = ["TOOLS"]

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


_BASE64_NOTE = "base64 of an RGBA buffer (or of a PNG with inputFormat png)"
#: A region of an image, in pixels: clamped to the image, so only absurd values are refused.
_PIXELS = {"type": "number", "minimum": -1e9, "maximum": 1e9}


@runtime_tool(
    "canvas_diff", "read",
    "Pixel delta of two captures (pure byte math): {changedPixelCount, changedBytes (sum of absolute per-channel "
    "deltas), percentageChanged (of the compared area, 0-100), bboxOfChanges {x,y,w,h} in image pixels or null, "
    "warnings}. Give each side as base64 (RGBA needs width and height; inputFormat png decodes PNGs and takes "
    "their sizes) or as a captureId of this session (beforeId / afterId), which ships no pixels. Errors: "
    "size-mismatch, unknown-capture, capture-evicted.",
    params=(Param("beforeBase64", "string", f"Before: {_BASE64_NOTE}."),
            Param("afterBase64", "string", f"After: {_BASE64_NOTE}."),
            Param("beforeId", "string", "Before: a captureId from canvas_capture in this session."),
            Param("afterId", "string", "After: a captureId from canvas_capture in this session."),
            Param("width", "integer", "Image width of base64 RGBA inputs.", minimum=1, maximum=diff.MAX_SIDE),
            Param("height", "integer", "Image height of base64 RGBA inputs.", minimum=1, maximum=diff.MAX_SIDE),
            Param("region", "object", "Image rectangle to compare, in pixels; clamped to the image (never refused).",
                  properties={k: _PIXELS for k in ("x", "y", "w", "h")},
                  required_keys=("x", "y", "w", "h")),
            Param("inputFormat", "string", "Encoding of the base64 inputs (rgba, or the capture format names that "
                  "mean RGBA; png).", default="rgba", enum=(*_RGBA_FORMATS, "png")),
            SESSION),
    rules=(ExactlyOne(("beforeBase64", "beforeId")), ExactlyOne(("afterBase64", "afterId"))),
)
async def canvas_diff(runtime: RuntimeContext, args: Args) -> Reply:
    reply = Reply(warnings=[])
    ids = {f"{side}Id": args[f"{side}Id"] for side in ("before", "after") if args[f"{side}Id"] is not None}
    captures: dict[str, Capture] = {}
    if ids:
        if args["session"] not in await runtime.session_ids():
            field = next(iter(ids))
            raise ToolError("unknown-capture", f"{field} {ids[field]!r}: no open session {args['session']!r} "
                            "holds captures; ids come from canvas_capture in the same session",
                            field=field, captureId=ids[field])
        captures = await runtime.call_session(args["session"], "canvas_diff", _fetch_captures, {"ids": ids},
                                              timeout=SESSION_CALL_TIMEOUT)

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

    size = _rgba_size(args, sides, reply)
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
    for warning in envelope.pop("warnings"):
        reply.warn(warning)
    envelope.pop("ok")
    reply.fields.update(envelope)
    return reply


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


def _rgba_size(args: Args, sides: dict[str, tuple[bytes, str, tuple[int, int] | None]],
               reply: Reply) -> tuple[int, int]:
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
            reply.warn("width/height are not used for png inputs: sizes come from the images")
        elif sized and any(given != s for s in sized):
            reply.warn("width/height are not used for captures named by id: they carry their own size")
    return (0, 0)


# -- world <-> screen -----------------------------------------------------------------


async def _discover(session: Any, args: Args) -> tuple[transform.Discovered, list[str]]:
    reply = Reply(warnings=[])
    found = await transform.discover(session, args, reply)
    return found, reply.warnings or []


def _check_transform(args: Args) -> None:
    if args["transform"] is not None:
        transform.explicit_transform(args["transform"])


async def _convert(runtime: RuntimeContext, args: Args, to_screen: bool) -> Reply:
    world, screen = ("worldX", "worldY"), ("screenX", "screenY")
    keys, out = (world, screen) if to_screen else (screen, world)
    x, y = float(args[keys[0]]), float(args[keys[1]])
    if args["transform"] is not None:
        explicit = transform.explicit_transform(args["transform"])
        reply = Reply(warnings=[])
        if args.get("ref") is not None or args.get("selector") is not None:
            reply.warn("ref and selector are not used with an explicit transform (no page contact)")
        rx, ry = explicit.to_screen(x, y) if to_screen else explicit.to_world(x, y)
        reply.fields.update({out[0]: rx, out[1]: ry})
        return reply
    tool = "canvas_world_to_screen" if to_screen else "canvas_screen_to_world"
    found, notes = await runtime.call_session(args["session"], tool, _discover, args, timeout=SESSION_CALL_TIMEOUT)
    rx, ry = found.transform.to_screen(x, y) if to_screen else found.transform.to_world(x, y)
    return Reply.of(**{out[0]: rx, out[1]: ry}, transformDiscovered=found.transform.describe(),
                    adapterHint=found.adapter_hint, warnings=[transform.HEURISTIC_WARNING, *notes])


# -- world <-> screen declarations ----------------------------------------------------

#: World coordinates are the app's own: far larger than screen pixels, still finite.
MAX_WORLD = 1e12
_WORLD = {"type": "number", "minimum": -MAX_WORLD, "maximum": MAX_WORLD}
_TRANSFORM = Param(
    "transform", "object",
    "Explicit affine: screenX = (worldX + panX) * scale + originX (same for y). Omit it to "
    "discover the transform from the page's window.app (HEURISTIC).",
    properties={"scale": {"type": "number", "minimum": -1e6, "maximum": 1e6}, "panX": _WORLD, "panY": _WORLD,
                "originX": COORDINATE, "originY": COORDINATE},
    required_keys=("scale", "panX", "panY"),
)
_TRANSFORM_RULE = Check(_check_transform, "an explicit `transform` has a non-zero scale")


@runtime_tool(
    "canvas_world_to_screen", "canvas",
    "App world coordinates to viewport CSS pixels. With transform: pure math. Without: probes window.app for "
    "app.viewport.{zoom,center} (adapterHint figma), app.scale + app.offset (tldraw) or app.transform.matrix "
    "[a,b,c,d,e,f] (generic), anchored on the canvas, and returns transformDiscovered, adapterHint and a HEURISTIC "
    "warning; no-transform when nothing matches.",
    params=(Param("worldX", "number", "World x.", required=True, minimum=-MAX_WORLD, maximum=MAX_WORLD),
            Param("worldY", "number", "World y.", required=True, minimum=-MAX_WORLD, maximum=MAX_WORLD),
            capture.CANVAS_REF, capture.CANVAS_SELECTOR, _TRANSFORM, SESSION),
    rules=(_TRANSFORM_RULE,),
)
async def canvas_world_to_screen(runtime: RuntimeContext, args: Args) -> Reply:
    return await _convert(runtime, args, to_screen=True)


@runtime_tool(
    "canvas_screen_to_world", "canvas",
    "Viewport CSS pixels to app world coordinates; the exact inverse of canvas_world_to_screen under the same "
    "transform (explicit, or discovered the same way).",
    params=(Param("screenX", "number", "Viewport x in CSS pixels.", required=True, minimum=-MAX_COORDINATE,
                  maximum=MAX_COORDINATE),
            Param("screenY", "number", "Viewport y in CSS pixels.", required=True, minimum=-MAX_COORDINATE,
                  maximum=MAX_COORDINATE),
            capture.CANVAS_REF, capture.CANVAS_SELECTOR, _TRANSFORM, SESSION),
    rules=(_TRANSFORM_RULE,),
)
async def canvas_screen_to_world(runtime: RuntimeContext, args: Args) -> Reply:
    return await _convert(runtime, args, to_screen=False)


TOOLS = [capture.canvas_capture, canvas_diff, gestures.gesture_chain, canvas_world_to_screen,
         canvas_screen_to_world, adapters.canvas_query]
