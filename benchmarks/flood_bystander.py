"""A bystander session's latency while another session rests on a flooding page, one run.

One server as shipped (stdio MCP), two sessions on one Chromium: the flooder (the
``default`` session) sits on ``tests/pages/flood_console.html``, quiet (``?rate=0``) or
flooding (``?rate=40000&source=S``), and does nothing; the bystander (its own session,
on the quiet page) calls ``verify_count #go`` every ``--every`` seconds for
``--seconds`` seconds. Quiet and flooding blocks alternate in the same run, and the
table gives the bystander's median and worst per block and the flood/quiet ratio of its
medians.

Why: a dedicated worker's flood once slowed every session of the server, not only its
own (a bystander's ``verify_count`` went from 0.01 s to 41 s over two minutes, issue
34), because the flood reached the browser's and Playwright's shared connections. The
worker is now sampled from its start (``sessions/chromium/tabs/workers.py``). Blocks
last long enough (30 s by default) for a backlog to show as growth within a block.

Run: ``python -m benchmarks.flood_bystander [--source worker|page|exception]
[--blocks K] [--seconds S] [--every E]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import trio
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

from browx_actors.demo import serve_directory

PAGES = Path(__file__).resolve().parents[1] / "tests" / "pages"
TARGET_RATIO = 2.0


def _server() -> StdioServerParameters:
    env = {**os.environ, "BROWX_WORKSPACE": tempfile.mkdtemp(), "BROWX_CAPABILITIES": ""}
    return StdioServerParameters(command=sys.executable, args=["-m", "browx_actors", "serve"], env=env)


async def _call(client: Client, tool: str, args: dict) -> tuple[float, dict]:
    started = time.perf_counter()
    result = await client.call_tool(tool, args)
    return (time.perf_counter() - started) * 1000, json.loads(result.content[0].text)


async def _block(client: Client, url: str, seconds: float, every: float) -> list[float]:
    """The flooder goes to ``url``; the bystander's call times (ms) for ``seconds``."""
    await _call(client, "navigate", {"url": url, "timeoutMs": 120_000})
    times: list[float] = []
    deadline = trio.current_time() + seconds
    while trio.current_time() < deadline:
        elapsed, envelope = await _call(client, "verify_count", {"session": "bystander", "selector": "#go",
                                                                 "count": 1})
        if not envelope.get("ok"):
            raise RuntimeError(f"the bystander's call failed: {envelope}")
        times.append(elapsed)
        await trio.sleep(every)
    return times


async def _measure(base: str, source: str, blocks: int, seconds: float, every: float) -> list[tuple[str, list[float]]]:
    quiet = f"{base}/flood_console.html?rate=0"
    flood = f"{base}/flood_console.html?rate=40000&source={source}"
    measured: list[tuple[str, list[float]]] = []
    async with Client(_server()) as client:
        await _call(client, "open_session", {"session": "bystander"})
        await _call(client, "navigate", {"session": "bystander", "url": quiet})
        for block in range(blocks):
            for kind in (("quiet", "flood") if block % 2 == 0 else ("flood", "quiet")):
                measured.append((kind, await _block(client, quiet if kind == "quiet" else flood, seconds, every)))
    return measured


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", choices=("worker", "page", "exception"), default="worker")
    parser.add_argument("--blocks", type=int, default=2, help="blocks of each kind, alternating (default 2)")
    parser.add_argument("--seconds", type=float, default=30.0, help="length of a block (default 30 s)")
    parser.add_argument("--every", type=float, default=0.25, help="the bystander's pace (default 0.25 s)")
    options = parser.parse_args()
    with serve_directory(PAGES) as base:
        measured = trio.run(_measure, base, options.source, options.blocks, options.seconds, options.every)
    print(f"# A bystander's verify_count while the other session rests on a {options.source} flood "
          f"(40,000 messages/s asked), {options.blocks} blocks of each kind x {options.seconds:g} s, same run\n")
    print("| block | flooder's page | calls | median ms | first half median ms | second half median ms | worst ms |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for n, (kind, times) in enumerate(measured, 1):
        half = len(times) // 2
        print(f"| {n} | {kind} | {len(times)} | {statistics.median(times):.1f} | "
              f"{statistics.median(times[:half] or times):.1f} | {statistics.median(times[half:]):.1f} | "
              f"{max(times):.1f} |")
    quiet = statistics.median([t for kind, times in measured if kind == "quiet" for t in times])
    flood = statistics.median([t for kind, times in measured if kind == "flood" for t in times])
    ratio = flood / quiet
    print(f"\nbystander median: quiet {quiet:.1f} ms, flood {flood:.1f} ms, {ratio:.2f}x "
          f"(target <= {TARGET_RATIO:g}x: {'met' if ratio <= TARGET_RATIO else 'missed'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
