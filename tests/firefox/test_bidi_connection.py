"""The BiDi connection's command bookkeeping (browx_actors/bidi/connection.py), over a fake socket.

No browser: a socket stand-in that records what is written and answers what the test
feeds it, driven by the connection's own reader, under Trio's MockClock so the deadlines
are exact without waiting for them.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import trio
import trio.testing

from browx_actors.bidi.connection import BidiConnection
from browx_actors.bidi.protocol import BidiConnectionLost, BidiError, BidiTimeout


class FakeSocket:
    """What the connection uses of trio-websocket: send_message and get_message."""

    def __init__(self, *, stall_writes: bool = False) -> None:
        self.sent: list[dict[str, Any]] = []
        self.stall_writes = stall_writes
        #: Each written command's id, as it is written.
        self._wrote, self.written = trio.open_memory_channel[int](100)
        self._to_read, self._inbox = trio.open_memory_channel[str](100)

    async def send_message(self, text: str) -> None:
        if self.stall_writes:
            await trio.sleep_forever()
        self.sent.append(json.loads(text))
        self._wrote.send_nowait(self.sent[-1]["id"])

    async def get_message(self) -> str:
        return await self._inbox.receive()

    def feed(self, message: dict[str, Any]) -> None:
        self._to_read.send_nowait(json.dumps(message))


@pytest.fixture
def clock() -> trio.testing.MockClock:
    return trio.testing.MockClock(autojump_threshold=0)


async def test_answers_events_errors_and_late_answers_are_told_apart(clock: trio.testing.MockClock) -> None:
    socket = FakeSocket()
    connection = BidiConnection(socket, "ws://127.0.0.1:1/session")  # type: ignore[arg-type]
    events: list[str] = []
    connection.listen(lambda method, params: events.append(method))
    async with trio.open_nursery() as nursery:
        nursery.start_soon(connection._read)

        async def answer_later() -> None:
            assert await socket.written.receive() == 1
            socket.feed({"type": "event", "method": "log.entryAdded", "params": {}})
            socket.feed({"type": "success", "id": 1, "result": {"ok": 1}})
            assert await socket.written.receive() == 2  # sent once the first is answered
            socket.feed({"type": "error", "id": 2, "error": "no such frame", "message": "gone"})
            socket.feed({"type": "success", "id": 99, "result": {}})  # nobody waits for it

        nursery.start_soon(answer_later)
        assert await connection.send("session.status") == {"ok": 1}
        with pytest.raises(BidiError) as failed:
            await connection.send("browsingContext.close")
        assert failed.value.error == "no such frame" and failed.value.method == "browsingContext.close"
        await trio.sleep(0.1)
        assert events == ["log.entryAdded"] and connection.late_answers == 1
        assert [m["method"] for m in socket.sent] == ["session.status", "browsingContext.close"]
        nursery.cancel_scope.cancel()


async def test_a_command_with_no_answer_times_out_and_leaves_nothing_behind(clock: trio.testing.MockClock) -> None:
    socket = FakeSocket()
    connection = BidiConnection(socket, "ws://127.0.0.1:1/session")  # type: ignore[arg-type]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(connection._read)
        with pytest.raises(BidiTimeout):
            await connection.send("script.evaluate", timeout=5)
        assert connection._pending == {}
        socket.feed({"type": "success", "id": 1, "result": {}})  # the answer, too late
        await trio.sleep(0.1)
        assert connection.late_answers == 1
        nursery.cancel_scope.cancel()


async def test_a_write_that_stalls_loses_the_connection_at_its_deadline(clock: trio.testing.MockClock) -> None:
    socket = FakeSocket(stall_writes=True)
    connection = BidiConnection(socket, "ws://127.0.0.1:1/session")  # type: ignore[arg-type]
    started = trio.current_time()
    with pytest.raises(BidiConnectionLost) as lost:
        await connection.send("input.performActions", timeout=3)
    assert trio.current_time() - started == pytest.approx(3)
    assert "stalled past 3 s" in str(lost.value) and connection.lost is not None
    with pytest.raises(BidiConnectionLost):  # and every send after it fails at once
        await connection.send("session.status")
