"""The commands of the fake devices' shell, answering as Android's tools answer.

Each takes the device and its arguments and returns a :class:`ShellResult` (stdout,
stderr, exit code). The output shapes are the real tools': ``getprop``'s ``[key]:
[value]`` lines, ``uiautomator dump``'s ``UI hierchary dumped to:`` (sic) after the XML
when dumping to ``/dev/tty`` (on stderr for a file) and its idle failures with exit code
0, ``input``'s usage text (``motionevent`` listed only from API 30), ``wm size`` and ``wm
density``, toybox's ``cat`` / ``rm`` / ``mv`` messages. The app and system commands
(``pm``, ``cmd``, ``am``, ``monkey``, ``dumpsys``, ``settings``, ``run-as``) are in
:mod:`.adb_shell_apps`.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable
from typing import TYPE_CHECKING

import attrs

from .android_formats import wm_density

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
    if path == "/dev/tty":  # the tty is the command's output: the XML, then the status line
        return ShellResult(xml.encode() + status, b"", 0)
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


def _mv(device: FakeDevice, args: list[str]) -> ShellResult:
    paths = [arg for arg in args if not arg.startswith("-")]
    if len(paths) != 2:
        return _err("mv: Needs 2 arguments\n")
    source, target = paths
    if source not in device.files:
        return _err(f"mv: bad '{source}': No such file or directory\n")
    device.files[target] = device.files.pop(source)
    return _out("")


def _screencap(device: FakeDevice, args: list[str]) -> ShellResult:
    if args[:1] != ["-p"] or args[1:] not in ([], ["-d", "0"], ["-d", "4619827259835644672"]):
        return _err("usage: screencap [-hp] [-d display-id] [FILENAME]\n")
    return _out(device.screencap())


def _wm(device: FakeDevice, args: list[str]) -> ShellResult:
    if args == ["density"]:
        return _out(wm_density(device.density))
    if args != ["size"]:
        return _err("Unknown command\n", 255)
    return _out(f"Physical size: {device.size[0]}x{device.size[1]}\n")


COMMANDS: dict[str, Callable[[FakeDevice, list[str]], ShellResult]] = {
    "echo": _echo, "getprop": _getprop, "uiautomator": _uiautomator, "cat": _cat, "rm": _rm,
    "input": _input, "screencap": _screencap, "wm": _wm, "mv": _mv,
    "true": lambda d, a: _out(""), "false": lambda d, a: _out("", 1),
}


