"""After an action: wait until its effects have settled, then report them in one shape.

"Settled" is event-driven, never a fixed sleep. The page first gets one task turn
(``task-turn``: event handlers, microtasks and zero-delay timers have run), then
whatever update the page itself started since the action's mark and still has under
way: CSS transitions and animations (a modal's fade, a collapse's height), a fade it
set up to begin shortly (an element shown at opacity 0 that declares an opacity
transition, as Bootstrap's tab panes are; bounded by that transition's own
time), short timers, animation-frame chains (the agent's ``quiet``, bounded by
:data:`QUIET_BUDGET_MS`; ``animation``, ``timer``, ``frame`` in ``settled.by``, the time
in ``settled.pageMs``). With nothing under way that costs nothing. Then the changes
since the mark are read. That read travels on the tab's raw CDP session
(:func:`~.tabs.reads.read_page`), behind the events the page sent meanwhile on that
same session, which feed the session's counters: so they have seen the requests the
action's handlers started and the errors they logged. A navigation is different: the
browser reports its request on its own schedule, so the page agent says when the
document started leaving (the Navigation API's ``navigate`` event), and the settle
waits until that navigation commits, or its request ends without one (a 204, a
download). Requests the action started are awaited until they finish
(``network-idle``) and the changes read again; a navigation is awaited until
``domcontentloaded``.

A same-document navigation (``pushState``, ``replaceState``, a hash change) is no load:
the document and its mark survive, so it answers ``navigation: {changed, sameDocument:
true, from, to}`` with the structure diff kept, and ``changed`` is only true when the
URL did change.

Runs on the Playwright thread (:meth:`~.session.ChromiumSession.pw`), as one hop.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING

import attrs
from playwright.async_api import Page
from playwright.async_api import TimeoutError as PlaywrightTimeout

from ....jsonsafe import JsonObject
from ....tools import Reply
from ..agent.pageagent import AGENT_KEY
from ..tabs.reads import PageGone, read_page

if TYPE_CHECKING:
    from ..session import ChromiumSession

__all__ = ["FRAME_WAIT_MS", "NAVIGATION_SETTLE_MS", "NETWORK_SETTLE_S", "QUIET_BUDGET_MS", "Before", "settle"]

NAVIGATION_SETTLE_MS = 15_000
#: Requests an action started get this long to finish before it reports anyway.
NETWORK_SETTLE_S = 3.0
#: Appeared / removed nodes listed per action.
CHANGES_LIMIT = 20
#: The longest the settle waits for the page's own update (animations, short timers,
#: frame chains) before it reports what it sees, with a warning.
QUIET_BUDGET_MS = 2000

#: How long the read waits for the frame that delivers rAF-aligned input (a page not
#: being drawn runs no frames).
FRAME_WAIT_MS = 100

#: One task turn (handlers, microtasks and 0 ms timers have run), the page's own update
#: (``quiet``: resolved at once when nothing is under way), then the changes since the
#: mark, the target's state and the document's own URL. ``changes`` is null in a new
#: document (it has no mark): that is how a same-document navigation is told apart.
#: With ``frame``, the task turn comes after the next animation frame: Chromium hands
#: continuous input (wheel, mouse and touch moves) to the page's listeners in the frame
#: after the browser acked it, so its handlers have not run one task turn later.
_AFTER = f"""([ref, limit, budgetMs, frame]) => new Promise(resolve => {{
 let begun = false;
 const begin = () => {{ if (!begun) {{ begun = true; setTimeout(after, 0); }} }};
 const after = () => {{
  const a = window[{AGENT_KEY!r}];
  if (!a) return resolve(null);
  const read = (quiet) => {{
    let changes = null, element = null;
    try {{ changes = a.changes({{limit}}); }} catch (e) {{}}
    try {{ element = ref ? a.describe(ref) : null; }} catch (e) {{}}
    resolve({{changes, element, quiet, url: location.href, from: a.markedUrl()}});
  }};
  let waiting = null;
  try {{ waiting = a.quiet({{budgetMs}}); }} catch (e) {{}}
  if (waiting) waiting.then(read, () => read(null)); else read(null);
 }};
 if (frame) {{ requestAnimationFrame(begin); setTimeout(begin, {FRAME_WAIT_MS}); }} else begin();
}})"""



@attrs.frozen
class Before:
    """What the session had seen when the action began: the changes are counted from it."""

    page: Page
    url: str
    navigations: int
    #: Requests begun on the acting tab (not on the tabs it may open).
    requests: int
    navigations_ended: int
    console_seq: int
    started: float
    #: Documents the tab had committed, as its raw event session reported.
    commits: int = 0
    #: The acting tab's target id.
    tab: str | None = None

    @classmethod
    def of(cls, session: ChromiumSession) -> Before:
        tab = session.target_id
        return cls(page=session.page, url=session.page.url, navigations=session.navigations,
                   requests=session.requests.started_on(tab), navigations_ended=session.requests.navigations_ended,
                   console_seq=session.console.last_seq,
                   started=time.perf_counter(), commits=session.events.commits(tab), tab=tab)


class _DocumentGone(Exception):
    """The read found a new document, or none: the action navigated or closed the tab."""

    def __init__(self, closed: bool) -> None:
        super().__init__("the tab closed" if closed else "the document was replaced")
        self.closed = closed


async def _read_after(session: ChromiumSession, before: Before, ref: str | None,
                      frame: bool = False) -> JsonObject | None:
    """The changes since the mark and the target's state, read over the tab's event
    session. A document committed since the action began means the read ran in the new
    one (the event session reports the commit before the read's answer): the document
    was replaced, whatever the read says."""
    page = before.page
    try:
        result: JsonObject | None = await read_page(
            session, page, f"({_AFTER})({json.dumps([ref, CHANGES_LIMIT, QUIET_BUDGET_MS, frame])})")
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


def _marked(after: JsonObject | None) -> bool:
    """The read found this action's mark: the same document the action started in."""
    return after is not None and after.get("changes") is not None


def _note_quiet(after: JsonObject | None, waits: list[str], page_ms: list[float], reply: Reply) -> None:
    """Fold one read's wait for the page's own update into the settle's account."""
    quiet = (after or {}).get("quiet")
    if not quiet or not quiet.get("waited"):
        return
    for reason in quiet.get("waited") or ():
        if reason not in waits:
            waits.append(reason)
    page_ms.append(quiet.get("ms") or 0)
    if quiet.get("timedOut"):
        reply.warn(f"the page was still updating ({', '.join(quiet.get('waited') or ['busy'])}) after "
                   f"{QUIET_BUDGET_MS / 1000:g}s; the result shows it as it was then")


async def settle(
    session: ChromiumSession,
    action: str,
    before: Before,
    target: JsonObject | None,
    reply: Reply,
    frame: bool = False,
) -> None:
    """Fill ``reply`` with the action result, once the action's effects have settled
    (``frame``: after the next animation frame, for continuous input; see ``_AFTER``)."""
    page = before.page
    acted_ms = (time.perf_counter() - before.started) * 1000
    ref = (target or {}).get("ref")
    settled_by = ["task-turn"]
    waits: list[str] = []
    page_ms: list[float] = []
    after: JsonObject | None = None
    replaced = gone = False
    try:
        if not page.is_closed():
            after = await _read_after(session, before, ref, frame)
            _note_quiet(after, waits, page_ms, reply)
        leaving = after["changes"].pop("leaving", None) if after is not None and after["changes"] else None
        if leaving:
            await _await_departure(session, before, leaving, reply)
        requests, tab = session.requests, before.tab
        if requests.started_on(tab) != before.requests and not page.is_closed():
            if await requests.wait_idle(NETWORK_SETTLE_S, tab):
                settled_by.insert(0, "network-idle")
            else:
                running = ", ".join(requests.pending(tab=tab)) or "they ended just then"
                reply.warn(f"requests the {action} started were still running after {NETWORK_SETTLE_S:g}s: {running}")
            if not page.is_closed():
                again = await _read_after(session, before, ref)  # what the responses changed
                if _marked(after) and not _marked(again):
                    replaced = True  # the mark is gone: a new document came in meanwhile
                else:
                    after = again
                    _note_quiet(after, waits, page_ms, reply)
    except _DocumentGone as exc:
        after, replaced, gone = None, not exc.closed, exc.closed
        if replaced:
            await _await_departure(session, before, "a new document", reply)

    closed = gone or page.is_closed()
    # The mark survives a same-document navigation and no other kind.
    same_document = not closed and not replaced and _marked(after)
    if not closed and not same_document and (session.navigations != before.navigations or page.url != before.url):
        replaced = True  # read in the new document (no mark there), or not at all
    to_url = after["url"] if same_document and after is not None and after.get("url") else page.url
    # Within one document the page's own URL at the mark is the "from": Playwright's
    # view of it may not have caught up with a pushState made just before the action.
    from_url = (after.get("from") or before.url) if same_document and after is not None else before.url
    structure = element = None
    navigation: dict[str, object] = {"changed": False, "sameDocument": same_document, "from": from_url,
                                  "to": before.url if closed else to_url}
    if closed:
        settled_by = ["tab-closed"]
        reply.warn(f"the tab closed during the {action}")
    elif replaced:
        navigation.update(changed=page.url != before.url, sameDocument=False, to=page.url)
        if page.url == before.url:
            navigation["reloaded"] = True
        try:
            await page.wait_for_load_state("domcontentloaded", timeout=NAVIGATION_SETTLE_MS)
            settled_by = ["domcontentloaded"]
        except PlaywrightTimeout:
            settled_by = ["timeout"]
            reply.warn("the navigation did not reach domcontentloaded in time")
    else:
        navigation["changed"] = to_url != from_url
        if after is not None:
            structure, element = after["changes"], after["element"]
    settled: dict[str, object] = {"by": "+".join([*settled_by[:-1], *waits, settled_by[-1]]
                                              if settled_by[-1] == "task-turn" else settled_by),
                               "actedMs": round(acted_ms, 1),
                               "totalMs": round((time.perf_counter() - before.started) * 1000, 1)}
    if page_ms:
        settled["pageMs"] = round(sum(page_ms), 1)
    reply.fields.update({
        "action": action,
        "target": target,
        "navigation": navigation,
        "structure": structure,
        "console": session.console.since(before.console_seq, errors_only=True),
        "element": element,
        "settled": settled,
    })
