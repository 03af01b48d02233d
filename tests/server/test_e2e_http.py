"""MCP over Streamable HTTP, end to end: ``browx-actors serve --port 0`` in a subprocess,
the SDK's own Streamable HTTP client, real Chromium.

Two clients share one runtime and one browser, each with its own sessions; a request
without the token, or from a page elsewhere, is refused before MCP sees it; a client's
sessions close when it ends its MCP session or goes idle.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest
import trio
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client

from e2e_support import envelope_of, server_env
from peers import inspector

pytestmark = pytest.mark.chromium

TOKEN = "e2e-http-token-0123456789abcdef"


class Server:
    """The server process, its URL, and every line it wrote to stderr so far."""

    def __init__(self, process: trio.Process) -> None:
        self.process = process
        self.url = ""
        self.lines: list[str] = []
        self.changed = trio.Event()

    async def read(self, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        assert self.process.stderr is not None
        buffer = b""
        started = False
        async for chunk in self.process.stderr:
            buffer += chunk
            *whole, buffer = buffer.split(b"\n")
            for line in whole:
                self.lines.append(line.decode(errors="replace"))
                found = re.search(r"MCP over HTTP at (\S+)", self.lines[-1])
                if found and not started:
                    self.url, started = found.group(1), True
                    task_status.started()
            self.changed.set()
            self.changed = trio.Event()
        if not started:
            raise AssertionError("the server exited before listening:\n" + "\n".join(self.lines))

    async def wait_for(self, pattern: str, seconds: float = 30) -> str:
        with trio.move_on_after(seconds):
            while True:
                for line in self.lines:
                    if re.search(pattern, line):
                        return line
                await self.changed.wait()
        raise AssertionError(f"no line matching {pattern!r} in:\n" + "\n".join(self.lines))


@asynccontextmanager
async def http_server(workspace: Path, *args: str) -> AsyncIterator[Server]:
    workspace.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, **server_env(workspace)}
    async with trio.open_nursery() as nursery:
        process = await trio.lowlevel.open_process(
            [sys.executable, "-m", "browx_actors", "serve", "--port", "0", "--log-level", "INFO", *args],
            env=env, cwd=str(workspace), stderr=subprocess.PIPE)
        server = Server(process)
        try:
            with trio.fail_after(60):
                await nursery.start(server.read)
            yield server
        finally:
            process.terminate()
            with trio.move_on_after(30):
                await process.wait()
            process.kill()
            nursery.cancel_scope.cancel()


def client_for(server: Server, token: str | None = TOKEN) -> Client:
    """The SDK's Streamable HTTP client, with the bearer token when given."""
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    transport = streamable_http_client(server.url, http_client=httpx2.AsyncClient(headers=headers, timeout=120))
    return Client(transport, read_timeout_seconds=120)


async def ok(client: Client, tool: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    envelope = envelope_of(await client.call_tool(tool, args or {}))
    assert envelope["ok"] is True, (tool, envelope)
    return envelope


async def fails(client: Client, tool: str, args: dict[str, Any], code: str) -> dict[str, Any]:
    envelope = envelope_of(await client.call_tool(tool, args))
    assert envelope["ok"] is False and envelope["code"] == code, (tool, envelope)
    return envelope


async def test_two_clients_share_one_runtime_each_with_its_own_sessions(tmp_path: Path, pages_url: str) -> None:
    async with (http_server(tmp_path / "ws", "--auth-token", TOKEN) as server, client_for(server) as alice,
                client_for(server) as bob):
        listed = await alice.list_tools()
        names = [tool.name for tool in listed.tools]
        assert "navigate" in names and "eval_js" not in names
        # The same session name, twice: one session each.
        assert (await ok(alice, "open_session", {"session": "work"}))["session"] == "work"
        await ok(bob, "open_session", {"session": "work"})
        went = await ok(alice, "navigate", {"session": "work", "url": f"{pages_url}/e2e_small.html"})
        assert went["title"] == "E2E small"
        await ok(bob, "navigate", {"session": "work", "url": f"{pages_url}/e2e_second.html"})
        assert "Hello E2E" in (await ok(alice, "snapshot", {"session": "work"}))["snapshot"]
        # Each lists only its own, as it named them.
        mine = await ok(alice, "list_sessions")
        assert [s["id"] for s in mine["sessions"]] == ["work"] and mine["count"] == 1, mine
        assert "e2e_small" in str(mine) and "e2e_second" not in str(mine)
        await ok(alice, "open_session", {"session": "solo"})
        assert (await ok(bob, "list_sessions"))["count"] == 1
        # Bob cannot reach Alice's "solo", by any spelling.
        await fails(bob, "snapshot", {"session": "solo"}, "unknown-session")
        await fails(bob, "close_session", {"session": "solo"}, "unknown-session")
        await fails(bob, "snapshot", {"session": "c1~solo"}, "bad-arg")
        # The default session opens by itself, one per client.
        await ok(bob, "navigate", {"url": f"{pages_url}/e2e_second.html"})
        await ok(alice, "navigate", {"url": f"{pages_url}/e2e_small.html"})
        assert "Hello E2E" not in (await ok(bob, "snapshot"))["snapshot"]
        status = await ok(alice, "runtime_status")
        assert "e2e_second" not in str(status["sessions"]), status["sessions"]
        # A batch runs as its client too.
        batch = await ok(alice, "tool.batch", {"calls": [{"tool": "list_sessions", "arguments": {}}]})
        assert "c1~" not in str(batch) and "solo" in str(batch)
        await ok(bob, "close_session", {"session": "work"})
        assert "Hello E2E" in (await ok(alice, "snapshot", {"session": "work"}))["snapshot"]


async def test_a_request_without_the_token_or_from_a_page_elsewhere_is_refused(tmp_path: Path) -> None:
    async with http_server(tmp_path / "ws", "--auth-token", TOKEN) as server:
        initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
        accept = {"Accept": "application/json, text/event-stream"}
        async with httpx2.AsyncClient(timeout=30) as http:
            for headers in ({}, {"Authorization": "Bearer wrong-token-0123456789"}):
                answer = await http.post(server.url, json=initialize, headers={**accept, **headers})
                assert answer.status_code == 401 and answer.headers["www-authenticate"] == "Bearer"
                assert TOKEN not in answer.text
            evil = await http.post(server.url, json=initialize, headers={
                **accept, "Authorization": f"Bearer {TOKEN}", "Origin": "https://evil.example"})
            assert evil.status_code == 403 and "evil.example" in evil.json()["error"]["message"]
            rebound = await http.post(server.url.replace("127.0.0.1", "localhost"), json=initialize, headers={
                **accept, "Authorization": f"Bearer {TOKEN}", "Host": "evil.example"})
            assert rebound.status_code == 403
            wrong_path = await http.post(server.url.replace("/mcp", "/other"), json=initialize, headers={
                **accept, "Authorization": f"Bearer {TOKEN}"})
            assert wrong_path.status_code == 404
        # The SDK's client with a wrong token fails at initialize; with it, works.
        with pytest.raises(Exception):  # noqa: B017 (the SDK's error type for a 401 is its own)
            async with client_for(server, "wrong-token-0123456789"):
                pass
        async with client_for(server) as client:
            assert (await ok(client, "list_sessions"))["count"] == 0
        assert not any(TOKEN in line for line in server.lines)


async def test_a_clients_sessions_close_when_it_leaves_or_idles_out(tmp_path: Path) -> None:
    async with http_server(tmp_path / "ws", "--idle-timeout", "2") as server:
        async with client_for(server, None) as leaving:
            await ok(leaving, "open_session", {"session": "left"})
        # Leaving sends DELETE (the SDK's client does on close): its session closes.
        line = await server.wait_for(r"client c1 gone; closed its sessions")
        assert "c1~left" in line
        # One that goes without a word (no DELETE: it crashed, its network went): once it
        # has had nothing in flight for the idle timeout, its session closes.
        transport = streamable_http_client(server.url, terminate_on_close=False)
        async with Client(transport, read_timeout_seconds=120) as vanishing:
            await ok(vanishing, "open_session", {"session": "idle"})
        line = await server.wait_for(r"client c2 gone", seconds=30)
        assert "c2~idle" in line


async def test_the_mcp_inspector_lists_and_calls_over_http(tmp_path: Path) -> None:
    """A third-party client (the Inspector's CLI, on the TypeScript SDK) over the same
    transport, with the token as a header."""
    async with http_server(tmp_path / "ws", "--auth-token", TOKEN) as server:
        base = [*inspector(), "--cli", server.url, "--transport", "http", "--header", f"Authorization: Bearer {TOKEN}"]
        listed = await trio.run_process([*base, "--method", "tools/list", "--format", "json"],
                                        capture_stdout=True, capture_stderr=True, check=False)
        assert listed.returncode == 0, listed.stderr.decode()[-2000:]
        names = [tool["name"] for tool in json.loads(listed.stdout)["result"]["tools"]]
        assert "navigate" in names and "eval_js" not in names
        called = await trio.run_process(
            [*base, "--method", "tools/call", "--tool-name", "list_sessions", "--format", "json"],
            capture_stdout=True, capture_stderr=True, check=False)
        assert called.returncode == 0, called.stderr.decode()[-2000:]
        result = json.loads(called.stdout)["result"]
        assert result["structuredContent"] == {"ok": True, "sessions": [], "count": 0} and not result["isError"]
        refused = await trio.run_process([*inspector(), "--cli", server.url, "--transport", "http", "--method",
                                          "tools/list"], capture_stdout=True, capture_stderr=True, check=False)
        assert refused.returncode != 0
