"""The ios-app engine's table: the native lines both engines share
(``sessions/native/table.py``), plus what iOS has or says: screenshots (PNG and JPEG,
cropped in pixels), WebDriverAgent's pinch, the simctl lifecycle verbs, and the refusals
of what XCUITest and a leased simulator do not offer.
"""

from __future__ import annotations

from ... import tools
from ...tools import Table, refuses, runs
from ..native import gestures, lifecycle
from ..native.refusals import RESET, UNINSTALL
from ..native.table import COMMON
from . import capture

__all__ = ["IOS_APP"]

#: Why the raw touch tools refuse.
_NO_RAW_TOUCH = "XCUITest has taps, drags and pinches, no raw touch pipeline"

IOS_APP = Table.of("ios-app", [
    *COMMON,
    refuses(tools.GO_BACK, "no history stack, and iOS has no back key (tap the screen's own back button)"),
    runs(tools.SCREENSHOT, capture.screenshot),
    runs(tools.SCREENSHOT_REGION, capture.screenshot_region),
    refuses(tools.TOUCH_START, _NO_RAW_TOUCH),
    refuses(tools.TOUCH_MOVE, _NO_RAW_TOUCH),
    refuses(tools.TOUCH_END, _NO_RAW_TOUCH),
    runs(tools.GESTURE_PINCH, gestures.gesture_pinch),
    runs(tools.APP_LIST, lifecycle.app_list),
    runs(tools.APP_INSTALL, lifecycle.app_install),
    refuses(tools.APP_UNINSTALL, UNINSTALL),
    runs(tools.APP_LAUNCH, lifecycle.app_launch),
    runs(tools.APP_TERMINATE, lifecycle.app_terminate),
    refuses(tools.APP_RESET, RESET),
    runs(tools.APP_FOREGROUND, lifecycle.app_foreground),
])
