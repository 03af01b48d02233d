"""The scripted Android devices behind the fake adb server: state, screens and a tiny shell.

A :class:`FakeDevice` answers the shell commands the android-app engine sends the way a
device does, output for output: ``getprop``, ``uiautomator dump`` (to ``/dev/tty``, or
to a file read back with ``cat``), ``input`` (tap, text, keyevent, swipe, motionevent and
the usage text that names motionevent only on API 30+), ``screencap -p`` (a real PNG of
the screen size, the screen's boxes drawn), ``wm size`` / ``density``, ``mv``, ``pm``
(list packages / features, path, install, clear, uninstall), ``cmd package
resolve-activity`` / ``query-activities``, ``am`` (start, ``-W``, force-stop), ``monkey``,
``dumpsys`` (window, window displays, package, SurfaceFlinger), ``settings`` and
``run-as``. Command lines are split the way ``sh`` splits them (quotes,
``;``, ``&&``, ``||`` and ``$?``, which adbutils' exit-code trick needs); anything else
is ``inaccessible or not found`` with exit code 127.

Screens are :class:`Screen` objects: a function giving the dump XML for the device's
current state, and taps keyed by a node's resource-id, content-desc or text. A tap hits
the deepest node under the point; a tap on an editable node focuses it for ``input text``;
KEYCODE_BACK pops the screen stack, KEYCODE_HOME goes to the launcher.

Every command is recorded in :attr:`FakeDevice.commands` (and the server-wide
:attr:`FakeAdb.received`), exactly as it arrived, so a test asserts what was sent.
"""

from __future__ import annotations

import io
import shlex
import threading
from collections.abc import Callable, Mapping
from xml.etree import ElementTree

import attrs
from PIL import Image, ImageDraw

from .adb_shell import COMMANDS, SDK_WITH_MOTIONEVENT, ShellResult, bounds, fake_apk
from .adb_shell_apps import APP_COMMANDS

_COMMANDS = {**COMMANDS, **APP_COMMANDS}

__all__ = ["SDK_WITH_MOTIONEVENT", "FakeAdb", "FakeDevice", "Received", "Screen", "ShellResult", "fake_apk"]


@attrs.frozen
class Received:
    """One device service request: which device, how (shell, shell,v2, exec) and what."""

    serial: str
    service: str
    command: str


@attrs.frozen
class Screen:
    """A screen of an app: its dump for the current state, and what taps on it do.

    ``taps`` maps a node's resource-id, content-desc or text to an action: a screen name
    (pushed), ``back``, or a callable run with the device. ``busy`` makes dumps answer an
    idle failure (``idle`` or ``null-root``), as a spinner does; with ``settles_to`` the
    screen becomes that one once the device's ``busy_dumps`` have been answered so.
    """

    name: str
    package: str
    activity: str
    xml: Callable[[FakeDevice], str]
    taps: Mapping[str, str | Callable[[FakeDevice], None]] = attrs.field(factory=dict)
    busy: str | None = None
    settles_to: str | None = None


@attrs.define(eq=False)
class FakeDevice:
    """One device or emulator: its state, props, screens, files and what it was sent."""

    serial: str
    screens: dict[str, Screen]
    home: str
    state: str = "device"
    props: dict[str, str] = attrs.field(factory=dict)
    size: tuple[int, int] = (1080, 1794)
    density: int = 420
    #: ``settings`` values by ``namespace/key`` (``system/user_rotation``).
    settings: dict[str, str] = attrs.field(factory=lambda: {"system/user_rotation": "0",
                                                            "system/accelerometer_rotation": "1"})
    #: Packages ``run-as`` accepts (built debuggable).
    debuggable: set[str] = attrs.field(factory=set)
    packages: dict[str, str | None] = attrs.field(factory=dict)  # id -> launcher activity
    #: Package -> the screen ``am start -n`` opens; deep-link URL prefix -> screen.
    launch: dict[str, str] = attrs.field(factory=dict)
    links: dict[str, str] = attrs.field(factory=dict)
    #: Dumps a settling busy screen answers with the idle failure before it settles.
    busy_dumps: int = 2
    system_packages: frozenset[str] = frozenset({"android", "com.android.settings", "com.android.systemui"})
    transport_id: int = 0
    #: The emulator console's port, when the server serves consoles.
    console_port: int | None = None
    #: Set by the test: ``dumpsys window`` reports ``mCurrentFocus=null``.
    in_transition: bool = False
    #: A booting emulator: listings that still show it ``offline``, then answers of
    #: ``sys.boot_completed`` that are still ``0``, then ``pm path android`` failures.
    boot_listings: int = 0
    boot_probes: int = 0
    pm_probes: int = 0
    #: Device-side sockets a forward reaches (``localabstract:chrome_devtools_remote``)
    #: -> the loopback (host, port) that plays them.
    sockets: dict[str, tuple[str, int]] = attrs.field(factory=dict)
    stack: list[str] = attrs.field(factory=list)
    files: dict[str, bytes] = attrs.field(factory=dict)
    fields: dict[str, str] = attrs.field(factory=dict)
    toggles: set[str] = attrs.field(factory=set)
    focused: str | None = None
    typed: list[str] = attrs.field(factory=list)
    keys: list[str] = attrs.field(factory=list)
    gestures: list[str] = attrs.field(factory=list)
    commands: list[Received] = attrs.field(factory=list)
    lock: threading.RLock = attrs.field(factory=threading.RLock)

    @property
    def sdk(self) -> int:
        return int(self.props.get("ro.build.version.sdk", "34"))

    @property
    def screen(self) -> Screen:
        return self.screens[self.stack[-1] if self.stack else self.home]

    def show(self, name: str) -> None:
        """Put a screen on top (what a test does to script a state)."""
        if name not in self.screens:
            raise KeyError(name)
        self.stack.append(name)

    def dump(self) -> str:
        return self.screen.xml(self)

    # -- the shell ---------------------------------------------------------------------

    def run(self, service: str, line: str) -> ShellResult:
        """Run one command line as ``sh -c`` would, and record it."""
        with self.lock:
            self.commands.append(Received(self.serial, service, line))
            lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|<>")
            lexer.whitespace_split = True
            try:
                words = list(lexer)
            except ValueError as err:
                return ShellResult(b"", f"/system/bin/sh: syntax error: {err}\n".encode(), 2)
            stdout, stderr, code = b"", b"", 0
            argv: list[str] = []
            skip = redirect = False
            for word in [*words, ";"]:
                if redirect:  # the target of < > 2>: the fake reads and writes no files that way
                    redirect = False
                    continue
                if word in ("<", ">", ">>", ">&"):
                    redirect = True
                    if argv and argv[-1] in ("1", "2"):
                        argv.pop()
                    continue
                if word not in (";", "&&", "||"):
                    argv.append(word.replace("$?", str(code)))
                    continue
                if argv and not skip:
                    result = self._command(argv)
                    stdout, stderr, code = stdout + result.stdout, stderr + result.stderr, result.exit_code
                argv = []
                skip = (word == "&&" and code != 0) or (word == "||" and code == 0)
            return ShellResult(stdout, stderr, code)

    def run_argv(self, argv: list[str]) -> ShellResult:
        """One command already split into words (``run-as`` runs the rest of its own)."""
        return self._command(argv)

    def _command(self, argv: list[str]) -> ShellResult:
        handler = _COMMANDS.get(argv[0])
        if handler is None:
            return ShellResult(b"", f"/system/bin/sh: {argv[0]}: inaccessible or not found\n".encode(), 127)
        return handler(self, argv[1:])

    def tap(self, x: float, y: float) -> None:
        """A touch at (x, y): the deepest node under it first, then up to the one that handles it."""
        chain: list[ElementTree.Element] = []
        level: list[ElementTree.Element] = list(ElementTree.fromstring(self.dump().encode()))
        while True:
            under = [n for n in level if _contains(bounds(n.get("bounds", "")), x, y)]
            if not under:
                break
            chain.append(under[-1])  # siblings drawn later are on top
            level = list(under[-1])
        for node in reversed(chain):
            if "EditText" in node.get("class", ""):
                self.focused = node.get("resource-id") or None
            action = next((self.screen.taps[key] for key in (node.get("resource-id"), node.get("content-desc"),
                                                             node.get("text")) if key and key in self.screen.taps),
                          None)
            if callable(action):
                action(self)
            elif action == "back":
                self.back()
            elif action is not None:
                self.show(action)
            if action is not None or node.get("clickable") == "true":
                return  # a clickable view consumes the touch, scripted or not

    def back(self) -> None:
        if self.stack:
            self.stack.pop()
        self.focused = None

    def screencap(self) -> bytes:
        width, height = self.size
        image = Image.new("RGB", (width, height), (250, 250, 250))
        draw = ImageDraw.Draw(image)
        if not self.screen.busy:
            for node in ElementTree.fromstring(self.dump().encode()).iter("node"):
                left, top, right, bottom = bounds(node.get("bounds", ""))
                if right > left and bottom > top and node.get("clickable") == "true":
                    draw.rectangle((left, top, right - 1, bottom - 1), outline=(30, 90, 200), width=3)
        out = io.BytesIO()
        image.save(out, "PNG", compress_level=1)
        return out.getvalue()


def _contains(box: tuple[int, int, int, int], x: float, y: float) -> bool:
    left, top, right, bottom = box
    return left <= x < right and top <= y < bottom


@attrs.define(eq=False)
class FakeAdb:
    """The adb server's view: its devices, in the order ``adb devices`` lists them."""

    devices: list[FakeDevice] = attrs.field(factory=list)
    #: Builds the device an emulator announces (``host:emulator:<port>``) for its serial.
    emulator_factory: Callable[[str], FakeDevice] | None = None

    def __attrs_post_init__(self) -> None:
        for number, device in enumerate(self.devices, start=1):
            device.transport_id = device.transport_id or number

    def device(self, serial: str) -> FakeDevice:
        return next(d for d in self.devices if d.serial == serial)

    @property
    def received(self) -> list[Received]:
        return [command for device in self.devices for command in device.commands]

    def listing(self, long: bool) -> str:
        lines = []
        for device in self.devices:
            state = device.state
            if device.boot_listings > 0:
                device.boot_listings -= 1
                state = "offline"
            if not long:
                lines.append(f"{device.serial}\t{state}\n")
                continue
            line = f"{device.serial:<22} {state}"
            if state == "device":
                model = "".join(c if c.isalnum() or c in "-." else "_" for c in device.props["ro.product.model"])
                line += (f" product:{device.props['ro.product.name']} model:{model} "
                         f"device:{device.props['ro.product.device']}")
            lines.append(f"{line} transport_id:{device.transport_id}\n")
        return "".join(lines)
