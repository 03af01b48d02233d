"""Frames on firefox: each frame's own agent, refs spelled ``f<K>e<N>``, snapshots stitched.

A frame is a browsing context with a parent. The session numbers each tab's frames as
the browser creates them (``browsingContext.contextCreated``; ``f1``, ``f2``... stable
for the frame's life, never reused: :meth:`~..tabs.Tab.frame_id`), the spelling chromium
uses (:mod:`...chromium.frames.refs`, whose pure functions this shares), so a ref into a
frame reads the same on both engines. Every frame runs its own copy of the agent in its
own sandbox; a call whose ref or scope names a frame goes to that frame's agent
(:func:`route`), and what comes back is spelled for the tab again. An aimed point is
moved from the frame's viewport into the tab's by the content-box offsets of the
``<iframe>`` elements it sits in, so trusted input lands on it.

Which ``<iframe>`` holds which frame, the sandbox of the parent tells: a frame
element's ``contentWindow`` travels over BiDi as a window remote value carrying the
child's context id.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from ....bidi import BidiFailure
from ....errors import ToolError
from ....jsonsafe import JsonValue
from ....tools import Reply
from ....tools.reading import FramesListArgs
from ...chromium.agent.pageagent import AGENT_KEY
from ...chromium.frames.calls import requalify, routes_to_frame
from ...chromium.frames.refs import FrameRef, parse_ref, qualify, qualify_refs, stitch
from ...chromium.losses import PageScriptError
from ...chromium.network.redact import redact_url
from .. import sandbox
from ..host import FirefoxHost
from ..sandbox import SANDBOX
from ..tabs import Tab

__all__ = ["frame_ref_in", "frames_list", "owners", "route", "with_frames"]

#: In a document's sandbox: each frame element's ref and its window (the child's context).
_OWNERS = f"""() => {{
  const agent = window[{AGENT_KEY!r}];
  if (!agent) return [];
  return Array.from(document.querySelectorAll('iframe, frame'), f => [agent.refFor(f), f.contentWindow, f.name]);
}}"""

#: In the parent's sandbox: where the frame element's content box starts in its viewport.
_OFFSET = """(agent, ref) => {
  const el = agent.resolve(ref);
  if (!el) return null;
  const r = el.getBoundingClientRect(), s = getComputedStyle(el);
  return [r.x + el.clientLeft + parseFloat(s.paddingLeft), r.y + el.clientTop + parseFloat(s.paddingTop)];
}"""


async def owners(session: FirefoxHost, context: str) -> dict[str, str]:
    """The frame elements of ``context``'s document: child context -> the element's ref there."""
    return {child: ref for child, (ref, _) in (await _owners(session, context)).items()}


async def _owners(session: FirefoxHost, context: str) -> dict[str, tuple[str, str]]:
    """Child context -> (the frame element's ref, its name) in ``context``'s document."""
    try:
        answer = await session.bidi.send("script.callFunction", {
            "functionDeclaration": _OWNERS, "target": {"context": context, "sandbox": SANDBOX},
            "awaitPromise": False, "serializationOptions": {"maxObjectDepth": 2}}, timeout=session.left())
    except BidiFailure:
        return {}
    found: dict[str, tuple[str, str]] = {}
    for row in (answer.get("result") or {}).get("value") or []:
        ref, window, name = ((row.get("value") or []) + [None, None, None])[:3]
        child = ((window or {}).get("value") or {}).get("context") if isinstance(window, dict) else None
        if isinstance(ref, dict) and isinstance(ref.get("value"), str) and isinstance(child, str):
            found[child] = (ref["value"], str((name or {}).get("value") or "") if isinstance(name, dict) else "")
    return found


def _context_of(session: FirefoxHost, tab: Tab, frame: str) -> str:
    context = tab.frame_context(frame)
    if context is None:
        raise ToolError("stale-element", f"frame {frame} is gone; take a new snapshot")
    return context


async def _offset(session: FirefoxHost, tab: Tab, context: str) -> tuple[float, float] | None:
    """Where ``context``'s viewport starts in the tab's, summed up its chain of frames."""
    x = y = 0.0
    while context != tab.context:
        parent = tab.parent_of(context)
        if parent is None:
            return None
        owner = (await owners(session, parent)).get(context)
        if owner is None:
            return None
        at = await sandbox.call(session.bidi, parent, _OFFSET, owner, timeout=session.left())
        if not isinstance(at, list):
            return None
        x, y, context = x + float(at[0]), y + float(at[1]), parent
    return x, y


async def route(session: FirefoxHost, method: str, fn: str, arg: JsonValue) -> JsonValue:
    """``fn`` (an agent call's wrapper) in the frame ``arg`` names, answered as the tab spells it."""
    tab = session.tab
    ref = routes_to_frame(method, arg) if method else _ref_in(arg)
    if ref is None or ref.frame is None:
        return await sandbox.call(session.bidi, tab.context, fn, arg, timeout=session.left())
    context = _context_of(session, tab, ref.frame)
    local = _localised(method, arg, ref)
    answer = requalify(await sandbox.call(session.bidi, context, fn, local, timeout=session.left()), ref.frame)
    if method == "aim" and isinstance(answer, dict) and isinstance(answer.get("ready"), list):
        offset = await _offset(session, tab, context)
        if offset is None:
            return {"stale": True}
        answer["ready"] = [answer["ready"][0] + offset[0], answer["ready"][1] + offset[1]]
    if method == "snapshot" and isinstance(answer, dict):
        answer["text"] = await _nested(session, tab, context, str(answer.get("text") or ""), local)
    return answer


def _ref_in(arg: JsonValue) -> FrameRef | None:
    return parse_ref(arg.get("ref")) if isinstance(arg, dict) else None


def _localised(method: str, arg: JsonValue, ref: FrameRef) -> JsonValue:
    """``arg`` with the frame's part of its ref (or scope) taken off."""
    if isinstance(arg, str):
        return ref.local
    if isinstance(arg, dict):
        field = "scope" if method in ("snapshot", "find") and "scope" in arg and parse_ref(arg["scope"]) else "ref"
        return {**arg, field: ref.local}
    return arg


def frame_ref_in(arg: JsonValue) -> bool:
    """Whether a sandbox call's argument names an element inside a frame."""
    ref = _ref_in(arg)
    return ref is not None and ref.frame is not None


async def _nested(session: FirefoxHost, tab: Tab, context: str, text: str, arg: JsonValue) -> str:
    """``text`` (a snapshot of ``context``) with each frame inside it stitched in under its
    ``<iframe>`` line, depth first, each frame's refs qualified with its id."""
    if "iframe" not in text:
        return text
    options = {k: v for k, v in (arg if isinstance(arg, dict) else {}).items()
               if k in ("omit", "includeHidden", "urls", "maxNodes")}
    for child, owner in (await owners(session, context)).items():
        short = tab.frame_id(child)
        owner_ref = qualify(tab.frame_id(context) if context != tab.context else None, owner)
        if short is None or f"[ref={owner_ref}]" not in text:
            continue
        try:
            snapped = await sandbox.call(session.bidi, child, "(agent, a) => agent.snapshot(a)", options,
                                         timeout=session.left())
        except (BidiFailure, PageScriptError):
            continue  # a frame still loading, or one the agent cannot reach: the line stands alone
        child_text = qualify_refs(str((snapped or {}).get("text") or ""), short)
        child_text = await _nested(session, tab, child, child_text, arg)
        text, _ = stitch(text, owner_ref, child_text)
    return text


async def with_frames(session: FirefoxHost, result: JsonValue, arg: JsonValue) -> JsonValue:
    """A top-document snapshot with its frames' snapshots stitched in (a page without
    ``<iframe>`` lines costs nothing more)."""
    if not isinstance(result, dict) or "iframe" not in str(result.get("text", "")):
        return result
    tab = session.tab
    text = await _nested(session, tab, tab.context, str(result["text"]), arg)
    return {**result, "text": text, "nodeCount": text.count("\n") + 1 if text else 0, "refCount": text.count("[ref=")}


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme in ("http", "https") else url


async def frames_list(session: FirefoxHost, args: FramesListArgs) -> Reply:
    """The tab's frames with their ids, URLs, origins and the ``<iframe>`` ref that holds
    each, in chromium's lines (Firefox does not say which frames run out of process)."""
    tab = session.tab
    tree = await session.bidi.send("browsingContext.getTree", {"root": tab.context}, timeout=session.left())
    urls: dict[str, str] = {}
    stack = list(tree.get("contexts") or [])
    while stack:
        node = stack.pop()
        urls[str(node.get("context"))] = str(node.get("url") or "")
        stack.extend(node.get("children") or [])
    top_origin = _origin(urls.get(tab.context, tab.url))
    rows: list[str | dict[str, object]] = []
    held: dict[str, dict[str, tuple[str, str]]] = {}
    for short, context, parent in tab.frames():
        if context not in urls:
            continue  # gone since the browser reported it
        if parent not in held:
            held[parent] = await _owners(session, parent)
        owner, name = held[parent].get(context, (None, ""))
        parent_id = tab.frame_id(parent)
        owner_ref = None if owner is None else qualify(parent_id, owner)
        url, origin = urls[context], _origin(urls[context])
        if args.details:
            rows.append({"id": short, "url": redact_url(url), "name": name, "origin": origin,
                         "sameOrigin": origin == top_origin, "parent": parent_id, "ownerRef": owner_ref})
        else:
            where = "same-origin" if origin == top_origin else "cross-origin"
            named = f' name="{name}"' if name else ""
            rows.append(f"{short} {redact_url(url)}{named} ({where})" + (f" in {owner_ref}" if owner_ref else ""))
    return Reply.of(url=redact_url(tab.url), frames=rows, count=len(rows))
