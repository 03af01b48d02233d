"""The fake device's shell answers the commands device tools send as an Android 14
emulator does: the output formats on their own (pure functions), then the commands
through the shell with their exit codes, then through Debian's adb client."""

from __future__ import annotations

import subprocess

from fakes import android_formats as formats
from fakes.adb_device import FakeDevice
from fakes.adb_server import serve_adb
from fakes.adb_shop import SHOP, emulator

ADB = "/usr/bin/adb"


# -- the formats --------------------------------------------------------------------


def test_wm_density_names_the_physical_density_then_an_override() -> None:
    assert formats.wm_density(420) == "Physical density: 420\n"
    assert formats.wm_density(420, 560) == "Physical density: 420\nOverride density: 560\n"


def test_pm_list_features_prefixes_each_feature() -> None:
    assert formats.pm_list_features(["reqGlEsVersion=0x30000", "android.hardware.wifi"]) == (
        "feature:reqGlEsVersion=0x30000\nfeature:android.hardware.wifi\n")
    assert "feature:android.software.leanback\n" not in formats.pm_list_features()  # a handset, not a TV


def test_query_activities_counts_then_dumps_each_resolve_info() -> None:
    text = formats.query_activities([("com.a", "com.a.Main"), ("com.b", "com.b.ui.Home")])
    lines = text.splitlines()
    assert lines[:6] == ["2 activities found:", "  Activity #0:",
                         "    priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false",
                         "    ActivityInfo:", "      name=com.a.Main", "      packageName=com.a"]
    assert "  Activity #1:" in lines and "      name=com.b.ui.Home" in lines
    # ApplicationInfo names the package again, one level deeper.
    assert [line.strip() for line in lines if "packageName=" in line] == [
        "packageName=com.a", "packageName=com.a", "packageName=com.b", "packageName=com.b"]
    assert formats.query_activities([]) == "No activities found\n"


def test_monkey_echoes_its_arguments_and_counts_the_event_or_aborts_with_252() -> None:
    args = ["-p", SHOP, "-c", "android.intent.category.LAUNCHER", "1"]
    stdout, stderr, code = formats.monkey_launch(args, found=True)
    assert code == 0
    assert stdout.startswith(f"  bash arg: -p\n  bash arg: {SHOP}\n")
    assert "Events injected: 1\n" in stdout
    assert stderr.splitlines() == [
        f"args: [-p, {SHOP}, -c, android.intent.category.LAUNCHER, 1]", ' arg: "-p"', f'data="{SHOP}"',
        ' arg: "-c"', 'data="android.intent.category.LAUNCHER"', ' arg: "1"']
    stdout, stderr, code = formats.monkey_launch(args, found=False)
    assert code == 252 and "Events injected" not in stdout
    assert stderr.endswith("** No activities found to run, monkey aborted.\n")


def test_am_start_wait_reports_the_launch() -> None:
    assert formats.am_start_wait("com.a/.Main", cold=True, total_ms=300).splitlines() == [
        "Starting: Intent { cmp=com.a/.Main }", "Status: ok", "LaunchState: COLD", "Activity: com.a/.Main",
        "TotalTime: 300", "WaitTime: 303", "Complete"]
    assert "LaunchState: HOT" in formats.am_start_wait("com.a/.Main", cold=False)


def test_dumpsys_window_displays_and_package_and_surfaceflinger() -> None:
    displays = formats.dumpsys_window_displays(1080, 2400, 420)
    assert "    init=1080x2400 420dpi mMinSizeOfResizeableTaskDp=220 cur=1080x2400 app=1080x2337" in displays
    package = formats.dumpsys_package("com.a", "com.a.Main", version_name="2.1")
    assert "  Package [com.a] (4c1f7e2):" in package
    assert "    versionCode=1 minSdk=24 targetSdk=34\n    versionName=2.1\n" in package
    assert "        5e8f1d2 com.a/com.a.Main filter 9b3c0a4" in package
    assert formats.surfaceflinger_display_ids(2).count("Display ") == 2


# -- through the shell --------------------------------------------------------------


def run(device: FakeDevice, line: str) -> tuple[str, str, int]:
    result = device.run("shell,v2", line)
    return result.stdout.decode(), result.stderr.decode(), result.exit_code


def test_wm_pm_and_cmd_report_the_device() -> None:
    device = emulator()
    assert run(device, "wm size") == ("Physical size: 1080x1794\n", "", 0)
    assert run(device, "wm density") == ("Physical density: 420\n", "", 0)
    assert run(device, "wm bogus")[2] == 255
    assert run(device, "pm list packages -3")[0] == f"package:com.android.chrome\npackage:{SHOP}\n"
    assert "feature:android.hardware.touchscreen\n" in run(device, "pm list features")[0]
    found = run(device, "cmd package query-activities -a android.intent.action.MAIN -c "
                        "android.intent.category.LAUNCHER")[0]
    assert found.startswith("3 activities found:\n") and f"      name={SHOP}.MainActivity\n" in found
    assert run(device, "cmd nosuch list") == ("", "cmd: Can't find service: nosuch\n", 20)


def test_monkey_launches_like_the_launcher_and_refuses_an_unknown_package() -> None:
    device = emulator()
    device.busy_dumps = 0
    stdout, _, code = run(device, f"monkey -p {SHOP} -c android.intent.category.LAUNCHER 1")
    assert code == 0 and "Events injected: 1" in stdout and device.screen.name == "splash"
    run(device, "uiautomator dump /dev/tty")  # the splash settles into login
    device.show("catalog")
    device.stack.append("launcher")
    run(device, f"monkey -p {SHOP} -c android.intent.category.LAUNCHER 1")
    assert device.stack[-2:] == ["login", "catalog"]  # brought to front as it was, not restarted
    _, stderr, code = run(device, "monkey -p com.nobody -c android.intent.category.LAUNCHER 1")
    assert code == 252 and "monkey aborted" in stderr
    assert run(device, "monkey 1")[2] == 255


def test_am_start_wait_settings_dumpsys_mv_and_run_as() -> None:
    device = emulator()
    stdout, _, code = run(device, f"am start -W -n {SHOP}/.MainActivity")
    assert code == 0 and "LaunchState: COLD" in stdout and device.screen.name == "splash"
    assert "LaunchState: HOT" in run(device, f"am start -W -S -n {SHOP}/.MainActivity")[0]
    assert run(device, "settings get system user_rotation") == ("0\n", "", 0)
    assert run(device, "settings get secure never_set") == ("null\n", "", 0)
    assert run(device, "settings put system user_rotation 1; settings get system user_rotation")[0] == "1\n"
    assert run(device, "settings get nowhere x")[2] == 255
    assert "init=1080x1794 420dpi" in run(device, "dumpsys window displays")[0]
    assert f"Package [{SHOP}]" in run(device, f"dumpsys package {SHOP}")[0]
    assert run(device, "dumpsys package com.nobody") == ("", "", 0)
    device.files["/data/local/tmp/a.apk"] = b"apk"
    assert run(device, "mv /data/local/tmp/a.apk /data/local/tmp/b.apk") == ("", "", 0)
    assert device.files == {"/data/local/tmp/b.apk": b"apk"}
    assert run(device, "mv /data/local/tmp/a.apk /x") == ("", "mv: bad '/data/local/tmp/a.apk': No such file "
                                                               "or directory\n", 1)
    assert run(device, f"run-as {SHOP} echo hi") == ("hi\n", "", 0)
    assert run(device, "run-as com.android.chrome ls") == (
        "", "run-as: package not debuggable: com.android.chrome\n", 1)
    assert run(device, "run-as com.nobody ls") == ("", "run-as: unknown package: com.nobody\n", 1)


def test_debian_adb_carries_the_exit_codes_and_the_tty_dump() -> None:
    with serve_adb() as (port, _):
        def adb(*args: str) -> subprocess.CompletedProcess[bytes]:
            return subprocess.run([ADB, "-H", "127.0.0.1", "-P", str(port), "-s", "emulator-5554", *args],
                                  capture_output=True, timeout=30, check=False)

        refused = adb("shell", "run-as", "com.android.chrome", "ls")
        assert refused.returncode == 1 and refused.stderr == b"run-as: package not debuggable: com.android.chrome\n"
        assert adb("shell", "monkey", "-p", "com.nobody", "1").returncode == 252
        dumped = adb("exec-out", "uiautomator", "dump", "/dev/tty")
        assert dumped.stdout.endswith(b"</hierarchy>UI hierchary dumped to: /dev/tty\n")
