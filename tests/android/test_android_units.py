"""The android-app engine's parts, without the MCP server: device choice, boot waiting
(MockClock), scroll strokes, capture shaping, refusals, the lease registry, the adb
client against the fake server, the emulator console, and the dispatch's gates."""

from __future__ import annotations

import io
import math
from pathlib import Path
from typing import Any

import attrs
import pytest
import trio
import trio.testing
from PIL import Image

from android.android_support import CONSOLE_TOKEN, serving
from browx_actors import open_runtime, tools
from browx_actors.config import NativeConfig, RuntimeConfig, parse_capabilities
from browx_actors.devices.adb import AdbAddress, AdbServer
from browx_actors.devices.adb_output import DeviceEntry
from browx_actors.devices.choice import choose_android_device
from browx_actors.devices.emulator import BootProgress, console_kill, wait_until_usable
from browx_actors.devices.handlers import device_list
from browx_actors.devices.leases import AcquireDevice, DeviceRegistry, ListLeases, ReleaseDevice, hold_lease
from browx_actors.devices.nodes import Rect
from browx_actors.errors import ToolError
from browx_actors.kernel.actor_ref import ActorRef
from browx_actors.server.catalog import default_catalog
from browx_actors.sessions.android.table import ANDROID_APP, CHROME_ANDROID
from browx_actors.sessions.chromium.table import TABLE as CHROMIUM
from browx_actors.sessions.ios.table import IOS_APP
from browx_actors.sessions.messages import SessionCall, ToolCall
from browx_actors.sessions.native.actions import _fling_to, _swipes_by
from browx_actors.sessions.native.capture import shape_capture
from browx_actors.sessions.native.platform import Budget
from browx_actors.sessions.native.refusals import NETWORK, STORAGE
from browx_actors.sessions.native.session import NativeSession
from browx_actors.tools import Refusal, Runs, validate_args

# -- which device ------------------------------------------------------------------------

READY = DeviceEntry("emulator-5554", "device", model="sdk_gphone64")
OTHER = DeviceEntry("emulator-5556", "device", model="Pixel_8")
PHONE = DeviceEntry("R58M12ABCDE", "unauthorized")
GONE = DeviceEntry("emulator-5558", "offline")


def test_the_one_ready_device_is_chosen_and_several_refuse() -> None:
    assert choose_android_device([READY, PHONE, GONE], None) is READY
    with pytest.raises(ToolError) as caught:
        choose_android_device([READY, OTHER, PHONE], None)
    assert caught.value.code == "device-ambiguous" and caught.value.details["candidates"] == ["emulator-5554",
                                                                                              "emulator-5556"]
    with pytest.raises(ToolError) as caught:
        choose_android_device([PHONE, GONE], None)
    assert caught.value.code == "target-not-found"
    assert "R58M12ABCDE (unauthorized: accept the USB debugging prompt" in caught.value.message
    with pytest.raises(ToolError) as caught:
        choose_android_device([], None)
    assert caught.value.message.startswith("no Android device is attached and ready. Start an emulator")


def test_the_serial_variable_picks_and_names_what_is_wrong() -> None:
    assert choose_android_device([READY, OTHER], "emulator-5556") is OTHER
    for serial, code, words in (("R58M12ABCDE", "unavailable", "USB debugging prompt"),
                                ("emulator-5558", "unavailable", "not answering adb"),
                                ("nope", "target-not-found", "it lists: emulator-5554 (device)")):
        with pytest.raises(ToolError) as caught:
            choose_android_device([READY, PHONE, GONE], serial)
        assert caught.value.code == code and words in caught.value.message, serial


# -- waiting for a boot -------------------------------------------------------------------


async def test_a_boot_is_waited_for_stage_by_stage(autojump_clock: trio.testing.MockClock) -> None:
    stages = iter(["absent", "offline", "booting", "booting", "starting-services", "ready"])

    async def probe() -> BootProgress:
        return BootProgress(next(stages))

    seconds = await wait_until_usable(probe, lambda: True, timeout=60, interval=2)
    assert seconds == 10  # five sleeps of two seconds before the sixth look said ready


async def test_a_boot_that_never_finishes_times_out_naming_the_stage(autojump_clock: trio.testing.MockClock) -> None:
    async def probe() -> BootProgress:
        return BootProgress("starting-services")

    started = trio.current_time()
    with pytest.raises(ToolError) as caught:
        await wait_until_usable(probe, lambda: True, timeout=90, interval=1)
    assert caught.value.code == "timeout" and "last stage: starting-services" in caught.value.message
    assert trio.current_time() - started == 90


async def test_an_emulator_that_exits_fails_the_boot_with_its_log(autojump_clock: trio.testing.MockClock) -> None:
    looks = 0

    async def probe() -> BootProgress:
        nonlocal looks
        looks += 1
        if looks == 2:
            raise ToolError("adb-failed", "device offline")  # a device mid-boot refuses now and then
        return BootProgress("offline")

    with pytest.raises(ToolError) as caught:
        await wait_until_usable(probe, lambda: looks < 3, timeout=60, describe_exit=lambda: "PANIC: no AVD")
    assert caught.value.code == "start-failed" and "PANIC: no AVD" in caught.value.message


@pytest.fixture
def autojump_clock() -> trio.testing.MockClock:
    return trio.testing.MockClock(autojump_threshold=0)


# -- scroll strokes, captures, refusals --------------------------------------------------


def test_scroll_strokes_move_the_finger_the_other_way_within_the_area() -> None:
    area = Rect(0, 400, 1080, 1100)  # reach: 60% of each side
    assert _swipes_by(area, 0, 300) == [(540.0, 1100.0, 540.0, 800.0)]
    strokes = _swipes_by(area, 0, -1500)
    assert len(strokes) == 3 and sum(y2 - y1 for _, y1, _, y2 in strokes) == pytest.approx(1500)
    assert all(abs(y2 - y1) <= 660 + 1e-9 for _, y1, _, y2 in strokes)
    assert _swipes_by(area, 100, 0) == [(590.0, 950.0, 490.0, 950.0)]
    assert _swipes_by(area, 0, 0) == []
    x1, y1, x2, y2 = _fling_to(area, "bottom")
    assert y1 > y2 and x1 == x2
    x1, y1, x2, y2 = _fling_to(area, "left")
    assert x1 < x2 and y1 == y2


def _png(width: int, height: int) -> bytes:
    image = Image.new("RGB", (width, height), (10, 20, 30))
    image.putpixel((width - 1, height - 1), (200, 0, 0))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def test_captures_are_cropped_scaled_and_encoded_only_when_asked() -> None:
    png = _png(400, 800)
    same = shape_capture(png, crop=None, max_dimension=2000, fmt="png", quality=80)
    assert same.data is png and (same.width, same.height, same.scale) == (400, 800, 1.0)
    cropped = shape_capture(png, crop=(300, 700, 400, 800), max_dimension=2000, fmt="png", quality=80)
    with Image.open(io.BytesIO(cropped.data)) as image:
        assert image.size == (100, 100) and image.getpixel((99, 99))[:3] == (200, 0, 0)
    scaled = shape_capture(png, crop=None, max_dimension=200, fmt="jpeg", quality=50)
    assert scaled.data[:3] == b"\xff\xd8\xff" and (scaled.width, scaled.height, scaled.scale) == (100, 200, 0.25)
    clipped = shape_capture(png, crop=(-50, -50, 50, 50), max_dimension=2000, fmt="png", quality=80)
    assert (clipped.width, clipped.height) == (50, 50)
    with pytest.raises(ToolError) as caught:
        shape_capture(png, crop=(500, 900, 600, 1000), max_dimension=2000, fmt="png", quality=80)
    assert caught.value.code == "bad-arg"


def _refusal(table: Any, tool: str) -> Refusal:
    line = table.entry(tool)
    assert isinstance(line, Refusal), f"{table.engine} does not refuse {tool}: {line}"
    return line


def test_refusals_name_the_primitive_per_engine() -> None:
    pinch = _refusal(ANDROID_APP, "gesture_pinch")
    assert pinch.code == "native-pinch-needs-multitouch-driver" and "two-finger" in pinch.missing
    touch = _refusal(IOS_APP, "touch_start")
    assert touch.code == "not-supported" and "raw touch pipeline" in touch.missing
    err = touch.error("ios-app")
    assert (err.code, err.details) == ("not-supported", {"engine": "ios-app", "tool": "touch_start"})
    assert err.message == f"touch_start is not available on ios-app: {touch.missing}"
    assert isinstance(ANDROID_APP.entry("touch_start"), Runs), "android runs touch_*"
    assert isinstance(IOS_APP.entry("gesture_pinch"), Runs), "WebDriverAgent pinches"
    assert "system proxy or VPN" in _refusal(IOS_APP, "network_read").missing
    assert "web storage" in _refusal(ANDROID_APP, "cookies_clear").missing
    assert ANDROID_APP.entry("no_such_tool") is None, "a table holds declared tools only"
    assert isinstance(CHROMIUM.entry("eval_js"), Runs) and isinstance(CHROME_ANDROID.entry("eval_js"), Runs)


def test_every_network_and_storage_tool_is_its_own_refusal_line() -> None:
    """No family by prefix: each tool is a line of its own, refused with its family's reason."""
    families = {NETWORK: ("network_", "route", "unroute"), STORAGE: ("cookies_", "storage_")}
    for reason, prefixes in families.items():
        named = [tool.name for tool in tools.ALL if tool.name.startswith(prefixes)]
        assert len(named) >= 5, named
        for table in (ANDROID_APP, IOS_APP):
            for name in named:
                assert _refusal(table, name).missing == reason, (table.engine, name)
                assert isinstance(CHROMIUM.entry(name), Runs), name


def test_every_engine_has_a_line_for_every_session_tool() -> None:
    catalog = default_catalog()
    for tool in catalog:
        for engine, table in catalog.engines.items():
            line = table.entry(tool.name)
            if tool.scope == "runtime":
                assert line is None, (engine, tool.name)
            else:
                assert line is not None and line.tool is tool, (engine, tool.name)


# -- the lease registry -------------------------------------------------------------------


@attrs.define
class _Holder:
    """Something with an ActorRef that can die: an actor that only exists."""

    ref: ActorRef


async def test_leases_are_exclusive_released_and_void_once_their_holder_is_gone() -> None:
    from browx_actors.kernel.actor import Actor

    async with trio.open_nursery() as nursery:
        registry: ActorRef = await nursery.start(DeviceRegistry().run)
        first, second = Actor("a"), Actor("b")
        first_ref = await nursery.start(first.run)
        second_ref = await nursery.start(second.run)
        lease = await registry.call(AcquireDevice("android:emu", "a", first_ref, {"model": "x"}))
        assert lease.alive
        again = await registry.call(AcquireDevice("android:emu", "a", first_ref))
        assert again is lease, "the holder asking again gets its own lease"
        with pytest.raises(ToolError) as caught:
            await registry.call(AcquireDevice("android:emu", "b", second_ref))
        assert caught.value.code == "device-leased" and caught.value.details["holder"] == "a"
        (listed,) = await registry.call(ListLeases())
        assert listed["holder"] == "a" and listed["model"] == "x"
        assert await registry.call(ReleaseDevice("android:emu", "b")) is False, "only the holder releases"
        assert await registry.call(ReleaseDevice("android:emu", "a")) is True
        assert not lease.alive and await registry.call(ListLeases()) == []
        await registry.call(AcquireDevice("android:emu", "b", second_ref))
        second.stop()  # its holder ends without releasing: the lease is void
        await trio.testing.wait_all_tasks_blocked()  # a bare actor stops without a timer: it is gone
        replaced = await registry.call(AcquireDevice("android:emu", "a", first_ref))
        assert (await registry.call(ListLeases()))[0]["holder"] == "a" and replaced.alive
        first.stop()
        nursery.cancel_scope.cancel()


async def test_a_held_lease_is_released_when_its_task_is_cancelled() -> None:
    from browx_actors.kernel.actor import Actor

    async with trio.open_nursery() as nursery:
        registry: ActorRef = await nursery.start(DeviceRegistry().run)
        holder = Actor("h")
        holder_ref = await nursery.start(holder.run)
        with trio.CancelScope() as holding:
            async with trio.open_nursery() as inner:
                lease = await inner.start(hold_lease, registry, AcquireDevice("ios:udid", "h", holder_ref))
                assert lease.alive and len(await registry.call(ListLeases())) == 1
                holding.cancel()
        assert await registry.call(ListLeases()) == [] and not lease.alive
        holder.stop()
        nursery.cancel_scope.cancel()


# -- the adb client and the console, against the fake server ------------------------------


async def test_the_adb_client_speaks_to_the_server_from_threads() -> None:
    with serving() as adb:
        server = AdbServer(AdbAddress("127.0.0.1", adb.port))
        assert await server.ensure_running()
        (entry,) = await server.devices()
        assert entry.serial == "emulator-5554" and entry.model == "sdk_gphone64_x86_64"
        device = server.device("emulator-5554")
        failed = await device.shell("echo hi && false", timeout=5)
        assert (failed.exit_code, failed.out) == (1, "hi\n")
        png = await device.exec_out("screencap -p", timeout=5)
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        await device.push(b"\x00\x01" * 70_000, "/data/local/tmp/blob", timeout=5)
        assert adb.device().files["/data/local/tmp/blob"] == b"\x00\x01" * 70_000
        with pytest.raises(ToolError) as caught:
            await server.device("nope").shell("true", timeout=5)
        assert caught.value.code == "target-not-found"
    closed = AdbServer(AdbAddress("127.0.0.1", adb.port))
    with pytest.raises(ToolError) as caught:
        await closed.devices()
    assert caught.value.code == "unavailable" and "no adb server answers" in caught.value.message
    remote = AdbServer(AdbAddress("adb-farm.invalid", 5037))
    assert not remote.address.local and AdbAddress("127.0.0.2").local
    assert not await remote.ensure_running(), "a remote server is never started here"


async def test_the_emulator_console_authenticates_and_kills(tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    with serving() as adb:
        host_port = adb.device().console_port
        assert host_port is not None
        serial = f"emulator-{host_port}"  # the console the serial names
        adb.device().serial = serial
        token_file.write_text("wrong\n")
        with pytest.raises(ToolError) as caught:
            await console_kill("127.0.0.1", serial, token_file=token_file)
        assert caught.value.code == "adb-failed" and "refused the auth token" in caught.value.message
        with pytest.raises(ToolError) as caught:
            await console_kill("127.0.0.1", serial, token_file=tmp_path / "missing")
        assert "cannot be read" in caught.value.message
        token_file.write_text(CONSOLE_TOKEN + "\n")
        said = await console_kill("127.0.0.1", serial, token_file=token_file)
        assert said == "OK: killing emulator, bye bye" and adb.model.devices == []


# -- the session's deadline, and what the dispatch refuses first --------------------------


class _SlowSession(NativeSession):
    engine = "android-app"

    async def connect(self) -> None:
        pass


async def test_a_call_runs_under_its_deadline(autojump_clock: trio.testing.MockClock) -> None:
    async def slow(session: Any, args: dict[str, Any]) -> Any:
        assert session.budget.remaining() == pytest.approx(5)
        await trio.sleep(60)

    async with trio.open_nursery() as nursery:
        session = _SlowSession("s", table=ANDROID_APP, registry=lambda: None)  # type: ignore[arg-type, return-value]
        ref = await nursery.start(session.run)
        with pytest.raises(ToolError) as caught:
            await ref.call(SessionCall("slow", slow, {}, deadline=trio.current_time() + 5), timeout=None)
        assert caught.value.code == "timeout" and "slow did not finish" in caught.value.message
        assert session.budget.deadline == math.inf
        session.stop()


async def test_a_refused_tool_is_refused_by_the_session_naming_what_is_missing() -> None:
    from browx_actors.sessions.messages import Describe

    async with trio.open_nursery() as nursery:
        session = _SlowSession("s", table=ANDROID_APP, registry=lambda: None)  # type: ignore[arg-type, return-value]
        ref = await nursery.start(session.run)
        args = tools.COOKIES_CLEAR.args.of(validate_args(tools.COOKIES_CLEAR.params, {}))
        with pytest.raises(ToolError) as caught:
            await ref.call(ToolCall(tools.COOKIES_CLEAR, args), timeout=None)
        assert caught.value.code == "not-supported"
        assert caught.value.message == f"cookies_clear is not available on android-app: {STORAGE}"
        assert caught.value.details == {"engine": "android-app", "tool": "cookies_clear"}
        assert session.reads == 0, "nothing was read from the device"
        assert (await ref.call(Describe()))["id"] == "s", "and the session serves on"
        session.stop()


async def test_a_budget_caps_each_step() -> None:
    assert Budget().remaining() == 60.0


async def test_the_gates_come_before_any_device(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no adb to start a server with
    config = RuntimeConfig(workspace=tmp_path, capabilities=parse_capabilities("native-device"),
                           native=NativeConfig(adb_port=1))
    async with open_runtime(capabilities=["read", "navigation", "action"], config=config) as runtime:
        for tool, args in (("device_list", {}), ("app_list", {"session": "p"}),
                           ("open_session", {"session": "p", "engine": "android-app"})):
            denied = await runtime.call_tool(tool, args)
            assert denied["code"] == "capability-denied" and denied["capability"] == "native-device", tool
    async with open_runtime(capabilities=["read", "navigation", "native-device"], config=config) as runtime:
        viewport = await runtime.call_tool("open_session", {"session": "p", "engine": "android-app",
                                                            "viewport": {"width": 400, "height": 800}})
        assert viewport["code"] == "bad-arg" and viewport["field"] == "viewport"
        script = await runtime.call_tool("navigate", {"session": "p", "url": "javascript:alert(1)"})
        assert script["code"] == "bad-arg" and script["field"] == "url"
        unknown = await runtime.call_tool("open_session", {"session": "p", "engine": "android-app"})
        assert unknown["code"] == "unavailable" and unknown["component"] == "adb server"


async def test_an_absent_toolchain_is_an_empty_list(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no adb, no emulator, no xcrun
    monkeypatch.delenv("ANDROID_HOME", raising=False)
    monkeypatch.delenv("ANDROID_SDK_ROOT", raising=False)
    config = RuntimeConfig(workspace=tmp_path, capabilities=parse_capabilities("native-device"),
                           native=NativeConfig(adb_port=1))
    async with open_runtime(capabilities=["read", "native-device"], config=config) as runtime:
        listed = await runtime.call_tool("device_list")
    assert listed["devices"] == listed["avds"] == listed["simulators"] == []
    assert listed["ready"] == listed["simulatorsBooted"] == 0
    assert listed["warnings"] == ["no adb server at 127.0.0.1:1 and no `adb` on PATH to start one: no Android "
                                  "devices listed"]
    assert tools.DEVICE_LIST.capability == "native-device"
    line = default_catalog().runtime.entry("device_list")
    assert isinstance(line, Runs) and line.handler is device_list


class _SlowToConnect(NativeSession):
    """A device that takes two minutes to boot, then fails or succeeds as told."""

    engine = "ios-app"

    def __init__(self, fail: bool) -> None:
        super().__init__("slow", table=IOS_APP, registry=lambda: None)  # type: ignore[arg-type, return-value]
        self.fail = fail

    async def connect(self) -> None:
        await trio.sleep(120)
        if self.fail:
            raise ToolError("wda-unreachable", "nothing answers", url="http://127.0.0.1:8100")
        self.device = {"id": "sim"}


async def test_connecting_does_not_hold_up_the_session_supervisor(autojump_clock: trio.testing.MockClock) -> None:
    from browx_actors.kernel.supervision import ChildSpec, LookupChild, Restart, StartChild
    from browx_actors.kernel.supervisor import Supervisor
    from browx_actors.sessions.messages import AwaitReady, Describe

    async def snapshot(session: Any, args: dict[str, Any]) -> None:
        await trio.lowlevel.checkpoint()

    async with trio.open_nursery() as nursery:
        supervisor: ActorRef = await nursery.start(Supervisor("sessions").run)
        for fail in (False, True):
            started = trio.current_time()
            spec = ChildSpec(f"s{fail}", lambda fail=fail: _SlowToConnect(fail), Restart.TEMPORARY)
            ref = await supervisor.call(StartChild(spec))
            assert trio.current_time() == started, "the start returns before the device is there"
            assert await supervisor.call(LookupChild(f"s{fail}")) is ref, "and lookups answer meanwhile"
            assert (await ref.call(Describe()))["state"] == "connecting"
            if fail:
                with pytest.raises(ToolError) as caught:
                    await ref.call(AwaitReady(), timeout=None)
                assert caught.value.code == "wda-unreachable"
                assert (await ref.call(Describe()))["state"] == "failed"
                with pytest.raises(ToolError):  # a call after a failed connection gets its error too
                    await ref.call(SessionCall("snapshot", snapshot, {}), timeout=None)
            else:
                ready = await ref.call(AwaitReady(), timeout=None)
                assert ready["state"] == "ready" and ready["device"] == {"id": "sim"}
            assert trio.current_time() - started == 120
        nursery.cancel_scope.cancel()
