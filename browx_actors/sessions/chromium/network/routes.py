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
import re
import time
from collections import OrderedDict
from typing import TYPE_CHECKING

import attrs
import trio

from ....cdp import CdpFailure, CdpSubscription, TargetLink
from ....errors import ToolError
from ....jsonsafe import JsonObject
from ....tools import Reply
from ....tools.network import RouteArgs, RouteQueueArgs, UnrouteArgs, glob_regex
from .redact import redact_url
from .route_rules import continue_params, fetch_pattern, fulfill_params

if TYPE_CHECKING:
    from ..session import ChromiumSession

__all__ = ["QUEUE_MAX", "Routes", "route", "route_queue", "unroute"]

log = logging.getLogger("browx_actors.chromium.routes")

#: Requests a pause route holds at once.
QUEUE_MAX = 100
ROUTES_MAX = 100


@attrs.define(eq=False)
class Route:
    id: int
    pattern: str
    action: str
    #: The pattern as a regular expression over the whole URL.
    regex: re.Pattern[str]
    status: int | None = None
    headers: dict[str, str] | None = None
    body: str | None = None
    content_type: str | None = None
    reason: str | None = None
    hits: int = 0

    def describe(self) -> dict[str, object]:
        out: dict[str, object] = {"id": self.id, "pattern": self.pattern, "action": self.action, "hits": self.hits}
        if self.status is not None:
            out["status"] = self.status
        if self.reason is not None:
            out["errorReason"] = self.reason
        return out


@attrs.define(eq=False)
class Paused:
    id: int
    request_id: str
    source: TargetLink
    route: int
    method: str
    #: Redacted, as the network log keeps it.
    url: str
    type: str
    headers: JsonObject
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
        self._installed = False

    async def installed(self) -> Routes:
        """These routes, added to every tab's setup on first use (a session that never
        routes pays nothing on its tabs)."""
        if not self._installed:
            assert self.session.wiring is not None
            await self.session.wiring.add_setup(self.setup)
            self._installed = True
        return self

    def match(self, url: str) -> Route | None:
        return next((r for r in reversed(self.routes) if r.regex.match(url)), None)

    # -- every event session ------------------------------------------------------------

    async def setup(self, cdp: TargetLink, kind: str) -> None:
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

    async def _serve(self, cdp: TargetLink, events: CdpSubscription) -> None:
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

    async def _paused(self, cdp: TargetLink, params: JsonObject) -> None:
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


async def answer(cdp: TargetLink, request_id: str, original_headers: JsonObject, action: str, *,
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


def _string_headers(headers: JsonObject | None) -> dict[str, str] | None:
    """The ``headers`` argument, each value a string (the schema checks it is an object only)."""
    if headers is None:
        return None
    for key, value in headers.items():
        if not isinstance(value, str):
            raise ToolError("bad-arg", f"headers.{key} must be a string", field=f"headers.{key}")
    return dict(headers)


async def route(session: ChromiumSession, args: RouteArgs) -> Reply:
    routes = await session.routes.installed()
    if len(routes.routes) >= ROUTES_MAX:
        raise ToolError("too-large", f"a session holds at most {ROUTES_MAX} routes; unroute some first")
    added = Route(next(routes._route_ids), args.pattern, args.action, glob_regex(args.pattern), status=args.status,
                  headers=_string_headers(args.headers), body=args.body, content_type=args.content_type,
                  reason=args.error_reason)
    routes.routes.append(added)
    await _apply(session, routes)
    return Reply.of(route=added.describe(), routes=[r.describe() for r in routes.routes])


async def _apply(session: ChromiumSession, routes: Routes) -> None:
    assert session.wiring is not None
    await session.wiring.reapply(routes.setup)


async def unroute(session: ChromiumSession, args: UnrouteArgs) -> Reply:
    routes = await session.routes.installed()
    before = len(routes.routes)
    if args.id is not None:
        if not any(r.id == args.id for r in routes.routes):
            raise ToolError("target-not-found", f"no route {args.id} (routes: "
                            f"{[r.id for r in routes.routes] or 'none'})", field="id")
        routes.routes = [r for r in routes.routes if r.id != args.id]
    elif args.pattern is not None:
        routes.routes = [r for r in routes.routes if r.pattern != args.pattern]
    else:
        routes.routes = []
    await _apply(session, routes)
    return Reply.of(removed=before - len(routes.routes), routes=[r.describe() for r in routes.routes])


async def route_queue(session: ChromiumSession, args: RouteQueueArgs) -> Reply:
    routes = await session.routes.installed()
    if args.id is None:
        return Reply.of(queue=routes.lines(), count=len(routes.queue), overflowed=routes.overflowed,
                        routes=[r.describe() for r in routes.routes])
    action = args.action
    assert action is not None  # the rules: an id comes with its action
    paused = routes.queue.pop(args.id, None)
    if paused is None:
        raise ToolError("target-not-found", f"no paused request q{args.id} (paused: "
                        f"{['q' + str(i) for i in routes.queue] or 'none'})", field="id")
    try:
        with trio.fail_after(10):
            await answer(paused.source, paused.request_id, paused.headers, action, status=args.status,
                         headers=_string_headers(args.headers), body=args.body,
                         content_type=args.content_type, reason=args.error_reason)
    except (CdpFailure, trio.TooSlowError) as err:
        raise ToolError("target-not-found", f"q{paused.id} can no longer be answered (its tab closed or the "
                        f"request was cancelled): {err}", field="id") from err
    return Reply.of(answered=f"q{paused.id}", action=action, url=paused.url, queue=routes.lines(),
                    count=len(routes.queue))


