"""The Firefox pool actor: owns the Firefox process and its one BiDi session.

The counterpart of the chromium engine's :mod:`~..chromium.pool`. Firefox is launched
lazily, on the first :class:`AcquireFirefox`, and held by a task of the pool's nursery
that keeps the process, the BiDi connection and its BiDi session in one ``async with``
and watches the process. A BiDi endpoint takes one session at a time, so every
browx session shares it; each gets a user context of its own (``browser.
createUserContext``: its own cookies and storage, as a Chromium browser context), and
the events of every context arrive on the shared socket, for each session to route by
context. When Firefox dies, the task marks the :class:`Firefox` lost (waking every
session on it, which end with ``browser-crashed``), records the exit, and ends; the
next acquire launches a fresh one. Stopping the pool cancels the task, and leaving the
``async with`` kills the process family. :func:`hold_attached` holds a session's own
Firefox instead, one someone else runs (``bidiEndpoint``), in the session's nursery.
"""

from __future__ import annotations

from contextlib import AsyncExitStack

import attrs
import trio

from ...bidi import BidiConnection, BidiFailure, FirefoxError, launch_firefox, open_bidi_connection
from ...credentials import redact_url
from ...errors import ToolError
from ...jsonsafe import JsonObject
from ...kernel.actor import Actor
from ...kernel.supervision import EventLog
from ..chromium.pool import describe_exit
from .records.intercept import Interceptor

__all__ = ["EVENTS", "AcquireFirefox", "Firefox", "FirefoxPool", "FirefoxStatus", "hold_attached", "new_bidi_session"]

#: The event modules every connection subscribes to once, for all contexts.
EVENTS = ("browsingContext", "log.entryAdded", "network.beforeRequestSent", "network.responseCompleted",
          "network.fetchError", "network.authRequired", "script.realmDestroyed")

#: ``unhandledPromptBehavior: ignore``: a page's dialog stays open for the session to
#: answer by its policy, rather than being dismissed by the browser behind its back.
CAPABILITIES: dict[str, JsonObject] = {
    "alwaysMatch": {"unhandledPromptBehavior": {"default": "ignore"}, "acceptInsecureCerts": False}}


@attrs.define(eq=False)
class Firefox:
    """One live Firefox as the pool hands it out. ``lost`` fires when it dies."""

    generation: int
    bidi: BidiConnection
    pid: int | None
    version: str
    lost: trio.Event = attrs.Factory(trio.Event)
    lost_reason: str = ""
    #: Its one clipboard: an editor's fill writes it, pastes and empties it, one at a time.
    clipboard: trio.Lock = attrs.Factory(trio.Lock)
    _interceptor: Interceptor | None = attrs.field(default=None, init=False)
    _auth_interceptor: Interceptor | None = attrs.field(default=None, init=False)

    @property
    def interceptor(self) -> Interceptor:
        """The connection's one network intercept, shared by the sessions that route
        (:mod:`.records.intercept`); made on first use."""
        if self._interceptor is None:
            self._interceptor = Interceptor(self.bidi)
        return self._interceptor

    @property
    def auth_interceptor(self) -> Interceptor:
        """The connection's one ``authRequired`` intercept, shared by the sessions whose
        proxy takes credentials (:mod:`.proxy_auth`); made on first use."""
        if self._auth_interceptor is None:
            self._auth_interceptor = Interceptor(self.bidi, phase="authRequired")
        return self._auth_interceptor

    def mark_lost(self, reason: str) -> None:
        if not self.lost.is_set():
            self.lost_reason = reason
            self.lost.set()


@attrs.frozen
class AcquireFirefox:
    pass


@attrs.frozen
class FirefoxStatus:
    pass


async def new_bidi_session(bidi: BidiConnection, capabilities: JsonObject | None = None) -> str:
    """Start the BiDi session on ``bidi`` (``capabilities`` over :data:`CAPABILITIES`'
    ``alwaysMatch``) and subscribe to :data:`EVENTS`; the browser's version."""
    asked = {"alwaysMatch": {**CAPABILITIES["alwaysMatch"], **(capabilities or {})}}
    created = await bidi.send("session.new", {"capabilities": asked}, timeout=60)
    await bidi.send("session.subscribe", {"events": list(EVENTS)})
    return str(created.get("capabilities", {}).get("browserVersion", ""))


class FirefoxPool(Actor):
    def __init__(self, executable: str | None, events: EventLog, *, headless: bool = True) -> None:
        super().__init__("firefox-pool")
        self.executable = executable
        self.headless = headless
        self.events = events
        self._current: Firefox | None = None
        self._generation = 0
        self.launches = 0

    async def handle(self, msg: object) -> object:
        match msg:
            case AcquireFirefox():
                if self._current is None or self._current.lost.is_set():
                    self._generation += 1
                    self._current = await self.nursery.start(self._own_browser, self._generation)
                return self._current
            case FirefoxStatus():
                current = self._current
                return {"launches": self.launches, "browser": None if current is None else {
                    "generation": current.generation, "pid": current.pid, "version": current.version,
                    "alive": not current.lost.is_set(), "lostReason": current.lost_reason or None}}
        raise TypeError(f"{self.name} has no handler for {type(msg).__name__}")

    async def _own_browser(self, generation: int, *, task_status: trio.TaskStatus[Firefox]) -> None:
        """Hold one Firefox for its whole life; return when it dies or the pool stops."""
        label = f"firefox-{generation}"
        async with AsyncExitStack() as stack:
            try:
                process = await stack.enter_async_context(launch_firefox(self.executable, headless=self.headless))
                bidi = await stack.enter_async_context(open_bidi_connection(process.ws_url))
                version = await new_bidi_session(bidi)
            except FirefoxError as exc:
                raise ToolError("engine-unavailable", str(exc), engine="firefox") from exc
            except BidiFailure as exc:
                raise ToolError("unavailable", f"could not start Firefox: {exc}", component="browser") from exc
            browser = Firefox(generation, bidi, process.pid, version)
            self.launches += 1
            self.events.emit(self.name, label, "started", f"Firefox {version} (pid {process.pid})")
            task_status.started(browser)
            try:
                async with trio.open_nursery() as watch:
                    async def on_socket_loss() -> None:
                        await bidi.wait_lost()
                        watch.cancel_scope.cancel()
                    watch.start_soon(on_socket_loss)
                    returncode = await process.wait_exit()
                    watch.cancel_scope.cancel()
                reason = (f"Firefox (pid {process.pid}) exited with {describe_exit(returncode)}"
                          if process.process.returncode is not None
                          else f"the BiDi connection to Firefox was lost: {bidi.lost}")
                browser.mark_lost(reason)
                self.events.emit(self.name, label, "exited", reason)
            finally:
                browser.mark_lost("the Firefox pool stopped")


async def hold_attached(endpoint: str, *, task_status: trio.TaskStatus[Firefox]) -> None:
    """Hold a BiDi session on a Firefox someone else runs at ``endpoint`` (``bidiEndpoint``)."""
    async with AsyncExitStack() as stack:
        try:
            bidi = await stack.enter_async_context(open_bidi_connection(endpoint))
            version = await new_bidi_session(bidi)
        except BidiFailure as exc:
            raise ToolError("unavailable", f"could not attach to Firefox at {redact_url(endpoint)}: {exc}",
                            component="browser") from exc
        browser = Firefox(0, bidi, None, version)
        task_status.started(browser)
        try:
            browser.mark_lost(f"the BiDi connection to Firefox was lost: {await bidi.wait_lost()}")
        finally:
            browser.mark_lost("the session ended")
            with trio.move_on_after(2):
                await bidi.send("session.end", {}, timeout=2)
