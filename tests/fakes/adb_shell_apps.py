"""The fake device shell's app and system commands: ``pm``, ``cmd``, ``am``, ``monkey``,
``dumpsys``, ``settings`` and ``run-as``, answering as an Android 14 emulator does.

Outputs come from :mod:`.android_formats` (pure functions, tested on their own); this
module decides what the device's state makes them say and with which exit code: ``pm``'s
``Success`` / ``Failure [CODE: detail]``, ``cmd``'s ``Can't find service`` (20),
``monkey`` aborting with 252 for a package with nothing to launch, ``run-as`` refusing a
package it does not know or that is not debuggable (1), ``settings get`` answering
``null`` for a key never set.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable
from typing import TYPE_CHECKING

from . import android_formats as formats
from .adb_shell import ShellResult

if TYPE_CHECKING:
    from .adb_device import FakeDevice

__all__ = ["APP_COMMANDS"]

#: ``am`` options that take a value (two for the typed extras); the rest are flags.
_AM_VALUES = {"-n": 1, "-a": 1, "-d": 1, "-c": 1, "-t": 1, "-f": 1, "--user": 1, "-e": 2, "--es": 2, "--ez": 2,
              "--ei": 2}
_SETTINGS_NAMESPACES = ("system", "secure", "global")


def _out(text: str, code: int = 0) -> ShellResult:
    return ShellResult(text.encode(), b"", code)


def _err(text: str, code: int = 1) -> ShellResult:
    return ShellResult(b"", text.encode(), code)


def _component(package: str, activity: str) -> str:
    """``package/activity`` with the activity fully qualified (``.Main`` -> ``pkg.Main``)."""
    return f"{package}/{package + activity if activity.startswith('.') else activity}"


def _launchable(device: FakeDevice) -> list[tuple[str, str]]:
    """(package, activity class) of every app with a launcher activity, system ones first."""
    system = [("com.android.settings", "com.android.settings.Settings")]
    apps = [(package, _component(package, activity).partition("/")[2])
            for package, activity in sorted(device.packages.items()) if activity is not None]
    return system + apps


def _pm(device: FakeDevice, args: list[str]) -> ShellResult:
    sub, rest = (args[0], args[1:]) if args else ("", [])
    packages = {**dict.fromkeys(device.system_packages), **device.packages}
    if sub == "list" and rest[:1] == ["packages"]:
        names = sorted(device.packages if "-3" in rest else packages)
        return _out("".join(f"package:{name}\n" for name in names))
    if sub == "list" and rest[:1] == ["features"]:
        return _out(formats.pm_list_features())
    if sub == "path" and rest:
        if device.pm_probes > 0:
            device.pm_probes -= 1
            return _err("cmd: Can't find service: package\n", 20)
        if rest[0] == "android":
            return _out("package:/system/framework/framework-res.apk\n")
        if rest[0] in packages:
            return _out(f"package:/data/app/~~fake==/{rest[0]}-1/base.apk\n")
        return _out("", 1)
    if sub == "install" and rest:
        return _pm_install(device, rest)
    if sub == "clear" and rest:
        if rest[0] not in packages:
            return _out("Failed\n", 1)
        device.fields.clear()
        device.toggles.clear()
        return _out("Success\n")
    if sub == "uninstall" and rest:
        if device.packages.pop(rest[0], "missing") == "missing":
            return _out("Failure [DELETE_FAILED_INTERNAL_ERROR]\n", 1)
        return _out("Success\n")
    return _err(f"Unknown command: {sub}\n", 255)


def _pm_install(device: FakeDevice, args: list[str]) -> ShellResult:
    path = args[-1]
    data = device.files.get(path)
    if data is None:
        return _out(f"Failure [INSTALL_FAILED_INVALID_URI: Path {path} does not exist]\n", 1)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            manifest = json.loads(archive.read("fake-manifest.json"))
    except (zipfile.BadZipFile, KeyError, ValueError):
        return _out(f"Failure [INSTALL_PARSE_FAILED_NOT_APK: Failed to parse {path}: Failed to load asset "
                    f"path {path}]\n", 1)
    if manifest["failure"]:
        return _out(f"Failure [{manifest['failure']}]\n", 1)
    if manifest["package"] in device.packages and "-r" not in args:
        return _out(f"Failure [INSTALL_FAILED_ALREADY_EXISTS: Attempt to re-install {manifest['package']} "
                    "without first uninstalling.]\n", 1)
    device.packages[manifest["package"]] = manifest["activity"]
    return _out("Success\n")


def _cmd(device: FakeDevice, args: list[str]) -> ShellResult:
    if args[:2] == ["package", "query-activities"]:
        wants_launcher = "android.intent.category.LAUNCHER" in args
        return _out(formats.query_activities(_launchable(device) if wants_launcher else []))
    if args[:2] != ["package", "resolve-activity"]:
        return _err(f"cmd: Can't find service: {args[0] if args else ''}\n", 20)
    package = args[-1]
    activity = device.packages.get(package)
    if activity is None:
        return _out("No activity found\n")
    return _out("priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false\n"
                f"{package}/{activity}\n")


def _am_options(args: list[str]) -> tuple[dict[str, str], set[str]]:
    """``am start``'s options (the last value of each) and its bare flags."""
    options: dict[str, str] = {}
    flags: set[str] = set()
    at = 0
    while at < len(args):
        word = args[at]
        width = _AM_VALUES.get(word, 0)
        if width:
            options[word] = " ".join(args[at + 1:at + 1 + width])
        elif word.startswith("-"):
            flags.add(word)
        at += 1 + width
    return options, flags


def _bring_up(device: FakeDevice, package: str, *, restart: bool) -> bool:
    """Put ``package`` in front: its launch screen afresh, or (``restart`` False, as the
    launcher does) its screens already open. True when it was not running (a cold start)."""
    running = [name for name in device.stack if device.screens[name].package == package]
    device.stack[:] = [name for name in device.stack if device.screens[name].package != package]
    if running and not restart:
        device.stack.extend(running)
    elif package in device.launch:
        device.show(device.launch[package])
    return not running


def _am(device: FakeDevice, args: list[str]) -> ShellResult:
    sub, rest = (args[0], args[1:]) if args else ("", [])
    if sub == "force-stop" and rest:
        device.stack[:] = [name for name in device.stack if device.screens[name].package != rest[0]]
        return _out("")
    if sub != "start":
        return _err(f"Error: unknown command '{sub}'\n", 255)
    options, flags = _am_options(rest)
    if "-n" in options:
        package, _, activity = options["-n"].partition("/")
        if package not in device.launch or device.packages.get(package) != activity:
            return _out(f"Starting: Intent {{ cmp={options['-n']} }}\nError type 3\nError: Activity class "
                        f"{{{options['-n']}}} does not exist.\n", 1)
        cold = _bring_up(device, package, restart=True)
        if "-W" in flags:
            return _out(formats.am_start_wait(options["-n"], cold=cold))
        return _out(f"Starting: Intent {{ cmp={options['-n']} }}\n")
    url = options.get("-d", "")
    intent = f"Intent {{ act={options.get('-a', '')} dat={url} flg=0x10000000 }}"
    prefix = max((p for p in device.links if url.startswith(p)), key=len, default=None)
    if prefix is None:
        return _out(f"Starting: {intent}\nError: Activity not started, unable to resolve {intent}\n", 255)
    device.show(device.links[prefix])
    return _out(f"Starting: {intent}\n")


def _monkey(device: FakeDevice, args: list[str]) -> ShellResult:
    """``monkey -p PKG -c CATEGORY 1``: what tools use to launch an app as the launcher does."""
    packages = [args[at + 1] for at, word in enumerate(args[:-1]) if word == "-p"]
    if not packages or not args[-1].isdigit():
        return _err("usage: monkey [-p ALLOWED_PACKAGE [-p ALLOWED_PACKAGE] ...] [-c MAIN_CATEGORY [-c "
                    "MAIN_CATEGORY] ...] ... COUNT\n", 255)
    launchable = [p for p in packages if device.packages.get(p) is not None]
    stdout, stderr, code = formats.monkey_launch(args, found=bool(launchable))
    if launchable:
        _bring_up(device, launchable[0], restart=False)
    return ShellResult(stdout.encode(), stderr.encode(), code)


def _dumpsys(device: FakeDevice, args: list[str]) -> ShellResult:
    service, rest = (args[0], args[1:]) if args else ("", [])
    if service == "window" and rest[:1] == ["displays"]:
        return _out(formats.dumpsys_window_displays(*device.size, device.density))
    if service == "package" and rest:
        packages = {**dict.fromkeys(device.system_packages), **device.packages}
        if rest[0] not in packages:
            return _out("")  # a filter that matches nothing prints no package block
        activity = packages[rest[0]]
        return _out(formats.dumpsys_package(rest[0], activity and _component(rest[0], activity).partition("/")[2]))
    if service == "SurfaceFlinger" and rest[:1] == ["--display-id"]:
        return _out(formats.surfaceflinger_display_ids())
    if service != "window":
        return _out(f"Can't find service: {service}\n")
    screen = device.screen
    focus = "null" if device.in_transition else f"Window{{5e1f3a2 u0 {screen.package}/{screen.activity}}}"
    return _out("WINDOW MANAGER WINDOWS (dumpsys window windows)\n"
                f"  Window #0 Window{{5e1f3a2 u0 {screen.package}/{screen.activity}}}:\n"
                f"  mCurrentFocus={focus}\n"
                f"  mFocusedApp=ActivityRecord{{9c2d1b0 u0 {screen.package}/{screen.activity} t17}}\n")


def _settings(device: FakeDevice, args: list[str]) -> ShellResult:
    """``settings get|put|list NAMESPACE ...``: a key never set reads ``null``."""
    verb, rest = (args[0], args[1:]) if args else ("", [])
    if not rest or rest[0] not in _SETTINGS_NAMESPACES:
        return _err(f"Invalid namespace '{rest[0] if rest else ''}'\n", 255)
    namespace = rest[0]
    if verb == "get" and len(rest) == 2:
        return _out(device.settings.get(f"{namespace}/{rest[1]}", "null") + "\n")
    if verb == "put" and len(rest) >= 3:
        device.settings[f"{namespace}/{rest[1]}"] = rest[2]
        return _out("")
    if verb == "list" and len(rest) == 1:
        keys = sorted(key for key in device.settings if key.startswith(namespace + "/"))
        return _out("".join(f"{key.partition('/')[2]}={device.settings[key]}\n" for key in keys))
    return _err(f"Invalid command: {verb}\n", 255)


def _run_as(device: FakeDevice, args: list[str]) -> ShellResult:
    """``run-as PKG COMMAND...``: the command, for a debuggable app's package only."""
    if len(args) < 2:
        return _err("run-as: usage: run-as <package-name> [--user <uid>] <command> [<args>]\n", 1)
    package = args[0]
    if package not in device.packages:
        return _err(f"run-as: unknown package: {package}\n", 1)
    if package not in device.debuggable:
        return _err(f"run-as: package not debuggable: {package}\n", 1)
    return device.run_argv(args[1:])


APP_COMMANDS: dict[str, Callable[[FakeDevice, list[str]], ShellResult]] = {
    "pm": _pm, "cmd": _cmd, "am": _am, "monkey": _monkey, "dumpsys": _dumpsys, "settings": _settings,
    "run-as": _run_as,
}
