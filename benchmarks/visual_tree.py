"""The visual tree through stdio MCP: a full capture against ``snapshot``, and a batch against
the same calls sent one by one.

One Chromium is launched here and the server attaches to it (``BROWX_ATTACH_CDP``). The
page is a shop listing of exactly 2,000 elements from ``<html>`` down (285 product cards
of seven elements each, a header with a heading, a status line). Two comparisons, each against a
baseline measured in the same run, alternating round by round:

1. **Capture.** ``ui.get_visual_tree {maxNodes: 20000}`` (every element, in full)
   against ``snapshot {maxNodes: 20000}`` on the same page, timed from the request
   written to the reply read back. Target: the capture within 2x of the snapshot. The
   same comparison inside the session (no MCP, no dispatch) says where a capture's time
   goes: the page agent's walk, the raw nodes, the payload, or the reply's transport.
2. **Batch.** An inspect-act-verify step, ``ui.query_nodes`` (``reuse``: the state of
   the latest capture), ``ui.perform_action`` (tap a card's button, with a reference
   taken before the step) and ``ui.wait`` (the status line names the item), sent as
   three MCP calls or as one ``tool.batch``. Target: the batch at most 0.5x the three
   calls' total. Measured on the 2,000-element page and on a small form page, because
   what a batch saves is the round trips, and how much of a step they are depends on
   how much work the step does.

Run: ``python -m benchmarks.visual_tree [--rounds N]``.
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
from typing import Any

import trio
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

from browx_actors import RuntimeConfig, open_runtime
from browx_actors.cdp import launch_chromium
from browx_actors.demo import serve_directory
from browx_actors.sessions.chromium.reading.dom_provider import DomProvider
from browx_actors.tools import validate_args
from browx_actors.tools.visual import VisualTreeArgs
from browx_actors.visualtree import operations
from browx_actors.visualtree.model import CaptureOptions

ROUNDS = 20
WARM_UP = 3
CAPTURE_TARGET = 2.0
BATCH_TARGET = 0.5
ELEMENTS = 2000
CARDS = 285

SHOP = """<!doctype html><html><head><title>Shop</title><style>
.card {{ display: inline-block; width: 220px; margin: 4px; padding: 6px; background: #fff; color: #222; }}
.price {{ color: rgb(0, 102, 204); }} .old {{ color: #999; text-decoration: line-through; }}
</style></head><body>
<header><h1>Shop</h1></header>
<p id="status" data-testid="status">Nothing added</p>
{cards}
<script>
document.addEventListener('click', (event) => {{
  const button = event.target.closest('button[data-item]');
  if (button) document.getElementById('status').textContent = 'Added item ' + button.dataset.item;
}});
</script></body></html>"""

CARD = """<div class="card" data-testid="card-{i}"><h3>Product {i}</h3><p>A fine thing, number {i}.</p>\
<span class="price">{i}.99</span><span class="old">{j}.99</span>\
<button type="button" data-testid="add-{i}" data-item="{i}">Add</button><a href="#card-{i}">Details</a></div>"""

FORM = """<!doctype html><html><head><title>Form</title></head><body>
<p id="status" data-testid="status">Nothing added</p>
<form><label>Name <input data-testid="name"></label>
<button type="button" data-testid="add-0" data-item="0">Add</button>
<button type="button" data-testid="add-1" data-item="1">Add</button></form>
<script>
document.addEventListener('click', (event) => {
  const button = event.target.closest('button[data-item]');
  if (button) document.getElementById('status').textContent = 'Added item ' + button.dataset.item;
});
</script></body></html>"""


def _write_pages(directory: Path) -> None:
    cards = "\n".join(CARD.format(i=i, j=i + 10) for i in range(CARDS))
    (directory / "shop.html").write_text(SHOP.format(cards=cards))
    (directory / "form.html").write_text(FORM)


def _median(samples: list[float]) -> float:
    return statistics.median(samples)


def _p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[max(0, int(len(ordered) * 0.95) - 1)]


def _server(ws_url: str) -> StdioServerParameters:
    env = {**os.environ, "BROWX_ATTACH_CDP": ws_url, "BROWX_WORKSPACE": tempfile.mkdtemp(),
           "BROWX_CAPABILITIES": ""}
    return StdioServerParameters(command=sys.executable, args=["-m", "browx_actors", "serve"], env=env)


async def _call(client: Client, tool: str, args: dict[str, Any]) -> tuple[dict[str, Any], float, int]:
    """The envelope, the milliseconds from request to reply, and the reply's size in characters."""
    started = time.perf_counter()
    result = await client.call_tool(tool, args)
    elapsed = (time.perf_counter() - started) * 1000
    text = result.content[0].text  # type: ignore[union-attr]
    envelope = json.loads(text)
    if envelope.get("ok") is not True:
        raise RuntimeError(f"{tool} {args} failed: {envelope}")
    return envelope, elapsed, len(text)


def _nodes(node: dict[str, Any]) -> int:
    return 1 + sum(_nodes(child) for child in node.get("children", []))


async def _capture_against_snapshot(client: Client, rounds: int) -> dict[str, Any]:
    times: dict[str, list[float]] = {"snapshot": [], "ui.get_visual_tree": []}
    sizes: dict[str, int] = {}
    nodes = 0
    for i in range(rounds + WARM_UP):
        order = ("snapshot", "ui.get_visual_tree") if i % 2 == 0 else ("ui.get_visual_tree", "snapshot")
        for tool in order:
            envelope, elapsed, size = await _call(client, tool, {"session": "bench", "maxNodes": 20_000})
            if i >= WARM_UP:
                times[tool].append(elapsed)
            sizes[tool] = size
            if tool == "ui.get_visual_tree":
                nodes = _nodes(envelope["root"])
                if nodes != ELEMENTS or envelope.get("warnings"):
                    raise RuntimeError(f"the capture holds {nodes} nodes, not {ELEMENTS}: {envelope.get('warnings')}")
    return {"times": times, "sizes": sizes, "nodes": nodes}


def _step_calls(reference: dict[str, Any], item: int) -> list[dict[str, Any]]:
    return [
        {"tool": "ui.query_nodes", "arguments": {"session": "bench", "automationId": "status", "reuse": True}},
        {"tool": "ui.perform_action", "arguments": {"session": "bench", "reference": reference, "action": "tap"}},
        {"tool": "ui.wait", "arguments": {"session": "bench", "text": f"Added item {item}", "textMatch": "exact",
                                          "condition": "exists"}},
    ]


async def _batch_against_calls(client: Client, url: str, items: int, rounds: int) -> dict[str, list[float]]:
    await _call(client, "navigate", {"session": "bench", "url": url})
    times: dict[str, list[float]] = {"separate": [], "batch": []}
    for i in range(rounds + WARM_UP):
        for way in (("separate", "batch") if i % 2 == 0 else ("batch", "separate")):
            item = (2 * i + (way == "batch")) % items
            found, _, _ = await _call(client, "ui.query_nodes", {"session": "bench", "automationId": f"add-{item}"})
            calls = _step_calls(found["matches"][0]["reference"], item)
            started = time.perf_counter()
            if way == "batch":
                batch, _, _ = await _call(client, "tool.batch", {"calls": calls})
                if batch["failed"]:
                    raise RuntimeError(f"the batch failed: {batch['warnings']}")
            else:
                for call in calls:
                    await _call(client, call["tool"], call["arguments"])
            if i >= WARM_UP:
                times[way].append((time.perf_counter() - started) * 1000)
    return times


async def _in_process(ws_url: str, url: str, rounds: int) -> dict[str, list[float]]:
    """Inside the session, alternating: the snapshot's page-agent call, the DOM provider's
    capture (the agent's walk over raw CDP and the raw nodes), the whole
    ``ui.get_visual_tree`` flow (capture, snapshot book, payload); no MCP, no dispatch."""
    times: dict[str, list[float]] = {"snapshot": [], "capture": [], "flow": []}
    config = RuntimeConfig(workspace=Path(tempfile.mkdtemp()), attach_cdp=ws_url)
    async with open_runtime(config=config) as runtime:
        await runtime.call_tool("navigate", {"url": url})

        async def measure(session: Any, args: dict[str, Any]) -> None:
            provider = DomProvider(session)
            # The arguments as the dispatch hands them over: checked, defaults filled in.
            full = VisualTreeArgs.of(validate_args(VisualTreeArgs.params(), {"maxNodes": 20_000}))
            steps = {
                "snapshot": lambda: session.agent("snapshot", {"maxNodes": 20_000}),
                "capture": lambda: provider.capture(CaptureOptions()),
                "flow": lambda: operations.get_tree(provider, session.visual_snapshots, full),
            }
            for i in range(rounds + WARM_UP):
                for name, step in (steps.items() if i % 2 == 0 else reversed(steps.items())):
                    started = time.perf_counter()
                    await step()
                    if i >= WARM_UP:
                        times[name].append((time.perf_counter() - started) * 1000)

        await runtime.call_session("default", "bench", measure, {}, timeout=600)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=ROUNDS, help=f"measured rounds per comparison ({ROUNDS})")
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory() as tmp, serve_directory(Path(tmp)) as base:
        _write_pages(Path(tmp))

        async def measure() -> tuple[dict[str, Any], dict[str, list[float]], dict[str, list[float]], dict]:
            async with launch_chromium() as chromium:
                async with Client(_server(chromium.ws_url)) as client:
                    await _call(client, "open_session", {"session": "bench"})
                    await _call(client, "navigate", {"session": "bench", "url": f"{base}/shop.html"})
                    capture = await _capture_against_snapshot(client, rounds)
                    shop = await _batch_against_calls(client, f"{base}/shop.html", CARDS, rounds)
                    form = await _batch_against_calls(client, f"{base}/form.html", 2, rounds)
                inside = await _in_process(chromium.ws_url, f"{base}/shop.html", rounds)
                return capture, shop, form, inside

        capture, shop, form, inside = trio.run(measure)

    times, sizes = capture["times"], capture["sizes"]
    snap, tree = _median(times["snapshot"]), _median(times["ui.get_visual_tree"])
    print(f"# Visual tree through stdio MCP, {rounds} rounds each after {WARM_UP} warm-up, alternating\n")
    print(f"## A {ELEMENTS:,}-element page captured in full ({capture['nodes']:,} nodes)\n")
    print("| call | median ms | p95 ms | reply characters |")
    print("| --- | ---: | ---: | ---: |")
    for tool in ("snapshot", "ui.get_visual_tree"):
        print(f"| `{tool}` | {_median(times[tool]):.1f} | {_p95(times[tool]):.1f} | {sizes[tool]:,} |")
    verdict = "met" if tree / snap <= CAPTURE_TARGET else "missed"
    print(f"\nthrough MCP, ui.get_visual_tree / snapshot: **{tree / snap:.2f}x** (target <= {CAPTURE_TARGET}x: "
          f"{verdict})\n")
    print("Inside the session (no MCP, no dispatch), alternating:\n")
    print("| step | median ms | p95 ms | / snapshot |")
    print("| --- | ---: | ---: | ---: |")
    base_ms = _median(inside["snapshot"])
    labels = {"snapshot": "`snapshot`'s page-agent call", "capture": "the DOM provider's capture (agent walk, raw "
              "nodes)", "flow": "the whole `ui.get_visual_tree` flow (capture, book, payload)"}
    for name, label in labels.items():
        print(f"| {label} | {_median(inside[name]):.1f} | {_p95(inside[name]):.1f} | "
              f"{_median(inside[name]) / base_ms:.2f}x |")
    for name, measured in (("the 2,000-element page", shop), ("a small form page", form)):
        separate, batch = _median(measured["separate"]), _median(measured["batch"])
        verdict = "met" if batch / separate <= BATCH_TARGET else "missed"
        print(f"\n## query + act + wait on {name}\n")
        print("| way | median ms | p95 ms |")
        print("| --- | ---: | ---: |")
        print(f"| three MCP calls | {separate:.1f} | {_p95(measured['separate']):.1f} |")
        print(f"| one `tool.batch` | {batch:.1f} | {_p95(measured['batch']):.1f} |")
        print(f"\nbatch / separate: **{batch / separate:.2f}x** (target <= {BATCH_TARGET}x: {verdict})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
