"""The android-app engine's table, and chrome-android's.

android-app: the native lines both engines share (``sessions/native/table.py``), plus
what Android has or says: screenshots (PNG only), ``go_back`` (the back key), the raw
touch primitives, every app lifecycle verb, and the refusal of ``gesture_pinch`` with its
own code, ``native-pinch-needs-multitouch-driver`` (adb has no two-finger primitive).

chrome-android is the chromium engine attached to Chrome on the leased device
(``chrome.py``): it runs chromium's table as it is.
"""

from __future__ import annotations

from ... import tools
from ...tools import Table, refuses, runs
from ..chromium.table import TABLE as CHROMIUM
from ..native import actions, gestures, lifecycle
from ..native.platform import ADB_NO_PINCH
from ..native.table import COMMON
from . import capture

__all__ = ["ANDROID_APP", "CHROME_ANDROID"]

ANDROID_APP = Table.of("android-app", [
    *COMMON,
    runs(tools.GO_BACK, actions.go_back),
    runs(tools.SCREENSHOT, capture.screenshot),
    runs(tools.SCREENSHOT_REGION, capture.screenshot_region),
    runs(tools.TOUCH_START, gestures.touch_start),
    runs(tools.TOUCH_MOVE, gestures.touch_move),
    runs(tools.TOUCH_END, gestures.touch_end),
    refuses(tools.GESTURE_PINCH, ADB_NO_PINCH, code="native-pinch-needs-multitouch-driver"),
    runs(tools.APP_LIST, lifecycle.app_list),
    runs(tools.APP_INSTALL, lifecycle.app_install),
    runs(tools.APP_UNINSTALL, lifecycle.app_uninstall),
    runs(tools.APP_LAUNCH, lifecycle.app_launch),
    runs(tools.APP_TERMINATE, lifecycle.app_terminate),
    runs(tools.APP_RESET, lifecycle.app_reset),
    runs(tools.APP_FOREGROUND, lifecycle.app_foreground),
])

CHROME_ANDROID = CHROMIUM.renamed("chrome-android")
