"""simctl output: device lists, the simulator choice, the old-style plist of listapps, failures."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from browx_actors.devices.simctl import (
    OldPlistError,
    Simulator,
    already_booted,
    choose_simulator,
    parse_launch,
    parse_listapps,
    parse_old_plist,
    parse_simulators,
    simctl_error,
)
from browx_actors.errors import CODES, ToolError

#: `xcrun simctl list devices --json` as Xcode 15 prints it (pretty, " : ", escaped slashes).
LIST_DEVICES = r"""{
  "devices" : {
    "com.apple.CoreSimulator.SimRuntime.iOS-17-5" : [
      {
        "lastBootedAt" : "2026-11-30T09:12:33Z",
        "dataPath" : "\/Users\/dev\/Library\/Developer\/CoreSimulator\/Devices\/8C1A6E5E-3B1F-4C53-9C58-6D2F1E4B7A01",
        "dataPathSize" : 18341888,
        "logPath" : "\/Users\/dev\/Library\/Logs\/CoreSimulator\/8C1A6E5E-3B1F-4C53-9C58-6D2F1E4B7A01",
        "udid" : "8C1A6E5E-3B1F-4C53-9C58-6D2F1E4B7A01",
        "isAvailable" : true,
        "deviceTypeIdentifier" : "com.apple.CoreSimulator.SimDeviceType.iPhone-15",
        "state" : "Shutdown",
        "name" : "iPhone 15"
      },
      {
        "udid" : "2D4B8F10-7C3E-4E9A-8B61-0F5A9C3D2E02",
        "isAvailable" : true,
        "deviceTypeIdentifier" : "com.apple.CoreSimulator.SimDeviceType.iPhone-15-Pro",
        "state" : "Shutdown",
        "name" : "iPhone 15 Pro"
      }
    ],
    "com.apple.CoreSimulator.SimRuntime.iOS-18-0" : [
      {
        "udid" : "5E7C9A21-1D4F-4B8E-9C72-3A6B0D5F4E03",
        "isAvailable" : true,
        "state" : "Shutdown",
        "name" : "iPhone 16"
      },
      {
        "udid" : "9F2E4C63-5A7B-4D1C-8E93-7B0C2D6A5F04",
        "isAvailable" : true,
        "state" : "Shutdown",
        "name" : "iPhone 15"
      }
    ],
    "com.apple.CoreSimulator.SimRuntime.watchOS-10-5" : [
      {
        "udid" : "0A3C5E72-9B1D-4F6A-8C04-2E7D9B1F3A05",
        "isAvailable" : true,
        "state" : "Booted",
        "name" : "Apple Watch Series 9 (45mm)"
      }
    ],
    "com.apple.CoreSimulator.SimRuntime.iOS-26-0" : [
      {
        "availabilityError" : "runtime profile not found using \"System\" match policy",
        "udid" : "6B8D0F94-2C4E-4A7B-9D15-4F8A0C2E6B06",
        "isAvailable" : false,
        "state" : "Shutdown",
        "name" : "iPhone 17"
      }
    ],
    "com.apple.CoreSimulator.SimRuntime.xrOS-2-0" : [
      {
        "udid" : "7C9E1A05-3D5F-4B8C-8E26-5A9B1D3F7C07",
        "isAvailable" : true,
        "state" : "Shutdown",
        "name" : "Apple Vision Pro"
      }
    ]
  }
}"""

UDID_15, UDID_15_PRO, UDID_16, UDID_15_ON_18 = (
    "8C1A6E5E-3B1F-4C53-9C58-6D2F1E4B7A01", "2D4B8F10-7C3E-4E9A-8B61-0F5A9C3D2E02",
    "5E7C9A21-1D4F-4B8E-9C72-3A6B0D5F4E03", "9F2E4C63-5A7B-4D1C-8E93-7B0C2D6A5F04")


def listing(**states: str) -> list[Simulator]:
    """The sample list with some simulators' states changed (by udid)."""
    document = json.loads(LIST_DEVICES)
    for devices in document["devices"].values():
        for device in devices:
            device["state"] = states.get(device["udid"], device["state"])
    return parse_simulators(json.dumps(document))


def test_list_devices_json_reads_every_simulator_with_a_readable_runtime_and_platform() -> None:
    simulators = parse_simulators(LIST_DEVICES)
    assert [sim.to_dict() for sim in simulators[:1]] == [
        {"id": UDID_15, "name": "iPhone 15", "state": "Shutdown", "runtime": "iOS 17.5", "platform": "iOS"}]
    assert [(sim.runtime, sim.platform, sim.available) for sim in simulators] == [
        ("iOS 17.5", "iOS", True), ("iOS 17.5", "iOS", True), ("iOS 18.0", "iOS", True), ("iOS 18.0", "iOS", True),
        ("watchOS 10.5", "watchOS", True), ("iOS 26.0", "iOS", False), ("visionOS 2.0", "visionOS", True)]
    unavailable = simulators[5]
    assert unavailable.availability_error == 'runtime profile not found using "System" match policy'
    assert simulators[0].version == (17, 5)


def test_list_j_prefers_the_runtimes_own_names() -> None:
    document = {
        "devicetypes": [], "pairs": {},
        "runtimes": [{"identifier": "com.apple.CoreSimulator.SimRuntime.xrOS-2-0", "name": "visionOS 2.0",
                      "version": "2.0", "platform": "xrOS", "isAvailable": True},
                     {"identifier": "com.apple.CoreSimulator.SimRuntime.iOS-18-0", "name": "iOS 18.0 (beta)",
                      "version": "18.0", "isAvailable": True}],
        "devices": {"com.apple.CoreSimulator.SimRuntime.iOS-18-0": [
            {"udid": UDID_16, "name": "iPhone 16", "state": "Booted", "isAvailable": True}]},
    }
    (sim,) = parse_simulators(json.dumps(document, indent=2, separators=(",", " : ")).replace("/", "\\/"))
    assert (sim.runtime, sim.platform, sim.state, sim.version) == ("iOS 18.0 (beta)", "iOS", "Booted", (18, 0))


def test_old_xcode_keys_and_availability_strings() -> None:
    document = {"devices": {"iOS 12.1": [
        {"udid": "A", "name": "iPhone X", "state": "Booted", "availability": "(available)"},
        {"udid": "B", "name": "iPhone 5", "state": "Shutdown",
         "availability": "(unavailable, runtime profile not found)"}]}}
    first, second = parse_simulators(json.dumps(document))
    assert (first.runtime, first.platform, first.available) == ("iOS 12.1", "iOS", True)
    assert not second.available


@pytest.mark.parametrize("garbage", ["", "== Devices ==\n-- iOS 17.5 --", "[]", '{"devicetypes": []}',
                                     '{"devices": {"iOS 17.5": [{"name": "no udid"}]}}'])
def test_a_listing_simctl_never_prints_is_simctl_failed(garbage: str) -> None:
    with pytest.raises(ToolError) as caught:
        parse_simulators(garbage)
    assert caught.value.code == "simctl-failed"


# -- choosing the simulator -------------------------------------------------------------


def test_an_explicit_udid_or_exact_name_wins() -> None:
    simulators = listing()
    assert choose_simulator(simulators, UDID_15_PRO.lower()).name == "iPhone 15 Pro"
    assert choose_simulator(simulators, "iPhone 16").id == UDID_16
    assert choose_simulator(simulators, "Apple Watch Series 9 (45mm)").platform == "watchOS"  # named, so taken


def test_a_name_on_several_runtimes_takes_the_booted_one_else_refuses_only_a_real_tie() -> None:
    assert choose_simulator(listing(**{UDID_15: "Booted"}), "iPhone 15").id == UDID_15
    assert choose_simulator(listing(), "iPhone 15").id == UDID_15_ON_18  # the newest runtime's
    with pytest.raises(ToolError) as caught:
        choose_simulator(listing(**{UDID_15: "Booted", UDID_15_ON_18: "Booted"}), "iPhone 15")
    assert caught.value.code == "device-ambiguous"
    assert caught.value.details["candidates"] == [UDID_15, UDID_15_ON_18]


def test_an_unknown_or_unavailable_name_refuses_naming_why() -> None:
    with pytest.raises(ToolError) as caught:
        choose_simulator(listing(), "iPhone 99")
    assert (caught.value.code, caught.value.details["device"]) == ("target-not-found", "iPhone 99")
    assert "iPhone 15 Pro" in caught.value.message
    with pytest.raises(ToolError) as caught:
        choose_simulator(listing(), "iPhone 17")
    assert caught.value.code == "target-not-found"
    assert "runtime profile not found" in caught.value.message


def test_without_a_name_the_booted_ios_simulator_is_used() -> None:
    assert choose_simulator(listing(**{UDID_15_PRO: "Booted"}), None).id == UDID_15_PRO
    assert choose_simulator(listing(**{UDID_15_PRO: "Booted"}), "").id == UDID_15_PRO


def test_without_a_booted_one_the_newest_runtimes_first_available_device() -> None:
    # The booted watch and the unavailable iOS 26 device are never taken.
    assert choose_simulator(listing(), None).id == UDID_16


def test_two_booted_simulators_refuse_rather_than_guess() -> None:
    with pytest.raises(ToolError) as caught:
        choose_simulator(listing(**{UDID_15: "Booted", UDID_16: "Booted"}), None)
    assert caught.value.code == "device-ambiguous"
    assert "BROWX_IOS_DEVICE" in caught.value.message
    assert CODES["device-ambiguous"].kind == "bad-arg"


def test_no_available_ios_simulator_refuses() -> None:
    simulators = [sim for sim in listing() if sim.platform != "iOS" or not sim.available]
    with pytest.raises(ToolError) as caught:
        choose_simulator(simulators, None)
    assert caught.value.code == "target-not-found"
    assert "never creates one" in caught.value.message


# -- the old-style plist ----------------------------------------------------------------

#: `xcrun simctl listapps booted`, abridged from a real iOS 17.5 simulator.
LISTAPPS = r"""{
    "com.apple.mobilesafari" =     {
        ApplicationType = System;
        Bundle = "file:///Library/Developer/CoreSimulator/Volumes/iOS_21F79/Library/Developer/CoreSimulator/Profiles/Runtimes/iOS%2017.5.simruntime/Contents/Resources/RuntimeRoot/Applications/MobileSafari.app/";
        CFBundleDisplayName = Safari;
        CFBundleExecutable = MobileSafari;
        CFBundleIdentifier = "com.apple.mobilesafari";
        CFBundleName = Safari;
        CFBundleVersion = "8618.2.12.10.5";
        DataContainer = "file:///Users/dev/Library/Developer/CoreSimulator/Devices/8C1A6E5E/data/Containers/Data/Application/1F0C/";
        GroupContainers =         {
            "group.com.apple.mobilesafari" = "file:///Users/dev/Library/Developer/CoreSimulator/Devices/8C1A6E5E/data/Containers/Shared/AppGroup/77A2/";
        };
        Path = "/Library/Developer/CoreSimulator/Volumes/iOS_21F79/Applications/MobileSafari.app";
        SBAppTags =         (
        );
    };
    "com.example.shop" =     {
        ApplicationType = User;
        CFBundleDisplayName = "Shop \U2013 Caf\U00e9";
        CFBundleIdentifier = "com.example.shop";
        CFBundleName = Shop;
        CFBundleShortVersionString = "2.4.1";
        CFBundleVersion = 241;
        Path = "/Users/dev/Library/Developer/CoreSimulator/Devices/8C1A6E5E/data/Containers/Bundle/9D3A/Shop.app";
        SBAppTags =         (
            hidden,
            "needs review"
        );
    };
}
"""


def test_listapps_reads_every_app_keyed_by_bundle_id() -> None:
    safari, shop = parse_listapps(LISTAPPS)
    assert (safari.bundle_id, safari.name, safari.app_type, safari.version) == (
        "com.apple.mobilesafari", "Safari", "System", "8618.2.12.10.5")
    assert (shop.bundle_id, shop.name, shop.app_type, shop.version) == (
        "com.example.shop", "Shop \u2013 Caf\u00e9", "User", "2.4.1")
    assert shop.path is not None and shop.path.endswith("/Shop.app")
    raw = parse_old_plist(LISTAPPS)
    assert raw["com.example.shop"]["SBAppTags"] == ["hidden", "needs review"]
    assert raw["com.apple.mobilesafari"]["GroupContainers"]["group.com.apple.mobilesafari"].startswith("file:///")


def test_listapps_of_something_else_is_simctl_failed() -> None:
    for text in ('{"com.example.shop": {}}', "(a, b)", "{ a = b; }"):
        with pytest.raises(ToolError) as caught:
            parse_listapps(text)
        assert caught.value.code == "simctl-failed"


def test_the_format_beyond_what_simctl_prints() -> None:
    text = """// a comment
    { /* block */ list = (1, 2, 3,); data = <0fbd 7a11>; 'single' = 'it''s'; esc = "a\\tb\\101\\n\\"q\\\\"; }"""
    with pytest.raises(OldPlistError):
        parse_old_plist(text)  # 'it''s' is two strings in a row
    text = text.replace("'it''s'", "'it\\'s'")
    assert parse_old_plist(text) == {"list": ["1", "2", "3"], "data": b"\x0f\xbd\x7a\x11", "single": "it's",
                                     "esc": 'a\tbA\n"q\\'}
    assert parse_old_plist('"\\Ud83d\\Ude00"') == "\U0001f600"
    assert parse_old_plist("<>") == b""
    assert parse_old_plist("()") == []
    assert parse_old_plist("{}") == {}


@pytest.mark.parametrize(("text", "where", "what"), [
    ("", "line 1, column 1", "empty"),
    ("{ a = b }", "line 1, column 9", "expected ';'"),
    ("{ a b; }", "line 1, column 5", "expected '='"),
    ("{\n  a = b;\n  a = c;\n}", "line 3, column 3", "appears twice"),
    ("(a b)", "line 1, column 4", "expected ',' or ')'"),
    ('"open', "line 1, column 1", "unterminated string"),
    ('"bad \\q"', "line 1, column 6", "unknown escape"),
    ("<0fb>", "line 1, column 1", "odd number"),
    ("<0fz>", "line 1, column 4", "expected hex digits"),
    ("{ a = b; } x", "line 1, column 12", "more after the end"),
    ("/* never closed", "line 1, column 1", "unterminated comment"),
    ("{ a = \u00e9; }", "line 1, column 7", "expected a value"),
    ('"\\Ud83d"', "line 1, column 1", "half a surrogate"),
    ("(" * 200, "line 1", "nested deeper"),
    ("{ = b; }", "line 1, column 3", "expected a value"),
])
def test_malformed_plists_name_line_and_column(text: str, where: str, what: str) -> None:
    with pytest.raises(OldPlistError) as caught:
        parse_old_plist(text)
    assert where in str(caught.value)
    assert what in str(caught.value)


def write_old_plist(value: Any) -> str:
    """A tiny writer: quoting, escapes and layout as NSDictionary's description does it."""
    if isinstance(value, dict):
        entries = (f"\n {write_old_plist(key)} = {write_old_plist(item)};" for key, item in value.items())
        return "{" + "".join(entries) + "}"
    if isinstance(value, list):
        return "(" + ",\n ".join(write_old_plist(item) for item in value) + ")"
    if isinstance(value, bytes):
        return "<" + " ".join(value[i:i + 4].hex() for i in range(0, len(value), 4)) + ">"
    if re.fullmatch(r"[A-Za-z0-9_$]+", value):
        return value
    out = []
    for char in value:
        if char in '"\\':
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif ord(char) > 0xFFFF:
            high, low = divmod(ord(char) - 0x10000, 0x400)
            out.append(f"\\U{0xD800 + high:04x}\\U{0xDC00 + low:04X}")
        elif ord(char) > 126 or ord(char) < 32:
            out.append(f"\\U{ord(char):04x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


_STRINGS = st.text(st.characters(exclude_categories=["Cs"]), max_size=20)
_VALUES = st.recursive(
    _STRINGS | st.binary(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_STRINGS, inner, max_size=4),
    max_leaves=20,
)


@given(_VALUES)
def test_anything_the_writer_writes_reads_back_the_same(value: Any) -> None:
    assert parse_old_plist(write_old_plist(value)) == value


_BUNDLE_IDS = st.lists(st.text("abcxyz", min_size=1, max_size=6), min_size=2, max_size=4).map(".".join)


@given(st.dictionaries(_BUNDLE_IDS,
                       st.fixed_dictionaries({"ApplicationType": st.sampled_from(["User", "System"]),
                                              "CFBundleName": _STRINGS.filter(bool)}), max_size=5))
def test_listapps_round_trips_bundle_ids_names_and_types(apps: dict[str, dict[str, str]]) -> None:
    parsed = parse_listapps(write_old_plist(apps))
    assert [(app.bundle_id, app.name, app.app_type) for app in parsed] == [
        (bundle, info["CFBundleName"], info["ApplicationType"]) for bundle, info in sorted(apps.items())]


# -- launch output and failures ---------------------------------------------------------


def test_launch_prints_bundle_and_pid() -> None:
    assert parse_launch("com.example.shop: 41023\n", "com.example.shop") == 41023
    with pytest.raises(ToolError) as caught:
        parse_launch("com.example.shopper: 5\n", "com.example.shop")
    assert caught.value.code == "simctl-failed"


BOOTED = ("An error was encountered processing the command (domain=com.apple.CoreSimulator.SimError, code=405):\n"
          "Unable to boot device in current state: Booted\n")


def test_boot_of_a_booted_device_is_recognised_in_new_and_old_wording() -> None:
    assert already_booted(BOOTED)
    assert already_booted("An error was encountered processing the command (domain=com.apple.CoreSimulator.SimError,"
                          " code=164):\n[simctl] Unable to boot device in current state: Booted")
    assert not already_booted("Invalid device: nope")


def test_simctl_failures_keep_simctls_words_and_codes() -> None:
    error = simctl_error("boot", 149, BOOTED)
    assert (error.code, error.details) == (
        "simctl-failed", {"exitCode": 149, "domain": "com.apple.CoreSimulator.SimError", "errorCode": 405})
    assert error.message == "simctl boot failed (exit 149): Unable to boot device in current state: Booted"
    terminate = simctl_error("terminate", 3, (
        "An error was encountered processing the command (domain=NSPOSIXErrorDomain, code=3):\n"
        "Simulator device failed to terminate com.example.shop.\nfound nothing to terminate\n"
        "Underlying error (domain=NSPOSIXErrorDomain, code=3):\n"
        "\tThe operation couldn\u2019t be completed. found nothing to terminate\n\tfound nothing to terminate\n"))
    assert terminate.message.endswith("failed to terminate com.example.shop. found nothing to terminate")
    invalid = simctl_error("launch", 148, "Invalid device: iPhone 99\n")
    assert (invalid.message, invalid.details) == ("simctl launch failed (exit 148): Invalid device: iPhone 99",
                                                  {"exitCode": 148})
    assert simctl_error("list", 1, "").message.endswith("no message")


def test_a_missing_simctl_is_unavailable() -> None:
    error = simctl_error("list", 72, 'xcrun: error: unable to find utility "simctl", not a developer tool or in PATH\n')
    assert (error.code, error.details["component"]) == ("unavailable", "xcrun simctl")
