"""Page-agent calls that reach into frames, and snapshots with their frames stitched in.

A call whose ref (or scope) is a frame's (``f2e5``) goes to that frame's agent
(:func:`call_in_frame`); what comes back is re-spelled with the frame's id, and an
aimed point is moved from the frame's viewport to the tab's, by the offsets of the
``<iframe>`` elements it sits in, so the session's own input lands on it (the browser
routes input into out-of-process frames itself). A point that the documents above do not
let input reach (scrolled out of a container, covered) is scrolled to first, and if it is
still not reached the aim waits, as for an element covered in the top document. A snapshot of the top document gets each
frame's snapshot stitched in under its ``<iframe>`` line (:func:`with_frames`).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from ....cdp import CdpFailure
from ....errors import ToolError
from ....jsonsafe import JsonObject, JsonValue
from .book import Frame
from .refs import FrameRef, parse_ref, qualify, qualify_refs, stitch
from .tree import agent_in_frame, ask_each, frame_chain, frame_named, frame_tree, owner_of

if TYPE_CHECKING:
    from ..host import SessionHost
    from ..tabs.tabset import Tab

__all__ = ["call_in_frame", "requalify", "routes_to_frame", "with_frames"]

#: What a frame ref can appear in, per agent method: the field of the argument.
_REF_FIELDS = {"aim": "ref", "describe": None, "fieldText": None, "snapshot": "scope", "find": "scope"}

def routes_to_frame(method: str, arg: JsonValue) -> FrameRef | None:
    """The frame ref a page-agent call names, if it names one."""
    if method not in _REF_FIELDS:
        return None
    field = _REF_FIELDS[method]
    value = arg if field is None else (arg.get(field) if isinstance(arg, dict) else None)
    ref = parse_ref(value)
    return ref if ref is not None and ref.frame is not None else None


def requalify(value: JsonValue, frame: str) -> JsonValue:
    """A frame agent's answer with its refs (and snapshot text) spelled for the tab."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key == "ref" and isinstance(item, str) and parse_ref(item) is not None:
                out[key] = qualify(frame, item)
            elif key == "text" and isinstance(item, str):
                out[key] = qualify_refs(item, frame)
            else:
                out[key] = requalify(item, frame)
        return out
    if isinstance(value, list):
        return [requalify(item, frame) for item in value]
    return value


async def call_in_frame(session: SessionHost, method: str, arg: JsonValue, ref: FrameRef) -> JsonValue:
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
    result = requalify(await agent_in_frame(session, frame, method, local), frame.short or "")
    if method == "snapshot" and isinstance(result, dict):
        result["text"] = await _nested(session, tab, frame, result.get("text", ""), arg)
    if method == "aim" and isinstance(result, dict) and not result.get("stale"):
        ready = result.get("ready")
        point = (float(ready[0]), float(ready[1])) if isinstance(ready, list) and len(ready) == 2 else None
        chain = await frame_chain(session, frame, point)
        if chain is None:
            return {"stale": True}
        if chain.point is not None:
            result["ready"] = list(chain.point)
        elif chain.blocked is not None:
            if arg.get("scroll", True) and not arg.get("reveal"):
                # In view and on top in its own document, not through the documents above
                # it (scrolled out of a container, covered by a banner): scroll to it (the
                # browser scrolls the frames above too) and aim again.
                return await call_in_frame(session, method, {**arg, "reveal": True, "mark": False}, ref)
            del result["ready"]  # input would land elsewhere: leave it to Playwright's wait
            result["wait"] = chain.blocked
        result["frameChain"] = chain.refs
        result["localRef"] = ref.local
    return result


async def _nested(session: SessionHost, tab: Tab, top: Frame, text: str, arg: JsonValue) -> str:
    """``text`` (a snapshot of ``top``) with the snapshots of the frames inside ``top``
    stitched in under their ``<iframe>`` lines.

    A generation at a time, as the visual tree reads frames: the frames whose parents are
    in are asked at once for their ``<iframe>`` refs, then for their snapshots (each with
    what the text before its generation left of ``maxNodes``), and stitched in document
    order, each cut to what those before it left.
    """
    if "iframe" not in text:
        return text
    frames = await frame_tree(session, tab)
    by_id = {f.frame_id: f for f in frames}
    inside = {top.frame_id}
    limit = int((arg or {}).get("maxNodes") or 2000)
    options = {k: v for k, v in (arg or {}).items() if k in ("omit", "includeHidden", "urls")}
    waiting = [frame for frame in frames if frame.parent is not None]
    while generation := [frame for frame in waiting if frame.parent in inside]:
        waiting = [frame for frame in waiting if frame.parent not in inside]
        budget = limit - text.count("\n") - 1
        if budget <= 0:
            break
        owners = await ask_each(functools.partial(owner_of, session, by_id), generation)
        held: list[tuple[Frame, str]] = []
        for frame, owner in zip(generation, owners, strict=True):
            parent = by_id[frame.parent or ""]
            if owner is not None and owner.get("ref") is not None:
                owner_ref = qualify(parent.short, owner["ref"])
                if f"[ref={owner_ref}]" in text:
                    held.append((frame, owner_ref))
        ask = functools.partial(_snapshot, session, {**options, "maxNodes": budget})
        children = await ask_each(ask, [frame for frame, _ in held])
        for (frame, owner_ref), child_text in zip(held, children, strict=True):
            room = limit - text.count("\n") - 1
            if child_text is None or room <= 0:
                continue  # not read, or no room left for it
            # Cut to what is left, as its agent cuts a snapshot at maxNodes: its first lines.
            text, placed = stitch(text, owner_ref, "\n".join(child_text.split("\n")[:room]))
            if placed:
                inside.add(frame.frame_id)
    return text


async def _snapshot(session: SessionHost, arg: JsonObject, frame: Frame) -> str | None:
    """The frame's snapshot text, its refs qualified; None when it cannot be read."""
    try:
        child = await agent_in_frame(session, frame, "snapshot", arg)
    except ToolError:
        return None
    return qualify_refs(str((child or {}).get("text", "")), frame.short)


async def with_frames(session: SessionHost, result: JsonValue, arg: JsonValue) -> JsonValue:
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
