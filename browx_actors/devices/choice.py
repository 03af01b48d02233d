"""Which Android device a session drives: the rule for ``BROWX_ANDROID_APP_SERIAL``.

With the variable set, the device with that serial, which must be ready (state
``device``): an unauthorized or offline device is refused with its state and the fix,
because the state is the actionable part. Without it, the one ready device; none is
``target-not-found``, several is ``device-ambiguous`` listing them, because a guess
would put two sessions' taps on one screen or one session's on the wrong one.
:func:`choose_android_device` is pure; :func:`find_android_device` asks the adb server.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import ToolError
from .adb import AdbAddress, AdbServer
from .adb_output import DeviceEntry

__all__ = ["STATE_ADVICE", "choose_android_device", "find_android_device"]

#: What to do about a device that is listed but not ready.
STATE_ADVICE = {
    "unauthorized": "accept the USB debugging prompt on the device (or run `adb kill-server` if the keys "
                    "changed)",
    "offline": "the device is not answering adb: wait for it to finish booting, or reconnect it",
    "no permissions": "the adb server may not open the USB device: fix its udev rules",
    "authorizing": "the device is still deciding whether to trust this computer",
    "connecting": "adb is still connecting to it",
    "bootloader": "the device is in its bootloader, not Android",
    "recovery": "the device is in recovery mode, not Android",
    "sideload": "the device is in sideload mode, not Android",
}


def _advice(state: str) -> str:
    for known, advice in STATE_ADVICE.items():
        if state.startswith(known):
            return advice
    return "it is not ready for commands"


def choose_android_device(entries: Sequence[DeviceEntry], wanted: str | None) -> DeviceEntry:
    """The device a session leases, or the refusal."""
    if wanted:
        found = next((entry for entry in entries if entry.serial == wanted), None)
        if found is None:
            listed = ", ".join(f"{e.serial} ({e.state})" for e in entries) or "none"
            raise ToolError("target-not-found", f"BROWX_ANDROID_APP_SERIAL={wanted!r} is not a device adb lists "
                            f"(it lists: {listed})", device=wanted)
        if found.state != "device":
            raise ToolError("unavailable", f"device {wanted} is {found.state}: {_advice(found.state)}",
                            component="device", device=wanted, state=found.state)
        return found
    ready = [entry for entry in entries if entry.state == "device"]
    if not ready:
        others = ", ".join(f"{e.serial} ({e.state}: {_advice(e.state)})" for e in entries)
        raise ToolError("target-not-found", "no Android device is attached and ready"
                        + (f"; adb lists {others}" if others else "")
                        + ". Start an emulator with device_boot, or attach one; device_list shows what adb sees",
                        device=None)
    if len(ready) > 1:
        listed = ", ".join(f"{e.serial} ({e.model or e.product or 'unknown model'})" for e in ready)
        raise ToolError("device-ambiguous", f"{len(ready)} Android devices are ready ({listed}): set "
                        "BROWX_ANDROID_APP_SERIAL to the serial of the one to drive",
                        candidates=[e.serial for e in ready])
    return ready[0]


async def find_android_device(
    address: AdbAddress, wanted: str | None, *, timeout: float,
) -> tuple[AdbServer, DeviceEntry]:
    """The adb server (started on loopback when it is not running) and the device a
    session drives on it."""
    server = AdbServer(address)
    if not await server.ensure_running():
        raise ToolError("unavailable", f"no adb server answers at {address}, and none can be started here (no `adb` "
                        "on PATH, or a remote ANDROID_ADB_SERVER_HOST): install the Android SDK's platform-tools or "
                        "point ANDROID_ADB_SERVER_HOST / _PORT at a running server", component="adb server")
    return server, choose_android_device(await server.devices(timeout=timeout), wanted)
