"""The app lifecycle tools, one surface over both native engines: app_list, app_install,
app_uninstall, app_launch, app_terminate, app_reset, app_foreground.

Each takes a session and drives the device it leased, through the session's
:class:`~.platform.NativeLifecycle` (adb on android-app, simctl on ios-app). A verb the
platform has no primitive for is refused in its engine's table, naming what is missing;
none answers a plausible empty. A chromium session has no device, so its table refuses
them all.

``apkPath`` is workspace-relative and must resolve inside ``$BROWX_WORKSPACE``,
symlinks included, like every file-reading tool; a path starting with ``-`` or leaving
the workspace is refused with one message that does not say whether it exists. Inside
it, the path must name a regular file (an APK), or on ios-app a folder (a ``.app``
bundle): a named pipe, which adb's read would wait on forever, is refused naming what it
is, before anything opens it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...errors import ToolError
from ...tools import Reply
from ...tools.contract import SessionArgs
from ...tools.devices import OUTSIDE_WORKSPACE, AppArgs, AppInstallArgs, AppListArgs
from ...workspace import existing_file, resolve_in_workspace

if TYPE_CHECKING:
    from .session import NativeSession

__all__ = ["app_foreground", "app_install", "app_launch", "app_list", "app_reset", "app_terminate", "app_uninstall"]


async def app_list(session: NativeSession, args: AppListArgs) -> Reply:
    listed = await session.apps.app_list(args.include_system)
    return Reply.of(device=session.device.get("id"), **listed)


async def app_install(session: NativeSession, args: AppInstallArgs) -> Reply:
    try:
        path = resolve_in_workspace(session.workspace, args.apk_path, field="apkPath")
    except ToolError as err:
        raise ToolError("bad-arg", OUTSIDE_WORKSPACE, field="apkPath") from err
    existing_file(path, field="apkPath", folders=session.engine == "ios-app")
    installed = await session.apps.app_install(str(path), args.reinstall)
    return Reply.of(device=session.device.get("id"), **installed)


async def app_uninstall(session: NativeSession, args: AppArgs) -> Reply:
    return Reply.of(device=session.device.get("id"), **await session.apps.app_uninstall(args.app_id))


async def app_launch(session: NativeSession, args: AppArgs) -> Reply:
    launched = await session.apps.app_launch(args.app_id)
    session.app_under_test = args.app_id
    return Reply.of(device=session.device.get("id"), **launched)


async def app_terminate(session: NativeSession, args: AppArgs) -> Reply:
    return Reply.of(device=session.device.get("id"), **await session.apps.app_terminate(args.app_id))


async def app_reset(session: NativeSession, args: AppArgs) -> Reply:
    return Reply.of(device=session.device.get("id"), **await session.apps.app_reset(args.app_id))


async def app_foreground(session: NativeSession, args: SessionArgs) -> Reply:
    front = await session.apps.app_foreground()
    return Reply.of(device=session.device.get("id"), foreground=front.get("foreground"), url=front.get("url"),
                    appUnderTest=session.app_under_test)
