"""adb command builders (adb_commands) and the parsers of what those commands print (adb_output)."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from browx_actors.devices import adb_commands as adb
from browx_actors.devices import adb_output as out
from browx_actors.errors import ToolError

PRINTABLE_ASCII = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=60)


def android_decode(arg: str) -> str:
    """What Android's ``input text`` types for one argument (InputShellCommand's %s rule)."""
    chars = list(arg)
    i, escape = 0, False
    while i < len(chars):
        if escape:
            escape = False
            if chars[i] == "s":
                chars[i] = " "
                i -= 1
                del chars[i]
        if chars[i] == "%":
            escape = True
        i += 1
    return "".join(chars)


@given(PRINTABLE_ASCII)
@example("%s")
@example("%%s")
@example("% s")
@example("s%")
@example("'\"$`\\ ;|&<>*?~#")
def test_input_text_round_trips_through_a_posix_shell_and_the_percent_s_rule(text: str) -> None:
    commands = adb.input_text_commands(text)
    typed = []
    for command in commands:
        argv = shlex.split(command)
        assert argv[:2] == ["input", "text"] and len(argv) == 3
        typed.append(android_decode(argv[2]))
    assert "".join(typed) == text
    assert (commands == ()) is (text == "")


def test_input_text_cuts_between_percent_and_s() -> None:
    assert adb.input_text_commands("100%sure it's 5% off") == (
        "input text 100%", "input text 'sure%sit'\"'\"'s%s5%%soff'")
    assert adb.input_text_commands("a b") == ("input text a%sb",)
    assert adb.input_text_commands("$(reboot);`id`|&") == ("input text '$(reboot);`id`|&'",)


@pytest.mark.parametrize(("text", "what"), [("caf\u00e9", "'\u00e9' at index 3"), ("a\nb", "a newline at index 1"),
                                            ("\t", "a tab at index 0"), ("\u2603", "'\u2603' at index 0")])
def test_input_text_refuses_what_it_cannot_type(text: str, what: str) -> None:
    with pytest.raises(ToolError) as caught:
        adb.input_text_commands(text)
    assert caught.value.code == "bad-arg" and caught.value.details == {"field": "value"}
    assert what in caught.value.message and "ASCII" in caught.value.message


@pytest.mark.parametrize(("key", "commands"), [
    ("back", ("input keyevent KEYCODE_BACK",)), ("Home", ("input keyevent KEYCODE_HOME",)),
    ("menu", ("input keyevent KEYCODE_MENU",)), ("appswitch", ("input keyevent KEYCODE_APP_SWITCH",)),
    ("app_switch", ("input keyevent KEYCODE_APP_SWITCH",)), ("Enter", ("input keyevent KEYCODE_ENTER",)),
    ("ArrowUp", ("input keyevent KEYCODE_DPAD_UP",)), ("arrow-left", ("input keyevent KEYCODE_DPAD_LEFT",)),
    ("down", ("input keyevent KEYCODE_DPAD_DOWN",)), ("Right", ("input keyevent KEYCODE_DPAD_RIGHT",)),
    ("Tab", ("input keyevent KEYCODE_TAB",)), ("Backspace", ("input keyevent KEYCODE_DEL",)),
    ("Delete", ("input keyevent KEYCODE_FORWARD_DEL",)), ("Escape", ("input keyevent KEYCODE_ESCAPE",)),
    ("KEYCODE_MEDIA_PLAY", ("input keyevent KEYCODE_MEDIA_PLAY",)),
    ("keycode_camera", ("input keyevent KEYCODE_CAMERA",)),
    ("a", ("input text a",)), ("%", ("input text %",)), (" ", ("input text %s",)), (";", ("input text ';'",)),
    ("+", ("input text +",)),
])
def test_keys(key: str, commands: tuple[str, ...]) -> None:
    assert adb.key_press(key).commands() == commands


@pytest.mark.parametrize("key", ["Control+A", "Hyper", "\u00e9", ""])
def test_unknown_keys_chords_and_non_ascii_characters_are_refused(key: str) -> None:
    with pytest.raises(ToolError) as caught:
        adb.key_press(key)
    assert caught.value.code == "bad-arg" and caught.value.details == {"field": "key"}


def test_pointer_commands() -> None:
    assert adb.tap_command(540.4, 960.6) == "input tap 540 961"
    assert adb.swipe_command(100, 1500, 100, 500) == "input swipe 100 1500 100 500 300"
    assert adb.swipe_command(1, 2, 3, 4, 50) == "input swipe 1 2 3 4 50"
    assert adb.long_press_command(10, 20) == "input swipe 10 20 10 20 1000"
    assert adb.motionevent_command("down", 5, 6) == "input motionevent DOWN 5 6"
    for call in (lambda: adb.tap_command(-1, 0), lambda: adb.tap_command(float("nan"), 0),
                 lambda: adb.swipe_command(0, 0, 1, 1, -5), lambda: adb.motionevent_command("HOVER", 1, 1)):
        with pytest.raises(ToolError) as caught:
            call()
        assert caught.value.code == "bad-arg"


def test_motionevent_support_is_read_from_the_usage_text() -> None:
    usage_30 = "Usage: input ...\n      motionevent <DOWN|UP|MOVE|CANCEL> <x> <y> (Default: touchscreen)\n"
    assert out.supports_motionevent(usage_30)
    assert not out.supports_motionevent("Usage: input ...\n      tap <x> <y> (Default: touchscreen)\n")


def test_intents_and_app_commands() -> None:
    assert adb.view_intent_command("myapp://checkout/42?x=1&y=2") == (
        "am start -a android.intent.action.VIEW -d 'myapp://checkout/42?x=1&y=2'")
    for url in ("checkout/42", "", "myapp:// x", "; reboot"):
        with pytest.raises(ToolError) as caught:
            adb.view_intent_command(url)
        assert caught.value.details == {"field": "url"}
    assert adb.start_activity_command("com.example.shop/.MainActivity") == "am start -n com.example.shop/.MainActivity"
    assert adb.resolve_launcher_command("com.example.shop") == (
        "cmd package resolve-activity --brief -c android.intent.category.LAUNCHER com.example.shop")
    assert adb.force_stop_command("com.example.shop") == "am force-stop com.example.shop"
    assert adb.clear_data_command("com.example.shop") == "pm clear com.example.shop"
    assert adb.uninstall_command("com.example.shop") == "pm uninstall com.example.shop"
    assert adb.install_command("/data/local/tmp/my app.apk", reinstall=True) == (
        "pm install -r -t '/data/local/tmp/my app.apk'")
    assert adb.list_packages_command() == "pm list packages -3"
    assert adb.list_packages_command(include_system=True) == "pm list packages"
    for bad in ("shop", "com.example.shop; reboot", "-3", "com..shop", "1com.shop"):
        with pytest.raises(ToolError) as caught:
            adb.force_stop_command(bad)
        assert caught.value.details == {"field": "appId"}


def test_resolve_activity_output() -> None:
    output = ("priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false\n"
              "com.example.shop/.MainActivity\n")
    assert out.parse_resolve_activity(output) == "com.example.shop/.MainActivity"
    assert out.parse_resolve_activity("No activity found\n") is None
    assert out.parse_resolve_activity("") is None


def test_start_failures() -> None:
    assert out.start_failure("Starting: Intent { cmp=a.b/.C }\n") is None
    failed = out.start_failure("Starting: Intent { act=VIEW }\nError: Activity not started, unable to resolve "
                               "Intent { act=VIEW }\n")
    assert failed is not None and failed.startswith("Error: Activity not started")
    assert out.start_failure("Warning: Activity not started, its current task has been brought to the front\n") is None


def test_window_focus() -> None:
    dumpsys = ("  mCurrentFocus=Window{4f0e1c4 u0 com.example.shop/com.example.shop.MainActivity}\n"
               "  mFocusedApp=ActivityRecord{d2a5b1 u0 com.example.shop/.MainActivity t12}\n")
    focus = out.parse_window_focus(dumpsys)
    assert focus == out.Foreground("com.example.shop", "com.example.shop.MainActivity")
    assert focus is not None and focus.url == "app://com.example.shop/com.example.shop.MainActivity"
    assert out.parse_window_focus("  mCurrentFocus=null\n  mFocusedApp=ActivityRecord{1 u0 a.b/.C t1}\n") is None
    shade = "  mCurrentFocus=Window{1 u0 NotificationShade}\n  mFocusedApp=ActivityRecord{2 u0 a.b/.Main t3}\n"
    assert out.parse_window_focus(shade) == out.Foreground("a.b", "a.b.Main")
    assert out.parse_window_focus("nothing here") is None


def test_package_lists_props_and_sizes() -> None:
    assert out.parse_package_list("package:com.b\r\npackage:com.a\npackage:/data/app/x/base.apk=com.c\njunk\n") == (
        "com.a", "com.b", "com.c")
    props = out.parse_getprop("[ro.product.model]: [Pixel 7]\r\n[ro.build.version.sdk]: [34]\n"
                              "[weird.multi]: [line one\nline two]\n[empty]: []\n")
    assert props == {"ro.product.model": "Pixel 7", "ro.build.version.sdk": "34",
                     "weird.multi": "line one\nline two", "empty": ""}
    assert out.parse_wm_size("Physical size: 1080x2400\n") == (1080, 2400)
    assert out.parse_wm_size("Physical size: 1080x2400\nOverride size: 720x1600\n") == (720, 1600)
    assert out.parse_wm_size("") is None


@pytest.mark.parametrize(("output", "code", "detail", "reason"), [
    ("Performing Streamed Install\nadb: failed to install app.apk: Failure [INSTALL_FAILED_NO_MATCHING_ABIS: "
     "Failed to extract native libraries, res=-113]\n", "INSTALL_FAILED_NO_MATCHING_ABIS",
     "Failed to extract native libraries, res=-113", "CPU ABI"),
    ("Failure [INSTALL_FAILED_INSUFFICIENT_STORAGE]\n", "INSTALL_FAILED_INSUFFICIENT_STORAGE", "", "storage"),
    ("Failure [INSTALL_PARSE_FAILED_NO_CERTIFICATES: Failed collecting certificates for /data/app/vmdl1.tmp/"
     "base.apk: Attempt to get length of null array]", "INSTALL_PARSE_FAILED_NO_CERTIFICATES",
     "Failed collecting certificates for /data/app/vmdl1.tmp/base.apk: Attempt to get length of null array",
     "not signed"),
    ("Failure [INSTALL_FAILED_UPDATE_INCOMPATIBLE: Package com.x signatures do not match previously installed "
     "version; ignoring!]\n", "INSTALL_FAILED_UPDATE_INCOMPATIBLE",
     "Package com.x signatures do not match previously installed version; ignoring!", "different key"),
    ("Failure [INSTALL_FAILED_SOMETHING_NEW: huh]\n", "INSTALL_FAILED_SOMETHING_NEW", "huh", "refused"),
    ("Error: java.lang.SecurityException: nope\n", "UNKNOWN", "Error: java.lang.SecurityException: nope",
     "neither Success"),
])
def test_install_failures(output: str, code: str, detail: str, reason: str) -> None:
    failure = out.parse_install_output(output)
    assert failure is not None
    assert (failure.code, failure.detail) == (code, detail)
    assert reason in failure.reason and code in failure.message


def test_install_success() -> None:
    assert out.parse_install_output("Performing Push Install\napp.apk: 1 file pushed.\nSuccess\n") is None


def test_device_listings() -> None:
    long = ("List of devices attached\n"
            "emulator-5554          device product:sdk_gphone64_x86_64 model:sdk_gphone64_x86_64 device:emu64xa "
            "transport_id:1\n"
            "R58M12ABCDE            unauthorized usb:1-4 transport_id:3\n"
            "0123456789ABCDEF       no permissions (user in plugdev group; are your udev rules wrong?); see "
            "[http://developer.android.com/tools/device.html] usb:1-1 transport_id:4\n"
            "emulator-5558          offline transport_id:5\n\n")
    emulator, phone, odd, offline = out.parse_devices(long)
    assert emulator == out.DeviceEntry("emulator-5554", "device", "sdk_gphone64_x86_64", "sdk_gphone64_x86_64",
                                       "emu64xa", 1)
    assert emulator.emulator and not phone.emulator
    assert (phone.state, phone.usb, phone.transport_id, phone.model) == ("unauthorized", "1-4", 3, None)
    assert odd.state.startswith("no permissions (user in plugdev group") and odd.transport_id == 4
    assert (offline.state, offline.transport_id) == ("offline", 5)
    assert out.parse_devices("emulator-5554\tdevice\nabc\tunauthorized\n") == (
        out.DeviceEntry("emulator-5554", "device"), out.DeviceEntry("abc", "unauthorized"))
    assert out.parse_devices("* daemon not running; starting now at tcp:5037\n* daemon started\n") == ()


def test_emulator_console_port() -> None:
    assert out.emulator_console_port("emulator-5554") == 5554
    assert out.emulator_console_port("R58M12ABCDE") is None
    assert out.emulator_console_port("emulator-x") is None
