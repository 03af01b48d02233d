"""What a page's frames cost a visual-tree capture: the same content in frames and inline.

A page of ``--frames`` iframes (every other one served from a second loopback server as
``localhost``, another site, so Chromium runs it out of process), each holding a small
ad (a heading, a paragraph, a button, a link), is captured with ``ui.get_visual_tree``
against a page with the same ads inline, alternating round by round, through the
library (no MCP: the reply is small either way, and what differs is the work of reading
the frames). ``snapshot`` of both pages rides along as a reference: it stitches the
same frames into its text.

Run: ``python -m benchmarks.visual_frames [--frames N] [--rounds N]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import trio

from browx_actors import RuntimeConfig, open_runtime
from browx_actors.cdp import launch_chromium
from browx_actors.demo import serve_directory

ROUNDS = 30
WARM_UP = 3
FRAMES = 10
AD = "<h2>Ad</h2><p>Buy things</p><button>Buy</button><a href='#more'>More</a>"


def _write_pages(directory: Path, base: str, other: str, frames: int) -> None:
    (directory / "ad.html").write_text(f"<!doctype html><body>{AD}</body>")
    holders = "".join(f"<iframe src='{other if i % 2 else base}/ad.html?{i}' width=220 height=120></iframe>"
                      for i in range(frames))
    (directory / "framed.html").write_text(f"<!doctype html><body><h1>Page</h1>{holders}</body>")
    inline = "".join(f"<div>{AD}</div>" for _ in range(frames))
    (directory / "inline.html").write_text(f"<!doctype html><body><h1>Page</h1>{inline}</body>")


def _count(node: dict[str, Any]) -> int:
    return 1 + sum(_count(child) for child in node.get("children", ()))


async def _measure(ws_url: str, base: str, frames: int, rounds: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {}
    config = RuntimeConfig(workspace=Path(tempfile.mkdtemp()), attach_cdp=ws_url)
    async with open_runtime(config=config) as runtime:
        for page in ("inline", "framed"):
            await runtime.call_tool("open_session", {"session": page})
            await runtime.call_tool("navigate", {"session": page, "url": f"{base}/{page}.html"})
            tree = await runtime.call_tool("ui.get_visual_tree", {"session": page})
            buttons = sum(1 for line in (await runtime.call_tool("snapshot", {"session": page}))["snapshot"]
                          .splitlines() if 'button "Buy"' in line)
            if tree.get("warnings") or buttons != frames:
                raise RuntimeError(f"{page}: {buttons} of {frames} ads in the snapshot, {tree.get('warnings')}")
            print(f"{page}: {_count(tree['root'])} nodes in the visual tree")
        for i in range(rounds + WARM_UP):
            for page in (("inline", "framed") if i % 2 == 0 else ("framed", "inline")):
                for tool in ("ui.get_visual_tree", "snapshot"):
                    started = time.perf_counter()
                    envelope = await runtime.call_tool(tool, {"session": page})
                    elapsed = (time.perf_counter() - started) * 1000
                    if envelope.get("ok") is not True:
                        raise RuntimeError(f"{tool} on {page}: {envelope}")
                    if i >= WARM_UP:
                        times.setdefault(f"{tool} {page}", []).append(elapsed)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=FRAMES)
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, serve_directory(Path(tmp)) as base, \
            serve_directory(Path(tmp)) as second:
        _write_pages(Path(tmp), base, second.replace("127.0.0.1", "localhost"), args.frames)

        async def measure() -> dict[str, list[float]]:
            async with launch_chromium() as chromium:
                return await _measure(chromium.ws_url, base, args.frames, args.rounds)

        times = trio.run(measure)
    print(f"\n# {args.frames} ads in frames (half out of process) against the same inline, "
          f"{args.rounds} rounds after {WARM_UP} warm-up, alternating\n")
    print("| call | inline median ms | framed median ms | framed / inline |")
    print("| --- | ---: | ---: | ---: |")
    for tool in ("ui.get_visual_tree", "snapshot"):
        inline, framed = statistics.median(times[f"{tool} inline"]), statistics.median(times[f"{tool} framed"])
        print(f"| `{tool}` | {inline:.1f} | {framed:.1f} | {framed / inline:.1f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
