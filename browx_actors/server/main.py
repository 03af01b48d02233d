"""``browx-actors serve``: the runtime behind the stdio MCP transport.

The MCP layer gets the registry's tool specs and the one dispatch function; when the
client goes away (stdin closes) the transport returns and leaving ``open_runtime``
tears the tree down, Chromium included.
"""

from __future__ import annotations

from ..config import RuntimeConfig
from ..runtime import open_runtime
from .mcp_stdio import serve_stdio

INSTRUCTIONS = (
    "Browser automation. Call snapshot to read the page as text with [ref=eN] refs, then act "
    "with click/fill/press/select by ref. Every result is a JSON envelope with ok, and code + "
    "error when ok is false. The session argument defaults to \"default\", which opens itself."
)


async def serve(config: RuntimeConfig) -> None:
    # The server's own gate is the only gate for MCP clients: the client side allows
    # whatever the server grants.
    async with open_runtime(config=config, capabilities=config.capabilities) as runtime:
        await serve_stdio(runtime.dispatcher.specs(), runtime.dispatcher.dispatch,
                          instructions=INSTRUCTIONS)
