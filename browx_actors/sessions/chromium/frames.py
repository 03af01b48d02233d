"""Frames: ``frames_list``, snapshots that include frames, and refs that act inside them.

A tab's frames come from two places: ``Page.getFrameTree`` on the tab's command
session gives the frames its renderer hosts (same-origin ones, and cross-origin ones
of the same site), and each out-of-process frame (another site) has a flat session of
its own (:mod:`.wiring` attaches them), with the frames *it* hosts. Each frame but the
top one gets an id ``fN`` in its tab (:class:`FrameBook`), and refs inside it are
spelled ``fNeM`` (:mod:`.frame_refs`).

Each frame runs its own page agent (the init script runs in every frame); a call with
a frame ref goes to that frame's agent, in its main world: by context id on the command
session for a frame the tab's renderer hosts, on the frame's own session for an
out-of-process one. What comes back is re-spelled with the frame's id, and an aimed
point is moved from the frame's viewport to the tab's, by the offsets of the
``<iframe>`` elements it sits in, so the session's own input lands on it (the browser
routes input into out-of-process frames itself). Playwright, when it acts instead,
reaches the element through the same chain of ``<iframe>`` elements.
"""

from __future__ import annotations

import itertools
import json
from typing import TYPE_CHECKING, Any

import attrs

from ...cdp import CdpError, CdpFailure, CdpSession
from ...errors import ToolError
from ...tooling import Args, Param, Reply, session_tool
from .driver import REF_ENGINE
from .frame_refs import FrameRef, parse_ref, qualify, qualify_refs, stitch
from .frame_view import FrameView, OwnerBox, frame_view
from .pageagent import AGENT_KEY, AGENT_SOURCE
from .redact import redact_url

if TYPE_CHECKING:
    from .host import SessionHost
    from .tabset import Tab

__all__ = ["TOOLS", "VISUAL_OWNER", "Frame", "FrameBook", "agent_in_frame", "frame_locator", "frame_named",
           "frame_tree", "frames_list", "owner_of", "routes_to_frame", "with_frames"]

#: What a frame ref can appear in, per agent method: the field of the argument.
_REF_FIELDS = {"aim": "ref", "describe": None, "snapshot": "scope", "find": "scope"}

_CALL = f"""([method, arg]) => {{
  const agent = window[{AGENT_KEY!r}];
  if (!agent) return {{__browxMissing: true}};
  return agent[method](arg);
}}"""



def _owner_function(key: str, identity: str) -> str:
    """On an ``<iframe>`` element: under ``key``, what ``identity`` (an expression of
    ``agent`` and ``this``) says of it in its document's agent, and its content box in
    its document's viewport (``x``, ``y``, ``w``, ``h``: border, padding and scroll bars
    outside it) with that viewport's size (``vw``, ``vh``, measured as the agent's aim
    measures it): a :class:`~.frame_view.OwnerBox`."""
    return f"""function () {{
  const agent = window[{AGENT_KEY!r}];
  const box = this.getBoundingClientRect();
  const style = getComputedStyle(this);
  const pad = (side) => parseFloat(style['padding' + side] || '0');
  const root = document.documentElement;
  const css = document.compatMode === 'CSS1Compat' && root;
  return {{{key}: agent ? {identity} : null,
           x: box.left + this.clientLeft + pad('Left'), y: box.top + this.clientTop + pad('Top'),
           w: this.clientWidth - pad('Left') - pad('Right'), h: this.clientHeight - pad('Top') - pad('Bottom'),
           vw: css ? root.clientWidth : innerWidth, vh: css ? root.clientHeight : innerHeight}};
}}"""


#: ``{ref, x, y}``: the ``<iframe>``'s snapshot ref.
_OWNER = _owner_function("ref", "agent.refFor(this)")
#: ``{node: {document, id}, x, y}``: the ``<iframe>``'s node in visual-tree captures.
VISUAL_OWNER = _owner_function("node", "agent.visualIdOf(this)")


@attrs.define(eq=False)
class Frame:
    frame_id: str
    #: ``fN``; None for the tab's top document.
    short: str | None
    url: str
    name: str
    origin: str
    parent: str | None
    #: The flat session whose renderer hosts the frame's document.
    host: CdpSession
    #: True when the frame is the root of its host session (the top document, or an
    #: out-of-process frame): then no context id is needed to reach its main world.
    root: bool
    out_of_process: bool


class FrameBook:
    """One tab's frame ids: ``fN`` per CDP frame id, stable for the frame's life."""

    def __init__(self) -> None:
        self._short: dict[str, str] = {}
        self._ids = itertools.count(1)
        self.frames: dict[str, Frame] = {}

    def short_of(self, frame_id: str) -> str:
        found = self._short.get(frame_id)
        if found is None:
            found = self._short[frame_id] = f"f{next(self._ids)}"
        return found

    def by_short(self, short: str) -> Frame | None:
        return next((f for f in self.frames.values() if f.short == short), None)


def _book(session: SessionHost, tab: Tab) -> FrameBook:
    books: dict[str, FrameBook] = session.frame_books
    assert tab.target_id is not None
    found = books.get(tab.target_id)
    if found is None:
        found = books[tab.target_id] = FrameBook()
    return found


async def frame_tree(session: SessionHost, tab: Tab) -> list[Frame]:
    """Every frame of the tab, the top document first, each after its parent."""
    assert tab.cdp is not None and tab.target_id is not None and session.wiring is not None
    book = _book(session, tab)
    frames: list[Frame] = []

    def walk(node: dict[str, Any], host: CdpSession, parent: str | None, root: bool, oop: bool) -> None:
        frame = node.get("frame") or {}
        frame_id = str(frame.get("id"))
        url = str(frame.get("url", "")) + str(frame.get("urlFragment") or "")
        frames.append(Frame(frame_id, None if parent is None and not oop else book.short_of(frame_id), url,
                            str(frame.get("name") or ""), str(frame.get("securityOrigin") or ""), parent, host,
                            root, oop))
        for child in node.get("childFrames") or ():
            walk(child, host, frame_id, False, oop)

    walk((await tab.cdp.send("Page.getFrameTree"))["frameTree"], tab.cdp, None, True, False)
    pending = [(child, frame_id) for frame_id, (child, page) in session.wiring.frames.items()
               if page == tab.target_id and child.lost is None]
    # An out-of-process frame goes after its parent, which may be one of them.
    for _ in range(len(pending) + 1):
        known = {f.frame_id for f in frames}
        later = []
        for child, frame_id in pending:
            parent = session.events.parent_of(tab.target_id, frame_id) or tab.target_id
            if parent not in known:
                later.append((child, frame_id))
                continue
            try:
                tree = (await child.send("Page.getFrameTree"))["frameTree"]
            except CdpFailure:
                continue
            walk(tree, child, parent, True, True)
        if not later or len(later) == len(pending):
            break
        pending = later
    book.frames = {f.frame_id: f for f in frames}
    return frames


async def _evaluate(session: SessionHost, frame: Frame, expression: str) -> Any:
    params: dict[str, Any] = {"expression": expression, "returnByValue": True}
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


async def agent_in_frame(session: SessionHost, frame: Frame, method: str, arg: Any) -> Any:
    """The frame's page agent's ``method(arg)``; installs the agent there if it is missing."""
    call = f"({_CALL})({json.dumps([method, arg])})"
    result = await _evaluate(session, frame, call)
    if isinstance(result, dict) and result.get("__browxMissing"):
        await _evaluate(session, frame, AGENT_SOURCE)
        result = await _evaluate(session, frame, call)
    return result


async def owner_of(session: SessionHost, frames: dict[str, Frame], frame: Frame,
                   declaration: str = _OWNER) -> dict[str, Any] | None:
    """What ``declaration`` answers on the ``<iframe>`` holding ``frame`` (by default
    ``{ref, x, y}``), in its parent's terms; None when it cannot be asked."""
    parent = frames.get(frame.parent or "")
    if parent is None:
        return None
    try:
        owner = await parent.host.send("DOM.getFrameOwner", {"frameId": frame.frame_id})
        params: dict[str, Any] = {"backendNodeId": owner["backendNodeId"]}
        if not parent.root:
            assert session.tabs.current is not None and session.tabs.current.target_id is not None
            context = session.events.context_of(session.tabs.current.target_id, parent.frame_id)
            if context is not None:
                params["executionContextId"] = context
        node = await parent.host.send("DOM.resolveNode", params)
        object_id = node["object"]["objectId"]
        try:
            reply = await parent.host.send("Runtime.callFunctionOn", {
                "objectId": object_id, "functionDeclaration": declaration, "returnByValue": True})
        finally:
            await parent.host.send("Runtime.releaseObject", {"objectId": object_id})
    except (CdpFailure, KeyError):
        return None
    value: dict[str, Any] | None = reply.get("result", {}).get("value")
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


def routes_to_frame(method: str, arg: Any) -> FrameRef | None:
    """The frame ref a page-agent call names, if it names one."""
    if method not in _REF_FIELDS:
        return None
    field = _REF_FIELDS[method]
    value = arg if field is None else (arg.get(field) if isinstance(arg, dict) else None)
    ref = parse_ref(value)
    return ref if ref is not None and ref.frame is not None else None


def _requalify(value: Any, frame: str) -> Any:
    """A frame agent's answer with its refs (and snapshot text) spelled for the tab."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key == "ref" and isinstance(item, str) and parse_ref(item) is not None:
                out[key] = qualify(frame, item)
            elif key == "text" and isinstance(item, str):
                out[key] = qualify_refs(item, frame)
            else:
                out[key] = _requalify(item, frame)
        return out
    if isinstance(value, list):
        return [_requalify(item, frame) for item in value]
    return value


async def call_in_frame(session: SessionHost, method: str, arg: Any, ref: FrameRef) -> Any:
    """A page-agent call whose ref (or scope) lies in a frame, made in that frame."""
    tab = session.tabs.current
    assert tab is not None and ref.frame is not None
    frame = await frame_named(session, ref.frame)
    if frame is None:
        if method == "aim":
            return {"stale": True}
        raise ToolError("stale-element", f"frame {ref.frame} is gone; take a new snapshot",
                        ref=qualify(ref.frame, ref.local))
    field = _REF_FIELDS[method]
    local = ref.local if field is None else {**arg, field: ref.local}
    result = _requalify(await agent_in_frame(session, frame, method, local), frame.short or "")
    if method == "snapshot" and isinstance(result, dict):
        result["text"] = await _nested(session, tab, frame, result.get("text", ""), arg)
    if method == "aim" and isinstance(result, dict) and not result.get("stale"):
        found = await _chain(session, frame)
        if found is None:
            return {"stale": True}
        chain, view = found
        ready = result.get("ready")
        if isinstance(ready, list) and len(ready) == 2:
            point = view.to_tab(ready[0], ready[1])
            if view.shows(*point):
                result["ready"] = list(point)
            elif arg.get("scroll", True) and not arg.get("reveal"):
                # In view in its own document, not through the frames above it: scroll
                # to it (the browser scrolls those frames too) and aim again.
                return await call_in_frame(session, method, {**arg, "reveal": True, "mark": False}, ref)
            else:
                del result["ready"]
                result["wait"] = "outside the part of its frame in view"
        result["frameChain"] = chain
        result["localRef"] = ref.local
    return result


async def _chain(session: SessionHost, frame: Frame) -> tuple[list[str], FrameView] | None:
    """The ``<iframe>`` refs from the top document down to ``frame`` (each in its own
    document's agent), and where the frame shows in the tab; None when one is gone."""
    tab = session.tabs.current
    assert tab is not None
    frames = _book(session, tab).frames
    chain: list[str] = []
    boxes: list[OwnerBox] = []
    current = frame
    while current.parent is not None:
        owner = await owner_of(session, frames, current)
        if owner is None or owner.get("ref") is None:
            return None
        chain.insert(0, owner["ref"])
        boxes.insert(0, OwnerBox.from_json(owner))
        parent = frames.get(current.parent)
        if parent is None:
            return None
        current = parent
    return chain, frame_view(boxes)


async def _nested(session: SessionHost, tab: Tab, top: Frame, text: str, arg: Any) -> str:
    """``text`` (a snapshot of ``top``) with the snapshots of the frames inside ``top``
    stitched in under their ``<iframe>`` lines."""
    if "iframe" not in text:
        return text
    frames = await frame_tree(session, tab)
    by_id = {f.frame_id: f for f in frames}
    inside = {top.frame_id}
    budget = int((arg or {}).get("maxNodes") or 2000) - text.count("\n") - 1
    options = {k: v for k, v in (arg or {}).items() if k in ("omit", "includeHidden", "urls")}
    for frame in frames:
        if frame.parent not in inside or budget <= 0:
            continue
        owner = await owner_of(session, by_id, frame)
        parent = by_id[frame.parent] if frame.parent else None
        if owner is None or owner.get("ref") is None or parent is None:
            continue
        owner_ref = qualify(parent.short, owner["ref"])
        if f"[ref={owner_ref}]" not in text:
            continue
        try:
            child = await agent_in_frame(session, frame, "snapshot", {**options, "maxNodes": budget})
        except ToolError:
            continue
        child_text = qualify_refs(str((child or {}).get("text", "")), frame.short)
        text, placed = stitch(text, owner_ref, child_text)
        if placed:
            inside.add(frame.frame_id)
            budget -= child_text.count("\n") + 1
    return text


async def with_frames(session: SessionHost, result: dict[str, Any], arg: Any) -> dict[str, Any]:
    """A top-document snapshot with its frames' snapshots stitched in (a page without
    ``<iframe>`` lines costs nothing more)."""
    if not isinstance(result, dict) or "iframe" not in str(result.get("text", "")):
        return result
    tab = session.tabs.current
    if tab is None or tab.cdp is None:
        return result
    try:
        frames = await frame_tree(session, tab)
        text = await _nested(session, tab, frames[0], result["text"], arg)
    except CdpFailure:
        return result  # the tab is navigating: the top document's snapshot stands
    refs = text.count("[ref=")
    return {**result, "text": text, "nodeCount": text.count("\n") + 1 if text else 0, "refCount": refs}


def frame_locator(page: Any, found: dict[str, Any]) -> Any:
    """Playwright's locator for an element in a frame: through the chain of
    ``<iframe>`` elements (by their refs in each document) to the element's own ref."""
    scope = page
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


@session_tool(
    "frames_list", "read",
    "The current tab's frames: `fN url name (same-origin | cross-origin, out-of-process) in <iframe ref>`, each "
    "after its parent. Refs inside a frame are spelled fNeM (snapshot shows them); click, fill and the rest take "
    "them like any ref.",
    params=(Param("details", "boolean", "Each frame as an object.", default=False),),
)
async def frames_list(session: SessionHost, args: Args) -> Reply:
    tab = session.tabs.current
    assert tab is not None
    frames = await frame_tree(session, tab)
    by_id = {f.frame_id: f for f in frames}
    top = frames[0]
    rows: list[Any] = []
    for frame in frames[1:]:
        owner = await owner_of(session, by_id, frame)
        parent = by_id.get(frame.parent or "")
        owner_ref = None if owner is None or owner.get("ref") is None or parent is None else \
            qualify(parent.short, owner["ref"])
        if args["details"]:
            rows.append({"id": frame.short, "url": redact_url(frame.url), "name": frame.name, "origin": frame.origin,
                         "sameOrigin": frame.origin == top.origin, "outOfProcess": frame.out_of_process,
                         "parent": None if parent is None else parent.short, "ownerRef": owner_ref})
        else:
            rows.append(_line(frame, top.origin, owner_ref))
    return Reply.of(url=redact_url(top.url), frames=rows, count=len(rows))


TOOLS = [frames_list]
