"""What the session's pages logged and requested, and routes that answer their requests.

``console_read``, ``network_read`` and ``network_body`` read what each tab recorded;
``route``, ``unroute`` and ``route_queue`` (capability ``network-control``) answer,
abort, change or hold requests where the browser makes them (chromium's Fetch domain,
firefox's network intercept). The route glob
(:func:`glob_regex`) is part of the contract: ``**`` anything, ``*`` anything but ``/``,
``{a,b}`` either.
"""

from __future__ import annotations

import re

from ..errors import ToolError
from ..jsonsafe import JsonObject
from .arguments import arg, arguments, param
from .contract import ACTS, ADDS, CHANGES, READS, SessionArgs, session_tool
from .params import MAX_ID, Param
from .rules import AtMostOne, Check, Excludes, JsonArgs, Requires

__all__ = ["ABORT_REASONS", "ANSWER_NAMES", "RESOURCE_TYPES", "ROUTE_ACTIONS", "glob_regex"]

#: What a route does with a matching request.
ROUTE_ACTIONS = ("fulfill", "abort", "continue", "pause")
#: ``Fetch.failRequest`` error reasons, as the protocol names them.
ABORT_REASONS = ("Failed", "Aborted", "TimedOut", "AccessDenied", "ConnectionClosed", "ConnectionReset",
                 "ConnectionRefused", "ConnectionAborted", "ConnectionFailed", "NameNotResolved",
                 "InternetDisconnected", "AddressUnreachable", "BlockedByClient", "BlockedByResponse")
#: Resource types network_read filters on, as the Network domain names them (lower case).
RESOURCE_TYPES = ("document", "stylesheet", "image", "media", "font", "script", "texttrack", "xhr", "fetch",
                  "prefetch", "eventsource", "websocket", "manifest", "signedexchange", "ping",
                  "cspviolationreport", "preflight", "other")


def glob_regex(pattern: str) -> re.Pattern[str]:
    """The compiled regular expression of a route glob, anchored at both ends."""
    out: list[str] = []
    i = 0
    in_group = False
    while i < len(pattern):
        ch = pattern[i]
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if ch == "*":
            out.append("[^/]*")
        elif ch == "{" and not in_group:
            out.append("(?:")
            in_group = True
        elif ch == "}" and in_group:
            out.append(")")
            in_group = False
        elif ch == "," and in_group:
            out.append("|")
        else:
            out.append(re.escape(ch))
        i += 1
    if in_group:
        raise ValueError(f"unclosed {{ in route pattern {pattern!r}")
    return re.compile("".join(out) + r"\Z")


ALL_TABS = Param("allTabs", "boolean", "", default=False)
ONE_TAB = Excludes("allTabs", ("tab",), "allTabs reads every tab; drop tab")
_TAB_NOTE = "allTabs reads every tab of the session."
STATUS = Param("status", "integer", "Response status (fulfill).", minimum=100, maximum=599)
HEADERS = Param("headers", "object", "fulfill: response headers; continue: request headers to set.",
                secrets="substitute")
BODY = Param("body", "string", "Response body text (fulfill).", max_length=5_000_000, secrets="substitute")
CONTENT_TYPE = Param("contentType", "string", "Response Content-Type (fulfill).", max_length=200)
REASON = Param("errorReason", "string", "Network error (abort).",
               enum=ABORT_REASONS)
#: How route and route_queue answer a request, with the fields above.
_ANSWER_NOTE = ("fulfill answers with status (default 200), headers (of the response), body (text) and contentType "
                "(default: JSON if the body parses, else text); abort fails the request with the network error "
                "errorReason; continue sends it on with headers set on the request (an empty value removes one).")


@arguments
class ConsoleReadArgs(SessionArgs):
    """console_read's arguments."""

    since: int | None = param("since", "integer", "Only entries after this id (a previous result's last).",
                              minimum=0, maximum=MAX_ID)
    level: str | None = param("level", "string", "Least severe level to include.",
                              enum=("debug", "info", "warn", "error"))
    text: str | None = param("text", "string", "Only entries containing this (case-insensitive).",
                             max_length=1000)
    limit: int | None = param("limit", "integer", "Most entries to return, the newest.", minimum=1,
                              maximum=1000)
    clear: bool = param("clear", "boolean", "Empty the tabs' buffers after reading.", default=False)
    id: int | None = param("id", "integer", "One entry's details instead of a list.", minimum=1,
                           maximum=MAX_ID)
    tab: int | None = param("tab", "integer", "Tab id to read (default: the current tab).", minimum=1,
                            maximum=MAX_ID)
    all_tabs: bool = arg(ALL_TABS)


CONSOLE_READ = session_tool(
    "console_read", ConsoleReadArgs,
    title="Read console", capability="read", hints=READS,
    summary="Read what the session's pages logged: console messages, exceptions, browser messages.",
    description="What the session's pages logged: console messages, uncaught exceptions and the browser's own "
        "messages (failed loads, blocked requests), one line each (`#id level text (file:line)`), oldest "
        "first; on chromium a dedicated worker's end in `[worker]`. `since` the `last` id of a previous read "
        "gives only what came after; `id` gives one entry's "
        "details (stack included). Kept per tab, newest 1,000; a flood is sampled (in the page itself while "
        "it floods: `sampledInPage`), and what was dropped or sampled out is counted. `limit` (default 50) keeps "
        f"the newest entries. {_TAB_NOTE}",
    rules=(ONE_TAB, Excludes("id", ("since", "level", "text", "limit"), "id reads one entry; drop the list filters")),
)


@arguments
class NetworkReadArgs(SessionArgs):
    """network_read's arguments."""

    filter: str | None = param("filter", "string", "URL text to look for, or a glob over the whole URL.",
                               max_length=2000)
    types: list[str] | None = param("types", "array", "Resource types to include.", items="string",
                                    item_enum=RESOURCE_TYPES,
                                    max_items=len(RESOURCE_TYPES))
    failed: bool | None = param("failed", "boolean", "true: only failed requests; false: only the others.")
    method: str | None = param("method", "string", "HTTP method to include (GET, POST...).", max_length=20)
    since: int | None = param("since", "integer", "Only requests after this id (a previous result's last).",
                              minimum=0, maximum=MAX_ID)
    limit: int | None = param("limit", "integer", "Most requests to return, the newest.", minimum=1,
                              maximum=1000)
    id: int | None = param("id", "integer", "One request's details instead of a list.", minimum=1,
                           maximum=MAX_ID)
    tab: int | None = param("tab", "integer", "Tab id to read (default: the current tab).", minimum=1,
                            maximum=MAX_ID)
    all_tabs: bool = arg(ALL_TABS)


NETWORK_READ = session_tool(
    "network_read", NetworkReadArgs,
    title="Read network", capability="read", hints=READS,
    summary="List the requests the session's pages made, filtered, or read one request's details.",
    description="The requests of the session's pages, one line each (`#id METHOD status type size time url`), oldest "
        "first: `filter` by URL (text, or a glob such as */api/*), `types`, `failed`, `method`; `since` a "
        "previous result's `last` gives only what came after; `id` gives one request's details (headers, "
        "timing, initiator, failure). Credentials in URLs and headers (authorization, cookie, set-cookie...) "
        "come back redacted. Bodies: network_body. `limit` (default 50) keeps the newest requests. "
        f"{_TAB_NOTE}",
    rules=(ONE_TAB, Excludes("id", ("filter", "types", "failed", "method", "since", "limit"),
                             "id reads one request; drop the list filters")),
)


@arguments
class NetworkBodyArgs(SessionArgs):
    """network_body's arguments."""

    id: int = param("id", "integer", "Request id from network_read.", required=True, minimum=1, maximum=MAX_ID)
    part: str = param("part", "string", "", default="response", enum=("response", "request"))
    max_bytes: int = param("maxBytes", "integer", "Most characters of text (bytes of binary) to return.",
                           default=20_000, minimum=1, maximum=2_000_000)


NETWORK_BODY = session_tool(
    "network_body", NetworkBodyArgs,
    title="Read response body", capability="read", hints=READS,
    summary="Read a recorded request's response (or request) body, as text or base64.",
    description="A recorded request's response body (or, with part: request, what it sent), capped at maxBytes: text "
        "for text types (HTML, JSON, JS, CSS, XML...), base64 otherwise. The browser keeps the newest bodies "
        "of each tab; an older one may be gone.",
)

ANSWER_FIELDS = (STATUS, HEADERS, BODY, CONTENT_TYPE, REASON)
#: The arguments that say how a request is answered.
ANSWER_NAMES = tuple(p.name for p in ANSWER_FIELDS)


def _check_pattern(args: JsonArgs) -> None:
    try:
        glob_regex(args["pattern"])
    except ValueError as err:
        raise ToolError("bad-arg", str(err), field="pattern") from err


def _check_answer_fields(args: JsonArgs) -> None:
    action = args.get("action")
    wrong = {None: ANSWER_NAMES, "pause": ANSWER_NAMES, "fulfill": ("errorReason",),
             "abort": ("status", "body", "contentType", "headers"),
             "continue": ("status", "body", "contentType", "errorReason")}[action]
    for name in wrong:
        if args.get(name) is not None:
            what = f"action {action}" if action else "a listing (give id and action to answer)"
            raise ToolError("bad-arg", f"{name} does not go with {what}", field=name)


@arguments
class RouteArgs(SessionArgs):
    """route's arguments."""

    pattern: str = param("pattern", "string", "URL glob, e.g. **/api/items*.", required=True, max_length=2000)
    action: str = param("action", "string", "What matching requests get.", required=True,
                        enum=ROUTE_ACTIONS)
    status: int | None = arg(STATUS)
    headers: JsonObject | None = arg(HEADERS)
    body: str | None = arg(BODY)
    content_type: str | None = arg(CONTENT_TYPE)
    error_reason: str | None = arg(REASON)


ROUTE = session_tool(
    "route", RouteArgs,
    title="Route requests", capability="network-control", hints=ADDS,
    summary="Mock, fail, modify or hold the session's requests whose URL matches a glob.",
    description="Answer the session's requests whose URL matches `pattern` (a glob: ** anything, * anything but /, "
        "{a,b}): fulfill them with status, headers and body, abort them with a network error, continue them "
        "(headers changed), or pause them until route_queue answers. The newest matching route wins; routes "
        f"cover every tab and end with the session. {_ANSWER_NOTE}",
    rules=(Check(_check_pattern, "`pattern` is a valid glob"),
           Check(_check_answer_fields, "`status`, `body`, `contentType` go with fulfill; `errorReason` with abort; "
                                       "`headers` with fulfill or continue"),),
)


@arguments
class UnrouteArgs(SessionArgs):
    """unroute's arguments."""

    id: int | None = param("id", "integer", "Route id.", minimum=1, maximum=MAX_ID)
    pattern: str | None = param("pattern", "string", "Remove the routes with this pattern.", max_length=2000)


UNROUTE = session_tool(
    "unroute", UnrouteArgs,
    title="Remove route", capability="network-control", hints=CHANGES,
    summary="Remove routes: one, those of a pattern, or all of them.",
    description="Remove routes: the one with `id`, those with `pattern`, or all of them. Requests already paused stay"
        " in route_queue.",
    rules=(AtMostOne(("id", "pattern")),),
)


@arguments
class RouteQueueArgs(SessionArgs):
    """route_queue's arguments."""

    id: int | None = param("id", "integer", "Paused request id (qN is N).", minimum=1, maximum=MAX_ID)
    action: str | None = param("action", "string", "How to answer it.", enum=("fulfill", "abort", "continue"))
    status: int | None = arg(STATUS)
    headers: JsonObject | None = arg(HEADERS)
    body: str | None = arg(BODY)
    content_type: str | None = arg(CONTENT_TYPE)
    error_reason: str | None = arg(REASON)


ROUTE_QUEUE = session_tool(
    "route_queue", RouteQueueArgs,
    title="Held requests", capability="network-control", hints=ACTS,
    summary="List the requests a pause route holds, or answer one (fulfill, abort or continue).",
    description="Requests paused by a route with action pause: without `id`, list them (`qN METHOD type url`); with "
        "`id` and `action`, answer that one (fulfill, abort or continue, with the same fields as route). "
        f"{_ANSWER_NOTE}",
    rules=(Requires("id", ("action",)), Requires("action", ("id",)),
           Check(_check_answer_fields, "the answer's fields go with its action, as for route"),),
)
