"""Sessions and the runtime: open_session, close_session, list_sessions, register_secret,
runtime_status, and tool.batch.

These are runtime tools: they run in the dispatching task with the runtime's context,
not inside a session (``open_session`` starts one; ``tool.batch`` sends each of its
calls back through the dispatch).
"""

from __future__ import annotations

import re

from ..errors import ToolError
from .arguments import Arguments, NoArgs, arg, arguments, param
from .contract import CHANGES, DESTROYS, OPENS, READS, RUNS, SessionArgs, runtime_tool, session_param
from .page import PERMISSION_NAMES, check_timezone
from .rules import CapabilityWhen, Check, JsonArgs
from .shapes import BatchCall, Size

__all__ = ["BATCH_NAME", "BROWSER_ENGINES", "CONTEXT_FIELDS", "ENGINES", "MAX_CALLS", "NATIVE_ENGINES", "PROXY_KEYS"]

#: What open_session's ``engine`` may be.
ENGINES = ("chromium", "firefox", "android-app", "ios-app", "chrome-android", "webkit", "safari")
#: Engines whose session is a browser context with a viewport of its own.
BROWSER_ENGINES = ("chromium", "firefox")
#: Engines that drive a device and need the native-device capability to open.
NATIVE_ENGINES = ("android-app", "ios-app", "chrome-android")
#: The most calls one batch holds.
MAX_CALLS = 32
BATCH_NAME = "tool.batch"


def _known_engine(args: JsonArgs) -> None:
    if args["engine"] not in ENGINES:
        raise ToolError("unknown-engine", f"unknown engine {args['engine']!r} (engines: {', '.join(ENGINES)})",
                        engine=args["engine"])


def _endpoint_engine(args: JsonArgs) -> None:
    if args.get("cdpEndpoint") and args["engine"] != "chromium":
        raise ToolError("bad-arg", "cdpEndpoint attaches a chromium session; drop engine or cdpEndpoint",
                        field="cdpEndpoint")


def _endpoint_context(args: JsonArgs) -> None:
    # An attached chromium session works in the browser's own context, made before us.
    for field in CONTEXT_FIELDS[1:]:
        if args.get("cdpEndpoint") and args.get(field) not in (None, False):
            raise ToolError("bad-arg", f"cdpEndpoint uses the browser's own context, made without {field}; "
                            "drop one", field=field)


def _bidi_endpoint_engine(args: JsonArgs) -> None:
    if args.get("bidiEndpoint") and args["engine"] != "firefox":
        raise ToolError("bad-arg", "bidiEndpoint attaches a firefox session; pass engine firefox or drop it",
                        field="bidiEndpoint")


def _endpoint_profile(args: JsonArgs) -> None:
    # An attached browser runs on its own profile; a userDataDir runs a browser of the session's own.
    if args.get("bidiEndpoint") and args.get("userDataDir"):
        raise ToolError("bad-arg", "bidiEndpoint works in the attached Firefox's profile, and userDataDir runs a "
                        "Firefox of the session's own; drop one", field="userDataDir")


#: open_session's arguments that shape a browser context: for chromium and firefox only.
CONTEXT_FIELDS = ("viewport", "device", "userAgent", "locale", "timezone", "colorScheme", "ignoreHttpsErrors",
                  "storageState", "permissions", "initScript", "blockServiceWorkers", "proxy", "userDataDir")


def _context_for_browsers(args: JsonArgs) -> None:
    if args["engine"] in BROWSER_ENGINES:
        return
    for field in CONTEXT_FIELDS:
        if args.get(field) not in (None, False):
            raise ToolError("bad-arg", f"a {args['engine']} session drives a device as it is: {field} is for "
                            "chromium and firefox sessions", field=field)


def _known_permissions(args: JsonArgs) -> None:
    # Checked here, not as an enum: the listing carries emulate's names once, not twice.
    for name in args.get("permissions") or ():
        if name not in PERMISSION_NAMES:
            raise ToolError("bad-arg", f"permissions: unknown permission {name!r}; one of "
                            f"{', '.join(PERMISSION_NAMES)}", field="permissions")


#: proxy's keys: Playwright's (and chromium's new_context's) own.
PROXY_KEYS = ("server", "bypass", "username", "password")


def _proxy_shape(args: JsonArgs) -> None:
    proxy = args.get("proxy")
    if proxy is None:
        return
    for key, value in proxy.items():
        if key not in PROXY_KEYS:
            raise ToolError("bad-arg", f"proxy.{key}: a proxy has {', '.join(PROXY_KEYS)}", field=f"proxy.{key}")
        if not isinstance(value, str) or len(value) > 2000:
            raise ToolError("bad-arg", f"proxy.{key} is a string of at most 2000 characters", field=f"proxy.{key}")
    if not re.fullmatch(r"(https?|socks[45])://[^\s/@]+:\d{1,5}", proxy.get("server", "")):
        raise ToolError("bad-arg", "proxy.server is scheme://host:port (http, https, socks4 or socks5)",
                        field="proxy.server")
    if "password" in proxy and "username" not in proxy:
        raise ToolError("bad-arg", "proxy.password goes with proxy.username", field="proxy.password")


def _calls_are_calls(args: JsonArgs) -> None:
    for index, call in enumerate(args["calls"]):
        field = f"calls[{index}].tool"
        if not call["tool"]:
            raise ToolError("bad-arg", f"{field} must name a tool", field=field)
        if call["tool"] == BATCH_NAME:
            raise ToolError("bad-arg", f"calls[{index}]: a batch cannot hold {BATCH_NAME}", field=field)


@arguments
class OpenSessionArgs(Arguments):
    """open_session's arguments."""

    session: str = arg(session_param("New session id.", required=True))
    engine: str = param("engine", "string", "chromium, firefox, android-app, ios-app or chrome-android.",
                        default="chromium")
    viewport: Size | None = param("viewport", "object", "",
                                  properties={"width": {"type": "integer", "minimum": 100, "maximum": 7680},
                                              "height": {"type": "integer", "minimum": 100, "maximum": 4320}},
                                  required_keys=("width", "height"))
    device: str | None = param("device", "string", "", max_length=100)
    user_agent: str | None = param("userAgent", "string", "", max_length=1000)
    locale: str | None = param("locale", "string", "", max_length=35,
                               pattern="[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*")
    timezone: str | None = param("timezone", "string", "", max_length=64,
                                 pattern="[A-Za-z0-9_+\\-/]+")
    color_scheme: str | None = param("colorScheme", "string", "",
                                     enum=("light", "dark", "no-preference"))
    # No default, so a call's false is told from its silence (the server's default then).
    ignore_https_errors: bool | None = param("ignoreHttpsErrors", "boolean", "")
    storage_state: str | None = param("storageState", "string", "")
    permissions: list[str] | None = param("permissions", "array", "", items="string",
                                          max_items=len(PERMISSION_NAMES))
    init_script: str | None = param("initScript", "string", "")
    block_service_workers: bool | None = param("blockServiceWorkers", "boolean", "")
    # Its keys are checked by a rule and said in the docs: the listing has no room for them.
    proxy: dict[str, str] | None = param("proxy", "object", "")
    user_data_dir: str | None = param("userDataDir", "string", "")
    cdp_endpoint: str | None = param("cdpEndpoint", "string",
                                     "CDP endpoint to attach to.", max_length=2000, pattern="(wss?|https?)://\\S+")
    # Said in the docs, as cdpEndpoint's twin: its listing line went to userDataDir.
    bidi_endpoint: str | None = param("bidiEndpoint", "string", "", max_length=2000, pattern="wss?://\\S+")


OPEN_SESSION = runtime_tool(
    "open_session", OpenSessionArgs,
    title="Open session", capability="navigation", hints=OPENS,
    summary="Open a session: an isolated browser context, or an app or Chrome on a device.",
    description="Open a session: an isolated browser context with its own cookies and storage (chromium), an app on "
        "an Android device (android-app), the same on stock "
        "Firefox over WebDriver BiDi (firefox), an app on an iOS Simulator (ios-app), or Chrome on an Android "
        "device (chrome-android); the device comes from the environment. The session \"default\" opens by "
        "itself on first use, as chromium. cdpEndpoint attaches the session to the "
        "browser at this CDP endpoint (ws://... or http://host:port: a Chrome run with --remote-debugging-port, a "
        "grid, an Electron app) instead of the server's own; it leases one tab there, sees only that tab and its "
        "popups, and closing the session leaves the browser running. bidiEndpoint does the same for a Firefox run with "
        "--remote-debugging-port (engine firefox; ws://host:port/session). viewport is in CSS pixels. "
        "device is a Playwright device name (e.g. iPhone 15, Pixel "
        "7); viewport and userAgent win over the device's. locale is BCP 47, timezone IANA. Firefox refuses "
        "colorScheme and mobile or touch devices (BiDi cannot set them). storageState is a workspace "
        "file (storage_state_save's) loaded at start. permissions (emulate's names) are granted at start; "
        "firefox grants them to each origin the pages go to (BiDi grants per origin). initScript is a workspace "
        ".js file run in each new document before its scripts, as a function body (assign to window for a "
        "global). blockServiceWorkers makes serviceWorker.register resolve to nothing. proxy is {server "
        "(http://host:port or socks5://host:port), bypass (comma-separated hosts), username, password}; the "
        "password is never echoed; on firefox, a proxy with credentials gets a Firefox of its own (Firefox shares "
        "them across its sessions). userDataDir is a workspace folder "
        "holding a persistent profile (cookies, storage, cache kept across sessions and restarts): the session "
        "runs a browser of its own on it (Chromium, or Firefox for engine firefox), one session at a time (a "
        "second is refused, naming userDataDir); not with storageState; \"\" opens without one even when the "
        "server gives a default. The server's session defaults (serve "
        "--device, --viewport-size, ...) fill what the call leaves out; notApplied names those left out: what a "
        "firefox session cannot take, and a default storageState or userDataDir when the call gives the other.",
    rules=(Check(_known_engine, f"`engine` is one of {', '.join(ENGINES)}"),
           Check(_endpoint_engine, "`cdpEndpoint` goes with engine chromium"),
           Check(_endpoint_context, "`cdpEndpoint` goes without `device`, `userAgent`, `locale`, `timezone`, "
                 "`colorScheme`, `ignoreHttpsErrors` and the other context options"),
           Check(_bidi_endpoint_engine, "`bidiEndpoint` goes with engine firefox"),
           Check(_endpoint_profile, "`bidiEndpoint` goes without `userDataDir`"),
           Check(_context_for_browsers, "`viewport`, `device`, `userAgent`, `locale`, `timezone`, `colorScheme` and "
                 "the other context options go with engine `chromium` or `firefox`"),
           Check(check_timezone, "`timezone` is a known IANA time zone"),
           Check(_proxy_shape, "`proxy` has a scheme://host:port `server`, and `bypass`, `username`, `password`"),
           Check(_known_permissions, "`permissions` are names emulate's `permissions` takes"),
           CapabilityWhen("engine", NATIVE_ENGINES, "native-device")),
)


CLOSE_SESSION = runtime_tool(
    "close_session", SessionArgs,
    title="Close session", capability="navigation", hints=DESTROYS,
    summary="Close a session and discard its context, secrets and state.",
)


LIST_SESSIONS = runtime_tool(
    "list_sessions", NoArgs,
    title="List sessions", capability="read", hints=READS,
    summary="List the open sessions with their engine and URL.",
)


@arguments
class RegisterSecretArgs(SessionArgs):
    """register_secret's arguments."""

    name: str = param("name", "string", "Alias: A-Z, 0-9 and _, starting with a letter.", required=True,
                      secrets="keep")
    value: str = param("value", "string", "", required=True, secrets="keep")


REGISTER_SECRET = runtime_tool(
    "register_secret", RegisterSecretArgs,
    title="Register secret", capability="secrets", hints=CHANGES,
    summary="Register a secret to type as <NAME>; results show the alias, never the value.",
    description="Register a secret for a session. Type <NAME> wherever the value is needed; every result shows <NAME>"
        " instead of the value.",
)


RUNTIME_STATUS = runtime_tool(
    "runtime_status", NoArgs,
    title="Runtime status", capability="read", hints=READS,
    summary="Server health: the supervision tree, each child's state, restarts, recent events.",
    description="The supervision tree (every child of the root in start order, with what it knows: recorder counts, "
        "operator link, browser, sessions, and every actor's mailbox statistics), restarts, recent events. A "
        "session on a profile folder (`userDataDir`) runs a browser of its own: its `ownBrowser` gives the pid.",
)


@arguments
class BatchArgs(Arguments):
    """tool.batch's arguments."""

    calls: list[BatchCall] = param("calls", "array", "", required=True, items="object", max_items=MAX_CALLS,
                                   min_items=1, required_keys=("tool",), secrets="keep",
                                   properties={"tool": {"type": "string", "maxLength": 200},
                                               "arguments": {"type": "object"}})
    on_error: str = param("onError", "string", "", default="stop", enum=("stop", "continue"))


BATCH = runtime_tool(
    BATCH_NAME, BatchArgs,
    title="Batch of calls", capability="read", hints=RUNS,
    summary="Run up to 32 tool calls in order in one round trip, each as if sent alone.",
    description="Run up to 32 tool calls in order in one round trip, each exactly as if sent alone (validated, gated,"
        " recorded); onError stop (default) leaves the rest unrun after a failure, continue runs them. "
        "calls holds the calls, in order, each {\"tool\": name, \"arguments\": {...}}: at most 32, and no "
        "tool.batch. Answers each call's envelope in order.",
    rules=(Check(_calls_are_calls, "each call names a tool, and none is `tool.batch`"),),
)
