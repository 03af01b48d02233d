"""Helpers of the android-app tests: the fake adb server in this process, and the real
MCP server (a subprocess) pointed at it through ``ANDROID_ADB_SERVER_PORT``."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import attrs
from mcp.client import Client

from e2e_support import browx_server
from fakes.adb_device import FakeAdb, FakeDevice
from fakes.adb_server import serve_adb
from fakes.adb_shop import default_adb

FAKES = Path(__file__).resolve().parents[1] / "fakes"
CONSOLE_TOKEN = "fake-console-token"


@attrs.frozen
class Adb:
    """A running fake adb server: its port and its model."""

    port: int
    model: FakeAdb

    def device(self, serial: str = "emulator-5554") -> FakeDevice:
        return self.model.device(serial)


@contextmanager
def serving(model: FakeAdb | None = None) -> Iterator[Adb]:
    with serve_adb(model or default_adb(), console_token=CONSOLE_TOKEN) as (port, served):
        yield Adb(port, served)


def android_env(adb: Adb, home: Path | None = None, **extra: str) -> dict[str, str]:
    """The server's environment for android-app sessions on ``adb``: its port, the fake
    emulator and xcrun on PATH, a HOME holding the emulator console's auth token."""
    # The interpreter running the tests answers the fakes' `/usr/bin/env python3` (a
    # version-manager shim in between costs ~0.3 s a call).
    path = os.pathsep.join((str(FAKES), str(Path(sys.executable).parent), os.environ["PATH"]))
    env = {"ANDROID_ADB_SERVER_PORT": str(adb.port), "PATH": path}
    if home is not None:
        home.mkdir(parents=True, exist_ok=True)
        env["BROWX_FAKE_XCRUN_STATE"] = str(home / "xcrun-state.json")
        env["BROWX_FAKE_EMULATOR_LOG"] = str(home / "emulator-argv.jsonl")
        (home / ".emulator_console_auth_token").write_text(CONSOLE_TOKEN)
        env["HOME"] = str(home)
    env.update(extra)
    return env


@asynccontextmanager
async def android_server(tmp_path: Path, adb: Adb, caps: str = "native-device", **extra: str) -> AsyncIterator[Client]:
    async with browx_server(tmp_path / "ws", caps, env=android_env(adb, tmp_path / "home", **extra)) as client:
        yield client
