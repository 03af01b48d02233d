"""A page's dedicated workers start with the console sampler in them, and are tapped.

A worker that floods its console cannot be sampled once the flood is seen: the
``Runtime.evaluate`` that would install the sampler queues behind the flood it is meant
to stop, and a tap with ``Runtime`` on doubles what each message costs the renderer
(measured: a click on the flooding page went from about 5 s to 4-8 s, fill to 19-25 s,
and then the page answered no probe at all). Unsampled, the flood slowed every other
session of the server too (a bystander's call took 41 s after two minutes).

So the page's event session auto-attaches its dedicated workers with
``waitForDebuggerOnStart`` (:data:`WORKER_FILTER`, beside the out-of-process frames it
already attaches). Each worker is paused before its script runs; :func:`gate_worker`
puts the sampler into its global scope (:mod:`..console.sampler`, which runs in any
global scope), turns ``Runtime`` on under the tab's tap, so the worker's console is in
the tab's records as Playwright MCP shows it, and lets the worker run. From its first
message a flood is held to the sampler's budget, and the tap re-installs the sampler in
a worker that floods again after a calm second.

A worker waits for every client that auto-attached it (Playwright's own session too),
so the gate only adds our round trips to its start, bounded by :data:`GATE_S`; whatever
happens, the worker is let go.
"""

from __future__ import annotations

import contextlib
import logging

import trio

from ....cdp import CdpFailure, TargetLink
from ....jsonsafe import JsonObject
from ..console.sampler import sampler_call

__all__ = ["GATE_S", "WORKER_FILTER", "gate_worker"]

log = logging.getLogger("browx_actors.chromium.workers")

#: What the event session's auto-attach announces besides out-of-process frames.
WORKER_FILTER: JsonObject = {"type": "worker"}

#: The longest a worker's start waits for the gate before it is let go unsampled.
GATE_S = 5.0


async def gate_worker(worker: TargetLink, nonce: str) -> None:
    """Sample and tap the worker paused on ``worker`` (its flat session, already tapped),
    have its own workers announced, then let it run."""
    try:
        await worker.send_sequence([
            ("Runtime.evaluate", {"expression": sampler_call(nonce), "returnByValue": True}),
            ("Runtime.enable", None),
            ("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": True,
                                      "filter": [WORKER_FILTER]}),
        ], timeout=GATE_S)
    except CdpFailure as exc:  # the worker went, or the gate took too long
        log.debug("worker %s not gated: %s", worker, exc)
    finally:
        with trio.CancelScope(shield=True), contextlib.suppress(CdpFailure):
            await worker.send("Runtime.runIfWaitingForDebugger", timeout=GATE_S)
