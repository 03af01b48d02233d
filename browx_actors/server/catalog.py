"""The registry: every capability's tool list, assembled into one catalog.

Each module that implements tools exports them in a ``TOOLS`` list; another engine's
handlers for a session tool declared elsewhere come as :class:`~browx_actors.tooling.
Implementation` values in an ``IMPLEMENTATIONS`` list. This is the only place that
knows them all: the order here is the order of ``tools/list`` and of ``docs/tools.md``.
"""

from __future__ import annotations

from collections.abc import Iterable

from .. import batch, runtime_tools
from ..canvas import tools as canvas
from ..human import tools as human
from ..recorder import tools as diagnostics
from ..sessions import chromium
from ..sessions.chromium import visual
from ..tooling import AFTER, Implementation, Tool

__all__ = ["all_tools", "assemble"]


def assemble(tools: Iterable[Tool], implementations: Iterable[Implementation] = ()) -> list[Tool]:
    """The tools, with each implementation attached to its tool; a duplicate name, an
    implementation of a tool nobody declared, or a parameter named ``after`` (every
    tool's, handled by the dispatch) is a bug, refused at start."""
    by_name: dict[str, Tool] = {}
    for tool in tools:
        if tool.name in by_name:
            raise ValueError(f"tool {tool.name!r} is declared twice")
        if any(param.name == AFTER.name for param in tool.params):
            raise ValueError(f"tool {tool.name!r} declares {AFTER.name!r}, which every tool takes from the dispatch")
        by_name[tool.name] = tool
    for impl in implementations:
        if impl.tool not in by_name:
            raise ValueError(f"{impl.engine} implements {impl.tool!r}, which no module declares")
        by_name[impl.tool] = by_name[impl.tool].with_engine(impl.engine, impl.handler)
    return list(by_name.values())


def all_tools() -> list[Tool]:
    # Every chromium handler takes named refs (name_ref) wherever it takes a ref.
    return [chromium.accept_named_refs(tool) for tool in assemble([
        *runtime_tools.TOOLS,
        *batch.TOOLS,
        *chromium.TOOLS,
        *visual.TOOLS,
        *diagnostics.TOOLS,
        *canvas.TOOLS,
        *human.TOOLS,
    ])]
