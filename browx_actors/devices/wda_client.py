"""A thin WebDriverAgent client: httpx's AsyncClient on the Trio backend.

WebDriverAgent (the operator builds and runs it for the simulator; browx never bundles
it) is an HTTP server speaking a JSON dialect of WebDriver: every reply is
``{"value": ..., "sessionId": ...}``, and an error puts ``{"error", "message",
"traceback"}`` in ``value``. Coordinates are points, not pixels (``screen().scale``
converts).

The wire shapes live in one place, the *commands* section below: one function per WDA
endpoint builds a :class:`WdaCommand`, and one per reply reads its ``value``. The
client only moves commands over HTTP and turns failures into :class:`ToolError`:

* nothing listening (connection refused, no route, DNS) is ``wda-unreachable``,
  naming the URL and the fix; a connection that drops mid-command is too, since WDA
  crashed or was stopped;
* a WDA error reply is ``wda-error`` carrying WDA's own ``error`` (``wdaError``) and
  message, and so is a reply that is not WDA's JSON at all (another server on the port);
* a command that outlives the caller's ``timeout`` is ``timeout``.

Every call takes ``timeout`` from its caller, which derives it from the tool call's
deadline; there is no default, so no call can wait longer than the call it serves.
The deadline bounds the whole exchange (connect, send, wait, read), not each phase.

``trust_env`` is off: an ``HTTP_PROXY`` in the environment must not route loopback
traffic to the simulator through a proxy. An ``https`` URL is verified as usual.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager

import attrs
import httpx
import trio

from ..errors import ToolError
from ..jsonsafe import JsonObject, JsonValue
from .nodes import NativeNode, too_deep
from .wda_source import MalformedSource, parse_source

__all__ = [
    "WDA_URL_DEFAULT",
    "WdaClient",
    "WdaCommand",
    "WdaScreen",
    "WdaStatus",
    "open_wda_client",
]


#: Where WebDriverAgent listens unless BROWX_IOS_WDA_URL says otherwise.
WDA_URL_DEFAULT = "http://127.0.0.1:8100"

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


# -- commands: every wire shape, in one place ----------------------------------------


@attrs.frozen
class WdaCommand:
    """One WDA request: method, path (under ``/session/{id}`` when ``in_session``), JSON body."""

    method: str
    path: str
    body: Mapping[str, JsonValue] | None = None
    params: Mapping[str, str] | None = None
    in_session: bool = False

    @property
    def label(self) -> str:
        return f"{self.method} {self.path}"


@attrs.frozen
class WdaStatus:
    """``GET /status``: whether WDA takes commands, and what it runs on."""

    ready: bool
    state: str
    message: str
    os_name: str | None
    os_version: str | None
    simulator_version: str | None
    build: Mapping[str, JsonValue]


@attrs.frozen
class WdaScreen:
    """``GET /wda/screen``: the screen in points and the pixels per point."""

    width: float
    height: float
    scale: float

    def to_pixels(self, x: float, y: float) -> tuple[float, float]:
        return x * self.scale, y * self.scale


def _post(path: str, body: Mapping[str, JsonValue]) -> WdaCommand:
    return WdaCommand("POST", path, body, in_session=True)


def status_command() -> WdaCommand:
    return WdaCommand("GET", "/status")


def create_session_command(bundle_id: str) -> WdaCommand:
    return WdaCommand("POST", "/session", {"capabilities": {"alwaysMatch": {"bundleId": bundle_id}}})


def source_command() -> WdaCommand:
    return WdaCommand("GET", "/source", params={"format": "json"})


def screenshot_command() -> WdaCommand:
    return WdaCommand("GET", "/screenshot")


def screen_command() -> WdaCommand:
    return WdaCommand("GET", "/wda/screen")


def tap_command(x: float, y: float) -> WdaCommand:
    return _post("/wda/tap", {"x": x, "y": y})


def double_tap_command(x: float, y: float) -> WdaCommand:
    return _post("/wda/doubleTap", {"x": x, "y": y})


def active_app_command() -> WdaCommand:
    return WdaCommand("GET", "/wda/activeAppInfo")


def delete_session_command() -> WdaCommand:
    return WdaCommand("DELETE", "", in_session=True)


def touch_and_hold_command(x: float, y: float, seconds: float) -> WdaCommand:
    return _post("/wda/touchAndHold", {"x": x, "y": y, "duration": seconds})


def drag_command(from_x: float, from_y: float, to_x: float, to_y: float, seconds: float) -> WdaCommand:
    # WDA presses at the start for `duration` seconds, then drags (XCUICoordinate's
    # pressForDuration:thenDragToCoordinate:).
    return _post("/wda/dragfromtoforduration",
                 {"fromX": from_x, "fromY": from_y, "toX": to_x, "toY": to_y, "duration": seconds})


def pinch_command(scale: float, velocity: float) -> WdaCommand:
    # scale < 1 pinches in; velocity is scale factor per second, negative when pinching in.
    return _post("/wda/pinch", {"scale": scale, "velocity": velocity})


def actions_command(actions: list[JsonObject]) -> WdaCommand:
    """W3C actions (``POST /session/{id}/actions``): several pointers at once."""
    return _post("/actions", {"actions": list[JsonValue](actions)})


def keys_command(text: str) -> WdaCommand:
    # WDA joins the list, so one item carries the whole text.
    return _post("/wda/keys", {"value": [text]})


def press_button_command(name: str) -> WdaCommand:
    return _post("/wda/pressButton", {"name": name})


def launch_app_command(bundle_id: str) -> WdaCommand:
    return _post("/wda/apps/launch", {"bundleId": bundle_id})


def terminate_app_command(bundle_id: str) -> WdaCommand:
    return _post("/wda/apps/terminate", {"bundleId": bundle_id})


def open_url_command(url: str) -> WdaCommand:
    return _post("/url", {"url": url})


def _status_from(value: Mapping[str, JsonValue]) -> WdaStatus:
    os_info, ios_info, build = (_mapping(value.get(key)) for key in ("os", "ios", "build"))
    state = str(value.get("state", ""))
    return WdaStatus(
        # Builds before `ready` existed said only state "success".
        ready=bool(value.get("ready", state == "success")),
        state=state,
        message=str(value.get("message", "")),
        os_name=os_info.get("name"),
        os_version=os_info.get("version"),
        simulator_version=ios_info.get("simulatorVersion"),
        build=build,
    )


def _mapping(value: object) -> Mapping[str, JsonValue]:
    return value if isinstance(value, Mapping) else {}


def _session_id_from(reply: Mapping[str, JsonValue]) -> str | None:
    value = reply.get("value")
    session_id = value.get("sessionId") if isinstance(value, Mapping) else None
    session_id = session_id or reply.get("sessionId")
    return session_id if isinstance(session_id, str) and session_id else None


def _screen_from(value: Mapping[str, JsonValue]) -> WdaScreen:
    size = value["screenSize"]
    return WdaScreen(float(size["width"]), float(size["height"]), float(value["scale"]))


# -- the client ----------------------------------------------------------------------


@asynccontextmanager
async def open_wda_client(url: str = WDA_URL_DEFAULT) -> AsyncIterator[WdaClient]:
    """A client for the WDA at ``url``, with its own connection pool, closed on exit."""
    base = httpx.URL(url)
    if base.scheme not in ("http", "https") or not base.host:
        raise ToolError("bad-arg", f"BROWX_IOS_WDA_URL={url!r} is not an http URL (the default is "
                        f"{WDA_URL_DEFAULT})", field="BROWX_IOS_WDA_URL")
    # Loading the CA bundle costs 70-300 ms per client; a plain-http WDA never uses it.
    verify = base.scheme == "https"
    async with httpx.AsyncClient(base_url=url.rstrip("/"), timeout=None, trust_env=False, verify=verify) as http:
        yield WdaClient(url.rstrip("/"), http)


class WdaClient:
    """The commands a session sends to one WebDriverAgent, each under its caller's timeout."""

    def __init__(self, url: str, http: httpx.AsyncClient) -> None:
        self.url = url
        self._http = http
        #: The WDA session :meth:`create_session` opened; commands on the app need one.
        self.session_id: str | None = None

    async def status(self, *, timeout: float) -> WdaStatus:
        return _status_from(_object(await self.value(status_command(), timeout=timeout), "status"))

    async def create_session(self, bundle_id: str, *, timeout: float) -> str:
        """Open a WDA session on ``bundle_id`` (WDA launches it) and keep its id."""
        command = create_session_command(bundle_id)
        session_id = _session_id_from(await self.execute(command, timeout=timeout))
        if session_id is None:
            raise ToolError("wda-error", f"WebDriverAgent at {self.url} opened a session without an id",
                            command=command.label)
        self.session_id = session_id
        return session_id

    async def source(self, *, timeout: float) -> NativeNode:
        """The active app's hierarchy, read freshly, as a NativeNode tree."""
        tree = await self.value(source_command(), timeout=timeout)
        try:
            return parse_source(tree)
        except MalformedSource as error:
            raise ToolError("wda-error", f"WebDriverAgent at {self.url} sent a source tree that is not "
                            f"XCUITest's: {error}", command=source_command().label) from None

    async def screenshot(self, *, timeout: float) -> bytes:
        """The screen as PNG bytes, in pixels."""
        encoded = await self.value(screenshot_command(), timeout=timeout)
        try:
            png = base64.b64decode(encoded, validate=True) if isinstance(encoded, str) else b""
        except binascii.Error:
            png = b""
        if not png.startswith(_PNG_SIGNATURE):
            raise ToolError("wda-error", f"WebDriverAgent at {self.url} sent a screenshot that is not a "
                            "base64 PNG", command=screenshot_command().label)
        return png

    async def screen(self, *, timeout: float) -> WdaScreen:
        value = _object(await self.value(screen_command(), timeout=timeout), "screen")
        try:
            return _screen_from(value)
        except (KeyError, TypeError, ValueError):
            raise ToolError("wda-error", f"WebDriverAgent at {self.url} sent no screenSize and scale",
                            command=screen_command().label) from None

    async def tap(self, x: float, y: float, *, timeout: float) -> None:
        await self.execute(tap_command(x, y), timeout=timeout)

    async def double_tap(self, x: float, y: float, *, timeout: float) -> None:
        await self.execute(double_tap_command(x, y), timeout=timeout)

    async def active_app(self, *, timeout: float) -> Mapping[str, JsonValue]:
        """``GET /wda/activeAppInfo``: the frontmost app's ``bundleId``, ``name``, ``pid``."""
        return _object(await self.value(active_app_command(), timeout=timeout), "activeAppInfo")

    async def delete_session(self, *, timeout: float) -> None:
        """End the WDA session (the app keeps running)."""
        if self.session_id is not None:
            await self.execute(delete_session_command(), timeout=timeout)
            self.session_id = None

    async def touch_and_hold(self, x: float, y: float, seconds: float, *, timeout: float) -> None:
        await self.execute(touch_and_hold_command(x, y, seconds), timeout=timeout)

    async def drag(self, from_x: float, from_y: float, to_x: float, to_y: float, seconds: float, *,
                   timeout: float) -> None:
        await self.execute(drag_command(from_x, from_y, to_x, to_y, seconds), timeout=timeout)

    async def pinch(self, scale: float, velocity: float, *, timeout: float) -> None:
        await self.execute(pinch_command(scale, velocity), timeout=timeout)

    async def perform_actions(self, actions: list[JsonObject], *, timeout: float) -> None:
        await self.execute(actions_command(actions), timeout=timeout)

    async def keys(self, text: str, *, timeout: float) -> None:
        """Type ``text`` into whatever has keyboard focus."""
        await self.execute(keys_command(text), timeout=timeout)

    async def press_button(self, name: str, *, timeout: float) -> None:
        """A hardware button by WDA's name (``home``; volume buttons only on devices)."""
        await self.execute(press_button_command(name), timeout=timeout)

    async def launch_app(self, bundle_id: str, *, timeout: float) -> None:
        await self.execute(launch_app_command(bundle_id), timeout=timeout)

    async def terminate_app(self, bundle_id: str, *, timeout: float) -> bool:
        """Whether the app was running and is now terminated."""
        return (await self.value(terminate_app_command(bundle_id), timeout=timeout)) is True

    async def open_url(self, url: str, *, timeout: float) -> None:
        """Open a deep link (any URL scheme the simulator can route)."""
        await self.execute(open_url_command(url), timeout=timeout)

    async def value(self, command: WdaCommand, *, timeout: float) -> JsonValue:
        """The ``value`` of the reply to ``command``."""
        return (await self.execute(command, timeout=timeout)).get("value")

    async def execute(self, command: WdaCommand, *, timeout: float) -> Mapping[str, JsonValue]:
        """Send ``command`` and return WDA's whole reply; any failure is a ToolError."""
        path = command.path
        if command.in_session:
            if self.session_id is None:
                raise RuntimeError(f"{command.label} needs a WDA session: call create_session first")
            path = f"/session/{self.session_id}{path}"
        try:
            with trio.fail_after(max(timeout, 0)):
                response = await self._http.request(command.method, path, json=command.body, params=command.params)
        except trio.TooSlowError:
            raise ToolError("timeout", f"WebDriverAgent at {self.url} did not answer {command.label} within "
                            f"{timeout:g} s", command=command.label) from None
        except httpx.ConnectError as error:
            raise ToolError("wda-unreachable", f"nothing answers at {self.url} ({error or 'connection refused'}): "
                            "build and run WebDriverAgent for the simulator and point BROWX_IOS_WDA_URL at it",
                            url=self.url) from None
        except httpx.TransportError as error:
            raise ToolError("wda-unreachable", f"WebDriverAgent at {self.url} dropped the connection during "
                            f"{command.label} ({type(error).__name__}: {error}); is it still running?",
                            url=self.url, command=command.label) from None
        return self._reply(command, response)

    def _reply(self, command: WdaCommand, response: httpx.Response) -> Mapping[str, JsonValue]:
        try:
            reply = response.json()
        except RecursionError:
            # JSON nested past what the decoder recurses into: a source tree far deeper
            # than the readers take (nodes.MAX_DEPTH), refused before it is walked.
            is_source = command.label == source_command().label
            raise too_deep("WebDriverAgent source" if is_source else f"WebDriverAgent's reply to {command.label}") \
                from None
        except ValueError:
            reply = None
        if not isinstance(reply, dict) or "value" not in reply:
            raise ToolError("wda-error", f"{self.url} answered {command.label} with HTTP {response.status_code} "
                            f"that is not WebDriverAgent's JSON: {response.text[:200]!r}",
                            command=command.label, status=response.status_code)
        value = reply["value"]
        if isinstance(value, dict) and isinstance(value.get("error"), str):
            message = str(value.get("message") or "no message").strip()
            raise ToolError("wda-error", f"WebDriverAgent refused {command.label}: {value['error']}: {message}",
                            wdaError=value["error"], command=command.label, status=response.status_code)
        if response.is_error:
            raise ToolError("wda-error", f"WebDriverAgent answered {command.label} with HTTP "
                            f"{response.status_code} and no error", command=command.label,
                            status=response.status_code)
        return reply


def _object(value: object, what: str) -> Mapping[str, JsonValue]:
    if not isinstance(value, Mapping):
        raise ToolError("wda-error", f"WebDriverAgent's {what} reply is {type(value).__name__}, not an object")
    return value
