"""Page-agent calls that reach into frames, and snapshots with their frames stitched in.

A call whose ref (or scope) is a frame's (``f2e5``) goes to that frame's agent
(:func:`call_in_frame`); what comes back is re-spelled with the frame's id, and an
aimed point is moved from the frame's viewport to the tab's, by the offsets of the
``<iframe>`` elements it sits in, so the session's own input lands on it (the browser
routes input into out-of-process frames itself). A point the frames above do not show
is scrolled to first (:mod:`.frame_view`). A snapshot of the top document gets each
frame's snapshot stitched in under its ``<iframe>`` line (:func:`with_frames`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...cdp import CdpFailure
from ...errors import ToolError
from .frame_refs import FrameRef, parse_ref, qualify, qualify_refs, stitch
from .frames import Frame, agent_in_frame, frame_chain, frame_named, frame_tree, owner_of

if TYPE_CHECKING:
    from .host import SessionHost
    from .tabset import Tab

__all__ = ["call_in_frame", "routes_to_frame", "with_frames"]

#: What a frame ref can appear in, per agent method: the field of the argument.
_REF_FIELDS = {"aim": "ref", "describe": None, "snapshot": "scope", "find": "scope"}

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
        found = await frame_chain(session, frame)
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
            else:  # the reason aim gives for a point out of view, so a caller that does not scroll stops at once
                del result["ready"]
                result["wait"] = "outside the viewport"
        result["frameChain"] = chain
        result["localRef"] = ref.local
    return result


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
