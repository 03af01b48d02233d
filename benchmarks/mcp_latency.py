"""Tool-call latency through stdio MCP against bare Playwright on the same browser.

One Chromium is launched here; the server attaches to it (``BROWX_ATTACH_CDP``) and bare
Playwright connects to it too, so both sides drive the same browser in the same run.
The page has a form and 200 links. Each step (navigate, snapshot, fill, click) is timed
end to end as an agent host sees it: request written to the server's stdin until the
reply is read back. The bare baseline does the nearest Playwright equivalent
(``goto``, ``aria_snapshot``, ``fill``, ``click``) with no MCP, no envelope and no
settle reporting.

The server is measured twice: as configured by default (click, hover and fill send
their own CDP input to an element that is ready) and with ``BROWX_ACTION_INPUT=playwright``
(Playwright performs every action), in alternating blocks, so the gain of the direct
path is read in one run.

``--think MS`` pauses that long before every step on both sides, as an agent does
while its model reads the last answer; the steps are still timed alone. It shows what
work the server does between calls (Playwright's selector warm-up after a navigation)
is worth to a real agent, where back-to-back calls would charge it to the next step.

``--against DIR`` measures a third server in the same run: the same default configuration
from another checkout (``git worktree add /tmp/before <commit>``), so a change is read as
before and after, each against the same bare baseline.

``--recording-off`` measures one more server in the same run: the default
configuration with ``BROWX_PAGE_RECORDING=off`` (no console or network records kept),
so what recording costs the four steps is read as on against off.

Run: ``python -m benchmarks.mcp_latency [--think MS] [--against DIR] [--recording-off]``.
"""

from __future__ import annotations

import argparse
import asyncio
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

from browx_actors.cdp import launch_chromium
from browx_actors.demo import serve_directory

ROUNDS = 30
TARGETS_MS = {"navigate": 100, "snapshot": 25, "fill": 40, "click": 60}
SNAPSHOT_CHAR_TARGET = 8000

PAGE = """<!doctype html><html><head><title>links</title></head><body>
<h1>Directory</h1>
<form aria-label="Search"><label>Query <input id="q" name="q"></label>
<button type="button" id="go"
 onclick="document.getElementById('out').textContent = 'searched ' + document.getElementById('q').value"
>Search</button></form>
<p id="out" role="status"></p>
<ul>{links}</ul></body></html>"""


def _write_page(directory: Path) -> None:
    links = "".join(f'<li><a href="/item/{i}">Item number {i}</a></li>' for i in range(200))
    (directory / "links.html").write_text(PAGE.format(links=links))


def _summary(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[int(len(ordered) * 0.95) - 1]


async def _bare(ws_url: str, url: str, think_s: float) -> dict[str, list[float]]:
    from playwright.async_api import async_playwright

    times: dict[str, list[float]] = {k: [] for k in TARGETS_MS}
    async with async_playwright() as p:
        browser = await p.chromium.connect_over_cdp(ws_url)
        context = await browser.new_context(viewport={"width": 1280, "height": 720})
        page = await context.new_page()
        for i in range(ROUNDS + 3):
            steps = {
                "navigate": lambda: page.goto(url),
                "snapshot": lambda: page.locator("body").aria_snapshot(),
                "fill": lambda text=f"query {i}": page.fill("#q", text),
                "click": lambda: page.click("#go"),
            }
            for name, step in steps.items():
                await asyncio.sleep(think_s)
                started = time.perf_counter()
                await step()
                if i >= 3:
                    times[name].append((time.perf_counter() - started) * 1000)
        await context.close()
        await browser.close()
    return times


def _server(ws_url: str, action_input: str, tree: Path | None = None, recording: bool = True) -> StdioServerParameters:
    env = {**os.environ, "BROWX_ATTACH_CDP": ws_url, "BROWX_WORKSPACE": tempfile.mkdtemp(),
           "BROWX_ACTION_INPUT": action_input, "BROWX_PAGE_RECORDING": "on" if recording else "off"}
    if tree is not None:  # that checkout's package first on the path
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(tree), env.get("PYTHONPATH")) if p)
    return StdioServerParameters(command=sys.executable, args=["-m", "browx_actors", "serve"], env=env,
                                 cwd=str(tree) if tree is not None else None)


async def _round(client: Client, url: str, i: int, think_s: float, times: dict[str, list[float]]) -> dict:
    """One navigate, snapshot, fill, click; returns the snapshot envelope."""
    steps = {
        "navigate": ("navigate", {"session": "bench", "url": url}),
        "snapshot": ("snapshot", {"session": "bench"}),
        "fill": ("fill", {"session": "bench", "selector": "#q", "value": f"query {i}"}),
        "click": ("click", {"session": "bench", "selector": "#go"}),
    }
    snapshot: dict = {}
    for name, (tool, args) in steps.items():
        await trio.sleep(think_s)
        started = time.perf_counter()
        result = await client.call_tool(tool, args)
        elapsed = (time.perf_counter() - started) * 1000
        envelope = json.loads(result.content[0].text)
        if not envelope["ok"]:
            raise RuntimeError(f"{tool} failed: {envelope}")
        if name == "snapshot":
            snapshot = envelope
        if i >= 3:
            times[name].append(elapsed)
    return snapshot


async def _through_mcp(ws_url: str, url: str, think_s: float, against: Path | None, rounds: int,
                       blocks: int, recording_off: bool = False) -> tuple[dict[str, dict[str, list[float]]], dict]:
    """Every server configuration, one server at a time (two servers on one browser
    slow each other's navigations), in ``blocks`` blocks each, in the order
    A B (C), then (C) B A, and so on, so none gains from the browser and host warming
    up or slowing down under another."""
    modes = ("auto", "playwright") + (("against",) if against is not None else ()) + \
        (("recording-off",) if recording_off else ())
    times = {mode: {k: [] for k in TARGETS_MS} for mode in modes}
    last_snapshot: dict = {}
    order: list[str] = []
    for block in range(blocks):
        order += modes if block % 2 == 0 else modes[::-1]
    for mode in order:
        if mode == "against":
            params = _server(ws_url, "auto", against)
        elif mode == "recording-off":
            params = _server(ws_url, "auto", recording=False)
        else:
            params = _server(ws_url, mode)
        async with Client(params) as client:
            await client.call_tool("open_session", {"session": "bench"})
            for i in range(rounds // blocks + 3):
                snapshot = await _round(client, url, i, think_s, times[mode])
                if mode == "auto":
                    last_snapshot = snapshot
    return times, last_snapshot


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--think", type=float, default=0.0, metavar="MS",
                        help="pause before every step, on both sides (default 0: back to back)")
    parser.add_argument("--against", type=Path, metavar="DIR",
                        help="also measure the server of another checkout (before and after, one run)")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help=f"measured rounds per server (default {ROUNDS})")
    parser.add_argument("--blocks", type=int, default=2, help="blocks each server's rounds are split in (default 2)")
    parser.add_argument("--recording-off", action="store_true",
                        help="also measure the default server with BROWX_PAGE_RECORDING=off (recording on against off)")
    options = parser.parse_args()
    think_s, against, rounds, blocks = options.think / 1000, options.against, options.rounds, options.blocks
    with tempfile.TemporaryDirectory() as tmp, serve_directory(Path(tmp)) as base:
        _write_page(Path(tmp))
        url = f"{base}/links.html"

        async def launch_and_measure() -> tuple[dict, dict, dict, dict]:
            async with launch_chromium() as chromium:
                bare = await trio.to_thread.run_sync(asyncio.run, _bare(chromium.ws_url, url, think_s))
                measured, snapshot = await _through_mcp(chromium.ws_url, url, think_s, against, rounds, blocks,
                                                        options.recording_off)
                return bare, measured, snapshot

        bare, measured, snapshot = trio.run(launch_and_measure)
    mcp, via_playwright = measured["auto"], measured["playwright"]

    text = snapshot["snapshot"]
    links = text.count("link \"Item number")
    pacing = f"{think_s * 1000:g} ms think time before each step" if think_s else "back to back"
    print(f"# MCP latency, {rounds} rounds in {blocks} blocks (3 warm-up rounds each), page with a form and "
          f"200 links, {pacing}\n")
    print("| step | browx via stdio MCP median (p95) ms | same, BROWX_ACTION_INPUT=playwright | "
          "bare Playwright median (p95) ms | ratio to bare | target ms |")
    print("| --- | --- | --- | --- | --- | --- |")
    for step, target in TARGETS_MS.items():
        m_med, m_p95 = _summary(mcp[step])
        p_med, p_p95 = _summary(via_playwright[step])
        b_med, b_p95 = _summary(bare[step])
        mark = "ok" if m_med <= target else "over"
        print(f"| {step} | {m_med:.1f} ({m_p95:.1f}) | {p_med:.1f} ({p_p95:.1f}) | {b_med:.1f} ({b_p95:.1f}) | "
              f"{m_med / b_med:.2f}x | {target} ({mark}) |")
    if against is not None:
        before = measured["against"]
        print(f"\nBefore and after, the default configuration of each (before: {against}):\n")
        print("| step | before median (p95) ms | after median (p95) ms | after / before |")
        print("| --- | --- | --- | --- |")
        for step in TARGETS_MS:
            a_med, a_p95 = _summary(mcp[step])
            o_med, o_p95 = _summary(before[step])
            print(f"| {step} | {o_med:.1f} ({o_p95:.1f}) | {a_med:.1f} ({a_p95:.1f}) | {a_med / o_med:.2f} |")
    if options.recording_off:
        off = measured["recording-off"]
        print("\nConsole and network recording on (as shipped) and off (BROWX_PAGE_RECORDING=off), same run:\n")
        print("| step | recording on median (p95) ms | recording off median (p95) ms | on / off |")
        print("| --- | --- | --- | --- |")
        for step in TARGETS_MS:
            a_med, a_p95 = _summary(mcp[step])
            o_med, o_p95 = _summary(off[step])
            print(f"| {step} | {a_med:.1f} ({a_p95:.1f}) | {o_med:.1f} ({o_p95:.1f}) | {a_med / o_med:.2f} |")
    print(f"\nsnapshot: {len(text)} characters (target <= {SNAPSHOT_CHAR_TARGET}), "
          f"{links} of 200 links reffed, {text.count('[ref=')} refs in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
