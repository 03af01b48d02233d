"""The android-app engine's screenshots: PNG only (JPEG refuses), an
element or region capture cropped to the bounds just read."""

from __future__ import annotations

from ...tools import Reply
from ...tools.page import ScreenshotArgs, ScreenshotRegionArgs
from ..native import capture, gestures
from .session import AndroidSession

__all__ = ["screenshot", "screenshot_region"]


async def screenshot(session: AndroidSession, args: ScreenshotArgs) -> Reply:
    """PNG off screencap; an element or region capture is cropped to the bounds just read."""
    return await capture.screenshot(session, args, jpeg=False)


async def screenshot_region(session: AndroidSession, args: ScreenshotRegionArgs) -> Reply:
    """screenshot with a region, PNG only like every capture here."""
    return await gestures.screenshot_region(session, args, jpeg=False)


