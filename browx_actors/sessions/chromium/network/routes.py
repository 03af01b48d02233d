"""The session's routes (capability ``network-control``), which ``route``, ``unroute`` and
``route_queue`` change and read (:mod:`.handlers`).

The operator's origin policy is judged here too, before any route: while it is active
every request of the session pauses, and one that leaves the policy fails with
``BlockedByClient`` and is noted (:class:`~...blocked.BlockedRequests`).

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
from typing import TYPE_CHECKING, Protocol

import attrs
import trio

from ....cdp import CdpFailure, CdpSubscription, TargetLink
from ....errors import ToolError
from ....jsonsafe import JsonObject
from ....origins import OriginPolicy
from ....tools.network import glob_regex
from ...blocked import BlockedRequests
from .redact import redact_url
from .route_rules import continue_params, fetch_pattern, fulfill_params

if TYPE_CHECKING:
    from ..tabs.wiring import TargetWiring

__all__ = ["QUEUE_MAX", "ROUTES_MAX", "Route", "RouteHost", "Routes", "answer"]

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


class RouteHost(Protocol):
    """What routes need of the session: its tabs' wiring (made when it starts) and its nursery."""

    @property
    def wiring(self) -> TargetWiring | None: ...

    @property
    def nursery(self) -> trio.Nursery: ...


class Routes:
    """One session's routes and paused requests, and the Fetch handling on its tabs."""

    def __init__(self, host: RouteHost, policy: OriginPolicy | None = None) -> None:
        self.host = host
        #: The operator's origin policy: while active, every request pauses here and is judged first.
        self.policy = policy or OriginPolicy()
        #: What the policy blocked, for the results of the calls it happened in.
        self.blocked = BlockedRequests()
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
            assert self.host.wiring is not None
            await self.host.wiring.add_setup(self.setup)
            self._installed = True
        return self

    async def reapply(self) -> None:
        """The routes as they are now, on every tab's event session."""
        assert self.host.wiring is not None
        await self.host.wiring.reapply(self.setup)

    def add(self, pattern: str, action: str, *, status: int | None, headers: dict[str, str] | None,
            body: str | None, content_type: str | None, reason: str | None) -> Route:
        """A new route, last: it wins over the older ones that match too."""
        if len(self.routes) >= ROUTES_MAX:
            raise ToolError("too-large", f"a session holds at most {ROUTES_MAX} routes; unroute some first")
        added = Route(next(self._route_ids), pattern, action, glob_regex(pattern), status=status, headers=headers,
                      body=body, content_type=content_type, reason=reason)
        self.routes.append(added)
        return added

    def match(self, url: str) -> Route | None:
        return next((r for r in reversed(self.routes) if r.regex.match(url)), None)

    # -- every event session ------------------------------------------------------------

    async def setup(self, cdp: TargetLink, kind: str) -> None:
        """Fetch on (with the routes' patterns) or off on one event session."""
        if not self.routes and not self.policy.active:
            await cdp.send("Fetch.disable")
            return
        patterns = ["*"] if self.policy.active else sorted({fetch_pattern(r.pattern) for r in self.routes})
        if cdp.session_id not in self._served:
            # Subscribed before Fetch is on, so no paused request slips past unanswered.
            self._served.add(cdp.session_id)
            self.host.nursery.start_soon(self._serve, cdp, cdp.subscribe(methods=("Fetch.requestPaused",),
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
        refused = self.policy.refusal(url)
        found = None if refused is not None else self.match(url)
        try:
            if refused is not None:
                self.blocked.note(refused[0])
                await cdp.send("Fetch.failRequest", {"requestId": request_id, "errorReason": "BlockedByClient"})
                return
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
