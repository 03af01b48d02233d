"""Devices end to end: leases (one owner per device, the holder named), the choice of
device by BROWX_ANDROID_APP_SERIAL, device_list (against the fake adb server, and
against Debian's real adb server with nothing attached), device_boot and
device_shutdown with the fake emulator on PATH."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
from pathlib import Path

import trio

from android.android_support import Adb, android_server, serving
from e2e_support import browx_server, fails, ok, process_alive
from fakes.adb_server import serve_adb
from fakes.adb_shop import multi_device_adb
from polling import poll_until


def _tree_child(status: dict, child: str) -> dict:
    return next(c for c in status["tree"]["children"] if c["id"] == child)


async def test_leases_are_exclusive_and_end_with_their_session(tmp_path: Path, adb: Adb) -> None:
    async with android_server(tmp_path, adb) as client:
        await ok(client, "open_session", {"session": "a", "engine": "android-app"})
        refused = await fails(client, "open_session", {"session": "b", "engine": "android-app"}, "device-leased")
        assert refused["holder"] == "a" and refused["device"] == "android:emulator-5554"
        assert "one UiAutomator or WebDriverAgent owner per device" in refused["error"]
        status = await ok(client, "runtime_status")
        ids = [c["id"] for c in status["tree"]["children"]]
        assert ids.index("devices") < ids.index("sessions"), "the registry outlives the sessions"
        (lease,) = _tree_child(status, "devices")["leases"]
        assert lease["device"] == "android:emulator-5554" and lease["holder"] == "a"
        listed = await ok(client, "device_list")
        assert listed["devices"][0]["leasedBy"] == "a"
        shutdown = await fails(client, "device_shutdown", {"serial": "emulator-5554"}, "device-leased")
        assert shutdown["holder"] == "a"
        # b was never opened: its id is free, and the failed open left nothing behind.
        assert [s["id"] for s in (await ok(client, "list_sessions"))["sessions"]] == ["a"]
        await ok(client, "close_session", {"session": "a"})
        assert _tree_child(await ok(client, "runtime_status"), "devices")["leases"] == []
        # A browser session has no device: the lifecycle tools refuse it, naming the engine.
        browser = await fails(client, "app_list", {"session": "default"}, "not-supported")
        assert browser["engine"] == "chromium" and browser["tool"] == "app_list"
        assert browser["error"].startswith("app_list is not available on chromium: a browser session has no device")
        opened = await ok(client, "open_session", {"session": "b", "engine": "android-app"})
        assert opened["device"]["id"] == "emulator-5554"
        assert adb.device().state == "device", "closing a session never shuts its device down"


async def test_the_device_is_chosen_by_serial_and_an_ambiguous_pick_refuses(tmp_path: Path) -> None:
    with serving(multi_device_adb()) as adb:
        async with android_server(tmp_path, adb) as client:
            ambiguous = await fails(client, "open_session", {"session": "p", "engine": "android-app"},
                                    "device-ambiguous")
            assert ambiguous["candidates"] == ["emulator-5554", "emulator-5556"]
            assert "BROWX_ANDROID_APP_SERIAL" in ambiguous["error"]
            listed = await ok(client, "device_list")
            assert [(d["serial"], d["state"], d["sdk"]) for d in listed["devices"]] == [
                ("emulator-5554", "device", 34), ("emulator-5556", "device", 29),
                ("R58M12ABCDE", "unauthorized", None), ("emulator-5558", "offline", None)]
            assert listed["devices"][1] == {"serial": "emulator-5556", "state": "device",
                                            "model": "Android SDK built for x86_64", "release": "10", "sdk": 29,
                                            "emulator": True, "leasedBy": None}
            assert listed["ready"] == 2 and listed["devices"][2]["emulator"] is False
            physical = await fails(client, "device_shutdown", {"serial": "R58M12ABCDE"}, "physical-device")
            assert "never the operator's phone" in physical["error"]
            await fails(client, "device_shutdown", {"serial": "emulator-9999"}, "target-not-found")
        async with android_server(tmp_path / "b", adb, BROWX_ANDROID_APP_SERIAL="emulator-5556") as client:
            opened = await ok(client, "open_session", {"session": "p", "engine": "android-app"})
            assert opened["device"]["id"] == "emulator-5556" and opened["device"]["sdk"] == 29


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_device_list_against_debian_adb_with_nothing_attached(tmp_path: Path) -> None:
    """The real adb server: no device attached is an empty list, not a failure. Nothing
    listens on the port at first, so the server starts one with the adb on PATH."""
    adb = shutil.which("adb")
    assert adb is not None, "Debian's adb must be installed (make test installs it)"
    port = _free_port()
    no_tools = {"ANDROID_ADB_SERVER_PORT": str(port), "PATH": str(Path(adb).parent), "HOME": str(tmp_path)}
    try:
        async with browx_server(tmp_path / "ws", "native-device", env=no_tools) as client:
            listed = await ok(client, "device_list")
            assert listed == {"ok": True, "devices": [], "avds": [], "simulators": [], "ready": 0,
                              "simulatorsBooted": 0}
            version = subprocess.run([adb, "-P", str(port), "version"], capture_output=True, text=True, check=True)
            assert "Android Debug Bridge" in version.stdout
            refused = await fails(client, "open_session", {"session": "p", "engine": "android-app"},
                                  "target-not-found")
            assert "no Android device is attached and ready" in refused["error"]
    finally:
        subprocess.run([adb, "-P", str(port), "kill-server"], capture_output=True, check=False, timeout=30)


async def test_device_boot_and_shutdown_with_the_emulator(tmp_path: Path, adb: Adb) -> None:
    async with android_server(tmp_path, adb) as client:
        listed = await ok(client, "device_list")
        assert listed["avds"] == ["Pixel_8_API_34", "Small_Phone_API_30"]
        unknown = await fails(client, "device_boot", {"avd": "Nexus_1"}, "target-not-found")
        assert "browx never creates one" in unknown["error"]
        bad = await fails(client, "device_boot", {"avd": "-wipe-data"}, "bad-arg")
        assert bad["field"] == "avd"

        booted = await ok(client, "device_boot", {"avd": "Pixel_8_API_34"})
        device = booted["device"]
        serial = device["serial"]
        assert serial.startswith("emulator-") and serial != "emulator-5554"
        assert device["state"] == "device" and device["sdk"] == 34 and device["avd"] == "Pixel_8_API_34"
        assert device["headless"] is True and booted["bootSeconds"] >= 0
        (argv,) = [json.loads(line) for line in (tmp_path / "home" / "emulator-argv.jsonl").read_text().splitlines()]
        assert argv[:4] == ["-avd", "Pixel_8_API_34", "-port", serial.removeprefix("emulator-")]
        assert "-no-snapshot-save" in argv and "-no-window" in argv
        booted_device = adb.device(serial)
        assert booted_device.boot_probes == 0 and booted_device.pm_probes == 0, "it waited for the package manager"
        assert process_alive(device["pid"])

        both = await ok(client, "device_list")
        assert [d["serial"] for d in both["devices"]] == ["emulator-5554", serial] and both["ready"] == 2

        stopped = await ok(client, "device_shutdown", {"serial": serial})
        assert stopped["shutdown"] is True and stopped["listed"] is False
        assert stopped["console"].startswith("OK: killing emulator")
        assert all(d.serial != serial for d in adb.model.devices)
        with trio.move_on_after(10):
            await poll_until(lambda: not process_alive(device["pid"]), interval=0.05)
        assert not process_alive(device["pid"]), "the emulator process left once it was killed"

        windowed = await ok(client, "device_boot", {"avd": "Small_Phone_API_30", "headless": False})
        argv = json.loads((tmp_path / "home" / "emulator-argv.jsonl").read_text().splitlines()[-1])
        assert "-no-window" not in argv and "-no-snapshot-save" in argv
        await ok(client, "device_shutdown", {"serial": windowed["device"]["serial"]})


async def test_the_adb_server_host_is_honoured(tmp_path: Path) -> None:
    """ANDROID_ADB_SERVER_HOST points the engine at another address (a remote server, a
    device farm's): here 127.0.0.2, where nothing on 127.0.0.1 answers for it."""
    with serve_adb(host="127.0.0.2") as (port, _):
        served = Adb(port, _)
        async with android_server(tmp_path, served, ANDROID_ADB_SERVER_HOST="127.0.0.2") as client:
            listed = await ok(client, "device_list")
            assert [d["serial"] for d in listed["devices"]] == ["emulator-5554"]
            opened = await ok(client, "open_session", {"session": "far", "engine": "android-app"})
            assert opened["device"]["id"] == "emulator-5554"
