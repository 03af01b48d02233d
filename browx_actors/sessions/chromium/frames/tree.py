"""Frames: what a tab's frames are, how to reach each one's page agent, and ``frames_list``.

A tab's frames come from two places: ``Page.getFrameTree`` on the tab's command
session gives the frames its renderer hosts (same-origin ones, and cross-origin ones
of the same site), and each out-of-process frame (another site) has a flat session of
its own (:mod:`.tabs.wiring` attaches them), with the frames *it* hosts. Each frame but
the top one gets an id ``fN`` in its tab (:class:`~.book.FrameBook`), and refs inside it are
spelled ``fNeM`` (:mod:`.frames.refs`).

Each frame runs its own page agent (the init script runs in every frame), reached in
its main world: by context id on the command session for a frame the tab's renderer
hosts, on the frame's own session for an out-of-process one. The ``<iframe>`` holding a
frame is found through the browser (``DOM.getFrameOwner``) and asked what its document's
agent calls it and where its content box is; the chain of them from the top document
down says where a point of the frame is in the tab, and whether input there reaches it
(:func:`frame_chain`). Calls routed into a
frame by their refs, and snapshots with their frames stitched in, are
:mod:`.frames.calls`; Playwright, when it acts instead, reaches the element through the
same chain of ``<iframe>`` elements (:func:`frame_locator`).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

import attrs
import trio
from playwright.async_api import FrameLocator, Locator, Page

from ....cdp import CdpError, CdpFailure, TargetLink
from ....errors import ToolError
from ....jsonsafe import JsonObject, JsonValue
from ....tools import Reply
from ....tools.reading import FramesListArgs
from ..agent.pageagent import AGENT_KEY, AGENT_SOURCE
from ..bridge.driver import REF_ENGINE
from ..network.redact import redact_url
from .book import Frame, FrameBook
from .refs import qualify

if TYPE_CHECKING:
    from ..host import SessionHost
    from ..tabs.tabset import Tab

__all__ = ["VISUAL_OWNER", "FrameChain", "agent_in_frame", "ask_each", "frame_chain",
           "frame_locator", "frame_named", "frame_tree", "frames_list", "owner_of"]

_CALL = f"""([method, arg]) => {{
  const agent = window[{AGENT_KEY!r}];
  if (!agent) return {{__browxMissing: true}};
  return agent[method](arg);
}}"""


def _owner_function(key: str, identity: str) -> str:
    """On an ``<iframe>`` element: under ``key``, what ``identity`` (an expression of
    ``agent`` and ``this``) says of it in its document's agent, and where its content box
    starts in its document's viewport (``x``, ``y``: border and padding inside the box)
    and how much it is scaled there (``sx``, ``sy``: its transforms and its ancestors').

    Given a point of the frame's own viewport (``px``, ``py``), it also says where that
    point is in its document's viewport (``at``) and, when a pointer there would not reach
    the frame, why (``blocked``, in the words of the agent's aim): a frame's agent knows
    only its own document, and a point in view there can be scrolled out of the
    ``<iframe>``'s container or covered by a banner here. A rotated or skewed
    ``<iframe>`` (or ancestor) has no straight mapping of points, so it blocks too.
    """
    return f"""function (px, py) {{
  const agent = window[{AGENT_KEY!r}];
  const box = this.getBoundingClientRect();
  const style = getComputedStyle(this);
  // getBoundingClientRect is after every transform above; offsetWidth before them.
  const sx = this.offsetWidth ? box.width / this.offsetWidth : 1;
  const sy = this.offsetHeight ? box.height / this.offsetHeight : 1;
  const x = box.left + (this.clientLeft + parseFloat(style.paddingLeft || '0')) * sx;
  const y = box.top + (this.clientTop + parseFloat(style.paddingTop || '0')) * sy;
  const out = {{{key}: agent ? {identity} : null, x, y, sx, sy}};
  if (typeof px === 'number' && typeof py === 'number') {{
    out.at = [x + px * sx, y + py * sy];
    for (let el = this; el; el = el.parentElement || (el.getRootNode() && el.getRootNode().host)) {{
      const t = getComputedStyle(el).transform;
      if (t && t !== 'none') {{
        const m = new DOMMatrixReadOnly(t);
        if (m.b || m.c) {{ out.blocked = 'its <iframe> is rotated or skewed'; return out; }}
      }}
    }}
    const root = this.getRootNode();
    const hit = (root.elementFromPoint ? root : document).elementFromPoint(out.at[0], out.at[1]);
    if (hit !== this) out.blocked = hit ? '<' + hit.localName + '> is on top at its point' : 'outside the viewport';
  }}
  return out;
}}"""


#: ``{ref, x, y, sx, sy}``, and ``at`` and ``blocked`` for a point: the ``<iframe>``'s snapshot ref.
_OWNER = _owner_function("ref", "agent.refFor(this)")
#: ``{node: {document, id}, x, y, sx, sy}``: the ``<iframe>``'s node in visual-tree captures.
VISUAL_OWNER = _owner_function("node", "agent.visualIdOf(this)")


def _book(session: SessionHost, tab: Tab) -> FrameBook:
    books: dict[str, FrameBook] = session.frame_books
    assert tab.target_id is not None
    found = books.get(tab.target_id)
    if found is None:
        found = books[tab.target_id] = FrameBook()
    return found


T = TypeVar("T")
R = TypeVar("R")


async def ask_each(ask: Callable[[T], Awaitable[R]], items: Sequence[T]) -> list[R]:
    """``ask`` of every item (a frame, a frame's session) at once, the answers in the
    items' order: what is asked of a frame (its tree, its ``<iframe>``, its agent) is a
    few CDP round trips that do not wait on another frame's, so ten frames cost about
    what one does, not ten times it."""
    answers: dict[int, R] = {}

    async def one(index: int, item: T) -> None:
        answers[index] = await ask(item)

    async with trio.open_nursery() as nursery:
        for index, item in enumerate(items):
            nursery.start_soon(one, index, item)
    return [answers[index] for index in range(len(items))]


async def _tree_of(host: TargetLink) -> JsonObject | None:
    """An out-of-process frame's own frame tree; None when its session is going."""
    try:
        tree: JsonObject = (await host.send("Page.getFrameTree"))["frameTree"]
    except CdpFailure:
        return None
    return tree


async def frame_tree(session: SessionHost, tab: Tab) -> list[Frame]:
    """Every frame of the tab, the top document first, each after its parent."""
    assert tab.cdp is not None and tab.target_id is not None and session.wiring is not None
    book = _book(session, tab)
    frames: list[Frame] = []

    def walk(node: JsonObject, host: TargetLink, parent: str | None, root: bool, oop: bool) -> None:
        frame = node.get("frame") or {}
        frame_id = str(frame.get("id"))
        url = str(frame.get("url", "")) + str(frame.get("urlFragment") or "")
        frames.append(Frame(frame_id, None if parent is None and not oop else book.short_of(frame_id), url,
                            str(frame.get("name") or ""), str(frame.get("securityOrigin") or ""), parent, host,
                            root, oop))
        for child in node.get("childFrames") or ():
            walk(child, host, frame_id, False, oop)

    walk((await tab.cdp.send("Page.getFrameTree"))["frameTree"], tab.cdp, None, True, False)
    oop = [child for child, page in session.wiring.frames.values() if page == tab.target_id and child.lost is None]
    # Their trees asked at once, then put in order.
    trees = {child: tree for child, tree in zip(oop, await ask_each(_tree_of, oop), strict=True) if tree is not None}
    pending = [(child, frame_id) for frame_id, (child, page) in session.wiring.frames.items() if child in trees]
    # An out-of-process frame goes after its parent, which may be one of them.
    for _ in range(len(pending) + 1):
        known = {f.frame_id for f in frames}
        later = []
        for child, frame_id in pending:
            parent = session.events.parent_of(tab.target_id, frame_id) or tab.target_id
            if parent not in known:
                later.append((child, frame_id))
                continue
            walk(trees[child], child, parent, True, True)
        if not later or len(later) == len(pending):
            break
        pending = later
    book.frames = {f.frame_id: f for f in frames}
    return frames


async def _evaluate(session: SessionHost, frame: Frame, expression: str) -> JsonValue:
    params: JsonObject = {"expression": expression, "returnByValue": True}
    if not frame.root:
        assert session.tabs.current is not None and session.tabs.current.target_id is not None
        context = session.events.context_of(session.tabs.current.target_id, frame.frame_id)
        if context is None:
            raise ToolError("stale-element", f"frame {frame.short} has no document to reach yet; take a new snapshot")
        params["contextId"] = context
    try:
        reply = await frame.host.send("Runtime.evaluate", params)
    except CdpError as err:
        raise ToolError("stale-element", f"frame {frame.short} went away ({err.message}); take a new snapshot") \
            from err
    if "exceptionDetails" in reply:
        details = reply["exceptionDetails"]
        raise ToolError("page-error", "the frame's page agent failed: "
                        + str(details.get("exception", {}).get("description") or details.get("text", "")))
    return reply["result"].get("value")


async def agent_in_frame(session: SessionHost, frame: Frame, method: str, arg: JsonValue) -> JsonValue:
    """The frame's page agent's ``method(arg)``; installs the agent there if it is missing."""
    call = f"({_CALL})({json.dumps([method, arg])})"
    result = await _evaluate(session, frame, call)
    if isinstance(result, dict) and result.get("__browxMissing"):
        await _evaluate(session, frame, AGENT_SOURCE)
        result = await _evaluate(session, frame, call)
    return result


async def owner_of(session: SessionHost, frames: dict[str, Frame], frame: Frame,
                   declaration: str = _OWNER, point: tuple[float, float] | None = None) -> JsonObject | None:
    """What ``declaration`` answers on the ``<iframe>`` holding ``frame`` (by default its
    snapshot ref and where its content starts; with ``point``, of the frame's viewport,
    where that is in the parent's and whether the ``<iframe>`` is on top there), in its
    parent's terms; None when it cannot be asked."""
    parent = frames.get(frame.parent or "")
    if parent is None:
        return None
    try:
        owner = await parent.host.send("DOM.getFrameOwner", {"frameId": frame.frame_id})
        params: JsonObject = {"backendNodeId": owner["backendNodeId"]}
        if not parent.root:
            assert session.tabs.current is not None and session.tabs.current.target_id is not None
            context = session.events.context_of(session.tabs.current.target_id, parent.frame_id)
            if context is not None:
                params["executionContextId"] = context
        node = await parent.host.send("DOM.resolveNode", params)
        object_id = node["object"]["objectId"]
        try:
            call: JsonObject = {"objectId": object_id, "functionDeclaration": declaration, "returnByValue": True}
            if point is not None:
                call["arguments"] = [{"value": point[0]}, {"value": point[1]}]
            reply = await parent.host.send("Runtime.callFunctionOn", call)
        finally:
            await parent.host.send("Runtime.releaseObject", {"objectId": object_id})
    except (CdpFailure, KeyError):
        return None
    value: JsonObject | None = reply.get("result", {}).get("value")
    return value


async def frame_named(session: SessionHost, short: str) -> Frame | None:
    """The current tab's frame ``short`` (``f2``), looked for afresh if the last look did
    not know it or its session is gone; None when the tab has no such frame."""
    tab = session.tabs.current
    assert tab is not None
    book = _book(session, tab)
    frame = book.by_short(short)
    if frame is None or frame.host.lost is not None:
        await frame_tree(session, tab)  # it may be new since the last look
        frame = book.by_short(short)
    return frame


@attrs.frozen
class FrameChain:
    """How the tab reaches a frame: its ``<iframe>`` elements, and a point in it."""

    #: The ``<iframe>`` refs from the top document down, each in its own document's agent.
    refs: list[str]
    #: The point asked about, in the tab's viewport (None when none was asked about).
    point: tuple[float, float] | None = None
    #: Why input at that point would not reach the frame, in the words the agent's aim
    #: uses (``outside the viewport``, ``<div> is on top at its point``, or that an
    #: ``<iframe>`` is rotated or skewed); None when it would.
    blocked: str | None = None


async def frame_chain(session: SessionHost, frame: Frame,
                      point: tuple[float, float] | None = None) -> FrameChain | None:
    """The ``<iframe>`` elements from the top document down to ``frame`` and, given a
    point of the frame's viewport, where it is in the tab's and whether every ``<iframe>``
    on the way is what a pointer there hits; None when one of them is gone."""
    tab = session.tabs.current
    assert tab is not None
    frames = _book(session, tab).frames
    refs: list[str] = []
    blocked: str | None = None
    current = frame
    while current.parent is not None:
        owner = await owner_of(session, frames, current, point=point if blocked is None else None)
        if owner is None or owner.get("ref") is None:
            return None
        refs.insert(0, owner["ref"])
        if point is not None and blocked is None:
            point = (float(owner["at"][0]), float(owner["at"][1]))
            blocked = owner.get("blocked")
        parent = frames.get(current.parent)
        if parent is None:
            return None
        current = parent
    return FrameChain(refs, point if blocked is None else None, blocked)


def frame_locator(page: Page, found: JsonObject) -> Locator:
    """Playwright's locator for an element in a frame: through the chain of
    ``<iframe>`` elements (by their refs in each document) to the element's own ref."""
    scope: Page | FrameLocator = page
    for owner in found["frameChain"]:
        scope = scope.locator(f"{REF_ENGINE}={owner}").content_frame
    return scope.locator(f"{REF_ENGINE}={found['localRef']}")


# -- the tool -------------------------------------------------------------------------


def _line(frame: Frame, top_origin: str, owner: str | None) -> str:
    where = "same-origin" if frame.origin == top_origin else "cross-origin"
    process = ", out-of-process" if frame.out_of_process else ""
    name = f' name="{frame.name}"' if frame.name else ""
    held = f" in {owner}" if owner else ""
    return f"{frame.short} {redact_url(frame.url)}{name} ({where}{process}){held}"


async def frames_list(session: SessionHost, args: FramesListArgs) -> Reply:
    tab = session.tabs.current
    assert tab is not None
    frames = await frame_tree(session, tab)
    by_id = {f.frame_id: f for f in frames}
    top = frames[0]
    rows: list[str | dict[str, object]] = []
    for frame in frames[1:]:
        owner = await owner_of(session, by_id, frame)
        parent = by_id.get(frame.parent or "")
        owner_ref = None if owner is None or owner.get("ref") is None or parent is None else \
            qualify(parent.short, owner["ref"])
        if args.details:
            rows.append({"id": frame.short, "url": redact_url(frame.url), "name": frame.name, "origin": frame.origin,
                         "sameOrigin": frame.origin == top.origin, "outOfProcess": frame.out_of_process,
                         "parent": None if parent is None else parent.short, "ownerRef": owner_ref})
        else:
            rows.append(_line(frame, top.origin, owner_ref))
    return Reply.of(url=redact_url(top.url), frames=rows, count=len(rows))


