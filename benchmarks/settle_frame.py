"""What waiting for the frame costs continuous input, and what it buys.

Chromium hands a wheel turn, or a move, to the page's listeners in the animation frame
after the browser acked it, so a result read one task turn after the ack misses what
those listeners did. Continuous input (``mouse_wheel``, ``mouse_move``, ``touch_move``)
now settles after that frame. This measures both sides, through stdio MCP, on a server
attached to a Chromium launched here:

* the cost: ``mouse_wheel`` and ``mouse_move`` on a page whose listeners do nothing,
  against ``click`` on the same page (which waits for no frame), each timed end to end;
* the gain: ``mouse_wheel`` over a list whose passive wheel listener loads one more row
  (an infinite scroll): is the row in that call's ``structure.appeared``?

``--against DIR`` also measures another checkout's server (``git archive <commit> | tar
-x -C DIR``) in the same run, blocks ordered A B B A.

Run: ``python -m benchmarks.settle_frame [--rounds N] [--against DIR]``.
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

from browx_actors.cdp import launch_chromium
from browx_actors.demo import serve_directory

ROUNDS = 20
STEPS = ("click", "mouse_move", "mouse_wheel still", "mouse_wheel loads a row")

PAGE = """<!doctype html><html><head><title>frames</title><style>
body { margin: 0; } #still { position: absolute; left: 0; top: 0; width: 300px; height: 200px; overflow: auto; }
#still div { height: 5000px; } #feed { position: absolute; left: 320px; top: 0; width: 300px; height: 200px;
overflow: auto; } #feed ul { height: 5000px; margin: 0; }
</style></head><body>
<div id="still" role="region" aria-label="still"><div></div></div>
<div id="feed" role="region" aria-label="feed"><ul id="rows"></ul></div>
<script>
let n = 0;
document.getElementById('feed').addEventListener('wheel', () => {
  const li = document.createElement('li');
  li.innerHTML = '<button>Row ' + (++n) + '</button>';
  document.getElementById('rows').append(li);
}, { passive: true });
</script></body></html>"""


def _server(ws_url: str, tree: Path | None) -> StdioServerParameters:
    env = {**os.environ, "BROWX_ATTACH_CDP": ws_url, "BROWX_WORKSPACE": tempfile.mkdtemp()}
    if tree is not None:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(tree), env.get("PYTHONPATH")) if p)
    return StdioServerParameters(command=sys.executable, args=["-m", "browx_actors", "serve"], env=env,
                                 cwd=str(tree) if tree is not None else None)


async def _timed(client: Client, tool: str, args: dict) -> tuple[float, dict]:
    started = time.perf_counter()
    result = await client.call_tool(tool, {"session": "bench", **args})
    elapsed = (time.perf_counter() - started) * 1000
    envelope = json.loads(result.content[0].text)
    if not envelope["ok"]:
        raise RuntimeError(f"{tool} failed: {envelope}")
    return elapsed, envelope


def _empty() -> dict[str, list]:
    return {**{step: [] for step in STEPS}, "seen": []}


async def _measure(ws_url: str, url: str, tree: Path | None, rounds: int, out: dict[str, list]) -> None:
    async with Client(_server(ws_url, tree)) as client:
        await client.call_tool("open_session", {"session": "bench"})
        await client.call_tool("navigate", {"session": "bench", "url": url})
        for i in range(rounds + 2):
            x = 20 + (i % 2) * 40  # a move that moves
            samples = {
                "click": await _timed(client, "click", {"coords": {"x": 100, "y": 100}}),
                "mouse_move": await _timed(client, "mouse_move", {"coords": {"x": x, "y": 50}}),
                "mouse_wheel still": await _timed(client, "mouse_wheel", {"coords": {"x": 100, "y": 100},
                                                                          "deltaY": 40 if i % 2 else -40}),
                "mouse_wheel loads a row": await _timed(client, "mouse_wheel", {"coords": {"x": 400, "y": 100},
                                                                                "deltaY": 40}),
            }
            if i < 2:
                continue
            for step, (ms, _) in samples.items():
                out[step].append(ms)
            appeared = (samples["mouse_wheel loads a row"][1].get("structure") or {}).get("appeared") or []
            out["seen"].append(any(node.get("name", "").startswith("Row ") for node in appeared))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=ROUNDS, help=f"measured rounds (default {ROUNDS})")
    parser.add_argument("--against", type=Path, metavar="DIR", help="also measure another checkout's server")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, serve_directory(Path(tmp)) as base:
        (Path(tmp) / "frames.html").write_text(PAGE)
        url = f"{base}/frames.html"

        async def run() -> tuple[dict, dict | None]:
            after, before = _empty(), _empty() if options.against is not None else None
            trees: list[Path | None] = [None, options.against, options.against, None]
            if options.against is None:
                trees = [None, None]
            async with launch_chromium() as chromium:
                for tree in trees:
                    into = after if tree is None else before
                    assert into is not None
                    await _measure(chromium.ws_url, url, tree, max(1, options.rounds // 2), into)
            return after, before

        after, before = trio.run(run)
    print(f"# Continuous input through stdio MCP, {options.rounds} rounds in blocks "
          f"{'A B B A' if before else 'A A'} (2 warm-up rounds each)\n")
    print("| step | median (p95) ms | " + ("before: median (p95) ms | after / before |" if before else ""))
    print("| --- | --- | " + ("--- | --- |" if before else ""))

    def cell(samples: list[float]) -> str:
        ordered = sorted(samples)
        return f"{statistics.median(ordered):.1f} ({ordered[max(0, int(len(ordered) * 0.95) - 1)]:.1f})"

    for step in STEPS:
        row = f"| {step} | {cell(after[step])} |"
        if before:
            row += f" {cell(before[step])} | {statistics.median(after[step]) / statistics.median(before[step]):.2f} |"
        print(row)
    seen = f"{sum(after['seen'])}/{len(after['seen'])}"
    if before:
        seen += f" (before: {sum(before['seen'])}/{len(before['seen'])})"
    print(f"\nthe row the wheel loaded, in that wheel's structure.appeared: {seen}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
