"""Parsers for what the adb server and the device's tools print.

Pure functions over text, one per command the engine reads: ``host:devices-l`` lines,
``getprop``, ``wm size``, ``input``'s usage (does it offer ``motionevent``?), ``cmd package
resolve-activity --brief``, ``am start``'s error lines (it may exit 0 anyway), ``pm list
packages``, ``dumpsys window``'s focus (null during a transition, a real state), and
``pm install`` / ``adb install`` failures turned into a readable reason next to adb's own
code and detail. The commands themselves are built in :mod:`.adb_commands`.
"""

from __future__ import annotations

import re

import attrs

__all__ = [
    "COMPONENT", "INSTALL_REASONS", "DeviceEntry", "Foreground", "InstallFailure", "emulator_console_port",
    "parse_devices", "parse_getprop", "parse_install_output", "parse_package_list", "parse_resolve_activity",
    "parse_window_focus", "parse_wm_size", "start_failure", "supports_motionevent",
]

#: An activity component, ``pkg/.Activity`` or ``pkg/full.Class``.
COMPONENT = re.compile(r"^([A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)+)/([A-Za-z0-9_.$]+)$")


def supports_motionevent(usage: str) -> bool:
    """Whether the device's ``input`` usage text offers ``motionevent`` (Android 11, API 30+)."""
    return "motionevent" in usage.lower()


# -- apps -----------------------------------------------------------------------------


def parse_resolve_activity(output: str) -> str | None:
    """The ``pkg/.Activity`` on the last line, or None (``No activity found``)."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    if not lines or "No activity found" in output:
        return None
    return lines[-1] if COMPONENT.match(lines[-1]) else None


def start_failure(output: str) -> str | None:
    """``am start``'s error line (it may exit 0 anyway), or None when it started."""
    for line in output.splitlines():
        if line.startswith(("Error:", "Error type", "Exception", "java.lang.")):
            return line.strip()
    return None


def parse_package_list(output: str) -> tuple[str, ...]:
    """``package:com.x`` lines (``package:/path.apk=com.x`` with ``-f``) -> sorted ids."""
    found = set()
    for line in output.splitlines():
        line = line.strip()
        if line.startswith("package:"):
            found.add(line[len("package:"):].rpartition("=")[2])
    return tuple(sorted(found))


# -- what is on screen ----------------------------------------------------------------


@attrs.frozen
class Foreground:
    """The app whose window has focus; ``activity`` is a full class name."""

    package: str
    activity: str

    @property
    def url(self) -> str:
        return f"app://{self.package}/{self.activity}"


_WINDOW = re.compile(r"\{\S+ \S+ ([A-Za-z0-9_.]+)/([A-Za-z0-9_.$]+)")


def _activity_of(value: str) -> Foreground | None:
    match = _WINDOW.search(value)
    if match is None:
        return None
    package, activity = match.groups()
    return Foreground(package, package + activity if activity.startswith(".") else activity)


def parse_window_focus(dumpsys: str) -> Foreground | None:
    """The focused app from ``dumpsys window``; None during a window transition.

    ``mCurrentFocus=null`` is a transition (a real state, answered as None). A focused
    window that is no activity (the status bar, a toast) falls back to ``mFocusedApp``.
    """
    current = focused_app = None
    for line in dumpsys.splitlines():
        line = line.strip()
        if current is None and line.startswith("mCurrentFocus="):
            current = line[len("mCurrentFocus="):]
        elif focused_app is None and line.startswith("mFocusedApp="):
            focused_app = line[len("mFocusedApp="):]
    if current is None or current == "null":
        return None
    return _activity_of(current) or (_activity_of(focused_app) if focused_app else None)


def parse_wm_size(output: str) -> tuple[int, int] | None:
    """``wm size`` -> (width, height); an override wins over the physical size."""
    sizes = dict(re.findall(r"(Physical|Override) size: (\d+x\d+)", output))
    size = sizes.get("Override") or sizes.get("Physical")
    if size is None:
        return None
    width, height = size.split("x")
    return int(width), int(height)


# -- properties -----------------------------------------------------------------------


def parse_getprop(output: str) -> dict[str, str]:
    """Full ``getprop`` output (``[key]: [value]`` lines, values may span lines) -> dict."""
    props: dict[str, str] = {}
    key: str | None = None
    value: list[str] = []
    for line in output.replace("\r", "").split("\n"):
        if key is None:
            head, sep, rest = line.partition("]: [")
            if not sep or not head.startswith("["):
                continue
            key, line = head[1:], rest
        if line.endswith("]"):
            value.append(line[:-1])
            props[key] = "\n".join(value)
            key, value = None, []
        else:
            value.append(line)
    return props


# -- installs -------------------------------------------------------------------------


#: pm's failure codes -> what they mean for the person holding the APK.
INSTALL_REASONS: dict[str, str] = {
    "INSTALL_FAILED_NO_MATCHING_ABIS": "the APK has no native code for this device's CPU ABI (an arm-only "
    "build on an x86_64 emulator, say)",
    "INSTALL_FAILED_INSUFFICIENT_STORAGE": "the device has not enough free storage for the APK",
    "INSTALL_PARSE_FAILED_NO_CERTIFICATES": "the APK is not signed (an unsigned release build): sign it or "
    "install a debug build",
    "INSTALL_FAILED_UPDATE_INCOMPATIBLE": "the installed copy is signed with a different key: uninstall it "
    "first (which deletes its data)",
    "INSTALL_FAILED_VERSION_DOWNGRADE": "the installed copy is a newer version than this APK",
    "INSTALL_FAILED_ALREADY_EXISTS": "the app is installed already: reinstall it instead",
    "INSTALL_FAILED_OLDER_SDK": "the APK needs a newer Android version than the device runs",
    "INSTALL_FAILED_DEPRECATED_SDK_VERSION": "the APK targets an SDK level too old for this Android version",
    "INSTALL_FAILED_TEST_ONLY": "the APK is marked test-only",
    "INSTALL_FAILED_INVALID_APK": "the file is not a valid APK",
    "INSTALL_PARSE_FAILED_NOT_APK": "the file is not an APK",
    "INSTALL_PARSE_FAILED_MANIFEST_MALFORMED": "the APK's manifest is malformed",
    "INSTALL_FAILED_DUPLICATE_PERMISSION": "the APK defines a permission another installed app defines",
    "INSTALL_FAILED_CONFLICTING_PROVIDER": "a content provider authority of the APK belongs to another app",
    "INSTALL_FAILED_MISSING_SHARED_LIBRARY": "the APK needs a shared library the device does not have",
    "INSTALL_FAILED_USER_RESTRICTED": "this device's user may not install apps (or declined the prompt)",
    "INSTALL_FAILED_VERIFICATION_FAILURE": "package verification rejected the APK",
    "INSTALL_FAILED_ABORTED": "the install was aborted on the device",
}

_FAILURE = re.compile(r"Failure \[([A-Z0-9_-]+)(?::\s*(.*?))?\]\s*$", re.MULTILINE)


@attrs.frozen
class InstallFailure:
    """Why ``pm install`` / ``adb install`` refused: pm's code, its detail, and a reason."""

    code: str
    detail: str
    reason: str

    @property
    def message(self) -> str:
        return f"{self.reason} ({self.code}{': ' + self.detail if self.detail else ''})"


def parse_install_output(output: str) -> InstallFailure | None:
    """None on ``Success``; otherwise what went wrong, in adb's words and in plain ones."""
    match = _FAILURE.search(output)
    if match is not None:
        code, detail = match.group(1), (match.group(2) or "").strip()
        reason = INSTALL_REASONS.get(code, "the package manager refused the APK")
        return InstallFailure(code, detail, reason)
    if re.search(r"^Success\s*$", output, re.MULTILINE):
        return None
    text = " ".join(output.split())[:300] or "(no output)"
    return InstallFailure("UNKNOWN", text, "pm install printed neither Success nor a failure code")


# -- devices --------------------------------------------------------------------------


@attrs.frozen
class DeviceEntry:
    """One line of ``host:devices`` / ``host:devices-l``."""

    serial: str
    state: str
    product: str | None = None
    model: str | None = None
    device: str | None = None
    transport_id: int | None = None
    usb: str | None = None

    @property
    def emulator(self) -> bool:
        return self.serial.startswith("emulator-")


_DEVICE_FIELDS = ("usb:", "product:", "model:", "device:", "transport_id:")


def parse_devices(output: str) -> tuple[DeviceEntry, ...]:
    """Both listing formats (a state may hold spaces: ``no permissions (...)``)."""
    entries = []
    for line in output.splitlines():
        if not line.strip() or line.startswith(("List of devices", "* ", "adb server")):
            continue
        serial, _, rest = line.strip().partition("\t") if "\t" in line else line.strip().partition(" ")
        words = rest.split()
        cut = next((i for i, word in enumerate(words) if word.startswith(_DEVICE_FIELDS)), len(words))
        fields = dict(word.split(":", 1) for word in words[cut:] if ":" in word)
        transport = fields.get("transport_id")
        entries.append(DeviceEntry(
            serial=serial, state=" ".join(words[:cut]), product=fields.get("product"),
            model=fields.get("model"), device=fields.get("device"),
            transport_id=int(transport) if transport and transport.isdigit() else None, usb=fields.get("usb"),
        ))
    return tuple(entries)


def emulator_console_port(serial: str) -> int | None:
    """``emulator-5554`` -> 5554, where ``emu`` commands go (never through the adb server)."""
    prefix, _, port = serial.partition("-")
    return int(port) if prefix == "emulator" and port.isdigit() else None
