"""Finding an action's target: one round trip that marks the page, finds and readies it.

:func:`aim` asks the page agent's ``aim`` over the session's raw CDP session, from
Trio: a raw ``Runtime.evaluate`` is one socket hop, where Playwright's crosses its
driver process too. It marks the page for change tracking, resolves the ``ref``,
``selector`` or ``coords`` target and, for the actions the server performs with its own
input (click, hover, fill), says whether the element is ready for them.

:func:`check_found` turns the answer into the errors and warnings every action shares
(a stale ref fails at once instead of waiting out Playwright's auto-wait), and
:func:`locator_for` gives Playwright's locator for the same target, for the actions
Playwright performs. Selectors that are not CSS (``role=``, ``text=``, ...) are counted
through Playwright's own engines. :func:`point_at` is where the raw input tools aim.
A named ref (``name_ref``) is already an element's ref when a handler gets here
(:mod:`..reading.resolve`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import trio
from playwright.async_api import ElementHandle, Locator, Page

from ....errors import ToolError
from ....jsonsafe import JsonObject
from ....tools import Reply
from ....tools.shapes import PointTarget
from ....tools.targets import Element, Target, coords_of
from ..agent.pageagent import AGENT_KEY
from ..bridge.driver import REF_ENGINE
from ..failures import selector_refusals
from ..frames.tree import frame_locator
from ..losses import PageScriptError, first_line
from .reach import GRACE_S, known_now, refusal

if TYPE_CHECKING:
    from ..session import ChromiumSession

__all__ = [
    "POINT_WAIT_S",
    "aim",
    "aimed_at",
    "check_found",
    "locator_for",
    "point_at",
    "point_for",
    "resolve_target",
    "target_of",
]

#: How long an input tool waits for its element to be ready to point at.
POINT_WAIT_S = 5.0
#: Between two looks at an element that is not ready yet.
_POINT_RETRY_S = 0.05

_DESCRIBE = f"el => window[{AGENT_KEY!r}].describe(el)"


async def aim(session: ChromiumSession, target: Element, mode: str | None = None, *,
              acting: bool = False, mark: bool = True, scroll: bool = True) -> JsonObject:
    """The page agent's ``aim`` for this call's target (see ``agent/aim.js``).

    ``mode`` is ``"click"``, ``"hover"`` or ``"fill"`` when the caller will act with
    its own input if the answer has ``ready``; ``acting`` when an action follows, so a
    target no action can reach (no area, clipped away) is refused at once.
    ``mark=False`` keeps the change-tracking mark an earlier aim of the same call set (a
    call acting on several targets reports every change since its first);
    ``scroll=False`` aims at the part in view. Through
    :meth:`~.session.ChromiumSession.agent`, so a page that has lost the agent gets it
    installed first.
    """
    coords = coords_of(target)
    spec: JsonObject = {"ref": target.ref, "selector": target.selector,
                            "point": [coords["x"], coords["y"]] if coords else None, "mode": mode,
                            "acting": acting}
    if not mark:
        spec["mark"] = False
    if not scroll:
        spec["scroll"] = False
    try:
        found = await session.agent("aim", spec)
    except PageScriptError as err:  # the page broke something the agent relies on
        raise ToolError("page-error", f"finding the target failed in the page: {first_line(err)}") from err
    if found.get("unknownRef") and session.ref_was_shown(str(spec["ref"])):
        return {"stale": True}  # issued on an earlier page of this session: that element is gone
    answer: JsonObject = found
    return answer


def check_found(target: Element, found: JsonObject, reply: Reply) -> JsonObject | None:
    """The target's description, or the error every action gives for a missing one.

    Not for ``notCss`` answers: those are counted by :func:`locator_for`.
    """
    ref, selector = target.ref, target.selector
    if ref is not None and found.get("unknownRef"):
        raise ToolError("unknown-ref", f"ref {ref} was never issued on this page; take a snapshot first "
                        "(refs come from snapshot, find and action results)", ref=ref)
    if ref is not None and found.get("stale"):
        raise ToolError("stale-element",
                        f"ref {ref} no longer points at a live element; take a new snapshot", ref=ref)
    if selector is not None:
        _check_count(selector, found["count"], reply)
    if found.get("cannot"):
        raise ToolError("not-visible", f"{_label(ref, selector)} cannot be acted on: {found['cannot']}",
                        reason=found.get("why") or found["cannot"], target=found["target"])
    described: JsonObject | None = found["target"]
    return described


def _label(ref: str | None, selector: str | None) -> str:
    return f"ref {ref}" if ref is not None else f"selector {selector!r}"


def _check_count(selector: str, count: int, reply: Reply) -> None:
    if count == 0:
        raise ToolError("target-not-found", f"no element matches selector {selector!r}", selector=selector)
    if count > 1:
        reply.warn(f"selector {selector!r} matched {count} elements; acted on the first")


async def locator_for(page: Page, target: Element, found: JsonObject,
                      reply: Reply) -> tuple[Locator | None, JsonObject | None]:
    """Playwright's locator for the target ``found`` describes, and the target's
    description; ``(None, element under the point)`` for coords (Playwright thread)."""
    ref, selector = target.ref, target.selector
    if ref is None and selector is None:
        return None, found["target"]
    if not found.get("notCss"):
        described = check_found(target, found, reply)
        if ref is not None and found.get("frameChain") is not None:
            return frame_locator(page, found), described  # an element in a frame (f2e5)
        if ref is not None:
            return page.locator(f"{REF_ENGINE}={ref}"), described
        assert selector is not None  # no ref, and not coords (above)
        return page.locator(selector).first, described
    assert selector is not None  # a notCss answer comes for selectors only
    locator = page.locator(selector)
    with selector_refusals(selector=selector):  # the boundary names the argument that held it
        count = await locator.count()
    _check_count(selector, count, reply)
    return locator.first, await locator.first.evaluate(_DESCRIBE)


async def target_of(session: ChromiumSession, target: Element, reply: Reply, *,
                    mark: bool = True) -> JsonObject | None:
    """The description of a ``ref`` / ``selector`` target, found as every action finds it."""
    found = await aim(session, target, mark=mark)
    if not found.get("notCss"):
        return check_found(target, found, reply)
    _, described = await session.pw(locator_for, session.page, target, found, reply)
    answer: JsonObject | None = described
    return answer


async def resolve_target(session: ChromiumSession, target: Element, reply: Reply) -> ElementHandle:
    """Playwright's element handle for a ``ref`` / ``selector`` target."""
    found = await aim(session, target)

    async def handle() -> ElementHandle:
        locator, _ = await locator_for(session.page, target, found, reply)
        assert locator is not None  # a ref or a selector has one
        return await locator.element_handle(timeout=10_000)

    return await session.pw(handle)


async def _ref_of_selector(session: ChromiumSession, target: Element, found: JsonObject,
                           reply: Reply) -> str:
    """The ref of the first element a selector the agent cannot run (``role=``,
    ``text=``) matches, found by Playwright's engines, so the agent can aim at it."""

    async def ref() -> str:
        locator, _ = await locator_for(session.page, target, found, reply)
        assert locator is not None  # a selector has one
        return str(await locator.evaluate(f"el => window[{AGENT_KEY!r}].refFor(el)"))

    return str(await session.pw(ref))


async def point_at(session: ChromiumSession, target: Element, reply: Reply, *, mark: bool = True, scroll: bool = True,
                   timeout_s: float = POINT_WAIT_S) -> tuple[tuple[float, float], JsonObject | None]:
    """Where input for a ``ref`` / ``selector`` target goes, and the target's description.

    The raw input tools (``mouse_*``, ``drag``, gestures) send their events at a point;
    for an element that point is the centre of its part in view once it is visible,
    still and on top there, checked as a click's is (enabled aside: pressing a disabled
    control is something a user can do). A target that is not ready is looked at again
    until ``timeout_s``; then the call fails naming what was wrong.
    """
    found = await aim(session, target, "hover", mark=mark, scroll=scroll)
    if found.get("notCss"):
        target = Target(ref=await _ref_of_selector(session, target, found, reply))
        found = await aim(session, target, "hover", mark=False, scroll=scroll)
    started = trio.current_time()
    deadline = started + timeout_s
    while True:
        described = check_found(target, found, reply)
        ready = found.get("ready")
        if isinstance(ready, list):
            return (float(ready[0]), float(ready[1])), aimed_at(reply, described)
        now = trio.current_time()
        # What no wait mends is said after the grace; not scrolled into view, an element
        # outside it stays outside: no wait helps at all.
        if known_now(found) and (now >= started + GRACE_S or (not scroll and found.get("why") == "outside-viewport")):
            raise refusal("input", _label(target.ref, target.selector), found)
        if now >= deadline:
            reason = found.get("wait", "not ready")
            label = _label(target.ref, target.selector)
            raise ToolError("action-failed", f"{label} is not ready for input: {reason}",
                            reason=found.get("why", "not-ready"))
        await trio.sleep(_POINT_RETRY_S)
        found = await aim(session, target, "hover", mark=False, scroll=scroll)


async def point_for(session: ChromiumSession, value: PointTarget, reply: Reply, *, mark: bool = True,
                    scroll: bool = True) -> tuple[tuple[float, float], JsonObject | None]:
    """A point target (``{ref}``, ``{selector}`` or ``{x, y}``, see
    :func:`~browx_actors.tools.targets.point_target`): where input goes, and what is there."""
    target = Target.of(value)
    if target.coords is not None:
        found = await aim(session, target, mark=mark)
        return (float(target.coords["x"]), float(target.coords["y"])), aimed_at(reply, found["target"])
    return await point_at(session, target, reply, mark=mark, scroll=scroll)


def aimed_at(reply: Reply, target: JsonObject | None) -> JsonObject | None:
    """``target``, noted as the call's first target: what the result names as the
    target if a dialog opens under the input, before the settle could describe it."""
    reply.fields.setdefault("target", target)
    return target
