"""The commands of the fake devices' shell, answering as Android's tools answer.

Each takes the device and its arguments and returns a :class:`ShellResult` (stdout,
stderr, exit code). The output shapes are the real tools': ``getprop``'s ``[key]:
[value]`` lines, ``uiautomator dump``'s ``UI hierchary dumped to:`` (sic) on stderr and
its idle failures with exit code 0, ``input``'s usage text (``motionevent`` listed only
from API 30), ``pm``'s ``Success`` / ``Failure [CODE: detail]``, ``cmd package
resolve-activity --brief``'s two lines, ``am start``'s ``Starting: Intent {...}`` and its
``Error:`` lines, ``dumpsys window``'s ``mCurrentFocus`` / ``mFocusedApp``.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable
from typing import TYPE_CHECKING

import attrs

if TYPE_CHECKING:
    from .adb_device import FakeDevice

__all__ = ["COMMANDS", "SDK_WITH_MOTIONEVENT", "ShellResult", "bounds", "fake_apk"]

SDK_WITH_MOTIONEVENT = 30


@attrs.frozen
class ShellResult:
    stdout: bytes = b""
    stderr: bytes = b""
    exit_code: int = 0


def _out(text: str | bytes, code: int = 0) -> ShellResult:
    return ShellResult(text.encode() if isinstance(text, str) else text, b"", code)


def _err(text: str, code: int = 1) -> ShellResult:
    return ShellResult(b"", text.encode(), code)


def fake_apk(package: str, *, activity: str | None = ".MainActivity", failure: str | None = None) -> bytes:
    """A zip (APKs are zips) whose ``fake-manifest.json`` says what installing it does.

    ``failure`` is the ``Failure [...]`` text pm prints, e.g.
    ``INSTALL_FAILED_NO_MATCHING_ABIS: Failed to extract native libraries, res=-113``.
    """
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("fake-manifest.json", json.dumps({"package": package, "activity": activity,
                                                           "failure": failure}))
    return buffer.getvalue()


def _usage(sdk: int) -> str:
    commands = [
        "text <string> (Default: touchscreen)",
        "keyevent [--longpress] <key code number or name> ... (Default: keyboard)",
        "tap <x> <y> (Default: touchscreen)",
        "swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)",
        "draganddrop <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)",
        "press (Default: trackball)",
        "roll <dx> <dy> (Default: trackball)",
    ]
    if sdk >= SDK_WITH_MOTIONEVENT:
        commands.append("motionevent <DOWN|UP|MOVE|CANCEL> <x> <y> (Default: touchscreen)")
    return ("Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]\n\nThe sources are:\n"
            "      keyboard\n      mouse\n      touchscreen\n      trackball\n\nThe commands and default "
            "sources are:\n" + "".join(f"      {line}\n" for line in commands))


def _decode_input_text(arg: str) -> str:
    """What ``input text`` types for its argument: ``%s`` is a space."""
    out: list[str] = []
    i = 0
    while i < len(arg):
        if arg.startswith("%s", i):
            out.append(" ")
            i += 2
        else:
            out.append(arg[i])
            i += 1
    return "".join(out)


def bounds(text: str) -> tuple[int, int, int, int]:
    try:
        left, top, right, bottom = (int(v) for v in text[1:-1].replace("][", ",").split(","))
    except ValueError:
        return (0, 0, 0, 0)
    return left, top, right, bottom


def _echo(device: FakeDevice, args: list[str]) -> ShellResult:
    return _out(" ".join(args) + "\n")


def _getprop(device: FakeDevice, args: list[str]) -> ShellResult:
    if args == ["sys.boot_completed"] and device.boot_probes > 0:
        device.boot_probes -= 1
        return _out("\n")  # not set yet: the system server is still starting
    if args:
        return _out(device.props.get(args[0], "") + "\n")
    return _out("".join(f"[{key}]: [{value}]\n" for key, value in sorted(device.props.items())))


def _uiautomator(device: FakeDevice, args: list[str]) -> ShellResult:
    if not args or args[0] != "dump":
        return _err("Usage: uiautomator <subcommand> [options]\n")
    paths = [arg for arg in args[1:] if not arg.startswith("--")]
    path = paths[0] if paths else "/sdcard/window_dump.xml"
    busy = device.screen.busy
    if busy and device.screen.settles_to and device.busy_dumps <= 0:
        device.stack[-1] = device.screen.settles_to
        busy = None
    if busy:
        device.busy_dumps -= 1
        message = ("ERROR: could not get idle state.\n" if busy == "idle"
                   else "ERROR: null root node returned by UiTestAutomationBridge.\n")
        return ShellResult(b"", message.encode(), 0)  # exit 0: only the text tells
    xml = device.dump()
    status = f"UI hierchary dumped to: {path}\n".encode()
    if path == "/dev/tty":
        return ShellResult(xml.encode(), status, 0)
    device.files[path] = xml.encode()
    return ShellResult(b"", status, 0)


def _cat(device: FakeDevice, args: list[str]) -> ShellResult:
    if not args or args[0] not in device.files:
        return _err(f"cat: {args[0] if args else '-'}: No such file or directory\n")
    return _out(device.files[args[0]])


def _rm(device: FakeDevice, args: list[str]) -> ShellResult:
    for path in (arg for arg in args if not arg.startswith("-")):
        if device.files.pop(path, None) is None and "-f" not in args:
            return _err(f"rm: {path}: No such file or directory\n")
    return _out("")


def _input(device: FakeDevice, args: list[str]) -> ShellResult:
    if args and args[0] in ("keyboard", "mouse", "touchscreen", "trackball"):
        args = args[1:]
    if not args:
        return _out(_usage(device.sdk))
    command, rest = args[0], args[1:]
    try:
        if command == "tap":
            device.gestures.append(f"tap {rest[0]} {rest[1]}")
            device.tap(float(rest[0]), float(rest[1]))
        elif command == "text":
            text = _decode_input_text(rest[0])
            device.typed.append(text)
            if device.focused:
                device.fields[device.focused] = device.fields.get(device.focused, "") + text
        elif command == "keyevent":
            for key in rest:
                device.keys.append(key)
                if key in ("KEYCODE_BACK", "4"):
                    device.back()
                elif key in ("KEYCODE_DEL", "67") and device.focused:
                    device.fields[device.focused] = device.fields.get(device.focused, "")[:-1]
                elif key in ("KEYCODE_HOME", "3"):
                    device.stack.clear()
        elif command == "swipe":
            device.gestures.append("swipe " + " ".join(rest[:4]) + " " + (rest[4] if len(rest) > 4 else "300"))
        elif command == "motionevent" and device.sdk >= SDK_WITH_MOTIONEVENT:
            device.gestures.append(f"motionevent {rest[0]} {rest[1]} {rest[2]}")
        else:
            return _err(f"Error: Unknown command: {command}\n" + _usage(device.sdk))
    except (IndexError, ValueError):
        return _err(f"Error: bad arguments for input {command}\n" + _usage(device.sdk))
    return _out("")


def _screencap(device: FakeDevice, args: list[str]) -> ShellResult:
    if args != ["-p"]:
        return _err("usage: screencap [-hp] [-d display-id] [FILENAME]\n")
    return _out(device.screencap())


def _wm(device: FakeDevice, args: list[str]) -> ShellResult:
    if args[:1] != ["size"]:
        return _err("Unknown command\n", 255)
    return _out(f"Physical size: {device.size[0]}x{device.size[1]}\n")


def _pm(device: FakeDevice, args: list[str]) -> ShellResult:
    sub, rest = (args[0], args[1:]) if args else ("", [])
    packages = {**dict.fromkeys(device.system_packages), **device.packages}
    if sub == "list" and rest[:1] == ["packages"]:
        names = sorted(device.packages if "-3" in rest else packages)
        return _out("".join(f"package:{name}\n" for name in names))
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
    if args[:2] != ["package", "resolve-activity"]:
        return _err(f"cmd: Can't find service: {args[0] if args else ''}\n", 20)
    package = args[-1]
    activity = device.packages.get(package)
    if activity is None:
        return _out("No activity found\n")
    return _out("priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false\n"
                f"{package}/{activity}\n")


def _am(device: FakeDevice, args: list[str]) -> ShellResult:
    sub, rest = (args[0], args[1:]) if args else ("", [])
    if sub == "force-stop" and rest:
        device.stack[:] = [name for name in device.stack if device.screens[name].package != rest[0]]
        return _out("")
    if sub != "start":
        return _err(f"Error: unknown command '{sub}'\n", 255)
    options = dict(zip(rest[::2], rest[1::2], strict=False))
    if "-n" in options:
        package, _, activity = options["-n"].partition("/")
        if package not in device.launch or device.packages.get(package) != activity:
            return _out(f"Starting: Intent {{ cmp={options['-n']} }}\nError type 3\nError: Activity class "
                        f"{{{options['-n']}}} does not exist.\n", 1)
        device.stack[:] = [name for name in device.stack if device.screens[name].package != package]
        device.show(device.launch[package])
        return _out(f"Starting: Intent {{ cmp={options['-n']} }}\n")
    url = options.get("-d", "")
    intent = f"Intent {{ act={options.get('-a', '')} dat={url} flg=0x10000000 }}"
    prefix = max((p for p in device.links if url.startswith(p)), key=len, default=None)
    if prefix is None:
        return _out(f"Starting: {intent}\nError: Activity not started, unable to resolve {intent}\n", 255)
    device.show(device.links[prefix])
    return _out(f"Starting: {intent}\n")


def _dumpsys(device: FakeDevice, args: list[str]) -> ShellResult:
    if args[:1] != ["window"]:
        return _out(f"Can't find service: {args[0] if args else ''}\n")
    screen = device.screen
    focus = "null" if device.in_transition else f"Window{{5e1f3a2 u0 {screen.package}/{screen.activity}}}"
    return _out("WINDOW MANAGER WINDOWS (dumpsys window windows)\n"
                f"  Window #0 Window{{5e1f3a2 u0 {screen.package}/{screen.activity}}}:\n"
                f"  mCurrentFocus={focus}\n"
                f"  mFocusedApp=ActivityRecord{{9c2d1b0 u0 {screen.package}/{screen.activity} t17}}\n")


COMMANDS: dict[str, Callable[[FakeDevice, list[str]], ShellResult]] = {
    "echo": _echo, "getprop": _getprop, "uiautomator": _uiautomator, "cat": _cat, "rm": _rm,
    "input": _input, "screencap": _screencap, "wm": _wm, "pm": _pm, "cmd": _cmd, "am": _am,
    "dumpsys": _dumpsys, "true": lambda d, a: _out(""), "false": lambda d, a: _out("", 1),
}


