"""The operator's origin policy in the browser, on both engines, over real stdio MCP.

With an allow list that holds only the first test origin, ``navigate`` to the second is
refused (``origin-blocked`` naming the origin and the rule), and a page of the first
origin that fetches from the second has that request blocked where the browser makes
it: the page sees a network error, and the call during which it happened says so
(``blockedRequests``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import trio

from e2e_support import browx_server, fails, ok


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


@pytest.mark.parametrize("engine", ["chromium", "firefox"])
async def test_the_allow_list_holds_in_navigate_and_in_the_pages_own_requests(
        engine: str, tmp_path: Path, pages_url: str, pages_url2: str) -> None:
    allowed, other = _origin(pages_url), _origin(pages_url2)
    async with browx_server(tmp_path / "ws", "", "--allowed-origins", allowed) as client:
        await ok(client, "open_session", {"session": "default", "engine": engine})
        refused = await fails(client, "navigate", {"url": f"{pages_url2}/e2e_app.html"}, "origin-blocked")
        assert refused["origin"] == other and allowed in refused["rule"] and refused["field"] == "url"

        await ok(client, "navigate", {"url": f"{pages_url}/origin_probe.html?to={pages_url2}/page_data.json"})
        told: list[dict[str, Any]] = []
        clicked = await ok(client, "click", {"selector": "#go"})
        told.append(clicked.get("blockedRequests") or {})
        waited = await ok(client, "wait_for", {"text": "error"})
        told.append(waited.get("blockedRequests") or {})
        assert sum(t.get("count", 0) for t in told) >= 1, told
        assert other in [origin for t in told for origin in t.get("origins", [])], told
        assert "reached" not in (await ok(client, "snapshot"))["snapshot"]  # the request never left
        quiet = await ok(client, "snapshot")
        assert "blockedRequests" not in quiet  # only the calls during which something was blocked say so


@pytest.mark.parametrize("engine", ["chromium", "firefox"])
async def test_a_pages_own_navigation_off_the_allow_list_is_blocked(
        engine: str, tmp_path: Path, pages_url: str, pages_url2: str) -> None:
    allowed, other = _origin(pages_url), _origin(pages_url2)
    async with browx_server(tmp_path / "ws", "", "--allowed-origins", allowed) as client:
        await ok(client, "open_session", {"session": "default", "engine": engine})
        await ok(client, "navigate", {"url": f"{pages_url}/origin_probe.html?to={pages_url2}/e2e_app.html"})
        clicked = await ok(client, "click", {"selector": "#away"})
        told = [clicked.get("blockedRequests") or {}]
        for _ in range(20):  # under load the navigation may be refused after the click's result
            if any(t.get("origins") for t in told):
                break
            await trio.sleep(0.25)
            told.append((await ok(client, "snapshot")).get("blockedRequests") or {})
        assert other in [origin for t in told for origin in t.get("origins", [])], (clicked, told)
        url = (await ok(client, "list_sessions"))["sessions"][0]["url"]
        assert not str(url).startswith(other), f"the link reached {url}"
