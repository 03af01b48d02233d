"""End to end, through the real server over stdio MCP: route, unroute and route_queue
(capability network-control) on a page that fetches JSON and an image."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from e2e_support import browx_server, call, fails, ok

pytestmark = pytest.mark.chromium


async def test_routes_fulfill_abort_continue_and_pause(tmp_path: Path, pages_url: str) -> None:
    page = f"{pages_url}/page_fetches.html"
    async with browx_server(tmp_path / "ws", "eval,network-control") as client:
        await ok(client, "navigate", {"url": page})
        fulfilled = await ok(client, "route", {"pattern": "**/page_data.json?*", "action": "fulfill",
                                               "body": json.dumps({"items": ["routed"], "note": "x"})})
        assert fulfilled["route"] == {"id": 1, "pattern": "**/page_data.json?*", "action": "fulfill", "hits": 0}
        aborted = await ok(client, "route", {"pattern": "**/*.png", "action": "abort",
                                             "errorReason": "BlockedByClient"})
        assert aborted["route"]["id"] == 2
        # continue with a header set: the server sees it (the page reads it back below).
        await ok(client, "route", {"pattern": "**/page_missing.json", "action": "continue",
                                   "headers": {"X-Routed": "yes"}})
        await ok(client, "click", {"selector": "#load"})
        await ok(client, "wait_for", {"text": "loaded 1"})
        await ok(client, "verify_text", {"selector": "#items", "text": "routed", "exact": True})
        assert await _value(client, "document.getElementById('pic').complete && "
                                    "document.getElementById('pic').naturalWidth") == 0
        requests = (await ok(client, "network_read", {"filter": "page_pixel"}))["requests"]
        assert "failed(net::ERR_BLOCKED_BY_CLIENT.Inspector, inspector)" in requests[-1], requests
        listed = await ok(client, "route_queue")
        assert [r["hits"] for r in listed["routes"]] == [1, 1, 1] and listed["queue"] == []

        # A tab opened later is routed as well (routes are the session's, on every tab).
        await ok(client, "new_tab", {"url": page})
        await ok(client, "click", {"selector": "#load"})
        await ok(client, "wait_for", {"text": "loaded 1"})
        await ok(client, "verify_text", {"selector": "#items", "text": "routed", "exact": True})
        assert "ERR_BLOCKED_BY_CLIENT" in (await ok(client, "network_read", {"filter": "page_pixel"}))["requests"][-1]
        assert [r["hits"] for r in (await ok(client, "route_queue"))["routes"]] == [2, 2, 2]
        await ok(client, "close_tab")

        # The newest matching route wins; a paused request waits for its answer.
        await ok(client, "route", {"pattern": "**/page_data.json?*", "action": "pause"})
        clicked = await ok(client, "click", {"selector": "#load"})
        assert any("still running" in w for w in clicked["warnings"]), clicked["warnings"]
        queue = await ok(client, "route_queue")
        assert queue["count"] == 1 and queue["queue"][0].startswith("q1 GET xhr http://"), queue
        assert "token=<redacted>&q=1 (route 4, " in queue["queue"][0]
        answered = await ok(client, "route_queue", {"id": 1, "action": "fulfill", "status": 200,
                                                   "body": '{"items": ["from", "the", "queue"]}'})
        assert answered["answered"] == "q1" and answered["count"] == 0
        await ok(client, "wait_for", {"text": "loaded 3"})
        again = await fails(client, "route_queue", {"id": 1, "action": "continue"}, "target-not-found")
        assert again["field"] == "id"

        # unroute: one by id, then the rest; the page goes back to the server.
        assert (await ok(client, "unroute", {"id": 4}))["removed"] == 1
        assert (await fails(client, "unroute", {"id": 4}, "target-not-found"))["field"] == "id"
        assert (await ok(client, "unroute", {}))["removed"] == 3
        await ok(client, "navigate", {"url": page})
        await ok(client, "click", {"selector": "#load"})
        await ok(client, "wait_for", {"text": "loaded 2"})

        # Declared rules.
        assert (await fails(client, "route", {"pattern": "**", "action": "abort", "status": 200},
                            "bad-arg"))["field"] == "status"
        assert (await fails(client, "route", {"pattern": "{a,b", "action": "abort"}, "bad-arg"))["field"] == \
            "pattern"
        assert (await fails(client, "route", {"pattern": "**", "action": "teleport"}, "bad-arg"))["field"] == \
            "action"
        assert (await fails(client, "route_queue", {"id": 3}, "bad-arg"))["field"] == "action"
        assert (await fails(client, "route_queue", {"status": 200}, "bad-arg"))["field"] == "status"


async def test_routes_need_the_network_control_capability(tmp_path: Path) -> None:
    async with browx_server(tmp_path / "ws", "") as client:
        for tool, args in (("route", {"pattern": "**", "action": "abort"}), ("unroute", {}), ("route_queue", {})):
            denied = await call(client, tool, args)
            assert denied["ok"] is False and denied["code"] == "capability-denied", denied
            assert denied["capability"] == "network-control"


async def _value(client, expr: str):  # type: ignore[no-untyped-def]
    return (await ok(client, "eval_js", {"expr": expr}))["value"]
