"""End to end, through the real server over stdio MCP: a session attached to a browser
elsewhere (open_session {cdpEndpoint}) while another session uses the pool. It leases a
tab of its own, adopts only that tab's popups, never the browser's other tabs, and
closing it leaves the browser and those tabs as they were."""

from __future__ import annotations

from pathlib import Path

import pytest

from browx_actors.cdp import launch_chromium, open_cdp_connection
from e2e_support import browx_server, fails, ok, process_alive

pytestmark = pytest.mark.chromium


async def test_one_session_attaches_to_a_browser_elsewhere(tmp_path: Path, pages_url: str) -> None:
    async with launch_chromium() as remote, open_cdp_connection(remote.ws_url) as cdp:
        # The browser's owner has a tab of their own open.
        mine = (await cdp.send("Target.createTarget", {"url": f"{pages_url}/page_env.html?owner"}))["targetId"]
        async with browx_server(tmp_path / "ws", "eval") as client:
            opened = await ok(client, "open_session", {"session": "remote", "cdpEndpoint": remote.http_url})
            assert opened["cdpEndpoint"] == remote.http_url
            await ok(client, "navigate", {"url": f"{pages_url}/tabs_opener.html", "session": "remote"})
            await ok(client, "navigate", {"url": f"{pages_url}/e2e_small.html"})  # the pool's session

            sessions = {s["id"]: s for s in (await ok(client, "list_sessions"))["sessions"]}
            assert sessions["remote"]["attached"] == remote.http_url and sessions["default"]["attached"] is None
            pages = [t for t in (await cdp.send("Target.getTargets"))["targetInfos"] if t["type"] == "page"]
            assert any(t["url"].endswith("/tabs_opener.html") for t in pages)  # it drives that browser
            assert not any(t["url"].endswith("/e2e_small.html") for t in pages)  # the pool's is elsewhere

            # Only its own tab and the popups that opens are its tabs.
            tabs = await ok(client, "list_tabs", {"session": "remote"})
            assert [t["url"] for t in tabs["tabs"]] == [f"{pages_url}/tabs_opener.html"]
            popup = await ok(client, "click", {"selector": "a[target=_blank]", "session": "remote"})
            assert [t["id"] for t in popup["opened"]] == [2]
            await cdp.send("Target.createTarget", {"url": f"{pages_url}/page_env.html?owner-later"})
            tabs = await ok(client, "list_tabs", {"session": "remote"})
            assert [t["id"] for t in tabs["tabs"]] == [1, 2]
            assert "Opener" in (await ok(client, "snapshot", {"session": "remote"}))["snapshot"]
            assert (await ok(client, "eval_js", {"expr": "location.search", "session": "remote"}))["value"] == ""

            # A tab new_tab opens is the session's like the leased one: the agent is in
            # its documents from their start, as in the pool's context.
            page_env = f"{pages_url}/page_env.html?ours"
            fresh = await ok(client, "new_tab", {"url": page_env, "session": "remote"})
            assert fresh["tab"]["id"] == 3 and fresh["tab"]["current"] is True
            assert await value(client, "window.agentAtLoad", "remote") is True
            assert [t["id"] for t in (await ok(client, "list_tabs", {"session": "remote"}))["tabs"]] == [1, 2, 3]
            await ok(client, "navigate", {"url": page_env})
            assert await value(client, "window.agentAtLoad") is True

            # Closing the session closes its tabs and leaves the browser running.
            await ok(client, "close_session", {"session": "remote"})
            left = [t for t in (await cdp.send("Target.getTargets"))["targetInfos"] if t["type"] == "page"]
            assert mine in {t["targetId"] for t in left}
            assert not any("tabs_opener" in t["url"] or "tabs_child" in t["url"] or "?ours" in t["url"]
                           for t in left), left
            assert process_alive(remote.pid) and (await cdp.send("Browser.getVersion"))["product"]
            await ok(client, "snapshot")  # the pool's session is untouched

            unreachable = await fails(client, "open_session", {"session": "nowhere",
                                                               "cdpEndpoint": "http://127.0.0.1:1"}, "unavailable")
            assert unreachable["component"] == "browser"
            assert (await fails(client, "open_session", {"session": "x", "cdpEndpoint": "ftp://h"},
                                "bad-arg"))["field"] == "cdpEndpoint"

            # Its last tab closed, the blank tab in its place is the session's too.
            await ok(client, "open_session", {"session": "again", "cdpEndpoint": remote.http_url})
            replaced = await ok(client, "close_tab", {"session": "again"})
            assert replaced["replacedBy"] == 2
            await ok(client, "navigate", {"url": page_env, "session": "again"})
            assert await value(client, "window.agentAtLoad", "again") is True
            await ok(client, "close_session", {"session": "again"})
            left = [t for t in (await cdp.send("Target.getTargets"))["targetInfos"] if t["type"] == "page"]
            assert mine in {t["targetId"] for t in left} and not any("?ours" in t["url"] for t in left), left


async def value(client, expr: str, session: str = "default"):  # type: ignore[no-untyped-def]
    return (await ok(client, "eval_js", {"expr": expr, "session": session}))["value"]
