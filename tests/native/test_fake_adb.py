"""The fake adb server speaks the real protocol: Debian's adb client and adbutils talk to it.

Then the scripted device behind it: dumps that parse, taps that move between screens,
typing, BACK, the idle failures, a layout change, motionevent by API level, installs that
fail with adb's messages, every command recorded, and the emulator console.
"""

from __future__ import annotations

import io
import socket
import struct
import subprocess
from collections.abc import Iterator
from pathlib import Path

import adbutils  # type: ignore[import-untyped]
import pytest
from PIL import Image

from browx_actors.devices import adb_commands as commands
from browx_actors.devices import adb_output as output
from browx_actors.devices.uiautomator import parse_dump
from browx_actors.errors import ToolError
from browx_actors.sessions.native.refs import Hierarchy, RefBook
from browx_actors.sessions.native.selectors import resolve
from fakes.adb_device import FakeAdb, FakeDevice, Received, fake_apk
from fakes.adb_server import serve_adb
from fakes.adb_shop import default_adb, multi_device_adb

ADB = "/usr/bin/adb"
ABIS_FAILURE = "INSTALL_FAILED_NO_MATCHING_ABIS: Failed to extract native libraries, res=-113"


@pytest.fixture
def served() -> Iterator[tuple[int, FakeAdb]]:
    with serve_adb() as served:
        yield served


@pytest.fixture
def emulator(served: tuple[int, FakeAdb]) -> FakeDevice:
    return served[1].device("emulator-5554")


@pytest.fixture
def device(served: tuple[int, FakeAdb]) -> adbutils.AdbDevice:
    return adbutils.AdbClient(host="127.0.0.1", port=served[0]).device("emulator-5554")


def adb(port: int, *args: str) -> subprocess.CompletedProcess[str]:
    """Debian's own adb client, pointed at the fake server."""
    return subprocess.run([ADB, "-H", "127.0.0.1", "-P", str(port), *args], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=30, check=False)


# -- Debian's adb client ---------------------------------------------------------------


def test_debian_adb_lists_devices_with_their_details() -> None:
    with serve_adb(multi_device_adb()) as (port, _):
        result = adb(port, "devices", "-l")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "List of devices attached",
        "emulator-5554          device product:sdk_gphone64_x86_64 model:sdk_gphone64_x86_64 device:emu64xa "
        "transport_id:1",
        "emulator-5556          device product:Android SDK built for x86_64 model:Android_SDK_built_for_x86_64 "
        "device:emu64xa transport_id:2",
        "R58M12ABCDE            unauthorized transport_id:3",
        "emulator-5558          offline transport_id:4",
        "",
    ]
    assert [e.serial for e in output.parse_devices(result.stdout)][:2] == ["emulator-5554", "emulator-5556"]


def test_debian_adb_runs_shell_commands_with_their_exit_codes(served: tuple[int, FakeAdb]) -> None:
    port, fake = served
    echo = adb(port, "-s", "emulator-5554", "shell", "echo", "hi")
    assert (echo.returncode, echo.stdout) == (0, "hi\n")
    assert adb(port, "-s", "emulator-5554", "shell", "false").returncode == 1
    missing = adb(port, "-s", "emulator-5554", "shell", "nosuch")
    assert (missing.returncode, missing.stderr) == (127, "/system/bin/sh: nosuch: inaccessible or not found\n")
    chained = adb(port, "-s", "emulator-5554", "shell", "false || echo recovered; echo $?")
    assert chained.stdout == "recovered\n0\n"
    assert Received("emulator-5554", "shell,v2", "echo hi") in fake.received


def test_debian_adb_exec_out_dumps_the_hierarchy(served: tuple[int, FakeAdb]) -> None:
    result = subprocess.run([ADB, "-H", "127.0.0.1", "-P", str(served[0]), "-s", "emulator-5554", "exec-out",
                             commands.UIAUTOMATOR_DUMP_TTY], capture_output=True, timeout=30, check=True)
    assert result.stdout.endswith(b"</hierarchy>UI hierchary dumped to: /dev/tty\n")
    assert parse_dump(result.stdout).children[0].tag == "android.widget.FrameLayout"


def test_debian_adb_refuses_like_adb(served: tuple[int, FakeAdb]) -> None:
    missing = adb(served[0], "-s", "nope", "shell", "echo", "hi")
    assert missing.returncode == 1 and "device 'nope' not found" in missing.stderr
    with serve_adb(multi_device_adb()) as (port, _):
        several = adb(port, "shell", "echo", "hi")
        unauthorized = adb(port, "-s", "R58M12ABCDE", "shell", "echo", "hi")
        offline = adb(port, "-s", "emulator-5558", "shell", "echo", "hi")
    assert "more than one device/emulator" in several.stderr
    assert "device unauthorized" in unauthorized.stderr
    assert "device offline" in offline.stderr


def test_debian_adb_install_pushes_and_reports_pms_failure(served: tuple[int, FakeAdb], tmp_path: Path) -> None:
    port, fake = served
    good, bad = tmp_path / "good.apk", tmp_path / "bad.apk"
    good.write_bytes(fake_apk("com.example.new"))
    bad.write_bytes(fake_apk("com.example.bad", failure=ABIS_FAILURE))
    installed = adb(port, "-s", "emulator-5554", "install", str(good))
    assert installed.returncode == 0 and "Success" in installed.stdout
    refused = adb(port, "-s", "emulator-5554", "install", str(bad))
    assert refused.returncode == 1
    failure = output.parse_install_output(refused.stdout + refused.stderr)
    assert failure is not None and failure.code == "INSTALL_FAILED_NO_MATCHING_ABIS"
    emulator = fake.device("emulator-5554")
    assert "com.example.new" in emulator.packages and "com.example.bad" not in emulator.packages
    assert Received("emulator-5554", "sync", "SEND /data/local/tmp/good.apk") in emulator.commands


# -- adbutils ----------------------------------------------------------------------------


def test_adbutils_lists_and_reads_device_state(served: tuple[int, FakeAdb]) -> None:
    client = adbutils.AdbClient(host="127.0.0.1", port=served[0])
    assert client.server_version() == 41
    (info,) = client.list(extended=True)
    assert (info.serial, info.state, info.tags["model"], info.tags["transport_id"]) == (
        "emulator-5554", "device", "sdk_gphone64_x86_64", "1")
    device = client.device("emulator-5554")
    assert (device.get_state(), device.get_features(), device.prop.model) == (
        "device", "shell_v2", "sdk_gphone64_x86_64")
    props = output.parse_getprop(device.shell("getprop"))
    assert (props["ro.build.version.release"], props["sys.boot_completed"]) == ("14", "1")
    assert device.shell(commands.BOOT_COMPLETED) == "1"
    assert device.shell(commands.PACKAGE_MANAGER_READY) == "package:/system/framework/framework-res.apk"


def test_adbutils_shell_and_shell2_exit_codes(device: adbutils.AdbDevice) -> None:
    assert device.shell("echo hi") == "hi"
    assert device.shell2("false").returncode == 1  # shell v1 and adbutils' `; echo X4EXIT:$?`
    v2 = device.shell2("cat /nope", v2=True)
    assert (v2.returncode, v2.stderr) == (1, "cat: /nope: No such file or directory\n")


def test_adbutils_sync_push_pull_and_stat(device: adbutils.AdbDevice, emulator: FakeDevice) -> None:
    payload = bytes(range(256)) * 600  # > 64 KiB: several DATA chunks each way
    assert device.sync.push(payload, "/data/local/tmp/blob.bin") == len(payload)
    assert emulator.files["/data/local/tmp/blob.bin"] == payload
    assert device.sync.read_bytes("/data/local/tmp/blob.bin") == payload
    assert device.sync.stat("/data/local/tmp/blob.bin").size == len(payload)
    assert device.sync.stat("/data/local/tmp").mode & 0o040000
    assert [f.path for f in device.sync.list("/data/local/tmp")] == ["blob.bin"]
    assert not device.sync.exists("/data/local/tmp/none")


def test_adbutils_screenshots_are_real_pngs_of_the_screen_size(device: adbutils.AdbDevice) -> None:
    assert device.screenshot().size == (1080, 1794)  # adbutils: shell screencap -p
    with device.open_transport() as connection:  # exec-out, as the engine reads frames
        connection.send_command("exec:" + commands.SCREENCAP_PNG)
        connection.check_okay()
        png = connection.read_until_close(encoding=None)
    image = Image.open(io.BytesIO(png))
    assert (image.format, image.size) == ("PNG", (1080, 1794))


def test_adbutils_installs_over_sync_and_pm(device: adbutils.AdbDevice, emulator: FakeDevice) -> None:
    device.sync.push(fake_apk("com.example.new"), "/data/local/tmp/new.apk")
    assert device.shell(commands.install_command("/data/local/tmp/new.apk")) == "Success"
    assert output.parse_resolve_activity(device.shell(commands.resolve_launcher_command("com.example.new"))) == (
        "com.example.new/.MainActivity")
    device.sync.push(fake_apk("com.example.new"), "/data/local/tmp/again.apk")
    again = output.parse_install_output(device.shell(commands.install_command("/data/local/tmp/again.apk")))
    assert again is not None and again.code == "INSTALL_FAILED_ALREADY_EXISTS"
    assert device.shell(commands.install_command("/data/local/tmp/again.apk", reinstall=True)) == "Success"
    device.sync.push(b"not a zip", "/data/local/tmp/junk.apk")
    junk = output.parse_install_output(device.shell(commands.install_command("/data/local/tmp/junk.apk")))
    assert junk is not None and junk.code == "INSTALL_PARSE_FAILED_NOT_APK"
    assert "com.example.new" in output.parse_package_list(device.shell(commands.list_packages_command()))
    assert "android" not in output.parse_package_list(device.shell(commands.list_packages_command()))
    assert "android" in output.parse_package_list(device.shell(commands.list_packages_command(True)))


# -- the scripted device, driven the way the engine will drive it --------------------------


def read(device: adbutils.AdbDevice) -> Hierarchy:
    with device.open_transport() as connection:
        connection.send_command("exec:" + commands.UIAUTOMATOR_DUMP_TTY)
        connection.check_okay()
        return Hierarchy(parse_dump(connection.read_until_close(encoding=None)))


def tap(device: adbutils.AdbDevice, hierarchy: Hierarchy, selector: str, book: RefBook) -> None:
    target = resolve(selector, hierarchy, book).one()
    assert target.bounds is not None
    device.shell(commands.tap_command(*target.bounds.center))


def test_launch_splash_login_typing_and_taps_between_screens(device: adbutils.AdbDevice,
                                                             emulator: FakeDevice) -> None:
    book = RefBook()
    activity = output.parse_resolve_activity(device.shell(commands.resolve_launcher_command("com.example.shop")))
    assert activity == "com.example.shop/.MainActivity"
    assert output.start_failure(device.shell(commands.start_activity_command(activity))) is None
    for _ in range(2):  # a React Native splash: the spinner never lets the window go idle
        with pytest.raises(ToolError) as caught:
            read(device)
        assert caught.value.code == "native-hierarchy-not-idle"
    login = read(device)  # then it settles
    tap(device, login, "~email", book)
    for command in commands.input_text_commands("a b%sc@d.e"):
        device.shell(command)
    assert emulator.fields["email"] == "a b%sc@d.e"
    assert resolve("~email", read(device), book).one().value == "a b%sc@d.e"
    tap(device, read(device), "~login_button", book)
    assert emulator.screen.name == "catalog"
    tap(device, read(device), "checkout-submit", book)
    assert resolve("~order-status", read(device), book).one().text == "Order placed"
    device.shell(commands.key_press("back").commands()[0])
    assert emulator.screen.name == "catalog"
    focus = output.parse_window_focus(device.shell(commands.WINDOW_DUMP))
    assert focus is not None and focus.url == "app://com.example.shop/com.example.shop.MainActivity"
    emulator.in_transition = True
    assert output.parse_window_focus(device.shell(commands.WINDOW_DUMP)) is None
    sent = [r.command for r in emulator.commands if r.command.startswith("input")]
    assert sent[:2] == ["input tap 540 460", "input text a%sb%"]


def test_busy_screens_answer_both_idle_failures_even_with_exit_code_0(device: adbutils.AdbDevice,
                                                                      emulator: FakeDevice) -> None:
    for screen, text in (("busy", "ERROR: could not get idle state."),
                         ("busy-null", "ERROR: null root node returned by UiTestAutomationBridge.")):
        emulator.show(screen)
        result = device.shell2("uiautomator dump /sdcard/window_dump.xml", v2=True)
        assert (result.returncode, result.stderr.strip()) == (0, text)
        with pytest.raises(ToolError) as caught:
            read(device)
        assert caught.value.details == {"detail": text}


def test_dump_to_a_file_then_cat(device: adbutils.AdbDevice) -> None:
    result = device.shell2("uiautomator dump", v2=True)
    assert result.stderr == "UI hierchary dumped to: /sdcard/window_dump.xml\n"
    assert parse_dump(device.shell("cat /sdcard/window_dump.xml", encoding=None)).children


def test_deep_links_and_force_stop(device: adbutils.AdbDevice, emulator: FakeDevice) -> None:
    assert output.start_failure(device.shell(commands.view_intent_command("shop://catalog?from=test"))) is None
    assert emulator.screen.name == "catalog"
    failed = output.start_failure(device.shell(commands.view_intent_command("nobody://here")))
    assert failed is not None and failed.startswith("Error: Activity not started, unable to resolve Intent")
    device.shell(commands.force_stop_command("com.example.shop"))
    assert emulator.screen.name == "launcher"


def test_the_layout_change_keeps_anchored_refs_and_staled_path_refs(device: adbutils.AdbDevice,
                                                                    emulator: FakeDevice) -> None:
    emulator.show("catalog")
    book = RefBook()
    before = read(device)
    submit = book.ref_for(before, resolve("~checkout-submit", before, book).one())
    items = book.ref_for(before, resolve("text=3 items", before, book).one())
    tap(device, before, "~promo-toggle", book)
    after = read(device)
    assert resolve("~promo-banner", after, book).one().text == ""
    moved = resolve(submit, after, book).one()
    assert moved.bounds is not None and moved.bounds.y == 1640
    with pytest.raises(ToolError) as caught:
        resolve(items, after, book).one()
    assert caught.value.code == "stale-element"


def test_swipes_and_motionevents_by_api_level() -> None:
    with serve_adb(multi_device_adb()) as (port, fake):
        client = adbutils.AdbClient(host="127.0.0.1", port=port)
        new, old = client.device("emulator-5554"), client.device("emulator-5556")
        assert output.supports_motionevent(new.shell(commands.INPUT_USAGE))
        assert not output.supports_motionevent(old.shell(commands.INPUT_USAGE))
        for action in ("DOWN", "MOVE", "UP"):
            assert new.shell2(commands.motionevent_command(action, 10, 20)).returncode == 0
        refused = old.shell2(commands.motionevent_command("DOWN", 10, 20), v2=True)
        assert refused.returncode == 1 and "Unknown command: motionevent" in refused.stderr
        new.shell(commands.swipe_command(100, 1500, 100, 500, 250))
        assert fake.device("emulator-5554").gestures == [
            "motionevent DOWN 10 20", "motionevent MOVE 10 20", "motionevent UP 10 20", "swipe 100 1500 100 500 250"]


def test_pm_clear_resets_the_apps_state(device: adbutils.AdbDevice, emulator: FakeDevice) -> None:
    emulator.fields["email"] = "a@b.c"
    assert device.shell(commands.clear_data_command("com.example.shop")) == "Success"
    assert emulator.fields == {}
    assert device.shell(commands.uninstall_command("com.example.shop")) == "Success"
    assert device.shell2(commands.uninstall_command("com.example.shop")).returncode == 1


def test_tport_answers_the_transport_id_and_unknown_services_fail() -> None:
    with serve_adb(default_adb()) as (port, _), socket.create_connection(("127.0.0.1", port)) as sock:
        request = b"host:tport:serial:emulator-5554"
        sock.sendall(b"%04x%s" % (len(request), request))
        assert sock.recv(4) == b"OKAY"
        assert struct.unpack("<Q", sock.recv(8)) == (1,)
        request = b"reboot:"
        sock.sendall(b"%04x%s" % (len(request), request))
        assert sock.recv(4) == b"FAIL"


def test_the_emulator_console_authenticates_and_kills() -> None:
    with serve_adb(default_adb(), console_token="s3cret") as (port, fake):
        emulator = fake.device("emulator-5554")
        assert emulator.console_port
        with socket.create_connection(("127.0.0.1", emulator.console_port)) as sock:
            console = sock.makefile("rwb")
            banner = b"".join(iter(console.readline, b"OK\r\n")) + b"OK\r\n"
            assert b"Authentication required" in banner
            for line, answer in ((b"kill\n", b"KO: unknown command"), (b"auth wrong\n", b"KO: authentication"),
                                 (b"auth s3cret\n", b"Android Console: type 'help'")):
                console.write(line)
                console.flush()
                assert console.readline().startswith(answer)
            assert console.readline() == b"OK\r\n"  # the end of the authenticated banner
            console.write(b"kill\n")
            console.flush()
            assert console.readline() == b"OK: killing emulator, bye bye\r\n"
        assert fake.devices == []
        assert "emulator-5554" not in adb(port, "devices").stdout
