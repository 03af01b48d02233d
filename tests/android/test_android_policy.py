"""A confirm rule on an engine with no human channel fails closed: the android-app
session has no isolated world, and without the operator channel nobody can say yes, so
the call answers ``no-human-channel`` and nothing reaches the device (real stdio MCP,
the adb peer)."""

from __future__ import annotations

from pathlib import Path

from android.android_support import Adb, android_server
from e2e_support import fails, ok


async def test_a_confirmed_tap_fails_closed_without_a_human_channel(tmp_path: Path, adb: Adb) -> None:
    device = adb.device()
    device.show("login")
    policy = tmp_path / "policy.toml"
    policy.write_text('[[confirm]]\ntools = ["click"]\nname = "Remember"\n')
    async with android_server(tmp_path, adb, BROWX_POLICY=str(policy)) as client:
        phone = {"session": "p"}
        await ok(client, "open_session", {**phone, "engine": "android-app"})
        before = list(device.gestures)
        refused = await fails(client, "click", {**phone, "selector": "text=Remember me"}, "no-human-channel")
        assert refused["rule"] == "click name~/Remember/" and "did not run" in refused["error"]
        assert device.gestures == before and "remember" not in device.toggles, "nothing reached the device"
        await ok(client, "fill", {**phone, "selector": "~email", "value": "a@b.c"})  # no rule covers fill
