"""browx-actors: a browser- and app-automation server for AI agents, as supervised Trio actors.

The library API::

    async with browx_actors.open_runtime(capabilities=["eval"]) as runtime:
        await runtime.call_tool("navigate", {"url": "https://example.com"})
        print((await runtime.call_tool("snapshot"))["snapshot"])
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
