"""A firefox session's routes and paused requests (capability ``network-control``),
which ``route``, ``unroute`` and ``route_queue`` change and read (:mod:`.route_tools`).

What a route does is chromium's (:mod:`...chromium.network.routes`): the newest matching
route wins; ``fulfill``, ``abort``, ``continue`` (headers changed) or ``pause`` until
``route_queue`` answers, in a queue of at most :data:`QUEUE_MAX` (a request that would
overflow it goes on, and is counted). The globs, the route records and the answers'
fields are chromium's own helpers; only the wire is BiDi's.

The operator's origin policy is judged here first: while it is active the session stays
in the interceptor, and a request of its tabs that leaves the policy fails
(``network.failRequest``) and is noted (:class:`~...blocked.BlockedRequests`).

The wire. While the session has routes it is a member of its connection's
:class:`~.intercept.Interceptor`, which hands it the blocked requests of its tabs and
frames (a tab opened later included: ownership is decided per request) and, as any
member may be asked to, other sessions' requests to continue. One task per session
(:meth:`Routes.serve`) answers them in order. A blocked request no route matches any
more (unrouted meanwhile) is continued. When the session ends, the requests it still
holds are continued before its user context goes, so none is left hanging.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import math
import time
from collections import OrderedDict
from collections.abc import Mapping
from typing import Protocol

import attrs
import trio

from ....bidi import BidiConnection, BidiFailure
from ....errors import ToolError
from ....jsonsafe import JsonObject, JsonValue
from ....origins import OriginPolicy
from ....tools.network import glob_regex
from ...blocked import BlockedRequests
from ...chromium.network.redact import redact_url
from ...chromium.network.route_rules import continue_params, fulfill_params
from ...chromium.network.routes import QUEUE_MAX, ROUTES_MAX, Route
from .books import resource_type
from .intercept import Interceptor

__all__ = ["QUEUE_MAX", "ROUTES_MAX", "Paused", "RouteHost", "Routes", "answer", "bidi_headers"]

log = logging.getLogger("browx_actors.firefox.routes")

#: The longest one answer to the browser may take.
ANSWER_SECONDS = 10.0


@attrs.define(eq=False)
class Paused:
    id: int
    #: BiDi's request id.
    request: str
    route: int
    method: str
    #: Redacted, as the network log keeps it.
    url: str
    type: str
    #: The request's own headers, unredacted: a continue sends them on.
    headers: dict[str, str]
    since: float

    def line(self, now: float) -> str:
        return f"q{self.id} {self.method} {self.type} {self.url} (route {self.route}, {now - self.since:.1f} s)"


class RouteHost(Protocol):
    """What routes need of the session: its connection's interceptor, its nursery, and
    whether a browsing context is one of its tabs or frames."""

    @property
    def interceptor(self) -> Interceptor: ...

    @property
    def bidi(self) -> BidiConnection: ...

    @property
    def nursery(self) -> trio.Nursery: ...

    def owns(self, context: str) -> bool: ...


def plain_headers(value: JsonValue) -> dict[str, str]:
    """BiDi's ``[{name, value: {type, value}}]`` as ``{name: value}`` (unredacted)."""
    out: dict[str, str] = {}
    for header in value if isinstance(value, list) else []:
        if isinstance(header, Mapping):
            raw = header.get("value")
            text = raw.get("value") if isinstance(raw, Mapping) else raw
            out[str(header.get("name"))] = str(text or "")
    return out


def bidi_headers(headers: list[JsonValue]) -> list[JsonValue]:
    """chromium's ``[{name, value}]`` (:mod:`...chromium.network.route_rules`) as BiDi's headers."""
    out: list[JsonValue] = []
    for header in headers:
        assert isinstance(header, Mapping)
        out.append({"name": str(header["name"]), "value": {"type": "string", "value": str(header["value"])}})
    return out


async def answer(bidi: BidiConnection, request: str, original: Mapping[str, str], action: str, *,
                 status: int | None, headers: dict[str, str] | None, body: str | None,
                 content_type: str | None) -> None:
    """Answer one blocked request: chromium's fields, on BiDi's commands.

    ``abort`` has no reason on BiDi (``network.failRequest`` takes none): the page sees
    Firefox's one network error, and :mod:`.route_tools` warns when a reason was asked.
    """
    if action == "fulfill":
        made = fulfill_params(request, status=status, headers=headers, body=body, content_type=content_type)
        listed = made["responseHeaders"]
        assert isinstance(listed, list)
        params: JsonObject = {"request": request, "statusCode": made["responseCode"],
                              "headers": bidi_headers(listed), "body": {"type": "base64", "value": made["body"]}}
        await bidi.send("network.provideResponse", params, timeout=ANSWER_SECONDS)
    elif action == "abort":
        await bidi.send("network.failRequest", {"request": request}, timeout=ANSWER_SECONDS)
    else:
        made = continue_params(request, original, headers)
        params = {"request": request}
        if "headers" in made:
            listed = made["headers"]
            assert isinstance(listed, list)
            params["headers"] = bidi_headers(listed)
        await bidi.send("network.continueRequest", params, timeout=ANSWER_SECONDS)


class Routes:
    """One session's routes and paused requests, and the task that answers its requests."""

    def __init__(self, host: RouteHost, policy: OriginPolicy | None = None) -> None:
        self.host = host
        #: The operator's origin policy: while active, the session is always in the interceptor.
        self.policy = policy or OriginPolicy()
        #: What the policy blocked, for the results of the calls it happened in.
        self.blocked = BlockedRequests()
        self.routes: list[Route] = []
        self.queue: OrderedDict[int, Paused] = OrderedDict()
        self.overflowed = 0
        self._route_ids = itertools.count(1)
        self._queue_ids = itertools.count(1)
        # Unbounded: the listener must not wait, and the browser bounds what it blocks.
        self._send, self._inbox = trio.open_memory_channel[tuple[JsonObject, bool]](math.inf)
        self._serving = False
        self._member = False
        self._closed = False

    # -- what the interceptor calls (the socket's reader: no waiting) ----------------

    def owns(self, context: str) -> bool:
        return not self._closed and self.host.owns(context)

    def take(self, params: JsonObject, *, owned: bool) -> None:
        self._send.send_nowait((params, owned))

    # -- what the tools call ---------------------------------------------------------

    async def installed(self) -> Routes:
        """These routes, with their serving task running (started on first use)."""
        if not self._serving:
            await self.host.nursery.start(self.serve)
        return self

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

    async def sync(self) -> None:
        """In the interceptor while there are routes, out of it when there are none (a
        session that does not route costs its requests nothing). Paused requests stay
        blocked either way, answerable by id."""
        interceptor = self.host.interceptor
        wanted = bool(self.routes) or self.policy.active
        if wanted and not self._member:
            await interceptor.join(self)
            self._member = True
        elif not wanted and self._member:
            self._member = False
            await interceptor.leave(self)

    def lines(self) -> list[str]:
        now = time.monotonic()
        return [p.line(now) for p in self.queue.values()]

    # -- serving -----------------------------------------------------------------------

    async def serve(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Answer the blocked requests handed over, in order, until the session ends;
        then let go of everything (:meth:`close`)."""
        self._serving = True
        task_status.started()
        try:
            async for params, owned in self._inbox:
                await self._blocked(params, owned)
        finally:
            with trio.CancelScope(shield=True):
                await self.close()

    async def close(self) -> None:
        """Leave the interceptor and continue every request still held or handed over:
        the session is ending (from its ``on_stop``, and again when its nursery goes)."""
        if self._closed:
            return
        self._closed = True
        with trio.move_on_after(ANSWER_SECONDS):
            if self._member:
                self._member = False
                await self.host.interceptor.leave(self)
            requests = [p.request for p in self.queue.values()]
            self.queue.clear()
            with contextlib.suppress(trio.WouldBlock):
                while True:
                    params, _owned = self._inbox.receive_nowait()
                    requests.append(str((params.get("request") or {}).get("request")))
            for request in requests:
                await self._let_go(request)

    async def _let_go(self, request: str) -> None:
        try:
            await self.host.bidi.send("network.continueRequest", {"request": request}, timeout=ANSWER_SECONDS)
        except BidiFailure as exc:  # the request or its tab went away meanwhile
            log.debug("continuing %s: %s", request, exc)

    async def _blocked(self, params: JsonObject, owned: bool) -> None:
        request = params.get("request") or {}
        request_id = str(request.get("request"))
        url = str(request.get("url", ""))
        refused = self.policy.refusal(url) if owned else None
        if refused is not None:
            self.blocked.note(refused[0])
            try:
                await self.host.bidi.send("network.failRequest", {"request": request_id}, timeout=ANSWER_SECONDS)
            except BidiFailure as exc:  # the request or its tab went away meanwhile
                log.debug("blocking %s: %s", redact_url(url), exc)
            return
        found = self.match(url) if owned and not self._closed else None
        if found is None:
            await self._let_go(request_id)
            return
        found.hits += 1
        if found.action == "pause":
            if len(self.queue) >= QUEUE_MAX:
                self.overflowed += 1
                await self._let_go(request_id)
                return
            paused = Paused(next(self._queue_ids), request_id, found.id, str(request.get("method", "GET")),
                            redact_url(url), resource_type(request), plain_headers(request.get("headers")),
                            time.monotonic())
            self.queue[paused.id] = paused
            return
        try:
            await answer(self.host.bidi, request_id, plain_headers(request.get("headers")), found.action,
                         status=found.status, headers=found.headers, body=found.body,
                         content_type=found.content_type)
        except BidiFailure as exc:  # the request or its tab went away meanwhile
            log.debug("route answer for %s not delivered: %s", redact_url(url), exc)

