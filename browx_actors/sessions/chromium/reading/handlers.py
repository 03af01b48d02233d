"""Reading tools of the chromium engine: snapshot, find, text_search and verify_*.

All of them ask the page agent (``agent/``), which keeps refs stable for as long as
their elements live. Verification tools answer ``ok: false`` with code
``verification-failed`` and the expected and actual values when the page disagrees,
because an assertion that fails is what the agent needs to notice.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Protocol

from playwright.async_api import Error as PlaywrightError

from ....errors import ToolError
from ....jsonsafe import JsonObject, JsonValue
from ....tools import Reply
from ....tools.reading import (
    FindArgs,
    SnapshotArgs,
    TextSearchArgs,
    VerifyAttributeArgs,
    VerifyCountArgs,
    VerifyTextArgs,
    VerifyValueArgs,
    VerifyVisibleArgs,
)
from ....tools.reply import listed
from ....tools.targets import Element
from ....tools.verdict import verdict
from ..agent.calls import AgentHost
from ..agent.pageagent import AGENT_KEY, agent_error
from ..failures import selector_refusals
from ..losses import PageScriptError, first_line

if TYPE_CHECKING:
    from ..session import ChromiumSession

__all__ = ["find", "snapshot", "text_search", "verify_attribute", "verify_count", "verify_text", "verify_value",
           "verify_visible"]


_REF_IN_DETAIL = re.compile(r"\bref (e\d+)\b")

#: Agent error codes as the agent sees them, mapped to the codes tools answer with.
_AGENT_CODES = {"not-found": "target-not-found", "bad-selector": "bad-arg", "bad-arg": "bad-arg"}


class Reading(AgentHost, Protocol):
    """What find and text_search need of a session: its page agent, and whether it showed
    a ref on an earlier page. The firefox engine runs these two handlers too."""

    def ref_was_shown(self, ref: str) -> bool: ...


async def _agent(session: Reading, method: str, arg: JsonValue) -> JsonValue:
    """The agent call, with the codes it throws (``stale-element: ...``) as ToolErrors."""
    try:
        return await session.agent(method, arg)
    except (PlaywrightError, PageScriptError) as err:
        found = agent_error(str(err))
        if found is None:
            raise ToolError("page-error", first_line(err)) from err
        code, detail = found
        ref = _REF_IN_DETAIL.search(detail)
        if code == "unknown-ref" and ref is not None and session.ref_was_shown(ref.group(1)):
            # Issued on an earlier page of this session: that element is gone.
            raise ToolError("stale-element", f"ref {ref.group(1)} no longer points at a live element; take a "
                            "new snapshot", ref=ref.group(1)) from err
        raise ToolError(_AGENT_CODES.get(code, code), detail) from err


async def snapshot(session: ChromiumSession, args: SnapshotArgs) -> Reply:
    # The agent takes its options by their JSON names.
    result = await _agent(session, "snapshot", {
        "scope": args.scope,
        "maxNodes": args.max_nodes,
        "omit": args.omit or [],
    })
    reply = Reply.of(url=result["url"], title=result["title"], snapshot=result["text"], nodeCount=result["nodeCount"])
    if result["truncated"]:
        reply["truncated"] = True
    return reply


async def find(session: Reading, args: FindArgs) -> Reply:
    # The agent's query, by JSON name: the criteria given, and how to match them.
    criteria = {"role": args.role, "name": args.name, "text": args.text, "testId": args.test_id}
    query = {key: value for key, value in criteria.items() if value is not None}
    result = await _agent(session, "find", {**query, "exact": args.exact, "limit": args.limit,
                                            "scope": args.scope})
    return Reply.of(**listed(result["matches"], result["count"]))


async def text_search(session: Reading, args: TextSearchArgs) -> Reply:
    result = await _agent(session, "textSearch", {"query": args.query, "limit": args.limit,
                                                  "caseSensitive": args.case_sensitive})
    return Reply.of(**listed(result["matches"], result["count"]))


# -- verification ---------------------------------------------------------------------




def _one_target(target: Element) -> dict[str, str | None]:
    """The ref or selector the rules let through (exactly one)."""
    if target.ref is not None:
        return {"ref": target.ref}
    return {"selector": target.selector}


async def _describe(session: ChromiumSession, element: Element) -> JsonObject | None:
    """The target's state, or None when a selector matches nothing."""
    target = _one_target(element)
    if "ref" in target:
        state = await _agent(session, "describe", target["ref"])
        if state is None:
            raise ToolError("stale-element", f"ref {target['ref']} no longer points at a live element",
                            ref=target["ref"])
        described: JsonObject | None = state
        return described

    async def by_selector() -> JsonObject | None:
        locator = session.page.locator(target["selector"])
        if await locator.count() == 0:
            return None
        described: JsonObject | None = await locator.first.evaluate(f"el => window[{AGENT_KEY!r}].describe(el)")
        return described

    with selector_refusals():
        return await session.pw(by_selector)


async def verify_visible(session: ChromiumSession, args: VerifyVisibleArgs) -> Reply:
    state = await _describe(session, args)
    visible = bool(state and state["visible"])
    return verdict("visible", visible, True, visible, element=state)


async def verify_text(session: ChromiumSession, args: VerifyTextArgs) -> Reply:
    text = args.text
    if args.ref is None and args.selector is None:
        found = await _agent(session, "textSearch", {"query": text, "limit": 1, "caseSensitive": True})
        # Found, it is the text expected; not found, the count says so.
        return verdict("text", found["count"] > 0, text, text if found["count"] else "0 matches on the page",
                       matches=found["matches"])
    state = await _describe(session, args)
    actual = (state or {}).get("text") or ""
    passed = actual == text if args.exact else text in actual
    return verdict("text", passed, text, actual)


async def verify_value(session: ChromiumSession, args: VerifyValueArgs) -> Reply:
    state = await _describe(session, args)
    if state is None:
        raise ToolError("target-not-found", "no element matches the selector")
    actual = state.get("value")
    return verdict("value", actual == args.value, args.value, actual)


async def verify_attribute(session: ChromiumSession, args: VerifyAttributeArgs) -> Reply:
    target = _one_target(args)
    name = args.name
    if "ref" in target:
        # A ref never issued, or whose element is gone, is refused as describe refuses it.
        await _agent(session, "describe", target["ref"])

    async def read() -> str | None:
        page = session.page
        if "ref" in target:
            handle = await page.evaluate_handle(f"r => window[{AGENT_KEY!r}].resolve(r)", target["ref"])
            element = handle.as_element()
            if element is None:
                raise ToolError("stale-element", f"ref {target['ref']} no longer points at a live element",
                                ref=target["ref"])
        else:
            locator = page.locator(target["selector"])
            if await locator.count() == 0:
                raise ToolError("target-not-found", f"no element matches selector {target['selector']!r}")
            element = await locator.first.element_handle()
        value: str | None = await element.get_attribute(name)
        return value

    actual = await session.pw(read)
    return verdict(f"attribute {name}", actual == args.value, args.value, actual)


async def verify_count(session: ChromiumSession, args: VerifyCountArgs) -> Reply:
    with selector_refusals():
        actual = await session.pw(session.page.locator(args.selector).count)
    return verdict("count", actual == args.count, args.count, actual)


