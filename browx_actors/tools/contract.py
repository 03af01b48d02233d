"""A tool is one declaration beside its handler.

Name, capability, description, parameters, the rules between them and the handler sit
together in the module that implements the tool, written as a decorator::

    @session_tool(
        "click", "action", "Click an element (ref or selector) or a point (coords).",
        params=(REF, SELECTOR, COORDS, ...),
        rules=(ExactlyOne(("ref", "selector", "coords")),),
    )
    async def click(session: ChromiumSession, args: Args) -> Reply:
        ...

Each capability's module exports its tools in a ``TOOLS`` list; the server assembles
the registry from the lists (``server/catalog.py``) and runs every call through the one
dispatch path (``server/dispatch.py``), which validates, applies the rules and gates,
substitutes and masks secrets, and records, so a handler does none of that itself.

Two kinds of tool:

* a **runtime tool** (:func:`runtime_tool`) runs in the dispatching task with the
  :class:`~browx_actors.tools.context.RuntimeContext`: sessions, secrets, status;
* a **session tool** (:func:`session_tool`) runs inside the session's actor, ordered
  with the session's other calls, with that session as its context. Its handler is
  per engine: the declaring module gives the first engine's handler, and another engine
  adds its own with :func:`implement`, so one schema serves every engine and a session
  whose engine has no handler refuses with ``not-supported`` naming what is missing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Literal

import attrs

from ..errors import ToolError
from .after import AFTER
from .params import Param, json_schema
from .rules import CapabilityWhen, Rule

__all__ = [
    "SESSION",
    "SESSION_ID_PATTERN",
    "Args",
    "Delegation",
    "Implementation",
    "Tool",
    "implement",
    "runtime_tool",
    "session_param",
    "session_tool",
]

Args = dict[str, Any]
#: ``handler(context, args)``; the context is a RuntimeContext or an engine's session.
Handler = Callable[[Any, Args], Awaitable[Any]]

#: How long a session tool may run inside its session, unless it says otherwise.
SESSION_CALL_TIMEOUT = 120.0

#: What a session id may be: 1 to 64 letters, digits, ``_``, ``-`` and ``.``, not starting
#: with ``.`` or ``-``. An id names a folder of the diagnostics store and appears in
#: logs and prompts, so it never holds a path separator, a control character or an
#: escape sequence, and never runs to a length a file system refuses.
SESSION_ID_PATTERN = r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$"
SESSION_ID_MAX = 64


def session_param(description: str = "Session id.", *, required: bool = False, name: str = "session") -> Param:
    """The session argument, with the id rules every tool that takes one declares."""
    return Param(name, "string", description, required=required, default=None if required else "default",
                 max_length=SESSION_ID_MAX, pattern=SESSION_ID_PATTERN)


#: The argument every session tool takes.
SESSION = session_param()


@attrs.frozen
class Delegation:
    """Where a call is forwarded to a plugin's operation (``canvas_query``): the
    dispatch enforces the operation's own capability and parameters as well."""

    #: The qualified name a denial is counted under (``figma.getNodeBounds``).
    name: str
    capability: str
    params: tuple[Param, ...]
    #: The argument that holds the operation's own arguments.
    field: str


@attrs.frozen
class Tool:
    name: str
    capability: str
    description: str
    scope: Literal["runtime", "session"]
    params: tuple[Param, ...] = ()
    rules: tuple[Rule, ...] = ()
    #: The runtime tool's handler.
    handler: Handler | None = None
    #: The session tool's handler per engine (``"chromium"``, ``"android-app"``, ...).
    engines: Mapping[str, Handler] = attrs.field(factory=dict)
    #: Pure: turns the checked arguments into what the handler takes (a parsed program,
    #: a prompt spec). Runs after the gates and the secrets, before anything is acquired.
    prepare: Callable[[Args], Args] | None = None
    #: Seconds a session tool may take in its session, from its (prepared) arguments.
    call_timeout: Callable[[Args], float] | None = None
    #: A forwarded call's inner operation, looked up from the context and the arguments.
    delegate: Callable[[Any, Args], Delegation] | None = None

    def input_schema(self) -> dict[str, Any]:
        """The tool's arguments, and ``after``, which every tool takes (the dispatch handles it)."""
        return json_schema((*self.params, AFTER))

    def needed_capabilities(self, args: Args) -> list[str]:
        """The tool's capability, then any its argument values add."""
        needed = [self.capability]
        for rule in self.rules:
            if isinstance(rule, CapabilityWhen):
                extra = rule.needed(args)
                if extra is not None and extra not in needed:
                    needed.append(extra)
        return needed

    def timeout_for(self, args: Args) -> float:
        return SESSION_CALL_TIMEOUT if self.call_timeout is None else self.call_timeout(args)

    def with_engine(self, engine: str, handler: Handler) -> Tool:
        if self.scope != "session":
            raise ValueError(f"{self.name} is a runtime tool; engines implement session tools")
        if engine in self.engines:
            raise ValueError(f"{self.name} already has a {engine} handler")
        return attrs.evolve(self, engines={**self.engines, engine: handler})

    async def run_in(self, session: Any, args: Args) -> Any:
        """Inside the session actor: the handler of the session's engine."""
        handler = self.engines.get(session.engine)
        if handler is None:
            reason = session.refusal(self.name) if hasattr(session, "refusal") else None
            raise ToolError(
                "not-supported",
                reason or f"{self.name} has no {session.engine} implementation "
                f"(engines: {', '.join(sorted(self.engines)) or 'none'})",
                engine=session.engine, tool=self.name,
            )
        return await handler(session, args)


def runtime_tool(
    name: str, capability: str, description: str, *,
    params: tuple[Param, ...] = (), rules: tuple[Rule, ...] = (),
    prepare: Callable[[Args], Args] | None = None,
    delegate: Callable[[Any, Args], Delegation] | None = None,
) -> Callable[[Handler], Tool]:
    """Declare a runtime tool; the decorated coroutine is its handler."""

    def declare(handler: Handler) -> Tool:
        return Tool(name, capability, description, "runtime", params, rules, handler=handler,
                    prepare=prepare, delegate=delegate)

    return declare


def session_tool(
    name: str, capability: str, description: str, *,
    engine: str = "chromium",
    params: tuple[Param, ...] = (), rules: tuple[Rule, ...] = (),
    prepare: Callable[[Args], Args] | None = None,
    call_timeout: Callable[[Args], float] | None = None,
) -> Callable[[Handler], Tool]:
    """Declare a session tool; the decorated coroutine is ``engine``'s handler.

    The ``session`` argument is added after ``params``.
    """

    def declare(handler: Handler) -> Tool:
        return Tool(name, capability, description, "session", (*params, SESSION), rules,
                    engines={engine: handler}, prepare=prepare, call_timeout=call_timeout)

    return declare


@attrs.frozen
class Implementation:
    """Another engine's handler for a session tool declared elsewhere."""

    tool: str
    engine: str
    handler: Handler


def implement(tool: str, engine: str) -> Callable[[Handler], Implementation]:
    def declare(handler: Handler) -> Implementation:
        return Implementation(tool, engine, handler)

    return declare
