"""Screenshots of a native screen: the whole screen, an element or a region, cropped and
scaled with Pillow.

The platform gives a PNG of the whole screen in pixels (Android's ``screencap -p``,
WebDriverAgent's ``/screenshot``). An element capture crops it to the element's bounds
as the hierarchy read for this call reports them (input units times the driver's
``scale``); a region capture crops to the rectangle given, in input units. A capture
larger than ``maxDimension`` on its longest side is scaled down to fit. A capture that
needs neither is handed on as the platform's own bytes, never re-encoded, once its
chunks are checked whole (Pillow's ``verify``: no decode).

A PNG Pillow cannot read (``screencap -p`` cut short or printing garbage after the
signature, a WebDriverAgent that sent a broken image) is the platform tool's failure,
answered with that tool's code (:data:`BROKEN_CAPTURE`: ``adb-failed`` on Android,
``wda-error`` on iOS), never as the server's bug.

:func:`shape_capture` is pure (bytes in, bytes out) so it is tested without a device.
"""

from __future__ import annotations

import io
import struct
from typing import TYPE_CHECKING

import attrs
import trio
from PIL import Image, UnidentifiedImageError

from ...devices.nodes import Rect
from ...errors import ToolError
from ...tools import Reply
from ...tools.page import ScreenshotArgs
from ...workspace import file_to_write, save_file
from .platform import unsupported
from .target import locate_in, on_screen, target_json

if TYPE_CHECKING:
    from .session import NativeSession

__all__ = ["BROKEN_CAPTURE", "Capture", "UnreadablePng", "broken_capture", "screenshot", "shape_capture"]

#: What Pillow raises for bytes it cannot read as an image: not one (UnidentifiedImageError
#: is an OSError), cut short (OSError, EOFError), a broken chunk (SyntaxError, struct.error,
#: ValueError), or a header that claims an absurd size.
_UNREADABLE = (OSError, EOFError, SyntaxError, ValueError, struct.error, Image.DecompressionBombError)

#: Per platform: the code and the words for a screenshot its tool sent that no decoder
#: reads, with the details that code carries.
BROKEN_CAPTURE: dict[str, tuple[str, str, dict[str, object]]] = {
    "android": ("adb-failed", "screencap -p printed a PNG that cannot be read", {"exitCode": None}),
    "ios": ("wda-error", "WebDriverAgent sent a screenshot that cannot be read as a PNG",
            {"command": "GET /screenshot"}),
}


class UnreadablePng(ValueError):
    """The platform's screenshot is not a PNG Pillow can read; ``why`` says how, briefly."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


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
    """Crop (left, top, right, bottom in pixels), scale to fit, encode as ``fmt``;
    :class:`UnreadablePng` when ``png`` is not a PNG that can be read whole."""
    try:
        return _shape(png, crop=crop, max_dimension=max_dimension, fmt=fmt, quality=quality)
    except UnidentifiedImageError as err:
        raise UnreadablePng("no image format starts that way") from err
    except _UNREADABLE as err:
        raise UnreadablePng(_first_line(err)) from err


def _first_line(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[0][:200] if text else type(err).__name__


def _shape(png: bytes, *, crop: tuple[int, int, int, int] | None, max_dimension: int, fmt: str,
           quality: int) -> Capture:
    with Image.open(io.BytesIO(png)) as opened:
        if crop is None and fmt == "png" and max(opened.size) <= max_dimension:
            width, height = opened.size
            opened.verify()  # every chunk there and whole: a cut file is refused, not handed on
            return Capture(png, "png", width, height, 1.0)
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
    try:
        capture = await trio.to_thread.run_sync(
            lambda: shape_capture(png, crop=crop, max_dimension=args.max_dimension, fmt=fmt, quality=args.quality))
    except UnreadablePng as err:
        raise broken_capture(session.platform, err.why) from err
    reply.fields.update(format=capture.format, width=capture.width, height=capture.height,
                        byteLength=len(capture.data), scale=round(capture.scale, 4))
    if capture.scale < 1:
        reply.warn(f"scaled by {capture.scale:.3f} so the longest side fits maxDimension={args.max_dimension}")
    if target is not None:
        await save_file(target, capture.data)
        reply["path"] = str(target)
    reply.attach(f"image/{capture.format}", capture.data)
    return reply


def broken_capture(platform: str, why: str) -> ToolError:
    """The refusal for a screenshot of ``platform`` that cannot be read (:data:`BROKEN_CAPTURE`)."""
    code, words, details = BROKEN_CAPTURE.get(
        platform, ("unavailable", "the screenshot cannot be read as a PNG", {"component": f"{platform} screenshots"}))
    return ToolError(code, f"{words}: {why}", **details)
