"""android-app end to end, the app lifecycle: app_list, app_install (the workspace rules,
adb's own failure reasons), app_uninstall, app_launch (the launcher activity resolved and
returned), app_terminate, app_reset and app_foreground (null during a transition)."""

from __future__ import annotations

import os
from pathlib import Path

from android.android_support import Adb, android_server
from e2e_support import fails, ok
from fakes.adb_device import fake_apk

SHOP = "com.example.shop"
ABIS = "INSTALL_FAILED_NO_MATCHING_ABIS: Failed to extract native libraries, res=-113"


async def test_app_lifecycle(tmp_path: Path, adb: Adb) -> None:
    device = adb.device()
    workspace = tmp_path / "ws"
    (workspace / "apks").mkdir(parents=True)
    (workspace / "apks" / "notes.apk").write_bytes(fake_apk("com.example.notes"))
    (workspace / "apks" / "widget.apk").write_bytes(fake_apk("com.example.widget", activity=None))
    (workspace / "apks" / "arm-only.apk").write_bytes(fake_apk("com.example.arm", failure=ABIS))
    (tmp_path / "outside.apk").write_bytes(fake_apk("com.example.outside"))
    os.symlink(tmp_path / "outside.apk", workspace / "apks" / "link.apk")
    async with android_server(tmp_path, adb) as client:
        phone = {"session": "p"}
        await ok(client, "open_session", {**phone, "engine": "android-app"})

        listed = await ok(client, "app_list", phone)
        assert listed["apps"] == ["com.android.chrome", SHOP] and listed["device"] == "emulator-5554"
        everything = await ok(client, "app_list", {**phone, "includeSystem": True})
        assert {"android", "com.android.settings", SHOP} <= set(everything["apps"])

        # -- app_install: workspace-relative, adb's own reasons ------------------------------
        installed = await ok(client, "app_install", {**phone, "apkPath": "apks/notes.apk"})
        assert installed["installed"] is True and installed["bytes"] > 0
        assert "com.example.notes" in (await ok(client, "app_list", phone))["apps"]
        assert not any(name.startswith("/data/local/tmp/browx-") for name in device.files), "the pushed APK is removed"
        again = await fails(client, "app_install", {**phone, "apkPath": "apks/notes.apk"}, "install-failed")
        assert again["reason"] == "INSTALL_FAILED_ALREADY_EXISTS" and again["exitCode"] == 1
        await ok(client, "app_install", {**phone, "apkPath": "apks/notes.apk", "reinstall": True})
        assert any(c.command.startswith("pm install -r -t ") for c in device.commands)
        abi = await fails(client, "app_install", {**phone, "apkPath": "apks/arm-only.apk"}, "install-failed")
        assert abi["reason"] == "INSTALL_FAILED_NO_MATCHING_ABIS"
        assert "no native code for this device's CPU ABI" in abi["error"] and "res=-113" in abi["error"]
        missing = await fails(client, "app_install", {**phone, "apkPath": "apks/none.apk"}, "bad-arg")
        assert (missing["field"], missing["error"]) == ("apkPath", "apkPath is not a file in the workspace")
        messages = set()
        for path in ("../outside.apk", str(tmp_path / "outside.apk"), "apks/link.apk", "-r.apk", "../nothing.apk"):
            refused = await fails(client, "app_install", {**phone, "apkPath": path}, "bad-arg")
            assert refused["field"] == "apkPath"
            messages.add(refused["error"])
        assert messages == {"apkPath must be a path inside the workspace"}, "one message, existing or not"
        assert "com.example.outside" not in device.packages

        # -- app_launch resolves the launcher activity and returns it -----------------------
        launched = await ok(client, "app_launch", {**phone, "appId": SHOP})
        assert launched == {"ok": True, "device": "emulator-5554", "appId": SHOP,
                            "activity": "com.example.shop/.MainActivity"}
        assert any("resolve-activity --brief -c android.intent.category.LAUNCHER com.example.shop" in c.command
                   for c in device.commands)
        await ok(client, "app_install", {**phone, "apkPath": "apks/widget.apk"})
        no_launcher = await fails(client, "app_launch", {**phone, "appId": "com.example.widget"},
                                  "target-not-found")
        assert "declares no launcher activity" in no_launcher["error"]
        absent = await fails(client, "app_launch", {**phone, "appId": "com.example.absent"}, "target-not-found")
        assert "not installed" in absent["error"]
        injected = await fails(client, "app_launch", {**phone, "appId": "com.x; reboot"}, "bad-arg")
        assert injected["field"] == "appId"

        # -- app_foreground: the focused window, and what the session thinks it drives ----
        device.stack[-1] = "login"  # the splash screen settled
        front = await ok(client, "app_foreground", phone)
        assert front["foreground"] == {"appId": SHOP, "activity": "com.example.shop.MainActivity"}
        assert front["url"] == "app://com.example.shop/com.example.shop.MainActivity"
        assert front["appUnderTest"] == SHOP
        device.in_transition = True
        moving = await ok(client, "app_foreground", phone)
        assert moving["foreground"] is None and moving["url"] is None and moving["appUnderTest"] == SHOP
        device.in_transition = False

        # -- app_reset clears data; app_terminate force-stops; app_uninstall removes -------
        device.fields["email"] = "ada@example.com"
        device.toggles.add("remember")
        reset = await ok(client, "app_reset", {**phone, "appId": SHOP})
        assert reset["reset"] is True and device.fields == {} and device.toggles == set()
        stopped = await ok(client, "app_terminate", {**phone, "appId": SHOP})
        assert stopped["terminated"] is True and device.screen.name == "launcher"
        assert device.commands[-1].command == "am force-stop com.example.shop"
        removed = await ok(client, "app_uninstall", {**phone, "appId": "com.example.notes"})
        assert removed["uninstalled"] is True and "com.example.notes" not in device.packages
        for tool in ("app_uninstall", "app_reset", "app_terminate"):
            await fails(client, tool, {**phone, "appId": "com.example.notes"}, "target-not-found")
