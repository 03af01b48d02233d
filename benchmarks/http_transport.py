"""Streamable HTTP against stdio, and many HTTP clients against one, in the same run.

1. **Per call**: the same steps (navigate, snapshot, fill, click on a page with a form
   and 200 links) through one server over stdio and one over HTTP (``serve --port 0``,
   loopback, with a token), each with the official SDK's client, in alternating rounds.
   Each server launches its own Chromium; read the difference per step, HTTP - stdio.
2. **Many clients**: on the HTTP server, one client with two sessions, then ten clients
   with two sessions each, all at once, each session doing snapshot and click rounds:
   calls per second in all, and the server process's resident memory (its own, not
   Chromium's) after each.

Run: ``python -m benchmarks.http_transport [--rounds N]``.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx2
import trio
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from benchmarks.mcp_latency import _write_page
from browx_actors.demo import serve_directory

TOKEN = "benchmark-token-0123456789abcdef"
#: ``list_sessions`` touches no browser: the transport alone.
STEPS = ("list_sessions", "navigate", "snapshot", "fill", "click")


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def _step(client: Client, step: str, session: str, url: str, i: int) -> float:
    args: dict[str, object] = {} if step == "list_sessions" else {"session": session}
    if step == "navigate":
        args["url"] = url
    elif step == "fill":
        args.update(selector="#q", value=f"query {i}")
    elif step == "click":
        args["selector"] = "#go"
    started = time.perf_counter()
    result = await client.call_tool(step, args)
    elapsed = (time.perf_counter() - started) * 1000
    if result.is_error:
        raise RuntimeError(f"{step} failed: {result.content}")
    return elapsed


def _http_client(url: str) -> Client:
    transport = streamable_http_client(url, http_client=httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {TOKEN}"}, timeout=120))
    return Client(transport, read_timeout_seconds=120)


async def _clients_at_once(url: str, page: str, clients: int, seconds: float) -> int:
    """Calls completed by ``clients`` clients, two sessions each, in ``seconds``."""
    done = 0

    async def one(n: int) -> None:
        nonlocal done
        async with _http_client(url) as client:
            for name in ("a", "b"):
                await client.call_tool("open_session", {"session": name})
                await _step(client, "navigate", name, page, 0)
            deadline = trio.current_time() + seconds
            i = 0
            while trio.current_time() < deadline:
                for name in ("a", "b"):
                    await _step(client, "snapshot", name, page, i)
                    await _step(client, "click", name, page, i)
                    done += 2
                i += 1

    async with trio.open_nursery() as nursery:
        for n in range(clients):
            nursery.start_soon(one, n)
    return done


async def measure(page: str, rounds: int, workspace: Path) -> None:
    env = {**os.environ, "BROWX_WORKSPACE": str(workspace)}
    process = await trio.lowlevel.open_process(
        [sys.executable, "-m", "browx_actors", "serve", "--port", "0", "--auth-token", TOKEN],
        env=env, stderr=subprocess.PIPE)
    assert process.stderr is not None
    seen = b""
    while (found := re.search(rb"MCP over HTTP at (\S+)", seen)) is None:
        chunk = await process.stderr.receive_some()
        if not chunk:
            raise RuntimeError(f"the HTTP server exited: {seen.decode(errors='replace')}")
        seen += chunk
    url = found.group(1).decode()

    async def drain() -> None:  # a full pipe would stall the server's next log line
        assert process.stderr is not None
        while await process.stderr.receive_some():
            pass

    times: dict[str, dict[str, list[float]]] = {"stdio": {s: [] for s in STEPS}, "http": {s: [] for s in STEPS}}
    stdio = StdioServerParameters(command=sys.executable, args=["-m", "browx_actors", "serve"], env=env)
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(drain)
            await _compare(url, page, rounds, stdio, times, process.pid)
            nursery.cancel_scope.cancel()
    finally:
        process.terminate()
        with trio.move_on_after(30):
            await process.wait()
        process.kill()


async def _compare(url: str, page: str, rounds: int, stdio: StdioServerParameters,
                   times: dict[str, dict[str, list[float]]], pid: int) -> None:
    """Both transports step by step in alternating rounds, then the clients at once."""
    async with Client(stdio, read_timeout_seconds=120) as over_stdio, _http_client(url) as over_http:
        for client in (over_stdio, over_http):
            await client.call_tool("open_session", {"session": "bench"})
        for i in range(rounds + 3):
            order = (("stdio", over_stdio), ("http", over_http))
            for name, client in order if i % 2 else order[::-1]:
                for step in STEPS:
                    elapsed = await _step(client, step, "bench", page, i)
                    if i >= 3:
                        times[name][step].append(elapsed)
        await over_http.call_tool("close_session", {"session": "bench"})
    print(f"# Streamable HTTP against stdio, {rounds} rounds each, alternating (page: a form and 200 links)\n")
    print("| step | stdio median (p95) ms | HTTP median (p95) ms | HTTP - stdio ms |")
    print("| --- | ---: | ---: | ---: |")
    for step in STEPS:
        a, b = sorted(times["stdio"][step]), sorted(times["http"][step])
        print(f"| {step} | {statistics.median(a):.1f} ({a[int(len(a) * 0.95) - 1]:.1f}) | "
              f"{statistics.median(b):.1f} ({b[int(len(b) * 0.95) - 1]:.1f}) | "
              f"{statistics.median(b) - statistics.median(a):+.1f} |")
    print("\n| HTTP clients (two sessions each) | calls/s | server RSS MiB after |")
    print("| --- | ---: | ---: |")
    for clients in (1, 10):
        seconds = 10.0
        done = await _clients_at_once(url, page, clients, seconds)
        print(f"| {clients} | {done / seconds:.0f} | {_rss_mib(pid):.0f} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30, help="measured rounds per transport (default 30)")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, serve_directory(Path(tmp)) as base:
        _write_page(Path(tmp))
        trio.run(measure, f"{base}/links.html", options.rounds, Path(tmp) / "ws")
    return 0


if __name__ == "__main__":
    sys.exit(main())
