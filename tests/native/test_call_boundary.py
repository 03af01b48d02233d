"""A native session's call is the boundary of its failure, as a chromium session's is.

The real NativeSession actor (what android-app and ios-app sessions are), connected to
nothing: its tools here are handlers that raise what no tool expects. Before the
boundary, the first such call crashed the actor and every later call on the session got
``ActorCrashed``; now the call fails with its own exception and the session serves on,
for calls answered at once and for waits answered later from the nursery.
"""

from __future__ import annotations

from typing import Any

import pytest
import trio
import trio.testing

from browx_actors.errors import ToolError
from browx_actors.kernel.actor import Later
from browx_actors.kernel.actor_ref import ActorRef
from browx_actors.sessions.android.table import ANDROID_APP
from browx_actors.sessions.messages import Describe, SessionCall
from browx_actors.sessions.native.session import NativeSession


class Bare(NativeSession):
    engine = "android-app"
    platform = "android"

    async def connect(self) -> None:
        self.device = {"id": "emulator-5554"}


def _registry() -> ActorRef:
    raise AssertionError("nothing is leased here")


async def _broken(session: Any, args: dict[str, Any]) -> Any:
    raise KeyError("a reply field the driver never sends")


async def _fine(session: Any, args: dict[str, Any]) -> Any:
    return {"ok": True, "id": session.session_id}


async def _later_broken(session: Any, args: dict[str, Any]) -> Later:
    async def wait() -> Any:
        await trio.sleep(0.5)
        raise ValueError("a wait that broke after the handler answered")
    return Later.of(wait)


async def _stuck(session: Any, args: dict[str, Any]) -> Any:
    try:
        await trio.sleep_forever()
    except trio.Cancelled:
        raise RuntimeError("a driver that answers its cancellation with its own error") from None


async def test_a_handler_exception_fails_the_call_and_the_session_serves_on(
        mock_clock: trio.testing.MockClock) -> None:
    mock_clock.autojump_threshold = 0
    async with trio.open_nursery() as nursery:
        ref = await nursery.start(Bare("p", table=ANDROID_APP, registry=_registry).run)
        for broken in (_broken, _later_broken):
            with pytest.raises((KeyError, ValueError)):
                await ref.call(SessionCall(broken.__name__, broken, {}), timeout=10)
            assert ref.alive
            assert await ref.call(SessionCall("fine", _fine, {}), timeout=10) == {"ok": True, "id": "p"}
        assert (await ref.call(Describe(), timeout=10))["state"] == "ready"
        assert ref.statistics().calls_served >= 3
        nursery.cancel_scope.cancel()


async def test_a_driver_that_errors_on_its_cancellation_still_answers_timeout(
        mock_clock: trio.testing.MockClock) -> None:
    mock_clock.autojump_threshold = 0
    async with trio.open_nursery() as nursery:
        ref = await nursery.start(Bare("p", table=ANDROID_APP, registry=_registry).run)
        deadline = trio.current_time() + 5
        with pytest.raises(ToolError) as caught:
            await ref.call(SessionCall("stuck", _stuck, {}, deadline=deadline), timeout=30)
        assert caught.value.code == "timeout" and "emulator-5554" in caught.value.message
        assert await ref.call(SessionCall("fine", _fine, {}), timeout=10) == {"ok": True, "id": "p"}
        nursery.cancel_scope.cancel()
