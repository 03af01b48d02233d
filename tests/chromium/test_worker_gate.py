"""The worker gate lets every worker it holds run, whatever happens to the gate: its
commands failing, taking too long, or the session closing under it (the browser would
otherwise keep the worker paused at its start for good). Real workers: test_e2e_observe."""

from __future__ import annotations

from typing import Any

import pytest
import trio

from browx_actors.cdp import CdpFailure, CdpTimeout
from browx_actors.sessions.chromium.console.sampler import SAMPLER_JS
from browx_actors.sessions.chromium.tabs.workers import GATE_S, WORKER_FILTER, gate_worker

RELEASE = "Runtime.runIfWaitingForDebugger"


class Worker:
    """A worker's flat session as the gate uses it: what was sent, and how the gate's
    sequence ends (``None`` answers, an exception fails, ``"hang"`` never answers)."""

    def __init__(self, sequence_ends: Any = None) -> None:
        self.sent: list[str] = []
        self.sequence: list[tuple[str, Any]] = []
        self.sequence_ends = sequence_ends

    async def send_sequence(self, commands: list[tuple[str, Any]], *, timeout: float) -> list[Any]:
        self.sequence = commands
        if self.sequence_ends == "hang":
            await trio.sleep(timeout)
            raise CdpTimeout("Runtime.evaluate", timeout)
        if isinstance(self.sequence_ends, Exception):
            raise self.sequence_ends
        return [{} for _ in commands]

    async def send(self, method: str, params: Any = None, *, timeout: float) -> dict[str, Any]:
        self.sent.append(method)
        return {}


async def test_the_sampler_goes_in_before_runtime_and_the_worker_is_let_go_last() -> None:
    worker = Worker()
    await gate_worker(worker, "nonce-1")  # type: ignore[arg-type]
    methods = [method for method, _ in worker.sequence]
    assert methods == ["Runtime.evaluate", "Runtime.enable", "Target.setAutoAttach"]
    assert SAMPLER_JS in worker.sequence[0][1]["expression"] and '"nonce-1"' in worker.sequence[0][1]["expression"]
    nested = worker.sequence[2][1]
    assert nested["waitForDebuggerOnStart"] is True and nested["filter"] == [WORKER_FILTER]
    assert worker.sent == [RELEASE]


@pytest.mark.parametrize("ends", [CdpFailure("worker went"), "hang"])
async def test_a_gate_that_fails_or_hangs_still_lets_the_worker_go(ends: Any, autojump_clock: Any) -> None:
    worker = Worker(ends)
    start = trio.current_time()
    await gate_worker(worker, "n")  # type: ignore[arg-type]
    assert worker.sent == [RELEASE]
    assert trio.current_time() - start <= GATE_S


async def test_a_gate_cancelled_under_it_still_lets_the_worker_go(autojump_clock: Any) -> None:
    worker = Worker("hang")
    with trio.move_on_after(0.01):
        await gate_worker(worker, "n")  # type: ignore[arg-type]
    assert worker.sent == [RELEASE]
