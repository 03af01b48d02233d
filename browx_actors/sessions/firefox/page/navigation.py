"""Navigation and tab tools of the firefox engine: navigate, go_back, go_forward and the tabs.

Results have chromium's shape: ``{url, title, status?, sameDocument?, console?, settled}``
for a navigation, ``{tabs, current}`` and friends for the tabs. BiDi's
``browsingContext.navigate`` waits for the document's readiness itself (``wait:
complete`` for ``load``, ``interactive`` for ``domcontentloaded``, ``none`` for
``commit``); ``networkidle`` waits for ``load`` and then for the tab's requests to
end. The response's status comes from the session's network records, which saw the
document's request on the same socket before the navigation's answer.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING

import trio

from ....bidi import BidiError, BidiTimeout
from ....errors import ToolError
from ....jsonsafe import JsonObject
from ....tools import Reply
from ....tools.contract import SessionArgs
from ....tools.navigation import WEB_SCHEMES, CloseTabArgs, NavigateArgs, NewTabArgs, SelectTabArgs, url_to_load
from ..sandbox import SANDBOX
from ..tabs import Tab

if TYPE_CHECKING:
    from ..session import FirefoxSession

__all__ = ["close_tab", "go_back", "go_forward", "list_tabs", "navigate", "new_tab", "select_tab"]

_READINESS = {"load": "complete", "networkidle": "complete", "domcontentloaded": "interactive", "commit": "none"}
#: A tab's title is read with this bound: a page busy in a long script answers late.
TITLE_TIMEOUT_S = 2.0
#: After go_back / go_forward: the longest wait for the step to show in the tab.
HISTORY_WAIT_S = 10.0
#: Quiet time that counts as network idle, and the longest wait for it.
IDLE_S, IDLE_MAX_S = 0.5, 10.0


async def _page_facts(session: FirefoxSession, context: str) -> tuple[str | None, str | None]:
    """The document's title and its own ``location.href``, read in the sandbox in one trip."""
    try:
        answer = await session.bidi.send("script.evaluate", {
            "expression": "JSON.stringify([document.title, location.href])",
            "target": {"context": context, "sandbox": SANDBOX}, "awaitPromise": False}, timeout=TITLE_TIMEOUT_S)
    except (BidiError, BidiTimeout):
        return None, None
    value = (answer.get("result") or {}).get("value")
    if answer.get("type") != "success" or not isinstance(value, str):
        return None, None
    title, href = json.loads(value)
    return title, href


def _status(session: FirefoxSession, context: str, since: int, url: str) -> int | None:
    for request in reversed(session.network.requests):
        if request.id <= since:
            break
        if request.context == context and request.url.split("#")[0] == url.split("#")[0]:
            return request.status
    return None


async def _network_idle(session: FirefoxSession, context: str, since: int) -> None:
    deadline = trio.current_time() + IDLE_MAX_S
    while trio.current_time() < deadline:
        if session.network.pending({context}, since) == 0 and not await session.news(IDLE_S):
            return
        await session.news(0.1)


async def _result(session: FirefoxSession, tab: Tab, action: str, from_url: str, since: int, console_last: int,
                  started: float) -> Reply:
    title, href = await _page_facts(session, tab.context)
    url = href or tab.url
    tab.url = url
    reply = Reply.of(url=url)
    status = _status(session, tab.context, since, url)
    same_document = status is None and url.split("#")[0] == from_url.split("#")[0] and url != from_url
    if same_document:
        reply["sameDocument"] = True
    if status is not None:
        reply["status"] = status
    reply["title"] = title or ""
    errors = session.console.since(console_last, contexts={tab.context}, errors_only=True)
    if errors:
        reply["console"] = [f"{e.level}: {e.text}" for e in errors[-10:]]
    reply["settled"] = {"by": "same-document" if same_document else "load-state",
                        "ms": round((time.perf_counter() - started) * 1000, 1)}
    if url == from_url and action != "navigate":
        reply.warn(f"there was no page to {action.replace('_', ' ')} to")
    return reply


async def _answer_dialog_to_leave(session: FirefoxSession, tab: Tab, reply_dialogs: list[dict[str, str]]) -> None:
    """The way out of a page is never blocked by its dialog: dismissed, as a person leaving would."""
    pending = session.dialogs.get(tab.context)
    if pending is not None:
        await session.answer(tab.context, pending.type == "beforeunload", None)
        reply_dialogs.append({**pending.describe(), "answer": "dismiss"})


async def navigate(session: FirefoxSession, args: NavigateArgs) -> Reply:
    url = url_to_load(str(args.url))
    if not url.startswith(WEB_SCHEMES):
        raise ToolError("not-supported", f"firefox loads http(s), about and data URLs; {url!r} is an app deep link, "
                        "which android-app and ios-app sessions open", engine="firefox", url=url)
    tab = session.tab
    left: list[dict[str, str]] = []
    await _answer_dialog_to_leave(session, tab, left)
    from_url, since, console_last = tab.url, session.network.last, session.console.last
    started = time.perf_counter()
    timeout = args.timeout_ms / 1000 if args.timeout_ms else session.left()
    params: JsonObject = {"context": tab.context, "url": url, "wait": _READINESS[args.wait_until]}
    if session.grants is not None:  # open_session's permissions, there before the page's first script
        await session.grants.before(url)
    try:
        await session.bidi.send("browsingContext.navigate", params, timeout=timeout)
    except BidiTimeout as err:
        raise ToolError("timeout", f"navigate to {url}: the page did not reach {args.wait_until} within "
                        f"{timeout:g} s") from err
    except BidiError as err:
        if err.error == "no such frame":
            raise
        raise ToolError("navigation-failed", f"navigate to {url}: {err.message or err.error}", url=url) from err
    if args.wait_until == "networkidle":
        await _network_idle(session, tab.context, since)
    reply = await _result(session, tab, "navigate", from_url, since, console_last, started)
    if left:
        reply["dialogs"] = left
    return reply


async def _history(session: FirefoxSession, delta: int) -> Reply:
    tab = session.tab
    action = "go_back" if delta < 0 else "go_forward"
    from_url, since, console_last = tab.url, session.network.last, session.console.last
    started = time.perf_counter()
    seen = len(session.page_events)
    try:
        await session.bidi.send("browsingContext.traverseHistory", {"context": tab.context, "delta": delta},
                                timeout=session.left())
    except BidiError as err:
        if err.error != "no such history entry":
            raise
        return await _result(session, tab, action, from_url, since, console_last, started)
    # The step is taken; wait for the document it lands on (a load, or a same-document step).
    with trio.move_on_after(min(HISTORY_WAIT_S, session.left())):
        while True:
            mine = [e for e in session.page_events[seen:] if e[0] == tab.context]
            names = {e[1] for e in mine}
            if "browsingContext.load" in names or (
                    names and "browsingContext.navigationStarted" not in names):
                break
            await session.news(0.25)
    return await _result(session, tab, action, from_url, since, console_last, started)


async def go_back(session: FirefoxSession, args: SessionArgs) -> Reply:
    return await _history(session, -1)


async def go_forward(session: FirefoxSession, args: SessionArgs) -> Reply:
    return await _history(session, 1)


# -- tabs -----------------------------------------------------------------------------


async def _described(session: FirefoxSession) -> list[JsonObject]:
    current = session.tabs.current
    listed: list[JsonObject] = []
    for tab in session.tabs:
        pending = session.dialogs.get(tab.context)
        title = None if pending is not None else (await _page_facts(session, tab.context))[0]
        entry: JsonObject = {"id": tab.id, "url": tab.url, "title": title, "current": tab is current,
                             "crashed": False}
        if pending is not None:
            entry["dialog"] = pending.describe()
        listed.append(entry)
    return listed


def _current_id(session: FirefoxSession) -> int | None:
    return None if session.tabs.current is None else session.tabs.current.id


async def list_tabs(session: FirefoxSession, args: SessionArgs) -> Reply:
    return Reply.of(tabs=await _described(session), current=_current_id(session))


def _tab_numbered(session: FirefoxSession, tab_id: int) -> Tab:
    tab = session.tabs.by_id(tab_id)
    if tab is None:
        known = ", ".join(str(t.id) for t in session.tabs) or "none"
        raise ToolError("target-not-found", f"no tab {tab_id} in this session (open tabs: {known})", field="tab")
    return tab


async def select_tab(session: FirefoxSession, args: SelectTabArgs) -> Reply:
    tab = _tab_numbered(session, args.tab)
    await session.bidi.send("browsingContext.activate", {"context": tab.context}, timeout=session.left())
    session.tabs.current = tab
    tabs = await _described(session)
    return Reply.of(tab=next((t for t in tabs if t["current"]), None), tabs=tabs)


async def _open_tab(session: FirefoxSession) -> Tab:
    created = await session.bidi.send("browsingContext.create", {"type": "tab", "userContext": session.user_context},
                                      timeout=session.left())
    tab = session.tabs.add(str(created["context"]), ours=True)
    await session.size(tab.context)
    return tab


async def new_tab(session: FirefoxSession, args: NewTabArgs) -> Reply:
    tab = await _open_tab(session)
    session.tabs.current = tab
    reply = Reply(warnings=[])
    if args.url is not None:
        navigated = await navigate(session, NavigateArgs(session=args.session, url=args.url,
                                                         wait_until=args.wait_until, timeout_ms=args.timeout_ms))
        reply.fields.update(navigated.fields)
        reply.warnings = list(navigated.warnings or [])
    tabs = await _described(session)
    reply["tab"] = next((t for t in tabs if t["id"] == tab.id), None)
    reply["tabs"] = tabs
    return reply


async def close_tab(session: FirefoxSession, args: CloseTabArgs) -> Reply:
    tab = session.tab if args.tab is None else _tab_numbered(session, args.tab)
    pending = session.dialogs.get(tab.context)
    await session.bidi.send("browsingContext.close", {"context": tab.context, "promptUnload": False},
                            timeout=session.left())
    session.tabs.remove(tab.context)  # the destroyed event may come after the answer
    session.dialogs.pop(tab.context, None)
    last = len(session.tabs) == 0
    if last:
        session.tabs.current = await _open_tab(session)
    reply = Reply.of(closed=tab.id, current=_current_id(session), tabs=await _described(session), warnings=[])
    if pending is not None:
        reply.warn(f"tab {tab.id} closed with its {pending.type} dialog open ({pending.message!r}); the dialog went "
                   "with it")
    if last:
        reply["replacedBy"] = reply["current"]
        reply.warn(f"tab {tab.id} was the session's last: blank tab {reply['current']} took its place; the session "
                   "keeps its cookies and storage (close_session ends it)")
    return reply
