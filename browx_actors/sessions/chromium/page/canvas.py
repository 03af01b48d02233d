"""Canvas automation on the chromium engine: what runs inside a chromium session.

``canvas_capture`` reads a ``<canvas>`` over the session's raw CDP session (the
page-side function and its chunked transfer are ``browx_actors.canvas.capture``'s) and
keeps the capture in the session's cache for ``canvas_diff``; :func:`discover` runs the
world/screen probe (``browx_actors.canvas.transform``) for ``canvas_world_to_screen``
and ``canvas_screen_to_world``. Targets resolve as every action's do
(:func:`~.input.target.target_of`), so a stale ref or an invalid selector reads exactly
as it does for ``click``.
"""

from __future__ import annotations

import contextlib
import json
from typing import TYPE_CHECKING

import trio

from ....canvas import transform
from ....canvas.capture import (
    CAPTURE_JS,
    CDP_TIMEOUT,
    CHUNK_CHARS,
    FIRST_JS,
    OBJECT_GROUP,
    PIECE_JS,
    answer_capture,
    exception_text,
)
from ....cdp.protocol import CdpConnectionLost, CdpError, CdpTimeout
from ....errors import ToolError
from ....jsonsafe import JsonObject, JsonValue
from ....tools import Reply
from ....tools.canvas import CAPTURE_MAX_SIDE, CanvasCaptureArgs
from ....tools.targets import Element
from ..agent.pageagent import AGENT_KEY
from ..input.target import target_of

if TYPE_CHECKING:
    from ..session import ChromiumSession

__all__ = ["canvas_capture", "discover", "read_canvas", "target_ref"]


async def target_ref(session: ChromiumSession, canvas: Element, reply: Reply) -> str | None:
    """The ref of the ``ref`` / ``selector`` target, or None for "the first canvas".

    Resolution is the actions' own (:func:`~.input.target.target_of`), so a stale ref, a selector
    matching nothing, an invalid selector and several matches read exactly as they do
    for ``click``.
    """
    if canvas.ref is None and canvas.selector is None:
        return None
    target = await target_of(session, canvas, reply)
    assert target is not None
    return str(target["ref"])


async def _call(session: ChromiumSession, object_id: str, fn: str, *arguments: JsonValue) -> JsonValue:
    reply = await session.cdp.send("Runtime.callFunctionOn", {
        "objectId": object_id, "functionDeclaration": fn, "returnByValue": True,
        "arguments": [{"value": a} for a in arguments],
    }, timeout=CDP_TIMEOUT)
    if "exceptionDetails" in reply:
        raise ToolError("capture-failed", f"reading the capture failed: {exception_text(reply)}")
    return reply["result"].get("value")


async def read_canvas(session: ChromiumSession, ref: str | None, fmt: str) -> tuple[JsonObject, list[str]]:
    """Run the page-side capture; ``(head, base64 chunks)``. Page-side failures raise."""
    expression = (f"({CAPTURE_JS})({json.dumps(ref)}, {json.dumps(fmt)}, {CHUNK_CHARS}, {CAPTURE_MAX_SIDE}, "
                  f"{json.dumps(AGENT_KEY)})")
    try:
        reply = await session.cdp.send("Runtime.evaluate", {
            "expression": expression, "awaitPromise": True, "returnByValue": False,
            "objectGroup": OBJECT_GROUP,
        }, timeout=CDP_TIMEOUT)
        if "exceptionDetails" in reply:
            raise ToolError("capture-failed", f"the capture function threw: {exception_text(reply)}")
        holder = reply["result"]["objectId"]
        first = await _call(session, holder, FIRST_JS)
        head = first["head"]
        if "error" in head:
            error = dict(head["error"])
            raise ToolError(error.pop("code"), error.pop("message"), **error)
        chunks = [first["chunk"]]
        for index in range(1, first["count"]):
            chunks.append(await _call(session, holder, PIECE_JS, index))
    except CdpTimeout as err:
        raise ToolError("timeout", f"canvas_capture: {err}") from err
    except CdpConnectionLost:
        raise
    except CdpError as err:
        raise ToolError("capture-failed", f"canvas_capture: {err}") from err
    finally:
        with trio.move_on_after(2) as scope:
            scope.shield = True
            with contextlib.suppress(CdpError, CdpTimeout, CdpConnectionLost):
                await session.cdp.send("Runtime.releaseObjectGroup", {"objectGroup": OBJECT_GROUP})
    return head, chunks


async def canvas_capture(session: ChromiumSession, args: CanvasCaptureArgs) -> Reply:
    """Inside the session actor: read the canvas, keep the capture, answer its shape."""
    fmt = args.format
    reply = Reply(warnings=[])
    ref = await target_ref(session, args, reply)
    head, chunks = await read_canvas(session, ref, fmt)
    return answer_capture(head, chunks, fmt, session.canvas_cache, reply, include_content=args.include_content)


async def discover(session: ChromiumSession, canvas: Element, reply: Reply) -> transform.Discovered:
    """Run the probe in the session's page (inside the session actor), anchored on the
    ``canvas`` element (its ref or selector; neither: the first canvas); ``no-transform``
    on failure."""
    ref = await target_ref(session, canvas, reply)
    probe = await session.pw(session.page.evaluate, transform.probe_js(AGENT_KEY), ref)
    if ref is not None and probe.get("rect") is None:
        raise ToolError("stale-element", f"ref {ref} no longer points at a live element; take a new snapshot",
                        ref=ref)
    found, notes = transform.interpret_probe(probe)
    if found is None:
        raise ToolError("no-transform", transform.NO_TRANSFORM)
    for note in notes:
        reply.warn(note)
    return found
