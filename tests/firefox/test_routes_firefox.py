"""Routes on firefox (route, unroute, route_queue), through the library API on real
headless Firefox: a fulfilled fetch the page shows, an aborted one the page sees fail,
a header the server sees, a paused request answered from the queue, routes on a tab
opened later, unroute letting requests through, and a second session untouched."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from browx_actors.sessions.firefox.records import routes as firefox_routes
from ff_records_support import fails, firefox_runtime, ok
from ff_routes_support import queued, serve_routes_page

pytestmark = pytest.mark.firefox

CAPABILITIES = "eval,network-control"
NETWORK_ERROR = "error TypeError: NetworkError when attempting to fetch resource."


@pytest.fixture
def page() -> Iterator[str]:
    with serve_routes_page() as url:
        yield url


async def get(rt: Any, call: int, expect: str, session: str = "ff") -> None:
    """Click Get and wait for the page to show what call ``call`` got."""
    await ok(rt, "click", {"selector": "#get"}, session=session)
    await ok(rt, "wait_for", {"text": f"call {call} "}, session=session)
    await ok(rt, "verify_text", {"selector": "#out", "text": f"call {call} {expect}", "exact": True},
             session=session)


async def test_fulfill_abort_continue_newest_wins_and_unroute(tmp_path: Path, page: str) -> None:
    async with firefox_runtime(tmp_path / "ws", CAPABILITIES) as rt:
        await ok(rt, "navigate", {"url": page})
        await get(rt, 1, 'got 200 {"from": "server", "routed": "none"}')

        fulfilled = await ok(rt, "route", {"pattern": "**/api/items?*", "action": "fulfill", "status": 201,
                                           "body": '{"from": "route"}'})
        assert fulfilled["route"] == {"id": 1, "pattern": "**/api/items?*", "action": "fulfill", "hits": 0,
                                      "status": 201}
        await get(rt, 2, 'got 201 {"from": "route"}')

        # The newest matching route wins: abort over fulfill; the page sees a network error.
        aborted = await ok(rt, "route", {"pattern": "**/api/*", "action": "abort", "errorReason": "BlockedByClient"})
        assert aborted["route"]["id"] == 2
        assert any("errorReason BlockedByClient" in w for w in aborted["warnings"]), aborted
        await get(rt, 3, NETWORK_ERROR)

        # continue with a header set: the server sees it and says so.
        await ok(rt, "route", {"pattern": "**/api/items*", "action": "continue", "headers": {"X-Routed": "yes"}})
        await get(rt, 4, 'got 200 {"from": "server", "routed": "yes"}')
        listed = await ok(rt, "route_queue")
        assert [r["hits"] for r in listed["routes"]] == [1, 1, 1] and listed["queue"] == []

        # A tab opened later is routed too.
        await ok(rt, "new_tab", {"url": page})
        await get(rt, 1, 'got 200 {"from": "server", "routed": "yes"}')
        await ok(rt, "close_tab")

        # unroute by id: the abort under it is the newest match again; then all go.
        assert (await ok(rt, "unroute", {"id": 3}))["removed"] == 1
        assert (await fails(rt, "unroute", {"id": 3}, "target-not-found"))["field"] == "id"
        await get(rt, 5, NETWORK_ERROR)
        assert (await ok(rt, "unroute", {"pattern": "**/api/*"}))["removed"] == 1
        await get(rt, 6, 'got 201 {"from": "route"}')
        cleared = await ok(rt, "unroute", {})
        assert cleared["removed"] == 1 and cleared["routes"] == []
        await get(rt, 7, 'got 200 {"from": "server", "routed": "none"}')

        # The declared rules hold here as on chromium.
        assert (await fails(rt, "route", {"pattern": "**", "action": "abort", "status": 200}, "bad-arg"))["field"] \
            == "status"
        assert (await fails(rt, "route", {"pattern": "{a,b", "action": "abort"}, "bad-arg"))["field"] == "pattern"
        assert (await fails(rt, "route_queue", {"id": 3}, "bad-arg"))["field"] == "action"


async def test_pause_answered_from_the_queue_and_other_sessions_untouched(tmp_path: Path, page: str) -> None:
    async with firefox_runtime(tmp_path / "ws", CAPABILITIES, sessions=("ff", "ff2")) as rt:
        await ok(rt, "navigate", {"url": page})
        await ok(rt, "navigate", {"url": page}, session="ff2")
        await ok(rt, "route", {"pattern": "**/api/items?*", "action": "pause"})

        await ok(rt, "click", {"selector": "#get"})
        queue = await queued(lambda: ok(rt, "route_queue"), 1)
        assert queue["overflowed"] == 0, queue
        assert queue["queue"][0].startswith("q1 GET fetch http://127.0.0.1:"), queue
        assert "/api/items?n=1 (route 1, " in queue["queue"][0]

        # The other session's requests pass while this one's wait (and its page loads).
        await get(rt, 1, 'got 200 {"from": "server", "routed": "none"}', session="ff2")
        await ok(rt, "navigate", {"url": page}, session="ff2")
        await get(rt, 1, 'got 200 {"from": "server", "routed": "none"}', session="ff2")
        assert (await ok(rt, "route_queue", session="ff2"))["count"] == 0

        answered = await ok(rt, "route_queue", {"id": 1, "action": "fulfill", "body": "held then answered"})
        assert answered["answered"] == "q1" and answered["count"] == 0 and answered["action"] == "fulfill"
        await ok(rt, "wait_for", {"text": "call 1 "})
        await ok(rt, "verify_text", {"selector": "#out", "text": "call 1 got 200 held then answered", "exact": True})
        assert (await fails(rt, "route_queue", {"id": 1, "action": "continue"}, "target-not-found"))["field"] == "id"

        # A request paused before unroute stays in the queue, answerable; later ones pass.
        await ok(rt, "click", {"selector": "#get"})
        await queued(lambda: ok(rt, "route_queue"), 1)
        await ok(rt, "unroute", {})
        assert (await ok(rt, "route_queue"))["queue"][0].startswith("q2 ")
        await ok(rt, "route_queue", {"id": 2, "action": "continue", "headers": {"X-Routed": "late"}})
        await ok(rt, "wait_for", {"text": "call 2 "})
        await ok(rt, "verify_text", {"selector": "#out", "exact": True,
                                     "text": 'call 2 got 200 {"from": "server", "routed": "late"}'})
        await get(rt, 3, 'got 200 {"from": "server", "routed": "none"}')


async def test_a_request_that_would_overflow_the_queue_goes_on(tmp_path: Path, page: str,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(firefox_routes, "QUEUE_MAX", 1)
    async with firefox_runtime(tmp_path / "ws", CAPABILITIES) as rt:
        await ok(rt, "navigate", {"url": page})
        await ok(rt, "route", {"pattern": "**/api/*", "action": "pause"})
        await ok(rt, "click", {"selector": "#get"})
        await queued(lambda: ok(rt, "route_queue"), 1)
        await get(rt, 2, 'got 200 {"from": "server", "routed": "none"}')
        queue = await ok(rt, "route_queue")
        assert queue["count"] == 1 and queue["overflowed"] == 1 and queue["routes"][0]["hits"] == 2, queue
