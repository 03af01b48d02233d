"""An engine's table: every session tool, mapped to the handler that runs it or to a named refusal.

Each engine (``sessions/chromium/table.py``, ``sessions/android/table.py``, ...) writes
one :class:`Table`: a line per tool, ``runs(tool, handler)`` or ``refuses(tool, why)``.
The runtime writes one for the runtime tools. A refusal carries its error code
(``not-supported`` unless it has one of its own) and what the engine lacks, so an agent
hears why at once; nothing answers a plausible empty.

The catalog (``server/catalog.py``) holds every table against every declaration and
refuses to start if a session tool is missing from an engine's table, a table names a
tool nobody declared, or a runtime tool has no handler; ``docs/engines.md`` is written
from the tables.

``runs`` is generic in the tool's argument class, so the type checker holds each
handler to the arguments its tool declares: a handler of ``click`` takes ``ClickArgs``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from typing import Any, Generic, TypeVar

import attrs

from ..errors import ToolError
from .arguments import Arguments
from .contract import AnyTool, Tool
from .params import Param
from .rules import JsonArgs

__all__ = ["Delegation", "Handler", "Refusal", "Runs", "Table", "refuses", "runs"]

A = TypeVar("A", bound=Arguments)
#: What a handler runs with: an engine's session actor, or the runtime context.
C = TypeVar("C")

#: ``handler(context, args)``: a session (or the runtime context) and the tool's arguments.
Handler = Callable[[C, A], Awaitable[object]]


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
class Runs(Generic[C, A]):
    """``tool`` runs ``handler``."""

    tool: Tool[A]
    handler: Callable[[C, A], Awaitable[object]]
    #: A forwarded call's inner operation, looked up from the context and the checked
    #: arguments (the dispatch then gates it and checks its own arguments).
    delegate: Callable[[C, JsonArgs], Delegation] | None = None


@attrs.frozen
class Refusal:
    """``tool`` is refused on this engine: ``code``, and what is missing."""

    tool: AnyTool
    missing: str
    code: str = "not-supported"

    def error(self, engine: str) -> ToolError:
        return ToolError(self.code, f"{self.tool.name} is not available on {engine}: {self.missing}",
                         engine=engine, tool=self.tool.name)


def runs(tool: Tool[A], handler: Callable[[C, A], Awaitable[object]], *,
         delegate: Callable[[C, JsonArgs], Delegation] | None = None) -> Runs[C, A]:
    return Runs(tool, handler, delegate)


def refuses(tool: AnyTool, missing: str, *, code: str = "not-supported") -> Refusal:
    return Refusal(tool, missing, code)


#: One line of a table. ``Any``: a table holds lines of every argument class, and its
#: context is a session of the engine's own class or the runtime's (``Runs`` is invariant in both).
Entry = Runs[Any, Any] | Refusal


@attrs.frozen
class Table:
    """One engine's (or the runtime's) lines, by tool name."""

    engine: str
    entries: Mapping[str, Entry]

    @classmethod
    def of(cls, engine: str, lines: Iterable[Entry]) -> Table:
        """The table of ``lines``; a tool named twice is a bug, refused at import."""
        entries: dict[str, Entry] = {}
        for line in lines:
            if line.tool.name in entries:
                raise ValueError(f"the {engine} table names {line.tool.name!r} twice")
            entries[line.tool.name] = line
        return cls(engine, entries)

    def renamed(self, engine: str) -> Table:
        """The same lines for another engine that runs them as they are."""
        return Table(engine, self.entries)

    def entry(self, name: str) -> Entry | None:
        return self.entries.get(name)

    def __iter__(self) -> Iterator[Entry]:
        return iter(self.entries.values())
