"""The per-session isolated-world bridge: the DevTools half of ``await_human``, over raw CDP.

Why raw CDP and not Playwright: the bridge is a set of long-lived event streams
(context creation, binding calls, new targets) whose lifetime must be the session's.
On our own trio-websocket flat sessions each stream is a task in the bridge's nursery,
so closing the session cancels them with no callback left on another thread.

What it sets up, on the session's page and on every target it comes to own:

* a world named ``browxai-<random>``: ``Page.addScriptToEvaluateOnNewDocument
  {worldName}`` re-creates it (with the helper in it) in every new document, and
  ``Page.createIsolatedWorld`` plus one ``Runtime.evaluate`` create it in the frames
  that already exist;
* a binding with a random name, ``Runtime.addBinding {executionContextName: world}``,
  so it exists only in contexts of that world; the page's main world never sees it;
* the display-only ``window.__browx`` in the main world;
* ``Runtime.enable``, whose context events feed a :class:`ContextBook`. A
  ``Runtime.bindingCalled`` counts only when its ``executionContextId`` is a live
  context of the world on that same flat session, never an extension's.

Which targets it owns: the session's page; popups opened from it (and from those),
found by ``Target.targetCreated`` with an ``openerId`` we own, so on a browser shared
with other sessions (an attached Chrome) it never wires another session's tab; any
other tab the session tells it about (:meth:`HumanBridge.wire`: a tab ``new_tab``
opened, which has no opener); and out-of-process iframes of those pages, through
``Target.setAutoAttach`` on our own flat session (which affects no other client).
Its owner may hand it the way to attach (``attach``): then the bridge shares the
owner's one flat session per tab instead of opening its own, and never detaches it.
Target discovery rides the browser-level socket's events, not Playwright's ``popup``
callback, so popups need no hop through the asyncio thread and the popup is attached
by target id straight away.

Setup cost: commands that do not depend on each other go out together, so the session's
own page costs three round trips and any other target five; see :mod:`.worlds` (which
also records the one ordering Chromium insists on).
"""

from __future__ import annotations

import contextlib
import json
import logging
import weakref
from collections import deque
from collections.abc import Awaitable, Callable

import attrs
import trio

from ..cdp.connection import CdpConnection, CdpSubscription, TargetLink
from ..cdp.protocol import CdpEvent, CdpFailure
from ..jsonsafe import JsonObject
from .contexts import ContextBook
from .desk import PromptDesk
from .prompts import (
    Aborted,
    Accepted,
    BindingCall,
    Dropped,
    PromptSpec,
    format_ending,
    format_prompt,
    new_binding_name,
    new_world_name,
    parse_binding_payload,
    result_envelope,
)
from .stderr import emit
from .worlds import WorldSetup, together

__all__ = ["HumanBridge", "WiredTarget"]

log = logging.getLogger("browx_actors.human")

_TARGET_EVENTS = (
    "Runtime.executionContextCreated",
    "Runtime.executionContextDestroyed",
    "Runtime.executionContextsCleared",
    "Runtime.bindingCalled",
    "Target.attachedToTarget",
)
#: Context events must not be lost (the book would go stale), and they are few.
_EVENT_BUFFER = 2048
_DETACH_GRACE = 1.0

#: Browser connections on which target discovery is already on: it is connection-wide
#: state, and turning it on again would replay every existing target to every bridge.
_discovering: weakref.WeakSet[CdpConnection] = weakref.WeakSet()


@attrs.define(eq=False)
class WiredTarget:
    """A page, popup or out-of-process iframe the bridge has set up."""

    cdp: TargetLink
    kind: str
    book: ContextBook

    @property
    def target_id(self) -> str:
        return self.cdp.target_id

    def world_context(self) -> int | None:
        """The world's context in this target's main frame (its frame id is the target id)."""
        return self.book.for_frame(self.cdp.target_id)


class HumanBridge:
    """One session's isolated world and the prompts answered from it."""

    def __init__(
        self,
        session_id: str,
        cdp: TargetLink,
        browser: CdpConnection,
        *,
        log_line: Callable[[str], None] = emit,
        attach: Callable[[str], Awaitable[TargetLink]] | None = None,
    ) -> None:
        self.session_id = session_id
        self.cdp = cdp
        self.browser = browser
        self.world = new_world_name()
        self.binding = new_binding_name()
        self.desk = PromptDesk()
        #: Wired targets by target id (the page first, then popups and iframes).
        self.targets: dict[str, WiredTarget] = {}
        #: ``__browx.signal`` / ``done`` notes, newest last.
        self.signals: deque[JsonObject] = deque(maxlen=100)
        self._setup = WorldSetup(self.world, self.binding, own_sessions=attach is None)
        self._log = log_line
        self._pages: set[str] = {cdp.target_id}
        #: Popups seen opening from the session's pages (the session's tab count lags).
        self.popups_seen = 0
        self._nursery: trio.Nursery | None = None
        self._changed = trio.Event()
        #: The owner's shared attach (None: the bridge attaches, and detaches, its own).
        self._attach = attach

    # -- lifetime ---------------------------------------------------------------------

    async def run(self, *, task_status: trio.TaskStatus[HumanBridge] = trio.TASK_STATUS_IGNORED) -> None:
        """Wire the page, then serve until cancelled (the session's nursery owns us)."""
        popups = self.browser.subscribe(None, methods=["Target.targetCreated"])
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            nursery.start_soon(self._watch_popups, popups)
            await together(
                self._enable_discovery,
                lambda: nursery.start(self._serve_target, self.cdp, "page"),
            )
            task_status.started(self)

    def world_context(self, target_id: str | None = None) -> int | None:
        """The world's live context in a target's main frame (default: the page)."""
        target = self.targets.get(target_id or self.cdp.target_id)
        return None if target is None else target.world_context()

    async def wait_until(self, predicate: Callable[[], bool]) -> None:
        """Wait until ``predicate()`` holds; re-checked whenever targets or contexts change."""
        while not predicate():
            await self._changed.wait()

    # -- asking -----------------------------------------------------------------------

    async def ask(self, spec: PromptSpec) -> JsonObject:
        """Open a prompt answered from the world; the tool's result when it ends."""
        prompt = self.desk.open(self.session_id, spec)
        self._log(format_prompt(self.session_id, prompt.ticket, spec, world=self.world))
        outcome = await self.desk.wait(prompt)
        self._log(format_ending(prompt.ticket, spec, outcome))
        return result_envelope(spec.kind, outcome)

    # -- targets ----------------------------------------------------------------------

    async def _enable_discovery(self) -> None:
        if self.browser in _discovering:
            return
        _discovering.add(self.browser)
        try:
            await self.browser.send("Target.setDiscoverTargets", {"discover": True})
        except BaseException:
            _discovering.discard(self.browser)
            raise

    async def _watch_popups(self, events: CdpSubscription) -> None:
        try:
            async with events:
                async for event in events:
                    info = event.params.get("targetInfo") or {}
                    target_id = info.get("targetId")
                    if (
                        info.get("type") == "page"
                        and isinstance(target_id, str)
                        and info.get("openerId") in self._pages
                        and target_id not in self._pages
                    ):
                        self._pages.add(target_id)
                        self.popups_seen += 1
                        self._spawn(self._adopt_popup, target_id)
        except CdpFailure as exc:
            log.debug("bridge %s: target watch ended: %s", self.world, exc)

    def wire(self, target_id: str) -> None:
        """Wire a tab of the session that no page of ours opened (``new_tab``); a
        no-op for one the bridge owns already."""
        if target_id not in self._pages and self._nursery is not None:
            self._pages.add(target_id)
            self._spawn(self._adopt_popup, target_id, "tab")

    async def _adopt_popup(self, target_id: str, kind: str = "popup") -> None:
        try:
            cdp = await (self._attach or self.browser.attach)(target_id)
        except CdpFailure as exc:
            log.debug("bridge %s: %s %s closed before it could be wired: %s", self.world, kind, target_id, exc)
            self._pages.discard(target_id)
            return
        try:
            await self._serve_target(cdp, kind)
        finally:
            self._pages.discard(target_id)
            if self._attach is None:
                with (trio.CancelScope(shield=True), trio.move_on_after(_DETACH_GRACE),
                      contextlib.suppress(CdpFailure)):
                    await cdp.detach(timeout=_DETACH_GRACE)

    async def _serve_target(
        self, cdp: TargetLink, kind: str,
        *, task_status: trio.TaskStatus[WiredTarget] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        """Set one target up, then apply its events until it goes away.

        Subscribing comes first, so no context event between the setup commands and
        the first read is lost. A target that vanishes (a popup closed, an iframe
        removed) just ends its task; only the session's own page failing to set up
        is an error, because then the session would have no human channel at all.
        """
        target = WiredTarget(cdp, kind, ContextBook(self.world))
        started = False
        try:
            async with cdp.subscribe(methods=_TARGET_EVENTS, buffer=_EVENT_BUFFER) as events:
                await self._setup.install(cdp, fresh=kind == "page")
                self.targets[cdp.target_id] = target
                self._notify()
                task_status.started(target)
                started = True
                async for event in events:
                    self._on_event(target, event)
        except CdpFailure as exc:
            if kind == "page" and not started:
                raise
            log.debug("bridge %s: %s %s ended: %s", self.world, kind, cdp.target_id, exc)
        finally:
            if self.targets.get(cdp.target_id) is target:
                del self.targets[cdp.target_id]
                self._notify()

    # -- events -----------------------------------------------------------------------

    def _on_event(self, target: WiredTarget, event: CdpEvent) -> None:
        if event.dropped_before:
            log.warning("bridge %s: %d events lost on %s; contexts may be stale until the next navigation",
                        self.world, event.dropped_before, target.target_id)
        method, params = event.method, event.params
        if method == "Runtime.executionContextCreated":
            if target.book.created(params.get("context") or {}) is not None:
                self._notify()
        elif method == "Runtime.executionContextDestroyed":
            target.book.destroyed(params.get("executionContextId"))
            self._notify()
        elif method == "Runtime.executionContextsCleared":
            target.book.cleared()
            self._notify()
        elif method == "Runtime.bindingCalled":
            self._on_binding(target, params)
        elif method == "Target.attachedToTarget":
            info = params.get("targetInfo") or {}
            session_id = params.get("sessionId")
            if info.get("type") == "iframe" and isinstance(session_id, str) and isinstance(info.get("targetId"), str):
                child = TargetLink(target.cdp.connection, session_id, info["targetId"])
                self._spawn(self._serve_target, child, "iframe")

    def _on_binding(self, target: WiredTarget, params: JsonObject) -> None:
        if params.get("name") != self.binding:
            return
        ctx_id = params.get("executionContextId")
        if not isinstance(ctx_id, int) or not target.book.accepts(ctx_id):
            log.warning("bridge %s: ignored a binding call from context %r, which is not one of "
                        "this session's world contexts", self.world, ctx_id)
            return
        call = parse_binding_payload(params.get("payload"))
        if isinstance(call, Dropped):
            self._tell(target, ctx_id, "warn", f"[browx] dropped: {call.reason}")
            return
        if call.method == "signal":
            self._signal(target, ctx_id, call)
            return
        verdict = self.desk.offer(call.ticket, call.method, call.value)
        if isinstance(verdict, Accepted):
            self._tell(target, ctx_id, "info", f"[browx] answer accepted for ticket {call.ticket}")
        elif isinstance(verdict, Aborted):
            self._tell(target, ctx_id, "info", f"[browx] prompt {call.ticket} aborted")
        else:
            self._log(f"[browx] dropped a DevTools answer ({call.method}) in session "
                      f"{self.session_id!r}: {verdict.reason}")
            self._tell(target, ctx_id, "warn", f"[browx] answer dropped: {verdict.reason}")

    def _signal(self, target: WiredTarget, ctx_id: int, call: BindingCall) -> None:
        value = call.value if isinstance(call.value, dict) else {}
        name = value.get("name")
        if not isinstance(name, str) or not name:
            self._tell(target, ctx_id, "warn", "[browx] a signal needs a name")
            return
        entry = {"name": name, "data": value.get("data"), "at": trio.current_time()}
        self.signals.append(entry)
        self._log(f"[browx] signal in session {self.session_id!r}: {name} "
                  f"{json.dumps(entry['data'], default=repr)[:500]}")
        self._tell(target, ctx_id, "info", f"[browx] signal {name!r} noted")

    def _tell(self, target: WiredTarget, ctx_id: int, level: str, text: str) -> None:
        """Answer the human in their console, in the world they typed into."""
        expression = f"console.{level}({json.dumps(text)})"
        self._spawn(_quietly, target.cdp.send, "Runtime.evaluate",
                    {"expression": expression, "contextId": ctx_id})

    # -- plumbing ---------------------------------------------------------------------

    def _spawn(self, fn: Callable[..., Awaitable[object]], *args: object) -> None:
        assert self._nursery is not None
        self._nursery.start_soon(fn, *args)

    def _notify(self) -> None:
        self._changed.set()
        self._changed = trio.Event()


async def _quietly(send: Callable[..., Awaitable[object]], *args: object) -> None:
    try:
        await send(*args)
    except CdpFailure as exc:
        log.debug("bridge feedback not delivered: %s", exc)
