"""``emulate``: how the session's pages see the world, in one tool, each field cleared by null.

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

from typing import TYPE_CHECKING

from ....cdp import CdpError, TargetLink
from ....errors import ToolError
from ....jsonsafe import JsonObject
from ....tools import Reply
from ....tools.page import EMULATED, EmulateArgs

if TYPE_CHECKING:
    from ..session import ChromiumSession

__all__ = ["NETWORK_PRESETS", "PERMISSIONS", "Emulation", "emulate", "media_features", "network_conditions"]


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


class Emulation:
    """One session's emulation state and how it is applied to a flat session."""

    def __init__(self, session: ChromiumSession) -> None:
        self.session = session
        #: What is in force, as ``emulate`` took it (its arguments by JSON name).
        self.state: JsonObject = {}
        self._default_user_agent: str | None = None
        self._installed = False

    async def installed(self) -> Emulation:
        """This emulation, added to every tab's setup on first use."""
        if not self._installed:
            assert self.session.wiring is not None
            await self.session.wiring.add_setup(self.setup)
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
            assert self.session.browser is not None
            self._default_user_agent = str((await self.session.browser.cdp.send("Browser.getVersion"))["userAgent"])
        return self._default_user_agent

    async def permissions(self) -> None:
        browser = self.session.browser
        assert browser is not None
        context_id = self.session.context_id
        context = {"browserContextId": context_id} if context_id else {}
        granted = self.state.get("permissions")
        await browser.cdp.send("Browser.resetPermissions", context)
        if granted:
            names = sorted({PERMISSIONS[name] for name in granted})
            await browser.cdp.send("Browser.grantPermissions", {"permissions": names, **context})


async def emulate(session: ChromiumSession, args: EmulateArgs) -> Reply:
    emulation = await session.emulation.installed()
    # A dict by JSON name, as the state is kept and reported: a nullable field left out is
    # absent from it, one sent as null is None.
    given = args.json()
    asked = sorted(name for name in EMULATED if name in given)
    changed = set(asked)
    if "network" in given and given["network"] != "custom":
        # Custom conditions go with network custom: any other value, or null, drops them.
        changed.add("networkConditions")
        given["networkConditions"] = None
    previous = dict(emulation.state)
    for name in changed:
        if given[name] is None:
            emulation.state.pop(name, None)
        else:
            emulation.state[name] = given[name]
    page_fields = changed - {"permissions"}
    if page_fields:
        await session.tab_lifecycle.attach_current()
        current = session.tabs.current
        assert current is not None and current.events is not None
        try:
            await emulation.apply(current.events, page_fields)
        except CdpError as err:
            emulation.state = previous
            await emulation.apply(current.events, page_fields)
            field = sorted(page_fields)[0] if len(page_fields) == 1 else "arguments"
            raise ToolError("bad-arg", f"the browser refused it: {err.message}", field=field) from err
        assert session.wiring is not None

        async def others(cdp: TargetLink, kind: str) -> None:
            if cdp is not current.events:
                await emulation.apply(cdp, page_fields)

        await session.wiring.reapply(others)
    if "permissions" in changed:
        await emulation.permissions()
    reply = Reply.of(emulation=dict(emulation.state), changed=asked, warnings=[])
    if emulation.state.get("geolocation") and "geolocation" not in (emulation.state.get("permissions") or ()):
        reply.warn("pages read the emulated position only with the geolocation permission: add it to permissions")
    return reply


