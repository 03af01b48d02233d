"""The native gesture handlers over a recording driver: swipe between fresh points, one
raw finger (and a second refused), the pinch refusal on Android, WDA's centred pinch."""

from __future__ import annotations

from typing import Any

import pytest

from browx_actors import tools
from browx_actors.devices.nodes import NativeNode
from browx_actors.devices.uiautomator import parse_dump
from browx_actors.errors import ToolError
from browx_actors.sessions.android.table import ANDROID_APP
from browx_actors.sessions.ios.table import IOS_APP
from browx_actors.sessions.messages import ToolCall
from browx_actors.sessions.native import gestures
from browx_actors.sessions.native.session import NativeSession
from browx_actors.tools.pointer import GesturePinchArgs, GestureSwipeArgs, TouchEndArgs, TouchMoveArgs, TouchStartArgs
from fakes.adb_shop import emulator


class _Recorder:
    """An input driver that records what it was asked to do."""

    scale = 1.0

    def __init__(self) -> None:
        self.sent: list[tuple[Any, ...]] = []

    async def swipe(self, *args: Any) -> None:
        self.sent.append(("swipe", *args))

    async def touch(self, *args: Any) -> None:
        self.sent.append(("touch", *args))

    async def pinch(self, *args: Any) -> None:
        self.sent.append(("pinch", *args))

    async def pinch_at(self, *args: Any) -> dict[str, Any]:
        self.sent.append(("pinch_at", *args[:4]))
        return {"fingers": []}


class _Screen:
    def __init__(self, root: NativeNode) -> None:
        self.root = root

    async def read(self) -> NativeNode:
        return self.root


class _Session(NativeSession):
    """A native session whose source and driver the test sets; it connects to nothing."""

    async def connect(self) -> None:
        raise AssertionError("the gesture tests never start the actor")


def _session(screen: str = "catalog", engine: str = "android-app") -> tuple[NativeSession, _Recorder]:
    device = emulator()
    device.show("login")
    device.show(screen)
    table = IOS_APP if engine == "ios-app" else ANDROID_APP
    session = _Session("s", table=table, registry=lambda: None)  # type: ignore[arg-type, return-value]
    session.engine = engine  # type: ignore[misc]
    session.source = _Screen(parse_dump(device.dump()))
    recorder = _Recorder()
    session.driver = recorder  # type: ignore[assignment]
    return session, recorder


async def test_a_swipe_goes_between_points_read_freshly() -> None:
    session, driver = _session()
    swiped = await gestures.gesture_swipe(session, GestureSwipeArgs(from_={"selector": "~checkout-submit"},
                                                                    to={"x": 540, "y": 300}, duration_ms=250))
    assert driver.sent == [("swipe", 540.0, 1670.0, 540.0, 300.0, 250)]
    assert swiped["target"]["testId"] == "checkout-submit" and session.reads == 1
    with pytest.raises(ToolError) as caught:
        await gestures.gesture_swipe(session, GestureSwipeArgs(from_={"selector": "label=Add to cart"},
                                                               to={"x": 1, "y": 1}))
    assert caught.value.code == "ambiguous-target"


async def test_one_raw_finger_goes_down_moves_and_lifts() -> None:
    session, driver = _session()
    await gestures.touch_start(session, TouchStartArgs(points=[{"x": 100, "y": 200}]))
    with pytest.raises(ToolError) as caught:
        await gestures.touch_start(session, TouchStartArgs(points=[{"x": 1, "y": 1}]))
    assert caught.value.code == "bad-arg"
    moved = await gestures.touch_move(session, TouchMoveArgs(points=[{"x": 100, "y": 400}], steps=2))
    assert moved["moves"] == 2
    ended = await gestures.touch_end(session, TouchEndArgs())
    assert ended["lifted"] == [{"id": 0, "x": 100.0, "y": 400.0}]
    assert driver.sent == [("touch", "DOWN", 100.0, 200.0), ("touch", "MOVE", 100.0, 300.0),
                           ("touch", "MOVE", 100.0, 400.0), ("touch", "UP", 100.0, 400.0)]
    with pytest.raises(ToolError) as caught:
        await gestures.touch_end(session, TouchEndArgs())
    assert caught.value.code == "bad-arg" and "no finger is down" in caught.value.message
    with pytest.raises(ToolError) as caught:
        await gestures.touch_start(session, TouchStartArgs(points=[{"x": 1, "y": 1}, {"x": 2, "y": 2, "id": 1}]))
    assert caught.value.code == "not-supported" and "single pointer" in caught.value.message
    capped = await gestures.touch_start(session, TouchStartArgs(points=[{"x": 0, "y": 0}]))
    assert capped["touches"] == [{"id": 0, "x": 0.0, "y": 0.0}]
    many = await gestures.touch_move(session, TouchMoveArgs(points=[{"x": 0, "y": 100}], steps=50, duration_ms=500))
    assert many["moves"] == gestures.MAX_MOVES and len(many.warnings or []) == 2


async def test_android_refuses_to_pinch_and_ios_pinches_about_the_centre_or_any_point() -> None:
    session, driver = _session()
    pinch = GesturePinchArgs(center={"x": 540, "y": 897}, scale=0.5)
    with pytest.raises(ToolError) as caught:  # the android-app table's refusal, before anything is read
        await session.handle(ToolCall(tools.GESTURE_PINCH, pinch))
    assert caught.value.code == "native-pinch-needs-multitouch-driver" and session.reads == 0
    assert "UiAutomator2" in caught.value.message and driver.sent == []
    session.engine = "ios-app"
    pinched = await gestures.gesture_pinch(session, pinch)
    assert driver.sent == [("pinch", 0.5, -1.0)] and pinched["pinch"]["velocity"] == -1.0
    # About an element away from the centre: the driver's pinch about that point.
    aside = await gestures.gesture_pinch(session, GesturePinchArgs(center={"selector": "~promo-toggle"}, scale=2))
    assert driver.sent[-1] == ("pinch_at", 540.0, 300.0, 2.0, 500) and aside["pinch"]["fingers"] == []
