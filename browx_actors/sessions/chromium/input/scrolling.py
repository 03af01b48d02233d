"""scroll: the page or an element, by a delta, to an end, or an element into view."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ....tools import Reply
from ....tools.actions import ScrollArgs
from .actions import run_action
from .send import ACTION_TIMEOUT_MS

if TYPE_CHECKING:
    from ..session import ChromiumSession

__all__ = ["scroll"]

#: ``scroll {to}``: the scroll position each end means, as (left, top) in JavaScript.
_SCROLL_ENDS = {"top": "[el.scrollLeft, 0]", "bottom": "[el.scrollLeft, el.scrollHeight]",
                "left": "[0, el.scrollTop]", "right": "[el.scrollWidth, el.scrollTop]"}


async def scroll(session: ChromiumSession, args: ScrollArgs) -> Reply:
    dx, dy, to = args.delta_x, args.delta_y, args.to

    # Any: an Act's page and locator (see Act).
    async def act(page: Any, locator: Any) -> None:
        if to is not None:
            script = f"el => el.scrollTo(...{_SCROLL_ENDS[to]})"
            if locator is not None:
                await locator.evaluate(script)
            else:
                await page.evaluate(f"({script})(document.scrollingElement || document.documentElement)")
        elif locator is not None and dx == 0 and dy == 0:
            await locator.scroll_into_view_if_needed(timeout=ACTION_TIMEOUT_MS)
        elif locator is not None:
            await locator.evaluate("(el, [dx, dy]) => el.scrollBy(dx, dy)", [dx, dy])
        else:
            await page.evaluate("([dx, dy]) => window.scrollBy(dx, dy)", [dx, dy])

    reply = await run_action(session, "scroll", args, act)
    reply["scroll"] = await session.pw(
        session.page.evaluate, "() => ({x: Math.round(scrollX), y: Math.round(scrollY)})"
    )
    return reply
