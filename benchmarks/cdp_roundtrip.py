"""CDP round-trip latency: CdpConnection vs a bare trio-websocket request/response loop.

What users feel of the raw CDP client is the overhead it adds to every command: id
routing through the reader task, the pending table and the timeout scope. The
baseline, measured in the same run against the same browser and target, is the
least any Trio client could do: its own websocket and flat session, one command
written, its reply awaited, in a loop.

Both paths are sampled in alternating batches so drift in the browser (GC, a busy
core) lands on both. Run from the repo root: ``python -m benchmarks.cdp_roundtrip``.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

import trio
from trio_websocket import WebSocketConnection, open_websocket_url

from browx_actors.cdp import (
    DEFAULT_MAX_MESSAGE_SIZE,
    TargetLink,
    launch_chromium,
    open_cdp_connection,
)

N = 500
WARMUP = 100
BATCH = 10
PARAMS = {"expression": "1+1", "returnByValue": True}
TARGET_RATIO = 1.2


class BareSession:
    """The baseline: one command in flight, replies matched by reading until our id."""

    def __init__(self, ws: WebSocketConnection) -> None:
        self.ws = ws
        self.next_id = 1
        self.session_id: str | None = None

    async def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        command_id = self.next_id
        self.next_id += 1
        message: dict[str, Any] = {"id": command_id, "method": method, "params": params}
        if self.session_id is not None:
            message["sessionId"] = self.session_id
        await self.ws.send_message(json.dumps(message, separators=(",", ":")))
        while True:
            reply = json.loads(await self.ws.get_message())
            if reply.get("id") == command_id:
                return reply["result"]


async def _sample(call: Callable[[], Awaitable[object]], count: int, into: list[float]) -> None:
    for _ in range(count):
        start = time.perf_counter_ns()
        await call()
        into.append((time.perf_counter_ns() - start) / 1000)


def _p95(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=100, method="inclusive")[94]


async def main() -> None:
    async with (
        launch_chromium() as browser,
        open_cdp_connection(browser.ws_url) as conn,
        open_websocket_url(browser.ws_url, max_message_size=DEFAULT_MAX_MESSAGE_SIZE) as ws,
    ):
        version = await conn.send("Browser.getVersion")
        target_id = (await conn.send("Target.createTarget", {"url": "about:blank"}))[
            "targetId"
        ]
        session: TargetLink = await conn.attach(target_id)
        bare = BareSession(ws)
        attached = await bare.call(
            "Target.attachToTarget", {"targetId": target_id, "flatten": True}
        )
        bare.session_id = attached["sessionId"]

        async def client_call() -> object:
            return await session.send("Runtime.evaluate", PARAMS)

        async def bare_call() -> object:
            return await bare.call("Runtime.evaluate", PARAMS)

        assert (await client_call()) == (await bare_call())
        client: list[float] = []
        baseline: list[float] = []
        await _sample(client_call, WARMUP, [])
        await _sample(bare_call, WARMUP, [])
        for _ in range(N // BATCH):
            await _sample(bare_call, BATCH, baseline)
            await _sample(client_call, BATCH, client)
        stats = conn.stats()

    rows = [
        ("bare trio-websocket loop", baseline),
        ("CdpConnection flat session", client),
    ]
    print(
        f"CDP round trip: Runtime.evaluate {PARAMS['expression']!r} returnByValue, "
        f"N={N} each after {WARMUP} warm-up, {version['product']}"
    )
    print(f"{'path':<28} {'median us':>10} {'p95 us':>10}")
    for name, samples in rows:
        print(f"{name:<28} {statistics.median(samples):>10.0f} {_p95(samples):>10.0f}")
    median_ratio = statistics.median(client) / statistics.median(baseline)
    p95_ratio = _p95(client) / _p95(baseline)
    print(f"{'ratio client/bare':<28} {median_ratio:>9.2f}x {p95_ratio:>9.2f}x")
    verdict = "within" if median_ratio <= TARGET_RATIO else "OVER"
    print(f"median ratio {verdict} the {TARGET_RATIO}x target")
    print(
        f"client stats: {stats.commands_sent} sent, {stats.replies} replies, "
        f"{stats.events} events ({stats.events_unrouted} unrouted), "
        f"{stats.unknown_replies} unknown replies, {stats.malformed} malformed"
    )


if __name__ == "__main__":
    trio.run(main)
