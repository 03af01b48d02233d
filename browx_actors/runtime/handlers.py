"""The tools about the runtime itself: sessions, registered secrets, and status.

Runtime tools: their handlers get the :class:`~browx_actors.tools.context.RuntimeContext`
and run in the dispatching task. What they need of the tree (starting a session actor,
asking each session to describe itself, reading the supervisors) the runtime does.
"""

from __future__ import annotations

from ..credentials import redact_url
from ..errors import ToolError
from ..tools import Args, CapabilityWhen, Check, Param, Reply, runtime_tool, session_param
from ..tools.context import RuntimeContext

__all__ = ["ENGINES", "NATIVE_ENGINES", "TOOLS"]

ENGINES = ("chromium", "android-app", "ios-app", "chrome-android")
#: Engines that drive a device and need the native-device capability to open.
NATIVE_ENGINES = ("android-app", "ios-app", "chrome-android")


def _endpoint_engine(args: Args) -> None:
    if args.get("cdpEndpoint") and args["engine"] != "chromium":
        raise ToolError("bad-arg", "cdpEndpoint attaches a chromium session; drop engine or cdpEndpoint",
                        field="cdpEndpoint")


def _known_engine(args: Args) -> None:
    if args["engine"] not in ENGINES:
        raise ToolError("unknown-engine", f"unknown engine {args['engine']!r} (engines: {', '.join(ENGINES)})",
                        engine=args["engine"])


def _viewport_for_browsers(args: Args) -> None:
    if args.get("viewport") is not None and args["engine"] != "chromium":
        raise ToolError("bad-arg", f"a {args['engine']} session drives a device whose screen has the size it "
                        "has: viewport is for chromium sessions", field="viewport")


@runtime_tool(
    "open_session", "navigation",
    "Open a session: an isolated browser context with its own cookies and storage (chromium), an app on an Android "
    "device (android-app), an app on an iOS Simulator (ios-app), or Chrome on an Android device (chrome-android); "
    "the device comes from the environment. The session \"default\" opens by itself on first use, as chromium.",
    params=(session_param("New session id.", required=True),
            Param("engine", "string", "Engine to drive.", default="chromium"),
            Param("viewport", "object", "Viewport size in CSS pixels.",
                  properties={"width": {"type": "integer", "minimum": 100, "maximum": 7680},
                              "height": {"type": "integer", "minimum": 100, "maximum": 4320}},
                  required_keys=("width", "height")),
            Param("cdpEndpoint", "string",
                  "Attach this session to the browser at this CDP endpoint (ws://... or http://host:port: a Chrome "
                  "run with --remote-debugging-port, a grid, an Electron app) instead of the server's own; it leases "
                  "one tab there, sees only that tab and its popups, and closing the session leaves the browser "
                  "running.", max_length=2000, pattern=r"(wss?|https?)://\S+")),
    rules=(Check(_known_engine, f"`engine` is one of {', '.join(ENGINES)}"),
           Check(_endpoint_engine, "`cdpEndpoint` goes with engine chromium"),
           Check(_viewport_for_browsers, "`viewport` goes with engine `chromium` only"),
           CapabilityWhen("engine", NATIVE_ENGINES, "native-device")),
)
async def open_session(runtime: RuntimeContext, args: Args) -> Reply:
    # A device's screen is the size it is: only a browser context takes a viewport.
    options: dict[str, object] = {}
    if args["engine"] == "chromium":
        options["viewport"] = args["viewport"] or {"width": 1280, "height": 720}
    if args.get("cdpEndpoint"):
        options["cdpEndpoint"] = args["cdpEndpoint"]
    opened = await runtime.open_session(args["session"], args["engine"], options)
    if "cdpEndpoint" in opened:
        opened["cdpEndpoint"] = redact_url(str(opened["cdpEndpoint"]))
    return Reply.of(**opened)


@runtime_tool(
    "close_session", "navigation", "Close a session and discard its context, secrets and state.",
    params=(session_param(),),
)
async def close_session(runtime: RuntimeContext, args: Args) -> Reply:
    if not await runtime.close_session(args["session"]):
        raise ToolError("unknown-session", f"no open session {args['session']!r}", session=args["session"])
    return Reply.of(session=args["session"], closed=True)


@runtime_tool("list_sessions", "read", "List the open sessions with their engine and URL.")
async def list_sessions(runtime: RuntimeContext, args: Args) -> Reply:
    sessions = await runtime.describe_sessions()
    return Reply.of(sessions=sessions, count=len(sessions))


@runtime_tool(
    "register_secret", "secrets",
    "Register a secret for a session. Type <NAME> wherever the value is needed; every result shows "
    "<NAME> instead of the value.",
    params=(Param("name", "string", "Alias name: A-Z, 0-9 and _.", required=True, secrets="keep"),
            Param("value", "string", "The secret value.", required=True, secrets="keep"),
            session_param()),
)
async def register_secret(runtime: RuntimeContext, args: Args) -> Reply:
    # A secret for a session that does not exist would wait, unused, for whoever opens
    # that id next. "default" is the exception: it opens by itself on first use, and
    # registering before that first use is how an agent starts.
    session = args["session"]
    if session != "default" and session not in await runtime.session_ids():
        raise ToolError("unknown-session", f"no open session {session!r}; open it with open_session first",
                        session=session)
    runtime.secrets.register(session, args["name"], args["value"])
    return Reply.of(name=args["name"], alias=f"<{args['name']}>", session=args["session"])


@runtime_tool(
    "runtime_status", "read",
    "The supervision tree (every child of the root in start order, with what it knows: recorder counts, operator "
    "link, browser, sessions, and every actor's mailbox statistics), restarts, recent events.",
)
async def runtime_status(runtime: RuntimeContext, args: Args) -> Reply:
    return Reply.of(**await runtime.status())


TOOLS = [open_session, close_session, list_sessions, register_secret, runtime_status]
