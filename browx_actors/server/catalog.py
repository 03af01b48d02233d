"""The catalog: every tool's declaration and every table, held against each other at start.

The declarations are ``browx_actors.tools.ALL`` (their order is that of ``tools/list``
and ``docs/tools.md``); the runtime's table binds the runtime tools' handlers
(``runtime/table.py``) and each engine's table binds or refuses every session tool
(``runtime/factory.py`` names them). :meth:`Catalog.of` refuses to build a catalog that
is not whole, listing every gap at once: a session tool some engine neither runs nor
refuses, a runtime tool with no handler, a table line for a tool nobody declared (or of
the wrong scope), a tool declared twice, a parameter named ``after``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping

import attrs

from ..runtime.factory import TABLES
from ..runtime.table import RUNTIME
from ..tools import AFTER, ALL, AnyTool, Runs, Table

__all__ = ["Catalog", "IncompleteCatalog", "default_catalog"]


class IncompleteCatalog(ValueError):
    """The declarations and the tables disagree; ``problems`` says where, one line each."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("the tool catalog is not whole:\n  " + "\n  ".join(problems))
        self.problems = problems


@attrs.frozen
class Catalog:
    """The tools by name, in order, with the runtime's table and each engine's."""

    tools: Mapping[str, AnyTool]
    runtime: Table
    engines: Mapping[str, Table]

    @classmethod
    def of(cls, tools: Iterable[AnyTool], runtime: Table, engines: Mapping[str, Table]) -> Catalog:
        by_name: dict[str, AnyTool] = {}
        problems: list[str] = []
        for tool in tools:
            if tool.name in by_name:
                problems.append(f"{tool.name} is declared twice")
            if any(param.name == AFTER.name for param in tool.params):
                problems.append(f"{tool.name} declares {AFTER.name!r}, which every tool takes from the dispatch")
            by_name[tool.name] = tool
        problems += _gaps(by_name, runtime, engines)
        if problems:
            raise IncompleteCatalog(problems)
        return cls(by_name, runtime, dict(engines))

    def __iter__(self) -> Iterator[AnyTool]:
        return iter(self.tools.values())

    def get(self, name: str) -> AnyTool | None:
        return self.tools.get(name)

    def listed(self, capabilities: Collection[str]) -> list[AnyTool]:
        """The tools ``tools/list`` shows a server granted ``capabilities``: those whose own
        capability is among them. A call to one left out still answers
        ``capability-denied`` naming it, before its arguments are read."""
        return [tool for tool in self.tools.values() if tool.capability in capabilities]


def _gaps(tools: Mapping[str, AnyTool], runtime: Table, engines: Mapping[str, Table]) -> list[str]:
    problems = []
    for table, scope in ((runtime, "runtime"), *((engine_table, "session") for engine_table in engines.values())):
        for line in table:
            declared = tools.get(line.tool.name)
            if declared is None:
                problems.append(f"the {table.engine} table names {line.tool.name}, which no declaration has")
            elif declared is not line.tool:
                problems.append(f"the {table.engine} table's {line.tool.name} is not the declared one")
            elif declared.scope != scope:
                problems.append(f"the {table.engine} table names {line.tool.name}, a {declared.scope} tool")
    for engine, table in engines.items():
        if table.engine != engine:
            problems.append(f"the table of engine {engine} says it is {table.engine}'s")
    for tool in tools.values():
        if tool.scope == "runtime":
            if not isinstance(runtime.entry(tool.name), Runs):
                problems.append(f"runtime tool {tool.name} has no handler in the runtime table")
            continue
        for engine, table in engines.items():
            if table.entry(tool.name) is None:
                problems.append(f"session tool {tool.name} is neither run nor refused by the {engine} table")
    return problems


def default_catalog() -> Catalog:
    """Every tool this build declares, with its runtime and engine tables."""
    return Catalog.of(ALL, RUNTIME, TABLES)
