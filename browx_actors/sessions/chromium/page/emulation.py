"""The session's emulation: how its pages see the world, which ``emulate`` sets, each field
cleared by null (its handler is in :mod:`.handlers`).

Color scheme and reduced motion (``prefers-*`` media features), locale (``Intl`` and
``navigator.language`` / ``Accept-Language``), time zone, geolocation, user agent,
network conditions (offline, DevTools' slow and fast 3G, or custom), CPU slowdown, and
permissions granted to the session's pages. An argument left out keeps what is in
force; ``null`` clears that one; ``emulate {}`` reports the state.

The state is the session's, applied over each tab's event session (and its
out-of-process frames) as a tab setup (:mod:`.tabs.wiring`), so a tab opened later gets it
too. Permissions are the browser context's (``Browser.grantPermissions``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from ....cdp import TargetLink
from ....jsonsafe import JsonObject

if TYPE_CHECKING:
    from ..pool import Browser
    from ..tabs.wiring import TargetWiring

__all__ = ["NETWORK_PRESETS", "PERMISSIONS", "Emulation", "EmulationHost", "media_features", "network_conditions"]


#: DevTools' throttling presets: latency in ms, throughput in bytes per second.
NETWORK_PRESETS: dict[str, dict[str, float]] = {
    "slow-3g": {"latency": 2000.0, "downloadThroughput": 500_000 / 8 * 0.8, "uploadThroughput": 500_000 / 8 * 0.8},
    "fast-3g": {"latency": 562.5, "downloadThroughput": 1_600_000 / 8 * 0.9,
                "uploadThroughput": 750_000 / 8 * 0.9},
}

#: Permission names as pages and Playwright spell them -> the protocol's names.
PERMISSIONS: dict[str, str] = {
    "geolocation": "geolocation", "notifications": "notifications", "camera": "videoCapture",
    "microphone": "audioCapture", "clipboard-read": "clipboardReadWrite", "clipboard-write": "clipboardSanitizedWrite",
    "midi": "midi", "midi-sysex": "midiSysex", "background-sync": "backgroundSync",
    "payment-handler": "paymentHandler", "storage-access": "storageAccess", "local-fonts": "localFonts",
    "idle-detection": "idleDetection", "screen-wake-lock": "wakeLockScreen", "accelerometer": "sensors",
    "gyroscope": "sensors", "magnetometer": "sensors", "ambient-light-sensor": "sensors",
    "window-management": "windowManagement",
}



def media_features(state: JsonObject) -> list[dict[str, str]]:
    features = []
    if state.get("colorScheme") is not None:
        features.append({"name": "prefers-color-scheme", "value": state["colorScheme"]})
    if state.get("reducedMotion") is not None:
        features.append({"name": "prefers-reduced-motion", "value": state["reducedMotion"]})
    return features


def network_conditions(state: JsonObject) -> JsonObject:
    """``Network.emulateNetworkConditions`` for the state (no throttling when unset)."""
    mode = state.get("network")
    off = {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}
    if mode is None:
        return off
    if mode == "offline":
        return {**off, "offline": True}
    if mode == "custom":
        custom = state.get("networkConditions") or {}
        return {"offline": False, "latency": custom.get("latencyMs", 0),
                "downloadThroughput": custom["downloadKbps"] * 1000 / 8 if "downloadKbps" in custom else -1,
                "uploadThroughput": custom["uploadKbps"] * 1000 / 8 if "uploadKbps" in custom else -1}
    return {"offline": False, **NETWORK_PRESETS[mode]}


class EmulationHost(Protocol):
    """What emulation needs of the session: its tabs' wiring (made when it starts), its
    browser and its browser context's id, where permissions are granted."""

    @property
    def wiring(self) -> TargetWiring | None: ...

    @property
    def browser(self) -> Browser | None: ...

    @property
    def context_id(self) -> str | None: ...


class Emulation:
    """One session's emulation state and how it is applied to a flat session."""

    def __init__(self, host: EmulationHost) -> None:
        self.host = host
        #: What is in force, as ``emulate`` took it (its arguments by JSON name).
        self.state: JsonObject = {}
        self._default_user_agent: str | None = None
        self._installed = False

    async def installed(self) -> Emulation:
        """This emulation, added to every tab's setup on first use."""
        if not self._installed:
            assert self.host.wiring is not None
            await self.host.wiring.add_setup(self.setup)
            self._installed = True
        return self

    async def setup(self, cdp: TargetLink, kind: str) -> None:
        """Everything in force, on one (new) flat session."""
        if self.state:
            await self.apply(cdp, set(self.state))

    async def apply(self, cdp: TargetLink, fields: set[str]) -> None:
        """The given fields' current values (cleared when unset) on one flat session."""
        state = self.state
        if fields & {"colorScheme", "reducedMotion"}:
            await cdp.send("Emulation.setEmulatedMedia", {"features": media_features(state)})
        if "timezone" in fields:
            await cdp.send("Emulation.setTimezoneOverride", {"timezoneId": state.get("timezone") or ""})
        if "locale" in fields:
            await cdp.send("Emulation.setLocaleOverride",
                           {"locale": state["locale"]} if state.get("locale") else {})
        overridden = state.get("userAgent") or state.get("locale") or self._default_user_agent is not None
        if fields & {"userAgent", "locale"} and overridden:
            params: JsonObject = {"userAgent": state.get("userAgent") or await self._user_agent()}
            if state.get("locale"):
                params["acceptLanguage"] = state["locale"]
            await cdp.send("Emulation.setUserAgentOverride", params)
        if "geolocation" in fields:
            where = state.get("geolocation")
            if where is None:
                await cdp.send("Emulation.clearGeolocationOverride")
            else:
                await cdp.send("Emulation.setGeolocationOverride", {"accuracy": 1, **where})
        if fields & {"network", "networkConditions"}:
            await cdp.send("Network.emulateNetworkConditions", network_conditions(state))
        if "cpuSlowdown" in fields:
            await cdp.send("Emulation.setCPUThrottlingRate", {"rate": state.get("cpuSlowdown") or 1})

    async def _user_agent(self) -> str:
        """The browser's own user agent, to put back when an override is cleared."""
        if self._default_user_agent is None:
            assert self.host.browser is not None
            self._default_user_agent = str((await self.host.browser.cdp.send("Browser.getVersion"))["userAgent"])
        return self._default_user_agent

    async def permissions(self) -> None:
        browser = self.host.browser
        assert browser is not None
        context_id = self.host.context_id
        context = {"browserContextId": context_id} if context_id else {}
        granted = self.state.get("permissions")
        await browser.cdp.send("Browser.resetPermissions", context)
        if granted:
            names = sorted({PERMISSIONS[name] for name in granted})
            await browser.cdp.send("Browser.grantPermissions", {"permissions": names, **context})
