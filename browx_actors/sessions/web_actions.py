"""Action tools of the chromium engine: click, hover, fill, press, select, scroll.

Each action finds its target (``ref``, ``selector`` or ``coords``), acts, then waits
until its effects have settled and reports them in one shape (:mod:`.web_settle`)::

    {ok, action, target, navigation: {changed, from, to}, structure: {appeared, removed},
     console: [errors logged meanwhile], element: <state after>,
     opened: [tabs the action opened], settled, warnings}

Two ways to act, one result. The first round trip (:func:`~.web_target.aim`) marks the
page, finds the target and, for click, hover and fill, checks it the way Playwright's
actionability checks do: visible, enabled, not animating, in view and on top at its
point for the mouse; visible, enabled and editable for typing, which it then focuses
and selects. When the element is ready, the server sends the input itself over raw CDP
(:mod:`.web_input`): trusted events, written back to back. When it is not, or for the
other actions, Playwright acts (its locators wait for the element and explain what is
wrong with it; refs resolve through the ``browxref`` selector engine). A click that
Playwright would make at once costs it 45-70 ms here; the direct one a few.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from ..actor import ToolError
from ..cdp import CdpError, CdpSessionLost, CdpTimeout
from .chromium import ChromiumSession, first_line
from .web_input import Command, insert_text, key_press, modifier_keys, mouse_click, mouse_move
from .web_settle import Before, settle
from .web_target import aim, check_found, locator_for

__all__ = ["ACTIONS", "run_action"]

ACTION_TIMEOUT_MS = 10_000

#: Builds the direct input from aim's answer, or None to leave the action to Playwright.
DirectInput = Callable[[dict[str, Any]], "list[Command] | None"]


def _target_label(args: dict[str, Any]) -> str:
    if args.get("ref"):
        return f"ref {args['ref']}"
    if args.get("selector"):
        return f"selector {args['selector']!r}"
    return "coords"


async def _act_with_playwright(
    session: ChromiumSession,
    action: str,
    args: dict[str, Any],
    act: Callable[[Any, Any], Awaitable[None]],
    found: dict[str, Any],
    before: Before,
    warnings: list[str],
) -> dict[str, Any]:
    """Locate, act through Playwright, settle (one hop, on the Playwright thread)."""
    page = before.page
    locator, target = await locator_for(page, args, found, warnings)
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
    return await settle(session, action, before, target, warnings)


async def _send_input(session: ChromiumSession, action: str, args: dict[str, Any],
                      commands: list[Command]) -> None:
    try:
        await session.cdp.send_sequence(commands, timeout=ACTION_TIMEOUT_MS / 1000)
    except CdpSessionLost:
        pass  # the page closed itself under the input (window.close()): settle says so
    except CdpTimeout as err:
        raise ToolError("timeout", f"{action} on {_target_label(args)}: {err}") from err
    except CdpError as err:
        raise ToolError("action-failed", f"{action} on {_target_label(args)}: {err.message}") from err


async def run_action(
    session: ChromiumSession,
    action: str,
    args: dict[str, Any],
    act: Callable[[Any, Any], Awaitable[None]],
    *,
    mode: str | None = None,
    direct: DirectInput | None = None,
) -> dict[str, Any]:
    """Find the target, act (directly when ``direct`` gives input, else through
    ``act(page, locator)`` on the Playwright thread), settle and report."""
    last_tab = session.tabs.last_id
    popups = session.human.popups_seen if session.human is not None else 0
    before = Before.of(session)
    warnings: list[str] = []
    if direct is None or not session.options.direct_input:
        direct = mode = None
    found = await aim(session, args, mode)
    commands = None if direct is None else direct(found)
    if commands:
        target = check_found(args, found, warnings)
        await _send_input(session, action, args, commands)
        result = await session.pw(settle, session, action, before, target, warnings)
    else:
        result = await session.pw(_act_with_playwright, session, action, args, act, found, before, warnings)
    result["settled"]["input"] = "cdp" if commands else "playwright"
    if session.human is not None and session.human.popups_seen != popups:
        # The browser opened a page from this one; Playwright reports it a little later.
        await session.settle_tabs()
    result["opened"] = [{"id": tab.id, "url": tab.page.url} for tab in session.tabs.opened_since(last_tab)]
    for tab in result["opened"]:
        result["warnings"].append(f"the {action} opened tab {tab['id']} ({tab['url']}); "
                                  f"select_tab {{tab: {tab['id']}}} acts there")
    return result


def _point(args: dict[str, Any], found: dict[str, Any]) -> tuple[float, float] | None:
    """Where direct mouse input goes: the coords given, or the point aim readied."""
    if args.get("coords"):
        return args["coords"]["x"], args["coords"]["y"]
    ready = found.get("ready")
    return (ready[0], ready[1]) if isinstance(ready, list) else None


def _require_target(args: dict[str, Any], *, coords: bool) -> None:
    names = ["ref", "selector"] + (["coords"] if coords else [])
    given = [n for n in names if args.get(n) is not None]
    if len(given) != 1:
        field = given[1] if len(given) > 1 else names[0]
        raise ToolError("bad-arg", f"give exactly one of {', '.join(names)}", field=field)


# -- the actions ----------------------------------------------------------------------


async def click(session: ChromiumSession, args: dict[str, Any]) -> dict[str, Any]:
    _require_target(args, coords=True)
    button, count = args["button"], args["clickCount"]
    try:
        modifiers = modifier_keys(args["modifiers"] or [])
    except ValueError as err:
        raise ToolError("bad-arg", str(err), field="modifiers") from err

    def direct(found: dict[str, Any]) -> list[Command] | None:
        point = _point(args, found)
        return None if point is None else mouse_click(*point, button=button, click_count=count,
                                                      modifiers=modifiers)

    async def act(page: Any, locator: Any) -> None:
        if locator is not None:
            await locator.click(timeout=ACTION_TIMEOUT_MS, button=button, click_count=count,
                                modifiers=modifiers)
            return
        for key in modifiers:  # coords, with direct input off
            await page.keyboard.down(key)
        try:
            await page.mouse.click(args["coords"]["x"], args["coords"]["y"], button=button, click_count=count)
        finally:
            for key in reversed(modifiers):
                await page.keyboard.up(key)

    return await run_action(session, "click", args, act, mode="click", direct=direct)


async def hover(session: ChromiumSession, args: dict[str, Any]) -> dict[str, Any]:
    _require_target(args, coords=True)

    def direct(found: dict[str, Any]) -> list[Command] | None:
        point = _point(args, found)
        return None if point is None else mouse_move(*point)

    async def act(page: Any, locator: Any) -> None:
        if locator is None:  # coords, with direct input off
            await page.mouse.move(args["coords"]["x"], args["coords"]["y"])
        else:
            await locator.hover(timeout=ACTION_TIMEOUT_MS)

    return await run_action(session, "hover", args, act, mode="hover", direct=direct)


async def fill(session: ChromiumSession, args: dict[str, Any]) -> dict[str, Any]:
    _require_target(args, coords=False)
    value, submit = args["value"], args["submit"]

    def direct(found: dict[str, Any]) -> list[Command] | None:
        # aim focused the field and selected its content: typing replaces it.
        if found.get("ready") is not True:
            return None
        return insert_text(value) + (key_press("Enter") if submit else [])

    async def act(page: Any, locator: Any) -> None:
        await locator.fill(value, timeout=ACTION_TIMEOUT_MS)
        if submit:
            await locator.press("Enter", timeout=ACTION_TIMEOUT_MS)

    return await run_action(session, "fill", args, act, mode="fill", direct=direct)


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
