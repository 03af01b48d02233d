"""Device leases: one owner per device, kept by the DeviceRegistry actor.

Two UiAutomator clients on one Android device make every hierarchy dump fail for both,
and two WebDriverAgent sessions on one simulator fight over its app, so a device has one
owner at a time: the session that leased it. The :class:`DeviceRegistry` is a
supervisor in the runtime tree whose children are the leases, one :class:`DeviceLease`
actor per leased device (``android:<serial>``, ``ios:<udid>``), started when a session
acquires the device and stopped when it releases it. A second session asking for a
leased device is refused with ``device-leased`` naming the holder.

A session holds its lease in a task of its own nursery (:func:`hold_lease`) whose
``finally`` releases it, so the lease ends with the session however the session ends:
closed, crashed or cancelled. Should a release ever be lost, a lease whose holder's
actor is gone no longer counts: the next acquire of that device replaces it.

Closing a session never shuts its device down: a session leases a device, it does not
own it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping

import attrs
import trio

from ..errors import ToolError
from ..jsonsafe import JsonObject, JsonValue
from ..kernel.actor import Actor
from ..kernel.actor_ref import ActorRef, ActorUnavailable
from ..kernel.supervision import ChildSpec, EventLog, Restart, Strategy
from ..kernel.supervisor import Supervisor

__all__ = [
    "AcquireDevice",
    "DeviceLease",
    "DeviceRegistry",
    "LeaseInfo",
    "ListLeases",
    "ReleaseDevice",
    "device_key",
    "hold_lease",
]


def device_key(platform: str, device_id: str) -> str:
    """The registry's name for a device: ``android:emulator-5554``, ``ios:<udid>``."""
    return f"{platform}:{device_id}"


@attrs.frozen
class AcquireDevice:
    """Lease ``device`` (a :func:`device_key`) for the session ``holder``; answers the
    lease's ref, or refuses with ``device-leased`` naming the session that holds it."""

    device: str
    holder: str
    #: The holder's own actor, so a lease whose holder is gone can be told apart.
    holder_ref: ActorRef = attrs.field(eq=False)
    #: What the device is (model, name...), shown beside the lease in status.
    about: Mapping[str, JsonValue] = attrs.field(factory=dict)


@attrs.frozen
class ReleaseDevice:
    """End ``holder``'s lease on ``device``; True when there was one."""

    device: str
    holder: str


@attrs.frozen
class ListLeases:
    """Every lease: ``{device, holder, sinceSeconds, ...about}``."""


@attrs.frozen
class LeaseInfo:
    """What a lease actor answers about itself."""


class DeviceLease(Actor):
    """One leased device: who holds it and since when."""

    mailbox_size = 8

    def __init__(self, device: str, holder: str, about: Mapping[str, JsonValue]) -> None:
        super().__init__(f"lease:{device}")
        self.device = device
        self.holder = holder
        self.about = dict(about)
        self.since = trio.current_time()

    async def handle(self, msg: object) -> object:
        if isinstance(msg, LeaseInfo):
            return {"device": self.device, "holder": self.holder,
                    "sinceSeconds": round(trio.current_time() - self.since, 3), **self.about}
        raise TypeError(f"{self.name} has no handler for {type(msg).__name__}")


class DeviceRegistry(Supervisor):
    """The supervisor of the leases: exclusive by device, temporary children."""

    def __init__(self, events: EventLog | None = None) -> None:
        super().__init__("devices", strategy=Strategy.ONE_FOR_ONE, events=events)
        self._holders: dict[str, tuple[str, ActorRef]] = {}

    async def handle(self, msg: object) -> object:
        if isinstance(msg, AcquireDevice):
            return await self._acquire(msg)
        if isinstance(msg, ReleaseDevice):
            return await self._release(msg.device, msg.holder)
        if isinstance(msg, ListLeases):
            return await self._leases()
        return await super().handle(msg)

    async def _acquire(self, msg: AcquireDevice) -> ActorRef:
        current = self._live_lease(msg.device)
        if current is not None:
            holder, holder_ref = self._holders[msg.device]
            if holder == msg.holder and holder_ref is msg.holder_ref:
                return current
            if holder_ref.alive:
                raise ToolError("device-leased", f"{msg.device} is leased by session {holder!r}: one UiAutomator "
                                "or WebDriverAgent owner per device. Close that session, or pick another device",
                                device=msg.device, holder=holder)
            await self._release(msg.device, holder)  # its holder is gone: the lease is void
        spec = ChildSpec(msg.device, lambda: DeviceLease(msg.device, msg.holder, msg.about), Restart.TEMPORARY,
                         shutdown=2, meta={"holder": msg.holder})
        ref = await self.start_child(spec)
        self._holders[msg.device] = (msg.holder, msg.holder_ref)
        return ref

    def _live_lease(self, device: str) -> ActorRef | None:
        ref = self.child_ref(device)
        if ref is None or not ref.alive or device not in self._holders:
            return None
        return ref

    async def _release(self, device: str, holder: str) -> bool:
        known = self._holders.get(device)
        if known is None or known[0] != holder:
            return False
        del self._holders[device]
        if self.child_ref(device) is not None:
            with contextlib.suppress(ToolError):
                await self.terminate_child(device)
        return True

    async def _leases(self) -> list[JsonObject]:
        out = []
        for device in list(self._holders):
            ref = self._live_lease(device)
            if ref is None:
                continue
            with contextlib.suppress(ToolError, ActorUnavailable):
                out.append(await ref.call(LeaseInfo(), timeout=5))
        return out


async def hold_lease(
    registry: ActorRef,
    acquire: AcquireDevice,
    *,
    task_status: trio.TaskStatus[ActorRef] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Hold a lease for as long as this task runs (start it in the holder's nursery).

    ``task_status`` gets the lease's ref once it is granted; a refusal raises before.
    Whatever ends the task (the holder closing, crashing, being cancelled) releases it.
    """
    lease: ActorRef = await registry.call(acquire, timeout=10)
    try:
        task_status.started(lease)
        await trio.sleep_forever()
    finally:
        with trio.CancelScope(shield=True), trio.move_on_after(5), contextlib.suppress(ToolError, ActorUnavailable):
            await registry.call(ReleaseDevice(acquire.device, acquire.holder), timeout=5)
