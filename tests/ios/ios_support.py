"""Helpers of the ios-app tests: the WebDriverAgent peer in this process, the fake xcrun
on the server's PATH with its state in a file, and the real MCP server over stdio."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp.client import Client

from e2e_support import browx_server
from fakes.adb_server import serve_adb

FAKES = Path(__file__).resolve().parents[1] / "fakes"
SHOP = "com.example.shop"
BOOTED = "8C1A6E5E-3B1F-4C53-9C58-6D2F1E4B7A01"  # the fake xcrun's booted iPhone 15
IPHONE_16 = "5E7C9A21-1D4F-4B8E-9C72-3A6B0D5F4E03"  # shut down, on the newest runtime


def ios_env(home: Path, wda_url: str, adb_port: int, **extra: str) -> dict[str, str]:
    """The server's environment: the fake xcrun first on PATH, WDA's URL, the app id, and
    a fake adb server's port (an adb on PATH would otherwise start a real server)."""
    home.mkdir(parents=True, exist_ok=True)
    path = os.pathsep.join((str(FAKES), str(Path(sys.executable).parent), os.environ["PATH"]))
    env = {"PATH": path, "BROWX_FAKE_XCRUN_STATE": str(home / "xcrun-state.json"), "BROWX_IOS_WDA_URL": wda_url,
           "BROWX_IOS_APP_ID": SHOP, "ANDROID_ADB_SERVER_PORT": str(adb_port), "HOME": str(home)}
    env.update(extra)
    return {key: value for key, value in env.items() if value}


def xcrun_state(home: Path) -> dict[str, Any]:
    return json.loads((home / "xcrun-state.json").read_text())


@asynccontextmanager
async def ios_server(tmp_path: Path, wda_url: str, caps: str = "native-device", **extra: str) -> AsyncIterator[Client]:
    with serve_adb() as (adb_port, _):
        env = ios_env(tmp_path / "home", wda_url, adb_port, **extra)
        async with browx_server(tmp_path / "ws", caps, env=env) as client:
            yield client
