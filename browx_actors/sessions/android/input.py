"""The android-app input driver and hierarchy source: adb shell ``input``, ``screencap``,
``am start`` and ``uiautomator dump``, over the session's leased device.

Every command line comes from :mod:`browx_actors.devices.adb_commands`, which validates
and quotes what a caller supplied; nothing is formatted into a shell line here. Each
``input`` invocation starts a JVM on the device (a few hundred milliseconds), so what
one step needs goes in one shell line. ``input`` may print an error and exit 0, so its
output is read as well as its status.
"""

from __future__ import annotations

import trio

from ...devices import adb_commands as commands
from ...devices.adb import AndroidDevice, ShellOutput
from ...devices.adb_output import start_failure, supports_motionevent
from ...devices.nodes import NativeNode, Rect
from ...devices.uiautomator import IDLE_FAILURES, DumpParser
from ...errors import ToolError
from ...jsonsafe import JsonObject
from ..native.platform import Budget, clear_count, pinch_refusal, unsupported

__all__ = ["ENGINE", "AdbInput", "UiAutomatorSource"]

ENGINE = "android-app"
_PNG = b"\x89PNG\r\n\x1a\n"
#: Where the dump goes when ``/dev/tty`` is not writable (some builds refuse it).
_DUMP_FILE = "/data/local/tmp/browx_window_dump.xml"


def _failed(output: ShellOutput, what: str) -> ToolError:
    text = " ".join(output.text.split())[:500] or "(no output)"
    return ToolError("adb-failed", f"{what}: {text}", exitCode=output.exit_code)


def _input_error(output: ShellOutput) -> bool:
    return output.exit_code != 0 or any(line.startswith(("Error", "Exception")) for line in output.text.splitlines())


class UiAutomatorSource:
    """``uiautomator dump`` to ``/dev/tty`` on every read, parsed off the loop (a dump
    byte for byte equal to the last one is not parsed twice:
    :class:`~browx_actors.devices.uiautomator.DumpParser`)."""

    def __init__(self, device: AndroidDevice, budget: Budget) -> None:
        self.device = device
        self.budget = budget
        self.parser = DumpParser()

    async def read(self) -> NativeNode:
        output = await self.device.exec_out(commands.UIAUTOMATOR_DUMP_TTY, timeout=self.budget.remaining())
        if b"<hierarchy" not in output and not any(f.encode() in output for f in IDLE_FAILURES):
            # Some builds cannot write to /dev/tty: dump to a file and read it back.
            dumped = await self.device.shell(f"uiautomator dump {_DUMP_FILE} >/dev/null && cat {_DUMP_FILE}; "
                                             f"rm -f {_DUMP_FILE}", timeout=self.budget.remaining())
            output = dumped.stdout + dumped.stderr
        return await trio.to_thread.run_sync(self.parser.parse, output)


class AdbInput:
    """Taps, swipes, keys and text through ``adb shell input``; screens through screencap."""

    scale = 1.0

    def __init__(self, device: AndroidDevice, budget: Budget) -> None:
        self.device = device
        self.budget = budget
        self._motionevent: bool | None = None

    async def _input(self, *lines: str) -> ShellOutput:
        output = await self.device.shell("; ".join(lines) if len(lines) > 1 else lines[0],
                                         timeout=self.budget.remaining())
        if _input_error(output):
            raise _failed(output, f"adb shell {lines[0].split(' ', 2)[1] if ' ' in lines[0] else lines[0]}")
        return output

    async def tap(self, x: float, y: float) -> None:
        await self._input(commands.tap_command(x, y))

    async def double_tap(self, x: float, y: float) -> None:
        raise unsupported(ENGINE, "a double tap", "adb input has no double-tap primitive, and two `input tap` "
                          "commands are a JVM start apart on the device, too slow to count as one")

    async def long_press(self, x: float, y: float, ms: int) -> None:
        await self._input(commands.long_press_command(x, y, ms))

    async def swipe(self, x1: float, y1: float, x2: float, y2: float, ms: int) -> None:
        await self._input(commands.swipe_command(x1, y1, x2, y2, ms))

    async def type_text(self, text: str) -> None:
        await self._input(*commands.input_text_commands(text))

    async def fill(self, x: float, y: float, node: NativeNode, text: str) -> None:
        # One shell line: the tap, the caret to the end and one DEL per character, then
        # the text (checked before anything is sent: ASCII only, see adb_commands).
        typing = commands.input_text_commands(text) if text else ()
        count = clear_count(node)
        clearing = ("input keyevent KEYCODE_MOVE_END", "input keyevent " + " ".join(["KEYCODE_DEL"] * count)) \
            if count else ()
        await self._input(commands.tap_command(x, y), *clearing, *typing)

    async def press_key(self, key: str) -> str:
        press = commands.key_press(key)
        await self._input(*press.commands())
        return press.keycode or f"text {press.char!r}"

    async def touch(self, action: str, x: float, y: float) -> None:
        if self._motionevent is None:
            usage = await self.device.shell(commands.INPUT_USAGE, timeout=self.budget.remaining())
            self._motionevent = supports_motionevent(usage.text)
        if not self._motionevent:
            raise unsupported(ENGINE, "raw touch events", "`input motionevent` needs Android 11 (API 30) or later, "
                              "and this device's input has no motionevent command")
        await self._input(commands.motionevent_command(action, x, y))

    async def pinch(self, scale: float, velocity: float) -> None:
        raise pinch_refusal(ENGINE)

    async def pinch_at(self, x: float, y: float, scale: float, ms: int, screen: Rect) -> JsonObject:
        raise pinch_refusal(ENGINE)

    async def screenshot(self) -> bytes:
        png = await self.device.exec_out(commands.SCREENCAP_PNG, timeout=self.budget.remaining())
        start = png.find(_PNG)
        if start < 0:
            shown = png[:200].decode("utf-8", "replace").strip() or "(nothing)"
            raise ToolError("adb-failed", f"screencap -p printed no PNG: {shown}", exitCode=None)
        return png[start:]

    async def open_url(self, url: str) -> JsonObject:
        output = await self.device.shell(commands.view_intent_command(url), timeout=self.budget.remaining())
        failure = start_failure(output.text)
        if failure is not None or output.exit_code != 0:
            said = failure or f"am start exited {output.exit_code}"
            raise ToolError("navigation-failed", f"no activity on the device handles {url} ({said})", url=url)
        return {"intent": "android.intent.action.VIEW"}

    async def back(self) -> None:
        await self._input("input keyevent KEYCODE_BACK")
