"""The network tools: ``network_read`` and ``network_body`` over the requests of the
session's tabs, and ``route``, ``unroute`` and ``route_queue`` over its routes
(:class:`~.routes.Routes`, which answers the requests they match).

Every request a tab makes is recorded from its event session's ``Network`` domain
(:mod:`.network.log`), from the moment the session adopted the tab: one line each with
an id, details (headers, timing, initiator, failure) by id, and bodies on request. URLs
and headers come back with their credentials redacted, as they were recorded; a body is
the page's own data, and registered secrets in it are masked like in any result.

A body is not copied when the request happens: ``network_body`` asks the browser, which
keeps the newest bodies per tab (32 MB of them; see :data:`~.tabs.wiring.NETWORK_BUFFERS`).
"""

from __future__ import annotations

import base64
import binascii
import fnmatch
from typing import TYPE_CHECKING, TypedDict

import trio

from ....cdp import CdpError, CdpFailure
from ....errors import ToolError
from ....jsonsafe import JsonObject
from ....tools import Reply
from ....tools.network import NetworkBodyArgs, NetworkReadArgs, RouteArgs, RouteQueueArgs, UnrouteArgs
from ..console.handlers import tab_number, tabs_asked
from .log import NetworkEntry, summary_line
from .route_rules import kept_routes, take_paused
from .routes import answer

if TYPE_CHECKING:
    from ..session import ChromiumSession

__all__ = ["is_text_mime", "network_body", "network_read", "route", "route_queue", "string_headers", "unroute"]

DEFAULT_LIMIT = 50
#: Resource types as the Network domain names them (lower case).
TYPES = ("document", "stylesheet", "image", "media", "font", "script", "texttrack", "xhr", "fetch", "prefetch",
         "eventsource", "websocket", "manifest", "signedexchange", "ping", "cspviolationreport", "preflight",
         "other")
_TEXT_MIMES = ("json", "xml", "javascript", "ecmascript", "x-www-form-urlencoded", "csv", "yaml", "graphql",
               "html", "svg")


def is_text_mime(mime: str | None) -> bool:
    """Whether a body of this type reads as text (else it comes back as base64)."""
    if not mime:
        return False
    mime = mime.split(";", 1)[0].strip().lower()
    return mime.startswith("text/") or any(word in mime for word in _TEXT_MIMES)


def _url_matches(url: str, pattern: str) -> bool:
    """A glob (``*`` / ``?``) matches the whole URL; plain text matches anywhere in it."""
    if any(ch in pattern for ch in "*?["):
        return fnmatch.fnmatchcase(url.lower(), pattern.lower())
    return pattern.lower() in url.lower()


def _matches(entry: NetworkEntry, args: NetworkReadArgs) -> bool:
    """Whether a request passes the read's filters (each one left out passes all)."""
    if args.since is not None and entry.id <= args.since:
        return False
    if args.filter is not None and not _url_matches(entry.url, args.filter):
        return False
    if args.types and entry.type not in args.types:
        return False
    if args.failed is not None and entry.failed != args.failed:
        return False
    return args.method is None or entry.method.upper() == args.method.upper()


def _find(session: ChromiumSession, entry_id: int) -> NetworkEntry:
    for log in session.events.networks():
        found = log.get(entry_id)
        if found is not None:
            return found
    raise ToolError("target-not-found", f"no request #{entry_id} is kept (the newest 1,000 per open tab are)",
                    field="id")


async def network_read(session: ChromiumSession, args: NetworkReadArgs) -> Reply:
    if not session.events.record:
        raise ToolError("recording-off", "page recording is off (BROWX_PAGE_RECORDING=off): requests are not "
                        "recorded")
    if args.id is not None:
        entry = _find(session, args.id)
        details = entry.details()
        details["tab"] = tab_number(session, entry.target)
        return Reply.of(request=details)
    tabs = tabs_asked(session, args.tab, args.all_tabs)
    targets = [t.target_id for t in tabs if t.target_id is not None]
    logs = list(session.events.networks(targets))
    entries = sorted((e for log in logs for e in log), key=lambda e: e.id)
    matched = [e for e in entries if _matches(e, args)]
    limit = args.limit or DEFAULT_LIMIT
    shown = matched[-limit:]
    several = len(tabs) > 1
    lines = [(f"[tab {tab_number(session, e.target)}] " if several else "") + summary_line(e) for e in shown]
    reply = Reply.of(
        requests=lines, shown=len(shown), matched=len(matched), last=session.events.last_request_id,
        tabs=[t.id for t in tabs],
        counts={"seen": sum(log.total for log in logs), "kept": sum(len(log) for log in logs),
                "dropped": sum(log.dropped for log in logs),
                "pending": sum(1 for e in entries if not e.done)},
        warnings=[],
    )
    if len(matched) > len(shown):
        reply.warn(f"{len(matched) - len(shown)} older matching requests left out; raise limit or pass since")
    return reply


async def network_body(session: ChromiumSession, args: NetworkBodyArgs) -> Reply:
    entry = _find(session, args.id)
    part, cap = args.part, args.max_bytes
    source = entry.source
    if source is None or getattr(source, "lost", None) is not None:
        raise ToolError("target-not-found", f"request #{entry.id}'s tab is gone, and its body with it", field="id")
    try:
        if part == "request":
            if not entry.has_body:
                raise ToolError("target-not-found", f"request #{entry.id} ({entry.method}) sent no body", field="id")
            reply = await source.send("Network.getRequestPostData", {"requestId": entry.request_id})
            data, encoded, mime = reply.get("postData", ""), False, entry.request_headers.get(
                next((k for k in entry.request_headers if k.lower() == "content-type"), ""), "")
        else:
            if not entry.done:
                raise ToolError("target-not-found", f"request #{entry.id} has not finished loading", field="id")
            reply = await source.send("Network.getResponseBody", {"requestId": entry.request_id})
            data, encoded, mime = reply.get("body", ""), bool(reply.get("base64Encoded")), entry.mime or ""
    except CdpError as err:
        raise ToolError("target-not-found", f"the browser no longer holds request #{entry.id}'s {part} body "
                        f"({err.message})", field="id") from err
    except CdpFailure as err:
        raise ToolError("target-not-found", f"request #{entry.id}'s tab is gone, and its body with it",
                        field="id") from err
    return Reply.of(id=entry.id, part=part, mimeType=mime or None, **_body(str(data), encoded, mime, cap),
                    url=entry.url, status=entry.status)


class _Body(TypedDict):
    encoding: str
    body: str
    size: int
    truncated: bool


def _body(data: str, base64_encoded: bool, mime: str, cap: int) -> _Body:
    """The body as text (clipped to ``cap`` characters) or base64 (of at most ``cap`` bytes)."""
    if base64_encoded:
        try:
            raw = base64.b64decode(data)
        except (binascii.Error, ValueError):
            raw = b""
        if is_text_mime(mime):
            text = raw.decode("utf-8", "replace")
            return {"encoding": "text", "body": text[:cap], "size": len(raw), "truncated": len(text) > cap}
        return {"encoding": "base64", "body": base64.b64encode(raw[:cap]).decode("ascii"), "size": len(raw),
                "truncated": len(raw) > cap}
    return {"encoding": "text", "body": data[:cap], "size": len(data.encode("utf-8", "surrogatepass")),
            "truncated": len(data) > cap}


# -- routes ---------------------------------------------------------------------------


def string_headers(headers: JsonObject | None) -> dict[str, str] | None:
    """The ``headers`` argument, each value a string (the schema checks it is an object only)."""
    if headers is None:
        return None
    for key, value in headers.items():
        if not isinstance(value, str):
            raise ToolError("bad-arg", f"headers.{key} must be a string", field=f"headers.{key}")
    return dict(headers)


async def route(session: ChromiumSession, args: RouteArgs) -> Reply:
    routes = await session.routes.installed()
    added = routes.add(args.pattern, args.action, status=args.status, headers=string_headers(args.headers),
                       body=args.body, content_type=args.content_type, reason=args.error_reason)
    await routes.reapply()
    return Reply.of(route=added.describe(), routes=[r.describe() for r in routes.routes])


async def unroute(session: ChromiumSession, args: UnrouteArgs) -> Reply:
    routes = await session.routes.installed()
    before = len(routes.routes)
    routes.routes = kept_routes(routes.routes, args.id, args.pattern)
    await routes.reapply()
    return Reply.of(removed=before - len(routes.routes), routes=[r.describe() for r in routes.routes])


async def route_queue(session: ChromiumSession, args: RouteQueueArgs) -> Reply:
    routes = await session.routes.installed()
    if args.id is None:
        return Reply.of(queue=routes.lines(), count=len(routes.queue), overflowed=routes.overflowed,
                        routes=[r.describe() for r in routes.routes])
    action = args.action
    assert action is not None  # the rules: an id comes with its action
    paused = take_paused(routes.queue, args.id)
    try:
        with trio.fail_after(10):
            await answer(paused.source, paused.request_id, paused.headers, action, status=args.status,
                         headers=string_headers(args.headers), body=args.body,
                         content_type=args.content_type, reason=args.error_reason)
    except (CdpFailure, trio.TooSlowError) as err:
        raise ToolError("target-not-found", f"q{paused.id} can no longer be answered (its tab closed or the "
                        f"request was cancelled): {err}", field="id") from err
    return Reply.of(answered=f"q{paused.id}", action=action, url=paused.url, queue=routes.lines(),
                    count=len(routes.queue))


