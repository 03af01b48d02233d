"""A fleet's CDP endpoint (tests/fakes/fleet.py: a browser per websocket, a token in the
query): what it serves, how the server names its refusals, and sessions on a browser a
fleet started (without the server's launch flags), over real stdio MCP."""

from __future__ import annotations

import base64
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import trio

from browx_actors.cdp import CdpConnectionLost, open_cdp_connection
from e2e_support import browx_server, call, ok
from fakes.fleet import Fleet, fleet_chromium, run_fleet

pytestmark = pytest.mark.chromium

TOKEN = "fleet-token-0123456789"


async def test_the_fleet_starts_a_browser_per_socket_and_serves_it_by_id() -> None:
    async with trio.open_nursery() as nursery:
        fleet = await nursery.start(run_fleet, Fleet(TOKEN))
        async with open_cdp_connection(fleet.url) as first:
            assert "Chrome" in (await first.send("Browser.getVersion"))["product"]
            assert fleet.launched == 1 and len(fleet.running) == 1
            browser_id = next(iter(fleet.running))
            pinned = f"ws://127.0.0.1:{fleet.port}/devtools/browser/{browser_id}?token={TOKEN}"
            async with open_cdp_connection(pinned) as second:
                created = await second.send("Target.createTarget", {"url": "about:blank"})
                targets = (await first.send("Target.getTargets"))["targetInfos"]
                assert created["targetId"] in [t["targetId"] for t in targets]  # the same browser
            assert fleet.launched == 1
            async with open_cdp_connection(fleet.url) as third:
                await third.send("Browser.getVersion")
                assert fleet.launched == 2  # a new socket to the root: a new browser
        with pytest.raises(CdpConnectionLost, match="answered HTTP 401"):
            async with open_cdp_connection(fleet.url.replace(TOKEN, "nope")):
                pass
        assert all(urlsplit(path).path in ("/", "") or "/devtools/browser/" in path for path in fleet.paths)
        nursery.cancel_scope.cancel()


async def test_a_fleet_that_refuses_is_named_at_once(tmp_path: Path) -> None:
    async with trio.open_nursery() as nursery:
        fleet = await nursery.start(run_fleet, Fleet(TOKEN))
        async with browx_server(tmp_path / "ws") as client:
            with trio.fail_after(5):  # not a connect timeout: the answer is known at once
                refused = await call(client, "open_session", {
                    "session": "x", "cdpEndpoint": fleet.url.replace(TOKEN, "wrong-token-0123456789")})
            assert refused["ok"] is False and refused["code"] == "start-failed", refused
            assert "answered HTTP 401" in refused["error"] and "wrong-token" not in refused["error"], refused
            missing = await call(client, "open_session", {
                "session": "y", "cdpEndpoint": f"ws://127.0.0.1:{fleet.port}/devtools/browser/nope?token={TOKEN}"})
            assert "answered HTTP 404" in missing["error"] and TOKEN not in missing["error"], missing
            assert fleet.launched == 0
        nursery.cancel_scope.cancel()


async def test_sessions_on_a_browser_without_our_flags_keep_working_in_the_background(
        tmp_path: Path, pages_url: str) -> None:
    # A fleet's Chromium has none of the server's launch flags (no
    # --disable-renderer-backgrounding and the like): there, a tab behind another in its
    # window got no frames, and a screenshot of a session the agent had left waited 17 s
    # (60 s on a busier host) where the server's own Chromium answers at once.
    async with fleet_chromium() as endpoint, browx_server(tmp_path / "ws", "eval") as client:
        for name in ("one", "two"):
            await ok(client, "open_session", {"session": name, "cdpEndpoint": endpoint})
            await ok(client, "navigate", {"session": name, "url": f"{pages_url}/e2e_small.html"})
        for name in ("one", "two", "one", "two"):
            # A guard against the hang, not a speed target: 10 s is far from either.
            with trio.fail_after(10):
                image = await client.call_tool("screenshot", {"session": name})
            assert base64.b64decode(image.content[1].data)[:4] == b"\x89PNG"  # type: ignore[union-attr]
            await ok(client, "click", {"session": name, "selector": "text=Go"})
        # Reads and actions too, and a page the browser keeps in its back-forward cache
        # (ours has it off), which fires no load event when go_back restores it.
        for name in ("one", "two"):
            seen = await ok(client, "eval_js", {"session": name, "expr": "document.visibilityState"})
            assert seen["value"] == "visible", (name, seen)
            await ok(client, "click", {"session": name, "selector": "a"})
            await ok(client, "go_back", {"session": name})


async def test_cdp_headers_ride_every_socket_to_the_browser(tmp_path: Path, pages_url: str) -> None:
    async with trio.open_nursery() as nursery:
        fleet = await nursery.start(run_fleet, Fleet(TOKEN))
        # A browser the fleet runs, reached by its own address with the token in a header.
        async with open_cdp_connection(fleet.url):
            endpoint = f"ws://127.0.0.1:{fleet.port}/devtools/browser/{next(iter(fleet.running))}"
            header = ("--cdp-header", f"Authorization: Bearer {TOKEN}")
            async with browx_server(tmp_path / "ws", "", "--cdp-endpoint", endpoint, *header) as client:
                went = await ok(client, "navigate", {"url": f"{pages_url}/e2e_small.html"})
                assert went["title"] == "E2E small"
                image = await client.call_tool("screenshot", {})
                assert base64.b64decode(image.content[1].data)[:4] == b"\x89PNG"  # type: ignore[union-attr]
                assert TOKEN not in client.transcript.everything()  # type: ignore[attr-defined]
            assert fleet.launched == 1 and len(fleet.paths) >= 3  # the holder's, and ours: all to one browser
            async with browx_server(tmp_path / "ws2", "", "--cdp-endpoint", endpoint) as client:
                refused = await call(client, "navigate", {"url": f"{pages_url}/e2e_small.html"})
                assert refused["ok"] is False and "answered HTTP 401" in refused["error"], refused
        nursery.cancel_scope.cancel()
