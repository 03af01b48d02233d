"""A tool's contract: one declaration, engine-neutral, with no handler.

A :class:`Tool` says what the tool is called, how a client shows it (``title``, the MCP
annotations as :class:`Hints`), what an agent reads to choose it (``summary``, one line)
and what it does in full (``description``, for ``docs/tools.md``), which capability gates
it, what it takes (its :mod:`argument class <.arguments>`, which is its parameter list)
and the rules between its arguments. It says nothing of how any engine runs it: each
engine's table does (:mod:`.table`), and a session tool that an engine cannot run is a
named refusal there, never a missing entry.

Two scopes:

* a **session tool** runs inside its session's actor, ordered with that session's other
  calls; its argument class derives from :class:`SessionArgs` (the ``session`` argument);
* a **runtime tool** runs in the dispatching task with the runtime context (sessions,
  secrets, status); the runtime's table binds its handler.

The dispatch (``server/dispatch.py``) validates, applies the rules and gates, substitutes
and masks secrets, and records, for every tool alike; a handler does none of that.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Generic, Literal, TypeVar

import attrs

from ..jsonsafe import JsonObject, JsonValue
from .after import AFTER
from .arguments import Arguments, arg, arguments
from .params import Param, json_schema
from .rules import CapabilityWhen, Rule
from .wire import wire_schema

__all__ = [
    "ACTS",
    "CHANGES",
    "DESTROYS",
    "OPENS",
    "READS",
    "SESSION",
    "SESSION_CALL_TIMEOUT",
    "SESSION_ID_PATTERN",
    "AnyTool",
    "Hints",
    "Scope",
    "SessionArgs",
    "Tool",
    "runtime_tool",
    "session_param",
    "session_tool",
]

A = TypeVar("A", bound=Arguments)

Scope = Literal["runtime", "session"]

#: How long a session tool may run inside its session, unless it says otherwise.
SESSION_CALL_TIMEOUT = 120.0

#: What a session id may be: 1 to 64 letters, digits, ``_``, ``-`` and ``.``, not starting
#: with ``.`` or ``-``. An id names a folder of the diagnostics store and appears in
#: logs and prompts, so it never holds a path separator, a control character or an
#: escape sequence, and never runs to a length a file system refuses.
SESSION_ID_PATTERN = r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$"
SESSION_ID_MAX = 64


def session_param(description: str | None = None, *, required: bool = False, name: str = "session") -> Param:
    """The session argument, with the id rules every tool that takes one declares. With a
    ``description``, a tool's own use of it; without, the shared argument the server's
    instructions describe once."""
    return Param(name, "string", description or "Session id.", required=required,
                 default=None if required else "default", max_length=SESSION_ID_MAX, pattern=SESSION_ID_PATTERN,
                 shared=description is None)


#: The argument every session tool takes.
SESSION = session_param()


@arguments
class SessionArgs(Arguments):
    """The base of every session tool's arguments: which session runs it."""

    session: str = arg(SESSION)


@attrs.frozen
class Hints:
    """The MCP tool annotations: what a client may assume about a call before it runs."""

    #: Changes nothing anywhere (a read).
    read_only: bool
    #: May undo what is there (close, delete, clear, reset): a client may ask first.
    destructive: bool = False
    #: The same call twice has the effect of one.
    idempotent: bool = False
    #: Reaches beyond the server and its sessions (the web, a device's apps).
    open_world: bool = False

    def annotations(self) -> dict[str, bool]:
        return {"readOnlyHint": self.read_only, "destructiveHint": self.destructive,
                "idempotentHint": self.idempotent, "openWorldHint": self.open_world}


#: Reads and changes nothing.
READS = Hints(read_only=True, idempotent=True)
#: Acts on the page or screen: input whose effect the page decides.
ACTS = Hints(read_only=False, open_world=True)
#: Sets something of the session's own (a policy, a viewport): the same twice is once.
CHANGES = Hints(read_only=False, idempotent=True)
#: Goes somewhere: a navigation, a tab, a session.
OPENS = Hints(read_only=False, open_world=True)
#: Removes or resets what was there.
DESTROYS = Hints(read_only=False, destructive=True, idempotent=True)
#: Adds one more of something of the session's own (a route, a note): each call another.
ADDS = Hints(read_only=False)
#: Runs other tools, so it may do what any of them does.
RUNS = Hints(read_only=False, destructive=True, open_world=True)


@attrs.frozen
class Tool(Generic[A]):
    name: str
    #: The argument class, which is the parameter list (:mod:`.arguments`).
    args: type[A]
    scope: Scope
    title: str
    capability: str
    hints: Hints
    #: What an agent reads to choose the tool: one line.
    summary: str
    #: The whole contract, for docs/tools.md (the summary when it says everything).
    description: str = ""
    rules: tuple[Rule, ...] = ()
    #: Seconds a session tool may take in its session, from its arguments.
    call_timeout: Callable[[A], float] | None = None

    @property
    def params(self) -> tuple[Param, ...]:
        return self.args.params()

    @property
    def text(self) -> str:
        """The full description (the summary when none is declared)."""
        return self.description or self.summary

    def input_schema(self) -> JsonObject:
        """The tool's arguments, and ``after``, which every tool takes (the dispatch handles
        it), as the dispatch checks them: every limit included."""
        return json_schema((*self.params, AFTER))

    def wire_schema(self) -> JsonObject:
        """The ``inputSchema`` ``tools/list`` shows: the arguments as an agent fills them in
        (:meth:`~.params.Param.wire`), and ``after`` as a bare object, whose two captures
        the server's instructions describe once for every tool."""
        schema = wire_schema(self.params)
        properties = schema["properties"]
        assert isinstance(properties, dict)
        properties[AFTER.name] = {"type": "object"}
        return schema

    def needed_capabilities(self, args: Mapping[str, JsonValue]) -> list[str]:
        """The tool's capability, then any its argument values add."""
        needed = [self.capability]
        for rule in self.rules:
            if isinstance(rule, CapabilityWhen):
                extra = rule.needed(dict(args))
                if extra is not None and extra not in needed:
                    needed.append(extra)
        return needed

    def timeout_for(self, args: A) -> float:
        return SESSION_CALL_TIMEOUT if self.call_timeout is None else self.call_timeout(args)


#: A tool of any argument class, for what holds tools of every kind (the catalog, a
#: table, ``tools.ALL``). ``Any``: ``Tool`` is invariant in its argument class
#: (``args`` gives it, ``call_timeout`` takes it), so no ``Tool[Arguments]`` holds them all.
AnyTool = Tool[Any]


def session_tool(name: str, args: type[A], *, title: str, capability: str, hints: Hints, summary: str,
                 description: str = "", rules: tuple[Rule, ...] = (),
                 call_timeout: Callable[[A], float] | None = None) -> Tool[A]:
    """Declare a session tool; ``args`` derives from :class:`SessionArgs`."""
    if not issubclass(args, SessionArgs):
        raise TypeError(f"{name}: a session tool's arguments derive from SessionArgs")
    return Tool(name, args, "session", title, capability, hints, summary, description, rules, call_timeout)


def runtime_tool(name: str, args: type[A], *, title: str, capability: str, hints: Hints, summary: str,
                 description: str = "", rules: tuple[Rule, ...] = ()) -> Tool[A]:
    """Declare a runtime tool."""
    return Tool(name, args, "runtime", title, capability, hints, summary, description, rules)
