"""browx-actors: a browser- and app-automation server for AI agents, as supervised Trio actors.

The library API::

    async with browx_actors.open_runtime(capabilities=["eval"]) as runtime:
        await runtime.call_tool("navigate", {"url": "https://example.com"})
        print((await runtime.call_tool("snapshot"))["snapshot"])

The packages, by layer (``docs/architecture.md``), top first:

- :mod:`.server`: MCP over stdio and Streamable HTTP, ``open_runtime``, the catalog, the dispatch, the docs;
- :mod:`.daemon`: the reference host daemon for the operator channel and live view;
- :mod:`.demo`: ``make demo``, a scripted agent session over stdio MCP;
- :mod:`.runtime`: the supervision tree, the session factory, the runtime tools;
- :mod:`.sessions`: the session actor base, each engine's session, handlers and table;
- :mod:`.canvas`: canvas pixels, transforms and adapters;
- :mod:`.human`: ``await_human`` and the operator channel;
- :mod:`.recorder`: diagnostics;
- :mod:`.visualtree`: the compact v2 visual tree over any provider;
- :mod:`.devices`: device toolchains and leases;
- :mod:`.streams`: live-view streams;
- :mod:`.tools`: every tool's contract (declarations, argument classes, rules, tables' types);
- :mod:`.kernel`: actors and supervisors;
- :mod:`.cdp`: raw CDP over trio-websocket;
- :mod:`.config`: the runtime's configuration, read from the environment;
- :mod:`.clients`: which HTTP client a call runs for, and its namespace of sessions;
- :mod:`.credentials`: credentials out of URLs;
- :mod:`.operator_wire`: the operator socket's framing and messages;
- :mod:`.secret_book`: registered secrets, substituted on the way in and masked on the way out;
- :mod:`.workspace`: the one place a tool's file paths resolve;
- :mod:`.errors`: every error code, and :class:`~.errors.ToolError`;
- :mod:`.jsonsafe`: JSON that can always be written, and the wire's JSON types.

``python -m browx_actors`` (:mod:`.__main__`) is the command line.
"""

from .config import RuntimeConfig
from .errors import ToolError
from .kernel.actor_ref import ActorCrashed, ActorStopped, ActorUnavailable
from .runtime.tree import Runtime
from .server.embed import open_runtime

__all__ = [
    "ActorCrashed",
    "ActorStopped",
    "ActorUnavailable",
    "Runtime",
    "RuntimeConfig",
    "ToolError",
    "open_runtime",
]
