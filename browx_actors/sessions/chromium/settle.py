"""After an action: wait until its effects have settled, then report them in one shape.

"Settled" is event-driven, never a fixed sleep. The page first gets one task turn
(``task-turn``: event handlers, microtasks and zero-delay timers have run) and the
changes since the action's mark are read. That read travels on the tab's raw CDP
session (:meth:`ChromiumSession.read_page`), behind the events the page sent meanwhile
on that same session, which feed the session's counters: so they have seen the requests
the action's handlers started and the errors they logged. A navigation is different: the browser
reports its request on its own schedule, so the page agent says when the document
started leaving (the Navigation API's ``navigate`` event), and the settle waits until
that navigation commits, or its request ends without one (a 204, a download). Requests
the action started are awaited until they finish (``network-idle``) and the changes
read again; a navigation is awaited until ``domcontentloaded``.

Runs on the Playwright thread (:meth:`ChromiumSession.pw`), as one hop.
"""

from __future__ import annotations

import json
import time
from typing import Any

import attrs
from playwright.async_api import TimeoutError as PlaywrightTimeout

from ...tooling import Reply
from .pageagent import AGENT_KEY
from .reads import PageGone, read_page
from .session import ChromiumSession

__all__ = ["NAVIGATION_SETTLE_MS", "NETWORK_SETTLE_S", "Before", "settle"]

NAVIGATION_SETTLE_MS = 15_000
#: Requests an action started get this long to finish before it reports anyway.
NETWORK_SETTLE_S = 3.0
#: Appeared / removed nodes listed per action.
CHANGES_LIMIT = 20

#: One task turn (handlers, microtasks and 0 ms timers have run), then the changes
#: since the mark and the target's state.
_AFTER = f"""([ref, limit]) => new Promise(resolve => setTimeout(() => {{
  const a = window[{AGENT_KEY!r}];
  if (!a) return resolve(null);
  let changes = null, element = null;
  try {{ changes = a.changes({{limit}}); }} catch (e) {{}}
  try {{ element = ref ? a.describe(ref) : null; }} catch (e) {{}}
  resolve({{changes, element}});
}}, 0))"""



@attrs.frozen
class Before:
    """What the session had seen when the action began: the changes are counted from it."""

    page: Any
    url: str
    navigations: int
    requests: int
    navigations_ended: int
    console_seq: int
    started: float
    #: Documents the tab had committed, as its raw event session reported.
    commits: int = 0

    @classmethod
    def of(cls, session: ChromiumSession) -> Before:
        return cls(page=session.page, url=session.page.url, navigations=session.navigations,
                   requests=session.requests.started, navigations_ended=session.requests.navigations_ended,
                   console_seq=session.console.last_seq,
                   started=time.perf_counter(), commits=session.events.commits(session.target_id))


class _DocumentGone(Exception):
    """The read found a new document, or none: the action navigated or closed the tab."""

    def __init__(self, closed: bool) -> None:
        super().__init__("the tab closed" if closed else "the document was replaced")
        self.closed = closed


async def _read_after(session: ChromiumSession, before: Before, ref: str | None) -> dict[str, Any] | None:
    """The changes since the mark and the target's state, read over the tab's event
    session. A document committed since the action began means the read ran in the new
    one (the event session reports the commit before the read's answer): the document
    was replaced, whatever the read says."""
    page = before.page
    try:
        result: dict[str, Any] | None = await read_page(
            session, page, f"({_AFTER})({json.dumps([ref, CHANGES_LIMIT])})")
    except PageGone as gone:
        raise _DocumentGone(closed=gone.closed or page.is_closed()) from gone
    tab = session.tabs.of_page(page)
    if tab is not None and session.events.commits(tab.target_id) != before.commits:
        raise _DocumentGone(closed=False)
    return result


async def _await_departure(session: ChromiumSession, before: Before, destination: str, reply: Reply) -> None:
    """Wait until the page's navigation commits, its request ends without committing,
    or the tab closes; warn if none of that happens in time."""
    page, requests = before.page, session.requests
    departed = await session.page_moved.wait_until(
        lambda: (session.navigations != before.navigations or page.is_closed()
                 or requests.navigations_ended != before.navigations_ended),
        NAVIGATION_SETTLE_MS / 1000,
    )
    if not departed:
        reply.warn(f"the page started leaving for {destination}, but the navigation had not "
                        f"committed after {NAVIGATION_SETTLE_MS / 1000:g}s")


async def settle(
    session: ChromiumSession,
    action: str,
    before: Before,
    target: dict[str, Any] | None,
    reply: Reply,
) -> None:
    """Fill ``reply`` with the action result, once the action's effects have settled."""
    page = before.page
    acted_ms = (time.perf_counter() - before.started) * 1000
    ref = (target or {}).get("ref")
    settled_by = ["task-turn"]
    after: dict[str, Any] | None = None
    replaced = gone = False
    try:
        if not page.is_closed():
            after = await _read_after(session, before, ref)
        leaving = after["changes"].pop("leaving", None) if after is not None and after["changes"] else None
        if leaving:
            await _await_departure(session, before, leaving, reply)
        if session.requests.started != before.requests and not page.is_closed():
            if await session.requests.wait_idle(NETWORK_SETTLE_S):
                settled_by.insert(0, "network-idle")
            else:
                reply.warn(f"requests the {action} started were still running after {NETWORK_SETTLE_S:g}s")
            if session.navigations == before.navigations and not page.is_closed():
                after = await _read_after(session, before, ref)  # what the responses changed
    except _DocumentGone as exc:
        after, replaced, gone = None, not exc.closed, exc.closed
        if replaced:
            await _await_departure(session, before, "a new document", reply)

    closed = gone or page.is_closed()
    navigated = not closed and (replaced or session.navigations != before.navigations or page.url != before.url)
    structure = element = None
    if closed:
        settled_by = ["tab-closed"]
        reply.warn(f"the tab closed during the {action}")
    elif navigated:
        try:
            await page.wait_for_load_state("domcontentloaded", timeout=NAVIGATION_SETTLE_MS)
            settled_by = ["domcontentloaded"]
        except PlaywrightTimeout:
            settled_by = ["timeout"]
            reply.warn("the navigation did not reach domcontentloaded in time")
    elif after is not None:
        structure, element = after["changes"], after["element"]
    reply.fields.update({
        "action": action,
        "target": target,
        "navigation": {"changed": navigated, "from": before.url, "to": page.url},
        "structure": structure,
        "console": session.console.since(before.console_seq, errors_only=True),
        "element": element,
        "settled": {"by": "+".join(settled_by), "actedMs": round(acted_ms, 1),
                    "totalMs": round((time.perf_counter() - before.started) * 1000, 1)},
    })
