"""Action tools of the chromium engine: click, hover, fill, press, select, scroll.

Each action resolves its target (``ref``, ``selector`` or ``coords``), acts through
Playwright (actionability checks, the real mouse and keyboard pipeline), then waits
until its effects have settled and reports them in one shape::

    {ok, action, target, navigation: {changed, from, to}, structure: {appeared, removed},
     console: [errors logged meanwhile], element: <state after>,
     opened: [tabs the action opened], settled, warnings}

"Settled" is event-driven, never a fixed sleep: requests the action started are awaited
until they finish (``network-idle``), a navigation it started until
``domcontentloaded``, and then the page gets one task turn (``task-turn``) so that event
handlers, microtasks and zero-delay timers have run before the changes are read.

The body of every action runs as one coroutine on the Playwright thread, so the whole
action is one hop across the bridge: one evaluate to mark the page and describe the
target, one Playwright locator action (refs resolve through the ``browxref`` selector
engine, so actionability checks apply to them too), one evaluate to read the changes.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from ..actor import ToolError
from .chromium import ChromiumSession, first_line
from .driver import REF_ENGINE
from .pageagent import AGENT_KEY, AGENT_SOURCE

__all__ = ["ACTIONS", "first_line", "resolve_target", "run_action"]

_A = f"window[{AGENT_KEY!r}]"

#: Marks the page for change tracking and describes the target, in one round trip.
#: A selector that is not plain CSS (role=, text=, ...) answers ``notCss`` and is
#: counted through Playwright instead.
_PREPARE = f"""([ref, selector, point]) => {{
  const a = {_A};
  if (!a) return {{missing: true}};
  a.mark();
  if (ref !== null) {{
    const el = a.resolve(ref);
    return el ? {{count: 1, target: a.describe(el)}} : {{stale: true}};
  }}
  if (selector !== null) {{
    let found;
    try {{ found = document.querySelectorAll(selector); }} catch (e) {{ return {{notCss: true}}; }}
    return {{count: found.length, target: found.length ? a.describe(found[0]) : null}};
  }}
  return {{count: 0, target: point ? a.hit(point[0], point[1]) : null}};
}}"""

#: After the action: one task turn (handlers, microtasks and timers of 0 ms have run),
#: then the changes since the mark and the target's state.
_AFTER = f"""([ref, limit]) => new Promise(resolve => setTimeout(() => {{
  const a = {_A};
  if (!a) return resolve(null);
  let changes = null, element = null;
  try {{ changes = a.changes({{limit}}); }} catch (e) {{}}
  try {{ element = ref ? a.describe(ref) : null; }} catch (e) {{}}
  resolve({{changes, element}});
}}, 0))"""

ACTION_TIMEOUT_MS = 10_000
NAVIGATION_SETTLE_MS = 15_000
#: Requests an action started get this long to finish before it reports anyway.
NETWORK_SETTLE_S = 3.0


def _target_label(args: dict[str, Any]) -> str:
    if args.get("ref"):
        return f"ref {args['ref']}"
    if args.get("selector"):
        return f"selector {args['selector']!r}"
    return "coords"


async def _prepare(page: Any, args: dict[str, Any], warnings: list[str]) -> tuple[Any, Any]:
    """Mark the page and find the target: ``(locator or None, target description)``."""
    ref, selector = args.get("ref"), args.get("selector")
    point = [args["coords"]["x"], args["coords"]["y"]] if args.get("coords") else None
    found = await page.evaluate(_PREPARE, [ref, selector, point])
    if found.get("missing"):
        await page.evaluate(AGENT_SOURCE)
        found = await page.evaluate(_PREPARE, [ref, selector, point])
    if ref is not None:
        if found.get("stale"):
            raise ToolError("stale-element",
                            f"ref {ref} no longer points at a live element; take a new snapshot", ref=ref)
        return page.locator(f"{REF_ENGINE}={ref}"), found["target"]
    if selector is None:
        return None, found["target"]
    locator = page.locator(selector)
    if found.get("notCss"):
        try:
            count = await locator.count()
        except PlaywrightError as err:
            raise ToolError("bad-arg", f"selector {selector!r} is not valid: {first_line(err)}",
                            field="selector") from err
        target = await locator.first.evaluate(f"el => {_A}.describe(el)") if count else None
    else:
        count, target = found["count"], found["target"]
    if count == 0:
        raise ToolError("target-not-found", f"no element matches selector {selector!r}", selector=selector)
    if count > 1:
        warnings.append(f"selector {selector!r} matched {count} elements; acted on the first")
    return locator.first, target


async def resolve_target(page: Any, args: dict[str, Any], warnings: list[str]) -> Any:
    """The element handle of a ref or selector target (for tools that need a handle)."""
    locator, _ = await _prepare(page, args, warnings)
    return await locator.element_handle(timeout=ACTION_TIMEOUT_MS)


async def _perform(
    session: ChromiumSession,
    action: str,
    args: dict[str, Any],
    act: Callable[[Any, Any], Awaitable[None]],
) -> dict[str, Any]:
    """Prepare, act, settle and report (runs on the Playwright thread)."""
    page = session.page
    warnings: list[str] = []
    from_url = page.url
    navigations = session.navigations
    requests_before = session.requests.started
    console_seq = session.console.last_seq
    started = time.perf_counter()
    locator, target = await _prepare(page, args, warnings)
    try:
        await act(page, locator)
    except PlaywrightTimeout as err:
        raise ToolError("timeout", f"{action} on {_target_label(args)}: {first_line(err)}") from err
    except PlaywrightError as err:
        message = first_line(err)
        if page.is_closed():
            pass  # the action closed its own tab (window.close()): that is its effect
        elif "not attached" in message or "detached" in message:
            raise ToolError("stale-element", f"{action}: the element left the page ({message})") from err
        else:
            raise ToolError("action-failed", f"{action} on {_target_label(args)}: {message}") from err
    acted_ms = (time.perf_counter() - started) * 1000

    settled_by = ["task-turn"]
    if page.is_closed():
        settled_by = ["tab-closed"]
    elif session.requests.started != requests_before:
        if await session.requests.wait_idle(NETWORK_SETTLE_S):
            settled_by.insert(0, "network-idle")
        else:
            warnings.append(f"requests the {action} started were still running after {NETWORK_SETTLE_S:g}s")
    navigated = not page.is_closed() and (session.navigations != navigations or page.url != from_url)
    structure = element_after = None
    if navigated:
        try:
            await page.wait_for_load_state("domcontentloaded", timeout=NAVIGATION_SETTLE_MS)
            settled_by = ["domcontentloaded"]
        except PlaywrightTimeout:
            settled_by = ["timeout"]
            warnings.append("the navigation did not reach domcontentloaded in time")
    elif page.is_closed():
        warnings.append(f"the tab closed during the {action}")
    else:
        try:
            after = await page.evaluate(_AFTER, [(target or {}).get("ref"), 20])
        except PlaywrightError:
            if not page.is_closed():
                raise
            warnings.append(f"the tab closed during the {action}")
        else:
            if after is not None:
                structure, element_after = after["changes"], after["element"]
    return {
        "ok": True,
        "action": action,
        "target": target,
        "navigation": {"changed": navigated, "from": from_url, "to": page.url},
        "structure": structure,
        "console": session.console.since(console_seq, errors_only=True),
        "element": element_after,
        "settled": {"by": "+".join(settled_by), "actedMs": round(acted_ms, 1),
                    "totalMs": round((time.perf_counter() - started) * 1000, 1)},
        "warnings": warnings,
    }


async def run_action(session: ChromiumSession, action: str, args: dict[str, Any],
                     act: Callable[[Any, Any], Awaitable[None]]) -> dict[str, Any]:
    last_tab = session.tabs.last_id
    popups = session.human.popups_seen if session.human is not None else 0
    result = await session.pw(_perform, session, action, args, act)
    if session.human is not None and session.human.popups_seen != popups:
        # The browser opened a page from this one; Playwright reports it a little later.
        await session.settle_tabs()
    result["opened"] = [{"id": tab.id, "url": tab.page.url} for tab in session.tabs.opened_since(last_tab)]
    for tab in result["opened"]:
        result["warnings"].append(f"the {action} opened tab {tab['id']} ({tab['url']}); "
                                  f"select_tab {{tab: {tab['id']}}} acts there")
    return result


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

    async def act(page: Any, locator: Any) -> None:
        if locator is None:
            c = args["coords"]
            await page.mouse.click(c["x"], c["y"], button=options["button"],
                                   click_count=options["click_count"])
        else:
            await locator.click(timeout=ACTION_TIMEOUT_MS, **options)

    return await run_action(session, "click", args, act)


async def hover(session: ChromiumSession, args: dict[str, Any]) -> dict[str, Any]:
    _require_target(args, coords=True)

    async def act(page: Any, locator: Any) -> None:
        if locator is None:
            await page.mouse.move(args["coords"]["x"], args["coords"]["y"])
        else:
            await locator.hover(timeout=ACTION_TIMEOUT_MS)

    return await run_action(session, "hover", args, act)


async def fill(session: ChromiumSession, args: dict[str, Any]) -> dict[str, Any]:
    _require_target(args, coords=False)

    async def act(page: Any, locator: Any) -> None:
        await locator.fill(args["value"], timeout=ACTION_TIMEOUT_MS)
        if args["submit"]:
            await locator.press("Enter", timeout=ACTION_TIMEOUT_MS)

    return await run_action(session, "fill", args, act)


async def press(session: ChromiumSession, args: dict[str, Any]) -> dict[str, Any]:
    if args.get("ref") is not None and args.get("selector") is not None:
        raise ToolError("bad-arg", "give at most one of ref, selector", field="selector")

    async def act(page: Any, locator: Any) -> None:
        if locator is None:
            await page.keyboard.press(args["key"])
        else:
            await locator.press(args["key"], timeout=ACTION_TIMEOUT_MS)

    try:
        return await run_action(session, "press", args, act)
    except ToolError as err:
        if err.code == "action-failed" and "Unknown key" in err.message:
            raise ToolError("bad-arg", f"unknown key {args['key']!r}", field="key") from err
        raise


async def select(session: ChromiumSession, args: dict[str, Any]) -> dict[str, Any]:
    _require_target(args, coords=False)
    values = args["values"]

    async def act(page: Any, locator: Any) -> None:
        # Match each wanted value against option values first, then visible labels.
        options = await locator.evaluate(
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
        await locator.select_option(value=chosen, timeout=ACTION_TIMEOUT_MS)

    return await run_action(session, "select", args, act)


async def scroll(session: ChromiumSession, args: dict[str, Any]) -> dict[str, Any]:
    if args.get("ref") is not None and args.get("selector") is not None:
        raise ToolError("bad-arg", "give at most one of ref, selector", field="selector")
    dx, dy = args["deltaX"], args["deltaY"]
    targeted = args.get("ref") is not None or args.get("selector") is not None
    if not targeted and dx == 0 and dy == 0:
        raise ToolError("bad-arg", "give a target to scroll into view, or a non-zero deltaX/deltaY",
                        field="deltaY")

    async def act(page: Any, locator: Any) -> None:
        if locator is not None and dx == 0 and dy == 0:
            await locator.scroll_into_view_if_needed(timeout=ACTION_TIMEOUT_MS)
        elif locator is not None:
            await locator.evaluate("(el, [dx, dy]) => el.scrollBy(dx, dy)", [dx, dy])
        else:
            await page.evaluate("([dx, dy]) => window.scrollBy(dx, dy)", [dx, dy])

    result = await run_action(session, "scroll", args, act)
    result["scroll"] = await session.pw(
        session.page.evaluate, "() => ({x: Math.round(scrollX), y: Math.round(scrollY)})"
    )
    return result


ACTIONS = {"click": click, "hover": hover, "fill": fill, "press": press, "select": select,
           "scroll": scroll}
