"""The android-app lifecycle over adb: ``pm``, ``cmd package resolve-activity``, ``am``,
``dumpsys window``.

``app_install`` pushes the APK to a temporary file on the device over the sync protocol
and runs ``pm install`` there (what ``adb install`` does on a device without the
``cmd`` service), then removes the file. A refusal carries pm's own code and detail
(wrong ABI, insufficient storage, unsigned build...) beside a plain reason, and the
exit status.
"""

from __future__ import annotations

import secrets as random_names
from pathlib import Path

import trio

from ...devices import adb_commands as commands
from ...devices.adb import AndroidDevice, ShellOutput
from ...devices.adb_output import (
    parse_install_output,
    parse_package_list,
    parse_resolve_activity,
    parse_window_focus,
    start_failure,
)
from ...errors import ToolError
from ...jsonsafe import JsonObject
from ...workspace import load_file
from ..native.platform import Budget

__all__ = ["AdbLifecycle"]

_REMOTE_DIR = "/data/local/tmp"


class AdbLifecycle:
    """The ``app_*`` verbs on one Android device."""

    def __init__(self, device: AndroidDevice, budget: Budget) -> None:
        self.device = device
        self.budget = budget

    async def _shell(self, command: str) -> ShellOutput:
        return await self.device.shell(command, timeout=self.budget.remaining())

    async def _installed(self, package: str) -> bool:
        return (await self._shell(f"pm path {commands.package_name(package)}")).exit_code == 0

    async def _require_installed(self, package: str) -> None:
        if not await self._installed(package):
            raise ToolError("target-not-found", f"{package} is not installed on {self.device.serial} "
                            "(app_list shows what is)", appId=package)

    async def app_list(self, include_system: bool) -> JsonObject:
        output = await self._shell(commands.list_packages_command(include_system))
        if output.exit_code != 0:
            raise ToolError("adb-failed", f"pm list packages: {output.text.strip()}", exitCode=output.exit_code)
        apps = list(parse_package_list(output.out))
        return {"apps": apps, "count": len(apps), "includeSystem": include_system}

    async def app_install(self, path: str, reinstall: bool) -> JsonObject:
        local = Path(path)
        # Through the workspace chokepoint: a pipe put there since app_install looked is
        # refused at the open, and a hung read is abandoned at the call's deadline.
        data = await load_file(local, field="apkPath")
        remote = f"{_REMOTE_DIR}/browx-{random_names.token_hex(6)}.apk"
        await self.device.push(data, remote, timeout=self.budget.remaining())
        try:
            output = await self._shell(commands.install_command(remote, reinstall))
        finally:
            with trio.CancelScope(shield=True), trio.move_on_after(5):
                await self.device.shell(f"rm -f {remote}", timeout=5)
        failure = parse_install_output(output.text)
        if failure is not None:
            raise ToolError("install-failed", f"adb install failed (exit {output.exit_code}): {failure.message}",
                            exitCode=output.exit_code, reason=failure.code, detail=failure.detail)
        return {"installed": True, "apkPath": local.name, "bytes": len(data), "reinstall": reinstall}

    async def app_uninstall(self, app_id: str) -> JsonObject:
        await self._require_installed(app_id)
        output = await self._shell(commands.uninstall_command(app_id))
        if "Success" not in output.out:
            raise ToolError("adb-failed", f"pm uninstall {app_id}: {output.text.strip()}", exitCode=output.exit_code)
        return {"appId": app_id, "uninstalled": True}

    async def app_launch(self, app_id: str) -> JsonObject:
        resolved = await self._shell(commands.resolve_launcher_command(app_id))
        component = parse_resolve_activity(resolved.out)
        if component is None:
            installed = await self._installed(app_id)
            raise ToolError("target-not-found", f"{app_id} declares no launcher activity" if installed else
                            f"{app_id} is not installed on {self.device.serial} (app_list shows what is)",
                            appId=app_id)
        started = await self._shell(commands.start_activity_command(component))
        failure = start_failure(started.text)
        if failure is not None or started.exit_code != 0:
            raise ToolError("adb-failed", f"am start -n {component}: {failure or started.text.strip()}",
                            exitCode=started.exit_code)
        return {"appId": app_id, "activity": component}

    async def app_terminate(self, app_id: str) -> JsonObject:
        await self._require_installed(app_id)
        output = await self._shell(commands.force_stop_command(app_id))
        if output.exit_code != 0:
            raise ToolError("adb-failed", f"am force-stop {app_id}: {output.text.strip()}", exitCode=output.exit_code)
        return {"appId": app_id, "terminated": True}

    async def app_reset(self, app_id: str) -> JsonObject:
        await self._require_installed(app_id)
        output = await self._shell(commands.clear_data_command(app_id))
        if "Success" not in output.out:
            raise ToolError("adb-failed", f"pm clear {app_id}: {output.text.strip()}", exitCode=output.exit_code)
        return {"appId": app_id, "reset": True, "cleared": ["data", "caches", "runtime permissions"]}

    async def app_foreground(self) -> JsonObject:
        output = await self._shell(commands.WINDOW_DUMP)
        front = parse_window_focus(output.out)
        if front is None:
            return {"foreground": None, "url": None}
        return {"foreground": {"appId": front.package, "activity": front.activity}, "url": front.url}
