"""Timing of the input tools, under trio.testing.MockClock: paced gestures, letting go
of an interrupted one, and the poll loop behind poll_eval and choose_option. No real
sleeps: the clock jumps whenever every task is waiting."""

from __future__ import annotations

from typing import Any

import pytest
import trio
import trio.testing

from browx_actors.errors import ToolError
from browx_actors.sessions.chromium.input.motion import Step, pinch, stroke
from browx_actors.sessions.chromium.input.playback import RELEASE_TIMEOUT_S, letting_go, play
from browx_actors.sessions.chromium.reading.poll import _poll, poll_until
from browx_actors.tools.page import PollEvalArgs


@pytest.fixture
def mock_clock() -> trio.testing.MockClock:
    return trio.testing.MockClock(autojump_threshold=0)


async def test_a_swipe_sends_each_step_at_its_time_from_the_start(mock_clock: trio.testing.MockClock) -> None:
    sent: list[tuple[float, str]] = []
    start = trio.current_time()

    async def perform(step: Step) -> None:
        sent.append((round((trio.current_time() - start) * 1000, 6), step.kind))
        await trio.sleep(0.004)  # sending takes time: it must not push the next step later

    elapsed = await play(stroke((0, 0), (100, 0), 4, 300), perform)
    # The lift is due with the last move, so it follows that move's sending at once.
    assert sent == [(0.0, "down"), (75.0, "move"), (150.0, "move"), (225.0, "move"), (300.0, "move"),
                    (304.0, "up")]
    assert elapsed == pytest.approx(308.0)


async def test_a_slow_step_is_followed_at_once_not_after_another_interval(mock_clock: trio.testing.MockClock) -> None:
    sent: list[float] = []
    start = trio.current_time()

    async def perform(step: Step) -> None:
        sent.append(round((trio.current_time() - start) * 1000, 6))
        if step.kind == "down":
            await trio.sleep(0.25)  # the page was slow to take the press

    await play(pinch((50, 50), 2.0, 2, 200), perform)
    assert sent == [0.0, 250.0, 250.0, 250.0]


async def test_an_interrupted_gesture_lets_go_before_the_cancellation_goes_on(
    mock_clock: trio.testing.MockClock,
) -> None:
    released: list[float] = []
    start = trio.current_time()

    async def release() -> None:
        await trio.sleep(0.01)
        released.append(round(trio.current_time() - start, 6))

    async def perform(step: Step) -> None:
        pass

    with trio.move_on_after(0.1) as scope:
        async with letting_go(release):
            await play(stroke((0, 0), (10, 0), 10, 1000), perform)
    assert scope.cancelled_caught
    assert released == [0.11]  # the release ran, shielded, after the deadline

    async def stuck() -> None:
        await trio.sleep_forever()

    with pytest.raises(ToolError):
        async with letting_go(stuck):
            raise ToolError("action-failed", "the page went away")
    assert trio.current_time() - start == pytest.approx(0.11 + RELEASE_TIMEOUT_S)


async def test_poll_until_probes_on_a_fixed_schedule_until_met(mock_clock: trio.testing.MockClock) -> None:
    seen: list[float] = []
    start = trio.current_time()

    async def probe() -> tuple[bool, int]:
        seen.append(round(trio.current_time() - start, 6))
        await trio.sleep(0.03)
        return len(seen) == 4, len(seen)

    result = await poll_until(probe, interval_s=0.1, timeout_s=5)
    assert (result.met, result.value, result.attempts) == (True, 4, 4)
    assert seen == [0.0, 0.1, 0.2, 0.3]
    assert result.elapsed_s == pytest.approx(0.33)


async def test_poll_until_gives_up_at_the_deadline_and_cancels_a_late_probe(mock_clock: trio.testing.MockClock) -> None:
    seen: list[float] = []
    start = trio.current_time()

    async def probe() -> tuple[bool, int]:
        seen.append(round(trio.current_time() - start, 6))
        await trio.sleep(0.15 if len(seen) == 3 else 0.01)
        return False, len(seen)

    result = await poll_until(probe, interval_s=0.1, timeout_s=0.25)
    assert seen == [0.0, 0.1, 0.2]
    # The third probe was still running at 0.25 s: cancelled, so the last answer is the second's.
    assert (result.met, result.value, result.attempts) == (False, 2, 3)
    assert result.elapsed_s == pytest.approx(0.25)


async def test_the_first_probe_always_finishes_even_with_no_time(mock_clock: trio.testing.MockClock) -> None:
    async def probe() -> tuple[bool, str]:
        await trio.sleep(0.5)
        return False, "first"

    result = await poll_until(probe, interval_s=0.1, timeout_s=0)
    assert (result.met, result.value, result.attempts) == (False, "first", 1)


# -- poll_eval's loop over the CDP calls it makes ---------------------------------------


class _Page:
    """Answers poll_eval's CDP calls the way Chromium does for an expression whose value
    becomes 3 at 0.35 s: a number by value, the predicate's answer by value."""

    def __init__(self, start: float) -> None:
        self.start = start
        self.calls: list[tuple[float, str, str]] = []

    def value(self) -> int:
        return 3 if trio.current_time() - self.start >= 0.35 else 1

    async def send(self, method: str, params: dict[str, Any], *, timeout: float) -> dict[str, Any]:
        self.calls.append((round(trio.current_time() - self.start, 6), method, params.get("expression", "")))
        await trio.sleep(0.001)
        if method == "Runtime.evaluate":
            if params["expression"] == "globalThis":
                return {"result": {"type": "object", "objectId": "global"}}
            if params["expression"] == "broken(":
                return {"exceptionDetails": {"text": "Uncaught", "exception": {
                    "className": "SyntaxError", "description": "SyntaxError: Unexpected end of input"}}}
            return {"result": {"type": "number", "value": self.value()}}
        if method == "Runtime.callFunctionOn":
            argument = params["arguments"][0]["value"]
            if "n > 2" in params["functionDeclaration"]:
                return {"result": {"type": "boolean", "value": argument > 2}}
            return {"result": {"type": "boolean", "value": False}}
        assert method == "Runtime.releaseObjectGroup"
        return {}


def _args(**overrides: Any) -> PollEvalArgs:
    return PollEvalArgs(**{"expr": "window.count", "until": "n => n > 2", "interval_ms": 100, "timeout_ms": 1000,
                           "max_bytes": 1000, **overrides})


async def test_poll_eval_answers_with_the_value_once_until_holds(mock_clock: trio.testing.MockClock) -> None:
    page = _Page(trio.current_time())
    reply = await _poll(page, _args())
    assert reply.fields["value"] == 3 and reply.fields["attempts"] == 5
    evaluations = [at for at, _, expression in page.calls if expression == "window.count"]
    assert evaluations == [0.0, 0.1, 0.2, 0.3, 0.4]
    # Each attempt's objects are released after the next attempt; at the end, the last two groups.
    released = [method for _, method, _ in page.calls].count("Runtime.releaseObjectGroup")
    assert released == 4 + 2


async def test_poll_eval_times_out_with_the_last_value(mock_clock: trio.testing.MockClock) -> None:
    page = _Page(trio.current_time())
    with pytest.raises(ToolError) as caught:
        await _poll(page, _args(until="n => false", timeout_ms=300))
    err = caught.value
    # Attempts at 0, 0.1 and 0.2 s; the one due at 0.3 s is due at the deadline: none.
    assert err.code == "timeout" and err.details["attempts"] == 3 and err.details["lastValue"] == 1
    assert err.details["elapsedMs"] == pytest.approx(300, abs=1)


async def test_poll_eval_refuses_an_expression_that_cannot_compile_at_once(mock_clock: trio.testing.MockClock) -> None:
    page = _Page(trio.current_time())
    with pytest.raises(ToolError) as caught:
        await _poll(page, _args(expr="broken("))
    assert caught.value.code == "eval-error" and "SyntaxError" in caught.value.message
    assert trio.current_time() - page.start < 0.01
