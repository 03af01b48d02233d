"""Devices and the apps on them: device_list, device_boot, device_shutdown (runtime tools),
and the app lifecycle of a native session's device, app_list to app_foreground.

All of them need the ``native-device`` capability. A platform that lacks a verb refuses
it in its engine's table, naming what is missing.
"""

from __future__ import annotations

from ..errors import ToolError
from .arguments import Arguments, NoArgs, arg, arguments, param
from .contract import DESTROYS, OPENS, READS, SessionArgs, runtime_tool, session_tool
from .params import Param
from .rules import Check, JsonArgs

#: What app_install says of an apkPath that is not inside the workspace.
OUTSIDE_WORKSPACE = "apkPath must be a path inside the workspace"

APP_ID = Param("appId", "string", "Package name (android-app) or bundle id (ios-app).", required=True, max_length=255)


DEVICE_LIST = runtime_tool(
    "device_list", NoArgs,
    title="List devices", capability="native-device", hints=READS,
    summary="List the Android devices and emulators, the AVDs defined here, and the iOS simulators.",
    description="Every device and emulator adb sees ({serial, state, model, release, sdk, emulator, leasedBy}), the "
        "AVDs defined here, and every iOS simulator simctl knows ({id, name, state, runtime, platform}). An "
        "absent toolchain is an empty list for its platform. ready counts Android devices in state device; "
        "simulatorsBooted counts booted simulators.",
)


@arguments
class DeviceBootArgs(Arguments):
    """device_boot's arguments."""

    avd: str = param("avd", "string", "AVD name, as device_list's avds show it.", required=True,
                     pattern="[A-Za-z0-9._][A-Za-z0-9._-]{0,127}")
    headless: bool = param("headless", "boolean", "", default=True)
    timeout_ms: int = param("timeoutMs", "integer", "", default=180_000, minimum=5000, maximum=900_000)


DEVICE_BOOT = runtime_tool(
    "device_boot", DeviceBootArgs,
    title="Boot device", capability="native-device", hints=OPENS,
    summary="Boot an Android emulator from an AVD and wait until it is usable.",
    description="Boot an Android emulator from an AVD and wait until it is usable: listed by adb, sys.boot_completed,"
        " and a working package manager. Headless (no emulator window: -no-window) by default; always "
        "-no-snapshot-save, so nothing a session installs or grants persists into the AVD. 30-90 s on a cold boot; "
        "timeoutMs bounds how long to wait for the boot. Returns {device, bootSeconds}.",
)


@arguments
class DeviceShutdownArgs(Arguments):
    """device_shutdown's arguments."""

    serial: str = param("serial", "string", "Emulator serial, e.g. emulator-5554.", required=True, max_length=256)


DEVICE_SHUTDOWN = runtime_tool(
    "device_shutdown", DeviceShutdownArgs,
    title="Shut down device", capability="native-device", hints=DESTROYS,
    summary="Stop an Android emulator that no session leases.",
    description="Stop an Android emulator (emu kill, through its console). Refuses a physical device, and a device a "
        "session leases (close that session first). Closing a session never shuts its device down.",
)


@arguments
class AppListArgs(SessionArgs):
    """app_list's arguments."""

    include_system: bool = param("includeSystem", "boolean", "Include system packages (android-app).", default=False)


APP_LIST = session_tool(
    "app_list", AppListArgs,
    title="List apps", capability="native-device", hints=READS,
    summary="List the apps installed on the session's device.",
    description="Installed apps on the session's device: package ids (third-party only unless includeSystem) on "
        "android-app, simctl listapps on ios-app.",
)


@arguments
class AppInstallArgs(SessionArgs):
    """app_install's arguments."""

    apk_path: str = param("apkPath", "string", "Workspace-relative path of the .apk, or the .app on ios-app.",
                          required=True, max_length=4096)
    reinstall: bool = param("reinstall", "boolean", "Replace an installed copy, keeping its data (android-app).",
                            default=False)


def _workspace_relative(args: JsonArgs) -> None:
    if str(args["apkPath"]).startswith("-"):
        raise ToolError("bad-arg", OUTSIDE_WORKSPACE, field="apkPath")


APP_INSTALL = session_tool(
    "app_install", AppInstallArgs,
    title="Install app", capability="native-device", hints=OPENS,
    summary="Install an app from the workspace on the session's device.",
    description="Install an app from the workspace: adb install (reinstall keeps its data) on android-app, simctl "
        "install of a .app on ios-app (it replaces in place). Reports the platform's own failure reason.",
    rules=(Check(_workspace_relative, "`apkPath` is workspace-relative and does not start with -"),),
)


@arguments
class AppArgs(SessionArgs):
    """The arguments of the verbs that name one app."""

    app_id: str = arg(APP_ID)


APP_UNINSTALL = session_tool(
    "app_uninstall", AppArgs,
    title="Uninstall app", capability="native-device", hints=DESTROYS,
    summary="Remove an app and its data (android-app only).",
    description="Remove an app and its data (android-app; ios-app refuses: the session leases the simulator, it does "
        "not own it).",
)


APP_LAUNCH = session_tool(
    "app_launch", AppArgs,
    title="Launch app", capability="native-device", hints=OPENS,
    summary="Launch an app on the session's device.",
    description="Launch an app: android-app resolves its declared launcher activity first and returns it; ios-app "
        "runs simctl launch. It may return while the app is still on its splash screen: snapshot next.",
)


APP_TERMINATE = session_tool(
    "app_terminate", AppArgs,
    title="Terminate app", capability="native-device", hints=DESTROYS,
    summary="Force-stop an app on the session's device.",
    description="Stop an app: am force-stop on android-app, simctl terminate on ios-app.",
)


APP_RESET = session_tool(
    "app_reset", AppArgs,
    title="Reset app data", capability="native-device", hints=DESTROYS,
    summary="Clear an app's data and granted runtime permissions (android-app only).",
    description="Clear an app's data and granted runtime permissions (android-app: pm clear). Destructive: logins, "
        "local databases and caches are gone. ios-app refuses: iOS has no per-app clear.",
)


APP_FOREGROUND = session_tool(
    "app_foreground", SessionArgs,
    title="Foreground app", capability="native-device", hints=READS,
    summary="Which app is in front, and which app the session drives.",
    description="Which app is in front: {foreground: {appId, activity?}, url: app://<id>/<activity>, appUnderTest}; "
        "foreground is null during a window transition. appUnderTest is what the session drives, which "
        "differs from the foreground when a permission dialog or share sheet takes focus.",
)
