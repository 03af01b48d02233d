"""The input tools of issue 17 as an agent feels them, through stdio MCP, each against a
baseline taken in the same run on the same browser.

One Chromium is launched here; the server attaches to it (``BROWX_ATTACH_CDP``), and a
bare CDP session of this process opens its own tab on it for the wire's floor. Rounds
alternate between the paths, so neither gains from the host warming up or slowing down.

- **A form in one call.** ``fill_form`` with six fields (three text fields, a checkbox,
  a radio, a ``<select>``) against the same six changes made by six single calls
  (``fill`` x3, ``click`` x2, ``select``), each settling and reporting as actions do.
  Every round changes every field, so neither path skips one.
- **A press and a release.** ``mouse_down`` + ``mouse_up`` (two calls) and ``click``
  (one) at a point, against the same press and release written by a bare CDP session
  (``Input.dispatchMouseEvent`` twice, back to back): what the tool path adds to the
  input itself.
- **Pacing.** ``gesture_swipe`` and a paced ``mouse_move`` asked for 300 ms: the span
  the page saw between its first and last pointer event (``performance.now()``), the
  moves it received against those planned, and the whole call's time above 300 ms.

Run: ``python -m benchmarks.input_tools [--rounds N]``; the host's load average is printed
with the numbers (the machine is shared: read the ratios, not the absolute figures).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import trio
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

from browx_actors.cdp import launch_chromium, open_cdp_connection
from browx_actors.demo import serve_directory

ROUNDS = 20
WARMUP = 3
PACED_MS = 300

PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>input bench</title>
<style>html, body { margin: 0 } form { height: 180px }
#pad { position: absolute; left: 0; top: 200px; width: 800px; height: 300px; background: #eef; touch-action: none }
</style></head><body>
<form aria-label="Profile">
<label>First <input id="t1"></label> <label>Last <input id="t2"></label> <label>City <input id="t3"></label>
<label><input type="checkbox" id="c1"> Agree</label>
<label><input type="radio" name="r" id="r1"> One</label> <label><input type="radio" name="r" id="r2"> Two</label>
<label>Plan <select id="s1"><option value="a">Alpha</option><option value="b">Beta</option></select></label>
</form>
<div id="pad" role="application" aria-label="pad"></div>
<script>
  window.log = [];
  const pad = document.getElementById("pad");
  for (const type of ["pointerdown", "pointermove", "pointerup"]) {
    pad.addEventListener(type, (e) => window.log.push([e.type, e.pointerType, performance.now()]));
  }
</script></body></html>"""


def _summary(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, math.ceil(len(ordered) * 0.95) - 1)]


def _cell(samples: list[float]) -> str:
    median, p95 = _summary(samples)
    return f"{median:.1f} ({p95:.1f})"


class _Server:
    """The server over stdio MCP: one call, timed end to end as the host sees it."""

    def __init__(self, client: Client) -> None:
        self.client = client

    async def call(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        result = await self.client.call_tool(tool, {"session": "bench", **args})
        envelope = json.loads(result.content[0].text)
        if not envelope["ok"]:
            raise RuntimeError(f"{tool} failed: {envelope}")
        return envelope

    async def timed(self, calls: list[tuple[str, dict[str, Any]]]) -> tuple[float, list[dict[str, Any]]]:
        started = time.perf_counter()
        out = [await self.call(tool, args) for tool, args in calls]
        return (time.perf_counter() - started) * 1000, out


def _form_round(i: int) -> tuple[list[tuple[str, dict[str, Any]]], list[tuple[str, dict[str, Any]]]]:
    """Pass ``i``'s changes, as one fill_form and as single calls: every field differs
    from pass ``i - 1``'s (the checkbox alternates, and so do the radio and the option),
    so a click that toggles the checkbox sets it as fill_form would."""
    text = [f"value {i} {k}" for k in range(3)]
    checked = i % 2 == 0
    radio = "#r1" if i % 2 == 0 else "#r2"
    option = "Alpha" if i % 2 == 0 else "Beta"
    fields = [{"selector": f"#t{k + 1}", "value": text[k]} for k in range(3)]
    fields += [{"selector": "#c1", "value": checked}, {"selector": radio, "value": True},
               {"selector": "#s1", "value": option}]
    singles: list[tuple[str, dict[str, Any]]] = [("fill", {"selector": f"#t{k + 1}", "value": text[k]})
                                                 for k in range(3)]
    singles += [("click", {"selector": "#c1"}), ("click", {"selector": radio}),
                ("select", {"selector": "#s1", "values": [option]})]
    return [("fill_form", {"fields": fields})], singles


async def _page_span(server: _Server, pointer_type: str) -> tuple[float, int]:
    """The span between the page's first and last pointer event of that type, and the
    moves it saw; the log is cleared."""
    log = (await server.call("eval_js", {"expr": "window.log.splice(0)"}))["value"]
    seen = [entry for entry in log if entry[1] == pointer_type]
    moves = sum(1 for entry in seen if entry[0] == "pointermove")
    return (seen[-1][2] - seen[0][2]) if seen else 0.0, moves


async def _measure(ws_url: str, url: str, rounds: int) -> dict[str, Any]:
    results: dict[str, list[float]] = {name: [] for name in (
        "fill_form", "singles", "down_up", "click", "bare_cdp", "swipe_call", "swipe_span", "move_call", "move_span")}
    moves: dict[str, list[int]] = {"swipe": [], "move": []}
    planned: dict[str, int] = {}
    env = {**os.environ, "BROWX_ATTACH_CDP": ws_url, "BROWX_WORKSPACE": tempfile.mkdtemp(),
           "BROWX_CAPABILITIES": "eval"}
    params = StdioServerParameters(command=sys.executable, args=["-m", "browx_actors", "serve"], env=env)
    async with open_cdp_connection(ws_url) as conn, Client(params) as client:
        target_id = (await conn.send("Target.createTarget", {"url": url}))["targetId"]
        bare = await conn.attach(target_id)
        await bare.send("Runtime.evaluate", {"expression": "document.readyState", "returnByValue": True})
        server = _Server(client)
        await server.call("open_session", {})
        await server.call("navigate", {"url": url})

        async def bare_press() -> None:
            point = {"x": 400, "y": 350, "button": "left", "clickCount": 1}
            await bare.send_sequence([("Input.dispatchMouseEvent", {"type": "mousePressed", **point, "buttons": 1}),
                                      ("Input.dispatchMouseEvent", {"type": "mouseReleased", **point,
                                                                    "buttons": 0})])

        async def timed_bare(call: Callable[[], Awaitable[None]]) -> float:
            started = time.perf_counter()
            await call()
            return (time.perf_counter() - started) * 1000

        for i in range(rounds + WARMUP):
            keep = i >= WARMUP
            # Each pass sets the values of its own index, so every field changes in each.
            paths = ("fill_form", "singles") if i % 2 == 0 else ("singles", "fill_form")
            for index, name in enumerate(paths, 2 * i):
                one, singles = _form_round(index)
                elapsed, _ = await server.timed(one if name == "fill_form" else singles)
                if keep:
                    results[name].append(elapsed)

            at = {"coords": {"x": 400, "y": 350}}
            order = ["down_up", "click", "bare_cdp"]
            for name in order if i % 2 == 0 else order[::-1]:
                if name == "down_up":
                    elapsed, _ = await server.timed([("mouse_down", at), ("mouse_up", {})])
                elif name == "click":
                    elapsed, _ = await server.timed([("click", at)])
                else:
                    elapsed = await timed_bare(bare_press)
                if keep:
                    results[name].append(elapsed)
            await server.call("eval_js", {"expr": "window.log.length = 0"})

            elapsed, (swiped,) = await server.timed([("gesture_swipe", {"from": {"x": 100, "y": 350},
                                                                        "to": {"x": 700, "y": 350},
                                                                        "durationMs": PACED_MS})])
            span, seen = await _page_span(server, "touch")
            planned["swipe"] = swiped["swipe"]["moves"]
            await server.call("mouse_move", {"coords": {"x": 100, "y": 300}})
            await server.call("eval_js", {"expr": "window.log.length = 0"})
            moved_ms, (moved,) = await server.timed([("mouse_move", {"coords": {"x": 700, "y": 300},
                                                                     "durationMs": PACED_MS})])
            move_span, move_seen = await _page_span(server, "mouse")
            planned["move"] = moved["moves"]
            if keep:
                results["swipe_call"].append(elapsed)
                results["swipe_span"].append(span)
                moves["swipe"].append(seen)
                results["move_call"].append(moved_ms)
                results["move_span"].append(move_span)
                moves["move"].append(move_seen)
        await conn.send("Target.closeTarget", {"targetId": target_id})
    return {"times": results, "moves": moves, "planned": planned}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=ROUNDS, help=f"measured rounds (default {ROUNDS})")
    options = parser.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp, serve_directory(Path(tmp)) as base:
        (Path(tmp) / "input.html").write_text(PAGE)

        async def run() -> dict[str, Any]:
            async with launch_chromium() as chromium:
                return await _measure(chromium.ws_url, f"{base}/input.html", options.rounds)

        measured = trio.run(run)
    load_after = os.getloadavg()
    t = measured["times"]
    print(f"# Input tools through stdio MCP, {options.rounds} rounds after {WARMUP} warm-up, alternating\n")
    print(f"load average before {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}, "
          f"after {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f} (2 cores)\n")
    print("| path | median (p95) ms | ratio of medians |")
    print("| --- | --- | --- |")
    form, singles = statistics.median(t["fill_form"]), statistics.median(t["singles"])
    print(f"| fill_form, 6 fields, one call | {_cell(t['fill_form'])} | {form / singles:.2f} of the six calls |")
    print(f"| fill x3, click x2, select: six calls | {_cell(t['singles'])} | 1 |")
    bare = statistics.median(t["bare_cdp"])
    print(f"| mouse_down + mouse_up, two calls | {_cell(t['down_up'])} | "
          f"{statistics.median(t['down_up']) / bare:.1f}x bare CDP |")
    print(f"| click at coords, one call | {_cell(t['click'])} | {statistics.median(t['click']) / bare:.1f}x bare CDP |")
    print(f"| bare CDP press + release, back to back | {_cell(t['bare_cdp'])} | 1 |")
    print(f"\nPacing, {PACED_MS} ms asked for:\n")
    print("| gesture | span the page saw, median (p95) ms | span / asked | moves seen / planned | "
          "call above the gesture, median ms |")
    print("| --- | --- | --- | --- | --- |")
    for name, call, span in (("gesture_swipe", "swipe_call", "swipe_span"),
                             ("mouse_move durationMs", "move_call", "move_span")):
        key = "swipe" if name == "gesture_swipe" else "move"
        seen = statistics.median(measured["moves"][key])
        print(f"| {name} | {_cell(t[span])} | {statistics.median(t[span]) / PACED_MS:.3f} | "
              f"{seen:g} / {measured['planned'][key]} | {statistics.median(t[call]) - PACED_MS:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
