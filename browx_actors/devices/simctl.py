"""What ``xcrun simctl`` prints, read into data; and which simulator a session uses.

The ios-app engine runs simctl for simulator and app lifecycle and WebDriverAgent for
everything on screen. simctl's output comes in three shapes, each handled here:

* ``simctl list devices --json`` and ``simctl list -j``: JSON keyed by runtime
  identifier (``com.apple.CoreSimulator.SimRuntime.iOS-17-5``; old Xcodes keyed by
  ``iOS 12.0``), read into :class:`Simulator` values. ``list -j`` also carries the
  runtimes' own readable names, which win over the ones derived from the identifier.
* ``simctl listapps <udid>``: an old-style (OpenStep) ASCII property list keyed by
  bundle id. Neither :mod:`json` nor :mod:`plistlib` reads that format, so
  :func:`parse_old_plist` does, strictly: a malformed list is an error naming the line
  and column, never a partial answer.
* failures: ``An error was encountered processing the command (domain=D, code=N):``
  then simctl's message, with exit status ``N & 0xff`` (CoreSimulator's 405 exits 149).
  :func:`simctl_error` turns one into a :class:`ToolError`; :func:`already_booted` tells
  ``boot``'s "Unable to boot device in current state: Booted", which is not a failure.

:func:`choose_simulator` is the rule for ``BROWX_IOS_DEVICE``: a udid or exact
name; else the booted iOS simulator; else the first available device of the newest iOS
runtime. Unavailable simulators are never chosen, and a choice that is not one (two
booted, two devices by the asked name) refuses rather than guesses, because the
simulator simctl installs into must be the one WebDriverAgent drives.

Pure: no I/O. The session runs the commands and hands their output here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence

import attrs

from ..errors import ToolError
from ..jsonsafe import JsonObject, JsonValue

__all__ = [
    "InstalledApp",
    "OldPlistError",
    "Simulator",
    "already_booted",
    "choose_simulator",
    "parse_launch",
    "parse_listapps",
    "parse_old_plist",
    "parse_simulators",
    "simctl_error",
]


_RUNTIME_PREFIX = "com.apple.CoreSimulator.SimRuntime."
#: Runtime identifiers name visionOS by its old name.
_PLATFORMS = {"iOS": "iOS", "watchOS": "watchOS", "tvOS": "tvOS", "xrOS": "visionOS", "visionOS": "visionOS"}


@attrs.frozen
class Simulator:
    """One simulator as ``device_list`` reports it, plus what choosing one needs."""

    id: str
    name: str
    state: str
    runtime: str
    platform: str
    available: bool = True
    availability_error: str | None = None
    #: The runtime's version, for "the newest runtime" (``(17, 5)``).
    version: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, str]:
        return {"id": self.id, "name": self.name, "state": self.state, "runtime": self.runtime,
                "platform": self.platform}


def parse_simulators(listing: str) -> list[Simulator]:
    """Every simulator in the output of ``simctl list devices --json`` or ``simctl list -j``."""
    try:
        document = json.loads(listing)
    except ValueError as error:
        raise _garbled("list", f"not JSON ({error})") from None
    devices = document.get("devices") if isinstance(document, dict) else None
    if not isinstance(devices, dict):
        raise _garbled("list", "no `devices` object")
    names = {runtime.get("identifier"): runtime.get("name")
             for runtime in document.get("runtimes", ()) if isinstance(runtime, dict)}
    simulators = []
    for runtime_key, entries in devices.items():
        platform, version = _runtime(runtime_key)
        runtime = names.get(runtime_key) or " ".join(filter(None, (platform, ".".join(map(str, version)))))
        for entry in entries if isinstance(entries, list) else ():
            if not isinstance(entry, dict) or not isinstance(entry.get("udid"), str):
                raise _garbled("list", f"a device under {runtime_key} has no udid")
            simulators.append(Simulator(
                id=entry["udid"], name=str(entry.get("name", "")), state=str(entry.get("state", "")),
                runtime=runtime or runtime_key, platform=platform, available=_available(entry),
                availability_error=entry.get("availabilityError"), version=version,
            ))
    return simulators


def _available(entry: Mapping[str, JsonValue]) -> bool:
    # Xcodes before 10.1 said "availability": "(unavailable, runtime profile not found)".
    if "isAvailable" in entry:
        return entry["isAvailable"] is True or entry["isAvailable"] == "YES"
    return "unavailable" not in str(entry.get("availability", ""))


def _runtime(key: str) -> tuple[str, tuple[int, ...]]:
    """``com.apple.CoreSimulator.SimRuntime.iOS-17-5`` (or the old ``iOS 17.5``) to ``("iOS", (17, 5))``."""
    match = re.fullmatch(r"([A-Za-z]+)[- ](\d+(?:[-.]\d+)*)", key.removeprefix(_RUNTIME_PREFIX))
    if match is None:
        return "", ()
    platform, version = match.groups()
    return _PLATFORMS.get(platform, platform), tuple(int(part) for part in re.split(r"[-.]", version))


def choose_simulator(simulators: Sequence[Simulator], wanted: str | None) -> Simulator:
    """The simulator a session uses, by the rule for ``BROWX_IOS_DEVICE``."""
    if wanted:
        matches = [sim for sim in simulators if sim.id.casefold() == wanted.casefold()]
        matches = matches or [sim for sim in simulators if sim.name == wanted]
        if not matches:
            known = ", ".join(sorted({sim.name for sim in simulators})) or "none"
            raise ToolError("target-not-found", f"BROWX_IOS_DEVICE={wanted!r} is neither the udid nor the exact "
                            f"name of a simulator simctl knows (names: {known})", device=wanted)
        usable = [sim for sim in matches if sim.available]
        if not usable:
            reason = matches[0].availability_error or "simctl lists it as unavailable"
            raise ToolError("target-not-found", f"simulator {wanted!r} is unavailable: {reason}", device=wanted)
        return _prefer(usable, first_of_newest=False)
    usable = [sim for sim in simulators if sim.available and sim.platform == "iOS"]
    if not usable:
        raise ToolError("target-not-found", "no available iOS simulator: create one in Xcode (Window > Devices "
                        "and Simulators); browx never creates one", device=None)
    return _prefer(usable, first_of_newest=True)


def _prefer(candidates: Sequence[Simulator], *, first_of_newest: bool) -> Simulator:
    booted = [sim for sim in candidates if sim.state == "Booted"]
    if len(booted) > 1:
        raise _ambiguous("several simulators are booted", booted)
    if booted:
        return booted[0]
    newest = max(sim.version for sim in candidates)
    on_newest = [sim for sim in candidates if sim.version == newest]
    if len(on_newest) > 1 and not first_of_newest:
        raise _ambiguous("several simulators have that name", on_newest)
    return on_newest[0]


def _ambiguous(why: str, candidates: Sequence[Simulator]) -> ToolError:
    listed = ", ".join(f"{sim.name} ({sim.runtime}) {sim.id}" for sim in candidates)
    return ToolError("device-ambiguous", f"{why}: {listed}; set BROWX_IOS_DEVICE to the udid of the one to use",
                     candidates=[sim.id for sim in candidates])


# -- simctl listapps: the old-style property list -------------------------------------


#: A value of an old-style property list.
PlistValue = str | bytes | dict[str, "PlistValue"] | list["PlistValue"]


class OldPlistError(ValueError):
    """The text is not an old-style property list; the message names the line and column."""


_UNQUOTED = re.compile(r"[A-Za-z0-9_$/:.\-]+")
_SPACE = re.compile(r"(?:\s+|//[^\n]*|/\*.*?\*/)*", re.DOTALL)
_HEX = re.compile(r"[0-9A-Fa-f\s]*")
#: After a backslash: a named character, up to three octal digits, or ``U`` and a UTF-16 unit.
_ESCAPE = re.compile(r"([abfnrtv\"'\\\n])|([0-7]{1,3})|U([0-9A-Fa-f]{4})")
_NAMED = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_MAX_NESTING = 128


def _match_end(pattern: re.Pattern[str], text: str, at: int) -> int:
    """Where ``pattern``, which also matches nothing, stops matching from ``at``."""
    match = pattern.match(text, at)
    return at if match is None else match.end()


class _OldPlistReader:
    """Recursive descent over one text: dictionaries, arrays, strings and ``<hex data>``."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0

    def fail(self, what: str, at: int | None = None) -> OldPlistError:
        at = self.at if at is None else at
        line = self.text.count("\n", 0, at) + 1
        column = at - (self.text.rfind("\n", 0, at) + 1) + 1
        return OldPlistError(f"line {line}, column {column}: {what}")

    def skip(self) -> str:
        """Skip blanks and comments; the next character ('' at the end)."""
        self.at = _match_end(_SPACE, self.text, self.at)
        if self.text.startswith("/*", self.at):
            raise self.fail("unterminated comment")
        return self.text[self.at:self.at + 1]

    def expect(self, char: str, where: str) -> None:
        if self.skip() != char:
            raise self.fail(f"expected {char!r} {where}, found {self.text[self.at:self.at + 1] or 'the end'!r}")
        self.at += 1

    def value(self, depth: int = 0) -> PlistValue:
        if depth > _MAX_NESTING:
            raise self.fail(f"nested deeper than {_MAX_NESTING}")
        char = self.skip()
        if char == "{":
            return self.dictionary(depth)
        if char == "(":
            return self.array(depth)
        if char == "<":
            return self.data()
        return self.string()

    def dictionary(self, depth: int) -> dict[str, PlistValue]:
        self.at += 1
        entries: dict[str, PlistValue] = {}
        while self.skip() != "}":
            start = self.at
            key = self.string()
            if key in entries:
                raise self.fail(f"key {key!r} appears twice", start)
            self.expect("=", f"after the key {key!r}")
            entries[key] = self.value(depth + 1)
            self.expect(";", f"after the value of {key!r}")
        self.at += 1
        return entries

    def array(self, depth: int) -> list[PlistValue]:
        self.at += 1
        items: list[PlistValue] = []
        while self.skip() != ")":
            items.append(self.value(depth + 1))
            if self.skip() == ",":
                self.at += 1  # a trailing comma is allowed
            elif self.skip() != ")":
                raise self.fail("expected ',' or ')' in an array")
        self.at += 1
        return items

    def data(self) -> bytes:
        start = self.at
        end = _match_end(_HEX, self.text, self.at + 1)
        if not self.text.startswith(">", end):
            raise self.fail("expected hex digits and '>' in <data>", end)
        digits = "".join(self.text[start + 1:end].split())
        if len(digits) % 2:
            raise self.fail("<data> has an odd number of hex digits", start)
        self.at = end + 1
        return bytes.fromhex(digits)

    def string(self) -> str:
        char = self.skip()
        if char in ('"', "'"):
            return self.quoted(char)
        match = _UNQUOTED.match(self.text, self.at)
        if match is None:
            raise self.fail(f"expected a value, found {char or 'the end'!r}")
        self.at = match.end()
        return match.group()

    def quoted(self, quote: str) -> str:
        start, self.at = self.at, self.at + 1
        parts: list[str] = []
        while True:
            end = min((i for i in (self.text.find(quote, self.at), self.text.find("\\", self.at)) if i >= 0),
                      default=-1)
            if end < 0:
                raise self.fail("unterminated string", start)
            parts.append(self.text[self.at:end])
            self.at = end + 1
            if self.text[end] == quote:
                break
            parts.append(self.escape())
        try:  # \U escapes are UTF-16 units: pair the surrogates
            return "".join(parts).encode("utf-16-le", "surrogatepass").decode("utf-16-le")
        except UnicodeDecodeError:
            raise self.fail("a \\U escape leaves half a surrogate pair", start) from None

    def escape(self) -> str:
        match = _ESCAPE.match(self.text, self.at)
        if match is None:
            char = self.text[self.at:self.at + 1]
            raise self.fail(f"unknown escape \\{char}" if char else "unterminated string", self.at - 1)
        self.at = match.end()
        named, octal, unit = match.groups()
        if named is not None:
            return _NAMED.get(named, named)
        return chr(int(octal, 8)) if octal is not None else chr(int(unit, 16))


def parse_old_plist(text: str) -> PlistValue:
    """An old-style (OpenStep) property list: dicts, lists, strings and bytes."""
    reader = _OldPlistReader(text)
    if not reader.skip():
        raise reader.fail("empty property list")
    value = reader.value()
    if reader.skip():
        raise reader.fail("more after the end of the property list")
    return value


@attrs.frozen
class InstalledApp:
    """One app ``simctl listapps`` reports."""

    bundle_id: str
    name: str
    #: ``User`` or ``System``, as simctl says.
    app_type: str
    version: str | None = None
    path: str | None = None


def parse_listapps(text: str) -> list[InstalledApp]:
    """The apps in ``simctl listapps <udid>`` output, in bundle id order."""
    try:
        apps = parse_old_plist(text)
    except OldPlistError as error:
        raise _garbled("listapps", f"not an old-style property list ({error})") from None
    infos = {} if not isinstance(apps, dict) else {
        bundle_id: info for bundle_id, info in apps.items() if isinstance(info, dict)}
    if not isinstance(apps, dict) or len(infos) != len(apps):
        raise _garbled("listapps", "not a dictionary of apps keyed by bundle id")
    return [
        InstalledApp(
            bundle_id=bundle_id,
            name=_first_text(info, "CFBundleDisplayName", "CFBundleName") or bundle_id,
            app_type=_first_text(info, "ApplicationType") or "User",
            version=_first_text(info, "CFBundleShortVersionString", "CFBundleVersion"),
            path=_first_text(info, "Path"),
        )
        for bundle_id, info in sorted(infos.items())
    ]


def _first_text(info: Mapping[str, PlistValue], *keys: str) -> str | None:
    for key in keys:
        value = info.get(key)
        if isinstance(value, str) and value:
            return value
    return None


# -- launch output and failures -------------------------------------------------------

_FAILURE_HEAD = re.compile(r"An error was encountered processing the command \((?:domain=(?P<domain>[^,]*), )?"
                           r"code=(?P<code>-?\d+)\):\s*")


def parse_launch(stdout: str, bundle_id: str) -> int:
    """The pid in ``simctl launch``'s ``<bundle id>: <pid>`` line."""
    match = re.search(rf"^{re.escape(bundle_id)}: (\d+)\s*$", stdout, re.MULTILINE)
    if match is None:
        raise _garbled("launch", f"no `{bundle_id}: <pid>` line in {stdout.strip()[:200]!r}")
    return int(match.group(1))


def already_booted(stderr: str) -> bool:
    """Whether a failed ``simctl boot`` only says the device is booted already."""
    return "Unable to boot device in current state: Booted" in stderr


def simctl_error(subcommand: str, exit_code: int, stderr: str) -> ToolError:
    """The ToolError for a simctl command that exited non-zero, in simctl's own words."""
    if stderr.startswith("xcrun: error:"):
        return ToolError("unavailable", f"{stderr.strip()}: install Xcode and select it with xcode-select",
                         component="xcrun simctl")
    details: JsonObject = {"exitCode": exit_code}
    head = _FAILURE_HEAD.search(stderr)
    message = stderr[head.end():] if head else stderr
    if head:
        details.update(domain=head["domain"], errorCode=int(head["code"]))
    # What follows "Underlying error" repeats the message in CoreSimulator's words;
    # old simctls prefix their messages with "[simctl] ".
    message = message.split("Underlying error", 1)[0]
    lines = dict.fromkeys(line.strip().removeprefix("[simctl] ") for line in message.splitlines())
    reason = " ".join(line for line in lines if line) or "no message"
    return ToolError("simctl-failed", f"simctl {subcommand} failed (exit {exit_code}): {reason}", **details)


def _garbled(subcommand: str, what: str) -> ToolError:
    return ToolError("simctl-failed", f"simctl {subcommand} printed what simctl never prints: {what}",
                     exitCode=0)
