"""android-app, paths that never complete: ``app_install`` (and ``screenshot``) given a
named pipe, a link to one or a socket in the workspace.

Before the fix, app_install read the pipe in a worker thread no deadline could leave:
the call never answered and the session's every later call timed out behind it. Now
the path is refused at once with ``bad-arg`` naming ``apkPath`` and saying what it is,
nothing is pushed, and the session answers its next call. Against the adb test peer.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

import trio

from android.android_support import Adb, android_server
from e2e_support import fails, ok
from fakes.adb_device import fake_apk

#: A hang guard, not a timing: before the fix these calls never answered.
HANG = 60


async def test_app_install_refuses_a_pipe_at_once_and_the_session_serves_on(tmp_path: Path, adb: Adb) -> None:
    device = adb.device()
    workspace = tmp_path / "ws"
    (workspace / "apks").mkdir(parents=True)
    (workspace / "apks" / "notes.apk").write_bytes(fake_apk("com.example.notes"))
    (workspace / "apks" / "folder.apk").mkdir()
    os.mkfifo(workspace / "apks" / "pipe.apk")
    os.symlink("pipe.apk", workspace / "apks" / "link.apk")
    held = socket.socket(socket.AF_UNIX)
    held.bind(str(workspace / "apks" / "sock.apk"))
    try:
        async with android_server(tmp_path, adb) as client:
            phone = {"session": "p"}
            await ok(client, "open_session", {**phone, "engine": "android-app"})
            for path, kind in (("apks/pipe.apk", "a named pipe"), ("apks/link.apk", "a named pipe"),
                               ("apks/sock.apk", "a socket"), ("apks/folder.apk", "a folder")):
                with trio.fail_after(HANG):
                    refused = await fails(client, "app_install", {**phone, "apkPath": path}, "bad-arg")
                assert (refused["field"], refused["error"]) == ("apkPath", f"apkPath is {kind}, not a regular file")
                with trio.fail_after(HANG):  # the session answers a plain call at once
                    assert (await ok(client, "app_list", phone))["device"] == "emulator-5554"
            missing = await fails(client, "app_install", {**phone, "apkPath": "apks/none.apk"}, "bad-arg")
            assert (missing["field"], missing["error"]) == ("apkPath", "apkPath is not a file in the workspace")
            assert not any(name.startswith("/data/local/tmp/browx-") for name in device.files), "nothing was pushed"
            # The screenshot's path goes through the same chokepoint on a native engine.
            for path in ("apks/pipe.apk", "apks/sock.apk"):
                with trio.fail_after(HANG):
                    shot = await fails(client, "screenshot", {**phone, "path": path}, "bad-arg")
                assert shot["field"] == "path" and "not a regular file" in shot["error"], shot
            installed = await ok(client, "app_install", {**phone, "apkPath": "apks/notes.apk"})
            assert installed["installed"] is True and installed["bytes"] > 0
    finally:
        held.close()
    assert (workspace / "apks" / "pipe.apk").is_fifo()
