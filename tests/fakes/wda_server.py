"""A WebDriverAgent peer on loopback: WDA's real JSON over HTTP, over a scripted shop app.

It answers the way appium/WebDriverAgent does, shape for shape: every reply is
``{"value": ..., "sessionId": ...}``; an error is ``{"error", "message", "traceback"}``
in ``value`` with WDA's HTTP status (400 invalid argument, 404 invalid session id and
unknown command, 500 unknown error and session not created); the JSON source names types
in short form (``Button``), carries ``rawIdentifier`` (null when empty), ``name``
(identifier, else label), ``label``, ``value`` (WDA's rules: a text field's value falls
back to its placeholder, a switch's is ``"1"``/``"0"``), ``rect`` in points, ``frame``,
``isEnabled`` / ``isVisible`` / ``isAccessible`` / ``isFocused`` as ``"1"``/``"0"``,
``traits``, ``placeholderValue`` on text inputs and ``children`` only when there are
some. ``GET /source`` without ``format`` answers XML, as WDA does.

The device is an iPhone 15 (393 x 852 points, scale 3) running ``com.example.shop``
(:mod:`fakes.wda_shop`): a login screen whose fields carry testIDs, a product list with
two "Add to cart" buttons (one label, two nodes), a promo banner that moves the
testID'd checkout button when toggled, nodes without identifiers, a checkout screen
and an alert. Taps land on whatever element is under the point, text typed with
``/wda/keys`` goes to the focused field, and ``home`` goes to the home screen. Every
request is recorded in :attr:`WdaModel.requests`, every tap's point in
:attr:`WdaModel.taps`; :meth:`WdaModel.fail_next` scripts a WDA error for a path.

:meth:`WdaModel.record` installs an app whose one screen is a recorded JSON source (a
real app's, :mod:`fakes.wda_xml`): the peer serves that tree as it is, in JSON and as
XML, paints it, and takes taps on it, which change nothing.

In-process: ``with serve_wda() as (url, model): ...``. On its own, so the ios-app
engine can be tried with no Mac: ``python -m tests.fakes.wda_server --port 8100``.
"""

from __future__ import annotations

import argparse
import base64
import copy
import io
import json
import re
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit
from xml.etree import ElementTree

import attrs
from PIL import Image, ImageDraw

from .wda_shop import SHOP, Element, ShopApp, home_screen

__all__ = ["Request", "WdaError", "WdaModel", "serve_wda"]

SPRINGBOARD = "com.apple.springboard"
_SESSION = re.compile(r"^/session/([^/]+)(/.*)?$")
#: WDA's error names and their HTTP statuses (FBCommandStatus).
_STATUS = {"invalid argument": 400, "invalid element state": 400, "invalid selector": 400,
           "invalid coordinates": 400, "element not visible": 400, "no such element": 404,
           "stale element reference": 404, "no such alert": 404, "invalid session id": 404, "unknown command": 404,
           "unknown method": 405, "timeout": 408, "unknown error": 500, "session not created": 500,
           "unable to capture screen": 500, "unexpected alert open": 500, "unsupported operation": 500}


@attrs.frozen
class Request:
    """One request as the peer received it."""

    method: str
    path: str
    query: dict[str, str]
    body: Any


class WdaError(Exception):
    """A WDA error reply: its error name (which fixes the HTTP status) and message."""

    def __init__(self, error: str, message: str) -> None:
        super().__init__(message)
        self.error = error
        self.message = message


@attrs.define
class WdaModel:
    """The simulator as WDA sees it: screen, apps, the session, and every request."""

    width: float = 393
    height: float = 852
    scale: float = 3
    installed: set[str] = attrs.field(factory=lambda: {SHOP, "com.apple.Preferences", "com.apple.mobilesafari"})
    shop: ShopApp = attrs.field(factory=ShopApp)
    active: str = SPRINGBOARD
    session_id: str | None = None
    requests: list[Request] = attrs.field(factory=list)
    taps: list[tuple[float, float]] = attrs.field(factory=list)
    #: Recorded apps by bundle id: WDA's JSON source of their one screen.
    recorded: dict[str, dict[str, Any]] = attrs.field(factory=dict)
    _failures: dict[str, list[tuple[str, str]]] = attrs.field(factory=dict)
    _lock: threading.RLock = attrs.field(factory=threading.RLock)
    _png_cache: tuple[str, bytes] | None = None

    def fail_next(self, path: str, error: str = "unknown error", message: str = "scripted failure") -> None:
        """Answer the next request whose path ends with ``path`` with this WDA error."""
        with self._lock:
            self._failures.setdefault(path, []).append((error, message))

    def paths(self, method: str | None = None) -> list[str]:
        """The paths requested so far (of one method), in order."""
        return [r.path for r in self.requests if method is None or r.method == method]

    def record(self, bundle_id: str, tree: dict[str, Any]) -> None:
        """Install ``bundle_id`` with ``tree`` (a JSON source value) as its screen, bring it
        to the front, and take the screen size from the tree's root, as the device had it."""
        self.recorded[bundle_id] = tree
        self.installed.add(bundle_id)
        self.active = bundle_id
        self.width, self.height = tree["rect"]["width"], tree["rect"]["height"]

    def tree(self) -> Element:
        if self.active == SHOP:
            return self.shop.tree(self.width, self.height)
        return home_screen(self.width, self.height, open_shop=lambda: setattr(self, "active", SHOP))

    def source_tree(self) -> dict[str, Any]:
        """The active screen as WDA's JSON source: a recorded app's tree as it is."""
        recorded = self.recorded.get(self.active)
        return copy.deepcopy(recorded) if recorded is not None else self.tree().to_wda()

    def handle(self, method: str, target: str, body: Any) -> tuple[int, dict[str, Any]]:
        """Answer one request: (HTTP status, reply)."""
        parts = urlsplit(target)
        query = {key: values[-1] for key, values in parse_qs(parts.query).items()}
        with self._lock:
            self.requests.append(Request(method, parts.path, query, body))
            try:
                value = self._route(method, parts.path, query, body)
            except WdaError as error:
                failure = {"error": error.error, "message": error.message, "traceback": ""}
                return _STATUS.get(error.error, 500), {"value": failure, "sessionId": self.session_id}
            return 200, {"value": value, "sessionId": self.session_id}

    def _route(self, method: str, path: str, query: dict[str, str], body: Any) -> Any:
        for suffix, failures in self._failures.items():
            if path.endswith(suffix) and failures:
                raise WdaError(*failures.pop(0))
        if body is _BAD_JSON:
            raise WdaError("invalid argument", "The request body is not valid JSON")
        args = body if isinstance(body, dict) else {}
        in_session = _SESSION.match(path)
        if in_session:
            if in_session.group(1) != self.session_id:
                raise WdaError("invalid session id", "Session does not exist")
            path = in_session.group(2) or ""
        route = (method, path)
        if route == ("GET", "/status") and not in_session:
            return self._status()
        if route == ("POST", "/session") and not in_session:
            return self._create_session(args)
        if in_session and route == ("DELETE", ""):
            self.session_id = None
            return None
        if route == ("GET", "/source"):
            return self._source(query.get("format", "xml"))
        if route == ("GET", "/screenshot"):
            return base64.b64encode(self._screenshot()).decode("ascii")
        if route == ("GET", "/wda/activeAppInfo"):
            return {"bundleId": self.active, "name": self._app_name(),
                    "pid": 41000 if self.active == SHOP else 60, "processArguments": {"env": {}, "args": []}}
        if route == ("GET", "/wda/screen"):
            return {"screenSize": {"width": self.width, "height": self.height},
                    "statusBarSize": {"width": self.width, "height": 54}, "scale": self.scale}
        if in_session and method == "POST" and path in _SESSION_COMMANDS:
            return getattr(self, _SESSION_COMMANDS[path])(args)
        raise WdaError("unknown command", f"Unhandled endpoint: {path} with parameters {json.dumps(args)}")

    def _status(self) -> dict[str, Any]:
        return {"ready": True, "message": "WebDriverAgent is ready to accept commands", "state": "success",
                "os": {"name": "iOS", "version": "17.5", "sdkVersion": "17.5", "testmanagerdVersion": 65535},
                "ios": {"simulatorVersion": "17.5", "ip": None},
                "build": {"time": "Jun  3 2026 10:00:00", "version": "9.9.0",
                          "productBundleIdentifier": "com.facebook.WebDriverAgentRunner"},
                "device": "iphone"}

    def _app_name(self) -> str:
        if self.active in self.recorded:
            return self.recorded[self.active].get("label") or ""
        return "Shop" if self.active == SHOP else ""

    def _create_session(self, args: dict[str, Any]) -> dict[str, Any]:
        capabilities = args.get("capabilities")
        if not isinstance(capabilities, dict):
            raise WdaError("session not created", "'capabilities' is mandatory to create a new session")
        bundle_id = (capabilities.get("alwaysMatch") or {}).get("bundleId")
        if bundle_id is not None:
            self._launch({"bundleId": bundle_id})
        self.session_id = str(uuid.uuid4()).upper()
        return {"sessionId": self.session_id,
                "capabilities": {"device": "iphone", "sdkVersion": "17.5", "browserName": "Shop",
                                 "CFBundleIdentifier": bundle_id or SPRINGBOARD}}

    def _source(self, form: str) -> Any:
        if form.lower() == "json":
            return self.source_tree()
        if form.lower() == "xml":
            return _xml(self.source_tree())
        raise WdaError("invalid argument", f"Unknown source format '{form}'. Only (xml, json, description) "
                       "source formats are supported.")

    def _point(self, args: dict[str, Any]) -> tuple[float, float]:
        x, y = args.get("x"), args.get("y")
        if not all(isinstance(n, int | float) and not isinstance(n, bool) for n in (x, y)):
            raise WdaError("invalid argument", "Both x and y coordinates must be provided")
        return float(x), float(y)  # type: ignore[arg-type]

    def _tap(self, args: dict[str, Any]) -> None:
        point = self._point(args)
        self.taps.append(point)
        if self.active in self.recorded:
            return
        target = self.tree().hit(*point)
        if target is not None and target.on_tap is not None:
            target.on_tap()

    def _double_tap(self, args: dict[str, Any]) -> None:
        for _ in range(2):
            self._tap(args)

    def _touch_and_hold(self, args: dict[str, Any]) -> None:
        self._point(args)

    def _drag(self, args: dict[str, Any]) -> None:
        if not all(isinstance(args.get(k), int | float) for k in ("fromX", "fromY", "toX", "toY", "duration")):
            raise WdaError("invalid argument", "fromX, fromY, toX, toY and duration are mandatory")

    def _pinch(self, args: dict[str, Any]) -> None:
        if not isinstance(args.get("scale"), int | float) or not isinstance(args.get("velocity"), int | float):
            raise WdaError("invalid argument", "scale and velocity are mandatory")

    def _actions(self, args: dict[str, Any]) -> None:
        """W3C actions: touch pointers only, as WDA's synthesiser takes them."""
        chains = args.get("actions")
        if not isinstance(chains, list) or not chains:
            raise WdaError("invalid argument", "'actions' parameter is mandatory and must be a non-empty array")
        for chain in chains:
            if not isinstance(chain, dict) or chain.get("type") != "pointer":
                raise WdaError("invalid argument", f"Only 'pointer' action chains are supported. '{chain}' is given")
            kind = (chain.get("parameters") or {}).get("pointerType", "mouse")
            if kind != "touch":
                raise WdaError("invalid argument", f"'{kind}' pointer type is not supported. Only 'touch' is")
            for step in chain.get("actions") or ():
                if step.get("type") not in ("pointerMove", "pointerDown", "pointerUp", "pause"):
                    raise WdaError("invalid argument", f"Action item type '{step.get('type')}' is not supported")
                if step["type"] == "pointerMove":
                    self._point(step)

    def _keys(self, args: dict[str, Any]) -> None:
        value = args.get("value")
        if not isinstance(value, list) or not all(isinstance(part, str) for part in value):
            raise WdaError("invalid argument", "'value' must be an array of strings")
        if self.active != SHOP or not self.shop.type_text("".join(value)):
            raise WdaError("invalid element state", 'Error Domain=com.facebook.WebDriverAgent Code=1 "The on-screen '
                           'keyboard must be present to send keys" UserInfo={NSLocalizedDescription=The on-screen '
                           "keyboard must be present to send keys}")

    def _press_button(self, args: dict[str, Any]) -> None:
        if str(args.get("name", "")).lower() != "home":
            raise WdaError("unknown error", f"The button '{args.get('name')}' is not supported. The device under "
                           "test only supports the following buttons: (\n    home\n)")
        self.active = SPRINGBOARD

    def _launch(self, args: dict[str, Any]) -> None:
        bundle_id = args.get("bundleId")
        if bundle_id not in self.installed:
            raise WdaError("unknown error", f"The application '{bundle_id}' is not installed on the device under test")
        if bundle_id == SHOP:
            self.shop = ShopApp()  # XCUIApplication.launch starts it afresh
        self.active = bundle_id

    def _terminate(self, args: dict[str, Any]) -> bool:
        was_running = args.get("bundleId") == self.active != SPRINGBOARD
        if was_running:
            self.active = SPRINGBOARD
        return was_running

    def _open_url(self, args: dict[str, Any]) -> None:
        url = args.get("url")
        if not isinstance(url, str):
            raise WdaError("invalid argument", "URL is required")
        if not self.shop.open_url(url):
            raise WdaError("unknown error", f"Error Domain=com.facebook.WebDriverAgent Code=1 \"The URL '{url}' "
                           "cannot be opened: no app handles its scheme\"")
        self.active = SHOP

    def _screenshot(self) -> bytes:
        tree = self.source_tree()
        key = json.dumps(tree, sort_keys=True)
        if self._png_cache is None or self._png_cache[0] != key:
            self._png_cache = (key, _paint(tree, self.width, self.height, self.scale))
        return self._png_cache[1]


_SESSION_COMMANDS = {"/wda/tap": "_tap", "/wda/doubleTap": "_double_tap", "/wda/touchAndHold": "_touch_and_hold",
                     "/wda/dragfromtoforduration": "_drag", "/wda/pinch": "_pinch", "/actions": "_actions",
                     "/wda/keys": "_keys",
                     "/wda/pressButton": "_press_button", "/wda/apps/launch": "_launch",
                     "/wda/apps/terminate": "_terminate", "/url": "_open_url"}
_BAD_JSON = object()


def _xml(root: dict[str, Any]) -> str:
    """WDA's XML source of a JSON source tree: the same element dictionaries, as attributes."""
    def build(wda: dict[str, Any], index: int) -> ElementTree.Element:
        x = ElementTree.Element(f"XCUIElementType{wda['type']}")
        for key in ("type", "name", "label", "value"):
            if wda.get(key) is not None:
                x.set(key, f"XCUIElementType{wda['type']}" if key == "type" else wda[key])
        for key, flag in (("enabled", "isEnabled"), ("visible", "isVisible"), ("accessible", "isAccessible")):
            if flag in wda:
                x.set(key, "true" if wda[flag] == "1" else "false")
        for key in ("x", "y", "width", "height"):
            x.set(key, format(wda["rect"][key], "g"))
        x.set("index", str(index))
        x.extend(build(child, i) for i, child in enumerate(wda.get("children", ())))
        return x

    document = ElementTree.Element("AppiumAUT")
    document.append(build(root, 0))
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(document, encoding="unicode")


def _paint(root: dict[str, Any], width: float, height: float, scale: float) -> bytes:
    """A real PNG of the screen in pixels: each control a box, so screens differ."""
    image = Image.new("RGB", (round(width * scale), round(height * scale)), (242, 242, 247))
    draw = ImageDraw.Draw(image)
    for element in _walk(root):
        if element["type"] in ("Button", "TextField", "SecureTextField", "TextView", "Switch", "Cell", "Key", "Icon"):
            x, y, w, h = (element["rect"][key] * scale for key in ("x", "y", "width", "height"))
            fill = (0, 122, 255) if element["type"] in ("Button", "Key") else (255, 255, 255)
            draw.rectangle((x, y, x + w, y + h), fill=fill, outline=(60, 60, 67), width=2)
    buffer = io.BytesIO()
    image.save(buffer, "PNG", compress_level=1)
    return buffer.getvalue()


def _walk(tree: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield tree
    for child in tree.get("children", ()):
        yield from _walk(child)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes: without this, Nagle and delayed ACKs
    # hold every reply on a kept-alive connection for ~40 ms.
    disable_nagle_algorithm = True
    timeout = 10
    server: _Server

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw.strip() else None
        except ValueError:
            body = _BAD_JSON
        status, reply = self.server.model.handle(self.command, self.path, body)
        payload = json.dumps(reply).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json;charset=UTF-8")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = do_DELETE = _answer

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.verbose:
            super().log_message(format, *args)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], model: WdaModel, verbose: bool = False) -> None:
        super().__init__(address, _Handler)
        self.model = model
        self.verbose = verbose


@contextmanager
def serve_wda(model: WdaModel | None = None, *, host: str = "127.0.0.1",
              port: int = 0) -> Iterator[tuple[str, WdaModel]]:
    """Run the peer on a thread; yield its URL and its model."""
    model = WdaModel() if model is None else model
    server = _Server((host, port), model)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield f"http://{host}:{server.server_address[1]}", model
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def main() -> None:
    parser = argparse.ArgumentParser(description="A fake WebDriverAgent on loopback (the shop app).")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8100)
    parser.add_argument("--verbose", action="store_true", help="log every request")
    options = parser.parse_args()
    server = _Server((options.host, options.port), WdaModel(), options.verbose)
    print(f"fake WebDriverAgent at http://{options.host}:{server.server_address[1]} "
          f"(app {SHOP}); BROWX_IOS_WDA_URL=http://{options.host}:{server.server_address[1]}; Ctrl-C stops",
          flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
