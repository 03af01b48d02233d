"""The ios-app engine's handlers for the session tools, in ``IMPLEMENTATIONS``.

The shared native handlers (``sessions/native/common.py``) under this engine's name, and the
lifecycle verbs simctl has (app_list, app_install, app_launch, app_terminate,
app_foreground). Screenshots go past the spec's refusal of element-scoped and JPEG
captures, whose reason (no PNG decoder) is gone: Pillow is a dependency here, so they
are cropped and encoded like Android's, JPEG included. Tools with no handler here are
refused with the reason ``IosSession.refusal`` gives (``sessions/native/refusals.py``):
touch_*, go_back, app_uninstall and app_reset among them.
"""

from __future__ import annotations

from ...tools import Args, Implementation, Reply, implement
from ...tools.contract import Handler
from ..native import capture, gestures, lifecycle
from ..native.common import COMMON_HANDLERS
from ..native.visual import native_implementations
from .input import ENGINE
from .session import IosSession

__all__ = ["IMPLEMENTATIONS"]


@implement("screenshot", ENGINE)
async def screenshot(session: IosSession, args: Args) -> Reply:
    """WDA's PNG in pixels; element and region captures cropped (points times the screen
    scale); JPEG encoded here."""
    return await capture.screenshot(session, args, jpeg=True)


@implement("screenshot_region", ENGINE)
async def screenshot_region(session: IosSession, args: Args) -> Reply:
    """screenshot with a region: cropped in pixels (points times the scale), PNG or JPEG."""
    return await gestures.screenshot_region(session, args, jpeg=True)


_SHARED: dict[str, Handler] = {
    **COMMON_HANDLERS,
    "gesture_pinch": gestures.gesture_pinch,
    **{tool: lifecycle.HANDLERS[tool] for tool in ("app_list", "app_install", "app_launch", "app_terminate",
                                                   "app_foreground")},
}

IMPLEMENTATIONS: list[Implementation] = [
    *(implement(tool, ENGINE)(handler) for tool, handler in _SHARED.items()),
    screenshot,
    screenshot_region,
    *native_implementations(ENGINE),
]
