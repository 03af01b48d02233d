"""The page agent is reachable by the page's own scripts, and grants them nothing.

The agent lives in the main world (one frozen, non-enumerable, non-writable property),
so a page can find it and call it. This proves what that is worth to the page: every
method, called with anything, reads the document (and ``aim`` may scroll it, as the page
could itself); none makes a request, opens a window, posts a message, writes storage or
cookies, dispatches an event, logs, or changes a node; the agent cannot be replaced or
patched; and nothing of the server's side is within reach (the human bridge's binding
lives only in the isolated world). Its answers go back to whoever called, so a page
that calls it learns only what it could read from its own DOM.
"""

from __future__ import annotations

from pathlib import Path

from browx_actors import RuntimeConfig, open_runtime
from browx_actors.sessions.chromium.agent.pageagent import AGENT_METHODS
from e2e_support import serve_pages


async def test_the_page_finds_the_agent_and_gets_nothing_it_could_not_do_itself(tmp_path: Path) -> None:
    config = RuntimeConfig.from_env({}, workspace=tmp_path, capabilities="eval")
    with serve_pages() as base:
        async with open_runtime(config=config, capabilities=["eval"]) as runtime:
            assert (await runtime.call_tool("navigate", {"url": f"{base}/agent_reach.html"}))["ok"]
            report = (await runtime.call_tool("eval_js", {"expr": "window.report"}))["value"]
            assert report["found"] == 1 and set(report["methods"]) == set(AGENT_METHODS)
            assert sum(report["calls"].values()) > 0  # it really ran them
            assert report["escapes"] == [], report
            assert report["mutations"] == [], report
            assert report["replaced"] is False and report["cookieChanged"] is False and report["storage"] == 0
            # The server's own use of the agent is unaffected.
            snapshot = (await runtime.call_tool("snapshot"))["snapshot"]
            assert 'button "Press"' in snapshot
            assert (await runtime.call_tool("click", {"selector": "#b"}))["ok"]
