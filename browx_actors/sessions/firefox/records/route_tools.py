"""``route``, ``unroute`` and ``route_queue`` on firefox, over :class:`~.routes.Routes`.

Arguments, results and refusals are chromium's (:mod:`...chromium.network.handlers`),
so an agent's route calls read the same on either engine. One difference, said in a
warning where it shows: BiDi's ``network.failRequest`` takes no reason, so an abort
fails the request with Firefox's one network error whatever ``errorReason`` asked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import trio

from ....bidi import BidiFailure
from ....errors import ToolError
from ....tools import Reply
from ....tools.network import RouteArgs, RouteQueueArgs, UnrouteArgs
from ...chromium.network.handlers import string_headers
from ...chromium.network.route_rules import kept_routes, take_paused
from .routes import answer

if TYPE_CHECKING:
    from ..session import FirefoxSession

__all__ = ["NO_REASON", "route", "route_queue", "unroute"]

NO_REASON = ("Firefox fails an aborted request with its one network error (BiDi's network.failRequest takes no "
             "reason): errorReason {} is not what the page sees")


def _reason_warning(reply: Reply, action: str | None, reason: str | None) -> Reply:
    if action == "abort" and reason is not None and reason != "Failed":
        reply.warn(NO_REASON.format(reason))
    return reply


async def route(session: FirefoxSession, args: RouteArgs) -> Reply:
    routes = await session.routes.installed()
    added = routes.add(args.pattern, args.action, status=args.status, headers=string_headers(args.headers),
                       body=args.body, content_type=args.content_type, reason=args.error_reason)
    try:
        await routes.sync()
    except BaseException:
        routes.routes.remove(added)  # not in force: not listed either
        raise
    reply = Reply.of(route=added.describe(), routes=[r.describe() for r in routes.routes])
    return _reason_warning(reply, args.action, args.error_reason)


async def unroute(session: FirefoxSession, args: UnrouteArgs) -> Reply:
    routes = await session.routes.installed()
    before = len(routes.routes)
    routes.routes = kept_routes(routes.routes, args.id, args.pattern)
    await routes.sync()
    return Reply.of(removed=before - len(routes.routes), routes=[r.describe() for r in routes.routes])


async def route_queue(session: FirefoxSession, args: RouteQueueArgs) -> Reply:
    routes = await session.routes.installed()
    if args.id is None:
        return Reply.of(queue=routes.lines(), count=len(routes.queue), overflowed=routes.overflowed,
                        routes=[r.describe() for r in routes.routes])
    action = args.action
    assert action is not None  # the rules: an id comes with its action
    paused = take_paused(routes.queue, args.id)
    try:
        with trio.fail_after(10):
            await answer(session.bidi, paused.request, paused.headers, action, status=args.status,
                         headers=string_headers(args.headers), body=args.body, content_type=args.content_type)
    except (BidiFailure, trio.TooSlowError) as err:
        raise ToolError("target-not-found", f"q{paused.id} can no longer be answered (its tab closed or the "
                        f"request was cancelled): {err}", field="id") from err
    reply = Reply.of(answered=f"q{paused.id}", action=action, url=paused.url, queue=routes.lines(),
                     count=len(routes.queue))
    return _reason_warning(reply, action, args.error_reason)
