"""Screenshots of a native screen: the whole screen, an element or a region, cropped and
scaled with Pillow.

The platform gives a PNG of the whole screen in pixels (Android's ``screencap -p``,
WebDriverAgent's ``/screenshot``). An element capture crops it to the element's bounds
as the hierarchy read for this call reports them (input units times the driver's
``scale``); a region capture crops to the rectangle given, in input units. A capture
larger than ``maxDimension`` on its longest side is scaled down to fit. A capture that
needs neither is handed on as the platform's own bytes, never re-encoded.

:func:`shape_capture` is pure (bytes in, bytes out) so it is tested without a device.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

import attrs
import trio
from PIL import Image

from ...devices.nodes import Rect
from ...errors import ToolError
from ...tools import Reply
from ...tools.page import ScreenshotArgs
from ...workspace import file_to_write, write_file
from .platform import unsupported
from .target import locate_in, on_screen, target_json

if TYPE_CHECKING:
    from .session import NativeSession

__all__ = ["Capture", "screenshot", "shape_capture"]


@attrs.frozen
class Capture:
    data: bytes
    format: str
    width: int
    height: int
    #: Output pixels per screen pixel (1 when not scaled down).
    scale: float


def shape_capture(png: bytes, *, crop: tuple[int, int, int, int] | None, max_dimension: int, fmt: str,
                  quality: int) -> Capture:
    """Crop (left, top, right, bottom in pixels), scale to fit, encode as ``fmt``."""
    with Image.open(io.BytesIO(png)) as opened:
        if crop is None and fmt == "png" and max(opened.size) <= max_dimension:
            return Capture(png, "png", opened.width, opened.height, 1.0)
        image = opened.convert("RGB") if fmt == "jpeg" else opened.copy()
    if crop is not None:
        left, top, right, bottom = crop
        left, top = max(0, left), max(0, top)
        right, bottom = min(image.width, right), min(image.height, bottom)
        if right <= left or bottom <= top:
            raise ToolError("bad-arg", "the area to capture is outside the screen", field="region")
        image = image.crop((left, top, right, bottom))
    scale = min(1.0, max_dimension / max(image.size))
    if scale < 1:
        image = image.resize((max(1, round(image.width * scale)), max(1, round(image.height * scale))),
                             Image.Resampling.LANCZOS)
    out = io.BytesIO()
    if fmt == "jpeg":
        image.save(out, "JPEG", quality=quality)
    else:
        image.save(out, "PNG", compress_level=6)
    return Capture(out.getvalue(), fmt, image.width, image.height, scale)


def _pixels(rect: Rect, scale: float) -> tuple[int, int, int, int]:
    return (round(rect.x * scale), round(rect.y * scale), round((rect.x + rect.width) * scale),
            round((rect.y + rect.height) * scale))


async def screenshot(session: NativeSession, args: ScreenshotArgs, *, jpeg: bool) -> Reply:
    """The screenshot tool; ``jpeg`` says whether the engine encodes JPEG."""
    fmt = args.format
    if fmt == "jpeg" and not jpeg:
        raise unsupported(session.engine, "a JPEG screenshot", "captures are PNG off screencap; take it as png")
    if args.full_page:
        raise unsupported(session.engine, "a full-page screenshot", "a native screen is what it shows; there is "
                          "no page beyond it (scroll, then capture again)")
    # Where it goes is checked first: a path the workspace refuses costs no capture.
    target = file_to_write(session.workspace, args.path) if args.path else None
    reply = Reply(warnings=[])
    crop = None
    driver = session.input
    if args.ref is not None or args.selector is not None:
        hierarchy = await session.read()
        located = locate_in(hierarchy, session.refs, args)
        bounds = located.node.bounds
        if bounds is None or on_screen(bounds, hierarchy.root.bounds).empty:
            raise ToolError("not-visible", f"{located.ref} has no visible box on screen to capture",
                            ref=located.ref)
        crop = _pixels(on_screen(bounds, hierarchy.root.bounds), driver.scale)
        reply["target"] = target_json(located)
    elif args.region is not None:
        r = args.region
        if r["width"] < 1 or r["height"] < 1:
            raise ToolError("bad-arg", "the area to capture is empty", field="region")
        crop = _pixels(Rect(r["x"], r["y"], r["width"], r["height"]), driver.scale)
    png = await driver.screenshot()
    capture = await trio.to_thread.run_sync(
        lambda: shape_capture(png, crop=crop, max_dimension=args.max_dimension, fmt=fmt, quality=args.quality))
    reply.fields.update(format=capture.format, width=capture.width, height=capture.height,
                        byteLength=len(capture.data), scale=round(capture.scale, 4))
    if capture.scale < 1:
        reply.warn(f"scaled by {capture.scale:.3f} so the longest side fits maxDimension={args.max_dimension}")
    if target is not None:
        await trio.to_thread.run_sync(write_file, target, capture.data)
        reply["path"] = str(target)
    reply.attach(f"image/{capture.format}", capture.data)
    return reply
