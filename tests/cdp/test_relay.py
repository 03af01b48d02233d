"""The Playwright relay (browx_actors/cdp/relay.py) on a real Chromium, with a websocket
client speaking CDP in Playwright's place: its root is the browser's, its ids its own,
our sessions are never announced to it, it is the only client, and it goes when the
relay or our socket goes."""

from __future__ import annotations

import json
from typing import Any

import pytest
import trio
from trio_websocket import ConnectionClosed, ConnectionRejected, WebSocketConnection, open_websocket_url

from browx_actors.cdp import CdpConnection, ChromiumProcess, open_cdp_connection
from browx_actors.cdp.relay import open_playwright_relay
from browx_actors.errors import ToolError
from browx_actors.sessions.chromium.attached import hold_attached_browser
from browx_actors.sessions.chromium.bridge.aiobridge import AsyncioThread
from browx_actors.sessions.chromium.bridge.driver import PlaywrightDriver
from cdp_fixtures import cdp, chromium, fake_peer  # noqa: F401  # fixtures

pytestmark = pytest.mark.chromium


async def ask(client: WebSocketConnection, message: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    """Send one command; its reply, the events before it kept in ``events``."""
    await client.send_message(json.dumps(message))
    with trio.fail_after(10):
        while True:
            answer = json.loads(await client.get_message())
            if answer.get("id") == message["id"]:
                return dict(answer)
            events.append(answer)


async def test_the_client_drives_the_browser_as_its_root_and_never_hears_of_ours(cdp: CdpConnection) -> None:  # noqa: F811
    async with open_playwright_relay(cdp) as url, open_websocket_url(url) as client:
        assert url.startswith("ws://127.0.0.1:")
        events: list[dict[str, Any]] = []
        version = await ask(client, {"id": -9999, "method": "Browser.getVersion"}, events)
        assert "Chrome" in version["result"]["product"] and "sessionId" not in version
        await ask(client, {"id": 1, "method": "Target.setAutoAttach",
                           "params": {"autoAttach": True, "waitForDebuggerOnStart": False, "flatten": True}}, events)
        created = await ask(client, {"id": 2, "method": "Target.createTarget", "params": {"url": "about:blank"}},
                            events)
        # Ours, on the socket's own root: attached and used alongside, never announced to it.
        our_page = await cdp.send("Target.createTarget", {"url": "about:blank"})
        link = await cdp.attach(our_page["targetId"])
        assert (await link.send("Runtime.evaluate", {"expression": "6*7"}))["result"]["value"] == 42
        await ask(client, {"id": 3, "method": "Browser.getVersion"}, events)
        announced = [e for e in events if e.get("method") == "Target.attachedToTarget"]
        mine = [e for e in announced if e["params"]["targetInfo"]["targetId"] == created["result"]["targetId"]]
        assert len(mine) == 1 and "sessionId" not in mine[0], announced  # as its root's
        assert link.session_id not in {e["params"]["sessionId"] for e in announced}
        # Its page session answers it under its own ids.
        page = mine[0]["params"]["sessionId"]
        value = await ask(client, {"id": 4, "sessionId": page, "method": "Runtime.evaluate",
                                   "params": {"expression": "1+1"}}, events)
        assert value["result"]["result"]["value"] == 2 and value["sessionId"] == page
        assert cdp.stats().unknown_replies == 0


async def test_one_client_at_its_path_only(cdp: CdpConnection) -> None:  # noqa: F811
    async with open_playwright_relay(cdp) as url:
        with pytest.raises(ConnectionRejected) as wrong_path:
            async with open_websocket_url(url.rsplit("/", 1)[0] + "/guess"):
                pass
        assert wrong_path.value.status_code == 404
        async with open_websocket_url(url) as client:
            await ask(client, {"id": 1, "method": "Browser.getVersion"}, [])
            with pytest.raises(ConnectionRejected) as second:
                async with open_websocket_url(url):
                    pass
            assert second.value.status_code == 409


async def test_the_client_goes_with_the_relay_and_with_our_socket(chromium: ChromiumProcess) -> None:  # noqa: F811
    async with open_cdp_connection(chromium.ws_url) as connection:
        async with open_playwright_relay(connection) as url, open_websocket_url(url) as client:
            await ask(client, {"id": 1, "method": "Browser.getVersion"}, [])
        with pytest.raises(ConnectionClosed):  # the relay closed it on its way out
            await client.get_message()
        assert (await connection.send("Browser.getVersion"))["product"]  # our socket lives on
        async with open_playwright_relay(connection) as url, open_websocket_url(url) as client:
            await ask(client, {"id": 1, "method": "Browser.getVersion"}, [])
            chromium.process.kill()  # the browser goes: our socket is lost, and the client's with it
            with trio.fail_after(10), pytest.raises(ConnectionClosed):
                while True:
                    await client.get_message()


async def test_what_the_body_raises_comes_out_as_itself(cdp: CdpConnection) -> None:  # noqa: F811
    # The attach raises "Playwright could not attach" from inside: not wrapped in a group.
    with pytest.raises(LookupError, match="inside"):
        async with open_playwright_relay(cdp):
            raise LookupError("inside")
    assert (await cdp.send("Browser.getVersion"))["product"]


async def test_an_endpoint_without_a_browser_session_is_refused_at_once_by_name() -> None:
    # The scripted peer answers CDP but not Target.attachToBrowserTarget, as an endpoint
    # that only proxies pages might: the attach says so, before Playwright is started.
    bridge = AsyncioThread()
    try:
        async with fake_peer() as (url, _), trio.open_nursery() as nursery:
            with trio.fail_after(5), pytest.raises(ToolError) as refused:
                await nursery.start(hold_attached_browser, url, PlaywrightDriver(bridge))
    finally:
        bridge._loop.close()
    assert refused.value.code == "unavailable", refused.value
    assert "Target.attachToBrowserTarget" in str(refused.value) and "wasn't found" in str(refused.value)
