"""The ios-app input driver and hierarchy source: WebDriverAgent over HTTP.

Taps, double taps, touch-and-hold, drags (``/wda/dragfromtoforduration``) and typed keys
(``/wda/keys``) go to the session's WDA session; the hierarchy is ``/source?format=json``
and the pixels ``/screenshot``. Coordinates are points; ``scale`` (from ``/wda/screen``)
is the pixels per point a capture is cropped with. Every request takes its timeout from
the tool call's deadline.

What XCUITest has no primitive for is refused, naming it: a raw touch pipeline, a back
key, the keys of a hardware keyboard beyond Return, Tab, Backspace and Delete.
"""

from __future__ import annotations

from ...devices.nodes import NativeNode, Rect
from ...devices.wda_actions import pinch_actions
from ...devices.wda_client import WdaClient
from ...errors import ToolError
from ...jsonsafe import JsonObject
from ..native.platform import Budget, clear_count, unsupported

__all__ = ["ENGINE", "WdaInput", "WdaSource"]

ENGINE = "ios-app"
#: Key names (case, ``_``, ``-`` and spaces ignored) -> what ``/wda/keys`` types.
_KEYS = {"enter": "\n", "return": "\n", "tab": "\t", "backspace": "\b", "delete": "\x7f", "space": " "}


class WdaSource:
    """``GET /source?format=json``, read into the shared node tree."""

    def __init__(self, client: WdaClient, budget: Budget) -> None:
        self.client = client
        self.budget = budget

    async def read(self) -> NativeNode:
        return await self.client.source(timeout=self.budget.remaining())


class WdaInput:
    """XCUITest's input pipeline, through WebDriverAgent."""

    def __init__(self, client: WdaClient, budget: Budget, scale: float) -> None:
        self.client = client
        self.budget = budget
        self.scale = scale

    async def tap(self, x: float, y: float) -> None:
        await self.client.tap(x, y, timeout=self.budget.remaining())

    async def double_tap(self, x: float, y: float) -> None:
        await self.client.double_tap(x, y, timeout=self.budget.remaining())

    async def long_press(self, x: float, y: float, ms: int) -> None:
        await self.client.touch_and_hold(x, y, ms / 1000, timeout=self.budget.remaining())

    async def swipe(self, x1: float, y1: float, x2: float, y2: float, ms: int) -> None:
        # WDA presses at the start for `duration` seconds, then drags at its own pace.
        await self.client.drag(x1, y1, x2, y2, max(ms, 50) / 1000, timeout=self.budget.remaining())

    async def type_text(self, text: str) -> None:
        await self.client.keys(text, timeout=self.budget.remaining())

    async def fill(self, x: float, y: float, node: NativeNode, text: str) -> None:
        # The tap focuses the field; one keys request then deletes what it holds and types.
        await self.tap(x, y)
        typed = "\b" * clear_count(node) + text
        if typed:
            await self.client.keys(typed, timeout=self.budget.remaining())

    async def press_key(self, key: str) -> str:
        if len(key) == 1:
            await self.type_text(key)
            return f"text {key!r}"
        name = "".join(key.split()).replace("_", "").replace("-", "").lower()
        if name == "home":
            await self.client.press_button("home", timeout=self.budget.remaining())
            return "button home"
        typed = _KEYS.get(name)
        if typed is None:
            raise ToolError("not-supported", f"ios-app has no key {key!r}: XCUITest types text and presses the "
                            "home button; its keys are Enter, Tab, Backspace, Delete, Space, Home, or one character",
                            engine=ENGINE, key=key)
        await self.type_text(typed)
        return f"key {name}"

    async def touch(self, action: str, x: float, y: float) -> None:
        raise unsupported(ENGINE, "raw touch events", "XCUITest has taps, drags and pinches, no raw touch pipeline")

    async def pinch(self, scale: float, velocity: float) -> None:
        await self.client.pinch(scale, velocity, timeout=self.budget.remaining())

    async def pinch_at(self, x: float, y: float, scale: float, ms: int, screen: Rect) -> JsonObject:
        plan = pinch_actions(x, y, scale, ms, (screen.x, screen.y, screen.width, screen.height))
        await self.client.perform_actions(plan.actions, timeout=self.budget.remaining())
        return {"fingers": [{"from": {"x": a[0], "y": a[1]}, "to": {"x": b[0], "y": b[1]}}
                            for a, b in zip(plan.start, plan.end, strict=True)]}

    async def screenshot(self) -> bytes:
        return await self.client.screenshot(timeout=self.budget.remaining())

    async def open_url(self, url: str) -> JsonObject:
        try:
            await self.client.open_url(url, timeout=self.budget.remaining())
        except ToolError as err:
            if err.code != "wda-error":
                raise
            raise ToolError("navigation-failed", f"the simulator did not open {url}: {err.message}", url=url) from err
        return {"openedWith": "WebDriverAgent /url"}

    async def back(self) -> None:
        raise unsupported(ENGINE, "go_back", "no history stack, and iOS has no back key")
