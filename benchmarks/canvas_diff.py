"""canvas_diff against its memory-bound floor, measured in the same run.

Two real 1280x720 ``2d-imagedata`` captures of a canvas (noise, so nothing is
trivially compressible or equal), taken from headless Chromium before and after
``gesture_chain`` draws a short stroke (a small change), are diffed three ways:

- floor: what any diff of these inputs must do at least: decode the two base64
  strings and ``numpy.array_equal`` the buffers;
- ``canvas_diff`` with ``beforeBase64`` / ``afterBase64`` through ``Runtime.call_tool``
  (the full dispatch path: validation, gate, handler, envelope);
- ``canvas_diff`` with ``beforeId`` / ``afterId`` (captures kept by the session; one
  actor hop to fetch them, no decoding).

The three are sampled in alternating order so drift lands on all of them. Targets:
base64 path within 1.3x of the floor, by-id path under 3 ms.

A second table answers whether base64 decoding belongs in a worker thread: it times
decoding both inputs inline (back to back, and with a checkpoint between them) and
through ``trio.to_thread``, while a heartbeat task records the longest stall of the
Trio loop. ``binascii`` holds the GIL while it decodes, so a thread cannot give the
loop that time back; it only adds the hop.

Run from the repo root: ``python -m benchmarks.canvas_diff``. Nothing is asserted.
"""

from __future__ import annotations

import base64
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import numpy as np
import trio

from browx_actors import RuntimeConfig, open_runtime
from browx_actors.demo import serve_directory

ROUNDS = 40
WARMUP = 3
TARGET_RATIO = 1.3
TARGET_BY_ID_MS = 3.0

PAGE = """<!doctype html><html><head><title>noise</title>
<style>body { margin: 0; } canvas { display: block; }</style></head><body>
<canvas id="c" width="1280" height="720"></canvas>
<script>
  const c = document.getElementById('c'), ctx = c.getContext('2d');
  const img = ctx.createImageData(1280, 720);
  let seed = 12345;
  for (let i = 0; i < img.data.length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    img.data[i] = (i & 3) === 3 ? 255 : seed >> 16 & 255;
  }
  ctx.putImageData(img, 0, 0);
  ctx.strokeStyle = '#ff0000'; ctx.lineWidth = 6; ctx.lineCap = 'round';
  let down = false;
  c.addEventListener('pointerdown', e => { down = true; ctx.beginPath(); ctx.moveTo(e.offsetX, e.offsetY); });
  c.addEventListener('pointermove', e => { if (down) { ctx.lineTo(e.offsetX, e.offsetY); ctx.stroke(); } });
  addEventListener('pointerup', () => { down = false; });
</script></body></html>"""


def _stats(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[max(0, int(len(ordered) * 0.95) - 1)]


async def _time(fn: Callable[[], Awaitable[Any]]) -> float:
    started = time.perf_counter()
    await fn()
    return (time.perf_counter() - started) * 1000


async def _loop_stall(work: Callable[[], Awaitable[Any]], rounds: int = 20) -> tuple[float, float]:
    """Median time of ``work`` and the median (over rounds) of the longest gap between
    heartbeat ticks while it ran: how long the loop could not serve anything else."""
    times: list[float] = []
    stalls: list[float] = []
    for _ in range(rounds):
        gaps: list[float] = []
        done = trio.Event()

        async def heartbeat(done: trio.Event, gaps: list[float]) -> None:
            last = time.perf_counter()
            while not done.is_set():
                await trio.lowlevel.checkpoint()
                now = time.perf_counter()
                gaps.append(now - last)
                last = now

        async with trio.open_nursery() as nursery:
            nursery.start_soon(heartbeat, done, gaps)
            await trio.sleep(0.005)
            times.append(await _time(work))
            done.set()
        stalls.append(max(gaps) * 1000)
    return statistics.median(times), statistics.median(stalls)


async def run(directory: Path) -> None:
    (directory / "noise.html").write_text(PAGE)
    config = RuntimeConfig.from_env({}, workspace=directory / "ws", capabilities="canvas")
    with serve_directory(directory) as base:
        async with open_runtime(config=config, capabilities=["canvas"]) as runtime:
            await runtime.call_tool("navigate", {"url": f"{base}/noise.html"})
            capture_ms = []
            for _ in range(5):
                started = time.perf_counter()
                before = await runtime.call_tool("canvas_capture", {"format": "2d-imagedata"})
                capture_ms.append((time.perf_counter() - started) * 1000)
            assert before["ok"], before
            stroke = await runtime.call_tool("gesture_chain", {"steps": [
                {"kind": "down", "x": 200, "y": 200}, {"kind": "move", "x": 260, "y": 230},
                {"kind": "move", "x": 320, "y": 240}, {"kind": "up", "x": 320, "y": 240}]})
            assert stroke["ok"], stroke
            after = await runtime.call_tool("canvas_capture", {"format": "2d-imagedata"})
            b64_before, b64_after = before["contentBase64"], after["contentBase64"]

            by_base64_args = {"beforeBase64": b64_before, "afterBase64": b64_after, "width": 1280, "height": 720}
            by_id_args = {"beforeId": before["captureId"], "afterId": after["captureId"]}
            first = await runtime.call_tool("canvas_diff", by_base64_args)
            assert first["ok"] and first == await runtime.call_tool("canvas_diff", by_id_args), first

            async def floor() -> None:
                a = np.frombuffer(base64.b64decode(b64_before), np.uint8)
                b = np.frombuffer(base64.b64decode(b64_after), np.uint8)
                np.array_equal(a, b)

            async def tool_base64() -> None:
                await runtime.call_tool("canvas_diff", by_base64_args)

            async def tool_by_id() -> None:
                await runtime.call_tool("canvas_diff", by_id_args)

            paths = {"floor": floor, "base64": tool_base64, "by-id": tool_by_id}
            samples: dict[str, list[float]] = {name: [] for name in paths}
            for round_number in range(WARMUP + ROUNDS):
                order = list(paths.items())
                order = order[round_number % 3:] + order[:round_number % 3]
                for name, fn in order:
                    elapsed = await _time(fn)
                    if round_number >= WARMUP:
                        samples[name].append(elapsed)

            async def decode_inline() -> None:
                base64.b64decode(b64_before)
                base64.b64decode(b64_after)

            async def decode_checkpointed() -> None:
                base64.b64decode(b64_before)
                await trio.lowlevel.checkpoint()
                base64.b64decode(b64_after)

            async def decode_threaded() -> None:
                await trio.to_thread.run_sync(base64.b64decode, b64_before)
                await trio.to_thread.run_sync(base64.b64decode, b64_after)

            inline = await _loop_stall(decode_inline)
            checkpointed = await _loop_stall(decode_checkpointed)
            threaded = await _loop_stall(decode_threaded)

    floor_med, floor_p95 = _stats(samples["floor"])
    b64_med, b64_p95 = _stats(samples["base64"])
    id_med, id_p95 = _stats(samples["by-id"])
    print(f"canvas_diff, two 1280x720 RGBA captures ({len(b64_before):,} base64 chars each), "
          f"{first['changedPixelCount']} pixels changed, bbox {first['bboxOfChanges']}; {ROUNDS} rounds")
    print()
    print("| path | median ms | p95 ms | vs floor | target |")
    print("| --- | ---: | ---: | ---: | --- |")
    print(f"| floor: decode both + numpy.array_equal | {floor_med:.2f} | {floor_p95:.2f} | 1.00x | |")
    b64_verdict = "met" if b64_med / floor_med <= TARGET_RATIO else "MISSED"
    print(f"| canvas_diff beforeBase64/afterBase64 | {b64_med:.2f} | {b64_p95:.2f} | "
          f"{b64_med / floor_med:.2f}x | <= {TARGET_RATIO}x: {b64_verdict} |")
    print(f"| canvas_diff beforeId/afterId | {id_med:.2f} | {id_p95:.2f} | {id_med / floor_med:.2f}x | "
          f"< {TARGET_BY_ID_MS:g} ms: {'met' if id_med < TARGET_BY_ID_MS else 'MISSED'} |")
    print()
    print(f"canvas_capture 2d-imagedata 1280x720 (for scale): median {statistics.median(capture_ms):.1f} ms")
    print()
    print("| decoding both base64 inputs | median ms | longest Trio loop stall, median ms |")
    print("| --- | ---: | ---: |")
    print(f"| inline, back to back | {inline[0]:.2f} | {inline[1]:.2f} |")
    print(f"| inline, a checkpoint between (what canvas_diff does) | {checkpointed[0]:.2f} | "
          f"{checkpointed[1]:.2f} |")
    print(f"| trio.to_thread, one per input | {threaded[0]:.2f} | {threaded[1]:.2f} |")


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="browx-canvas-bench-") as directory:
        trio.run(run, Path(directory))


if __name__ == "__main__":
    main()
