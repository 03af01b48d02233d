"""A fleet's CDP endpoint (tests/fakes/fleet.py: a browser per websocket, a token in the
query): what it serves, how the server names its refusals, sessions attached through its
root (one browser per attach, however many sockets a session would want), and sessions
on a browser a fleet started (without the server's launch flags), over real stdio MCP."""

from __future__ import annotations

import base64
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import trio

from browx_actors.cdp import CdpConnectionLost, open_cdp_connection
from e2e_support import browx_server, call, call_result, ok
from fakes.fleet import Fleet, fleet_chromium, run_fleet

pytestmark = pytest.mark.chromium

TOKEN = "fleet-token-0123456789"
READ_NAME = "document.querySelector('#name').value"


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


async def screenshot_png(client, session: str) -> bytes:  # type: ignore[no-untyped-def]
    image = await call_result(client, "screenshot", {"session": session})
    data = base64.b64decode(image.content[1].data)  # type: ignore[union-attr]
    assert data[:4] == b"\x89PNG", image.content[0]
    return data


async def test_each_attach_through_the_fleet_root_is_one_browser(tmp_path: Path, pages_url: str) -> None:
    # The fleet starts a browser for every socket: a session whose raw CDP, events and
    # Playwright each opened one drove three browsers, and never found its tab.
    async with trio.open_nursery() as nursery:
        fleet = await nursery.start(run_fleet, Fleet(TOKEN))
        log = tmp_path / "server.log"
        with log.open("w") as errlog:  # the server's log, read at the end
            async with browx_server(tmp_path / "ws", "eval", "--log-level", "DEBUG", errlog=errlog) as client:
                for name in ("one", "two"):
                    opened = await ok(client, "open_session", {"session": name, "cdpEndpoint": fleet.url})
                    assert TOKEN not in str(opened)
                assert fleet.launched == 2 and len(fleet.running) == 2  # a browser per attach
                for name in ("one", "two"):
                    url = f"{pages_url}/e2e_small.html?{name}"
                    went = await ok(client, "navigate", {"session": name, "url": url})
                    assert went["title"] == "E2E small"
                    await ok(client, "fill", {"session": name, "selector": "#name", "value": name})
                    await ok(client, "click", {"session": name, "selector": "text=Go"})
                    await ok(client, "eval_js", {"session": name, "expr": f"console.log('from-{name}')"})
                for name, other in (("one", "two"), ("two", "one")):
                    typed = await ok(client, "eval_js", {"session": name, "expr": READ_NAME})
                    assert typed["value"] == name
                    # The console comes from the event session, on the same socket.
                    console = str(await ok(client, "console_read", {"session": name}))
                    assert f"from-{name}" in console and f"from-{other}" not in console, console
                    await screenshot_png(client, name)
                await ok(client, "close_session", {"session": "one"})
                with trio.fail_after(10):
                    # The fleet ends a browser when its socket closes; nothing else tells.
                    while len(fleet.running) != 1:  # noqa: ASYNC110
                        await trio.sleep(0.05)
                await screenshot_png(client, "two")  # the other attach is untouched
                await ok(client, "close_session", {"session": "two"})
                assert fleet.launched == 2 and len(fleet.paths) == 2, fleet.paths  # one socket per attach, ever
                assert TOKEN not in client.transcript.everything()  # type: ignore[attr-defined]
        nursery.cancel_scope.cancel()
    assert "DEBUG" in (logged := log.read_text()) and TOKEN not in logged


async def test_the_server_attached_to_a_fleet_root_holds_one_browser_for_every_session(
        tmp_path: Path, pages_url: str) -> None:
    # --cdp-endpoint attaches the server's pool: every session shares its browser, and
    # the token rides a --cdp-header, never the URL.
    async with trio.open_nursery() as nursery:
        fleet = await nursery.start(run_fleet, Fleet(TOKEN))
        endpoint = f"ws://127.0.0.1:{fleet.port}/"
        header = ("--cdp-header", f"Authorization: Bearer {TOKEN}")
        log = tmp_path / "server.log"
        with log.open("w") as errlog:  # the server's log, read at the end
            async with browx_server(tmp_path / "ws", "", "--log-level", "DEBUG", "--cdp-endpoint", endpoint, *header,
                                    errlog=errlog) as client:
                for name in ("one", "two"):
                    await ok(client, "open_session", {"session": name})
                    went = await ok(client, "navigate", {"session": name, "url": f"{pages_url}/e2e_small.html"})
                    assert went["title"] == "E2E small"
                    await ok(client, "click", {"session": name, "selector": "text=Go"})
                    await screenshot_png(client, name)
                await ok(client, "close_session", {"session": "one"})
                await screenshot_png(client, "two")
                assert fleet.launched == 1 and len(fleet.paths) == 1, fleet.paths
                assert TOKEN not in client.transcript.everything()  # type: ignore[attr-defined]
        nursery.cancel_scope.cancel()
    assert "DEBUG" in (logged := log.read_text()) and TOKEN not in logged


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
            assert fleet.launched == 1 and len(fleet.paths) == 2, fleet.paths  # the holder's, and our one
            async with browx_server(tmp_path / "ws2", "", "--cdp-endpoint", endpoint) as client:
                refused = await call(client, "navigate", {"url": f"{pages_url}/e2e_small.html"})
                assert refused["ok"] is False and "answered HTTP 401" in refused["error"], refused
        nursery.cancel_scope.cancel()
