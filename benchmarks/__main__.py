"""``make bench``: run every benchmark in turn, each printing its own table.

Each one measures against a baseline taken in the same run; the numbers to keep go
into benchmarks/RESULTS.md.
"""

from __future__ import annotations

import runpy
import sys

BENCHMARKS = [
    "benchmarks.actor_overhead",
    "benchmarks.cdp_roundtrip",
    "benchmarks.playwright_relay",
    "benchmarks.dispatch_overhead",
    "benchmarks.refusal",
    "benchmarks.canvas_diff",
    "benchmarks.mcp_latency",
    "benchmarks.context_cost",
    "benchmarks.realweb",
    "benchmarks.input_tools",
    "benchmarks.chaos",
    "benchmarks.chaos_hostile",
    "benchmarks.settle_fade",
    "benchmarks.settle_frame",
    "benchmarks.visual_tree",
    "benchmarks.visual_frames",
    "benchmarks.live_view",
    "benchmarks.firefox",
]


def main() -> int:
    for name in BENCHMARKS:
        print(f"\n===== {name} =====", flush=True)
        try:
            runpy.run_module(name, run_name="__main__")
        except SystemExit as done:
            if done.code not in (0, None):
                print(f"{name} exited with {done.code}", file=sys.stderr)
                return int(done.code) if isinstance(done.code, int) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
