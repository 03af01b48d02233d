"""Action tools of the chromium engine: click, hover, fill, press (select and scroll: :mod:`.input.selects`,
:mod:`.input.scrolling`).

Each action finds its target (``ref``, ``selector`` or ``coords``), acts, then waits
until its effects have settled (:mod:`.input.settle`) and reports them in one shape,
each thing once (:mod:`.input.brief`)::

    {ok, target, element: <what changed on it>, navigation: {to}, structure: {appeared,
     removed}, console: [errors logged meanwhile], opened: [tabs the action opened],
     settled: {by, ms}, warnings}

with every part but ``target`` and ``settled`` left out when it has nothing to say.

Two ways to act, one result. The first round trip (:func:`~.input.target.aim`) marks the
page, finds the target and, for click, hover and fill, checks it the way Playwright's
actionability checks do: visible, enabled, not animating, in view and on top at its
point for the mouse; visible, enabled and editable for typing, which it then focuses
and selects. When the element is ready, the server sends the input itself over raw CDP
(:mod:`.input.commands`): trusted events, written back to back. When it is not, or for the
other actions, Playwright acts (its locators wait for the element and explain what is
wrong with it; refs resolve through the ``browxref`` selector engine). A click that
Playwright would make at once costs it 45-70 ms here; the direct one a few.

What cannot land is refused at once, not waited out (:mod:`.input.reach`): a target
hidden, without area, out of reach of scrolling, covered (the cover named) or taking no
pointer events is looked at for under a second and then refused with its ``reason``.
A checkbox or radio whose input is hidden or passive (a styled control) is clicked
through its label, as a person clicks it (``via`` in aim's answer).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from ....errors import ToolError
from ....jsonsafe import JsonObject
from ....tools import Reply
from ....tools.actions import ClickArgs, FillArgs, HoverArgs, PressArgs
from ....tools.shapes import Point
from ....tools.targets import Aim, Element, coords_of
from ..bridge.driver import REF_ENGINE
from ..dialogs.book import dialog_warning
from ..failures import waited_on
from ..frames.tree import frame_locator
from ..losses import first_line
from .brief import brief
from .commands import Command, insert_text, key_press, modifier_keys, mouse_click, mouse_move
from .paste import Paste, check_filled, pasting, send_paste
from .reach import known_now, refusal, within_grace
from .send import ACTION_TIMEOUT_MS, send_input, target_label
from .settle import Before, settle
from .target import aim, check_found, locator_for

if TYPE_CHECKING:
    from ..session import ChromiumSession

__all__ = ["ACTION_TIMEOUT_MS", "Act", "Report", "click", "click_as", "clicking", "fill", "filling", "hover",
           "perform", "press", "report_opened", "run_action", "run_steps"]


#: Builds the direct input from aim's answer (commands, or a paste into an editor), or
#: None to leave the action to Playwright.
DirectInput = Callable[[JsonObject], "list[Command] | Paste | None"]
#: What Playwright does for the action: ``act(page, locator)``, with Playwright's Page and
#: Locator (None for a point target). Any: an act hands Playwright the arguments' checked
#: strings (a button, modifiers) where it types Literals, and knows from its target that
#: it has a locator; typed, each act would need a cast for the one and a check for the other.
Act = Callable[[Any, Any], Awaitable[None]]


async def _act_with_playwright(
    session: ChromiumSession,
    action: str,
    target: Element,
    act: Act,
    found: JsonObject,
    before: Before | None,
    reply: Reply,
) -> JsonObject | None:
    """Locate and act through Playwright, then settle unless ``before`` is None (one
    hop, on the Playwright thread); the target's description."""
    page = session.page
    locator, described = await locator_for(page, target, found, reply)
    via = found.get("via")
    if isinstance(via, str) and locator is not None:  # a hidden checkbox or radio: its label takes the click
        locator = (frame_locator(page, {**found, "localRef": via}) if found.get("frameChain") is not None
                   else page.locator(f"{REF_ENGINE}={via}"))
    try:
        await act(page, locator)
    except PlaywrightTimeout as err:
        waited = waited_on(err)
        said = f"; {waited['waitedOn']}" if waited else ""
        raise ToolError("timeout", f"{action} on {target_label(target)}: {first_line(err)}{said}",
                        **(waited or {})) from err
    except PlaywrightError as err:
        message = first_line(err)
        if page.is_closed():
            pass  # the action closed its own tab (window.close()): that is its effect
        elif "not attached" in message or "detached" in message:
            raise ToolError("stale-element", f"{action}: the element left the page ({message})") from err
        else:
            raise ToolError("action-failed", f"{action} on {target_label(target)}: {message}") from err
    if before is not None:
        await settle(session, action, before, described, reply)
    return described


async def perform(
    session: ChromiumSession,
    action: str,
    target: Element,
    act: Act,
    reply: Reply,
    *,
    mode: str | None = None,
    direct: DirectInput | None = None,
    mark: bool = True,
    before: Before | None = None,
) -> tuple[JsonObject | None, str]:
    """Find the target and act, directly when ``direct`` gives input, else through
    ``act(page, locator)`` on the Playwright thread; settle counting from ``before``
    when it is given (in the same hop as Playwright's act). The target's description
    and which input acted (``cdp`` or ``playwright``). A call that acts on several
    targets and settles once (``fill_form``) passes ``mark=False`` after the first."""
    if not session.options.direct_input:
        direct = None  # still aimed with ``mode``: what cannot land is refused at once either way
    found = await aim(session, target, mode, acting=True, mark=mark)
    if mode is not None:
        found = await within_grace(found, lambda: aim(session, target, mode, acting=True, mark=False))
    # What a dialog opening under the input reports as the target (settle sets it after).
    reply.fields.setdefault("target", found.get("target"))
    if known_now(found):
        check_found(target, found, reply)  # a stale or unknown ref says so first
        raise refusal(action, target_label(target), found)
    commands = None if direct is None else direct(found)
    if commands:
        described = check_found(target, found, reply)
        used = "cdp"
        if isinstance(commands, Paste):
            used = await send_paste(session, action, commands, target=target)
        else:
            await send_input(session, action, commands, target=target)
        if before is not None:
            await session.pw(settle, session, action, before, described, reply)
        return described, used
    try:
        described = await session.pw(_act_with_playwright, session, action, target, act, found, before, reply)
    finally:
        # Cut short too (a dialog, a failure after the move): the mouse may have moved.
        _moved_by_playwright(session, coords_of(target), mode)
    return described, "playwright"


def _moved_by_playwright(session: ChromiumSession, coords: Point | None, mode: str | None) -> None:
    """Playwright moved the mouse for a click or hover: to the coords given, else to a
    point of the element this state does not know."""
    tab = session.tabs.current
    if tab is None or mode not in ("click", "hover"):
        return
    if coords:
        tab.input.moved(coords["x"], coords["y"])
    else:
        tab.input.forget_position()


async def run_action(session: ChromiumSession, action: str, target: Element, act: Act, *,
                     mode: str | None = None, direct: DirectInput | None = None,
                     check: Callable[[JsonObject], Awaitable[None]] | None = None) -> Reply:
    """Find the target, act (directly when ``direct`` gives input, else through
    ``act(page, locator)`` on the Playwright thread), settle, ``check`` the target's
    description when given (it raises what did not take), and report."""

    async def steps(reply: Reply, before: Before) -> tuple[JsonObject | None, str]:
        described, used = await perform(session, action, target, act, reply, mode=mode, direct=direct,
                                        before=before)
        if check is not None and described is not None:
            await check(described)
        return described, used

    return await _reported(session, action, steps)


#: What a raw input tool reports of its devices (``pointer``, ``touches``) once its steps
#: ended, and whether a dialog cut them short.
Report = Callable[[Reply, bool], None]


async def run_steps(
    session: ChromiumSession,
    action: str,
    steps: Callable[[Reply], Awaitable[tuple[JsonObject | None, str]]],
    *,
    report: Report | None = None,
    frame: bool = False,
) -> Reply:
    """The action shape for a call that does its own finding and acting:
    ``steps(reply)`` aims, sends its input (or has Playwright act) and answers the
    target's description and the input used; then the call settles once and reports,
    as every action does. Raw input tools (``mouse_*``, ``touch_*``, gestures, ``drag``)
    and the composite ones (``fill_form``, ``choose_option``) go through here.

    A dialog can open under any step; the result then says so (``dialog``), and still
    carries what the steps put in it as they went (``target`` once aimed, with
    :func:`~.input.target.aimed_at`; ``fields`` done) and what ``report`` adds, which runs either way:
    the agent answers the dialog knowing where the pointer and the fingers are.
    ``frame``: the input was continuous (a wheel, moves), which the page's listeners
    get in the next animation frame; the settle reads after it."""

    async def settled(reply: Reply, before: Before) -> tuple[JsonObject | None, str]:
        target, used = await steps(reply)
        await session.pw(settle, session, action, before, target, reply, frame)
        return target, used

    return await _reported(session, action, settled, report)


async def _reported(session: ChromiumSession, action: str,
                    steps: Callable[[Reply, Before], Awaitable[tuple[JsonObject | None, str]]],
                    report: Report | None = None) -> Reply:
    """What was there before, the steps (which settle), the input used, the tabs opened."""
    last_tab = session.tabs.last_id
    popups = session.human.popups_seen if session.human is not None else 0
    before = Before.of(session)
    reply = Reply()
    with session.dialogs.interruptible(before.page) as interrupted:
        _, used = await steps(reply, before)
    if interrupted.cancelled_caught:
        _answer_dialog_opened(session, action, before, reply)
    else:
        reply["settled"]["input"] = used
    if report is not None:
        report(reply, interrupted.cancelled_caught)
    await report_opened(session, reply, last_tab, popups)
    reply.fields = brief(reply.fields)
    return reply


async def report_opened(session: ChromiumSession, reply: Reply, last_tab: int, popups: int) -> None:
    """The tabs the action opened, in ``opened`` (the current tab stays current)."""
    if session.human is not None and session.human.popups_seen != popups:
        # The browser opened a page from this one; Playwright reports it a little later.
        await session.tab_lifecycle.settle_tabs()
    reply["opened"] = [{"id": tab.id, "url": tab.page.url} for tab in session.tabs.opened_since(last_tab)]


def _answer_dialog_opened(session: ChromiumSession, action: str, before: Before, reply: Reply) -> None:
    """The action's result when a dialog opened under it: the page is blocked inside the
    dialog, so nothing more can be read from it until ``handle_dialog`` answers."""
    pending = session.dialogs.open_on(before.page)
    described = None if pending is None else pending.describe()
    reply.fields.update({
        "action": action,
        "target": reply.fields.get("target"),
        "navigation": {"changed": False, "sameDocument": True, "from": before.url, "to": before.url},
        "structure": None,
        "console": session.console.since(before.console_seq, errors_only=True),
        "element": None,
        "dialog": described,
        "settled": {"by": "dialog", "totalMs": round((time.perf_counter() - before.started) * 1000, 1)},
    })
    reply.warn(dialog_warning(described, action))


def _point(coords: Point | None, found: JsonObject) -> tuple[float, float] | None:
    """Where direct mouse input goes: the coords given, or the point aim readied."""
    if coords:
        return coords["x"], coords["y"]
    ready = found.get("ready")
    return (ready[0], ready[1]) if isinstance(ready, list) else None


# -- the actions ----------------------------------------------------------------------


async def click(session: ChromiumSession, args: ClickArgs) -> Reply:
    return await click_as(session, "click", args, args.click_count, args.button, args.modifiers or [])


async def click_as(session: ChromiumSession, action: str, target: Aim, count: int, button: str,
                   modifier_names: list[str]) -> Reply:
    """A click of ``count`` presses on ``target``, reported as ``action``."""
    direct, act = clicking(target, count, button, modifier_names)
    return await run_action(session, action, target, act, mode="click", direct=direct)


def clicking(target: Element, count: int = 1, button: str = "left",
             modifier_names: list[str] | tuple[str, ...] = ()) -> tuple[DirectInput, Act]:
    """The two ways to click ``target`` (``ref`` / ``selector`` / ``coords``)."""
    modifiers = modifier_keys(modifier_names)
    coords = coords_of(target)

    def direct(found: JsonObject) -> list[Command] | None:
        point = _point(coords, found)
        return None if point is None else mouse_click(*point, button=button, click_count=count,
                                                      modifiers=modifiers)

    # Any: an Act's page and locator (see Act).
    async def act(page: Any, locator: Any) -> None:
        if locator is not None:
            await locator.click(timeout=ACTION_TIMEOUT_MS, button=button, click_count=count,
                                modifiers=modifiers)
            return
        assert coords is not None, "no locator: the target is a point"
        for key in modifiers:  # coords, with direct input off
            await page.keyboard.down(key)
        try:
            await page.mouse.click(coords["x"], coords["y"], button=button, click_count=count)
        finally:
            for key in reversed(modifiers):
                await page.keyboard.up(key)

    return direct, act


def filling(value: str, submit: bool = False) -> tuple[DirectInput, Act]:
    """The two ways to replace a text field's value (and press Enter after): an
    editor's (aim answers ``editor``) is pasted (:mod:`.input.paste`)."""

    def direct(found: JsonObject) -> list[Command] | Paste | None:
        # aim focused the field and selected its content: typing replaces it.
        if found.get("ready") is not True:
            return None
        if found.get("editor"):
            return pasting(value, submit)
        return insert_text(value) + (key_press("Enter") if submit else [])

    # Any: an Act's page and locator (see Act).
    async def act(page: Any, locator: Any) -> None:
        await locator.fill(value, timeout=ACTION_TIMEOUT_MS)
        if submit:
            await locator.press("Enter", timeout=ACTION_TIMEOUT_MS)

    return direct, act


async def hover(session: ChromiumSession, args: HoverArgs) -> Reply:
    def direct(found: JsonObject) -> list[Command] | None:
        point = _point(args.coords, found)
        # A button held since mouse_down stays held over the move, as a hand's would.
        tab = session.tabs.current
        return None if point is None else mouse_move(*point, buttons=tab.input.buttons if tab is not None else 0)

    # Any: an Act's page and locator (see Act).
    async def act(page: Any, locator: Any) -> None:
        if locator is None:  # coords, with direct input off
            assert args.coords is not None, "no locator: the target is a point"
            await page.mouse.move(args.coords["x"], args.coords["y"])
        else:
            await locator.hover(timeout=ACTION_TIMEOUT_MS)

    return await run_action(session, "hover", args, act, mode="hover", direct=direct)


async def fill(session: ChromiumSession, args: FillArgs) -> Reply:
    typing, act = filling(args.value, args.submit)
    #: What aim answered, when the direct path was asked for input.
    aimed: list[JsonObject] = []

    def direct(found: JsonObject) -> list[Command] | Paste | None:
        aimed.append(found)
        return typing(found)

    async def check(described: JsonObject) -> None:
        # An editor is checked; so is what Playwright filled, which aim's answer did not see.
        if not aimed or aimed[-1].get("editor"):
            await check_filled(session, described, args.value)

    return await run_action(session, "fill", args, act, mode="fill", direct=direct, check=check)


async def press(session: ChromiumSession, args: PressArgs) -> Reply:
    # Any: an Act's page and locator (see Act).
    async def act(page: Any, locator: Any) -> None:
        if locator is None:
            await page.keyboard.press(args.key)
        else:
            await locator.press(args.key, timeout=ACTION_TIMEOUT_MS)

    try:
        return await run_action(session, "press", args, act)
    except ToolError as err:
        if err.code == "action-failed" and "Unknown key" in err.message:
            raise ToolError("bad-arg", f"unknown key {args.key!r}", field="key") from err
        raise
