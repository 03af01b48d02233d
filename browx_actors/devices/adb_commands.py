"""The shell commands the android-app engine sends over adb, built and quoted in one place.

Every command goes to the device's ``sh``, so every value that comes from a caller is
validated (package names, components, URLs, coordinates) or quoted (``shlex.quote``,
POSIX single quotes, which the device's mksh/toybox shell reads the same way) here, and
the engine never formats a command line itself. What the commands print is parsed in
:mod:`.adb_output`.

``input text`` has two traps of its own. It decodes ``%s`` as a space (the only way to
type one), and it cannot type a literal ``%`` followed by ``s`` at all: there is no
escape for it. So spaces are sent as ``%s`` and the text is split into several commands
between any ``%`` and a following ``s``. It types ASCII only (its key map has nothing
else), so anything outside printable ASCII is refused as ``bad-arg`` rather than typed
wrong; Enter and Tab are keys (``press``), not text.
"""

from __future__ import annotations

import math
import re
import shlex

import attrs

from browx_actors.errors import ToolError

from .adb_output import COMPONENT

__all__ = [
    "BOOT_COMPLETED", "INPUT_USAGE", "KEY_NAMES", "MOTION_ACTIONS", "PACKAGE_MANAGER_READY", "SCREENCAP_PNG",
    "UIAUTOMATOR_DUMP_TTY", "WINDOW_DUMP", "WM_SIZE", "KeyPress", "clear_data_command", "force_stop_command",
    "input_text_commands", "install_command", "key_press", "list_packages_command", "long_press_command",
    "motionevent_command", "package_name", "resolve_launcher_command", "start_activity_command",
    "swipe_command", "tap_command", "uninstall_command", "view_intent_command",
]

#: ``exec-out`` these (binary-safe streams); the rest are plain shell commands.
UIAUTOMATOR_DUMP_TTY = "uiautomator dump /dev/tty"
SCREENCAP_PNG = "screencap -p"
#: ``1`` once booted; the package manager answers this once it is up.
BOOT_COMPLETED = "getprop sys.boot_completed"
PACKAGE_MANAGER_READY = "pm path android"
WINDOW_DUMP = "dumpsys window"
#: ``input`` alone prints its usage, which names ``motionevent`` where it exists (API 30+):
#: see :func:`.adb_output.supports_motionevent`.
INPUT_USAGE = "input"
WM_SIZE = "wm size"

_PACKAGE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)+$")
_URL_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:\S+$")
_KEYCODE = re.compile(r"^KEYCODE_[A-Z0-9_]+$")


# -- validation -----------------------------------------------------------------------


def package_name(value: str, field: str = "appId") -> str:
    """An Android package name, or ``bad-arg``: it is about to reach a shell."""
    if not _PACKAGE.match(value):
        raise ToolError("bad-arg", f"{value!r} is not an Android package name (like com.example.shop)",
                        field=field)
    return value


def _coordinate(value: float, field: str) -> int:
    if not math.isfinite(value) or value < 0:
        raise ToolError("bad-arg", f"{field} must be a finite, non-negative number of device pixels",
                        field=field)
    return round(value)


# -- typing and keys ------------------------------------------------------------------


def input_text_commands(text: str, field: str = "value") -> tuple[str, ...]:
    """``input text`` commands that type ``text`` exactly (several when it holds ``%s``)."""
    for at, char in enumerate(text):
        if not " " <= char <= "~":
            what = {"\n": "a newline", "\r": "a carriage return", "\t": "a tab"}.get(char, f"{char!r}")
            hint = " (press Enter or Tab as keys)" if char in "\n\r\t" else ""
            raise ToolError("bad-arg", f"adb input text types printable ASCII only; {field} holds {what} at "
                            f"index {at}{hint}", field=field)
    # Cut between every '%' and an 's' after it: "%s" would be read as a space.
    pieces = re.split(r"(?<=%)(?=s)", text)
    return tuple("input text " + shlex.quote(piece.replace(" ", "%s")) for piece in pieces if piece)


#: Key names (case, ``_``, ``-`` and spaces ignored) -> Android key codes. Web semantics
#: where they clash: Backspace deletes backwards (KEYCODE_DEL), Delete forwards.
KEY_NAMES: dict[str, str] = {
    "back": "KEYCODE_BACK", "home": "KEYCODE_HOME", "menu": "KEYCODE_MENU",
    "appswitch": "KEYCODE_APP_SWITCH", "recents": "KEYCODE_APP_SWITCH",
    "enter": "KEYCODE_ENTER", "return": "KEYCODE_ENTER", "tab": "KEYCODE_TAB", "space": "KEYCODE_SPACE",
    "backspace": "KEYCODE_DEL", "delete": "KEYCODE_FORWARD_DEL", "escape": "KEYCODE_ESCAPE",
    "esc": "KEYCODE_ESCAPE",
    "arrowup": "KEYCODE_DPAD_UP", "arrowdown": "KEYCODE_DPAD_DOWN", "arrowleft": "KEYCODE_DPAD_LEFT",
    "arrowright": "KEYCODE_DPAD_RIGHT", "up": "KEYCODE_DPAD_UP", "down": "KEYCODE_DPAD_DOWN",
    "left": "KEYCODE_DPAD_LEFT", "right": "KEYCODE_DPAD_RIGHT", "dpadcenter": "KEYCODE_DPAD_CENTER",
    "pageup": "KEYCODE_PAGE_UP", "pagedown": "KEYCODE_PAGE_DOWN", "end": "KEYCODE_MOVE_END",
    "search": "KEYCODE_SEARCH", "volumeup": "KEYCODE_VOLUME_UP", "volumedown": "KEYCODE_VOLUME_DOWN",
    "volumemute": "KEYCODE_VOLUME_MUTE", "power": "KEYCODE_POWER", "wakeup": "KEYCODE_WAKEUP",
    "sleep": "KEYCODE_SLEEP", "notification": "KEYCODE_NOTIFICATION", "camera": "KEYCODE_CAMERA",
}


@attrs.frozen
class KeyPress:
    """A key as adb sends it: a key code, or one character typed."""

    keycode: str | None = None
    char: str | None = None

    def commands(self) -> tuple[str, ...]:
        if self.keycode is not None:
            return (f"input keyevent {self.keycode}",)
        assert self.char is not None
        return input_text_commands(self.char, field="key")


def key_press(key: str) -> KeyPress:
    """``back``, ``Enter``, ``ArrowUp``, ``KEYCODE_*``, or a single character to type."""
    if len(key) == 1:
        input_text_commands(key, field="key")  # the same ASCII rule as text
        return KeyPress(char=key)
    if _KEYCODE.match(key.upper()):
        return KeyPress(keycode=key.upper())
    if "+" in key:
        raise ToolError("bad-arg", f"{key!r} is a chord; adb input sends one key at a time (press the keys "
                        "separately, or use a KEYCODE_*)", field="key")
    keycode = KEY_NAMES.get(re.sub(r"[\s_-]", "", key).lower())
    if keycode is None:
        known = ", ".join(sorted(KEY_NAMES))
        raise ToolError("bad-arg", f"unknown key {key!r}: use one of {known}, any KEYCODE_*, or one "
                        "character", field="key")
    return KeyPress(keycode=keycode)


# -- pointer ------------------------------------------------------------------------


def tap_command(x: float, y: float) -> str:
    return f"input tap {_coordinate(x, 'x')} {_coordinate(y, 'y')}"


def swipe_command(x1: float, y1: float, x2: float, y2: float, duration_ms: int = 300) -> str:
    """``input swipe``; a long press is a swipe in place held for about a second."""
    if duration_ms < 0:
        raise ToolError("bad-arg", "duration must be non-negative milliseconds", field="durationMs")
    points = (_coordinate(x1, "x1"), _coordinate(y1, "y1"), _coordinate(x2, "x2"), _coordinate(y2, "y2"))
    return "input swipe {} {} {} {} ".format(*points) + str(int(duration_ms))


def long_press_command(x: float, y: float, duration_ms: int = 1000) -> str:
    return swipe_command(x, y, x, y, duration_ms)


MOTION_ACTIONS = ("DOWN", "MOVE", "UP", "CANCEL")


def motionevent_command(action: str, x: float, y: float) -> str:
    """``input motionevent DOWN|MOVE|UP|CANCEL x y`` (probe ``supports_motionevent`` first)."""
    if action.upper() not in MOTION_ACTIONS:
        raise ToolError("bad-arg", f"motion action must be one of {', '.join(MOTION_ACTIONS)}", field="action")
    return f"input motionevent {action.upper()} {_coordinate(x, 'x')} {_coordinate(y, 'y')}"


# -- apps and intents -----------------------------------------------------------------


def view_intent_command(url: str) -> str:
    """A VIEW intent for a deep link: the one kind of navigation a native screen has."""
    if not _URL_SCHEME.match(url):
        raise ToolError("bad-arg", f"{url!r} is not a deep link: pass a full URL with its scheme "
                        "(myapp://checkout/42)", field="url")
    return "am start -a android.intent.action.VIEW -d " + shlex.quote(url)


def start_activity_command(component: str) -> str:
    """``am start -n pkg/.Activity`` for a component ``resolve-activity`` answered."""
    if not COMPONENT.match(component):
        raise ToolError("bad-arg", f"{component!r} is not an activity component (pkg/.Activity)",
                        field="activity")
    return f"am start -n {component}"


def resolve_launcher_command(package: str) -> str:
    return ("cmd package resolve-activity --brief -c android.intent.category.LAUNCHER "
            + package_name(package))


def force_stop_command(package: str) -> str:
    return "am force-stop " + package_name(package)


def clear_data_command(package: str) -> str:
    """``pm clear``: data, caches and granted runtime permissions."""
    return "pm clear " + package_name(package)


def uninstall_command(package: str) -> str:
    return "pm uninstall " + package_name(package)


def install_command(remote_path: str, reinstall: bool = False) -> str:
    """``pm install`` of an APK already pushed to the device (``-t``: test-only builds too)."""
    return "pm install " + ("-r " if reinstall else "") + "-t " + shlex.quote(remote_path)


def list_packages_command(include_system: bool = False) -> str:
    return "pm list packages" if include_system else "pm list packages -3"
