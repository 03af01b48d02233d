"""Every tool the server offers: name, capability, description and parameters.

Declarations only. Session tools run inside their session actor (ordered per session,
parallel across sessions); runtime tools (sessions, secrets, status) run in the
dispatching task. The JSON Schemas agents see and the validation the dispatch path runs
both come from the ``Param`` lists here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from ..actor import ToolError
from ..sessions import web_actions, web_page, web_reading, web_tabs
from ..sessions.chromium import SessionOptions
from .registry import Tool, session_param
from .schema import Param
from .secrets import check_secret
from .tools_human import human_tools
from .tools_diagnostics import diagnostics_tools
from .tools_canvas import canvas_tools

__all__ = ["all_tools"]

SessionFn = Callable[[Any, dict[str, Any]], Awaitable[Any]]

# -- shared parameters ----------------------------------------------------------------

SESSION = session_param()
REF = Param("ref", "string", "Element ref from a snapshot or find, e.g. e12.")
SELECTOR = Param("selector", "string",
                 "Playwright selector (CSS, text=, role=...) when no ref is at hand.")
COORDS = Param("coords", "object", "Viewport point in CSS pixels.",
               properties={"x": {"type": "number"}, "y": {"type": "number"}}, required_keys=("x", "y"))
TIMEOUT = Param("timeoutMs", "integer", "How long to wait, in milliseconds.", default=5000,
                minimum=0, maximum=60_000)


def _on_session(tool: str, fn: SessionFn) -> Callable[[Any, dict[str, Any]], Awaitable[Any]]:
    async def handler(runtime: Any, args: dict[str, Any]) -> Any:
        return await runtime.call_session(args["session"], tool, fn, args)

    return handler


def session_tool(name: str, capability: str, description: str, fn: SessionFn,
                 *params: Param) -> Tool:
    return Tool(name, capability, description, (*params, SESSION), _on_session(name, fn))


# -- runtime-level tools --------------------------------------------------------------


async def _open_session(runtime: Any, args: dict[str, Any]) -> dict[str, Any]:
    engine = args["engine"]
    if engine in ("android-app", "ios-app"):
        if not runtime.dispatcher.allowed("native-device"):
            raise runtime.dispatcher.denial("native-device", "open_session")
        raise ToolError(
            "engine-unavailable",
            f"the {engine} engine is not part of this build yet; open a chromium session",
            engine=engine,
        )
    if engine != "chromium":
        raise ToolError(
            "unknown-engine",
            f"unknown engine {engine!r} (engines: chromium, android-app, ios-app)",
            engine=engine,
        )
    viewport = args.get("viewport") or {"width": 1280, "height": 720}
    record = await runtime.open_session(
        args["session"], engine, SessionOptions(viewport=(viewport["width"], viewport["height"]))
    )
    return {"ok": True, "session": record.id, "engine": engine, "viewport": viewport}


async def _close_session(runtime: Any, args: dict[str, Any]) -> dict[str, Any]:
    closed = await runtime.close_session(args["session"])
    if not closed:
        raise ToolError("unknown-session", f"no open session {args['session']!r}", session=args["session"])
    return {"ok": True, "session": args["session"], "closed": True}


async def _list_sessions(runtime: Any, args: dict[str, Any]) -> dict[str, Any]:
    sessions = []
    for sid in runtime.session_ids():
        actor = await runtime.session(sid)
        sessions.append(actor.describe())
    return {"ok": True, "sessions": sessions, "count": len(sessions)}


async def _register_secret(runtime: Any, args: dict[str, Any]) -> dict[str, Any]:
    name, value = args["name"], args["value"]
    check_secret(name, value)
    runtime.secrets.setdefault(args["session"], {})[name] = value
    return {"ok": True, "name": name, "alias": f"<{name}>", "session": args["session"]}


async def _runtime_status(runtime: Any, args: dict[str, Any]) -> dict[str, Any]:
    return {"ok": True, **(await runtime.status())}


# -- the registry ---------------------------------------------------------------------


def all_tools() -> list[Tool]:
    A, R, N = "action", "read", "navigation"
    target = (REF, SELECTOR)
    return [
        Tool("open_session", N, "Open a session: an isolated browser context with its own cookies "
             "and storage. The session \"default\" opens by itself on first use.",
             (Param("session", "string", "New session id.", required=True),
              Param("engine", "string", "Engine to drive.", default="chromium"),
              Param("viewport", "object", "Viewport size in CSS pixels.",
                    properties={"width": {"type": "integer"}, "height": {"type": "integer"}},
                    required_keys=("width", "height"))),
             _open_session),
        Tool("close_session", N, "Close a session and discard its context, secrets and state.",
             (SESSION,), _close_session),
        Tool("list_sessions", R, "List the open sessions with their engine and URL.", (), _list_sessions),
        Tool("register_secret", "secrets",
             "Register a secret for a session. Type <NAME> wherever the value is needed; every "
             "result shows <NAME> instead of the value.",
             (Param("name", "string", "Alias name: A-Z, 0-9 and _.", required=True),
              Param("value", "string", "The secret value.", required=True), SESSION),
             _register_secret),
        Tool("runtime_status", R, "The supervision tree (every child of the root in start order, with what it "
             "knows: recorder counts, operator link, browser, sessions), restarts, recent events.",
             (), _runtime_status),
        session_tool("navigate", N, "Load a URL in the session's page and wait for it.", web_page.navigate,
                     Param("url", "string", "Absolute URL (https:// is assumed without a scheme).",
                           required=True),
                     Param("waitUntil", "string", "Load state to wait for.", default="load",
                           enum=("load", "domcontentloaded", "networkidle", "commit")),
                     Param("timeoutMs", "integer", "Navigation timeout.", default=30_000,
                           minimum=0, maximum=120_000)),
        session_tool("go_back", N, "Go back in the session's history.", web_page.go_back),
        session_tool("go_forward", N, "Go forward in the session's history.", web_page.go_forward),
        session_tool("list_tabs", R, "The session's tabs (pages a link or script opened included): "
                     "id, url, title, which one is current. Tools act on the current tab.",
                     web_tabs.list_tabs),
        session_tool("select_tab", N, "Make tab `tab` current: later tools act on it.", web_tabs.select_tab,
                     Param("tab", "integer", "Tab id, from list_tabs or an action's `opened`.",
                           required=True, minimum=1)),
        session_tool("close_tab", N, "Close a tab (default: the current one). The tab opened before it "
                     "becomes current; closing the last one leaves a fresh blank tab.", web_tabs.close_tab,
                     Param("tab", "integer", "Tab id; default the current tab.", minimum=1)),
        session_tool("snapshot", R,
                     "Accessibility snapshot as compact indented text: role \"name\" [ref=eN] [states]. "
                     "Refs stay stable while their element lives.", web_reading.snapshot,
                     Param("scope", "string", "Ref or selector of a subtree to snapshot."),
                     Param("maxNodes", "integer", "Stop after this many lines.", default=2000,
                           minimum=1, maximum=20_000),
                     Param("omit", "array", "Roles to leave out (their children stay).", items="string")),
        session_tool("find", R, "Find elements by role, accessible name, text or test id; returns refs "
                     "and reusable selector hints.", web_reading.find,
                     Param("role", "string", "ARIA role, e.g. button."),
                     Param("name", "string", "Accessible name (substring unless exact)."),
                     Param("text", "string", "Visible text (substring unless exact)."),
                     Param("testId", "string", "data-testid value."),
                     Param("exact", "boolean", "Match name/text exactly.", default=False),
                     Param("scope", "string", "Ref or selector to search under."),
                     Param("limit", "integer", "Most matches to return.", default=20, minimum=1, maximum=500)),
        session_tool("text_search", R, "Search the page's visible text; each match names the ref "
                     "of its nearest element.", web_reading.text_search,
                     Param("query", "string", "Text to look for.", required=True),
                     Param("caseSensitive", "boolean", "Match case.", default=False),
                     Param("limit", "integer", "Most matches to return.", default=20, minimum=1, maximum=500)),
        session_tool("click", A, "Click an element (ref or selector) or a point (coords).",
                     web_actions.click, *target, COORDS,
                     Param("button", "string", "Mouse button.", default="left",
                           enum=("left", "right", "middle")),
                     Param("clickCount", "integer", "2 for a double click.", default=1, minimum=1, maximum=3),
                     Param("modifiers", "array", "Keys held during the click: Alt, Control, ControlOrMeta, Meta, Shift.",
                           items="string")),
        session_tool("hover", A, "Move the mouse over an element or a point.", web_actions.hover,
                     *target, COORDS),
        session_tool("fill", A, "Replace the value of a text field.", web_actions.fill, *target,
                     Param("value", "string", "New value; <NAME> for a registered secret.", required=True),
                     Param("submit", "boolean", "Press Enter afterwards.", default=False)),
        session_tool("press", A, "Press a key or chord (Enter, Control+A) on an element or the page.",
                     web_actions.press, Param("key", "string", "Key name.", required=True), *target),
        session_tool("select", A, "Choose options of a <select> by value or label.", web_actions.select,
                     *target, Param("values", "array", "Values or labels to select.", required=True,
                                    items="string")),
        session_tool("scroll", A, "Scroll an element into view, or scroll it or the page by a delta.",
                     web_actions.scroll, *target,
                     Param("deltaX", "number", "Horizontal pixels.", default=0),
                     Param("deltaY", "number", "Vertical pixels.", default=0)),
        session_tool("wait_for", R, "Wait for text, a selector, a ref or a URL to reach a state.",
                     web_page.wait_for,
                     Param("text", "string", "Visible text to wait for."),
                     Param("textGone", "string", "Text to wait to disappear."),
                     Param("selector", "string", "Selector to wait for."),
                     Param("ref", "string", "Ref to wait for."),
                     Param("url", "string", "URL (glob) to wait for."),
                     Param("state", "string", "State to reach.", default="visible",
                           enum=("visible", "hidden", "attached", "detached")),
                     TIMEOUT),
        session_tool("screenshot", R, "Capture the viewport, the full page, an element or a region "
                     "as PNG or JPEG, scaled so the longest side fits maxDimension.", web_page.screenshot,
                     Param("format", "string", "Image format.", default="png", enum=("png", "jpeg")),
                     Param("quality", "integer", "JPEG quality.", default=80, minimum=1, maximum=100),
                     Param("fullPage", "boolean", "Capture the whole scrollable page.", default=False),
                     *target,
                     Param("region", "object", "Viewport rectangle in CSS pixels.",
                           properties={k: {"type": "number"} for k in ("x", "y", "width", "height")},
                           required_keys=("x", "y", "width", "height")),
                     Param("maxDimension", "integer", "Longest side in pixels.", default=2000,
                           minimum=16, maximum=8000),
                     Param("path", "string", "Also save under the workspace at this relative path.")),
        session_tool("set_viewport", A, "Resize the session's viewport.", web_page.set_viewport,
                     Param("width", "integer", "CSS pixels.", required=True, minimum=100, maximum=7680),
                     Param("height", "integer", "CSS pixels.", required=True, minimum=100, maximum=4320)),
        session_tool("verify_visible", R, "Check that an element is visible.", web_reading.verify_visible,
                     *target),
        session_tool("verify_text", R, "Check that text is on the page, or in an element.",
                     web_reading.verify_text, Param("text", "string", "Expected text.", required=True),
                     *target, Param("exact", "boolean", "Element text equals it exactly.", default=False)),
        session_tool("verify_value", R, "Check a form field's current value.", web_reading.verify_value,
                     *target, Param("value", "string", "Expected value.", required=True)),
        session_tool("verify_attribute", R, "Check an element attribute.", web_reading.verify_attribute,
                     *target, Param("name", "string", "Attribute name.", required=True),
                     Param("value", "string", "Expected value.", required=True)),
        session_tool("verify_count", R, "Check how many elements match a selector.", web_reading.verify_count,
                     Param("selector", "string", "Selector to count.", required=True),
                     Param("count", "integer", "Expected count.", required=True, minimum=0)),
        session_tool("eval_js", "eval", "Evaluate JavaScript in the page (an expression or a function "
                     "source) and return its JSON value.", web_page.eval_js,
                     Param("expr", "string", "Expression or function source.", required=True),
                     Param("returnType", "string", "json returns the value; void discards it.",
                           default="json", enum=("json", "void")),
                     Param("maxBytes", "integer", "Largest JSON value to return.", default=1_000_000,
                           minimum=1, maximum=10_000_000)),
        *diagnostics_tools(),
        *canvas_tools(),
        *human_tools(),
    ]
