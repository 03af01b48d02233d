"""Every tab of a session is wired the same way, whoever opened it: one event session
per tab (shared by the recorder, the human bridge and routes), the bridge's world in it,
and a prompt answered from that tab's world (real Chromium, through the runtime)."""

from __future__ import annotations

import json
from pathlib import Path

import trio

from browx_actors import RuntimeConfig, open_runtime
from browx_actors.demo import serve_directory
from e2e_support import session_actor
from polling import poll_until

PAGES = Path(__file__).parents[1] / "pages"


async def test_new_tabs_and_popups_get_one_event_session_and_the_bridge_world(tmp_path: Path) -> None:
    with serve_directory(PAGES) as base:
        config = RuntimeConfig.from_env({"BROWX_CAPABILITIES": "eval"}, workspace=tmp_path)
        async with open_runtime(config=config, capabilities=["eval"]) as runtime:
            await runtime.call_tool("navigate", {"url": f"{base}/tabs_opener.html"})
            popup = await runtime.call_tool("click", {"selector": "a[target=_blank]"})
            assert popup["opened"][0]["id"] == 2, popup
            opened = await runtime.call_tool("new_tab", {"url": f"{base}/human_second.html"})
            assert opened["ok"] and opened["tab"]["id"] == 3, opened
            session = await session_actor(runtime)
            bridge = session.human
            tabs = list(session.tabs)
            assert [t.id for t in tabs] == [1, 2, 3]
            for tab in tabs:
                # The bridge serves the tab's own event session: nothing attached twice.
                with trio.fail_after(15):
                    await bridge.wait_until(lambda tab=tab: bridge.world_context(tab.target_id) is not None)
                assert bridge.targets[tab.target_id].cdp is tab.events
                assert tab.cdp is not tab.events and tab.cdp.connection is not tab.events.connection

            # A prompt is answered from the world in the tab new_tab opened.
            third = tabs[2]
            async with trio.open_nursery() as nursery:
                answer: dict[str, object] = {}

                async def ask() -> None:
                    answer.update(await runtime.call_tool("await_human", {"kind": "confirm", "prompt": "Go?"}))

                nursery.start_soon(ask)
                await poll_until(lambda: bridge.desk.prompts(), interval=0.01, timeout=15)
                ticket = bridge.desk.prompts()[0].ticket
                reply = await third.events.send("Runtime.evaluate", {
                    "expression": f"__browx.confirm(true, {json.dumps(ticket)})",
                    "contextId": bridge.world_context(third.target_id), "returnByValue": True})
                assert reply["result"]["value"] is True
            assert answer == {"ok": True, "kind": "confirm", "value": True, "timedOut": False}

            # A closed tab's records go with it; the others keep theirs.
            await runtime.call_tool("close_tab", {"tab": 2})
            await poll_until(lambda: tabs[1].target_id not in session.wiring._sessions, interval=0.01, timeout=15)
            assert session.events.commits(tabs[0].target_id) >= 1
