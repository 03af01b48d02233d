"""Tabs on real headless Firefox over stdio MCP (tests/pages/tabs_opener.html).

A ``target=_blank`` link opens a tab the page owns: the click's result lists it under
``opened``, select_tab moves to it, and closing the session's last tab leaves a blank
one in its place.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from e2e_support import browx_server
from firefox_support import fails, ok, open_firefox

pytestmark = pytest.mark.firefox

S = {"session": "ff"}


async def test_a_blank_target_link_opens_a_tab_that_can_be_selected_and_closed(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws") as client:
        await open_firefox(client)
        await ok(client, "navigate", {**S, "url": f"{pages_url}/tabs_opener.html"})
        clicked = await ok(client, "click", {**S, "selector": "a[target=_blank]"})
        assert [t["tab"] for t in clicked.get("opened", [])] == [2], clicked
        # The opener stays current: opening a tab does not move the agent.
        assert (await ok(client, "list_tabs", S))["current"] == 1

        selected = await ok(client, "select_tab", {**S, "tab": 2})
        assert selected["tab"]["id"] == 2 and selected["tab"]["url"].endswith("/tabs_child.html"), selected
        await ok(client, "click", {**S, "selector": "button"})
        await ok(client, "verify_text", {**S, "selector": "#said", "text": "clicked in the child"})

        closed = await ok(client, "close_tab", {**S, "tab": 2})
        assert closed["closed"] == 2 and [t["id"] for t in closed["tabs"]] == [1], closed
        assert closed["current"] == 1
        await ok(client, "verify_text", {**S, "text": "Opener"})
        await fails(client, "select_tab", {**S, "tab": 2}, "target-not-found")


async def test_closing_the_last_tab_leaves_a_blank_one_in_its_place(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws") as client:
        await open_firefox(client)
        await ok(client, "navigate", {**S, "url": f"{pages_url}/tabs_child.html"})
        closed = await ok(client, "close_tab", S)
        assert closed["closed"] == 1 and closed["replacedBy"] == closed["current"] != 1, closed
        assert [t["id"] for t in closed["tabs"]] == [closed["current"]]
        assert any("last" in w for w in closed["warnings"]), closed
        listed = await ok(client, "list_tabs", S)
        assert [t["url"] for t in listed["tabs"]] == ["about:blank"], listed
        # The session goes on in the new tab.
        await ok(client, "navigate", {**S, "url": f"{pages_url}/tabs_opener.html"})
        await ok(client, "verify_text", {**S, "text": "Opener"})
