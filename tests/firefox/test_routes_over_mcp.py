"""Over real stdio MCP (the server in a subprocess): firefox routes. One session fulfills
and holds its requests while a second session's pass untouched, and closing the session
that holds a request leaves the other one's requests flowing."""

from __future__ import annotations

from pathlib import Path

import pytest

from e2e_support import browx_server, call, fails, ok
from ff_routes_support import queued, serve_routes_page

pytestmark = pytest.mark.firefox


async def test_firefox_routes_over_stdio(tmp_path: Path) -> None:
    with serve_routes_page() as page:
        async with browx_server(tmp_path / "ws", "network-control") as client:
            ff, ff2 = {"session": "ff"}, {"session": "ff2"}
            await ok(client, "open_session", {**ff, "engine": "firefox"})
            await ok(client, "open_session", {**ff2, "engine": "firefox"})
            for session in (ff, ff2):
                await ok(client, "navigate", {**session, "url": page})

            await ok(client, "route", {**ff, "pattern": "**/api/items?n=1", "action": "fulfill",
                                       "body": "mocked", "contentType": "text/plain"})
            await ok(client, "route", {**ff, "pattern": "**/api/items?n=2", "action": "pause"})
            await ok(client, "click", {**ff, "selector": "#get"})
            await ok(client, "wait_for", {**ff, "text": "call 1 got 200 mocked"})
            await ok(client, "click", {**ff, "selector": "#get"})
            held = await queued(lambda: ok(client, "route_queue", ff), 1)
            assert "/api/items?n=2 (route 2, " in held["queue"][0], held

            await ok(client, "click", {**ff2, "selector": "#get"})
            await ok(client, "wait_for", {**ff2, "text": 'call 1 got 200 {"from": "server", "routed": "none"}'})
            assert (await ok(client, "route_queue", ff2))["count"] == 0

            await ok(client, "route_queue", {**ff, "id": 1, "action": "abort"})
            await ok(client, "wait_for", {**ff, "text": "call 2 error TypeError"})

            # The session holding a request closes; the other one's requests still flow.
            await ok(client, "route", {**ff, "pattern": "**/api/items?n=3", "action": "pause"})
            await ok(client, "click", {**ff, "selector": "#get"})
            await queued(lambda: ok(client, "route_queue", ff), 1)
            await ok(client, "close_session", ff)
            await ok(client, "click", {**ff2, "selector": "#get"})
            await ok(client, "wait_for", {**ff2, "text": 'call 2 got 200 {"from": "server", "routed": "none"}'})
            await ok(client, "navigate", {**ff2, "url": page})
            await fails(client, "route_queue", {**ff2, "id": 1, "action": "continue"}, "target-not-found")

            denied = await call(client, "route", {**ff2, "pattern": "**", "action": "abort", "status": 500})
            assert denied["ok"] is False and denied["field"] == "status", denied
