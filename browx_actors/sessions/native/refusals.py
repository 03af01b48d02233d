"""Why a native engine refuses a tool, naming the primitive it lacks.

A session tool whose engine has no handler is refused by the dispatch with
``not-supported``; the message comes from here (``NativeSession.refusal``), so it says
what is missing instead of only that something is. The reasons are the spec's:
"What works, and what refuses" for android-app, "Refuses, each naming the missing
primitive" for ios-app. Families are matched by name prefix too (``network_*``,
``cookies_*``, ``storage_*``, ``mouse_*``...), so tools other modules add later are
refused with the right reason as soon as they exist.
"""

from __future__ import annotations

__all__ = ["REFUSALS", "RESET_REFUSAL", "UNINSTALL_REFUSAL", "refusal_for"]

_SCRIPT = ("no scriptable context: a release-configuration React Native app exposes no JavaScript engine to "
           "drive from outside")
_NETWORK = ("no protocol-level network tap without a system proxy or VPN profile on the device, which is the "
            "operator's decision")
_STORAGE = "web storage: an app's data lives in its sandbox (app_reset clears it on android-app)"
_DEEP = "deep: false: a native screen has no Page, no DOM and no CDP target"
_TABS = "a native screen has no tabs (app_foreground says which app is in front)"
_CANVAS = "a native screen has no <canvas> or DOM to read (screenshot captures the screen)"
_WAIT = ("unmeasured dump cost: every probe would be a hierarchy dump (a few hundred ms, blocking on window "
         "idle); snapshot again once the screen has settled")
_VIEWPORT = "the screen size is the device's (its device type on iOS, the AVD's on Android)"
_SELECT = "no <select> element: tap the control, then tap the option (click by ref or selector)"
_HOVER = "a touch screen has no pointer to hover with"
_DIALOG = ("a native screen has no JavaScript dialogs: a system or app dialog is part of the hierarchy "
           "(find_feedback lists it, snapshot shows its buttons: tap one with click)")
_POINTER = "a touch screen has no mouse pipeline; use click, gesture_swipe and the touch tools"

UNINSTALL_REFUSAL = ("the session leases the simulator, it does not own it: simctl uninstall would remove an app "
                     "the operator may have installed by hand")
RESET_REFUSAL = "iOS has no per-app data clear; simctl erase would wipe every app on the simulator"

#: Reasons both native engines give.
_SHARED: dict[str, str] = {
    "eval_js": _SCRIPT, "poll_eval": _SCRIPT,
    "network_read": _NETWORK, "network_body": _NETWORK, "route": _NETWORK, "unroute": _NETWORK,
    "route_queue": _NETWORK, "network_*": _NETWORK, "route_*": _NETWORK,
    "cookies_*": _STORAGE, "storage_*": _STORAGE, "local_storage*": _STORAGE, "indexeddb*": _STORAGE,
    "cache_*": _STORAGE,
    "frames_list": _DEEP, "pdf_save": _DEEP + "; no print surface", "console_read": _DEEP, "emulate": _DEEP,
    "cdp_*": _DEEP, "inspect": _DEEP + " (snapshot and find show what the hierarchy holds)",
    "upload_file": _DEEP + "; install files with app_install", "downloads_list": _DEEP,
    "list_tabs": _TABS, "select_tab": _TABS, "close_tab": _TABS, "new_tab": _TABS,
    "canvas_*": _CANVAS, "gesture_chain": _CANVAS,
    "wait_for": _WAIT, "set_viewport": _VIEWPORT, "select": _SELECT, "choose_option": _SELECT,
    "fill_form": "fill the fields one by one with fill: each is a tap and typed text over adb or WebDriverAgent",
    "handle_dialog": _DIALOG, "set_dialog_policy": _DIALOG,
    "hover": _HOVER, "mouse_*": _POINTER, "double_click": _POINTER, "drag": _POINTER,
    "go_forward": "a native screen has no history stack to go forward in",
}

#: Reasons one engine gives (over the shared ones).
REFUSALS: dict[str, dict[str, str]] = {
    "android-app": {
        **_SHARED,
        "gesture_pinch": "adb shell input has no two-finger primitive; real multi-touch needs a device-side "
                         "UiAutomator2 instrumentation server, which is not shipped",
    },
    "ios-app": {
        **_SHARED,
        "touch_start": "XCUITest has taps, drags and pinches, no raw touch pipeline",
        "touch_move": "XCUITest has taps, drags and pinches, no raw touch pipeline",
        "touch_end": "XCUITest has taps, drags and pinches, no raw touch pipeline",
        "touch_*": "XCUITest has taps, drags and pinches, no raw touch pipeline",
        "go_back": "no history stack, and iOS has no back key (tap the screen's own back button)",
        "go_forward": "no history stack, and iOS has no back or forward key",
        "app_uninstall": UNINSTALL_REFUSAL,
        "app_reset": RESET_REFUSAL,
    },
}


def refusal_for(engine: str, tool: str) -> str | None:
    """``engine``'s reason for refusing ``tool``, or None when it has none on record."""
    table = REFUSALS.get(engine)
    if table is None:
        return None
    reason = table.get(tool)
    if reason is None:
        reason = next((why for name, why in table.items()
                       if name.endswith("*") and tool.startswith(name[:-1])), None)
    if reason is None:
        return None
    return f"{tool} is not available on {engine}: {reason}"
