"""The chromium session actor: one isolated browser context and its tabs.

A session owns a Playwright ``BrowserContext`` (its own cookies and storage) in the
pool's browser, the pages in it as tabs (:mod:`.tabs`; tools act on the current one),
and a raw CDP flat session to each tab it has acted in, for what Trio must own
(screenshots, titles, the human bridge). Tool calls
arrive as :class:`SessionCall` messages and run one at a time, in order; a tool that
waits long returns :class:`~browx_actors.actor.Later` so the mailbox keeps serving.

The session watches its browser. When Chromium dies, it fails every waiting caller at
once with :class:`BrowserLost` as the cause and ends; the runtime turns that into the
``browser-crashed`` code for the agent.
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import attrs
import trio

from ...actor import Actor, ActorRef, Later
from ...cdp import CdpConnectionLost, CdpError, CdpFailure
from ...errors import ToolError
from ...human.bridge import HumanBridge
from ..contract import Describe, SessionCall, WatchFrames
from .driver import PlaywrightDriver
from .page_events import ConsoleLog, Pulse, RequestTracker
from .pageagent import AGENT_KEY, AGENT_SOURCE
from .pool import AcquireBrowser, Browser
from .screencast import LiveViewers
from .tabset import Tab, TabSet

__all__ = ["BrowserLost", "ChromiumSession", "PageScriptError", "SessionOptions", "first_line"]

#: One round trip to the page agent; installs it first on pages that lack it
#: (pages created before the init script, or documents it could not reach).
_AGENT_CALL = f"""([method, arg]) => {{
  const agent = window[{AGENT_KEY!r}];
  if (!agent) return {{__browxMissing: true}};
  return agent[method](arg);
}}"""


#: Idle time after a navigating call before Playwright's selectors are warmed.
WARM_IDLE_S = 0.05

#: Phrases in Playwright errors that mean the page, context or browser went away.
_CLOSED_MARKERS = ("has been closed", "Target closed", "Connection closed", "Browser closed")
_LOSS_GRACE = 2.0
#: How long a live browser may take to answer the probe that tells a closed tab from it.
_PROBE_TIMEOUT = 1.0


def first_line(err: BaseException) -> str:
    """The first line of an error's message (its type name when it has none)."""
    return str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__


class PageScriptError(Exception):
    """A script the session evaluated in the page threw; the message is the page's."""


class BrowserLost(Exception):
    """The session's browser died; ``reason`` says how."""

    def __init__(self, session_id: str, reason: str) -> None:
        super().__init__(f"session {session_id!r} ended: {reason}")
        self.session_id = session_id
        self.reason = reason


@attrs.frozen
class SessionOptions:
    viewport: tuple[int, int] = (1280, 720)
    #: Click, hover and fill send the session's own CDP input to an element that is
    #: ready (False: Playwright performs every action; BROWX_ACTION_INPUT=playwright).
    direct_input: bool = True


class ChromiumSession(Actor):
    engine = "chromium"

    def __init__(
        self,
        session_id: str,
        *,
        pool: Callable[[], ActorRef],
        driver: PlaywrightDriver,
        options: SessionOptions = SessionOptions(),
        workspace: Path = Path(".browx"),
    ) -> None:
        super().__init__(f"session:{session_id}")
        self.session_id = session_id
        self._pool = pool
        self.driver = driver
        self.options = options
        #: Root for files this session writes (screenshots), via the workspace chokepoint.
        self.workspace = workspace
        self.browser: Browser | None = None
        self.context: Any = None
        #: The session's pages; tools act on ``tabs.current`` (see :attr:`page`).
        self.tabs = TabSet()
        #: Fired on the Playwright thread when a tab opens or closes, a main frame
        #: navigates or a request ends: waiters there re-check what they wait for.
        self.page_moved = Pulse()
        #: The CDP id of the browser context, learnt when the first tab is attached.
        self._context_id: str | None = None
        self.console = ConsoleLog()
        #: Main-frame navigations so far (counted on the Playwright thread).
        self.navigations = 0
        self.requests = RequestTracker(self.page_moved)
        self.secrets: dict[str, str] = {}
        #: The isolated-world bridge await_human answers through (None: no human channel).
        self.human: HumanBridge | None = None
        self.canvas_cache: Any = None  # canvas captures behind captureId (browx_actors.canvas.cache)
        #: Live-view streams watching this session, and the screencast of its current tab.
        self.viewers = LiveViewers(self)
        self.started_at = trio.current_time()
        #: ``navigations`` when Playwright's selector machinery was last warmed.
        self._warmed_at = 0
        #: Calls started so far, so the idle timer can tell whether one came meanwhile.
        self._calls = 0

    # -- the current tab --------------------------------------------------------------

    @property
    def page(self) -> Any:
        tab = self.tabs.current
        return None if tab is None else tab.page

    @property
    def cdp(self) -> Any:
        """The raw CDP flat session to the current tab."""
        tab = self.tabs.current
        return None if tab is None else tab.cdp

    @property
    def target_id(self) -> str | None:
        tab = self.tabs.current
        return None if tab is None else tab.target_id

    # -- running Playwright from Trio -------------------------------------------------

    async def pw(self, fn: Callable[..., Awaitable[Any]], *args: Any, **kwargs: Any) -> Any:
        """Await a Playwright coroutine on the driver thread; cancellation reaches it."""
        if kwargs:
            fn = functools.partial(fn, **kwargs)
        return await self.driver.bridge.run(fn, *args)

    async def evaluate(self, expression: str) -> Any:
        """Evaluate ``expression`` in the current tab's main world; its JSON value.

        Over raw CDP: one socket hop, where Playwright's evaluate also crosses its
        driver process. When the tab is between two documents (no context to run in),
        Playwright's evaluate, which waits for the next one, runs it instead. An
        exception the script throws raises :class:`PageScriptError` with the page's
        message (Playwright's path raises its own ``Error`` with the same text).
        """
        try:
            reply = await self.cdp.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        except CdpError:
            return await self.pw(self.page.evaluate, expression)
        if "exceptionDetails" in reply:
            details = reply["exceptionDetails"]
            raise PageScriptError(details.get("exception", {}).get("description") or details.get("text", ""))
        return reply["result"].get("value")

    async def agent(self, method: str, arg: Any = None) -> Any:
        """Call the page agent's ``method(arg)`` in the page's main world."""
        call = f"({_AGENT_CALL})({json.dumps([method, arg])})"
        result = await self.evaluate(call)
        if isinstance(result, dict) and result.get("__browxMissing"):
            await self.evaluate(AGENT_SOURCE)
            result = await self.evaluate(call)
        return result

    # -- lifecycle --------------------------------------------------------------------

    async def on_start(self) -> None:
        self.browser = await self._pool().call(AcquireBrowser(), timeout=60)
        width, height = self.options.viewport
        self.context = await self.pw(
            self.browser.playwright.new_context, viewport={"width": width, "height": height}
        )
        await self.pw(self.context.add_init_script, script=AGENT_SOURCE)
        page = await self.pw(self.context.new_page)
        # On the Playwright thread: page.on() may send a subscription message, which
        # needs that thread's running asyncio loop.
        tab = await self.pw(_on_loop, self._adopt, page)
        await self.pw(_listen, self.context, {"page": self._adopt})
        await self.attach_current()
        self.human = await self.nursery.start(HumanBridge(self.session_id, tab.cdp, self.browser.cdp).run)
        self.nursery.start_soon(self._watch_browser, self.browser)

    async def on_stop(self) -> None:
        await self.viewers.session_ending()
        if self.context is not None:
            with trio.move_on_after(5):
                await self.pw(self.context.close)

    async def handle(self, msg: Any) -> Any:
        if isinstance(msg, Describe):
            return self.describe()
        if isinstance(msg, WatchFrames):
            return await self._unless_browser_lost(self.viewers.watch, msg.stream)
        if not isinstance(msg, SessionCall):
            raise TypeError(f"{self.name} has no handler for {type(msg).__name__}")
        self._calls += 1
        try:
            result = await self._unless_browser_lost(self._run_call, msg)
        finally:
            self._warm_when_idle()
            self.viewers.check_current()
        if isinstance(result, Later):
            # A wait that outlives the handler gets the same treatment when it fails.
            return Later.of(self._unless_browser_lost, result.fn, *result.args)
        return result

    async def _run_call(self, msg: SessionCall) -> Any:
        await self.attach_current()
        return await msg.fn(self, msg.args)

    def _warm_when_idle(self) -> None:
        """After a call that saw a navigation, build Playwright's injected script in
        the new document once the session has been idle for :data:`WARM_IDLE_S`.

        Playwright builds it on first use in each document, which costs the first
        locator action after a navigation 50-70 ms on a 2-core host. Built while the
        agent's model reads the last answer, it costs nothing; built at once, it would
        only make the next call wait behind it in the renderer (a snapshot, say), so a
        call that comes sooner goes first, and an action that comes sooner builds it
        itself, as it would have anyway.
        """
        if self.page is not None and self.navigations != self._warmed_at:
            self.nursery.start_soon(self._warm_after_idle, self._calls, self.navigations)

    async def _warm_after_idle(self, calls: int, navigations: int) -> None:
        await trio.sleep(WARM_IDLE_S)
        if self._calls == calls and self.navigations == navigations and self.page is not None:
            self._warmed_at = navigations
            self.driver.bridge.spawn(_warm_selectors, self.page)

    async def _unless_browser_lost(self, fn: Callable[..., Awaitable[Any]], *args: Any) -> Any:
        """Run ``fn``; if it failed because its page or the browser went away, say which.

        A tab that closed during the call (a page may close itself) is ``tab-closed``.
        A dead browser ends this actor with BrowserLost, which is the answer the caller
        should get instead of a confusing action or wait error; Playwright often
        notices before the process watcher does, so the watcher gets a moment.
        """
        try:
            return await fn(*args)
        except Exception as exc:
            gone = isinstance(exc, CdpConnectionLost) or any(m in str(exc) for m in _CLOSED_MARKERS)
            if self.browser is None or not gone:
                raise
            if await self._browser_answers():
                raise ToolError("tab-closed", "the tab closed during the call; list_tabs shows the "
                                f"open tabs ({first_line(exc)})") from exc
            with trio.move_on_after(_LOSS_GRACE):
                await self.browser.lost.wait()
                await trio.sleep_forever()
            raise

    async def _browser_answers(self) -> bool:
        assert self.browser is not None
        with trio.move_on_after(_PROBE_TIMEOUT):
            try:
                await self.browser.cdp.send("Browser.getVersion")
            except CdpFailure:
                return False
            return True
        return False

    async def _watch_browser(self, browser: Browser) -> None:
        await browser.lost.wait()
        lost = BrowserLost(self.session_id, browser.lost_reason)
        # Fail waiting callers now, before the nursery unwinds the running call.
        self._mark_crashed(lost)
        raise lost

    # -- tabs -------------------------------------------------------------------------

    async def attach_current(self) -> None:
        """Make the current tab usable from Trio: a raw CDP session to it, and a fresh
        blank tab when the pages closed every tab, as a browser window would open."""
        if self.tabs.current is None:
            page = await self.pw(self.context.new_page)
            await self.pw(_on_loop, self._adopt, page)
        tab = self.tabs.current
        assert tab is not None
        if tab.cdp is not None:
            return
        try:
            info = await self.pw(_target_info_of, self.context, tab.page)
            tab.target_id, self._context_id = info["targetId"], info.get("browserContextId")
            assert self.browser is not None and tab.target_id is not None
            tab.cdp = await self.browser.cdp.attach(tab.target_id)
        except Exception as exc:
            raise ToolError("tab-closed", f"tab {tab.id} closed before it could be used; "
                            "list_tabs shows the open tabs", tab=tab.id) from exc
        # A tab new to the tools gets Playwright's selector warm-up too.
        self._warmed_at = -1

    async def settle_tabs(self, timeout: float = 2.0) -> None:
        """Wait until every page the browser holds in this session's context has been
        reported as a tab: Playwright announces a popup a little after the browser
        has created it, and the browser's count is the one to trust."""
        if self.browser is None or self._context_id is None:
            return
        try:
            targets = await self.browser.cdp.send("Target.getTargets")
        except CdpFailure:
            return  # the browser is going; what Playwright knows will do
        expected = sum(1 for t in targets["targetInfos"]
                       if t.get("type") == "page" and t.get("browserContextId") == self._context_id)
        await self.pw(self.page_moved.wait_until, lambda: len(self.tabs) >= expected, timeout)

    # -- page events (called on the Playwright thread) --------------------------------

    def _adopt(self, page: Any) -> Tab:
        """A new page of the context becomes a tab, with the session's listeners."""
        known = len(self.tabs)
        tab = self.tabs.add(page)
        if len(self.tabs) != known:
            for event, handler in (
                ("console", self._on_console), ("pageerror", self._on_page_error),
                ("framenavigated", self._on_frame_navigated), ("close", self._on_page_closed),
                ("request", self.requests.on_request), ("requestfinished", self.requests.on_done),
                ("requestfailed", self.requests.on_done),
            ):
                page.on(event, handler)
            self.page_moved.fire()
        return tab

    def _on_page_closed(self, page: Any) -> None:
        self.tabs.close(page)
        self.page_moved.fire()

    def _on_console(self, message: Any) -> None:
        self.console.append({"type": message.type, "text": message.text})

    def _on_frame_navigated(self, frame: Any) -> None:
        page = self.page
        if page is not None and frame is page.main_frame:
            self.navigations += 1
            self.page_moved.fire()

    def _on_page_error(self, error: Any) -> None:
        self.console.append({"type": "pageerror", "text": str(error)})

    # -- helpers for tools ------------------------------------------------------------

    def refusal(self, tool: str) -> str | None:
        """Chromium implements every session tool it is asked for; no refusals to explain."""
        return None

    def describe(self) -> dict[str, Any]:
        return {
            "id": self.session_id,
            "engine": self.engine,
            "url": None if self.page is None else self.page.url,
            "targetId": self.target_id,
            "browserGeneration": None if self.browser is None else self.browser.generation,
            "ageSeconds": round(trio.current_time() - self.started_at, 3),
        }


async def _listen(emitter: Any, handlers: dict[str, Callable[..., Any]]) -> None:
    for event, handler in handlers.items():
        emitter.on(event, handler)


async def _on_loop(fn: Callable[..., Any], *args: Any) -> Any:
    """Run a plain function on the Playwright thread (through :meth:`ChromiumSession.pw`)."""
    return fn(*args)


async def _warm_selectors(page: Any) -> None:
    # A failure here (the page navigated on or closed) is for the next action to meet.
    with contextlib.suppress(Exception):
        await page.locator(":root").count()


async def _target_info_of(context: Any, page: Any) -> dict[str, Any]:
    """The CDP target info of a Playwright page (its target id, so raw CDP can attach to
    the same tab, and its browser context id)."""
    cdp_session = await context.new_cdp_session(page)
    try:
        info = await cdp_session.send("Target.getTargetInfo")
    finally:
        await cdp_session.detach()
    return info["targetInfo"]

