"""Where a full visual-tree capture's time goes, step by step, against ``snapshot``.

``benchmarks/visual_tree.py`` measures the capture against ``snapshot`` end to end; this
splits both into their steps, on the same 2,000-element shop page, in one process and
one run, each step timed alone (best and median of ``--rounds``):

1. Inside the session: the page agent's call (the walk, ``JSON.stringify``, the answer
   over raw CDP), then, for the tree, parsing the answer, the raw nodes, the snapshot
   book and the payload.
2. The MCP layer, with no I/O: each tool's real envelope (taken through the library's
   dispatch) through what a reply goes through on the wire: ``tool_result`` (the JSON
   text and the ``CallToolResult``), the SDK's dump of the result, the SDK's result
   check for the protocol version, the line written, and the SDK client's parse of that
   line. This part scales with the reply, not with the page.

Run: ``python -m benchmarks.visual_tree_costs [--rounds N]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import mcp.types as types
import trio
from mcp.server.runner import _dump_result
from mcp_types import methods

from benchmarks.visual_tree import _write_pages
from browx_actors import RuntimeConfig, open_runtime
from browx_actors.cdp import launch_chromium
from browx_actors.demo import serve_directory
from browx_actors.server.mcp_stdio import tool_result
from browx_actors.server.stdio_lines import encode_message
from browx_actors.sessions.chromium.reading.dom_provider import DomProvider, raw_tree
from browx_actors.tools.reply import ToolOutput
from browx_actors.visualtree.payload import TreeLimits, tree_payload

ROUNDS = 12
PROTOCOL = types.LATEST_PROTOCOL_VERSION
Steps = dict[str, list[float]]


def _timed(times: Steps, name: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    started = time.perf_counter()
    result = fn(*args, **kwargs)
    times.setdefault(name, []).append((time.perf_counter() - started) * 1000)
    return result


async def _in_session(ws_url: str, url: str, rounds: int) -> tuple[Steps, dict[str, dict[str, Any]]]:
    times: Steps = {}
    envelopes: dict[str, dict[str, Any]] = {}
    config = RuntimeConfig(workspace=Path(tempfile.mkdtemp()), attach_cdp=ws_url)
    async with open_runtime(config=config) as runtime:
        await runtime.call_tool("navigate", {"url": url})
        envelopes["snapshot"] = await runtime.call_tool("snapshot", {"maxNodes": 20_000})
        envelopes["ui.get_visual_tree"] = await runtime.call_tool("ui.get_visual_tree", {"maxNodes": 20_000})

        async def measure(session: Any, args: dict[str, Any]) -> None:
            provider = DomProvider(session)
            for _ in range(rounds):
                started = time.perf_counter()
                await session.agent("snapshot", {"maxNodes": 20_000})
                times.setdefault("snapshot: page agent call", []).append((time.perf_counter() - started) * 1000)
                started = time.perf_counter()
                answer = await session.agent("visualTree", {"properties": False, "limit": 20_000})
                times.setdefault("tree: page agent call", []).append((time.perf_counter() - started) * 1000)
                tree = _timed(times, "tree: json.loads of the answer", json.loads, answer)
                root = _timed(times, "tree: raw nodes", raw_tree, tree["root"])
                shot = _timed(times, "tree: snapshot book", session.visual_snapshots.record, provider, root,
                              datetime.now(UTC), scope=tree["document"], content_hash="bench")
                _timed(times, "tree: payload", tree_payload, shot, limits=TreeLimits(max_nodes=20_000))

        await runtime.call_session("default", "bench", measure, {}, timeout=600)
    return times, envelopes


def _mcp_steps(envelope: dict[str, Any], rounds: int) -> Steps:
    times: Steps = {}
    output = ToolOutput(envelope)
    for _ in range(rounds):
        result = _timed(times, "tool_result (text + CallToolResult)", tool_result, output)
        dumped = _timed(times, "SDK: dump the result", _dump_result, result)
        checked = _timed(times, "SDK: result check for the version", methods.serialize_server_result,
                         "tools/call", PROTOCOL, dumped)
        message = types.JSONRPCResponse(jsonrpc="2.0", id=1, result=checked)
        line = _timed(times, "the line written", encode_message, message)
        _timed(times, "SDK client: parse the line", types.jsonrpc_message_adapter.validate_json, line)
    times["(wire bytes)"] = [float(len(line))]
    return times


def _row(name: str, samples: list[float]) -> str:
    return f"| {name} | {min(samples):.1f} | {statistics.median(samples):.1f} |"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory() as tmp, serve_directory(Path(tmp)) as base:
        _write_pages(Path(tmp))

        async def measure() -> tuple[Steps, dict[str, dict[str, Any]]]:
            async with launch_chromium() as chromium:
                return await _in_session(chromium.ws_url, f"{base}/shop.html", rounds)

        inside, envelopes = trio.run(measure)
    print(f"# Where a 2,000-element capture's time goes, {rounds} rounds (best and median ms)\n")
    print("| inside the session | best | median |\n| --- | ---: | ---: |")
    for name, samples in inside.items():
        print(_row(name, samples))
    for tool, envelope in envelopes.items():
        steps = _mcp_steps(envelope, rounds)
        wire = int(steps.pop("(wire bytes)")[0])
        print(f"\n| MCP layer, `{tool}` ({wire:,} bytes on the wire) | best | median |\n| --- | ---: | ---: |")
        for name, samples in steps.items():
            print(_row(name, samples))
        total = [sum(step[i] for step in steps.values()) for i in range(rounds)]
        print(_row("**all of it**", total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
