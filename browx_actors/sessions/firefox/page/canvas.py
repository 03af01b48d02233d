"""``canvas_capture`` on firefox: the page-side capture of ``canvas/capture.py``, in the sandbox.

The capture function is chromium's (the 2D, WebGL and ``toDataURL`` paths, the taint and
``preserveDrawingBuffer`` handling, the size cap), run in the session's sandbox realm,
which reads a canvas's pixels through the DOM as the page would. Chromium hands the bytes
over in chunks because CDP caps a message; BiDi's socket here takes a whole capture, so
it comes back in one answer. The capture is kept in the session's cache for
``canvas_diff`` by id, as on chromium. :func:`discover` runs the world/screen probe there too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....canvas import transform
from ....canvas.capture import CAPTURE_JS, answer_capture
from ....errors import ToolError
from ....tools import Reply
from ....tools.canvas import CAPTURE_MAX_SIDE, CanvasCaptureArgs
from ....tools.targets import Element
from ...chromium.agent.pageagent import AGENT_KEY
from ...chromium.input.target import check_found
from ..input.actions import aim_at

if TYPE_CHECKING:
    from ..session import FirefoxSession

__all__ = ["canvas_capture", "discover"]

#: One piece for the whole capture (a multiple of 4 base64 characters: each piece decodes alone).
_ONE_PIECE = 1 << 28

_CAPTURE = f"""(agent, a) => ({CAPTURE_JS})(a.ref, a.format, {_ONE_PIECE}, {CAPTURE_MAX_SIDE}, {AGENT_KEY!r})
  .then(held => ({{head: held.head, chunks: Array.from({{length: held.count}}, (_, i) => held.piece(i))}}))"""


async def canvas_capture(session: FirefoxSession, args: CanvasCaptureArgs) -> Reply:
    fmt = args.format
    reply = Reply(warnings=[])
    ref = None
    if args.ref is not None or args.selector is not None:
        target = check_found(args, await aim_at(session, args), reply)
        assert target is not None
        ref = str(target["ref"])
    answer = await session.in_sandbox(_CAPTURE, {"ref": ref, "format": fmt})
    assert isinstance(answer, dict)
    return answer_capture(answer["head"], answer["chunks"], fmt, session.canvas_cache, reply,
                          include_content=args.include_content)


#: The transform probe (``canvas/transform.py``), run in the sandbox: the page's own scene
#: object (``window.app``) is a page-made object, which the sandbox sees only through the
#: waived view of the page's window (``wrappedJSObject``); the probe's guarded reads stay
#: as they are, so a hostile getter still answers null.
_PROBE = "(agent, ref) => (" + transform.probe_js(AGENT_KEY).replace(
    "app = window.app;", "app = (window.wrappedJSObject || window).app;") + ")(ref)"


async def discover(session: FirefoxSession, canvas: Element, reply: Reply) -> transform.Discovered:
    """The world/screen probe in the session's page, anchored on ``canvas`` (its ref or
    selector; neither: the first canvas); ``no-transform`` when nothing is found."""
    ref = None
    if canvas.ref is not None or canvas.selector is not None:
        target = check_found(canvas, await aim_at(session, canvas), reply)
        assert target is not None
        ref = str(target["ref"])
    probe = await session.in_sandbox(_PROBE, ref)
    assert isinstance(probe, dict)
    if ref is not None and probe.get("rect") is None:
        raise ToolError("stale-element", f"ref {ref} no longer points at a live element; take a new snapshot", ref=ref)
    found, notes = transform.interpret_probe(probe)
    if found is None:
        raise ToolError("no-transform", transform.NO_TRANSFORM)
    for note in notes:
        reply.warn(note)
    return found
