"""Why a native engine refuses a tool: what a native screen lacks, in words an agent can act on.

The android-app and ios-app tables (``sessions/android/table.py``, ``sessions/ios/table.py``)
refuse each tool with one of these, and the refusal names the tool and the engine
(:class:`~browx_actors.tools.table.Refusal`). Each reason names the primitive the screen
lacks, so the agent knows what no retry will change; ``docs/engines.md`` lists them by
tool and engine.
"""

from __future__ import annotations

__all__ = [
    "CANVAS", "DEEP", "DIALOG", "HOVER", "NETWORK", "NO_FORWARD", "NO_TABS", "PERMISSIONS", "POINTER", "RESET",
    "SCRIPT",
    "SELECT", "STORAGE", "UNINSTALL", "VIEWPORT", "WAIT",
]

SCRIPT = ("no scriptable context: a release-configuration React Native app exposes no JavaScript engine to drive "
          "from outside")
NETWORK = ("no protocol-level network tap without a system proxy or VPN profile on the device, which is the "
           "operator's decision")
STORAGE = "web storage: an app's data lives in its sandbox (app_reset clears it on android-app)"
DEEP = "deep: false: a native screen has no Page, no DOM and no CDP target"
NO_TABS = "a native screen has no tabs (app_foreground says which app is in front)"
CANVAS = "a native screen has no <canvas> or DOM to read (screenshot captures the screen)"
WAIT = ("unmeasured dump cost: every probe would be a hierarchy dump (a few hundred ms, blocking on window idle); "
        "snapshot again once the screen has settled")
VIEWPORT = "the screen size is the device's (its device type on iOS, the AVD's on Android)"
SELECT = "no <select> element: tap the control, then tap the option (click by ref or selector)"
FILL_FORM = "fill the fields one by one with fill: each is a tap and typed text over adb or WebDriverAgent"
HOVER = "a touch screen has no pointer to hover with"
PERMISSIONS = ("an app's runtime permissions are the platform's: its permission dialog is a screen to snapshot and "
               "tap, and app_reset clears what was granted (android-app)")
DIALOG = ("a native screen has no JavaScript dialogs: a system or app dialog is part of the hierarchy "
          "(find_feedback lists it, snapshot shows its buttons: tap one with click)")
POINTER = "a touch screen has no mouse pipeline; use click, gesture_swipe and the touch tools"
NO_FORWARD = "a native screen has no history stack to go forward in"
UNINSTALL = ("the session leases the simulator, it does not own it: simctl uninstall would remove an app the "
             "operator may have installed by hand")
RESET = "iOS has no per-app data clear; simctl erase would wipe every app on the simulator"
