"""The canvas tools that run in the runtime: canvas_diff and world/screen.

Every canvas tool is declared in ``tools/canvas.py``. ``canvas_capture`` runs inside a
chromium session (``sessions/chromium/page/canvas.py``), ``gesture_chain`` there too
(``sessions/chromium/input/chain.py``), and ``canvas_query`` is ``canvas/adapters.py``. The three here
are runtime tools because part of their work must not open or occupy a session:

- ``canvas_diff`` (capability ``read``: pure byte math) runs base64 inputs without any
  session; only ``beforeId`` / ``afterId`` visit the session actor, to fetch captures
  from its cache, and the numpy work then runs outside the actor so the session keeps
  serving;
- ``canvas_world_to_screen`` / ``canvas_screen_to_world`` with an explicit transform
  are pure math and never reach the page; without one they run the discovery probe
  inside the session.
"""

from __future__ import annotations

import binascii

import numpy as np
import trio

from ..canvas import diff, transform
from ..canvas.cache import Capture, CaptureCache
from ..errors import ToolError
from ..sessions.chromium.page.canvas import discover
from ..sessions.chromium.session import ChromiumSession
from ..sessions.firefox.page.canvas import discover as firefox_discover
from ..sessions.firefox.session import FirefoxSession
from ..sessions.session import Session
from ..tools import Reply
from ..tools.canvas import CanvasDiffArgs, CanvasScreenToWorldArgs, CanvasWorldToScreenArgs
from ..tools.context import RuntimeContext
from ..tools.contract import SESSION_CALL_TIMEOUT
from ..tools.targets import Element

__all__ = []

_RGBA_FORMATS = ("rgba", "2d-imagedata", "webgl-framebuffer")
#: Images up to this many pixels are diffed on the Trio loop: under a millisecond for a
#: small change, about 7 ms when every pixel of 1280x720 changed. Larger ones go to a
#: worker thread, where numpy runs without the GIL and the loop keeps serving.
#: (Base64 decoding stays inline: binascii holds the GIL, so a thread gains nothing;
#: benchmarks/canvas_diff.py measures both.)
_INLINE_DIFF_PIXELS = 1 << 20

# -- canvas_diff ----------------------------------------------------------------------

#: Each side's data: (bytes, format, size-or-None), by id or from base64.
Side = tuple[bytes, str, tuple[int, int] | None]


async def _fetch_captures(session: Session, ids: dict[str, str]) -> dict[str, Capture]:
    """Inside the session actor: the captures ``ids`` names (field -> id), marked as used.
    Only a browser session holds captures (canvas_capture runs there)."""
    cache = getattr(session, "canvas_cache", None)  # only the browser engines hold captures
    if not isinstance(cache, CaptureCache):
        field, capture_id = next(iter(ids.items()))
        raise ToolError("unknown-capture", f"{field} {capture_id!r}: a {session.engine} session holds no canvas "
                        "captures; ids come from canvas_capture in a browser session", field=field,
                        captureId=capture_id)
    return {field: cache.get(capture_id, field) for field, capture_id in ids.items()}


def _decode_base64(text: str, field: str) -> bytes:
    try:
        return binascii.a2b_base64(text, strict_mode=True)
    except (binascii.Error, ValueError) as err:
        raise ToolError("bad-arg", f"{field} is not valid base64 ({err})", field=field) from err


async def canvas_diff(runtime: RuntimeContext, args: CanvasDiffArgs) -> Reply:
    reply = Reply(warnings=[])
    # Each side, by its argument names: a captureId or base64 (the rules gave exactly one).
    given = {"before": (args.before_id, args.before_base64), "after": (args.after_id, args.after_base64)}
    ids = {f"{side}Id": capture_id for side, (capture_id, _) in given.items() if capture_id is not None}
    fields = {side: f"{side}Id" if capture_id is not None else f"{side}Base64"
              for side, (capture_id, _) in given.items()}
    captures: dict[str, Capture] = {}
    if ids:
        if args.session not in await runtime.session_ids():
            field = next(iter(ids))
            raise ToolError("unknown-capture", f"{field} {ids[field]!r}: no open session {args.session!r} "
                            "holds captures; ids come from canvas_capture in the same session",
                            field=field, captureId=ids[field])
        captures = await runtime.call_session(args.session, "canvas_diff", _fetch_captures, ids,
                                              timeout=SESSION_CALL_TIMEOUT)

    sides: dict[str, Side] = {}
    for side, (_, encoded) in given.items():
        found = captures.get(f"{side}Id")
        if found is not None:
            fmt = "png" if found.is_png else "rgba"
            sides[side] = (found.data, fmt, (found.width, found.height))
        else:
            assert encoded is not None  # the rules: a side without an id has its base64
            fmt = "png" if args.input_format == "png" else "rgba"
            sides[side] = (_decode_base64(encoded, f"{side}Base64"), fmt, None)
            await trio.lowlevel.checkpoint()  # let other tasks in between two long decodes

    size = _rgba_size(args.width, args.height, sides, reply)
    arrays: dict[str, np.ndarray] = {}
    pngs: dict[str, bytes] = {}
    for side, (data, fmt, known) in sides.items():
        if fmt == "png":
            pngs[side] = data
        else:
            width, height = known or size
            arrays[side] = diff.rgba_view(data, width, height, fields[side])
    arrays.update(await _decode_pngs(pngs, fields))
    before, after = arrays["before"], arrays["after"]
    if before.size <= _INLINE_DIFF_PIXELS:
        result = diff.diff_rgba(before, after, args.region)
    else:
        result = await trio.to_thread.run_sync(diff.diff_rgba, before, after, args.region)
    envelope = result.envelope()
    for warning in envelope.pop("warnings"):
        reply.warn(warning)
    envelope.pop("ok")
    reply.fields.update(envelope)
    return reply


async def _decode_pngs(pngs: dict[str, bytes], fields: dict[str, str]) -> dict[str, np.ndarray]:
    """Decode PNG sides side by side in worker threads (Pillow inflates without the GIL);
    an error names the side's argument (``fields``: side -> its argument's name)."""
    decoded: dict[str, np.ndarray] = {}
    errors: dict[str, ToolError] = {}

    async def one(side: str, data: bytes) -> None:
        try:
            decoded[side] = await trio.to_thread.run_sync(diff.decode_png, data, fields[side])
        except ToolError as err:
            errors[side] = err

    async with trio.open_nursery() as nursery:
        for side, data in pngs.items():
            nursery.start_soon(one, side, data)
    for side in ("before", "after"):
        if side in errors:
            raise errors[side]
    return decoded


def _rgba_size(width: int | None, height: int | None, sides: dict[str, Side], reply: Reply) -> tuple[int, int]:
    """width x height for base64 RGBA sides: the arguments, else the other side's capture."""
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

Convert = CanvasWorldToScreenArgs | CanvasScreenToWorldArgs


async def _discover(session: Session, canvas: Element) -> tuple[transform.Discovered, list[str]]:
    reply = Reply(warnings=[])
    if isinstance(session, ChromiumSession):
        found = await discover(session, canvas, reply)
    elif isinstance(session, FirefoxSession):
        found = await firefox_discover(session, canvas, reply)
    else:  # a native screen has no page, and so no scene objects to read
        raise ToolError("not-supported", f"finding the canvas's transform reads the page's own scene objects, and a "
                        f"{session.engine} session has no page; pass transform explicitly (no page contact)",
                        engine=session.engine, field="transform")
    return found, reply.warnings or []


async def _convert(runtime: RuntimeContext, args: Convert, point: tuple[float, float], to_screen: bool) -> Reply:
    """``point`` (world or screen, as ``to_screen`` says) in the other space."""
    out = ("screenX", "screenY") if to_screen else ("worldX", "worldY")
    x, y = float(point[0]), float(point[1])
    if args.transform is not None:
        explicit = transform.explicit_transform(args.transform)
        reply = Reply(warnings=[])
        if args.ref is not None or args.selector is not None:
            reply.warn("ref and selector are not used with an explicit transform (no page contact)")
        rx, ry = explicit.to_screen(x, y) if to_screen else explicit.to_world(x, y)
        reply.fields.update({out[0]: rx, out[1]: ry})
        return reply
    tool = "canvas_world_to_screen" if to_screen else "canvas_screen_to_world"
    # The arguments are the canvas to anchor on: their ref or selector.
    found, notes = await runtime.call_session(args.session, tool, _discover, args, timeout=SESSION_CALL_TIMEOUT)
    rx, ry = found.transform.to_screen(x, y) if to_screen else found.transform.to_world(x, y)
    return Reply.of(**{out[0]: rx, out[1]: ry}, transformDiscovered=found.transform.describe(),
                    adapterHint=found.adapter_hint, warnings=[transform.HEURISTIC_WARNING, *notes])


# -- world <-> screen declarations ----------------------------------------------------


async def canvas_world_to_screen(runtime: RuntimeContext, args: CanvasWorldToScreenArgs) -> Reply:
    return await _convert(runtime, args, (args.world_x, args.world_y), to_screen=True)


async def canvas_screen_to_world(runtime: RuntimeContext, args: CanvasScreenToWorldArgs) -> Reply:
    return await _convert(runtime, args, (args.screen_x, args.screen_y), to_screen=False)
