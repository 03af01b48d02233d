"""What a runtime tool's handler may use: the runtime context.

Runtime handlers are typed against this protocol, not against the runtime, so a module
of handlers depends on what it uses and nothing else: the runtime is built above the
tools (``browx_actors/runtime/``), the tools below it, and neither imports the other.
A session tool's handler gets its engine's session actor instead (``ChromiumSession``,
``AndroidSession``...).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from ..jsonsafe import JsonObject, JsonValue
from .arguments import Arguments
from .contract import AnyTool
from .gates import Gates
from .reply import ToolOutput

if TYPE_CHECKING:
    from ..config import RuntimeConfig
    from ..kernel.actor_ref import ActorRef
    from ..policy.book import PolicyBook
    from ..secret_book import SecretBook

__all__ = ["RuntimeContext", "SessionFn"]

T = TypeVar("T")
R = TypeVar("R")

#: A function run inside a session actor: ``fn(session, args)``, with the runtime tool's
#: own arguments and answer. ``Any`` for the session: it is whichever engine's actor holds
#: the id, and the runtime knows no engine; each such function names the one it needs.
SessionFn = Callable[[Any, T], Awaitable[R]]


class RuntimeContext(Protocol):
    """What runtime tools reach: sessions, secrets, gates, status, the tree's children."""

    @property
    def config(self) -> RuntimeConfig: ...

    @property
    def gates(self) -> Gates: ...

    @property
    def secrets(self) -> SecretBook: ...

    @property
    def policy(self) -> PolicyBook: ...

    async def open_session(self, session_id: str, engine: str, options: Mapping[str, JsonValue]) -> JsonObject:
        """Start a session; what it started with (``session``, ``engine``, ...)."""

    async def close_session(self, session_id: str) -> bool:
        """Close a session; False when none by that id was open."""

    async def session_ids(self) -> list[str]:
        """Ids of the open sessions, in the order they opened."""

    async def describe_sessions(self) -> list[JsonObject]:
        """Each open session's own description (engine, url...)."""

    async def run_tool(self, session_id: str, tool: AnyTool, args: Arguments, *, timeout: float) -> object:
        """Run ``tool`` inside the session's actor, as its engine's table says (``default``
        opens on first use)."""

    async def call_session(self, session_id: str, name: str, fn: SessionFn[T, R], args: T, *,
                           timeout: float) -> R:
        """Run ``fn(session, args)`` inside the session's actor (``default`` opens on first use)."""

    async def status(self) -> JsonObject:
        """The supervision tree as ``runtime_status`` shows it."""

    async def dispatch(self, name: str, args: JsonValue) -> ToolOutput:
        """Call a tool through the one dispatch path, as a client would (``tool.batch``)."""

    def recorder_ref(self) -> ActorRef:
        """The diagnostics recorder."""

    def operator_ref(self) -> ActorRef | None:
        """The operator channel, when its capability is on."""

    def device_registry(self) -> ActorRef:
        """The device registry (its leases)."""
