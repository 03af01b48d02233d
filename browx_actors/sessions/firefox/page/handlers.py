"""Page tools of the firefox engine: screenshots, eval, the viewport and dialogs.

Screenshots are ``browsingContext.captureScreenshot``: the viewport, the whole document
(``origin: document``), a region of the viewport or an element's box. BiDi has no
scale, so a capture whose longest side is over ``maxDimension`` is scaled down here
(Pillow) and the result says by how much, as on chromium. ``eval_js`` runs in the page's
own realm (its globals, its frameworks); its value comes back as plain JSON
(:func:`~browx_actors.bidi.values.to_json`).
"""

from __future__ import annotations

import base64
import io
import json
from typing import TYPE_CHECKING

from PIL import Image

from ....bidi import BidiError
from ....bidi.values import to_json
from ....errors import ToolError
from ....jsonsafe import JsonObject
from ....tools import Reply
from ....tools.actions import HandleDialogArgs, SetDialogPolicyArgs
from ....tools.page import DownloadsListArgs, EvalJsArgs, ScreenshotArgs, ScreenshotRegionArgs, SetViewportArgs
from ....tools.shapes import Rect
from ....workspace import file_to_write, save_file
from ...chromium.agent.calls import agent_call
from ...chromium.input.target import check_found
from .. import sandbox

if TYPE_CHECKING:
    from ..session import FirefoxSession

__all__ = ["downloads_list", "eval_js", "handle_dialog", "screenshot", "screenshot_region", "set_dialog_policy",
           "set_viewport"]

#: ``(agent, {ref?, selector?})``: the element's box in the document, scrolled into view.
_BOX = """(agent, t) => {
  const el = t.ref ? agent.resolve(t.ref) : document.querySelector(t.selector);
  if (!el) return null;
  el.scrollIntoView({block: 'nearest', inline: 'nearest'});
  const r = el.getBoundingClientRect();
  return {x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height};
}"""


def _scaled(data: bytes, fmt: str, quality: int, cap: int) -> tuple[bytes, int, int, float]:
    """The image, scaled down so its longest side is at most ``cap``; its size and the scale."""
    image = Image.open(io.BytesIO(data))
    width, height = image.size
    scale = min(1.0, cap / max(width, height, 1))
    if scale >= 1:
        return data, width, height, 1.0
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    out = io.BytesIO()
    resized = image.resize(size, Image.Resampling.LANCZOS)
    if fmt == "jpeg":
        resized.convert("RGB").save(out, "JPEG", quality=quality)
    else:
        resized.save(out, "PNG")
    return out.getvalue(), size[0], size[1], scale


async def _capture(session: FirefoxSession, args: ScreenshotArgs) -> Reply:
    reply = Reply(warnings=[])
    target = file_to_write(session.workspace, args.path) if args.path else None
    fmt = args.format
    params: JsonObject = {"context": session.tab.context, "origin": "viewport",
                          "format": {"type": f"image/{fmt}", **({"quality": args.quality / 100} if fmt == "jpeg"
                                                                 else {})}}
    if args.region is not None:
        r = args.region
        params["clip"] = {"type": "box", "x": r["x"], "y": r["y"], "width": r["width"], "height": r["height"]}
    elif args.ref is not None or args.selector is not None:
        found = await agent_call(session, "aim", {"ref": args.ref, "selector": args.selector, "acting": False})
        assert isinstance(found, dict)
        check_found(args, found, reply)
        box = await session.in_sandbox(_BOX, {"ref": args.ref, "selector": args.selector})
        if not isinstance(box, dict) or box["width"] < 1 or box["height"] < 1:
            raise ToolError("bad-arg", "the area to capture is empty", field="ref" if args.ref else "selector")
        params["origin"] = "document"
        params["clip"] = {"type": "box", **box}
    elif args.full_page:
        params["origin"] = "document"
    try:
        shot = await session.bidi.send("browsingContext.captureScreenshot", params, timeout=60)
    except BidiError as err:
        if err.error == "unable to capture screen":
            raise ToolError("bad-arg", f"the area to capture is empty or off the page ({err.message})",
                            field="region" if args.region else "ref") from err
        raise
    data, width, height, scale = _scaled(base64.b64decode(shot["data"]), fmt, args.quality, args.max_dimension)
    reply.fields.update(format=fmt, width=width, height=height, byteLength=len(data), scale=round(scale, 4))
    if scale < 1:
        reply.warn(f"scaled by {scale:.3f} so the longest side fits maxDimension={args.max_dimension}")
    if target is not None:
        await save_file(target, data)
        reply["path"] = str(target)
    reply.attach(f"image/{fmt}", data)
    return reply


async def screenshot(session: FirefoxSession, args: ScreenshotArgs) -> Reply:
    return await _capture(session, args)


async def screenshot_region(session: FirefoxSession, args: ScreenshotRegionArgs) -> Reply:
    region: Rect = {"x": args.x, "y": args.y, "width": args.width, "height": args.height}
    return await _capture(session, ScreenshotArgs(session=args.session, format=args.format, quality=args.quality,
                                                  region=region, max_dimension=args.max_dimension, path=args.path))


async def eval_js(session: FirefoxSession, args: EvalJsArgs) -> Reply:
    context = session.tab.context
    answer = await sandbox.evaluate_in_page(session.bidi, context, args.expr, timeout=session.left())
    if answer.get("type") == "success" and (answer.get("result") or {}).get("type") == "function":
        # Function source, as Playwright's evaluate takes it: called with no arguments.
        answer = await session.bidi.send("script.callFunction", {
            "functionDeclaration": args.expr, "target": {"context": context}, "awaitPromise": True,
            "resultOwnership": "none", "serializationOptions": {"maxDomDepth": 0, "maxObjectDepth": 20}},
            timeout=session.left())
    if answer.get("type") == "exception":
        details = answer.get("exceptionDetails") or {}
        raise ToolError("eval-error", str(details.get("text") or "the expression threw"))
    if args.return_type == "void":
        return Reply.of(value=None)
    value = to_json(answer.get("result"))
    size = len(json.dumps(value, default=str))
    if size > args.max_bytes:
        raise ToolError("too-large", f"the value is {size} bytes of JSON, above maxBytes={args.max_bytes}",
                        sizeBytes=size)
    return Reply.of(value=value)


async def set_viewport(session: FirefoxSession, args: SetViewportArgs) -> Reply:
    session.viewport = (args.width, args.height)
    for tab in session.tabs:
        await session.size(tab.context)
    return Reply.of(viewport={"width": args.width, "height": args.height})


async def handle_dialog(session: FirefoxSession, args: HandleDialogArgs) -> Reply:
    tab = session.tab
    pending = session.dialogs.get(tab.context)
    if pending is None:
        raise ToolError("no-dialog", f"no dialog is open on tab {tab.id}")
    if args.prompt_text is not None and (not args.accept or pending.type != "prompt"):
        raise ToolError("bad-arg", "promptText answers an open prompt with accept: true", field="promptText")
    await session.answer(tab.context, args.accept, args.prompt_text)
    return Reply.of(dialog=pending.describe(), accepted=args.accept)


async def set_dialog_policy(session: FirefoxSession, args: SetDialogPolicyArgs) -> Reply:
    if args.policy == "ask-human":  # it would fail closed on every dialog: say so instead
        raise ToolError("no-human-channel", "firefox has no isolated world for a person to answer a dialog from; "
                        f"the dialog policy stays {session.dialog_policy}", engine="firefox")
    session.dialog_policy = args.policy
    reply = Reply.of(policy=args.policy)
    if args.policy != "ask":
        for context, pending in list(session.dialogs.items()):
            await session.answer(context, args.policy == "accept", None)
            session.answered.append({**pending.describe(), "answer": args.policy})
    return reply


async def downloads_list(session: FirefoxSession, args: DownloadsListArgs) -> Reply:
    records = list(session.downloads.book.records)
    if args.details:
        return Reply.of(downloads=[r.describe() for r in records], count=len(records))
    return Reply.of(downloads=[r.line() for r in records], count=len(records))
