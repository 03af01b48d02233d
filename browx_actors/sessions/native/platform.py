"""What a native engine plugs into the shared session: a hierarchy source, an input
driver and a lifecycle, each a small protocol.

The shared machinery (:mod:`.native.session`, :mod:`.native.target`, :mod:`.native.reading`,
:mod:`.native.actions`, :mod:`.native.capture`) is written once against these; the android-app engine
implements them over adb (``sessions/android/``), the ios-app engine over WebDriverAgent
and simctl (``sessions/ios/``). An engine that has no primitive for something raises
``not-supported`` naming it (:func:`unsupported`), never a plausible success.

Coordinates are the platform's input space: device pixels on Android, points on iOS.
``InputDriver.scale`` says how many screenshot pixels one input unit is, so a capture
can be cropped to the bounds a hierarchy read just gave.

Every call runs under the budget of the tool call that made it (:class:`Budget`):
drivers take their timeouts from it, so no device command outlives its caller.
"""

from __future__ import annotations

import math
from typing import Protocol

import attrs
import trio

from ...devices.nodes import SECRET_MASK, NativeNode, Rect
from ...errors import ToolError
from ...jsonsafe import JsonObject

__all__ = [
    "ADB_NO_PINCH",
    "SECRET_CLEAR",
    "Budget",
    "HierarchySource",
    "InputDriver",
    "NativeLifecycle",
    "clear_count",
    "pinch_refusal",
    "unsupported",
]

#: Deletions sent to empty a password field that holds something: its length is never read.
SECRET_CLEAR = 64


@attrs.define
class Budget:
    """The deadline of the tool call in progress (``inf`` between calls)."""

    deadline: float = math.inf
    #: Cap on any one device command, so a call with a long budget still bounds each step.
    step_cap: float = 60.0

    def remaining(self) -> float:
        """Seconds left for the next command (at least a sliver, so an expired call fails
        at its next step with the platform's own timeout rather than hanging)."""
        return max(min(self.deadline - trio.current_time(), self.step_cap), 0.05)


def unsupported(engine: str, what: str, why: str) -> ToolError:
    """The refusal for a primitive ``engine`` lacks: names the engine and what is missing."""
    return ToolError("not-supported", f"{what} is not available on {engine}: {why}", engine=engine)


#: Why adb cannot pinch (refused with the code ``native-pinch-needs-multitouch-driver``).
ADB_NO_PINCH = ("adb shell input has no two-finger primitive (two concurrent `input swipe` calls are two unrelated "
                "drags, not a pinch), sendevent needs the touchscreen's device node and is root-only off an emulator, "
                "and real multi-touch needs a device-side UiAutomator2 instrumentation server, which is not shipped")


def pinch_refusal(engine: str) -> ToolError:
    """The driver's refusal of a pinch, with its own code."""
    return ToolError("native-pinch-needs-multitouch-driver", f"gesture_pinch is refused on {engine}: {ADB_NO_PINCH}",
                     engine=engine)


def clear_count(node: NativeNode) -> int:
    """How many characters to delete to empty a text field just focused: what it shows (an
    empty field shows its placeholder, and deleting there deletes nothing), or
    :data:`SECRET_CLEAR` for a password field that holds something."""
    if node.password:
        return SECRET_CLEAR if node.value == SECRET_MASK else 0
    return len(node.value or node.text or "")


class HierarchySource(Protocol):
    """Reads the screen's view hierarchy, freshly, every time it is asked."""

    async def read(self) -> NativeNode:
        """The current hierarchy (``native-hierarchy-not-idle`` when the window never settles)."""


class InputDriver(Protocol):
    """The platform's input pipeline and screen."""

    #: Screenshot pixels per input unit (1 on Android, the screen scale on iOS).
    scale: float

    async def tap(self, x: float, y: float) -> None: ...

    async def double_tap(self, x: float, y: float) -> None: ...

    async def long_press(self, x: float, y: float, ms: int) -> None: ...

    async def swipe(self, x1: float, y1: float, x2: float, y2: float, ms: int) -> None: ...

    async def type_text(self, text: str) -> None:
        """Type into whatever has keyboard focus."""

    async def fill(self, x: float, y: float, node: NativeNode, text: str) -> None:
        """Tap the field ``node`` at (x, y), empty it (:func:`clear_count`) and type ``text``.
        Text the platform cannot type is refused before anything is sent."""

    async def press_key(self, key: str) -> str:
        """Press a key by name or type one character; what was sent (``KEYCODE_BACK``)."""

    async def touch(self, action: str, x: float, y: float) -> None:
        """One raw touch event (``DOWN``, ``MOVE``, ``UP``)."""

    async def pinch(self, scale: float, velocity: float) -> None:
        """Two fingers around the screen's centre, their distance changing by ``scale``."""

    async def pinch_at(self, x: float, y: float, scale: float, ms: int, screen: Rect) -> JsonObject:
        """Two fingers about (x, y) on ``screen``, their distance changing by ``scale`` over
        ``ms``; where the fingers went."""

    async def screenshot(self) -> bytes:
        """The screen as PNG bytes, in pixels."""

    async def open_url(self, url: str) -> JsonObject:
        """Open a deep link; what the platform said about it."""

    async def back(self) -> None:
        """The platform's back navigation."""


class NativeLifecycle(Protocol):
    """The app lifecycle verbs (``app_*``), one surface over both platforms."""

    async def app_list(self, include_system: bool) -> JsonObject: ...

    async def app_install(self, path: str, reinstall: bool) -> JsonObject:
        """Install the bundle at ``path`` (already resolved inside the workspace)."""

    async def app_uninstall(self, app_id: str) -> JsonObject: ...

    async def app_launch(self, app_id: str) -> JsonObject: ...

    async def app_terminate(self, app_id: str) -> JsonObject: ...

    async def app_reset(self, app_id: str) -> JsonObject: ...

    async def app_foreground(self) -> JsonObject: ...
