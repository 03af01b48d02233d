"""The firefox engine's step latency through stdio MCP, against bare BiDi and the chromium engine.

Three sides in one run, on the same page (a form and 200 links, served on loopback):

- **bare BiDi**, the floor: a Firefox launched here, driven with BiDi's own commands and
  nothing else (``browsingContext.navigate`` into documents that get the page agent from
  a preload script, as the engine's do; one ``script.callFunction`` running the agent's
  snapshot in a sandbox; focus and select, then ``input.performActions`` typing;
  ``input.performActions`` clicking at a point measured once), no MCP, no envelope, no
  actionability check, no settle;
- **browx firefox**: the server over stdio, a session with ``engine: firefox`` (its own
  Firefox: a BiDi endpoint takes one session, so it cannot share the floor's);
- **browx chromium**: the same server and steps on its default engine, for reference.

Each step is timed end to end as an agent host sees it. The target is each firefox step
within 1.5x of the floor.

Run: ``python -m benchmarks.firefox [--rounds N]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import trio
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

from benchmarks.mcp_latency import _write_page
from browx_actors.bidi import launch_firefox, open_bidi_connection
from browx_actors.demo import serve_directory
from browx_actors.sessions.chromium.agent.pageagent import AGENT_KEY, AGENT_SOURCE

ROUNDS = 30
WARMUP = 3
STEPS = ("navigate", "snapshot", "fill", "click")
TARGET_RATIO = 1.5

_SNAPSHOT = f"() => JSON.stringify(window[{AGENT_KEY!r}].snapshot({{}}))"
_FOCUS = "() => { const el = document.querySelector('#q'); el.focus(); el.select(); }"
_POINT = "() => { const r = document.querySelector('#go').getBoundingClientRect(); return [r.x + r.width / 2, " \
         "r.y + r.height / 2]; }"


def _median_p95(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[max(0, int(len(ordered) * 0.95) - 1)]


async def _timed(times: dict[str, list[float]], step: str, keep: bool, fn: Callable[[], Awaitable[object]]) -> None:
    started = time.perf_counter()
    await fn()
    if keep:
        times[step].append((time.perf_counter() - started) * 1000)


async def _bare(url: str, rounds: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {step: [] for step in STEPS}
    async with launch_firefox() as firefox, open_bidi_connection(firefox.ws_url) as bidi:
        await bidi.send("session.new", {"capabilities": {}}, timeout=60)
        user_context = (await bidi.send("browser.createUserContext", {}))["userContext"]
        context = (await bidi.send("browsingContext.create", {"type": "tab", "userContext": user_context}))["context"]
        await bidi.send("browsingContext.setViewport", {"context": context,
                                                        "viewport": {"width": 1280, "height": 720}})
        sandbox = {"context": context, "sandbox": "bench"}
        # The agent goes into every new document, as the engine's preload script puts it:
        # a snapshot needs it there, so the floor's navigation pays for it too.
        await bidi.send("script.addPreloadScript", {"functionDeclaration": "() => {" + AGENT_SOURCE + "}",
                                                    "sandbox": "bench", "userContexts": [user_context]})

        async def call(fn: str) -> object:
            return await bidi.send("script.callFunction", {"functionDeclaration": fn, "target": sandbox,
                                                           "awaitPromise": True})

        for i in range(rounds + WARMUP):
            keep = i >= WARMUP
            await _timed(times, "navigate", keep, lambda: bidi.send(
                "browsingContext.navigate", {"context": context, "url": url, "wait": "complete"}))
            await _timed(times, "snapshot", keep, lambda: call(_SNAPSHOT))
            typed = {"context": context, "actions": [{"type": "key", "id": "kb", "actions": [
                a for ch in f"query {i}" for a in ({"type": "keyDown", "value": ch}, {"type": "keyUp", "value": ch})]}]}

            async def fill(typed: dict[str, object] = typed) -> None:
                await call(_FOCUS)
                await bidi.send("input.performActions", typed)

            await _timed(times, "fill", keep, fill)
            point = (await call(_POINT))["result"]["value"]  # type: ignore[index]
            x, y = (round(v["value"]) for v in point)
            clicked = {"context": context, "actions": [{"type": "pointer", "id": "mouse", "actions": [
                {"type": "pointerMove", "x": x, "y": y, "origin": "viewport"},
                {"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}]}]}
            await _timed(times, "click", keep, lambda clicked=clicked: bidi.send("input.performActions", clicked))
    return times


async def _through_mcp(url: str, engine: str, rounds: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {step: [] for step in STEPS}
    env = {**os.environ, "BROWX_WORKSPACE": tempfile.mkdtemp()}
    params = StdioServerParameters(command=sys.executable, args=["-m", "browx_actors", "serve"], env=env)
    async with Client(params) as client:
        async def call(tool: str, args: dict[str, object]) -> None:
            result = await client.call_tool(tool, {"session": "bench", **args})
            envelope = json.loads(result.content[0].text)
            if not envelope["ok"]:
                raise RuntimeError(f"{engine} {tool} failed: {envelope}")

        await call("open_session", {"engine": engine})
        for i in range(rounds + WARMUP):
            keep = i >= WARMUP
            await _timed(times, "navigate", keep, lambda: call("navigate", {"url": url}))
            await _timed(times, "snapshot", keep, lambda: call("snapshot", {}))
            await _timed(times, "fill", keep, lambda i=i: call("fill", {"selector": "#q", "value": f"query {i}"}))
            await _timed(times, "click", keep, lambda: call("click", {"selector": "#go"}))
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=ROUNDS, help=f"measured rounds per side (default {ROUNDS})")
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory() as tmp, serve_directory(Path(tmp)) as base:
        _write_page(Path(tmp))
        url = f"{base}/links.html"

        async def measure() -> tuple[dict[str, list[float]], ...]:
            bare = await _bare(url, rounds)
            firefox = await _through_mcp(url, "firefox", rounds)
            chromium = await _through_mcp(url, "chromium", rounds)
            return bare, firefox, chromium

        bare, firefox, chromium = trio.run(measure)
    print(f"# firefox engine, {rounds} rounds per side ({WARMUP} warm-up rounds each), page with a form and "
          "200 links, back to back\n")
    print("| step | bare BiDi median (p95) ms | browx firefox median (p95) ms | ratio to bare | "
          "browx chromium median (p95) ms | within 1.5x |")
    print("| --- | --- | --- | --- | --- | --- |")
    worst = 0.0
    for step in STEPS:
        b, bp = _median_p95(bare[step])
        f, fp = _median_p95(firefox[step])
        c, cp = _median_p95(chromium[step])
        ratio = f / b if b else float("inf")
        worst = max(worst, ratio)
        print(f"| {step} | {b:.1f} ({bp:.1f}) | {f:.1f} ({fp:.1f}) | {ratio:.2f}x | {c:.1f} ({cp:.1f}) | "
              f"{'yes' if ratio <= TARGET_RATIO else 'no'} |")
    print(f"\nworst firefox step: {worst:.2f}x the bare BiDi floor (target {TARGET_RATIO}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
