"""Routes (capability ``network-control``): ``route``, ``unroute``, ``route_queue``.

A route answers the session's matching requests itself, over the ``Fetch`` domain of
every tab's event session (and of its out-of-process frames): ``fulfill`` with a
status, headers and a body, ``abort`` with a network error, ``continue`` to the server
(with headers changed), or ``pause``: the request waits in :class:`Routes`'s queue
until ``route_queue`` answers it, one by one. The newest route that matches wins.

Routes belong to the session: a tab opened later gets them when it is wired, and they
end with the session (its event sessions go, and the browser lets their requests
through). The queue is bounded; a request that would overflow it goes on to the server,
and the result of ``route_queue`` counts it.
"""

from __future__ import annotations

import itertools
import logging
import time
from collections import OrderedDict
from typing import Any

import attrs
import trio

from ...cdp import CdpFailure, CdpSession, CdpSubscription
from ...errors import ToolError
from ...tools import Args, AtMostOne, Check, Param, Reply, Requires, session_tool
from ...tools.params import MAX_ID
from .redact import redact_url
from .route_rules import ABORT_REASONS, ACTIONS, continue_params, fetch_pattern, fulfill_params, glob_regex
from .session import ChromiumSession

__all__ = ["QUEUE_MAX", "TOOLS", "Routes", "route", "route_queue", "unroute"]

log = logging.getLogger("browx_actors.chromium.routes")

CAPABILITY = "network-control"
#: Requests a pause route holds at once.
QUEUE_MAX = 100
ROUTES_MAX = 100


@attrs.define(eq=False)
class Route:
    id: int
    pattern: str
    action: str
    status: int | None = None
    headers: dict[str, str] | None = None
    body: str | None = None
    content_type: str | None = None
    reason: str | None = None
    regex: Any = None
    hits: int = 0

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "pattern": self.pattern, "action": self.action, "hits": self.hits}
        if self.status is not None:
            out["status"] = self.status
        if self.reason is not None:
            out["errorReason"] = self.reason
        return out


@attrs.define(eq=False)
class Paused:
    id: int
    request_id: str
    source: CdpSession
    route: int
    method: str
    #: Redacted, as the network log keeps it.
    url: str
    type: str
    headers: dict[str, Any]
    since: float

    def line(self, now: float) -> str:
        return f"q{self.id} {self.method} {self.type} {self.url} (route {self.route}, {now - self.since:.1f} s)"


class Routes:
    """One session's routes and paused requests, and the Fetch handling on its tabs."""

    def __init__(self, session: ChromiumSession) -> None:
        self.session = session
        self.routes: list[Route] = []
        self.queue: OrderedDict[int, Paused] = OrderedDict()
        self.overflowed = 0
        self._route_ids = itertools.count(1)
        self._queue_ids = itertools.count(1)
        #: Event sessions whose Fetch.requestPaused events a task is serving.
        self._served: set[str] = set()

    @classmethod
    async def of(cls, session: ChromiumSession) -> Routes:
        """The session's routes, made (and added to every tab's setup) on first use."""
        found: Routes | None = getattr(session, "routes", None)
        if found is None:
            found = cls(session)
            session.routes = found
            assert session.wiring is not None
            await session.wiring.add_setup(found.setup)
        return found

    def match(self, url: str) -> Route | None:
        return next((r for r in reversed(self.routes) if r.regex.match(url)), None)

    # -- every event session ------------------------------------------------------------

    async def setup(self, cdp: CdpSession, kind: str) -> None:
        """Fetch on (with the routes' patterns) or off on one event session."""
        if not self.routes:
            await cdp.send("Fetch.disable")
            return
        patterns = sorted({fetch_pattern(r.pattern) for r in self.routes})
        if cdp.session_id not in self._served:
            # Subscribed before Fetch is on, so no paused request slips past unanswered.
            self._served.add(cdp.session_id)
            self.session.nursery.start_soon(self._serve, cdp, cdp.subscribe(methods=("Fetch.requestPaused",),
                                                                            buffer=1024))
        await cdp.send("Fetch.enable", {"patterns": [{"urlPattern": p, "requestStage": "Request"} for p in patterns]})

    async def _serve(self, cdp: CdpSession, events: CdpSubscription) -> None:
        try:
            async with events:
                async for event in events:
                    await self._paused(cdp, event.params)
        except CdpFailure as exc:
            log.debug("routes on %s ended: %s", cdp, exc)
        finally:
            self._served.discard(cdp.session_id)
            for paused in [p for p in self.queue.values() if p.source is cdp]:
                del self.queue[paused.id]

    async def _paused(self, cdp: CdpSession, params: dict[str, Any]) -> None:
        request_id = str(params.get("requestId"))
        request = params.get("request") or {}
        url = str(request.get("url", "")) + str(request.get("urlFragment") or "")
        found = self.match(url)
        try:
            if found is None:
                await cdp.send("Fetch.continueRequest", {"requestId": request_id})
                return
            found.hits += 1
            if found.action == "pause":
                if len(self.queue) >= QUEUE_MAX:
                    self.overflowed += 1
                    await cdp.send("Fetch.continueRequest", {"requestId": request_id})
                    return
                paused = Paused(next(self._queue_ids), request_id, cdp, found.id, str(request.get("method", "GET")),
                                redact_url(url), str(params.get("resourceType") or "other").lower(),
                                dict(request.get("headers") or {}), time.monotonic())
                self.queue[paused.id] = paused
                return
            await answer(cdp, request_id, request.get("headers") or {}, found.action, status=found.status,
                         headers=found.headers, body=found.body, content_type=found.content_type,
                         reason=found.reason)
        except CdpFailure as exc:  # the request or its tab went away meanwhile
            log.debug("route answer for %s not delivered: %s", url, exc)

    def lines(self) -> list[str]:
        now = time.monotonic()
        return [p.line(now) for p in self.queue.values()]


async def answer(cdp: CdpSession, request_id: str, original_headers: dict[str, Any], action: str, *,
                 status: int | None, headers: dict[str, str] | None, body: str | None,
                 content_type: str | None, reason: str | None) -> None:
    if action == "fulfill":
        await cdp.send("Fetch.fulfillRequest", fulfill_params(request_id, status=status, headers=headers, body=body,
                                                               content_type=content_type))
    elif action == "abort":
        await cdp.send("Fetch.failRequest", {"requestId": request_id, "errorReason": reason or "Failed"})
    else:
        await cdp.send("Fetch.continueRequest", continue_params(request_id, original_headers, headers))


# -- the tools ------------------------------------------------------------------------


def _check_pattern(args: Args) -> None:
    try:
        glob_regex(args["pattern"])
    except ValueError as err:
        raise ToolError("bad-arg", str(err), field="pattern") from err


def _check_answer_fields(args: Args) -> None:
    action = args.get("action")
    wrong = {None: ANSWER_NAMES, "pause": ANSWER_NAMES, "fulfill": ("errorReason",),
             "abort": ("status", "body", "contentType", "headers"),
             "continue": ("status", "body", "contentType", "errorReason")}[action]
    for name in wrong:
        if args.get(name) is not None:
            what = f"action {action}" if action else "a listing (give id and action to answer)"
            raise ToolError("bad-arg", f"{name} does not go with {what}", field=name)


HEADERS = Param("headers", "object", "Headers: of the response for fulfill, set on the request for continue "
                "(an empty value removes one).")
STATUS = Param("status", "integer", "Response status for fulfill (default 200).", minimum=100, maximum=599)
BODY = Param("body", "string", "Response body for fulfill (text).", max_length=5_000_000)
CONTENT_TYPE = Param("contentType", "string", "Content-Type for fulfill (default: JSON if the body parses, else "
                     "text).", max_length=200)
REASON = Param("errorReason", "string", "Network error for abort.", enum=ABORT_REASONS)
ANSWER_FIELDS = (STATUS, HEADERS, BODY, CONTENT_TYPE, REASON)
ANSWER_NAMES = tuple(p.name for p in ANSWER_FIELDS)


def _string_headers(args: Args) -> dict[str, str] | None:
    headers = args.get("headers")
    if headers is None:
        return None
    for key, value in headers.items():
        if not isinstance(value, str):
            raise ToolError("bad-arg", f"headers.{key} must be a string", field=f"headers.{key}")
    return dict(headers)


@session_tool(
    "route", CAPABILITY,
    "Answer the session's requests whose URL matches `pattern` (a glob: ** anything, * anything but /, {a,b}): "
    "fulfill them with status, headers and body, abort them with a network error, continue them (headers "
    "changed), or pause them until route_queue answers. The newest matching route wins; routes cover every tab "
    "and end with the session.",
    params=(Param("pattern", "string", "URL glob, e.g. **/api/items*.", required=True, max_length=2000),
            Param("action", "string", "What matching requests get.", required=True, enum=ACTIONS),
            *ANSWER_FIELDS),
    rules=(Check(_check_pattern, "`pattern` is a valid glob"),
           Check(_check_answer_fields, "`status`, `body`, `contentType` go with fulfill; `errorReason` with abort; "
                 "`headers` with fulfill or continue")),
)
async def route(session: ChromiumSession, args: Args) -> Reply:
    routes = await Routes.of(session)
    if len(routes.routes) >= ROUTES_MAX:
        raise ToolError("too-large", f"a session holds at most {ROUTES_MAX} routes; unroute some first")
    added = Route(next(routes._route_ids), args["pattern"], args["action"], status=args.get("status"),
                  headers=_string_headers(args), body=args.get("body"), content_type=args.get("contentType"),
                  reason=args.get("errorReason"), regex=glob_regex(args["pattern"]))
    routes.routes.append(added)
    await _apply(session, routes)
    return Reply.of(route=added.describe(), routes=[r.describe() for r in routes.routes])


async def _apply(session: ChromiumSession, routes: Routes) -> None:
    assert session.wiring is not None
    await session.wiring.reapply(routes.setup)


@session_tool(
    "unroute", CAPABILITY,
    "Remove routes: the one with `id`, those with `pattern`, or all of them. Requests already paused stay in "
    "route_queue.",
    params=(Param("id", "integer", "Route id.", minimum=1, maximum=MAX_ID),
            Param("pattern", "string", "Remove the routes with this pattern.", max_length=2000)),
    rules=(AtMostOne(("id", "pattern")),),
)
async def unroute(session: ChromiumSession, args: Args) -> Reply:
    routes = await Routes.of(session)
    before = len(routes.routes)
    if args.get("id") is not None:
        if not any(r.id == args["id"] for r in routes.routes):
            raise ToolError("target-not-found", f"no route {args['id']} (routes: "
                            f"{[r.id for r in routes.routes] or 'none'})", field="id")
        routes.routes = [r for r in routes.routes if r.id != args["id"]]
    elif args.get("pattern") is not None:
        routes.routes = [r for r in routes.routes if r.pattern != args["pattern"]]
    else:
        routes.routes = []
    await _apply(session, routes)
    return Reply.of(removed=before - len(routes.routes), routes=[r.describe() for r in routes.routes])


@session_tool(
    "route_queue", CAPABILITY,
    "Requests paused by a route with action pause: without `id`, list them (`qN METHOD type url`); with `id` "
    "and `action`, answer that one (fulfill, abort or continue, with the same fields as route).",
    params=(Param("id", "integer", "Paused request id (qN is N).", minimum=1, maximum=MAX_ID),
            Param("action", "string", "How to answer it.", enum=("fulfill", "abort", "continue")),
            *ANSWER_FIELDS),
    rules=(Requires("id", ("action",)), Requires("action", ("id",)),
           Check(_check_answer_fields, "the answer's fields go with its action, as for route")),
)
async def route_queue(session: ChromiumSession, args: Args) -> Reply:
    routes = await Routes.of(session)
    if args.get("id") is None:
        return Reply.of(queue=routes.lines(), count=len(routes.queue), overflowed=routes.overflowed,
                        routes=[r.describe() for r in routes.routes])
    paused = routes.queue.pop(args["id"], None)
    if paused is None:
        raise ToolError("target-not-found", f"no paused request q{args['id']} (paused: "
                        f"{['q' + str(i) for i in routes.queue] or 'none'})", field="id")
    try:
        with trio.fail_after(10):
            await answer(paused.source, paused.request_id, paused.headers, args["action"], status=args.get("status"),
                         headers=_string_headers(args), body=args.get("body"),
                         content_type=args.get("contentType"), reason=args.get("errorReason"))
    except (CdpFailure, trio.TooSlowError) as err:
        raise ToolError("target-not-found", f"q{paused.id} can no longer be answered (its tab closed or the "
                        f"request was cancelled): {err}", field="id") from err
    return Reply.of(answered=f"q{paused.id}", action=args["action"], url=paused.url, queue=routes.lines(),
                    count=len(routes.queue))


TOOLS = [route, unroute, route_queue]
