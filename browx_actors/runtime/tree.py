"""The runtime root: the supervision tree, and the context every runtime tool gets.

:class:`Runtime` runs the supervision tree (``docs/architecture.md``)::

    Runtime (root supervisor, one_for_one)
    ├── Recorder (diagnostics JSONL writer; fed only when diagnostics is allowed)
    ├── operator-channel (one_for_one, temporary in the root; only with operator-channel on)
    │   └── OperatorChannel "link" (the host daemon's socket, permanent)
    ├── BrowserPool
    ├── FirefoxPool (Firefox over WebDriver BiDi, launched on first use)
    ├── DeviceRegistry (one temporary DeviceLease child per leased device)
    ├── SessionSupervisor (one_for_one, dynamic: one temporary child per session)
    └── StreamSupervisor (one LiveViewStream per live view, at most 4; only with live-view on)

The operator channel restarts under a supervisor of its own, a *temporary* child of
the root, so that a misbehaving daemon can at worst lose its own link
(``operator.py`` says how, and wires it).

The device registry starts before the sessions and so stops after them: a native
session releases its lease on the way out.

The runtime also implements :class:`~browx_actors.tools.context.RuntimeContext`, what
runtime tools are handed. It knows no tool: ``open_runtime`` (``server/embed.py``) assembles
the catalog and binds the one dispatch path to it, so an embedding Trio program gets
exactly what an MCP client gets.

The session supervisor is the only record of which sessions exist: the runtime holds
actor refs, looks sessions up through the supervisor's mailbox, and reads no actor's
state from outside (a session describes itself when asked). The stream supervisor
reaches sessions the same way, through :meth:`Runtime.find_session`, which never opens
one and never takes the obituary a crashed session leaves for the agent's next call.

Two parts live beside it: how each engine's session actor is built
(``factory.py``), and what the runtime reports, the tree as ``runtime_status``
shows it and how an ended session answers (``status.py``).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

import trio

from ..clients import acting_for, current, named, owned_by
from ..config import RuntimeConfig
from ..devices.leases import DeviceRegistry
from ..errors import ToolError
from ..jsonsafe import JsonObject, JsonValue
from ..kernel.actor_ref import ActorRef, ActorUnavailable
from ..kernel.supervision import (
    ChildGone,
    ChildInfo,
    ChildSpec,
    EventLog,
    ForgetChild,
    LookupChild,
    Restart,
    StartChild,
    Strategy,
    TerminateChild,
    WhichChildren,
)
from ..kernel.supervisor import Supervisor
from ..policy.book import PolicyBook
from ..recorder import Recorder, RecorderInbox, SessionClosed
from ..secret_book import SecretBook
from ..sessions.chromium.bridge.driver import PlaywrightDriver
from ..sessions.chromium.pool import BrowserPool, PoolConfig
from ..sessions.firefox.pool import FirefoxPool
from ..sessions.messages import AwaitReady, Describe, SessionCall, ToolCall
from ..sessions.native.session import CONNECT_SECONDS
from ..streams.messages import StreamStatus
from ..streams.supervisor import StreamSupervisor
from ..tools import AnyTool, Arguments, Gates, ToolOutput
from ..tools.context import SessionFn
from ..tools.contract import SESSION_CALL_TIMEOUT
from .factory import CONNECTING_ENGINES, SessionParts, session_factory
from .opening import register_proxy_password, session_options
from .operator import OperatorWiring
from .status import STREAMS, StatusSource, ask_status, ended_code, ended_reason, tree_status

__all__ = ["SESSION_CALL_TIMEOUT", "Runtime"]

log = logging.getLogger("browx_actors.runtime.tree")

#: The one dispatch path, bound by ``open_runtime``: ``(tool, arguments) -> ToolOutput``.
Dispatch = Callable[[str, JsonValue], Awaitable[ToolOutput]]
T = TypeVar("T")
R = TypeVar("R")


class Runtime:
    """A running tree. Use :meth:`call_tool`; read :meth:`status`."""

    def __init__(self, config: RuntimeConfig, client_capabilities: frozenset[str],
                 driver: PlaywrightDriver) -> None:
        self.config = config
        self.events = EventLog()
        self.driver = driver
        self.gates = Gates(config.capabilities, client_capabilities)
        self.secrets = SecretBook()
        #: The operator's policy and what each session added (set_confirm_policy).
        self.policy = PolicyBook(config.policy)
        self.recorder_inbox = RecorderInbox.open()
        #: Whether the dispatch hands calls to the recorder (both gates allow diagnostics).
        self.recording = self.gates.allows("diagnostics")
        self._operator = OperatorWiring(config, self.events, self.streams_ref)
        self.root = Supervisor(
            "runtime",
            [
                ChildSpec("recorder", self._new_recorder, Restart.PERMANENT, shutdown=10),
                *self._operator.children(),
                ChildSpec("browser-pool", self._new_pool, Restart.PERMANENT, shutdown=10),
                ChildSpec("firefox-pool", self._new_firefox_pool, Restart.PERMANENT, shutdown=10),
                ChildSpec("devices", self._new_device_registry, Restart.PERMANENT, shutdown=10),
                ChildSpec("sessions", self._new_session_supervisor, Restart.PERMANENT, shutdown=15),
                *self._stream_children(),
            ],
            strategy=Strategy.ONE_FOR_ONE,
            events=self.events,
        )
        #: Set when the root supervisor has finished (after a shutdown or a crash).
        self.stopped = trio.Event()
        self._dispatch: Dispatch | None = None
        #: Serialises opening and closing, so ``default`` opens once under concurrent calls.
        self._session_lock = trio.Lock()

    # -- the library API --------------------------------------------------------------

    def bind(self, dispatch: Dispatch) -> None:
        """Give the runtime its dispatch path (``open_runtime`` does)."""
        self._dispatch = dispatch

    async def shutdown(self, grace: float = 30.0) -> None:
        """Stop the tree gracefully: children in reverse start order, each within its
        grace (sessions close their contexts, the pool kills Chromium). Safe to call
        more than once and from a cancelled task; ``open_runtime`` calls it on exit."""
        self.root.stop()
        with trio.move_on_after(grace) as scope:
            scope.shield = True
            await self.stopped.wait()

    async def call_tool(self, name: str, args: JsonObject | None = None) -> JsonObject:
        """Call a tool exactly as an MCP client would; returns the result envelope."""
        return (await self.call_tool_output(name, args)).envelope

    async def call_tool_output(self, name: str, args: JsonObject | None = None) -> ToolOutput:
        """Like :meth:`call_tool`, with the images a tool returned."""
        return await self.dispatch(name, args or {})

    async def dispatch(self, name: str, args: JsonValue) -> ToolOutput:
        """The one dispatch path, for runtime tools that call tools (``tool.batch``)."""
        if self._dispatch is None:
            raise RuntimeError("this runtime has no dispatch path; open it with open_runtime()")
        return await self._dispatch(name, args)

    # -- the tree ---------------------------------------------------------------------

    def _new_recorder(self) -> Recorder:
        return Recorder(self.recorder_inbox, self.config.workspace, recording=self.recording,
                        retention_days=self.config.diagnostics_retention_days, secrets=self.secrets.masks)

    def recorder_ref(self) -> ActorRef:
        return self._child("recorder")

    def operator_ref(self) -> ActorRef | None:
        """Where await_human asks when operator-channel is on (None when it is off)."""
        return self._operator.ref()

    def _stream_children(self) -> list[ChildSpec]:
        """The StreamSupervisor, beside the sessions, only when the live-view capability is on.

        Started after the sessions and so stopped before them: at shutdown every view
        ends with ``channel-closed`` while the channel can still say so.
        """
        if "live-view" not in self.config.capabilities:
            return []
        return [ChildSpec(STREAMS, self._new_stream_supervisor, Restart.PERMANENT, shutdown=15)]

    def _new_stream_supervisor(self) -> StreamSupervisor:
        return StreamSupervisor(self.find_session, timings=self.config.stream_timings, events=self.events)

    def streams_ref(self) -> ActorRef | None:
        """The stream supervisor while it runs (None when live-view is off or it is restarting)."""
        return self.root.child_ref(STREAMS)

    async def live_view_status(self) -> JsonObject:
        """Every running view in numbers (level, fps, frames, write latency) and the last
        ones that ended: for the program that embeds the runtime (a harness, a test), never
        for the agent. No tool reads it, and ``runtime_status`` shows no trace of a view:
        nothing an agent can call may tell whether a view is running."""
        ref = self.streams_ref()
        if ref is None:
            raise ToolError("capability-denied", "live-view is off", capability="live-view")
        return await ask_status(ref, StreamStatus())

    def _new_pool(self) -> BrowserPool:
        pool_config = PoolConfig(self.config.chromium, self.config.attach_cdp, self.config.headless,
                                 self.config.cdp_headers, self.config.cdp_timeout)
        return BrowserPool(pool_config, self.driver, self.events)

    def _new_firefox_pool(self) -> FirefoxPool:
        return FirefoxPool(self.config.firefox, self.events, headless=self.config.headless)

    def firefox_pool_ref(self) -> ActorRef:
        return self._child("firefox-pool")

    def _new_device_registry(self) -> DeviceRegistry:
        return DeviceRegistry(self.events)

    def device_registry(self) -> ActorRef:
        """The device registry: leases, and the devices the lifecycle tools act on."""
        return self._child("devices")

    def _new_session_supervisor(self) -> Supervisor:
        # A restarted session would have lost its page; sessions are temporary
        # children and end with a clear code instead.
        return Supervisor("sessions", strategy=Strategy.ONE_FOR_ONE, events=self.events, dynamic=True)

    def _child(self, child_id: str) -> ActorRef:
        ref = self.root.child_ref(child_id)
        if ref is None:
            raise ToolError("unavailable", f"the runtime's {child_id} is not running", component=child_id)
        return ref

    def pool_ref(self) -> ActorRef:
        return self._child("browser-pool")

    # -- sessions ---------------------------------------------------------------------

    async def open_session(self, session_id: str, engine: str, options: Mapping[str, JsonValue]) -> JsonObject:
        async with self._session_lock:
            found = await self._lookup(session_id)
            if isinstance(found, ActorRef):
                raise ToolError(
                    "session-exists",
                    f"session {session_id!r} is already open; close_session it first or use another id",
                    session=session_id,
                )
            ref = await self._start_session(session_id, engine, options)
        # The id is taken now: the wait for the device holds no lock.
        opened = {"session": session_id, "engine": engine, **options}
        if engine in CONNECTING_ENGINES:
            described = await self._until_connected(session_id, ref)
        elif engine != "chromium":
            described = await ref.call(Describe(), timeout=10)
        else:
            described = {}
        # What a device session drives is known only once it is connected.
        opened.update({key: described[key] for key in ("device", "appUnderTest") if key in described})
        return opened

    async def _until_connected(self, session_id: str, ref: ActorRef) -> JsonObject:
        """Wait for a session that connects after it starts; a failed (or too slow)
        connection ends it, so the id is free again, and its error is the answer."""
        try:
            described: JsonObject = await ref.call(AwaitReady(), timeout=CONNECT_SECONDS + 10)
            return described
        except (ToolError, ActorUnavailable) as err:
            with contextlib.suppress(ToolError, ActorUnavailable):
                await self._child("sessions").call(TerminateChild(session_id), timeout=30)
            if isinstance(err, ToolError):
                raise
            raise ToolError("start-failed", f"session {session_id!r} did not start: {err}") from err

    async def _start_session(self, session_id: str, engine: str, options: Mapping[str, JsonValue]) -> ActorRef:
        factory = session_factory(engine)
        parts = SessionParts(self.config, self.driver, pool=self.pool_ref, registry=self.device_registry,
                             secrets=self.secrets, firefox=self.firefox_pool_ref, operator=self.operator_ref,
                             confirm=self.policy.confirm_for)
        spec = ChildSpec(session_id, lambda: factory(parts, session_id, options), Restart.TEMPORARY, shutdown=10,
                         meta={"engine": engine})
        try:
            ref: ActorRef = await self._child("sessions").call(StartChild(spec), timeout=90)
        except ActorUnavailable as gone:
            raise ToolError("unavailable", f"session {session_id!r} could not start: {gone}",
                            component="browser") from gone
        return ref

    async def _lookup(self, session_id: str) -> ActorRef | ChildGone | None:
        found: ActorRef | ChildGone | None = await self._child("sessions").call(LookupChild(session_id))
        return found

    async def close_session(self, session_id: str) -> bool:
        async with self._session_lock:
            self.secrets.forget(session_id)
            self.policy.forget(session_id)
            found = await self._lookup(session_id)
            if not isinstance(found, ActorRef):
                return False
            try:
                await self._child("sessions").call(TerminateChild(session_id), timeout=30)
            except ToolError as err:
                if err.code != "target-not-found":
                    raise
            try:  # its diagnostics history goes with it, then the retention sweep
                await self.recorder_ref().call(SessionClosed(session_id), timeout=30)
            except (ToolError, ActorUnavailable) as err:
                log.warning("diagnostics history of session %r not discarded: %s", session_id, err)
            return True

    async def close_client(self, client: str) -> list[str]:
        """Close every session of ``client`` (an HTTP client that went away or idled
        out); the ids closed."""
        with acting_for(client):
            ids = await self.session_ids()
        return [session_id for session_id in ids if await self.close_session(session_id)]

    async def session_ref(self, session_id: str) -> ActorRef:
        """The live session actor's ref for a tool call; ``default`` is opened on first use.

        A session whose actor ended abnormally (its browser died, say) answers with its
        code once, with the reason; after that the id is free (``default`` reopens by
        itself).
        """
        found = await self._lookup(session_id)
        if isinstance(found, ActorRef):
            return found
        if isinstance(found, ChildGone):
            raise ToolError(ended_code(found.failure), ended_reason(found.failure), session=session_id)
        if named(session_id) != "default":
            raise ToolError("unknown-session", f"no open session {session_id!r}; open it with open_session",
                            session=session_id)
        async with self._session_lock:
            found = await self._lookup(session_id)  # another call may have opened it meanwhile
            if isinstance(found, ActorRef):
                return found
            # With the server's session defaults, as open_session would open it.
            options, _ = session_options(self.config, "chromium", {})
            register_proxy_password(self.secrets, session_id, options)
            return await self._start_session(session_id, "chromium", options)

    async def find_session(self, session_id: str) -> ActorRef | None:
        """The session's ref if it is open: for a live view, which never opens a session."""
        found = await self._child("sessions").call(LookupChild(session_id, obituary=False))
        return found if isinstance(found, ActorRef) else None

    async def run_tool(self, session_id: str, tool: AnyTool, args: Arguments, *,
                       timeout: float = SESSION_CALL_TIMEOUT) -> object:
        return await self._ask_session(session_id, ToolCall(tool, args, deadline=trio.current_time() + timeout),
                                       timeout)

    async def call_session(self, session_id: str, name: str, fn: SessionFn[T, R], args: T, *,
                           timeout: float = SESSION_CALL_TIMEOUT) -> R:
        answer: R = await self._ask_session(
            session_id, SessionCall(name, fn, args, deadline=trio.current_time() + timeout), timeout)
        return answer

    # Any: the session's answer, typed by the caller (run_tool's object, call_session's R).
    async def _ask_session(self, session_id: str, msg: ToolCall | SessionCall, timeout: float) -> Any:
        ref = await self.session_ref(session_id)
        try:
            return await ref.call(msg, timeout=timeout)
        except ActorUnavailable as gone:
            failure = ref.failure or gone
            # Reported here, once: the id is free again for the next call.
            await self._child("sessions").call(ForgetChild(session_id), timeout=30)
            raise ToolError(ended_code(failure), ended_reason(failure), session=session_id) from gone

    async def _session_children(self) -> list[ChildInfo]:
        """The live sessions the calling client may see (all of them over stdio)."""
        children: list[ChildInfo] = await self._child("sessions").call(WhichChildren())
        client = current()
        return [c for c in children if c.alive and owned_by(c.id, client)]

    async def session_ids(self) -> list[str]:
        return [c.id for c in await self._session_children()]

    async def describe_sessions(self) -> list[JsonObject]:
        described = []
        for child in await self._session_children():
            ref = await self._lookup(child.id)
            if not isinstance(ref, ActorRef):
                continue  # it ended in the moment between the two questions
            try:
                described.append(await ref.call(Describe(), timeout=10))
            except (ToolError, ActorUnavailable):
                continue
        return described

    # -- status -----------------------------------------------------------------------

    async def status(self) -> JsonObject:
        """The tree as ``runtime_status`` shows it (``status.py`` builds it)."""
        return await tree_status(StatusSource(
            self.root, self.events, self.gates, self.recorder_inbox, self.recording,
            operator_link=self._operator.link, session_children=self._session_children,
            describe_sessions=self.describe_sessions,
        ))
