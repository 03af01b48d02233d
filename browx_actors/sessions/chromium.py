"""The chromium session actor: one isolated browser context and its page.

A session owns a Playwright ``BrowserContext`` (its own cookies and storage) in the
pool's browser, the page in it, and a raw CDP flat session to the same target for what
Trio must own (screenshots now; the human bridge and screencast later). Tool calls
arrive as :class:`SessionCall` messages and run one at a time, in order; a tool that
waits long returns :class:`~browx_actors.actor.Later` so the mailbox keeps serving.

The session watches its browser. When Chromium dies, it fails every waiting caller at
once with :class:`BrowserLost` as the cause and ends; the runtime turns that into the
``browser-crashed`` code for the agent.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
from collections import deque
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import attrs
import trio

from ..actor import Actor, ActorRef, Later
from ..cdp.pool import AcquireBrowser, Browser
from ..human.bridge import HumanBridge
from .driver import PlaywrightDriver
from .pageagent import AGENT_KEY, AGENT_SOURCE

__all__ = ["BrowserLost", "ChromiumSession", "ConsoleLog", "SessionCall", "SessionOptions"]

#: One round trip to the page agent; installs it first on pages that lack it
#: (pages created before the init script, or documents it could not reach).
_AGENT_CALL = f"""([method, arg]) => {{
  const agent = window[{AGENT_KEY!r}];
  if (!agent) return {{__browxMissing: true}};
  return agent[method](arg);
}}"""


#: Phrases in Playwright errors that mean the page, context or browser went away.
_CLOSED_MARKERS = ("has been closed", "Target closed", "Connection closed", "Browser closed")
_LOSS_GRACE = 2.0


class BrowserLost(Exception):
    """The session's browser died; ``reason`` says how."""

    def __init__(self, session_id: str, reason: str) -> None:
        super().__init__(f"session {session_id!r} ended: {reason}")
        self.session_id = session_id
        self.reason = reason


@attrs.frozen
class SessionOptions:
    viewport: tuple[int, int] = (1280, 720)


@attrs.frozen
class SessionCall:
    """Run ``fn(session, args)`` inside the session actor."""

    tool: str
    fn: Callable[[ChromiumSession, dict[str, Any]], Awaitable[Any]]
    args: dict[str, Any]


class ConsoleLog:
    """Console messages and page errors, appended from the Playwright thread.

    ``deque.append`` is atomic under the GIL, and readers only take snapshots by
    sequence number, so the two threads never need a lock.
    """

    def __init__(self, maxlen: int = 500) -> None:
        self._entries: deque[tuple[int, dict[str, Any]]] = deque(maxlen=maxlen)
        self._seq = itertools.count(1)
        self.last_seq = 0

    def append(self, entry: dict[str, Any]) -> None:
        seq = next(self._seq)
        self._entries.append((seq, entry))
        self.last_seq = seq

    def since(self, seq: int, *, errors_only: bool = False) -> list[dict[str, Any]]:
        return [
            e for s, e in list(self._entries)
            if s > seq and (not errors_only or e["type"] in ("error", "pageerror"))
        ]


class RequestTracker:
    """Requests in flight on the page, counted on the Playwright thread.

    An action that starts requests (a fetch behind "Load more", a form post) has not
    settled until they finish; :meth:`wait_idle` lets the action wait for exactly
    those, never for a fixed time.
    """

    def __init__(self) -> None:
        self.started = 0
        self._inflight: set[Any] = set()
        self._idle: Any = None

    def on_request(self, request: Any) -> None:
        self.started += 1
        self._inflight.add(request)

    def on_done(self, request: Any) -> None:
        self._inflight.discard(request)
        if not self._inflight and self._idle is not None:
            self._idle.set()

    async def wait_idle(self, timeout: float) -> bool:
        """On the Playwright thread: wait until nothing is in flight; False on timeout."""
        if not self._inflight:
            return True
        self._idle = asyncio.Event()
        try:
            await asyncio.wait_for(self._idle.wait(), timeout)
            return True
        except TimeoutError:
            return False
        finally:
            self._idle = None


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
        self.page: Any = None
        self.cdp: Any = None
        self.target_id: str | None = None
        self.console = ConsoleLog()
        #: Main-frame navigations so far (counted on the Playwright thread).
        self.navigations = 0
        self.requests = RequestTracker()
        self.secrets: dict[str, str] = {}
        #: The isolated-world bridge await_human answers through (None: no human channel).
        self.human: HumanBridge | None = None
        self.canvas_cache: Any = None  # canvas captures behind captureId (browx_actors.canvas.cache)
        self.started_at = trio.current_time()
        #: ``navigations`` when Playwright's selector machinery was last warmed.
        self._warmed_at = 0

    # -- running Playwright from Trio -------------------------------------------------

    async def pw(self, fn: Callable[..., Awaitable[Any]], *args: Any, **kwargs: Any) -> Any:
        """Await a Playwright coroutine on the driver thread; cancellation reaches it."""
        if kwargs:
            fn = functools.partial(fn, **kwargs)
        return await self.driver.bridge.run(fn, *args)

    async def agent(self, method: str, arg: Any = None) -> Any:
        """Call the page agent's ``method(arg)`` in the page's main world."""
        result = await self.pw(self.page.evaluate, _AGENT_CALL, [method, arg])
        if isinstance(result, dict) and result.get("__browxMissing"):
            await self.pw(self.page.evaluate, AGENT_SOURCE)
            result = await self.pw(self.page.evaluate, _AGENT_CALL, [method, arg])
        return result

    # -- lifecycle --------------------------------------------------------------------

    async def on_start(self) -> None:
        self.browser = await self._pool().call(AcquireBrowser(), timeout=60)
        width, height = self.options.viewport
        self.context = await self.pw(
            self.browser.playwright.new_context, viewport={"width": width, "height": height}
        )
        await self.pw(self.context.add_init_script, script=AGENT_SOURCE)
        self.page = await self.pw(self.context.new_page)
        # On the Playwright thread: page.on() may send a subscription message, which
        # needs that thread's running asyncio loop.
        await self.pw(_listen, self.page, {
            "console": self._on_console, "pageerror": self._on_page_error,
            "framenavigated": self._on_frame_navigated, "request": self.requests.on_request,
            "requestfinished": self.requests.on_done, "requestfailed": self.requests.on_done,
        })
        self.target_id = await self.pw(_target_id_of, self.context, self.page)
        self.cdp = await self.browser.cdp.attach(self.target_id)
        self.human = await self.nursery.start(HumanBridge(self.session_id, self.cdp, self.browser.cdp).run)
        self.nursery.start_soon(self._watch_browser, self.browser)

    async def on_stop(self) -> None:
        if self.context is not None:
            with trio.move_on_after(5):
                await self.pw(self.context.close)

    async def handle(self, msg: Any) -> Any:
        if not isinstance(msg, SessionCall):
            raise TypeError(f"{self.name} has no handler for {type(msg).__name__}")
        try:
            result = await self._unless_browser_lost(msg.fn, self, msg.args)
        finally:
            self._warm_after_navigation()
        if isinstance(result, Later):
            # A wait that outlives the handler gets the same treatment when it fails.
            return Later.of(self._unless_browser_lost, result.fn, *result.args)
        return result

    def _warm_after_navigation(self) -> None:
        """Build Playwright's injected script in a new document, after the call.

        Playwright builds it on first use in each document, which costs the first
        locator action after a navigation 50-70 ms on a 2-core host. Started once the
        call that saw the navigation has answered, it runs while the agent reads that
        answer; an action that comes sooner awaits the same script, never a second.
        """
        if self.page is not None and self.navigations != self._warmed_at:
            self._warmed_at = self.navigations
            self.driver.bridge.spawn(_warm_selectors, self.page)

    async def _unless_browser_lost(self, fn: Callable[..., Awaitable[Any]], *args: Any) -> Any:
        """Run ``fn``; if it fails because the browser went away, end with BrowserLost.

        Playwright often notices a dead browser before the process watcher does. Give
        the watcher a moment: if the browser is gone, it ends this actor with
        BrowserLost (cancelling this wait), which is the answer the caller should get
        instead of a confusing action or wait error.
        """
        try:
            return await fn(*args)
        except Exception as exc:
            if self.browser is not None and any(m in str(exc) for m in _CLOSED_MARKERS):
                with trio.move_on_after(_LOSS_GRACE):
                    await self.browser.lost.wait()
                    await trio.sleep_forever()
            raise

    async def _watch_browser(self, browser: Browser) -> None:
        await browser.lost.wait()
        lost = BrowserLost(self.session_id, browser.lost_reason)
        # Fail waiting callers now, before the nursery unwinds the running call.
        self._mark_crashed(lost)
        raise lost

    # -- page events (called on the Playwright thread) --------------------------------

    def _on_console(self, message: Any) -> None:
        self.console.append({"type": message.type, "text": message.text})

    def _on_frame_navigated(self, frame: Any) -> None:
        if frame is self.page.main_frame:
            self.navigations += 1

    def _on_page_error(self, error: Any) -> None:
        self.console.append({"type": "pageerror", "text": str(error)})

    # -- helpers for tools ------------------------------------------------------------

    def describe(self) -> dict[str, Any]:
        return {
            "id": self.session_id,
            "engine": self.engine,
            "url": None if self.page is None else self.page.url,
            "targetId": self.target_id,
            "browserGeneration": None if self.browser is None else self.browser.generation,
            "ageSeconds": round(trio.current_time() - self.started_at, 3),
        }


async def _listen(page: Any, handlers: dict[str, Callable[..., Any]]) -> None:
    for event, handler in handlers.items():
        page.on(event, handler)


async def _warm_selectors(page: Any) -> None:
    # A failure here (the page navigated on or closed) is for the next action to meet.
    with contextlib.suppress(Exception):
        await page.locator(":root").count()


async def _target_id_of(context: Any, page: Any) -> str:
    """The CDP target id of a Playwright page, so raw CDP can attach to the same tab."""
    cdp_session = await context.new_cdp_session(page)
    try:
        info = await cdp_session.send("Target.getTargetInfo")
    finally:
        await cdp_session.detach()
    return info["targetInfo"]["targetId"]

