"""The app lifecycle tools, one surface over both native engines: app_list, app_install,
app_uninstall, app_launch, app_terminate, app_reset, app_foreground.

Each takes a session and drives the device it leased, through the session's
:class:`~.platform.NativeLifecycle` (adb on android-app, simctl on ios-app). A verb the
platform has no primitive for refuses, naming the engine and what is missing; none
answers a plausible empty. Declared here once, with the android-app handler; ios-app
adds the same handlers with ``implement``. A chromium session has no device, so it
refuses them (``not-supported``, naming the engine).

``apkPath`` is workspace-relative and must resolve inside ``$BROWX_WORKSPACE``,
symlinks included, like every file-reading tool; a path starting with ``-`` or leaving
the workspace is refused with one message that does not say whether it exists.

Each declaration sits right below its handler; :data:`HANDLERS` hands the handlers to
the ios-app engine.
"""

from __future__ import annotations

from ...errors import ToolError
from ...tools import Args, Check, Param, Reply, session_tool
from ...tools.contract import Handler
from ...workspace import resolve_in_workspace
from .session import NativeSession

__all__ = ["HANDLERS", "TOOLS", "app_foreground", "app_install", "app_launch", "app_list", "app_reset", "app_terminate",
           "app_uninstall"]

NATIVE = "native-device"
ANDROID = "android-app"
_OUTSIDE = "apkPath must be a path inside the workspace"
APP_ID = Param("appId", "string", "Package name (android-app) or bundle id (ios-app).", required=True,
               max_length=255)


def _workspace_relative(args: Args) -> None:
    if str(args["apkPath"]).startswith("-"):
        raise ToolError("bad-arg", _OUTSIDE, field="apkPath")


async def handle_app_list(session: NativeSession, args: Args) -> Reply:
    listed = await session.apps.app_list(args["includeSystem"])
    return Reply.of(device=session.device.get("id"), **listed)


app_list = session_tool(
    "app_list", NATIVE, "Installed apps on the session's device: package ids (third-party only unless "
    "includeSystem) on android-app, simctl listapps on ios-app.",
    engine=ANDROID,
    params=(Param("includeSystem", "boolean", "Include system packages (android-app).", default=False),),
)(handle_app_list)


async def handle_app_install(session: NativeSession, args: Args) -> Reply:
    try:
        path = resolve_in_workspace(session.workspace, args["apkPath"], field="apkPath")
    except ToolError as err:
        raise ToolError("bad-arg", _OUTSIDE, field="apkPath") from err
    installed = await session.apps.app_install(str(path), args["reinstall"])
    return Reply.of(device=session.device.get("id"), **installed)


app_install = session_tool(
    "app_install", NATIVE, "Install an app from the workspace: adb install (reinstall keeps its data) on "
    "android-app, simctl install of a .app on ios-app (it replaces in place). Reports the platform's own "
    "failure reason.",
    engine=ANDROID,
    params=(Param("apkPath", "string", "Workspace-relative path of the .apk (or the .app on ios-app).",
                  required=True, max_length=4096),
            Param("reinstall", "boolean", "Replace an installed copy, keeping its data (android-app).",
                  default=False)),
    rules=(Check(_workspace_relative, "`apkPath` is workspace-relative and does not start with -"),),
)(handle_app_install)


async def handle_app_uninstall(session: NativeSession, args: Args) -> Reply:
    return Reply.of(device=session.device.get("id"), **await session.apps.app_uninstall(args["appId"]))


app_uninstall = session_tool(
    "app_uninstall", NATIVE, "Remove an app and its data (android-app; ios-app refuses: the session leases "
    "the simulator, it does not own it).",
    engine=ANDROID, params=(APP_ID,),
)(handle_app_uninstall)


async def handle_app_launch(session: NativeSession, args: Args) -> Reply:
    launched = await session.apps.app_launch(args["appId"])
    session.app_under_test = args["appId"]
    return Reply.of(device=session.device.get("id"), **launched)


app_launch = session_tool(
    "app_launch", NATIVE, "Launch an app: android-app resolves its declared launcher activity first and returns "
    "it; ios-app runs simctl launch. It may return while the app is still on its splash screen: snapshot next.",
    engine=ANDROID, params=(APP_ID,),
)(handle_app_launch)


async def handle_app_terminate(session: NativeSession, args: Args) -> Reply:
    return Reply.of(device=session.device.get("id"), **await session.apps.app_terminate(args["appId"]))


app_terminate = session_tool(
    "app_terminate", NATIVE, "Stop an app: am force-stop on android-app, simctl terminate on ios-app.",
    engine=ANDROID, params=(APP_ID,),
)(handle_app_terminate)


async def handle_app_reset(session: NativeSession, args: Args) -> Reply:
    return Reply.of(device=session.device.get("id"), **await session.apps.app_reset(args["appId"]))


app_reset = session_tool(
    "app_reset", NATIVE, "Clear an app's data and granted runtime permissions (android-app: pm clear). "
    "Destructive: logins, local databases and caches are gone. ios-app refuses: iOS has no per-app clear.",
    engine=ANDROID, params=(APP_ID,),
)(handle_app_reset)


async def handle_app_foreground(session: NativeSession, args: Args) -> Reply:
    front = await session.apps.app_foreground()
    return Reply.of(device=session.device.get("id"), foreground=front.get("foreground"), url=front.get("url"),
                    appUnderTest=session.app_under_test)


app_foreground = session_tool(
    "app_foreground", NATIVE, "Which app is in front: {foreground: {appId, activity?}, url: app://<id>/<activity>, "
    "appUnderTest}; foreground is null during a window transition. appUnderTest is what the session drives, "
    "which differs from the foreground when a permission dialog or share sheet takes focus.",
    engine=ANDROID,
)(handle_app_foreground)


#: Each tool's handler, for the other engine to implement it with.
HANDLERS: dict[str, Handler] = {
    "app_list": handle_app_list, "app_install": handle_app_install, "app_uninstall": handle_app_uninstall,
    "app_launch": handle_app_launch, "app_terminate": handle_app_terminate, "app_reset": handle_app_reset,
    "app_foreground": handle_app_foreground,
}

TOOLS = [app_list, app_install, app_uninstall, app_launch, app_terminate, app_reset, app_foreground]
