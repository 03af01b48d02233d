"""The session actor every engine's session is: message routing, call deadlines and the
failure boundary, written once.

A session is one actor per session id (:class:`Session`); what it drives depends on its
engine (a browser context on chromium, a leased device on android-app and ios-app), but
what it does with a message does not:

- :class:`~.messages.ToolCall` runs the handler its engine's
  :class:`~browx_actors.tools.table.Table` names for the tool, or raises the table's
  refusal (its code and what the engine lacks) before anything is touched;
  :class:`~.messages.SessionCall` runs a runtime tool's function inside the session.
  Both wait until the session is ready (:meth:`Session.ready`: a native session
  connects to its device after it starts);
- every call runs under its deadline: the engine's device commands read
  :attr:`Session.deadline`, and a call still running at it answers ``timeout`` naming
  the tool and the engine, instead of wedging the mailbox;
- **the call is the boundary of a handler's failure.** The kernel's rule is that a bug
  crashes its actor; for a session that would cost the agent its page, its logged-in
  state, its device lease and its refs for one bad argument. So what a handler raises
  fails that call (a ``ToolError`` as it is, an exception the engine can explain as the
  code it means, anything else ``internal``) and the session serves the next one.
  What breaks the session itself still crashes it: :meth:`Session.fatal` says which
  exceptions those are (a dead browser), and ``MemoryError`` always is;
- a handler that waits long returns :class:`~browx_actors.kernel.actor.Later`; its wait
  runs in the actor's nursery under the same boundary, so the mailbox keeps serving.

An engine subclasses it and fills in the hooks: :meth:`~Session.perform` (what a call
does around its work: the chromium engine's dialog and crash checks, the native
engines' action baseline), :meth:`~Session.guard`, :meth:`~Session.explain` and
:meth:`~Session.fatal` (what a failure means), :meth:`~Session.run_tool` (chromium
resolves named refs there), :meth:`~Session.ready`, :meth:`~Session.watch` and
:meth:`~Session.describe`.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, ClassVar

import trio

from ..errors import ToolError
from ..kernel.actor import Actor, CallFailed, Later
from ..kernel.actor_ref import ActorRef
from ..streams.messages import WatchFrames
from ..streams.source import FrameSource
from ..tools import Arguments, Handler, Refusal, Table, Tool
from ..visualtree.snapshots import SnapshotBook
from .messages import AwaitReady, Describe, SessionCall, ToolCall

__all__ = ["DEFAULT_CALL_SECONDS", "Session"]

#: A call that names no deadline (a test calling in directly) gets this long.
DEFAULT_CALL_SECONDS = 120.0

#: ``fn(session, args)``: the work of one call inside the session. Any: the work is a
#: handler (or a runtime tool's function) of one engine's session class and one tool's
#: argument class, which the table or the runtime tool chose at run time.
Work = Callable[[Any, Any], Awaitable[object]]


class Session(Actor):
    """The base of every engine's session actor; see the module notes."""

    #: The engine's name, as open_session takes it and refusals say it.
    engine: ClassVar[str] = "session"

    def __init__(self, session_id: str, *, table: Table, workspace: Path) -> None:
        super().__init__(f"session:{session_id}")
        self.session_id = session_id
        #: What this engine runs for each session tool, or why it refuses it.
        self.table = table
        #: Root for every file the session reads or writes, through the workspace chokepoint.
        self.workspace = workspace
        #: The visual tree's captures of this session's page or screen (revisions, stale references).
        self.visual_snapshots = SnapshotBook()
        self.started_at = trio.current_time()
        #: When the call in hand must be done (``trio.current_time()`` clock; inf between calls).
        self.deadline = math.inf

    # -- the hooks an engine fills in -----------------------------------------------

    async def ready(self) -> None:
        """Return once the session can take calls; raise what stopped it from connecting."""

    def describe(self) -> dict[str, object]:
        """What the session is, for list_sessions: ``{id, engine, ...}``."""
        return {"id": self.session_id, "engine": self.engine,
                "ageSeconds": round(trio.current_time() - self.started_at, 3)}

    async def watch(self, stream: ActorRef) -> FrameSource | None:
        """A live-view stream asks for this session's frames: its frame source, or None."""
        return None

    async def perform(self, tool: str, work: Work, args: object) -> object:
        """Do one call's work: ``work(self, args)``, and what the engine does around it."""
        return await work(self, args)

    # Any: a table line's tool and handler, whose argument class (and the handler's
    # session class) the line chose; the catalog checked at start that they agree.
    async def run_tool(self, tool: Tool[Any], handler: Handler[Any, Any], args: Arguments) -> object:
        """Run ``tool``'s handler; an engine may rewrite its arguments first (chromium
        resolves named refs)."""
        return await handler(self, args)

    async def guard(self, tool: str, work: Callable[[], Awaitable[object]]) -> object:
        """Run one call's work; an engine may tell a loss it caused (a closed tab) from its failure."""
        return await work()

    async def explain(self, tool: str, args: object, exc: Exception) -> ToolError | None:
        """The code a failure means, when the engine knows it; None leaves it as it is."""
        return None

    def fatal(self, exc: BaseException) -> bool:
        """Does ``exc`` end the session (and not only the call)?"""
        return False

    def later(self, tool: str, wait: Later) -> Later:
        """How a handler's long wait runs; an engine may let something cut it short."""
        return wait

    def overdue(self, tool: str) -> ToolError:
        return ToolError("timeout", f"{tool} did not finish before its deadline on {self.engine}")

    # -- routing ----------------------------------------------------------------------

    async def handle(self, msg: object) -> object:
        if isinstance(msg, ToolCall):
            return await self._call(msg.tool.name, self._work_of(msg.tool), msg.args, msg.deadline)
        if isinstance(msg, SessionCall):
            return await self._call(msg.tool, msg.fn, msg.args, msg.deadline)
        if isinstance(msg, Describe):
            return self.describe()
        if isinstance(msg, AwaitReady):
            await self.ready()
            return self.describe()
        if isinstance(msg, WatchFrames):
            await self.ready()
            return await self.watch(msg.stream)
        raise TypeError(f"{self.name} has no handler for {type(msg).__name__}")

    def _work_of(self, tool: Tool[Any]) -> Work:  # Any: any tool, of its own argument class
        """The work ``tool`` is on this engine; its refusal, raised before anything is touched."""
        entry = self.table.entry(tool.name)
        if entry is None:  # the catalog holds every table whole at start: a bug
            raise ToolError("not-supported", f"{tool.name} has no {self.engine} line", engine=self.engine,
                            tool=tool.name)
        if isinstance(entry, Refusal):
            raise entry.error(self.engine)
        handler = entry.handler

        async def work(session: Session, args: Arguments) -> object:
            return await self.run_tool(tool, handler, args)

        return work

    # -- one call ---------------------------------------------------------------------

    async def _call(self, tool: str, work: Work, args: object, deadline: float | None) -> object:
        await self.ready()
        self.deadline = trio.current_time() + DEFAULT_CALL_SECONDS if deadline is None else deadline
        try:
            with trio.fail_at(self.deadline):
                result = await self._bounded(tool, args, self.perform, tool, work, args)
        except trio.TooSlowError:
            raise self.overdue(tool) from None
        except CallFailed as failed:
            if trio.current_time() >= self.deadline:  # a driver that answered its cancellation with an error
                raise self.overdue(tool) from failed.cause
            raise
        finally:
            self.deadline = math.inf
        if isinstance(result, Later):
            wait = self.later(tool, result)
            return Later.of(self._bounded, tool, args, wait.fn, *wait.args)
        return result

    async def _bounded(self, tool: str, args: object, fn: Callable[..., Awaitable[object]],
                       *fn_args: object) -> object:
        """``fn(*fn_args)`` with the call as the boundary of its failure (see the module notes)."""
        try:
            return await self.guard(tool, lambda: fn(*fn_args))
        except MemoryError:
            raise
        except Exception as exc:
            if self.fatal(exc):
                raise
            explained = await self.explain(tool, args, exc)
            if explained is not None:
                raise explained from exc
            if isinstance(exc, ToolError):
                raise
            raise CallFailed(exc) from exc
