"""The ios-app session actor: an app on an iOS Simulator, through WebDriverAgent and simctl.

At start, in this order: ``BROWX_IOS_APP_ID`` must name the app (its absence refuses,
naming it); ``xcrun simctl`` lists the simulators and the one to drive is chosen by the
rule of ``BROWX_IOS_DEVICE`` (a udid or exact name; else the booted one; else the first
of the newest runtime); the simulator is leased; booted if it is not (``simctl boot``,
then ``bootstatus -b``; the session never shuts one down); the app at
``BROWX_IOS_APP_PATH`` installed when one is given; then WebDriverAgent at
``BROWX_IOS_WDA_URL`` is asked for its status (nothing listening refuses with
``wda-unreachable`` naming the fix) and a WDA session opened on the app, which launches
it. ``/wda/screen`` gives the points-to-pixels scale.

The session owns one httpx client for its WDA for its whole life, held in a task of its
nursery, so the client and the WDA session close however the session ends.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from pathlib import Path

import trio

from ...devices.simctl import already_booted, choose_simulator
from ...devices.toolchain import Simctl, xcrun_binary
from ...devices.wda_client import WdaClient, open_wda_client
from ...errors import ToolError
from ...kernel.actor_ref import ActorRef
from ...tools import Table
from ..native.find import identifier_hint
from ..native.session import NativeSession
from .apps import SimctlLifecycle
from .input import ENGINE, WdaInput, WdaSource

__all__ = ["IosSession", "app_bundle"]

#: A cold simulator boot, as bootstatus waits for it.
BOOT_SECONDS = 180.0


def app_bundle(app_path: str, workspace: Path) -> Path:
    """``BROWX_IOS_APP_PATH`` as simctl must get it: a relative path is the workspace's
    (simctl runs in the server's directory, which is not it), and a path that names no
    folder is refused before the simulator is touched, naming the variable and where it
    looked."""
    path = Path(app_path).expanduser()
    if not path.is_absolute():
        path = workspace.resolve() / path
    if not path.is_dir():
        what = "no .app bundle folder" if not path.exists() else "not a folder (a .app bundle is one)"
        raise ToolError("not-configured", f"BROWX_IOS_APP_PATH names {what}: {path}", variable="BROWX_IOS_APP_PATH")
    return path


class IosSession(NativeSession):
    engine = ENGINE
    platform = "ios"
    #: find's tier-1 hint, as XCUITest users write it.
    id_hint = staticmethod(identifier_hint)
    raw_types = True

    def __init__(
        self,
        session_id: str,
        *,
        table: Table,
        registry: Callable[[], ActorRef],
        app_id: str | None,
        device: str | None = None,
        app_path: str | None = None,
        wda_url: str = "http://127.0.0.1:8100",
        workspace: Path = Path(".browx"),
        secrets: Callable[[], Mapping[str, str]] = dict,
    ) -> None:
        super().__init__(session_id, table=table, registry=registry, workspace=workspace, secrets=secrets)
        self.app_id = app_id
        self.wanted_device = device
        self.app_path = app_path
        self.wda_url = wda_url
        self.wda: WdaClient | None = None

    async def connect(self) -> None:
        if not self.app_id:
            raise ToolError("not-configured", "BROWX_IOS_APP_ID is not set: an ios-app session needs the bundle id "
                            "of the app under test (com.example.shop)", variable="BROWX_IOS_APP_ID")
        xcrun = xcrun_binary()
        if xcrun is None:
            raise ToolError("unavailable", "no xcrun on PATH: ios-app needs Xcode's simctl (browx never installs "
                            "Xcode)", component="xcrun simctl")
        bundle = app_bundle(self.app_path, self.workspace) if self.app_path else None
        simctl = Simctl(xcrun)
        simulator = choose_simulator(await simctl.simulators(timeout=self.budget.remaining()), self.wanted_device)
        await self.lease_device(simulator.id, {"platform": "ios", "name": simulator.name,
                                               "runtime": simulator.runtime})
        if simulator.state != "Booted":
            await self._boot(simctl, simulator.id)
        self.device = {"id": simulator.id, "platform": "ios", "name": simulator.name, "runtime": simulator.runtime,
                       "state": "Booted"}
        if bundle is not None:
            await simctl.run("install", simulator.id, str(bundle), timeout=self.budget.remaining())
        self.wda = await self.nursery.start(self._hold_wda)
        scale = (await self.wda.screen(timeout=self.budget.remaining())).scale
        self.app_under_test = self.app_id
        self.source = WdaSource(self.wda, self.budget)
        self.driver = WdaInput(self.wda, self.budget, scale)
        self.lifecycle = SimctlLifecycle(simctl, simulator.id, self.wda, self.budget)

    async def _boot(self, simctl: Simctl, udid: str) -> None:
        booted = await simctl.run("boot", udid, timeout=self.budget.remaining(), check=False)
        if booted.exit_code != 0 and not already_booted(booted.stderr):
            await simctl.run("boot", udid, timeout=self.budget.remaining())  # raises simctl's own error
        await simctl.run("bootstatus", udid, "-b", timeout=min(self.budget.remaining(), BOOT_SECONDS))

    async def _hold_wda(self, *, task_status: trio.TaskStatus[WdaClient]) -> None:
        """The session's WDA client and WDA session, for as long as this task runs."""
        async with open_wda_client(self.wda_url) as client:
            await client.status(timeout=min(self.budget.remaining(), 10.0))
            assert self.app_id is not None
            await client.create_session(self.app_id, timeout=self.budget.remaining())
            try:
                task_status.started(client)
                await trio.sleep_forever()
            finally:
                # WDA may have gone first: then there is nothing left to close.
                with trio.CancelScope(shield=True), trio.move_on_after(3), contextlib.suppress(ToolError):
                    await client.delete_session(timeout=3)
