"""Actor overhead: what one ``ActorRef.call`` hop costs, and what an idle actor weighs.

Every tool call crosses at least one actor boundary (dispatch -> session actor), so the
hop is on every path a user feels. The baseline, measured in the same run, is the same
work without the actor: a direct ``await`` of the trivial async function the actor's
handler awaits. The difference is the hop: a mailbox send, a one-shot reply slot, the
call's timeout scope and two task switches.

A second baseline is Trio's own floor for the same round trip: a bare task blocked on a
memory channel, answering through a ``trio.Event``, with no timeout, no error routing and
no lifecycle. No actor built on Trio can hop for less, so the hop is also reported as a
ratio to it; a single ``checkpoint()`` (one pass of the scheduler) shows the host's
speed, since absolute microseconds differ several-fold between hosts.

All paths are sampled in alternating batches so drift (GC, a busy core) lands on each.
Memory is the cost of 1,000 started, idle actors (a nursery, a mailbox, a ref and one
task each), by tracemalloc and by the RSS delta from /proc/self/status.

Run from the repo root: ``python -m benchmarks.actor_overhead``. Nothing is asserted.
"""

from __future__ import annotations

import gc
import statistics
import time
import tracemalloc
from collections.abc import Awaitable, Callable
from typing import Any

import attrs
import trio
import trio.testing

from browx_actors.kernel.actor import Actor

N = 20_000
WARMUP = 2_000
BATCH = 500
IDLE_ACTORS = 1_000
TARGET_HOP_US = 30.0


@attrs.frozen
class Work:
    value: int


async def trivial(value: int) -> int:
    """The work both paths do: an async function that returns at once."""
    return value + 1


class Hop(Actor):
    async def handle(self, msg: Any) -> Any:
        return await trivial(msg.value)


class Idle(Actor):
    async def handle(self, msg: Any) -> Any:
        return None


async def _sample(call: Callable[[int], Awaitable[object]], count: int, into: list[float]) -> None:
    clock = time.perf_counter_ns
    for i in range(count):
        start = clock()
        await call(i)
        into.append((clock() - start) / 1000.0)


def _p(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _bare_server(requests: trio.MemoryReceiveChannel[tuple[int, list[Any]]]) -> None:
    """Trio's floor: receive, compute, wake the caller. Nothing else."""
    async for value, slot in requests:
        slot.append(await trivial(value))
        slot[0].set()


async def measure_latency() -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {
        "direct": [], "checkpoint": [], "floor": [], "call": [], "call_no_timeout": []
    }
    async with trio.open_nursery() as nursery:
        ref = await nursery.start(Hop().run)
        bare_send, bare_receive = trio.open_memory_channel[tuple[int, list[Any]]](64)
        nursery.start_soon(_bare_server, bare_receive)

        async def direct(i: int) -> object:
            return await trivial(i)

        async def checkpoint(i: int) -> object:
            await trio.lowlevel.checkpoint()
            return i

        async def floor(i: int) -> object:
            slot: list[Any] = [trio.Event()]
            bare_send.send_nowait((i, slot))
            await slot[0].wait()
            return slot[1]

        async def call(i: int) -> object:
            return await ref.call(Work(i))

        async def call_no_timeout(i: int) -> object:
            return await ref.call(Work(i), timeout=None)

        paths = {
            "direct": direct,
            "checkpoint": checkpoint,
            "floor": floor,
            "call": call,
            "call_no_timeout": call_no_timeout,
        }
        for fn in paths.values():
            await _sample(fn, WARMUP, [])
        for _ in range(N // BATCH):
            for name, fn in paths.items():
                await _sample(fn, BATCH, samples[name])
        nursery.cancel_scope.cancel()
    return samples


def _rss_kib() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status")


async def measure_idle_memory() -> tuple[float, float]:
    """KiB per idle actor: (tracemalloc, RSS delta)."""
    async with trio.open_nursery() as nursery:
        # One actor first, so lazily built module state is not charged to the 1,000.
        await nursery.start(Idle().run)
        gc.collect()
        rss_before = _rss_kib()
        tracemalloc.start()
        traced_before = tracemalloc.get_traced_memory()[0]
        actors = [Idle() for _ in range(IDLE_ACTORS)]
        for actor in actors:
            await nursery.start(actor.run)
        await trio.testing.wait_all_tasks_blocked()
        gc.collect()
        traced_after = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        rss_after = _rss_kib()
        assert all(a.ref.alive for a in actors)
        nursery.cancel_scope.cancel()
    return (
        (traced_after - traced_before) / 1024 / IDLE_ACTORS,
        (rss_after - rss_before) / IDLE_ACTORS,
    )


async def main() -> None:
    samples = await measure_latency()
    traced_kib, rss_kib = await measure_idle_memory()

    med = {k: statistics.median(v) for k, v in samples.items()}
    p95 = {k: _p(v, 0.95) for k, v in samples.items()}
    hop_med = med["call"] - med["direct"]
    hop_p95 = p95["call"] - p95["direct"]
    floor_med = med["floor"] - med["direct"]

    print(f"## Actor overhead ({N:,} samples per path after {WARMUP:,} warm-up, real trio clock)\n")
    print("| path | median µs | p95 µs |")
    print("| --- | ---: | ---: |")
    print(f"| direct `await trivial()` (baseline) | {med['direct']:.2f} | {p95['direct']:.2f} |")
    print(f"| one `trio.lowlevel.checkpoint()` (host speed) | {med['checkpoint']:.2f} | {p95['checkpoint']:.2f} |")
    print(f"| Trio floor: bare task + memory channel + Event | {med['floor']:.2f} | {p95['floor']:.2f} |")
    print(f"| `ref.call()` (default 30 s timeout) | {med['call']:.2f} | {p95['call']:.2f} |")
    print(f"| `ref.call(timeout=None)` | {med['call_no_timeout']:.2f} | {p95['call_no_timeout']:.2f} |")
    print(f"| **hop cost** (call \N{MINUS SIGN} direct) | **{hop_med:.2f}** | **{hop_p95:.2f}** |")
    verdict = "within target" if hop_med <= TARGET_HOP_US else "OVER target"
    print(f"\nHop target ≤ {TARGET_HOP_US:g} µs (median): {hop_med:.2f} µs, {verdict}.")
    print(
        f"Against Trio's floor on this host ({floor_med:.2f} µs): {hop_med / floor_med:.2f}x, "
        f"{hop_med - floor_med:+.2f} µs for deadlines, failure routing and lifecycle.\n"
    )
    print(f"## {IDLE_ACTORS:,} idle actors\n")
    print("| measure | KiB per actor |")
    print("| --- | ---: |")
    print(f"| tracemalloc (Python allocations) | {traced_kib:.2f} |")
    print(f"| RSS delta (/proc/self/status) | {rss_kib:.2f} |")


if __name__ == "__main__":
    trio.run(main)
