"""Reading tools of the firefox engine: snapshot, verify_* and inspect (find and text_search
are chromium's own handlers, which ask nothing of the session but its agent).

The same page agent as chromium's answers them (in a sandbox realm, :mod:`..sandbox`), so
a snapshot of a page reads the same on both engines and an agent's refs and skills carry
over. Selectors are CSS here: Playwright's own engines (``text=``, ``role=``, ``>>``)
exist only where Playwright drives the page, and a selector that is not CSS is refused
naming the field, never matched as nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....errors import ToolError
from ....jsonsafe import JsonObject, JsonValue
from ....tools import Reply
from ....tools.reading import (
    InspectArgs,
    SnapshotArgs,
    VerifyAttributeArgs,
    VerifyCountArgs,
    VerifyTextArgs,
    VerifyValueArgs,
    VerifyVisibleArgs,
)
from ....tools.targets import Element
from ....tools.verdict import verdict
from ...chromium.agent.calls import agent_call
from ...chromium.input.target import check_found
from ...chromium.losses import PageScriptError
from .frames import frame_ref_in, with_frames

if TYPE_CHECKING:
    from ..session import FirefoxSession

__all__ = ["css", "inspect", "snapshot", "verify_attribute", "verify_count", "verify_text",
           "verify_value", "verify_visible"]

#: ``(agent, {selector, ref, name?})``: the element a target names, described (and an attribute read).
_DESCRIBE = """(agent, t) => {
  let el;
  if (t.ref) { el = agent.resolve(t.ref); if (!el) return {gone: true}; }
  else { el = document.querySelector(t.selector); if (!el) return null; }
  const out = {described: agent.describe(el)};
  if (t.name) out.attribute = el.getAttribute(t.name);
  return out;
}"""


async def css(session: FirefoxSession, fn: str, arg: JsonValue, selector: str | None) -> JsonValue:
    """``fn`` in the sandbox; a selector the browser cannot parse refused as ``bad-arg``."""
    try:
        return await session.in_sandbox(fn, arg)
    except PageScriptError as err:
        if selector is not None and "SyntaxError" in str(err):
            raise ToolError("bad-arg", f"selector {selector!r} is not a CSS selector: firefox sessions take CSS "
                            "(Playwright's text=, role= and >> engines are chromium's); or pass a ref",
                            field="selector") from err
        raise


async def snapshot(session: FirefoxSession, args: SnapshotArgs) -> Reply:
    query = {"scope": args.scope, "maxNodes": args.max_nodes, "omit": args.omit or []}
    result = await agent_call(session, "snapshot", query)
    if not frame_ref_in({"ref": args.scope}):  # a frame's own snapshot came with its frames
        result = await with_frames(session, result, query)
    reply = Reply.of(url=result["url"], title=result["title"], snapshot=result["text"],
                     nodeCount=result["nodeCount"])
    if result["truncated"]:
        reply["truncated"] = True
    return reply


async def _describe(session: FirefoxSession, target: Element, attribute: str | None = None) -> JsonObject | None:
    """What the agent says of the target (with ``attribute`` read), or None when a
    selector matches nothing; a ref whose element is gone is ``stale-element``."""
    if target.ref is not None:
        await agent_call(session, "describe", target.ref)  # an unknown ref refused as the agent refuses it
    answer = await css(session, _DESCRIBE, {"ref": target.ref, "selector": target.selector, "name": attribute},
                       target.selector)
    if isinstance(answer, dict) and answer.get("gone"):
        raise ToolError("stale-element", f"ref {target.ref} no longer points at a live element", ref=target.ref)
    return answer if isinstance(answer, dict) else None


async def verify_visible(session: FirefoxSession, args: VerifyVisibleArgs) -> Reply:
    found = await _describe(session, args)
    state = found["described"] if found else None
    visible = bool(state and state["visible"])
    return verdict("visible", visible, True, visible, element=state)


async def verify_text(session: FirefoxSession, args: VerifyTextArgs) -> Reply:
    text = args.text
    if args.ref is None and args.selector is None:
        found = await agent_call(session, "textSearch", {"query": text, "limit": 1, "caseSensitive": True})
        return verdict("text", found["count"] > 0, text, text if found["count"] else "0 matches on the page",
                       matches=found["matches"])
    described = await _describe(session, args)
    actual = ((described or {}).get("described") or {}).get("text") or ""
    passed = actual == text if args.exact else text in actual
    return verdict("text", passed, text, actual)


async def verify_value(session: FirefoxSession, args: VerifyValueArgs) -> Reply:
    described = await _describe(session, args)
    if described is None:
        raise ToolError("target-not-found", "no element matches the selector")
    actual = described["described"].get("value")
    return verdict("value", actual == args.value, args.value, actual)


async def verify_attribute(session: FirefoxSession, args: VerifyAttributeArgs) -> Reply:
    described = await _describe(session, args, args.name)
    if described is None:
        raise ToolError("target-not-found", f"no element matches selector {args.selector!r}")
    actual = described.get("attribute")
    return verdict(f"attribute {args.name}", actual == args.value, args.value, actual)


async def verify_count(session: FirefoxSession, args: VerifyCountArgs) -> Reply:
    actual = await css(session, "(agent, s) => document.querySelectorAll(s).length", args.selector, args.selector)
    return verdict("count", actual == args.count, args.count, actual)


async def inspect(session: FirefoxSession, args: InspectArgs) -> Reply:
    """The element's state, box, computed styles and attributes, from the page agent as on
    chromium. ``accessibility`` is null: WebDriver BiDi reads no accessibility tree (its
    ``locateNodes`` finds by role and name but tells no properties)."""
    reply = Reply(warnings=[])
    found = await agent_call(session, "aim", {"ref": args.ref, "selector": args.selector, "mark": False})
    target = check_found(args, found, reply)
    assert target is not None
    inspected = await agent_call(session, "inspect", {"ref": target["ref"], "styles": args.styles or []})
    reply.fields.update(ref=target["ref"], target=inspected["target"], box=inspected["box"],
                        inViewport=inspected["inViewport"], styles=inspected["styles"],
                        attributes=inspected["attributes"], attributeCount=inspected["attributeCount"],
                        accessibility=None)
    if inspected["attributeCount"] > len(inspected["attributes"]):
        reply.warn(f"the element has {inspected['attributeCount']} attributes; the first "
                   f"{len(inspected['attributes'])} are listed")
    reply.warn("accessibility is null on firefox: WebDriver BiDi reads no accessibility tree")
    return reply
