"""MCP over stdio, decoupled from the tools.

This module knows the MCP wire and nothing about browsers: it is handed a fixed list of
tool specs and one dispatch callable (the one dispatch path, ``dispatch.py``), and turns
each result envelope into a `CallToolResult`. Keeping the protocol layer this thin means
argument validation, capability gates, secrets and recording all live in one place
(the dispatch), never half in the SDK and half in ours.

It uses the SDK's low-level `Server`, not `MCPServer`: our input schemas are
hand-written JSON Schema, and `MCPServer` derives schemas from Python signatures and
validates arguments itself, which would pre-empt the dispatch's `bad-arg` envelopes.
The low-level server does no JSON Schema validation of tool arguments (only the
request's surface shape: `name` a string, `arguments` an object), and since we declare
no `output_schema`, clients have nothing to validate results against either.

The stdio transport is our own (:func:`open_stdio_transport`), because the SDK's drops
the requests its JSON parser refuses without an answer and lets a result that cannot
be encoded end the process; ``stdio_lines.py`` holds the reading and writing rules,
and nothing a client sends or a handler returns can stop either direction.
"""

from __future__ import annotations

import base64
import fcntl
import logging
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, asynccontextmanager, contextmanager, nullcontext
from typing import BinaryIO

import anyio
import attrs
import mcp.types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.server import Server, ServerRequestContext
from mcp.shared.message import SessionMessage

from ..config import package_version
from ..jsonsafe import JsonObject, compact_json
from ..tools.reply import ToolOutput
from .stdio_lines import decode_line, encode_message

__all__ = ["Call", "Lifespan", "ToolOutput", "ToolSpec", "build_server", "open_stdio_transport", "serve_stdio",
           "tool_result"]

logger = logging.getLogger(__name__)


@attrs.frozen
class ToolSpec:
    """One tool as advertised in `tools/list`."""

    name: str
    description: str
    input_schema: JsonObject
    """A JSON Schema object, advertised verbatim; enforcing it is the dispatch's job."""
    title: str | None = None
    #: The MCP annotations' hints (``readOnlyHint``, ...), each stated.
    hints: Mapping[str, bool] | None = None

    def tool(self) -> types.Tool:
        annotations = None if self.hints is None else types.ToolAnnotations(
            read_only_hint=self.hints.get("readOnlyHint"), destructive_hint=self.hints.get("destructiveHint"),
            idempotent_hint=self.hints.get("idempotentHint"), open_world_hint=self.hints.get("openWorldHint"))
        return types.Tool(name=self.name, title=self.title, description=self.description,
                          input_schema=dict(self.input_schema), annotations=annotations)


Call = Callable[[str, JsonObject], Awaitable[ToolOutput]]
"""The dispatch: `(tool name, arguments) -> ToolOutput`. Unknown names reach it too."""


#: The lifespan context the SDK hands each handler: its default, an empty dict, never read.
Lifespan = dict[str, object]


def tool_result(output: ToolOutput) -> types.CallToolResult:
    """Shape one envelope for the wire.

    The envelope rides twice on purpose: as compact JSON text first (clients that only
    read text content still see everything) and as `structured_content`. `is_error`
    mirrors `ok`, so a domain failure is a tool result, never a JSON-RPC error.
    """
    envelope = output.envelope
    # The egress usually wrote the text already. Where it did not, compact_json refuses a
    # bare NaN (not JSON): the egress made every number finite, so one here is a bug,
    # answered as internal by the caller rather than sent.
    text = output.text if output.text is not None else compact_json(envelope)
    content: list[types.TextContent | types.ImageContent | types.AudioContent | types.ResourceLink
                  | types.EmbeddedResource] = [types.TextContent(type="text", text=text)]
    content.extend(
        types.ImageContent(type="image", data=base64.b64encode(raw).decode("ascii"), mime_type=mime)
        for mime, raw in output.images
    )
    return types.CallToolResult(content=content, structured_content=envelope, is_error=envelope.get("ok") is not True)


def _internal_failure(name: str) -> ToolOutput:
    """The answer when the dispatch itself raised: still an envelope, never a protocol error."""
    return ToolOutput({"ok": False, "code": "internal", "error": f"internal error while handling {name!r}"})


def _unwritable(name: str, err: Exception) -> ToolOutput:
    return ToolOutput({"ok": False, "code": "internal",
                       "error": f"the result of {name!r} could not be written: {type(err).__name__}"})


def build_server(
    tools: Sequence[ToolSpec],
    call: Call,
    *,
    name: str = "browx-actors",
    version: str | None = None,
    instructions: str | None = None,
    around: Callable[[ServerRequestContext[Lifespan]], AbstractContextManager[None]] | None = None,
) -> Server[Lifespan]:
    """Build the low-level MCP server; transport-free, so tests can drive it in-process.

    The listing is built once: the tool set is fixed for the life of the process, and
    building it here turns a malformed spec into a startup failure, not a runtime one.
    ``around`` wraps each call in what its request context says (over HTTP, the client
    it runs for).
    """
    listing = types.ListToolsResult(
        tools=[spec.tool() for spec in tools]
    )

    async def on_list_tools(
        ctx: ServerRequestContext[Lifespan], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return listing

    async def on_call_tool(
        ctx: ServerRequestContext[Lifespan], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        try:
            with nullcontext() if around is None else around(ctx):
                output = await call(params.name, dict(params.arguments or {}))
        except Exception:
            # The dispatch is meant to turn every failure into an envelope; if it does
            # not, the client still gets one (details stay in the server's log).
            logger.exception("tool dispatch raised for %r", params.name)
            output = _internal_failure(params.name)
        try:
            return tool_result(output)
        except (TypeError, ValueError) as err:  # not JSON data: an object, a NaN, a 5,000-digit int
            logger.exception("the result of %r could not be written", params.name)
            return tool_result(_unwritable(params.name, err))

    return Server(
        name,
        version=version if version is not None else package_version(),
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
    Trio. While it serves, fd 0 points at /dev/null and fd 1 at stderr (the wire uses
    private duplicates), so stray prints and child processes cannot corrupt the
    protocol stream. Each request runs in its own task, so a slow tool call never holds
    up a fast one; at EOF the in-flight calls are cancelled and this returns.
    """
    server = build_server(tools, call, name=name, version=version, instructions=instructions)
    async with open_stdio_transport() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


# -- the transport ----------------------------------------------------------------------


@contextmanager
def _claimed_stdio() -> Iterator[tuple[BinaryIO, BinaryIO]]:
    """The wire's own duplicates of fds 0 and 1, with the originals pointed elsewhere.

    The duplicates are never closed: a worker thread may still be blocked reading one
    after the transport has left, and a closed descriptor could be reused under it.
    """
    try:
        wire_in = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
        wire_out = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 3)
    except OSError:  # no real descriptors (an embedding host): serve the streams in place
        yield sys.stdin.buffer, sys.stdout.buffer
        return
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
        os.dup2(2, 1)
    finally:
        os.close(null)
    try:
        yield os.fdopen(wire_in, "rb", closefd=False), os.fdopen(wire_out, "wb", buffering=0, closefd=False)
    finally:
        os.dup2(wire_in, 0)
        os.dup2(wire_out, 1)


def _write_all(out: BinaryIO, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = out.write(view)
        view = view[written or 0:]
    out.flush()


@asynccontextmanager
async def open_stdio_transport() -> AsyncIterator[
    tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]
]:
    """The SDK's stream pair over this process's stdin and stdout, read and written by
    the rules of ``stdio_lines.py``: every request gets an answer, every message is
    written or replaced by one that can be."""
    with _claimed_stdio() as (wire_in, wire_out):
        read_send, read_recv = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        out_send, out_recv = anyio.create_memory_object_stream[SessionMessage | bytes](0)
        # The server writes messages; the reader writes the answers it gives itself.
        server_send: MemoryObjectSendStream[SessionMessage] = out_send.clone()
        reader_send = out_send
        reading = anyio.CancelScope()
        written = anyio.Event()

        async def reader() -> None:
            with reading:
                await read_lines()

        async def read_lines() -> None:
            async with read_send, reader_send:
                while True:
                    # Abandoned on cancellation: nothing else can interrupt a read.
                    line = await anyio.to_thread.run_sync(wire_in.readline, abandon_on_cancel=True)
                    if not line:
                        return
                    decoded = decode_line(line)
                    if isinstance(decoded, bytes):
                        await reader_send.send(decoded)
                    elif decoded is not None:
                        await read_send.send(SessionMessage(decoded))

        async def writer() -> None:
            gone = False
            try:
                async with out_recv:
                    async for item in out_recv:
                        data = b"" if gone else item if isinstance(item, bytes) else encode_message(item.message)
                        if not data:
                            continue  # once the client is gone, what is queued is dropped
                        try:
                            await anyio.to_thread.run_sync(_write_all, wire_out, data)
                        except (BrokenPipeError, ConnectionResetError):
                            # Nothing can reach the client any more: stop as when stdin ends.
                            gone = True
                            logger.warning("the client closed the server's stdout; stopping")
                            reading.cancel()
            finally:
                written.set()

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(reader)
            tasks.start_soon(writer)
            try:
                yield read_recv, server_send
            finally:
                # The writer ends once every sender has closed: the server has, so stop
                # reading and let what is queued reach the client, briefly.
                reading.cancel()
                server_send.close()
                with anyio.move_on_after(2):
                    await written.wait()
                tasks.cancel_scope.cancel()
