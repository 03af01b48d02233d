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
through Playwright's own engines.
"""

from __future__ import annotations

from typing import Any

from playwright.async_api import Error as PlaywrightError

from ...errors import ToolError
from ...tooling import Reply
from .driver import REF_ENGINE
from .frames import frame_locator
from .pageagent import AGENT_KEY
from .session import ChromiumSession, PageScriptError, first_line

__all__ = ["aim", "check_found", "locator_for", "resolve_target", "target_of"]

_DESCRIBE = f"el => window[{AGENT_KEY!r}].describe(el)"


async def aim(session: ChromiumSession, args: dict[str, Any], mode: str | None = None) -> dict[str, Any]:
    """The page agent's ``aim`` for this call's target (see ``agent/aim.js``).

    ``mode`` is ``"click"``, ``"hover"`` or ``"fill"`` when the caller will act with
    its own input if the answer has ``ready``. Through :meth:`ChromiumSession.agent`,
    so a page that has lost the agent gets it installed first.
    """
    coords = args.get("coords")
    spec = {"ref": args.get("ref"), "selector": args.get("selector"),
            "point": [coords["x"], coords["y"]] if coords else None, "mode": mode}
    try:
        return await session.agent("aim", spec)
    except PageScriptError as err:  # the page broke something the agent relies on
        raise ToolError("page-error", f"finding the target failed in the page: {first_line(err)}") from err


def check_found(args: dict[str, Any], found: dict[str, Any], reply: Reply) -> dict[str, Any] | None:
    """The target's description, or the error every action gives for a missing one.

    Not for ``notCss`` answers: those are counted by :func:`locator_for`.
    """
    ref, selector = args.get("ref"), args.get("selector")
    if ref is not None and found.get("stale"):
        raise ToolError("stale-element",
                        f"ref {ref} no longer points at a live element; take a new snapshot", ref=ref)
    if selector is not None:
        _check_count(selector, found["count"], reply)
    return found["target"]


def _check_count(selector: str, count: int, reply: Reply) -> None:
    if count == 0:
        raise ToolError("target-not-found", f"no element matches selector {selector!r}", selector=selector)
    if count > 1:
        reply.warn(f"selector {selector!r} matched {count} elements; acted on the first")


async def locator_for(page: Any, args: dict[str, Any], found: dict[str, Any],
                      reply: Reply) -> tuple[Any, dict[str, Any] | None]:
    """Playwright's locator for the target ``found`` describes, and the target's
    description; ``(None, element under the point)`` for coords (Playwright thread)."""
    ref, selector = args.get("ref"), args.get("selector")
    if ref is None and selector is None:
        return None, found["target"]
    if not found.get("notCss"):
        target = check_found(args, found, reply)
        if ref is not None and found.get("frameChain") is not None:
            return frame_locator(page, found), target  # an element in a frame (f2e5)
        if ref is not None:
            return page.locator(f"{REF_ENGINE}={ref}"), target
        return page.locator(selector).first, target
    assert selector is not None  # a notCss answer comes for selectors only
    locator = page.locator(selector)
    try:
        count = await locator.count()
    except PlaywrightError as err:
        raise ToolError("bad-arg", f"selector {selector!r} is not valid: {first_line(err)}",
                        field="selector") from err
    _check_count(selector, count, reply)
    return locator.first, await locator.first.evaluate(_DESCRIBE)


async def target_of(session: ChromiumSession, args: dict[str, Any], reply: Reply) -> dict[str, Any] | None:
    """The description of a ``ref`` / ``selector`` target, found as every action finds it."""
    found = await aim(session, args)
    if not found.get("notCss"):
        return check_found(args, found, reply)
    _, target = await session.pw(locator_for, session.page, args, found, reply)
    return target


async def resolve_target(session: ChromiumSession, args: dict[str, Any], reply: Reply) -> Any:
    """Playwright's element handle for a ``ref`` / ``selector`` target."""
    found = await aim(session, args)

    async def handle() -> Any:
        locator, _ = await locator_for(session.page, args, found, reply)
        return await locator.element_handle(timeout=10_000)

    return await session.pw(handle)
