"""What a device is, as ``device_list`` and a session's description report it.

Android: ``{serial, state, model, release, sdk, emulator}`` from the adb listing and,
for a ready device, its properties (``ro.product.model``, ``ro.build.version.release``,
``ro.build.version.sdk``); a device that is unauthorized or offline answers no
properties, so it is listed with its state and what the listing line knew.
"""

from __future__ import annotations

from ..errors import ToolError
from ..jsonsafe import JsonObject
from .adb import AndroidDevice
from .adb_output import DeviceEntry

__all__ = ["android_info", "entry_info"]


def entry_info(entry: DeviceEntry) -> JsonObject:
    """What the listing line alone says."""
    return {"serial": entry.serial, "state": entry.state, "model": entry.model, "release": None, "sdk": None,
            "emulator": entry.emulator}


async def android_info(device: AndroidDevice, entry: DeviceEntry, *, timeout: float) -> JsonObject:
    """The listing line, completed with the device's own properties when it is ready."""
    info = entry_info(entry)
    if entry.state != "device":
        return info
    try:
        props = await device.getprop(timeout=timeout)
    except ToolError:
        return info  # it went away between the listing and now: the listing stands
    sdk = props.get("ro.build.version.sdk", "")
    info.update(
        model=props.get("ro.product.model") or entry.model,
        release=props.get("ro.build.version.release") or None,
        sdk=int(sdk) if sdk.isdigit() else None,
        emulator=entry.emulator or props.get("ro.kernel.qemu") == "1",
    )
    return info
