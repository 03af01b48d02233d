"""MCP over stdio, decoupled from the tools.

This module knows the MCP wire and nothing about browsers: it is handed a fixed list of
tool specs and one dispatch callable (the registry's single dispatch path), and turns
each result envelope into a `CallToolResult`. Keeping the protocol layer this thin means
argument validation, capability gates, secrets and recording all live in one place
(the dispatch), never half in the SDK and half in ours.

It uses the SDK's low-level `Server`, not `MCPServer`: our input schemas are
hand-written JSON Schema, and `MCPServer` derives schemas from Python signatures and
validates arguments itself, which would pre-empt the dispatch's `bad-arg` envelopes.
The low-level server does no JSON Schema validation of tool arguments (only the
request's surface shape: `name` a string, `arguments` an object), and since we declare
no `output_schema`, clients have nothing to validate results against either.
"""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from importlib import metadata
from typing import Any

import attrs
import mcp.types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server

from ..tooling.reply import ToolOutput

__all__ = ["Call", "ToolOutput", "ToolSpec", "build_server", "serve_stdio", "tool_result"]

logger = logging.getLogger(__name__)


@attrs.frozen
class ToolSpec:
    """One tool as advertised in `tools/list`."""

    name: str
    description: str
    input_schema: dict[str, Any]
    """A JSON Schema object, advertised verbatim; enforcing it is the dispatch's job."""


Call = Callable[[str, dict[str, Any]], Awaitable[ToolOutput]]
"""The dispatch: `(tool name, arguments) -> ToolOutput`. Unknown names reach it too."""


def _default_version() -> str:
    """The installed distribution's version, so `serverInfo` never drifts from the package."""
    try:
        return metadata.version("browx-actors")
    except metadata.PackageNotFoundError:
        return "0+unknown"


def tool_result(output: ToolOutput) -> types.CallToolResult:
    """Shape one envelope for the wire.

    The envelope rides twice on purpose: as compact JSON text first (clients that only
    read text content still see everything) and as `structured_content`. `is_error`
    mirrors `ok`, so a domain failure is a tool result, never a JSON-RPC error.
    """
    envelope = output.envelope
    content: list[types.TextContent | types.ImageContent | types.AudioContent | types.ResourceLink
                  | types.EmbeddedResource] = [
        types.TextContent(type="text", text=json.dumps(envelope, separators=(",", ":"), ensure_ascii=False))
    ]
    content.extend(
        types.ImageContent(type="image", data=base64.b64encode(raw).decode("ascii"), mime_type=mime)
        for mime, raw in output.images
    )
    return types.CallToolResult(content=content, structured_content=envelope, is_error=envelope.get("ok") is not True)


def _internal_failure(name: str) -> ToolOutput:
    """The answer when the dispatch itself raised: still an envelope, never a protocol error."""
    return ToolOutput({"ok": False, "code": "internal", "error": f"internal error while handling {name!r}"})


def build_server(
    tools: Sequence[ToolSpec],
    call: Call,
    *,
    name: str = "browx-actors",
    version: str | None = None,
    instructions: str | None = None,
) -> Server[Any]:
    """Build the low-level MCP server; transport-free, so tests can drive it in-process.

    The listing is built once: the tool set is fixed for the life of the process, and
    building it here turns a malformed spec into a startup failure, not a runtime one.
    """
    listing = types.ListToolsResult(
        tools=[types.Tool(name=s.name, description=s.description, input_schema=dict(s.input_schema)) for s in tools]
    )

    async def on_list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return listing

    async def on_call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            output = await call(params.name, dict(params.arguments or {}))
        except Exception:
            # The dispatch is meant to turn every failure into an envelope; if it does
            # not, the client still gets one (details stay in the server's log).
            logger.exception("tool dispatch raised for %r", params.name)
            output = _internal_failure(params.name)
        return tool_result(output)

    return Server(
        name,
        version=version if version is not None else _default_version(),
        instructions=instructions,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
    )


async def serve_stdio(
    tools: Sequence[ToolSpec],
    call: Call,
    *,
    name: str = "browx-actors",
    version: str | None = None,
    instructions: str | None = None,
) -> None:
    """Serve MCP over this process's stdin/stdout until the client closes stdin.

    Runs on whatever anyio backend is current, so awaiting it inside `trio.run` serves on
    Trio. The SDK's stdio transport points fd 0 at /dev/null and fd 1 at stderr while it
    serves (the wire uses private duplicates), so stray prints and child processes
    cannot corrupt the protocol stream. Each request runs in its own task, so a slow
    tool call never holds up a fast one; at EOF the in-flight calls are cancelled and
    this returns.
    """
    server = build_server(tools, call, name=name, version=version, instructions=instructions)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
