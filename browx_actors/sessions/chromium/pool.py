"""The browser pool actor: owns the Chromium process and its browser-level sockets.

The pool launches Debian's Chromium lazily, on the first :class:`AcquireBrowser`, or
attaches to ``BROWX_ATTACH_CDP``. Each browser lives in a task of the pool's nursery
that holds the process, the raw CDP connection and the Playwright connection in one
``async with``; that task also watches the process. When Chromium dies, the task marks
the :class:`Browser` lost (waking every session that depends on it), records an exit
event, and ends; the next acquire launches a fresh browser. Stopping the pool cancels
the task, and leaving the ``async with`` kills the process group. An attached browser
is reached over one socket, which Playwright (through :mod:`~browx_actors.cdp.relay`)
and every session's events share: a fleet's endpoint starts a browser per socket.
"""

from __future__ import annotations

import signal
from contextlib import AsyncExitStack

import attrs
import trio
from playwright.async_api import Browser as PlaywrightBrowser

from ...cdp import answers
from ...cdp.attach import resolve_attach_endpoint
from ...cdp.connection import CdpConnection
from ...cdp.launcher import launch_chromium
from ...cdp.opening import open_cdp_connection
from ...cdp.relay import open_playwright_relay
from ...config import CDP_TIMEOUT
from ...credentials import redact_url
from ...errors import ToolError
from ...kernel.actor import Actor
from ...kernel.supervision import EventLog
from .bridge.driver import PlaywrightDriver

__all__ = ["AcquireBrowser", "Browser", "BrowserPool", "PoolConfig", "PoolStatus", "describe_exit"]


@attrs.frozen
class PoolConfig:
    executable: str | None = None
    attach_endpoint: str | None = None
    headless: bool = True
    #: Headers every lookup and socket to an attached browser carries.
    headers: tuple[tuple[str, str], ...] = attrs.field(default=(), repr=False)
    #: Seconds each step of reaching an attached browser may take.
    timeout: float = CDP_TIMEOUT


@attrs.define(eq=False)
class Browser:
    """One live browser as the pool hands it out. ``lost`` fires when it dies."""

    generation: int
    ws_url: str
    cdp: CdpConnection
    #: Playwright's connection to the same browser.
    playwright: PlaywrightBrowser
    pid: int | None
    attached: bool
    lost: trio.Event = attrs.Factory(trio.Event)
    lost_reason: str = ""

    def mark_lost(self, reason: str) -> None:
        if not self.lost.is_set():
            self.lost_reason = reason
            self.lost.set()

    async def answers(self, timeout: float) -> bool:
        """Whether the browser answers a probe within ``timeout`` seconds: a live one
        does, whatever became of the tab a call was on."""
        return await answers(self.cdp, "Browser.getVersion", timeout) is True


@attrs.frozen
class AcquireBrowser:
    pass


@attrs.frozen
class PoolStatus:
    pass


def describe_exit(returncode: int | None) -> str:
    if returncode is None:
        return "an unknown status"
    if returncode < 0:
        try:
            return f"signal {signal.Signals(-returncode).name}"
        except ValueError:
            return f"signal {-returncode}"
    return f"exit code {returncode}"


class BrowserPool(Actor):
    def __init__(self, config: PoolConfig, driver: PlaywrightDriver, events: EventLog) -> None:
        super().__init__("browser-pool")
        self.config = config
        self.driver = driver
        self.events = events
        self._current: Browser | None = None
        self._generation = 0
        self.launches = 0

    async def handle(self, msg: object) -> object:
        match msg:
            case AcquireBrowser():
                if self._current is None or self._current.lost.is_set():
                    self._generation += 1
                    self._current = await self.nursery.start(self._own_browser, self._generation)
                return self._current
            case PoolStatus():
                current = self._current
                return {
                    "launches": self.launches,
                    "browser": None if current is None else {
                        "generation": current.generation,
                        "pid": current.pid,
                        "attached": current.attached,
                        "alive": not current.lost.is_set(),
                        "lostReason": current.lost_reason or None,
                    },
                }
        raise TypeError(f"{self.name} has no handler for {type(msg).__name__}")

    async def _own_browser(self, generation: int, *, task_status: trio.TaskStatus[Browser]) -> None:
        """Hold one browser for its whole life; return when it dies or the pool stops."""
        label = f"chromium-{generation}"
        async with AsyncExitStack() as stack:
            try:
                if self.config.attach_endpoint:
                    ws_url = await resolve_attach_endpoint(self.config.attach_endpoint, headers=self.config.headers,
                                                           timeout=self.config.timeout)
                    process = None
                else:
                    process = await stack.enter_async_context(
                        launch_chromium(self.config.executable, headless=self.config.headless)
                    )
                    ws_url = process.ws_url
                headers = self.config.headers if process is None else ()
                cdp = await stack.enter_async_context(open_cdp_connection(ws_url, headers=headers,
                                                                          connect_timeout=self.config.timeout))
                # An endpoint may start a browser per socket (a fleet): Playwright goes
                # through a relay on the one socket we opened.
                playwright_url = ws_url if process is not None else await stack.enter_async_context(
                    open_playwright_relay(cdp, timeout=self.config.timeout))
                playwright_browser = await self.driver.connect_over_cdp(playwright_url,
                                                                        timeout_ms=self.config.timeout * 1000)
            except ToolError:
                raise
            except Exception as exc:
                raise ToolError("unavailable", f"could not start Chromium: {exc}", component="browser") from exc
            stack.push_async_callback(self._close_playwright, playwright_browser)
            browser = Browser(
                generation, ws_url, cdp, playwright_browser,
                pid=None if process is None else process.pid, attached=process is None,
            )
            self.launches += 1
            self.events.emit(self.name, label, "started", redact_url(ws_url))
            task_status.started(browser)
            try:
                if process is not None:
                    returncode = await process.wait_exit()
                    reason = f"Chromium (pid {process.pid}) exited with {describe_exit(returncode)}"
                else:
                    reason = await cdp.wait_lost()
                browser.mark_lost(reason)
                self.events.emit(self.name, label, "exited", reason)
            finally:
                browser.mark_lost("the browser pool stopped")

    async def _close_playwright(self, playwright_browser: PlaywrightBrowser) -> None:
        with trio.CancelScope(shield=True), trio.move_on_after(3):
            await self.driver.bridge.run(playwright_browser.close)
