"""The android-app engine's handlers for the session tools, in ``IMPLEMENTATIONS``.

Most are the shared native handlers (``sessions/native/common.py``, and capture and
lifecycle) under this engine's name; the ones here are what only Android has or says:
screenshots are PNG only (JPEG refuses, as the spec has it). Tools with no handler here
are refused by the dispatch with ``not-supported`` and the reason
``AndroidSession.refusal`` gives (``sessions/native/refusals.py``). The app lifecycle
tools are declared with this engine's handlers (``sessions/native/lifecycle.py``).
"""

from __future__ import annotations

from ...tools import Args, Implementation, Reply, implement
from ...tools.contract import Handler
from ..native import actions, capture, gestures
from ..native.common import COMMON_HANDLERS
from ..native.visual import native_implementations
from .input import ENGINE
from .session import AndroidSession

__all__ = ["IMPLEMENTATIONS"]


@implement("screenshot", ENGINE)
async def screenshot(session: AndroidSession, args: Args) -> Reply:
    """PNG off screencap; an element or region capture is cropped to the bounds just read."""
    return await capture.screenshot(session, args, jpeg=False)


@implement("screenshot_region", ENGINE)
async def screenshot_region(session: AndroidSession, args: Args) -> Reply:
    """screenshot with a region, PNG only like every capture here."""
    return await gestures.screenshot_region(session, args, jpeg=False)


_SHARED: dict[str, Handler] = {
    **COMMON_HANDLERS,
    "go_back": actions.go_back,
    "touch_start": gestures.touch_start, "touch_move": gestures.touch_move, "touch_end": gestures.touch_end,
    # Refused with the spec's own code (native-pinch-needs-multitouch-driver), not the
    # dispatch's generic not-supported: the handler raises it before anything is read.
    "gesture_pinch": gestures.refuse_pinch,
}

IMPLEMENTATIONS: list[Implementation] = [
    *(implement(tool, ENGINE)(handler) for tool, handler in _SHARED.items()),
    screenshot,
    screenshot_region,
    *native_implementations(ENGINE),
]
