"""The ios-app engine's handlers for the session tools, in ``IMPLEMENTATIONS``.

The shared native handlers (``sessions/native/``) under this engine's name, and the
lifecycle verbs simctl has (app_list, app_install, app_launch, app_terminate,
app_foreground). Screenshots go past the spec's refusal of element-scoped and JPEG
captures, whose reason (no PNG decoder) is gone: Pillow is a dependency here, so they
are cropped and encoded like Android's, JPEG included. Tools with no handler here are
refused with the reason ``IosSession.refusal`` gives (``sessions/native/refusals.py``):
touch_*, go_back, app_uninstall and app_reset among them.
"""

from __future__ import annotations

from ...tooling import Args, Implementation, Reply, implement
from ...tooling.tool import Handler
from ..native import actions, capture, lifecycle, reading
from ..native.visual import native_implementations
from .input import ENGINE
from .session import IosSession

__all__ = ["IMPLEMENTATIONS"]


@implement("screenshot", ENGINE)
async def screenshot(session: IosSession, args: Args) -> Reply:
    """WDA's PNG in pixels; element and region captures cropped (points times the screen
    scale); JPEG encoded here."""
    return await capture.screenshot(session, args, jpeg=True)


_SHARED: dict[str, Handler] = {
    "snapshot": reading.snapshot, "find": reading.find, "text_search": reading.text_search,
    "verify_visible": reading.verify_visible, "verify_text": reading.verify_text,
    "verify_value": reading.verify_value, "verify_attribute": reading.verify_attribute,
    "verify_count": reading.verify_count,
    "click": actions.click, "fill": actions.fill, "press": actions.press, "scroll": actions.scroll,
    "navigate": actions.navigate,
    **{tool: lifecycle.HANDLERS[tool] for tool in ("app_list", "app_install", "app_launch", "app_terminate",
                                                   "app_foreground")},
}

IMPLEMENTATIONS: list[Implementation] = [
    *(implement(tool, ENGINE)(handler) for tool, handler in _SHARED.items()),
    screenshot,
    *native_implementations(ENGINE),
]
