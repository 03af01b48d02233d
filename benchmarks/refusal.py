"""How fast a bad call is refused on a fresh runtime, and that it acquires nothing.

Issue 11 moved every argument rule (exactly one of ref / selector / coords, an engine
that needs native-device...) into the declarations the dispatch checks before anything
is acquired. Before, ``click({})`` launched Chromium and opened a session to answer
``bad-arg`` (1.8 s). This measures each refusal on a runtime that has started nothing,
against ``list_sessions`` (a valid call that acquires nothing either) in the same run,
and reads the browser pool's launch count and the session list afterwards.

Run: ``python -m benchmarks.refusal``.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import trio

from browx_actors import RuntimeConfig, open_runtime

CALLS = 2000
TARGET_MS = 5.0
BAD_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("click", {}),
    ("click", {"ref": "e1", "selector": "#a"}),
    ("fill", {"value": "x"}),
    ("screenshot", {"fullPage": True, "ref": "e1"}),
    ("open_session", {"session": "phone", "engine": "android-app"}),
    ("gesture_chain", {"steps": [{"kind": "down", "x": 1}]}),
]


async def _time(runtime: Any, tool: str, args: dict[str, Any]) -> tuple[float, float, str]:
    samples = []
    code = ""
    for _ in range(CALLS):
        started = time.perf_counter()
        envelope = await runtime.call_tool(tool, args)
        samples.append((time.perf_counter() - started) * 1e6)
        code = envelope.get("code", "ok")
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[int(len(ordered) * 0.95)], code


async def main() -> None:
    with tempfile.TemporaryDirectory() as workspace:
        async with open_runtime(config=RuntimeConfig(workspace=Path(workspace))) as runtime:
            first = time.perf_counter()
            envelope = await runtime.call_tool("click", {})
            first_ms = (time.perf_counter() - first) * 1000
            assert envelope["code"] == "bad-arg", envelope
            rows = [("list_sessions", {}, *await _time(runtime, "list_sessions", {}))]
            for tool, args in BAD_CALLS:
                rows.append((tool, args, *await _time(runtime, tool, args)))
            status = await runtime.call_tool("runtime_status")
            pool = next(c for c in status["tree"]["children"] if c["id"] == "browser-pool")

    baseline = rows[0][2]
    print(f"## Refusing a bad call on a fresh runtime ({CALLS:,} calls each, in-process `Runtime.call_tool`)\n")
    print(f"The very first call, `click({{}})` on a runtime that had started nothing: {first_ms:.2f} ms "
          f"(target well under {TARGET_MS:g} ms).\n")
    print("| call | answer | median µs | p95 µs | median / list_sessions |")
    print("| --- | --- | ---: | ---: | ---: |")
    for tool, args, median, p95, code in rows:
        print(f"| `{tool}` `{args}` | {code} | {median:.1f} | {p95:.1f} | {median / baseline:.2f} |")
    print(f"\nAfterwards: browser pool launches {pool['launches']}, browser {pool['browser']}, "
          f"sessions {status['sessions']}.")


if __name__ == "__main__":
    trio.run(main)
