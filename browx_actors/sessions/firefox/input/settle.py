"""After a firefox action: wait until its effects have settled, then gather what happened.

Event-driven, as chromium's settle is, on what BiDi gives. The action's :class:`Mark`
records where the session's event books stood before the input. Afterwards:

1. a navigation the input started shows as ``browsingContext.navigationStarted`` for the
   tab (the browser sends it on the socket the input's answer came on, before it), and
   is waited for until the new document's ``load`` (bounded by
   :data:`NAVIGATION_SETTLE_S`); a same-document step (``pushState``, a hash) keeps
   the document and its mark;
2. otherwise the page agent's ``quiet`` waits for the update the page started since
   the mark (animations, a fade that is about to begin, frame chains; bounded by
   :data:`QUIET_BUDGET_MS`), the requests the action started get up to
   :data:`NETWORK_SETTLE_S` to end, and ``changes`` reads what appeared and went;
3. the target is described again (``element``), errors the page logged meanwhile are
   listed (``console``), and tabs the page opened (``opened``).

The fields are chromium's, for :func:`~...chromium.input.brief.brief` to cut down.
"""

from __future__ import annotations

import contextlib
import time
from typing import TYPE_CHECKING

import attrs
import trio

from ....bidi import BidiFailure
from ....errors import ToolError
from ....jsonsafe import JsonObject, JsonValue
from ....tools import Reply
from ...chromium.agent.calls import agent_call
from ...chromium.losses import PageScriptError

if TYPE_CHECKING:
    from ..session import FirefoxSession

__all__ = ["NAVIGATION_SETTLE_S", "NETWORK_SETTLE_S", "QUIET_BUDGET_MS", "Mark", "settle"]

NAVIGATION_SETTLE_S = 15.0
NETWORK_SETTLE_S = 3.0
QUIET_BUDGET_MS = 2000
#: Appeared / removed nodes listed per action.
CHANGES_LIMIT = 20
_LEFT = frozenset({"browsingContext.navigationStarted"})
#: A navigation that ended without a new document.
_ENDED = frozenset({"browsingContext.navigationAborted", "browsingContext.navigationFailed"})

#: ``changes`` since the mark, or null where the document holds no mark (a document
#: that replaced the marked one without a navigation the session saw: nothing to compare).
_CHANGES = """(agent, a) => { try { return agent.changes({limit: a.limit}); } catch (e) { return null; } }"""

#: ``quiet``, then ``changes`` and the target described again, in one round trip: the
#: common case (nothing left the page, no request still running) costs one call.
_AFTER = """(agent, a) => Promise.resolve(agent.quiet({budgetMs: a.budgetMs})).then(quiet => {
  let element = null;
  if (a.ref) { try { element = agent.describe(a.ref); } catch (e) { element = null; } }
  let changes = null;
  try { changes = agent.changes({limit: a.limit}); } catch (e) { changes = null; }
  return {quiet, changes, element};
})"""
_SAME_DOCUMENT = frozenset({"browsingContext.fragmentNavigated", "browsingContext.historyUpdated"})


@attrs.frozen
class Mark:
    """Where the session's books stood before an action."""

    context: str
    url: str
    events: int
    requests: int
    console: int
    downloads: int

    @classmethod
    def now(cls, session: FirefoxSession) -> Mark:
        tab = session.tab
        return cls(tab.context, tab.url, len(session.page_events), session.network.last, session.console.last,
                   session.downloads.book.last_id)


def _since(session: FirefoxSession, mark: Mark) -> list[tuple[str, str, str]]:
    return [event for event in session.page_events[mark.events:] if event[0] == mark.context]


async def _until_loaded(session: FirefoxSession, mark: Mark) -> str:
    """Wait for the tab's next document: ``load`` once it loaded, ``none`` when the
    navigation ended without a document (aborted, failed, or a download took its URL:
    the page stays), ``pending`` when the wait ran out."""
    with trio.move_on_after(min(NAVIGATION_SETTLE_S, session.left())):
        while True:
            events = _since(session, mark)
            started = max((i for i, e in enumerate(events) if e[1] in _LEFT), default=None)
            if started is not None:
                after = events[started:]
                if any(e[1] == "browsingContext.load" for e in after):
                    return "load"
                url = after[0][2]
                if any(e[1] in _ENDED for e in after) or any(
                        d.url == url for d in session.downloads.book.since(mark.downloads)):
                    return "none"
            await session.news(0.5)
    return "pending"


async def _parent_caught_up(session: FirefoxSession, mark: Mark) -> None:
    """Let the browser's parent process catch up with the page. The sandbox answers from the
    page's process, but navigations, downloads and blocked requests are reported by the
    parent, which may hear of them after that answer left; one cheap command the parent
    answers (after what the page told it before) brings those events in ahead of its answer,
    on the same ordered socket."""
    with contextlib.suppress(BidiFailure):  # the tab closed meanwhile: said below
        await session.bidi.send("browsingContext.getTree", {"root": mark.context, "maxDepth": 0},
                                timeout=session.left())


async def _requests_done(session: FirefoxSession, mark: Mark) -> bool:
    with trio.move_on_after(NETWORK_SETTLE_S):
        while session.network.pending({mark.context}, mark.requests):
            await session.news(0.1)
        return True
    return False


async def settle(session: FirefoxSession, mark: Mark, target: JsonValue, started: float) -> JsonObject:
    """What the action did, in the fields :func:`brief` reads (see the module notes)."""
    fields: JsonObject = {"target": target}
    settled: JsonObject = {"by": "task-turn"}
    events = _since(session, mark)
    ref = target.get("ref") if isinstance(target, dict) else None
    after: JsonValue = None
    if not any(e[1] in _LEFT for e in events):
        try:
            after = await session.in_sandbox(_AFTER, {"budgetMs": QUIET_BUDGET_MS, "limit": CHANGES_LIMIT,
                                                      "ref": ref})
        except (ToolError, PageScriptError):
            after = None  # the document went while it was asked: a navigation, seen below
        quiet = after.get("quiet") if isinstance(after, dict) else None
        if isinstance(quiet, dict) and quiet.get("waited"):
            settled = {"by": quiet["waited"][0] if isinstance(quiet["waited"], list) else "page",
                       "pageMs": quiet.get("ms")}
        await _parent_caught_up(session, mark)
        events = _since(session, mark)
    tab = session.tabs.of(mark.context)
    if tab is None:
        settled["by"] = "tab-closed"
    elif any(e[1] in _LEFT for e in events) and (went := await _until_loaded(session, mark)) != "none":
        fields["navigation"] = {"changed": True, "from": mark.url, "to": tab.url}
        settled["by"] = "load" if went == "load" else "navigation-pending"
    else:
        pending = session.network.pending({mark.context}, mark.requests)
        if pending and await _requests_done(session, mark):
            settled["by"] = "network-idle"
        changes = after.get("changes") if isinstance(after, dict) else None
        if pending or after is None:  # what the requests' answers changed, or a first read that failed
            changes = await session.in_sandbox(_CHANGES, {"limit": CHANGES_LIMIT})
        if isinstance(changes, dict):
            fields["structure"] = {key: changes.get(key) for key in ("appeared", "removed", "truncated")}
        if any(e[1] in _SAME_DOCUMENT for e in events):
            fields["navigation"] = {"changed": tab.url != mark.url, "sameDocument": True, "from": mark.url,
                                    "to": tab.url}
        if isinstance(ref, str):
            element = after.get("element") if isinstance(after, dict) and not pending else None
            if element is None:
                try:
                    element = await agent_call(session, "describe", ref)
                except ToolError:
                    element = None  # gone with the action: structure says so
            fields["element"] = element
    if session.downloads.book.last_id > mark.downloads:
        listed = Reply(warnings=[])
        await session.downloads.listed_since(mark.downloads, listed, "action")
        fields["downloads"] = listed.fields.get("downloads")
    errors = session.console.since(mark.console, contexts={mark.context}, errors_only=True)
    fields["console"] = [f"{e.level}: {e.text}" for e in errors[-10:]]
    fields["opened"] = [{"tab": t.id, "url": t.url} for t in session.tabs.take_opened()]
    settled["totalMs"] = round((time.perf_counter() - started) * 1000, 1)
    fields["settled"] = settled
    return fields
