"""What an agent's tasks on real widgets cost through this server and through Playwright
MCP (npm, pinned in ``peers/``), over stdio MCP, in the same run (issue 28).

The pages are issue 28's real-library test pages (``tests/pages``: Bootstrap 5's
``.btn-check`` and hidden inputs, its modal and tabs that fade, Monaco, Tom Select,
flatpickr, ``@tanstack/virtual-core``), served as the e2e tests serve them, with the
libraries from ``peers/node_modules``. The tasks are in ``benchmarks/realweb_tasks.py``,
each scripted per server as an agent would act with that server's tools (snapshot, find
the ref by role and name, act by ref). Per task and server:

* **success**: the task's check, read from the page through the server's own evaluate
  tool (``eval_js`` here, with the ``eval`` capability; ``browser_evaluate`` there) after
  the script, in every round; a script that cannot take its next step fails the task;
* **calls** and **characters** of result text (``TextContent``, what a host hands the
  model) the script took, from the navigate to its last call;
* **time**: wall time of those calls, median over the rounds;
* for this server, whether any call took over 5 s: an action that waited out a timeout
  instead of acting or refusing at once.

Both servers are started once and stay up (their start is not timed); each round runs
every task on both, the order alternating per task and round, so load on a shared host
falls on both alike. Target (issue 28): every task succeeds, our time at most 0.6x
Playwright MCP's, no call of ours waits out a timeout.

Run: ``python -m benchmarks.realweb [--rounds N]``.
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

import attrs
import trio
from mcp.client import Client

from benchmarks.context_cost import ours, params, playwright_mcp
from benchmarks.realweb_tasks import SLOW_CALL_S, TASKS, Driver, Failed, Task
from peers import NODE

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
from e2e_support import serve_pages  # noqa: E402  (the tests' page server, /node_modules/ included)

SERVERS = ("browx-actors", "Playwright MCP")


@attrs.define
class Run:
    """One task on one server in one round."""

    ok: bool
    calls: int
    chars: int
    seconds: float
    slowest: float
    why: str = ""


async def run_task(driver: Driver, task: Task, base: str) -> Run:
    """The task's script, then its check (not counted), on a driver with no calls yet."""
    driver.calls.clear()
    script = task.ours if driver.ours else task.playwright
    why = ""
    start = time.perf_counter()
    try:
        await script(driver, base)
    except Failed as failed:
        why = str(failed)
    seconds = time.perf_counter() - start
    counted = list(driver.calls)
    if not why:
        try:
            if await driver.evaluate(task.check) is not True:
                shows = f" (the page holds {json.dumps(await driver.evaluate(task.detail))})" if task.detail else ""
                why = f"check false: {task.check}{shows}"
        except Failed as failed:
            why = f"check: {failed}"
    return Run(ok=not why, calls=len(counted), chars=sum(n for _, n, _ in counted), seconds=seconds,
               slowest=max((s for _, _, s in counted), default=0.0), why=why)


async def measure(rounds: int, base: str, workspace: Path) -> dict[str, dict[str, list[Run]]]:
    command, env = ours(workspace / "ours", "eval")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p)
    runs: dict[str, dict[str, list[Run]]] = {task.name: {name: [] for name in SERVERS} for task in TASKS}
    (workspace / "pw").mkdir()
    async with (Client(params(command, env, workspace / "ours"), read_timeout_seconds=120) as mine,
                Client(params(playwright_mcp(), {}, workspace / "pw"), read_timeout_seconds=120) as theirs):
        drivers = {"browx-actors": Driver(mine, ours=True), "Playwright MCP": Driver(theirs, ours=False)}
        # One throwaway navigation each, so neither pays its browser's launch in a task.
        await drivers["browx-actors"].navigate(f"{base}/e2e_small.html")
        await drivers["Playwright MCP"].navigate(f"{base}/e2e_small.html")
        for round_ in range(rounds):
            for i, task in enumerate(TASKS):
                order = SERVERS if (round_ + i) % 2 == 0 else SERVERS[::-1]
                for name in order:
                    run = await run_task(drivers[name], task, base)
                    runs[task.name][name].append(run)
                    steps = " ".join(f"{tool}:{took:.2f}" for tool, _, took in drivers[name].calls[:run.calls])
                    print(f"round {round_ + 1} {name}: {task.name}: {'ok' if run.ok else 'FAILED'} "
                          f"{run.seconds:.2f} s [{steps}]{'' if run.ok else ' - ' + run.why}",
                          file=sys.stderr, flush=True)
    return runs


def table(runs: dict[str, dict[str, list[Run]]], rounds: int) -> str:
    lines = ["| task | ok (ours / PW) | calls | characters | median s | ours / PW time | ours slowest call s |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    totals = {name: 0.0 for name in SERVERS}
    for task in TASKS:
        mine, theirs = runs[task.name]["browx-actors"], runs[task.name]["Playwright MCP"]
        ok = f"{sum(r.ok for r in mine)}/{rounds} / {sum(r.ok for r in theirs)}/{rounds}"
        calls = f"{statistics.median(r.calls for r in mine):g} / {statistics.median(r.calls for r in theirs):g}"
        chars = f"{statistics.median(r.chars for r in mine):,.0f} / {statistics.median(r.chars for r in theirs):,.0f}"
        a, b = statistics.median(r.seconds for r in mine), statistics.median(r.seconds for r in theirs)
        totals["browx-actors"] += a
        totals["Playwright MCP"] += b
        slowest = max(r.slowest for r in mine)
        flag = " (over 5 s)" if slowest > SLOW_CALL_S else ""
        lines.append(f"| {task.name} | {ok} | {calls} | {chars} | {a:.2f} / {b:.2f} | {a / b:.2f}x | "
                     f"{slowest:.2f}{flag} |")
    a, b = totals["browx-actors"], totals["Playwright MCP"]
    lines.append(f"| **all tasks** | | | | {a:.2f} / {b:.2f} | **{a / b:.2f}x** | |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2, help="rounds of every task on both servers (default 2)")
    rounds = parser.parse_args().rounds
    if not NODE.exists():
        raise SystemExit("the npm peers are not installed: run `make peers`")
    with tempfile.TemporaryDirectory() as tmp, serve_pages() as base:
        runs = trio.run(measure, rounds, base, Path(tmp))
    print(f"# Real-widget tasks over stdio MCP, {rounds} rounds, alternating (each cell: ours / Playwright MCP)\n")
    print(table(runs, rounds))
    failures = [(task, name, run.why) for task, per in runs.items() for name, rs in per.items() for run in rs
                if not run.ok]
    if failures:
        print("\nFailures:\n")
        for task, name, why in dict.fromkeys(failures):
            print(f"- {name}, {task}: {why.splitlines()[0][:400]}")
    print("\nTarget: every task ok, ours / PW time <= 0.6x, no call of ours over 5 s.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
