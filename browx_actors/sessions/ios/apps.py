"""The ios-app lifecycle over ``xcrun simctl`` on the session's simulator.

``app_list`` (``simctl listapps``), ``app_install`` (``simctl install`` of a ``.app``;
it replaces in place), ``app_launch`` (``simctl launch``: no activity exists on iOS and
none is invented), ``app_terminate`` (``simctl terminate``) and ``app_foreground``
(WebDriverAgent's ``/wda/activeAppInfo``). ``app_uninstall`` and ``app_reset`` have no
handler on this engine and are refused, naming why (``sessions/native/refusals.py``):
the session leases the simulator and does not own it, and iOS has no per-app clear.
"""

from __future__ import annotations

import plistlib
from pathlib import Path

import trio

from ...devices.simctl import parse_launch, parse_listapps
from ...devices.toolchain import Simctl
from ...devices.wda_client import WdaClient
from ...errors import ToolError
from ...jsonsafe import JsonObject
from ..native.platform import Budget, unsupported
from ..native.refusals import RESET, UNINSTALL

__all__ = ["SimctlLifecycle"]


def _bundle_id(app: Path) -> str | None:
    """The CFBundleIdentifier in a .app's Info.plist (XML or binary), if it can be read."""
    try:
        with (app / "Info.plist").open("rb") as plist:
            value = plistlib.load(plist).get("CFBundleIdentifier")
    except (OSError, plistlib.InvalidFileException, AttributeError, ValueError):
        return None
    return value if isinstance(value, str) else None


class SimctlLifecycle:
    """The ``app_*`` verbs on one simulator."""

    def __init__(self, simctl: Simctl, udid: str, wda: WdaClient, budget: Budget) -> None:
        self.simctl = simctl
        self.udid = udid
        self.wda = wda
        self.budget = budget

    async def app_list(self, include_system: bool) -> JsonObject:
        output = await self.simctl.run("listapps", self.udid, timeout=self.budget.remaining())
        apps = [{"appId": app.bundle_id, "name": app.name, "type": app.app_type, "version": app.version}
                for app in parse_listapps(output.stdout)]
        return {"apps": apps, "count": len(apps), "includeSystem": include_system,
                "note": "simctl lists every app, system ones included (each with its type): includeSystem has "
                        "nothing to select on"}

    async def app_install(self, path: str, reinstall: bool) -> JsonObject:
        app = Path(path)
        if not await trio.to_thread.run_sync(app.is_dir):
            raise ToolError("install-failed", "apkPath must name a .app bundle directory in the workspace (simctl "
                            "installs simulator builds, not .ipa archives)")
        output = await self.simctl.run("install", self.udid, str(app), timeout=self.budget.remaining(), check=False)
        if output.exit_code != 0:
            reason = " ".join(output.stderr.split())[:500] or f"exit {output.exit_code}"
            raise ToolError("install-failed", f"simctl install failed (exit {output.exit_code}): {reason}",
                            exitCode=output.exit_code)
        return {"installed": True, "appId": await trio.to_thread.run_sync(_bundle_id, app),
                "apkPath": app.name, "replacedInPlace": True}

    async def app_uninstall(self, app_id: str) -> JsonObject:
        raise unsupported("ios-app", "app_uninstall", UNINSTALL)

    async def app_reset(self, app_id: str) -> JsonObject:
        raise unsupported("ios-app", "app_reset", RESET)

    async def app_launch(self, app_id: str) -> JsonObject:
        output = await self.simctl.run("launch", self.udid, app_id, timeout=self.budget.remaining())
        return {"appId": app_id, "pid": parse_launch(output.stdout, app_id)}

    async def app_terminate(self, app_id: str) -> JsonObject:
        await self.simctl.run("terminate", self.udid, app_id, timeout=self.budget.remaining())
        return {"appId": app_id, "terminated": True}

    async def app_foreground(self) -> JsonObject:
        active = await self.wda.active_app(timeout=self.budget.remaining())
        bundle_id = active.get("bundleId")
        if not isinstance(bundle_id, str) or not bundle_id:
            return {"foreground": None, "url": None}
        return {"foreground": {"appId": bundle_id}, "url": f"app://{bundle_id}/"}
