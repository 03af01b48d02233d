"""The ios-app engine's screenshots: WDA's PNG in pixels; element and region captures
cropped (points times the screen scale), JPEG encoded here: cropping and encoding take a
PNG decoder, and Pillow is a dependency here."""

from __future__ import annotations

from ...tools import Reply
from ...tools.page import ScreenshotArgs, ScreenshotRegionArgs
from ..native import capture, gestures
from .session import IosSession

__all__ = ["screenshot", "screenshot_region"]


async def screenshot(session: IosSession, args: ScreenshotArgs) -> Reply:
    """WDA's PNG in pixels; element and region captures cropped (points times the screen
    scale); JPEG encoded here."""
    return await capture.screenshot(session, args, jpeg=True)


async def screenshot_region(session: IosSession, args: ScreenshotRegionArgs) -> Reply:
    """screenshot with a region: cropped in pixels (points times the scale), PNG or JPEG."""
    return await gestures.screenshot_region(session, args, jpeg=True)


