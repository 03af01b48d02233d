"""Dispatch overhead of the diagnostics hook: off, on, and a build without the hook.

One cheap real tool (``list_sessions`` from the real catalog, run by the runtime table's
handler on a stub runtime with no sessions) is called through ``Dispatcher.dispatch``
three ways, in alternating batches of one run so drift lands on all three:

* **no hook**: the baseline, a copy of ``Dispatcher.dispatch`` built here from its own
  source with the ``if self.recorder is not None: ...`` statement removed (an AST
  edit, so the copy cannot drift from the real path);
* **off**: the real path with ``recorder = None`` (diagnostics off);
* **on**: the real path handing every record to a running Recorder actor that writes
  JSONL to a temporary workspace.

Between calls the loop yields once (``trio.lowlevel.checkpoint``), as a server does
between requests; that is when the Recorder's writer runs. Two costs are reported:
the per-call latency (wall clock; what a caller waits: the ``await dispatch(...)``
alone) and the amortized CPU cost (the process's CPU time, every thread included,
over a batch with its yields and, for "on", the writer's formatting and writes and a
final flush, divided by the calls in it). CPU time rather than wall time, so the work
the recorder adds is counted wherever it runs while other processes on a shared
machine are not.

Targets: off within 2% of no hook; on adds at most 100 µs per call. The off/no-hook
verdict uses, for each round of the alternation, the ratio of the two batch medians,
and takes the median of those ratios: a paired comparison, so a machine that speeds
up or slows down mid-run (shared CI cores) moves both sides of each ratio alike.
Run from the repo root: ``python -m benchmarks.dispatch_overhead``. Nothing is asserted.
"""

from __future__ import annotations

import ast
import inspect
import statistics
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

import trio

from browx_actors.config import ALL_CAPABILITIES
from browx_actors.recorder import Flush, Recorder, RecorderInbox
from browx_actors.recorder.store import read_records
from browx_actors.secret_book import SecretBook
from browx_actors.server import dispatch
from browx_actors.server.catalog import Catalog, default_catalog
from browx_actors.server.dispatch import Dispatcher
from browx_actors.tools import Gates

CALLS = 60_000
WARMUP = 3_000
BATCH = 500
TARGET_OFF_PCT = 2.0
TARGET_ON_US = 100.0
TOOL = "list_sessions"


class StubRuntime:
    """Just enough runtime for list_sessions: no sessions."""

    async def describe_sessions(self) -> list[dict[str, Any]]:
        return []


def _without_hook() -> type[Dispatcher]:
    """A Dispatcher whose dispatch is the real one minus the recorder statement."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(Dispatcher.dispatch)))
    fn = tree.body[0]
    assert isinstance(fn, ast.AsyncFunctionDef)
    kept = [stmt for stmt in fn.body
            if not (isinstance(stmt, ast.If) and "self.recorder" in ast.unparse(stmt.test))]
    if len(kept) != len(fn.body) - 1:
        raise RuntimeError("could not find exactly one recorder statement in Dispatcher.dispatch")
    fn.body = kept
    namespace = dict(vars(dispatch))
    exec(compile(ast.fix_missing_locations(tree), "<dispatch without hook>", "exec"), namespace)

    class NoHookDispatcher(Dispatcher):
        dispatch = namespace["dispatch"]

    return NoHookDispatcher


def _dispatcher(cls: type[Dispatcher], catalog: Catalog) -> Dispatcher:
    return cls(catalog, context=StubRuntime(), gates=Gates(ALL_CAPABILITIES, ALL_CAPABILITIES),  # type: ignore[arg-type]
               secrets=SecretBook())


async def _batch(dispatcher: Dispatcher, count: int, latencies: list[float], flush: Any) -> float:
    clock = time.perf_counter_ns
    checkpoint = trio.lowlevel.checkpoint
    args: dict[str, Any] = {}
    cpu_begin = time.process_time_ns()
    for _ in range(count):
        start = clock()
        await dispatcher.dispatch(TOOL, args)
        latencies.append((clock() - start) / 1000.0)
        await checkpoint()
    if flush is not None:
        await flush()
    return (time.process_time_ns() - cpu_begin) / 1000.0 / count


def _p(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def main() -> None:
    with tempfile.TemporaryDirectory() as workspace:
        inbox = RecorderInbox.open()
        recorder = Recorder(inbox, Path(workspace), recording=True, retention_days=0)
        async with trio.open_nursery() as nursery:
            await nursery.start(recorder.run)
            catalog = default_catalog()
            on = _dispatcher(Dispatcher, catalog)
            on.recorder = inbox.submit

            async def flush() -> None:
                await recorder.ref.call(Flush())

            paths = {"no hook": (_dispatcher(_without_hook(), catalog), None),
                     "off": (_dispatcher(Dispatcher, catalog), None), "on": (on, flush)}
            latency: dict[str, list[float]] = {name: [] for name in paths}
            amortized: dict[str, list[float]] = {name: [] for name in paths}
            ratios: list[float] = []  # per round: off's batch median over no hook's
            names = list(paths)
            for _ in range(WARMUP // BATCH):
                for dispatcher, fl in paths.values():
                    await _batch(dispatcher, BATCH, [], fl)
            for round_ in range(CALLS // BATCH):
                batch_medians = {}
                for name in names[round_ % 3:] + names[:round_ % 3]:  # rotate who goes first
                    dispatcher, fl = paths[name]
                    samples: list[float] = []
                    amortized[name].append(await _batch(dispatcher, BATCH, samples, fl))
                    latency[name] += samples
                    batch_medians[name] = statistics.median(samples)
                ratios.append(batch_medians["off"] / batch_medians["no hook"])
            await flush()
            records, bad = read_records(Path(workspace) / "diagnostics")
            recorder.stop()
    written = sum(1 for r in records if r.get("kind") == "call")

    med = {k: statistics.median(v) for k, v in latency.items()}
    p95 = {k: _p(v, 0.95) for k, v in latency.items()}
    amo = {k: statistics.median(v) for k, v in amortized.items()}
    off_pct = (med["off"] - med["no hook"]) / med["no hook"] * 100
    off_paired_pct = (statistics.median(ratios) - 1) * 100
    off_cpu_pct = (amo["off"] - amo["no hook"]) / amo["no hook"] * 100
    on_us = med["on"] - med["off"]
    on_amortized_us = amo["on"] - amo["off"]

    print(f"## Dispatch overhead of the diagnostics hook ({CALLS:,} `{TOOL}` calls per path, "
          f"batches of {BATCH} alternating, after {WARMUP:,} warm-up)\n")
    print("| path | median latency µs/call | p95 latency µs/call | amortized CPU µs/call (all threads) |")
    print("| --- | ---: | ---: | ---: |")
    labels = {"no hook": "no hook (dispatch rebuilt without the hook statement; baseline)",
              "off": "diagnostics off (`recorder is None`)",
              "on": "diagnostics on (Recorder writing JSONL)"}
    for name in paths:
        print(f"| {labels[name]} | {med[name]:.2f} | {p95[name]:.2f} | {amo[name]:.2f} |")
    verdict_off = "within target" if off_paired_pct <= TARGET_OFF_PCT else "OVER target"
    verdict_on = "within target" if max(on_us, on_amortized_us) <= TARGET_ON_US else "OVER target"
    print(f"\nOff vs no hook: {off_paired_pct:+.2f}% (median over rounds of the paired batch-median ratio; "
          f"pooled medians {off_pct:+.2f}%, amortized CPU {off_cpu_pct:+.2f}%; target ≤ {TARGET_OFF_PCT:g}%): "
          f"{verdict_off}.")
    print(f"On vs off: {on_us:+.2f} µs median latency, {on_amortized_us:+.2f} µs amortized CPU including the "
          f"writer (target ≤ {TARGET_ON_US:g} µs): {verdict_on}.")
    print(f"Records written by the on path: {written:,} of {CALLS + WARMUP:,} calls; dropped "
          f"{inbox.dropped_total}; unparseable lines {bad}.")


if __name__ == "__main__":
    trio.run(main)
