"""The browser's events, sorted for one firefox session: tabs, frames, dialogs and records.

Every event of the browser arrives on the one shared socket, whichever session's context
it is about; :meth:`SessionEvents.on_event` keeps those of this session's contexts, with
frames folded into their tab (a frame's events are its tab's), and wakes whoever waits
for news (:meth:`SessionEvents.news`: navigation, waits and the settling of an action).
It runs on the socket's reader, so it never waits: what needs the browser (sizing a tab
a page opened, answering a dialog by the policy) is started in the session's nursery.

A dialog under ``ask`` is kept open and cuts short the call in flight on its tab
(:attr:`SessionEvents.in_flight`, which the session's ``perform`` sets); under
``accept`` / ``dismiss`` it is answered at once and listed in the next result. Like the
other helpers the session holds, this names what it uses of the session
(:class:`EventHost`), not the session class.
"""

from __future__ import annotations

import contextlib
from typing import Protocol

import trio

from ...bidi import BidiFailure
from ...jsonsafe import JsonObject
from .host import FirefoxHost
from .origin_grants import OriginGrants
from .page.downloads import FirefoxDownloads
from .records.books import ConsoleBook, NetworkBook
from .tabs import Prompt

__all__ = ["EventHost", "SessionEvents"]

#: Navigation events after which the tab is still on the document it had.
_NOT_THERE_YET = frozenset({"browsingContext.navigationStarted", "browsingContext.navigationAborted",
                            "browsingContext.navigationFailed"})
_NAVIGATION_EVENTS = frozenset({"browsingContext.navigationStarted", "browsingContext.navigationCommitted",
                                "browsingContext.fragmentNavigated", "browsingContext.historyUpdated",
                                "browsingContext.domContentLoaded", "browsingContext.load",
                                "browsingContext.navigationAborted", "browsingContext.navigationFailed"})


class EventHost(FirefoxHost, Protocol):
    """What the events change of the session, besides its tabs."""

    @property
    def grants(self) -> OriginGrants | None: ...

    @property
    def dialogs(self) -> dict[str, Prompt]: ...

    @property
    def dialog_policy(self) -> str: ...

    @property
    def answered(self) -> list[dict[str, str]]: ...

    @property
    def page_events(self) -> list[tuple[str, str, str]]: ...

    @property
    def console(self) -> ConsoleBook: ...

    @property
    def network(self) -> NetworkBook: ...

    @property
    def downloads(self) -> FirefoxDownloads: ...

    async def size(self, context: str) -> None: ...

    async def answer(self, context: str, accept: bool, text: str | None) -> None: ...


class SessionEvents:
    def __init__(self, session: EventHost) -> None:
        self._session = session
        #: Frame context -> the context of the tab it is in.
        self._tab_of: dict[str, str] = {}
        self._news = trio.Event()
        #: The call in hand and its tab's context, cut short by a dialog that opens there.
        self.in_flight: tuple[trio.CancelScope, str] | None = None

    def top_of(self, context: str) -> str:
        """The context of the tab ``context`` is in (itself when it is a tab, or unknown)."""
        return self._tab_of.get(context, context)

    def on_event(self, method: str, params: JsonObject) -> None:
        """Keep what concerns this session's contexts (called by the socket's reader: no waiting)."""
        session = self._session
        context = params.get("context")
        if method == "log.entryAdded":
            context = (params.get("source") or {}).get("context")
        if method == "browsingContext.contextCreated":
            self._created(params)
            return
        if not isinstance(context, str):
            return
        top = self._tab_of.get(context, context)
        tab = session.tabs.of(top)
        if tab is None:
            return
        if method == "browsingContext.navigationStarted" and session.grants is not None:  # its frames' too
            session.grants.seen(str(params.get("url") or ""))
        if method == "browsingContext.contextDestroyed":
            tab.drop_frame(context)
            if context == top:
                session.tabs.remove(context)
                session.dialogs.pop(context, None)
                session.console.forget(context)
            self._tab_of.pop(context, None)
        elif method in _NAVIGATION_EVENTS and context == top:
            url = str(params.get("url") or tab.url)
            if method not in _NOT_THERE_YET:  # a navigation that starts may end without a document (a download)
                tab.url = url
            session.page_events.append((context, method, url))
            del session.page_events[:-200]
        elif method == "browsingContext.userPromptOpened":
            self._prompt(top, params)
        elif method == "browsingContext.userPromptClosed":
            session.dialogs.pop(top, None)
        elif method == "browsingContext.downloadWillBegin":
            session.downloads.began(context, tab.id, params)
        elif method == "browsingContext.downloadEnd":
            session.downloads.ended(session, context, params)
        elif method == "log.entryAdded":
            session.console.add(top, params)
        elif method == "network.beforeRequestSent":
            session.network.started(top, params)
        elif method == "network.responseCompleted":
            session.network.finished(params)
        elif method == "network.fetchError":
            session.network.failed(params)
        self._news.set()
        self._news = trio.Event()

    def _created(self, params: JsonObject) -> None:
        session = self._session
        context, parent = str(params.get("context")), params.get("parent")
        if isinstance(parent, str):
            top = self._tab_of.get(parent, parent)
            tab = session.tabs.of(top)
            if tab is not None:
                self._tab_of[context] = top
                tab.add_frame(context, parent)
            return
        if session.user_context is None or params.get("userContext") != session.user_context:
            return
        if session.tabs.of(context) is None:
            session.tabs.add(context, str(params.get("url") or "about:blank"))
            session.nursery.start_soon(self._size_quietly, context)

    async def _size_quietly(self, context: str) -> None:
        with contextlib.suppress(BidiFailure):  # closed as soon as opened: nothing to size
            await self._session.size(context)

    def _prompt(self, context: str, params: JsonObject) -> None:
        session = self._session
        prompt = Prompt(str(params.get("type") or "alert"), str(params.get("message") or ""),
                        str(params.get("defaultValue") or ""), context)
        if session.dialog_policy == "ask":
            session.dialogs[context] = prompt
            if self.in_flight is not None and self.in_flight[1] == context:
                self.in_flight[0].cancel()
            return
        session.answered.append({**prompt.describe(), "answer": session.dialog_policy})
        session.nursery.start_soon(session.answer, context, session.dialog_policy == "accept", None)

    async def news(self, timeout: float) -> bool:
        """Wait up to ``timeout`` s for the next event of this session; whether one came."""
        with trio.move_on_after(timeout):
            await self._news.wait()
            return True
        return False
