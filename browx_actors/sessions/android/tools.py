"""The android-app engine's handlers for the session tools, in ``IMPLEMENTATIONS``.

Most are the shared native handlers (``sessions/native/``: reading, actions, capture,
lifecycle) under this engine's name; the ones here are what only Android has or says:
screenshots are PNG only (JPEG refuses, as the spec has it). Tools with no handler here
are refused by the dispatch with ``not-supported`` and the reason
``AndroidSession.refusal`` gives (``sessions/native/refusals.py``). The app lifecycle
tools are declared with this engine's handlers (``sessions/native/lifecycle.py``).
"""

from __future__ import annotations

from ...tooling import Args, Implementation, Reply, implement
from ...tooling.tool import Handler
from ..native import actions, capture, reading
from ..native.visual import native_implementations
from .input import ENGINE
from .session import AndroidSession

__all__ = ["IMPLEMENTATIONS"]


@implement("screenshot", ENGINE)
async def screenshot(session: AndroidSession, args: Args) -> Reply:
    """PNG off screencap; an element or region capture is cropped to the bounds just read."""
    return await capture.screenshot(session, args, jpeg=False)


_SHARED: dict[str, Handler] = {
    "snapshot": reading.snapshot, "find": reading.find, "text_search": reading.text_search,
    "verify_visible": reading.verify_visible, "verify_text": reading.verify_text,
    "verify_value": reading.verify_value, "verify_attribute": reading.verify_attribute,
    "verify_count": reading.verify_count,
    "click": actions.click, "fill": actions.fill, "press": actions.press, "scroll": actions.scroll,
    "navigate": actions.navigate, "go_back": actions.go_back,
}

IMPLEMENTATIONS: list[Implementation] = [
    *(implement(tool, ENGINE)(handler) for tool, handler in _SHARED.items()),
    screenshot,
    *native_implementations(ENGINE),
]
