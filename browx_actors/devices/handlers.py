"""The device lifecycle tools, which take no session: device_list, device_boot,
device_shutdown. They are what an agent calls before opening a native session.

``device_list`` asks every platform at once: the adb server (each device with its
serial, state, model, release, SDK level and whether it is an emulator; unauthorized
and offline ones listed with that state), the AVDs ``emulator -list-avds`` knows, and
the simulators ``xcrun simctl list`` knows. An absent toolchain is an empty list for
its platform and a warning, never a failed call. Leased devices say which session holds
them (``leasedBy``).

``device_boot`` and ``device_shutdown`` are adb/AVD-scoped: an ios-app session boots the
simulator it resolves when it starts and never shuts one down.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import trio

from ..errors import ToolError
from ..jsonsafe import JsonObject, JsonValue
from ..kernel.actor_ref import ActorUnavailable
from ..tools import Reply
from ..tools.arguments import NoArgs
from ..tools.context import RuntimeContext
from ..tools.devices import DeviceBootArgs, DeviceShutdownArgs
from .adb import AdbAddress, AdbServer
from .device_info import android_info
from .emulator import boot_command, console_kill, free_console_port, probe_boot, spawn_emulator, wait_until_usable
from .leases import ListLeases
from .toolchain import Simctl, emulator_binary, list_avds, xcrun_binary

__all__ = ["device_boot", "device_list", "device_shutdown"]

NATIVE = "native-device"
_LIST_TIMEOUT = 20.0


def _adb(runtime: RuntimeContext) -> AdbServer:
    native = runtime.config.native
    return AdbServer(AdbAddress(native.adb_host, native.adb_port))


async def _holders(runtime: RuntimeContext) -> dict[str, str]:
    """Leased device key -> the session holding it."""
    try:
        leases = await runtime.device_registry().call(ListLeases(), timeout=5)
    except (ToolError, ActorUnavailable):
        return {}
    return {lease["device"]: lease["holder"] for lease in leases}


async def _android(runtime: RuntimeContext, reply: Reply) -> list[JsonObject]:
    server = _adb(runtime)
    if not await server.ensure_running():
        reply.warn(f"no adb server at {server.address} and no `adb` on PATH to start one: no Android devices listed")
        return []
    entries = await server.devices(timeout=_LIST_TIMEOUT)
    found: list[JsonObject] = [{} for _ in entries]

    async def describe(index: int) -> None:
        found[index] = await android_info(server.device(entries[index].serial), entries[index], timeout=_LIST_TIMEOUT)

    async with trio.open_nursery() as nursery:
        for index in range(len(entries)):
            nursery.start_soon(describe, index)
    return found


async def _avds(reply: Reply) -> list[str]:
    emulator = emulator_binary()
    if emulator is None:
        return []
    try:
        return await list_avds(emulator)
    except ToolError as err:
        reply.warn(f"emulator -list-avds failed: {err.message}")
        return []


async def _simulators(reply: Reply) -> list[dict[str, str]]:
    xcrun = xcrun_binary()
    if xcrun is None:
        return []
    try:
        return [sim.to_dict() for sim in await Simctl(xcrun).simulators(timeout=_LIST_TIMEOUT)]
    except ToolError as err:
        reply.warn(f"xcrun simctl list failed, no simulators listed: {err.message}")
        return []


async def device_list(runtime: RuntimeContext, args: NoArgs) -> Reply:
    reply = Reply(warnings=[])
    results: JsonObject = {}

    async def gather(name: str, fn: Callable[..., Awaitable[JsonValue]], *fn_args: object) -> None:
        results[name] = await fn(*fn_args)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(gather, "devices", _android, runtime, reply)
        nursery.start_soon(gather, "avds", _avds, reply)
        nursery.start_soon(gather, "simulators", _simulators, reply)
        nursery.start_soon(gather, "holders", _holders, runtime)
    holders = results["holders"]
    for device in results["devices"]:
        device["leasedBy"] = holders.get(f"android:{device['serial']}")
    for simulator in results["simulators"]:
        simulator["leasedBy"] = holders.get(f"ios:{simulator['id']}")
    reply.fields.update(
        devices=results["devices"], avds=results["avds"], simulators=results["simulators"],
        ready=sum(1 for d in results["devices"] if d["state"] == "device"),
        simulatorsBooted=sum(1 for s in results["simulators"] if s["state"] == "Booted"),
    )
    return reply


async def device_boot(runtime: RuntimeContext, args: DeviceBootArgs) -> Reply:
    emulator = emulator_binary()
    if emulator is None:
        raise ToolError("unavailable", "no Android emulator here: put the SDK's emulator on PATH or set "
                        "ANDROID_HOME (browx never installs the Android SDK)", component="emulator")
    avds = await list_avds(emulator)
    if args.avd not in avds:
        raise ToolError("target-not-found", f"no AVD named {args.avd!r} (AVDs here: {', '.join(avds) or 'none'}); "
                        "browx never creates one", avd=args.avd)
    server = _adb(runtime)
    if not await server.ensure_running():
        raise ToolError("unavailable", f"no adb server at {server.address} to register the emulator with",
                        component="adb server")
    listed = {entry.serial for entry in await server.devices(timeout=_LIST_TIMEOUT)}
    port = await trio.to_thread.run_sync(free_console_port, listed)
    serial = f"emulator-{port}"
    log = await trio.to_thread.run_sync(lambda: Path(runtime.config.workspace).resolve() / "devices" / f"{serial}.log")
    spawned = await spawn_emulator(boot_command(emulator, args.avd, port, headless=args.headless),
                                   adb_port=server.address.port, log=log)
    seconds = await wait_until_usable(lambda: probe_boot(server, serial, timeout=_LIST_TIMEOUT), spawned.alive,
                                      timeout=args.timeout_ms / 1000, describe_exit=spawned.log_tail)
    entry = next(e for e in await server.devices(timeout=_LIST_TIMEOUT) if e.serial == serial)
    device = await android_info(server.device(serial), entry, timeout=_LIST_TIMEOUT)
    return Reply.of(device={**device, "avd": args.avd, "headless": args.headless, "pid": spawned.process.pid},
                    bootSeconds=round(seconds, 1), log=str(log))


async def device_shutdown(runtime: RuntimeContext, args: DeviceShutdownArgs) -> Reply:
    serial = args.serial
    server = _adb(runtime)
    if not await server.ensure_running():
        raise ToolError("unavailable", f"no adb server at {server.address}", component="adb server")
    entries = {entry.serial: entry for entry in await server.devices(timeout=_LIST_TIMEOUT)}
    entry = entries.get(serial)
    if entry is None:
        raise ToolError("target-not-found", f"adb lists no device {serial!r} (it lists: "
                        f"{', '.join(entries) or 'none'})", device=serial)
    if not entry.emulator:
        raise ToolError("physical-device", f"{serial} is a physical device: browx powers off emulators only, never "
                        "the operator's phone", device=serial)
    holder = (await _holders(runtime)).get(f"android:{serial}")
    if holder is not None:
        raise ToolError("device-leased", f"android:{serial} is leased by session {holder!r}: close that session "
                        "before shutting its device down", device=f"android:{serial}", holder=holder)
    said = await console_kill(server.address.host, serial, token_file=Path.home() / ".emulator_console_auth_token")
    gone = False
    with trio.move_on_after(30):
        while not gone:
            gone = serial not in {e.serial for e in await server.devices(timeout=_LIST_TIMEOUT)}
            if not gone:
                await trio.sleep(0.5)
    reply = Reply.of(serial=serial, shutdown=True, console=said, listed=not gone, warnings=[])
    if not gone:
        reply.warn(f"{serial} was told to stop but adb still lists it after 30 s")
    return reply


