"""The android-app session actor: one leased Android device over an adb server.

At start it finds the adb server (``ANDROID_ADB_SERVER_HOST`` / ``_PORT``; a loopback
one is started with the ``adb`` on PATH if it is not running), lists the devices, picks
one by the rule of ``BROWX_ANDROID_APP_SERIAL`` (:mod:`browx_actors.devices.choice`),
leases it from the device registry (refused while another session holds it), and reads
what it is (model, release, SDK level). Then the shared native machinery runs over
UiAutomator for the hierarchy, ``adb shell input`` for taps, swipes and keys, screencap
for pixels and adb's package tools for the app lifecycle.

Which app the session drives is what it last launched (``app_launch``) or ``None``;
Android has no app variable of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from ...devices.adb import AdbAddress, AndroidDevice
from ...devices.choice import find_android_device
from ...devices.device_info import android_info
from ...kernel.actor_ref import ActorRef
from ...tools import Table
from ..native.find import tilde_hint
from ..native.session import NativeSession
from .apps import AdbLifecycle
from .input import ENGINE, AdbInput, UiAutomatorSource
from .live import ScreencapSource

__all__ = ["AndroidSession"]


class AndroidSession(NativeSession):
    engine = ENGINE
    platform = "android"
    #: find's tier-1 hint: Appium's accessibility-id spelling.
    id_hint = staticmethod(tilde_hint)

    def __init__(
        self,
        session_id: str,
        *,
        table: Table,
        registry: Callable[[], ActorRef],
        adb: AdbAddress,
        serial: str | None = None,
        workspace: Path = Path(".browx"),
        secrets: Callable[[], Mapping[str, str]] = dict,
    ) -> None:
        super().__init__(session_id, table=table, registry=registry, workspace=workspace, secrets=secrets)
        self.adb = adb
        self.wanted_serial = serial
        self.android: AndroidDevice | None = None

    async def connect(self) -> None:
        server, entry = await find_android_device(self.adb, self.wanted_serial, timeout=self.budget.remaining())
        device = server.device(entry.serial)
        await self.lease_device(entry.serial, {"platform": "android", "model": entry.model})
        self.device = {"id": entry.serial, "platform": "android",
                       **await android_info(device, entry, timeout=self.budget.remaining())}
        self.android = device
        self.source = UiAutomatorSource(device, self.budget)
        self.driver = AdbInput(device, self.budget)
        self.lifecycle = AdbLifecycle(device, self.budget)

    def frame_source(self) -> ScreencapSource | None:
        """screencap frames of the leased device: android-app's live view."""
        return None if self.android is None else ScreencapSource(self.android, self.device["id"])
