"""The runtime root: builds the supervision tree and owns the dispatch path.

``open_runtime()`` is an async context manager. Inside it runs the tree of DESIGN.md
with the children that exist so far::

    Runtime (root supervisor, one_for_one)
    ├── Recorder (diagnostics JSONL writer; the dispatch hook is set only when allowed)
    ├── OperatorChannel (the host daemon's socket; only with operator-channel on)
    ├── BrowserPool
    └── SessionSupervisor (one_for_one, dynamic: one temporary child per session)

and one :class:`~browx_actors.server.registry.Dispatcher` that both the MCP server and
``Runtime.call_tool`` use, so an embedding Trio program gets exactly what an MCP client
gets. Leaving the context stops the tree in reverse start order (sessions close their
contexts, the pool kills Chromium) and then cancels whatever is left, so nothing keeps
running: no Chromium process, no task, no Playwright driver.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from typing import Any

import attrs
import trio

from .actor import ActorCrashed, ActorRef, ActorUnavailable, ToolError
from .cdp.pool import BrowserPool, PoolConfig, PoolStatus
from .config import RuntimeConfig, parse_capabilities
from .human.operator import OperatorChannel, OperatorStatus
from .recorder import Recorder, RecorderInbox, SessionClosed
from .server.registry import Dispatcher, ToolOutput
from .sessions.aiobridge import open_asyncio_thread
from .sessions.chromium import BrowserLost, ChromiumSession, SessionCall, SessionOptions
from .sessions.driver import PlaywrightDriver
from .supervisor import (
    ChildSpec,
    EventLog,
    Restart,
    StartChild,
    Strategy,
    Supervisor,
    TerminateChild,
)

__all__ = ["Runtime", "open_runtime"]

log = logging.getLogger("browx_actors.runtime")

#: How long one tool call may take inside its session before the caller gives up.
SESSION_CALL_TIMEOUT = 120.0
ENGINES = ("chromium", "android-app", "ios-app")


@attrs.define(eq=False)
class _SessionRecord:
    id: str
    engine: str
    actor: ChromiumSession


class Runtime:
    """A running tree. Use :meth:`call_tool`; read :meth:`status`."""

    def __init__(self, config: RuntimeConfig, client_capabilities: frozenset[str],
                 driver: PlaywrightDriver) -> None:
        from .server.tools import all_tools

        self.config = config
        self.events = EventLog()
        self.driver = driver
        self.root = Supervisor(
            "runtime",
            [
                ChildSpec("recorder", self._new_recorder, Restart.PERMANENT, shutdown=10),
                *self._operator_children(),
                ChildSpec("browser-pool", self._new_pool, Restart.PERMANENT, shutdown=10),
                ChildSpec("sessions", self._new_session_supervisor, Restart.PERMANENT, shutdown=15),
            ],
            strategy=Strategy.ONE_FOR_ONE,
            events=self.events,
        )
        #: Set when the root supervisor has finished (after a shutdown or a crash).
        self.stopped = trio.Event()
        self._sessions: dict[str, _SessionRecord] = {}
        self._ended: dict[str, str] = {}
        self._session_lock = trio.Lock()
        self.secrets: dict[str, dict[str, str]] = {}
        self.dispatcher = Dispatcher(
            all_tools(),
            context=self,
            server_capabilities=config.capabilities,
            client_capabilities=client_capabilities,
            secrets_of=lambda sid: self.secrets.get(sid, {}),
            all_secrets=self._all_secrets,
        )
        self.recorder_inbox = RecorderInbox.open()
        if self.dispatcher.allowed("diagnostics"):
            self.dispatcher.recorder = self.recorder_inbox.submit

    # -- the library API --------------------------------------------------------------

    async def shutdown(self, grace: float = 30.0) -> None:
        """Stop the tree gracefully: children in reverse start order, each within its
        grace (sessions close their contexts, the pool kills Chromium). Safe to call
        more than once and from a cancelled task; ``open_runtime`` calls it on exit."""
        self.root.stop()
        with trio.move_on_after(grace) as scope:
            scope.shield = True
            await self.stopped.wait()

    async def call_tool(self, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        """Call a tool exactly as an MCP client would; returns the result envelope."""
        return (await self.dispatcher.dispatch(name, args or {})).envelope

    async def call_tool_output(self, name: str, args: dict[str, Any] | None = None) -> ToolOutput:
        """Like :meth:`call_tool`, with the images a tool returned."""
        return await self.dispatcher.dispatch(name, args or {})

    # -- the tree ---------------------------------------------------------------------

    def _new_recorder(self) -> Recorder:
        return Recorder(self.recorder_inbox, self.config.workspace,
                        recording=self.dispatcher.recorder is not None,
                        retention_days=self.config.diagnostics_retention_days,
                        secrets=self._all_secrets)

    def recorder_ref(self) -> ActorRef:
        return self._child("recorder")

    def _operator_children(self) -> list[ChildSpec]:
        """The OperatorChannel, only when the operator-channel capability is on."""
        if "operator-channel" not in self.config.capabilities:
            return []
        return [ChildSpec("operator-channel", self._new_operator_channel, Restart.PERMANENT, shutdown=5)]

    def _new_operator_channel(self) -> OperatorChannel:
        assert self.config.operator_socket and self.config.operator_token
        return OperatorChannel(self.config.operator_socket, self.config.operator_token,
                               live_view="live-view" in self.config.capabilities)

    def operator_ref(self) -> ActorRef | None:
        """Where await_human asks when operator-channel is on (None when it is off)."""
        if "operator-channel" not in self.config.capabilities:
            return None
        return self._child("operator-channel")

    def _new_pool(self) -> BrowserPool:
        pool_config = PoolConfig(self.config.chromium, self.config.attach_cdp, self.config.headless)
        return BrowserPool(pool_config, self.driver, self.events)

    def _new_session_supervisor(self) -> Supervisor:
        # A restarted session would have lost its page; sessions are temporary
        # children and end with a clear code instead.
        self._sessions.clear()
        return Supervisor("sessions", strategy=Strategy.ONE_FOR_ONE, events=self.events)

    def _child(self, child_id: str) -> ActorRef:
        ref = self.root.child_ref(child_id)
        if ref is None:
            raise ToolError("unavailable", f"the runtime's {child_id} is not running")
        return ref

    def pool_ref(self) -> ActorRef:
        return self._child("browser-pool")

    # -- sessions ---------------------------------------------------------------------

    async def open_session(self, session_id: str, engine: str, options: SessionOptions) -> _SessionRecord:
        async with self._session_lock:
            record = self._live(session_id)
            if record is not None:
                raise ToolError(
                    "session-exists",
                    f"session {session_id!r} is already open; close_session it first or use another id",
                    session=session_id,
                )
            return await self._start_session(session_id, engine, options)

    async def _start_session(self, session_id: str, engine: str, options: SessionOptions) -> _SessionRecord:
        options = attrs.evolve(options, direct_input=self.config.action_input == "auto")
        actor = ChromiumSession(session_id, pool=self.pool_ref, driver=self.driver, options=options,
                                workspace=self.config.workspace)
        spec = ChildSpec(session_id, lambda: actor, Restart.TEMPORARY, shutdown=10)
        try:
            await self._child("sessions").call(StartChild(spec), timeout=90)
        except ActorUnavailable as gone:
            raise ToolError("browser-unavailable", f"session {session_id!r} could not start: {gone}") from gone
        record = _SessionRecord(session_id, engine, actor)
        self._sessions[session_id] = record
        self._ended.pop(session_id, None)
        return record

    def _live(self, session_id: str) -> _SessionRecord | None:
        """The session's record while its actor lives; a dead one is noted as ended."""
        record = self._sessions.get(session_id)
        if record is not None and not record.actor.ref.alive:
            del self._sessions[session_id]
            self._ended[session_id] = _ended_reason(record.actor.ref.failure)
            return None
        return record

    async def close_session(self, session_id: str) -> bool:
        async with self._session_lock:
            record = self._live(session_id)
            self._ended.pop(session_id, None)
            self.secrets.pop(session_id, None)
            if record is None:
                return False
            del self._sessions[session_id]
            try:
                await self._child("sessions").call(TerminateChild(session_id), timeout=30)
            except ToolError as err:
                if err.code != "not-found":
                    raise
            try:  # its diagnostics history goes with it, then the retention sweep
                await self.recorder_ref().call(SessionClosed(session_id), timeout=30)
            except (ToolError, ActorUnavailable) as err:
                log.warning("diagnostics history of session %r not discarded: %s", session_id, err)
            return True

    async def session(self, session_id: str) -> ChromiumSession:
        """The live session actor for a tool call; ``default`` is opened on first use.

        A session whose browser died answers ``browser-crashed`` once with the reason;
        after that the id is free (``default`` reopens by itself).
        """
        async with self._session_lock:
            record = self._live(session_id)
            if record is not None:
                return record.actor
            ended = self._ended.pop(session_id, None)
            if ended is not None:
                raise ToolError("browser-crashed", ended, session=session_id)
            if session_id != "default":
                raise ToolError(
                    "unknown-session",
                    f"no open session {session_id!r}; open it with open_session",
                    session=session_id,
                )
            return (await self._start_session(session_id, "chromium", SessionOptions())).actor

    async def call_session(self, session_id: str, tool: str, fn: Any, args: dict[str, Any],
                           *, timeout: float = SESSION_CALL_TIMEOUT) -> Any:
        actor = await self.session(session_id)
        try:
            return await actor.ref.call(SessionCall(tool, fn, args), timeout=timeout)
        except ActorUnavailable as gone:
            async with self._session_lock:
                self._live(session_id)
                reason = self._ended.pop(session_id, None) or _ended_reason(gone)
            raise ToolError(_ended_code(gone), reason, session=session_id) from gone

    def session_ids(self) -> list[str]:
        return [sid for sid in list(self._sessions) if self._live(sid) is not None]

    def _all_secrets(self) -> dict[str, str]:
        merged: dict[str, str] = {}
        for secrets in self.secrets.values():
            merged.update(secrets)
        return merged

    # -- status -----------------------------------------------------------------------

    async def status(self) -> dict[str, Any]:
        return {
            "tree": {
                "name": "runtime",
                "strategy": self.root.strategy.value,
                "children": [await self._child_status(cid) for cid in self.root.child_ids()],
            },
            "sessions": [self._sessions[sid].actor.describe() for sid in self.session_ids()],
            "restarts": dict(self.events.restarts),
            "events": [
                {"at": round(e.at, 3), "supervisor": e.supervisor, "child": e.child,
                 "kind": e.kind, "reason": e.reason}
                for e in list(self.events.events)[-20:]
            ],
            "capabilities": {
                "server": sorted(self.dispatcher.server_capabilities),
                "client": sorted(self.dispatcher.client_capabilities),
            },
            "capabilityDenials": sum(self.dispatcher.denials.values()),
        }

    async def _child_status(self, child_id: str) -> dict[str, Any]:
        """One child of the root, in the order the tree started them, with what it knows."""
        ref = self.root.child_ref(child_id)
        node: dict[str, Any] = {"id": child_id, "alive": _alive(ref)}
        if ref is None or not ref.alive:
            return node
        if child_id == "browser-pool":
            node.update(await _ask_status(ref, PoolStatus()))
        elif child_id == "operator-channel":
            node.update(await _ask_status(ref, OperatorStatus()))
        elif child_id == "recorder":
            inbox = self.recorder_inbox
            node.update({"recording": self.dispatcher.recorder is not None,
                         "accepted": inbox.accepted, "handled": inbox.handled,
                         "dropped": inbox.dropped_total})
        elif child_id == "sessions":
            node["children"] = [
                {"id": sid, "actor": self._sessions[sid].actor.name, "engine": self._sessions[sid].engine}
                for sid in self.session_ids()
            ]
        return node


async def _ask_status(ref: ActorRef, msg: Any) -> dict[str, Any]:
    try:
        return await ref.call(msg, timeout=5)
    except (ToolError, ActorUnavailable) as err:
        return {"error": str(err)}


def _alive(ref: ActorRef | None) -> bool:
    return ref is not None and ref.alive


def _ended_reason(failure: ActorUnavailable | None) -> str:
    cause = None if failure is None else failure.__cause__
    if isinstance(cause, BrowserLost):
        return str(cause)
    return str(failure) if failure is not None else "the session ended"


def _ended_code(failure: ActorUnavailable) -> str:
    if isinstance(failure.__cause__, BrowserLost):
        return "browser-crashed"
    return "session-crashed" if isinstance(failure, ActorCrashed) else "session-closed"


@asynccontextmanager
async def open_runtime(
    *,
    capabilities: Iterable[str] | str | None = None,
    config: RuntimeConfig | None = None,
    **overrides: Any,
) -> AsyncIterator[Runtime]:
    """Run the tree for the duration of the ``async with`` block.

    ``capabilities`` is the client-side gate (default: read, navigation, action,
    human); the server side comes from ``config`` or the environment
    (``BROWX_CAPABILITIES``). A call needs both.
    """
    if config is None:
        config = RuntimeConfig.from_env(**overrides)
    client_caps = parse_capabilities(capabilities)
    async with open_asyncio_thread() as bridge:
        driver = PlaywrightDriver(bridge)
        try:
            async with trio.open_nursery() as nursery:
                runtime = Runtime(config, client_caps, driver)

                async def run_root(*, task_status: trio.TaskStatus[ActorRef]) -> None:
                    try:
                        await runtime.root.run(task_status=task_status)
                    finally:
                        runtime.stopped.set()

                await nursery.start(run_root)
                try:
                    yield runtime
                finally:
                    await runtime.shutdown()
                    nursery.cancel_scope.cancel()
        finally:
            with trio.CancelScope(shield=True):
                await driver.aclose()
