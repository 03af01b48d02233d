"""The MCP protocol layer, tested over a real stdio pipe with the SDK's own client.

The server is tests/mcp_echo_server.py in a subprocess. Most tests use the SDK's stdio
transport (`Client(StdioServerParameters(...))`); the shutdown and wire-purity tests use
a small recording transport instead, because they need the raw stdout lines and the
process's exit code, which the SDK transport keeps to itself. Both protocol eras are
exercised: "auto" opens with `server/discover` (2026-07-28), "legacy" with `initialize`.
"""

from __future__ import annotations

import base64
import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from types import ModuleType

import anyio
import attrs
import mcp.types as types
import pytest
import trio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.message import SessionMessage
from mcp.types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from browx_actors.server.mcp_stdio import ToolOutput, build_server, tool_result
from e2e_support import worktree_pythonpath

SERVER_SCRIPT = Path(__file__).parents[1] / "mcp_echo_server.py"
MODES = pytest.mark.parametrize("mode", ["auto", "legacy"])
#: A call that outlives any test: the server must exit long before it would end.
LONG_CALL_SECONDS = 60.0


def _load_echo_server() -> ModuleType:
    """Import the server script by path, so the test reads the very specs it serves."""
    spec = importlib.util.spec_from_file_location("mcp_echo_server", SERVER_SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


echo_server = _load_echo_server()


def _envelope(result: types.CallToolResult) -> dict:
    first = result.content[0]
    assert isinstance(first, types.TextContent)
    return json.loads(first.text)


@asynccontextmanager
async def stdio_client_session(mode: str) -> AsyncIterator[Client]:
    # PYTHONPATH: the echo server must run this checkout's transport, not the venv's.
    params = StdioServerParameters(command=sys.executable, args=[str(SERVER_SCRIPT)],
                                   env={"PYTHONPATH": worktree_pythonpath()})
    async with Client(params, mode=mode) as client:
        yield client


@attrs.define
class Recording:
    """What the recording transport saw of one server process."""

    stdout_lines: list[bytes] = attrs.Factory(list)
    stderr: bytes = b""
    returncode: int | None = None
    exit_seconds: float | None = None
    """From closing the server's stdin to the process having exited."""


@asynccontextmanager
async def recording_stdio(
    record: Recording,
) -> AsyncIterator[
    tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]
]:
    """A stdio client transport that keeps every raw stdout line and the exit code.

    Newline-delimited JSON-RPC both ways, like the SDK's; on exit it closes the server's
    stdin (MCP's stdio shutdown signal) and waits for the process to leave by itself.
    """
    read_send, read_recv = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_send, write_recv = anyio.create_memory_object_stream[SessionMessage](0)
    process = await trio.lowlevel.open_process(
        [sys.executable, str(SERVER_SCRIPT)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": worktree_pythonpath()},
    )
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    stdin, stdout, stderr = process.stdin, process.stdout, process.stderr
    stdin_closed = trio.Event()

    async def pump_stdout() -> None:
        buffer = b""
        delivering = True
        async with read_send:
            async for chunk in stdout:
                *lines, buffer = (buffer + chunk).split(b"\n")
                for line in lines:
                    record.stdout_lines.append(line)
                    if not delivering:
                        continue
                    try:
                        item: SessionMessage | Exception = SessionMessage(
                            types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                        )
                    except ValueError as exc:
                        item = exc
                    try:
                        await read_send.send(item)
                    except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                        delivering = False  # the client left; keep recording until the server exits
            if buffer:
                record.stdout_lines.append(buffer)

    async def pump_stdin() -> None:
        try:
            async with stdin, write_recv:
                async for message in write_recv:
                    line = message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                    await stdin.send_all(line.encode())
        finally:
            stdin_closed.set()

    async def drain_stderr() -> None:
        chunks = [chunk async for chunk in stderr]
        record.stderr = b"".join(chunks)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(pump_stdout)
        nursery.start_soon(pump_stdin)
        nursery.start_soon(drain_stderr)
        try:
            yield read_recv, write_send
        finally:
            write_send.close()
            await stdin_closed.wait()
            started = trio.current_time()
            with trio.move_on_after(10):
                await process.wait()
            if process.returncode is None:
                process.kill()
                await process.wait()
            else:
                record.exit_seconds = trio.current_time() - started
            record.returncode = process.returncode


@MODES
async def test_list_tools_returns_the_specs_verbatim(mode: str) -> None:
    async with stdio_client_session(mode) as client:
        listing = await client.list_tools()
        era = MODERN_PROTOCOL_VERSIONS if mode == "auto" else HANDSHAKE_PROTOCOL_VERSIONS
        assert client.protocol_version in era
        assert client.server_info is not None and client.server_info.name == "browx-actors"
    assert [(t.name, t.description, t.input_schema) for t in listing.tools] == [
        (s.name, s.description, s.input_schema) for s in echo_server.TOOLS
    ]
    assert all(t.output_schema is None for t in listing.tools)


@MODES
async def test_echo_envelope_rides_as_compact_text_and_structured_content(mode: str) -> None:
    args = {"text": "héllo", "n": [1, 2]}
    async with stdio_client_session(mode) as client:
        result = await client.call_tool("echo", args)
    expected = {"ok": True, "args": args}
    assert result.is_error is False
    assert len(result.content) == 1
    text = result.content[0]
    assert isinstance(text, types.TextContent)
    assert text.text == json.dumps(expected, separators=(",", ":"), ensure_ascii=False)
    assert "héllo" in text.text
    assert result.structured_content == expected


@MODES
async def test_domain_failure_is_a_tool_result_with_is_error(mode: str) -> None:
    async with stdio_client_session(mode) as client:
        result = await client.call_tool("fail", {})
    expected = {"ok": False, "code": "bad-arg", "error": "field 'x' is required", "field": "x"}
    assert result.is_error is True
    assert _envelope(result) == expected
    assert result.structured_content == expected


@MODES
async def test_arguments_reach_the_dispatch_unvalidated(mode: str) -> None:
    """The SDK must not pre-empt the dispatch: a schema violation and an unknown name
    both arrive at `call`, which decides the answer."""
    async with stdio_client_session(mode) as client:
        wrong_type = await client.call_tool("echo", {"text": 5})
        missing = await client.call_tool("echo")
        unknown = await client.call_tool("no-such-tool", {"a": 1})
    assert wrong_type.structured_content == {"ok": True, "args": {"text": 5}}
    assert missing.structured_content == {"ok": True, "args": {}}
    assert unknown.is_error is True
    assert _envelope(unknown) == {"ok": False, "code": "unknown-tool", "error": "no tool named 'no-such-tool'"}


@MODES
async def test_image_rides_as_image_content_after_the_envelope(mode: str) -> None:
    async with stdio_client_session(mode) as client:
        result = await client.call_tool("image", {})
    assert result.is_error is False
    assert [c.type for c in result.content] == ["text", "image"]
    assert _envelope(result) == {"ok": True, "width": 1, "height": 1}
    image = result.content[1]
    assert isinstance(image, types.ImageContent)
    assert image.mime_type == "image/png"
    assert base64.b64decode(image.data) == echo_server.PNG


async def test_raising_dispatch_still_answers_with_an_envelope() -> None:
    async with stdio_client_session("auto") as client:
        result = await client.call_tool("boom", {})
        after = await client.call_tool("echo", {"text": "still serving"})
    assert result.is_error is True
    assert _envelope(result) == {"ok": False, "code": "internal", "error": "internal error while handling 'boom'"}
    assert after.structured_content == {"ok": True, "args": {"text": "still serving"}}


@MODES
async def test_a_slow_call_does_not_block_a_fast_one(mode: str) -> None:
    finished: list[tuple[str, float]] = []
    async with stdio_client_session(mode) as client:
        started = trio.current_time()

        async def run(name: str, args: dict) -> None:
            result = await client.call_tool(name, args)
            assert result.is_error is False
            finished.append((name, trio.current_time() - started))

        async with trio.open_nursery() as nursery:
            nursery.start_soon(run, "slow", {})
            await trio.sleep(0.2)  # the slow call is in flight before the fast one is sent
            nursery.start_soon(run, "echo", {"text": "fast"})
    assert [name for name, _ in finished] == ["echo", "slow"]
    echo_seconds = finished[0][1]
    assert echo_seconds < echo_server.SLOW_SECONDS / 2


@MODES
async def test_closing_the_client_ends_the_server_cleanly(mode: str) -> None:
    record = Recording()
    async with Client(recording_stdio(record), mode=mode) as client:
        assert (await client.call_tool("echo", {"text": "x"})).is_error is False
    assert record.returncode == 0
    assert record.exit_seconds is not None and record.exit_seconds < 3
    assert b"Traceback" not in record.stderr


async def test_closing_the_client_mid_call_ends_the_server_cleanly() -> None:
    """EOF with a call in flight cancels the call; the server still exits 0, without
    waiting for the call (which would take a minute; a loaded host may take seconds to
    let a process exit, so that is the bound, not a fixed short time)."""
    record = Recording()
    async with Client(recording_stdio(record)) as client:
        with trio.move_on_after(0.3):
            await client.call_tool("slow", {"seconds": LONG_CALL_SECONDS})
    assert record.returncode == 0
    assert record.exit_seconds is not None and record.exit_seconds < LONG_CALL_SECONDS / 2
    assert b"Traceback" not in record.stderr


def test_a_client_that_closes_the_servers_stdout_ends_it_cleanly() -> None:
    """The client stops reading but keeps stdin open: the server's next write finds no
    reader, and the server stops as when stdin ends, saying so in one line (it printed a
    broken-pipe traceback and exited 1)."""
    server = subprocess.Popen(
        [sys.executable, str(SERVER_SCRIPT)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": worktree_pythonpath()},
    )
    assert server.stdin is not None and server.stdout is not None and server.stderr is not None
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}
    lines = [initialize, {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    server.stdin.write((json.dumps(lines[0]) + "\n").encode())
    server.stdin.flush()
    assert json.loads(server.stdout.readline())["id"] == 1
    server.stdout.close()
    for n in range(20):
        lines.append({"jsonrpc": "2.0", "id": 10 + n, "method": "tools/list"})
    server.stdin.write("".join(json.dumps(line) + "\n" for line in lines[1:]).encode())
    server.stdin.flush()
    try:
        returncode = server.wait(timeout=60)  # stdin is still open: only the broken pipe ends it
    finally:
        server.kill()
    stderr = server.stderr.read()
    server.stdin.close()
    assert returncode == 0, stderr
    assert b"Traceback" not in stderr and b"closed the server's stdout" in stderr


@MODES
async def test_stdout_carries_nothing_but_json_rpc(mode: str) -> None:
    record = Recording()
    async with Client(recording_stdio(record), mode=mode) as client:
        await client.list_tools()
        stray = await client.call_tool("stray", {})
        image = await client.call_tool("image", {})
        await client.call_tool("fail", {})
    assert stray.is_error is False and image.is_error is False
    assert record.returncode == 0
    assert len(record.stdout_lines) >= 5  # handshake/discover, list, three calls
    for line in record.stdout_lines:
        message = json.loads(line)
        assert message["jsonrpc"] == "2.0"
        types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    # The handler's stray output went to stderr, not nowhere and not the wire.
    assert b"stray print to stdout" in record.stderr
    assert b"stray raw write to fd 1" in record.stderr


@MODES
async def test_in_process_client_on_trio(mode: str) -> None:
    """No subprocess: the SDK's `Client` accepts a low-level `Server` directly."""

    async def call(name: str, arguments: dict) -> ToolOutput:
        return ToolOutput({"ok": name == "echo", "args": arguments}, images=(("image/png", b"\x89PNG"),))

    server = build_server(echo_server.TOOLS[:1], call, version="test")
    async with Client(server, mode=mode) as client:
        listing = await client.list_tools()
        ok = await client.call_tool("echo", {"text": 1})
        refused = await client.call_tool("other", {})
    assert [t.name for t in listing.tools] == ["echo"]
    assert ok.structured_content == {"ok": True, "args": {"text": 1}} and ok.is_error is False
    assert refused.is_error is True
    assert [c.type for c in ok.content] == ["text", "image"]


def test_tool_result_marks_anything_but_ok_true_as_error() -> None:
    assert tool_result(ToolOutput({"ok": True})).is_error is False
    assert tool_result(ToolOutput({"ok": False, "code": "c", "error": "e"})).is_error is True
    assert tool_result(ToolOutput({"code": "c"})).is_error is True
