"""The registry: every capability's tool list, assembled into one catalog.

Each module that implements tools exports them in a ``TOOLS`` list; another engine's
handlers for a session tool declared elsewhere come as :class:`~browx_actors.tools.
Implementation` values in an ``IMPLEMENTATIONS`` list. This is the only place that
knows them all: the order here is the order of ``tools/list`` and of ``docs/tools.md``.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..canvas import tools as canvas
from ..devices import tools as devices
from ..human import tools as human
from ..recorder import tools as diagnostics
from ..runtime import batch
from ..runtime import handlers as runtime_handlers
from ..sessions import android, chromium, ios
from ..sessions.chromium import visual
from ..sessions.native import lifecycle as native_lifecycle
from ..tools import AFTER, Implementation, Tool

__all__ = ["all_tools", "assemble", "runs_like"]


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


def runs_like(tools: Iterable[Tool], engine: str, like: str) -> list[Tool]:
    """Every session tool ``like`` implements, implemented for ``engine`` with the same
    handler: an engine that is another one over a different transport (chrome-android is
    the chromium engine attached to a device's Chrome)."""
    return [tool.with_engine(engine, tool.engines[like]) if like in tool.engines else tool for tool in tools]


def all_tools() -> list[Tool]:
    # Every chromium handler takes named refs (name_ref) wherever it takes a ref, and
    # chrome-android runs the chromium handlers as they are.
    named = [chromium.accept_named_refs(tool) for tool in _assembled()]
    return runs_like(named, "chrome-android", "chromium")


def _assembled() -> list[Tool]:
    return assemble([
        *runtime_handlers.TOOLS,
        *batch.TOOLS,
        *devices.TOOLS,
        *chromium.TOOLS,
        *visual.TOOLS,
        *native_lifecycle.TOOLS,
        *diagnostics.TOOLS,
        *canvas.TOOLS,
        *human.TOOLS,
    ], [
        *android.IMPLEMENTATIONS,
        *ios.IMPLEMENTATIONS,
    ])
