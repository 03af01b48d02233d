"""The fake `xcrun` on PATH, run as a real process, read back through the simctl parsers."""

from __future__ import annotations

import json
import os
import plistlib
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import trio

from browx_actors.devices.simctl import (
    already_booted,
    choose_simulator,
    parse_launch,
    parse_listapps,
    parse_simulators,
    simctl_error,
)

FAKES = Path(__file__).resolve().parents[1] / "fakes"
BOOTED = "8C1A6E5E-3B1F-4C53-9C58-6D2F1E4B7A01"  # the default scenario's booted iPhone 15
SHUTDOWN = "5E7C9A21-1D4F-4B8E-9C72-3A6B0D5F4E03"  # its iPhone 16 on iOS 18.0

Run = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def state_file(tmp_path: Path) -> Path:
    return tmp_path / "xcrun-state.json"


@pytest.fixture
def env(state_file: Path) -> dict[str, str]:
    # The interpreter running the tests answers the fake's `/usr/bin/env python3`:
    # a version-manager shim in between costs ~0.3 s a call.
    path = os.pathsep.join((str(FAKES), str(Path(sys.executable).parent), os.environ["PATH"]))
    return {**os.environ, "PATH": path, "BROWX_FAKE_XCRUN_STATE": str(state_file)}


@pytest.fixture
def xcrun(env: dict[str, str]) -> Run:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        # By name, through PATH, as the engine will find it.
        return subprocess.run(["xcrun", *args], env=env, capture_output=True, text=True, timeout=30)
    return run


def state(state_file: Path) -> dict[str, Any]:
    return json.loads(state_file.read_text())


def test_it_is_an_executable_found_on_path(env: dict[str, str]) -> None:
    assert os.access(FAKES / "xcrun", os.X_OK)
    assert (FAKES / "xcrun").read_text().startswith("#!/usr/bin/env python3\n")
    found = subprocess.run(["sh", "-c", "command -v xcrun"], env=env, capture_output=True, text=True)
    assert found.stdout.strip() == str(FAKES / "xcrun")


def test_list_devices_json_and_list_j_parse_and_choose_the_booted_simulator(xcrun: Run) -> None:
    devices = xcrun("simctl", "list", "devices", "--json")
    assert devices.returncode == 0
    assert '"devices" : {' in devices.stdout and "\\/Users\\/dev" in devices.stdout
    simulators = parse_simulators(devices.stdout)
    assert choose_simulator(simulators, None).id == BOOTED
    everything = xcrun("simctl", "list", "-j")
    assert set(json.loads(everything.stdout)) == {"devicetypes", "runtimes", "devices", "pairs"}
    by_id = {sim.id: sim for sim in parse_simulators(everything.stdout)}
    assert by_id[BOOTED].to_dict() == {"id": BOOTED, "name": "iPhone 15", "state": "Booted", "runtime": "iOS 17.5",
                                       "platform": "iOS"}
    assert sum(not sim.available for sim in by_id.values()) == 1
    assert "iPhone 15 (8C1A6E5E" in xcrun("simctl", "list").stdout


def test_boot_boots_once_then_says_booted_with_its_exit_code(xcrun: Run, state_file: Path) -> None:
    first = xcrun("simctl", "boot", SHUTDOWN)
    assert (first.returncode, first.stdout, first.stderr) == (0, "", "")
    again = xcrun("simctl", "boot", SHUTDOWN)
    assert again.returncode == 149
    assert already_booted(again.stderr)
    assert again.stderr.startswith("An error was encountered processing the command "
                                   "(domain=com.apple.CoreSimulator.SimError, code=405):\n")
    sims = {sim.id: sim for sim in parse_simulators(xcrun("simctl", "list", "devices", "-j").stdout)}
    assert sims[SHUTDOWN].state == "Booted"
    assert state(state_file)["calls"][:2] == [["simctl", "boot", SHUTDOWN], ["simctl", "boot", SHUTDOWN]]


def test_bootstatus_b_boots_and_reports_an_already_booted_device(xcrun: Run) -> None:
    booting = xcrun("simctl", "bootstatus", SHUTDOWN, "-b")
    assert booting.returncode == 0
    assert booting.stdout.startswith(f"Monitoring boot status for iPhone 16 ({SHUTDOWN}).")
    assert "Device already booted" in xcrun("simctl", "bootstatus", SHUTDOWN, "-b").stdout


def test_listapps_is_an_old_style_plist_with_system_and_user_apps(xcrun: Run) -> None:
    listed = xcrun("simctl", "listapps", BOOTED)
    assert listed.returncode == 0
    assert listed.stdout.startswith('{\n    "com.apple.Preferences" =     {\n        ApplicationType = System;')
    apps = {app.bundle_id: app for app in parse_listapps(listed.stdout)}
    assert (apps["com.example.shop"].app_type, apps["com.example.shop"].name) == ("User", "Shop")
    assert apps["com.apple.mobilesafari"].app_type == "System"
    assert parse_listapps(xcrun("simctl", "listapps", "booted").stdout) == list(apps.values())


def test_a_shut_down_device_has_no_apps_to_list(xcrun: Run) -> None:
    listed = xcrun("simctl", "listapps", SHUTDOWN)
    assert listed.returncode == 149
    assert "Unable to lookup in current state: Shutdown" in simctl_error("listapps", 149, listed.stderr).message


def test_install_reads_the_bundles_info_plist_and_replaces_in_place(xcrun: Run, tmp_path: Path,
                                                                   state_file: Path) -> None:
    bundle = tmp_path / "Notes.app"
    bundle.mkdir()
    info = {"CFBundleIdentifier": "com.example.notes", "CFBundleName": "Notes", "CFBundleVersion": "3",
            "CFBundleURLTypes": [{"CFBundleURLSchemes": ["notes"]}]}
    (bundle / "Info.plist").write_bytes(plistlib.dumps(info))
    for _ in range(2):
        installed = xcrun("simctl", "install", BOOTED, str(bundle))
        assert (installed.returncode, installed.stderr) == (0, "")
    apps = {app.bundle_id: app for app in parse_listapps(xcrun("simctl", "listapps", BOOTED).stdout)}
    assert (apps["com.example.notes"].name, apps["com.example.notes"].version) == ("Notes", "3")
    assert xcrun("simctl", "openurl", BOOTED, "notes://today").returncode == 0
    assert state(state_file)["opened"][BOOTED] == ["notes://today"]


def test_install_of_something_that_is_not_a_bundle_fails_like_simctl(xcrun: Run, tmp_path: Path) -> None:
    missing = xcrun("simctl", "install", BOOTED, str(tmp_path / "Nowhere.app"))
    assert missing.returncode == 2
    assert "An application bundle was not found at the provided path." in missing.stderr
    (tmp_path / "Bare.app").mkdir()
    bare = xcrun("simctl", "install", BOOTED, str(tmp_path / "Bare.app"))
    assert bare.returncode == 13
    assert "CFBundleIdentifier" in bare.stderr


def test_launch_prints_bundle_and_pid_and_terminate_stops_it(xcrun: Run, state_file: Path) -> None:
    launched = xcrun("simctl", "launch", BOOTED, "com.example.shop")
    assert launched.returncode == 0
    pid = parse_launch(launched.stdout, "com.example.shop")
    assert state(state_file)["running"][BOOTED] == {"com.example.shop": pid}
    assert parse_launch(xcrun("simctl", "launch", BOOTED, "com.example.shop").stdout, "com.example.shop") == pid
    relaunched = xcrun("simctl", "launch", "--terminate-running-process", BOOTED, "com.example.shop")
    assert parse_launch(relaunched.stdout, "com.example.shop") != pid
    assert xcrun("simctl", "terminate", BOOTED, "com.example.shop").returncode == 0
    assert state(state_file)["running"][BOOTED] == {}
    again = xcrun("simctl", "terminate", BOOTED, "com.example.shop")
    assert again.returncode == 3
    error = simctl_error("terminate", again.returncode, again.stderr)
    assert error.message == ("simctl terminate failed (exit 3): Simulator device failed to terminate "
                             "com.example.shop. found nothing to terminate")


def test_launching_what_is_not_installed_fails_like_simctl(xcrun: Run) -> None:
    failed = xcrun("simctl", "launch", BOOTED, "com.example.missing")
    assert failed.returncode == 4
    error = simctl_error("launch", failed.returncode, failed.stderr)
    assert error.details["domain"] == "FBSOpenApplicationServiceErrorDomain"
    assert error.message == 'simctl launch failed (exit 4): The request to open "com.example.missing" failed.'


def test_openurl_routes_by_scheme_and_uninstall_removes(xcrun: Run, state_file: Path) -> None:
    assert xcrun("simctl", "openurl", BOOTED, "shop://checkout/42").returncode == 0
    assert "com.example.shop" in state(state_file)["running"][BOOTED]
    unknown = xcrun("simctl", "openurl", BOOTED, "nosuchapp://x")
    assert unknown.returncode == 194  # OSStatus -10814, as a byte
    assert "(domain=NSOSStatusErrorDomain, code=-10814)" in unknown.stderr
    assert xcrun("simctl", "uninstall", BOOTED, "com.example.shop").returncode == 0
    assert "com.example.shop" not in xcrun("simctl", "listapps", BOOTED).stdout


def test_unknown_devices_subcommands_and_tools_fail_like_the_real_ones(xcrun: Run) -> None:
    invalid = xcrun("simctl", "boot", "iPhone 99")
    assert (invalid.returncode, invalid.stderr.strip()) == (148, "Invalid device: iPhone 99")
    unknown = xcrun("simctl", "frobnicate")
    assert unknown.returncode != 0 and "frobnicate" in unknown.stderr and unknown.stdout == ""
    usage = xcrun("simctl", "launch", BOOTED)
    assert usage.returncode != 0 and "Usage" in usage.stderr
    tool = xcrun("instruments")
    assert tool.returncode == 72
    assert simctl_error("instruments", 72, tool.stderr).code == "unavailable"


def test_a_test_can_set_the_state_up_first(xcrun: Run, state_file: Path) -> None:
    xcrun("simctl", "list", "-j")  # writes the default scenario
    scenario = state(state_file)
    for devices in scenario["devices"].values():
        for device in devices:
            device["state"] = "Shutdown"
    scenario["calls"] = []
    state_file.write_text(json.dumps(scenario))
    simulators = parse_simulators(xcrun("simctl", "list", "devices", "--json").stdout)
    assert choose_simulator(simulators, None).name == "iPhone 16"  # none booted: the newest runtime's first
    assert xcrun("simctl", "listapps", "booted").stderr.strip().endswith("No devices are booted.")
    assert [call[1] for call in state(state_file)["calls"]] == ["list", "listapps"]


async def test_it_runs_under_trio_run_process_as_the_engine_will(env: dict[str, str]) -> None:
    result = await trio.run_process(["xcrun", "simctl", "launch", BOOTED, "com.example.shop"], env=env,
                                    capture_stdout=True, capture_stderr=True)
    assert parse_launch(result.stdout.decode(), "com.example.shop") >= 41000
