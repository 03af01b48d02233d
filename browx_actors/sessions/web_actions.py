"""Action tools of the chromium engine: click, hover, fill, press, select, scroll.

Each action resolves its target (``ref``, ``selector`` or ``coords``), acts through
Playwright (actionability checks, the real mouse and keyboard pipeline), then waits
until its effects have settled and reports them in one shape::

    {ok, action, target, navigation: {changed, from, to}, structure: {appeared, removed},
     console: [errors logged meanwhile], element: <state after>, settled, warnings}

"Settled" is event-driven, never a fixed sleep: a navigation the action started is
awaited to ``domcontentloaded``; otherwise the page gets one animation frame plus one
task turn, so synchronous handlers, their DOM writes and the next paint are done.

The body of every action runs as one coroutine on the Playwright thread, so the whole
action is one hop across the bridge.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from ..actor import ToolError
from .chromium import ChromiumSession
from .pageagent import AGENT_KEY, AGENT_SOURCE

__all__ = ["ACTIONS", "first_line", "resolve_target", "run_action"]

_A = f"window[{AGENT_KEY!r}]"
_MARK_AND_RESOLVE = f"""(ref) => {{
  const a = {_A};
  if (!a) return "missing";
  a.mark();
  return ref === null ? null : a.resolve(ref);
}}"""
_AFTER = f"""([el, limit]) => new Promise(resolve => requestAnimationFrame(() => setTimeout(() => {{
  const a = {_A};
  if (!a) return resolve(null);
  resolve({{
    changes: a.changes({{limit}}),
    element: el && el.isConnected ? a.describe(el) : null,
  }});
}}, 0)))"""
_HIT = f"([x, y]) => {_A} ? {_A}.hit(x, y) : null"

ACTION_TIMEOUT_MS = 10_000
NAVIGATION_SETTLE_MS = 15_000


def _target_label(args: dict[str, Any]) -> str:
    if args.get("ref"):
        return f"ref {args['ref']}"
    if args.get("selector"):
        return f"selector {args['selector']!r}"
    return "coords"


async def resolve_target(page: Any, args: dict[str, Any], warnings: list[str]) -> Any:
    """The element an action targets (marking the page for change tracking)."""
    ref = args.get("ref")
    selector = args.get("selector")
    if ref is None:
        if await page.evaluate(_MARK_AND_RESOLVE, None) == "missing":
            await page.evaluate(AGENT_SOURCE)
            await page.evaluate(_MARK_AND_RESOLVE, None)
    else:
        handle = await page.evaluate_handle(_MARK_AND_RESOLVE, ref)
        element = handle.as_element()
        if element is None and await handle.json_value() == "missing":
            await page.evaluate(AGENT_SOURCE)
            element = (await page.evaluate_handle(_MARK_AND_RESOLVE, ref)).as_element()
        if element is None:
            raise ToolError(
                "stale-element",
                f"ref {ref} no longer points at a live element; take a new snapshot",
                ref=ref,
            )
        return element
    if selector is None:
        return None
    locator = page.locator(selector)
    try:
        count = await locator.count()
    except PlaywrightError as err:
        raise ToolError("bad-arg", f"selector {selector!r} is not valid: {first_line(err)}",
                        field="selector") from err
    if count == 0:
        raise ToolError("target-not-found", f"no element matches selector {selector!r}", selector=selector)
    if count > 1:
        warnings.append(f"selector {selector!r} matched {count} elements; acted on the first")
    return await locator.first.element_handle(timeout=ACTION_TIMEOUT_MS)


def first_line(err: BaseException) -> str:
    return str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__


async def _perform(
    session: ChromiumSession,
    action: str,
    args: dict[str, Any],
    act: Callable[[Any, Any], Awaitable[None]],
) -> dict[str, Any]:
    """Resolve, act, settle and report (runs on the Playwright thread)."""
    page = session.page
    warnings: list[str] = []
    from_url = page.url
    navigations = session.navigations
    console_seq = session.console.last_seq
    started = time.perf_counter()
    element = await resolve_target(page, args, warnings)
    target = None
    if element is not None:
        target = await page.evaluate(f"(el) => {_A}.describe(el)", element)
    elif args.get("coords"):
        coords = args["coords"]
        target = await page.evaluate(_HIT, [coords["x"], coords["y"]])
    try:
        await act(page, element)
    except PlaywrightTimeout as err:
        raise ToolError("timeout", f"{action} on {_target_label(args)}: {first_line(err)}") from err
    except PlaywrightError as err:
        message = first_line(err)
        if "not attached" in message or "detached" in message:
            raise ToolError("stale-element", f"{action}: the element left the page ({message})") from err
        raise ToolError("action-failed", f"{action} on {_target_label(args)}: {message}") from err
    acted_ms = (time.perf_counter() - started) * 1000

    navigated = session.navigations != navigations or page.url != from_url
    structure = None
    element_after = None
    if navigated:
        try:
            await page.wait_for_load_state("domcontentloaded", timeout=NAVIGATION_SETTLE_MS)
            settled_by = "domcontentloaded"
        except PlaywrightTimeout:
            settled_by = "timeout"
            warnings.append("the navigation did not reach domcontentloaded in time")
    else:
        after = await page.evaluate(_AFTER, [element, 20])
        settled_by = "animation-frame"
        if after is not None:
            structure = after["changes"]
            element_after = after["element"]
    return {
        "ok": True,
        "action": action,
        "target": target,
        "navigation": {"changed": navigated, "from": from_url, "to": page.url},
        "structure": structure,
        "console": session.console.since(console_seq, errors_only=True),
        "element": element_after,
        "settled": {"by": settled_by, "actedMs": round(acted_ms, 1),
                    "totalMs": round((time.perf_counter() - started) * 1000, 1)},
        "warnings": warnings,
    }


async def run_action(session: ChromiumSession, action: str, args: dict[str, Any],
                     act: Callable[[Any, Any], Awaitable[None]]) -> dict[str, Any]:
    return await session.pw(_perform, session, action, args, act)


def _require_target(args: dict[str, Any], *, coords: bool) -> None:
    names = ["ref", "selector"] + (["coords"] if coords else [])
    given = [n for n in names if args.get(n) is not None]
    if len(given) != 1:
        field = given[1] if len(given) > 1 else names[0]
        raise ToolError("bad-arg", f"give exactly one of {', '.join(names)}", field=field)


# -- the actions ----------------------------------------------------------------------


async def click(session: ChromiumSession, args: dict[str, Any]) -> dict[str, Any]:
    _require_target(args, coords=True)
    options = {"button": args["button"], "click_count": args["clickCount"],
               "modifiers": args["modifiers"] or []}

    async def act(page: Any, element: Any) -> None:
        if element is None:
            c = args["coords"]
            await page.mouse.click(c["x"], c["y"], button=options["button"],
                                   click_count=options["click_count"])
        else:
            await element.click(timeout=ACTION_TIMEOUT_MS, **options)

    return await run_action(session, "click", args, act)


async def hover(session: ChromiumSession, args: dict[str, Any]) -> dict[str, Any]:
    _require_target(args, coords=True)

    async def act(page: Any, element: Any) -> None:
        if element is None:
            await page.mouse.move(args["coords"]["x"], args["coords"]["y"])
        else:
            await element.hover(timeout=ACTION_TIMEOUT_MS)

    return await run_action(session, "hover", args, act)


async def fill(session: ChromiumSession, args: dict[str, Any]) -> dict[str, Any]:
    _require_target(args, coords=False)

    async def act(page: Any, element: Any) -> None:
        await element.fill(args["value"], timeout=ACTION_TIMEOUT_MS)
        if args["submit"]:
            await element.press("Enter", timeout=ACTION_TIMEOUT_MS)

    return await run_action(session, "fill", args, act)


async def press(session: ChromiumSession, args: dict[str, Any]) -> dict[str, Any]:
    if args.get("ref") is not None and args.get("selector") is not None:
        raise ToolError("bad-arg", "give at most one of ref, selector", field="selector")

    async def act(page: Any, element: Any) -> None:
        if element is None:
            await page.keyboard.press(args["key"])
        else:
            await element.press(args["key"], timeout=ACTION_TIMEOUT_MS)

    try:
        return await run_action(session, "press", args, act)
    except ToolError as err:
        if err.code == "action-failed" and "Unknown key" in err.message:
            raise ToolError("bad-arg", f"unknown key {args['key']!r}", field="key") from err
        raise


async def select(session: ChromiumSession, args: dict[str, Any]) -> dict[str, Any]:
    _require_target(args, coords=False)
    values = args["values"]

    async def act(page: Any, element: Any) -> None:
        # Match each wanted value against option values first, then visible labels.
        options = await element.evaluate(
            "el => Array.from(el.options || [], o => [o.value, o.label])"
        )
        chosen = []
        for wanted in values:
            match = next((v for v, _ in options if v == wanted), None)
            if match is None:
                match = next((v for v, label in options if label == wanted), None)
            if match is None:
                raise ToolError("bad-arg", f"no option with value or label {wanted!r}", field="values")
            chosen.append(match)
        await element.select_option(value=chosen, timeout=ACTION_TIMEOUT_MS)

    return await run_action(session, "select", args, act)


async def scroll(session: ChromiumSession, args: dict[str, Any]) -> dict[str, Any]:
    if args.get("ref") is not None and args.get("selector") is not None:
        raise ToolError("bad-arg", "give at most one of ref, selector", field="selector")
    dx, dy = args["deltaX"], args["deltaY"]
    targeted = args.get("ref") is not None or args.get("selector") is not None
    if not targeted and dx == 0 and dy == 0:
        raise ToolError("bad-arg", "give a target to scroll into view, or a non-zero deltaX/deltaY",
                        field="deltaY")

    async def act(page: Any, element: Any) -> None:
        if element is not None and dx == 0 and dy == 0:
            await element.scroll_into_view_if_needed(timeout=ACTION_TIMEOUT_MS)
        elif element is not None:
            await element.evaluate("(el, [dx, dy]) => el.scrollBy(dx, dy)", [dx, dy])
        else:
            await page.evaluate("([dx, dy]) => window.scrollBy(dx, dy)", [dx, dy])

    result = await run_action(session, "scroll", args, act)
    result["scroll"] = await session.pw(
        session.page.evaluate, "() => ({x: Math.round(scrollX), y: Math.round(scrollY)})"
    )
    return result


ACTIONS = {"click": click, "hover": hover, "fill": fill, "press": press, "select": select,
           "scroll": scroll}
