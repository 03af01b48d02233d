"""scroll: the page or an element, by a delta, to an end, or an element into view.

A scroll is not over when ``scrollBy`` returns: a page with ``scroll-behavior: smooth``
moves over a few hundred milliseconds, and what the page does about it (a virtualised
table drawing the rows now in view, an infinite list fetching more) runs from its
``scroll`` events, which the browser dispatches in the next animation frame. So the
script resolves once the scroll ended (``scrollend``; at once when the box is at that
end already, where no scroll event comes), and the action settles as the wheel does,
after the next frame (``run_steps``'s ``frame``): its result reports the rows the page
drew, and the next snapshot shows them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ....jsonsafe import JsonObject
from ....tools import Reply
from ....tools.actions import ScrollArgs
from .actions import perform, run_steps
from .send import ACTION_TIMEOUT_MS

if TYPE_CHECKING:
    from ..session import ChromiumSession

__all__ = ["SCROLL_END_MS", "scroll"]

#: The longest a scroll (a smooth one) is waited for before the action settles anyway.
SCROLL_END_MS = 2000

#: Scrolls ``el`` (the page's scrolling element when null) by ``[dx, dy]`` or to an end
#: ``to``; resolves once the scroll ended (``scrollend`` on the box, on the document for
#: the page), at once when the box is where the scroll would take it already.
_SCROLLED = """(el, [dx, dy, to, budgetMs]) => new Promise((resolve) => {
  const root = document.scrollingElement || document.documentElement;
  const box = el || root;
  const maxX = box.scrollWidth - box.clientWidth, maxY = box.scrollHeight - box.clientHeight;
  const x = to === 'left' ? 0 : to === 'right' ? maxX : to ? box.scrollLeft : box.scrollLeft + dx;
  const y = to === 'top' ? 0 : to === 'bottom' ? maxY : to ? box.scrollTop : box.scrollTop + dy;
  const clamp = (v, max) => Math.max(0, Math.min(v, max));
  if (Math.abs(clamp(x, maxX) - box.scrollLeft) < 1 && Math.abs(clamp(y, maxY) - box.scrollTop) < 1) {
    resolve();
    return;
  }
  let done = false;
  const onEnd = (event) => {
    if (event.target === box || (box === root && event.target === document)) finish();
  };
  const finish = () => {
    if (done) return;
    done = true;
    removeEventListener('scrollend', onEnd, true);
    resolve();
  };
  addEventListener('scrollend', onEnd, true);
  box.scrollTo(x, y);
  setTimeout(finish, budgetMs);
})"""


async def scroll(session: ChromiumSession, args: ScrollArgs) -> Reply:
    dx, dy, to = args.delta_x, args.delta_y, args.to
    moves = [dx, dy, to, SCROLL_END_MS]

    # Any: an Act's page and locator (see Act).
    async def act(page: Any, locator: Any) -> None:
        if locator is None:
            await page.evaluate(f"(moves) => ({_SCROLLED})(null, moves)", moves)
        elif to is None and dx == 0 and dy == 0:
            await locator.scroll_into_view_if_needed(timeout=ACTION_TIMEOUT_MS)
        else:
            await locator.evaluate(_SCROLLED, moves)

    async def steps(reply: Reply) -> tuple[JsonObject | None, str]:
        return await perform(session, "scroll", args, act, reply)

    reply = await run_steps(session, "scroll", steps, frame=True)
    reply["scroll"] = await session.pw(
        session.page.evaluate, "() => ({x: Math.round(scrollX), y: Math.round(scrollY)})"
    )
    return reply
