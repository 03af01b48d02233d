"""End to end, through the real server over stdio MCP: new_tab and close_tab, and
emulate, whose state covers every tab of the session (the ones opened later too)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp.client import Client

from e2e_support import browx_server, call, fails, ok

pytestmark = pytest.mark.chromium


async def env(client: Client) -> dict[str, Any]:
    value: dict[str, Any] = (await ok(client, "eval_js", {"expr": "window.env()"}))["value"]
    return value


async def value(client: Client, expr: str) -> Any:
    return (await ok(client, "eval_js", {"expr": expr}))["value"]


async def test_new_tab_close_tab_and_emulation_across_tabs(tmp_path: Path, pages_url: str) -> None:
    page = f"{pages_url}/page_env.html"
    async with browx_server(tmp_path / "ws", "eval") as client:
        await ok(client, "navigate", {"url": page})
        plain = await env(client)
        assert plain["light"] is True and plain["reduce"] is False

        state = await ok(client, "emulate", {"colorScheme": "dark", "reducedMotion": "reduce",
                                             "timezone": "Asia/Tokyo", "locale": "de-DE",
                                             "userAgent": "browx-test-agent/1.0"})
        assert state["emulation"] == {"colorScheme": "dark", "reducedMotion": "reduce", "timezone": "Asia/Tokyo",
                                      "locale": "de-DE", "userAgent": "browx-test-agent/1.0"}
        seen = await env(client)
        assert (seen["dark"], seen["reduce"], seen["timezone"], seen["locale"], seen["language"],
                seen["userAgent"]) == (True, True, "Asia/Tokyo", "de-DE", "de-DE", "browx-test-agent/1.0")

        # A new tab is current, gets the session's emulation, and loads its url.
        opened = await ok(client, "new_tab", {"url": page})
        assert opened["tab"] == {"id": 2, "url": page, "title": "Environment", "current": True, "crashed": False}
        assert opened["url"] == page and opened["status"] == 200
        assert [t["id"] for t in opened["tabs"]] == [1, 2]
        there = await env(client)
        assert there["dark"] is True and there["timezone"] == "Asia/Tokyo"
        assert "Console" not in (await ok(client, "snapshot"))["snapshot"]
        assert 'paragraph: dark' in (await ok(client, "snapshot"))["snapshot"]

        # null clears one field and leaves the others; {} reports.
        await ok(client, "emulate", {"colorScheme": None, "userAgent": None})
        cleared = await env(client)
        assert cleared["dark"] is False and cleared["reduce"] is True
        assert "browx-test-agent" not in cleared["userAgent"] and "Chrome" in cleared["userAgent"]
        report = await ok(client, "emulate", {})
        assert report["emulation"] == {"reducedMotion": "reduce", "timezone": "Asia/Tokyo", "locale": "de-DE"}
        assert report["changed"] == []

        # Geolocation with its permission; offline network; CPU slowdown.
        moved = await ok(client, "emulate", {"geolocation": {"latitude": 48.85, "longitude": 2.35}})
        assert any("geolocation permission" in w for w in moved["warnings"])
        granted = await ok(client, "emulate", {"permissions": ["geolocation"]})
        assert "warnings" not in granted
        assert await value(client, "window.permission('geolocation')") == "granted"
        assert await value(client, "window.position()") == {"latitude": 48.85, "longitude": 2.35}
        await ok(client, "emulate", {"network": "offline"})
        assert await value(client, "window.fetchOk()") is False
        assert await value(client, "navigator.onLine") is False
        # A new tab is offline from its first navigation (it is set up before it is used).
        offline_tab = await call(client, "new_tab", {"url": page})
        assert offline_tab.get("status") != 200, offline_tab
        await ok(client, "close_tab")
        await ok(client, "emulate", {"network": "slow-3g", "cpuSlowdown": 2})
        custom = await ok(client, "emulate", {"network": "custom",
                                              "networkConditions": {"latencyMs": 5, "downloadKbps": 10_000}})
        assert custom["emulation"]["networkConditions"] == {"latencyMs": 5, "downloadKbps": 10_000}
        assert await value(client, "window.fetchOk()") is True
        await ok(client, "emulate", {"network": None, "cpuSlowdown": None, "permissions": None, "geolocation": None})
        assert await value(client, "window.permission('geolocation')") == "prompt"

        # Refusals: declared rules, and what the browser refuses.
        assert (await fails(client, "emulate", {"network": "custom"}, "bad-arg"))["field"] == "networkConditions"
        assert (await fails(client, "emulate", {"colorScheme": "purple"}, "bad-arg"))["field"] == "colorScheme"
        assert (await fails(client, "emulate", {"geolocation": {"latitude": 100, "longitude": 0}},
                            "bad-arg"))["field"] == "geolocation.latitude"
        bad_zone = await fails(client, "emulate", {"timezone": "Mars/Olympus"}, "bad-arg")
        assert bad_zone["field"] == "timezone"
        assert (await ok(client, "emulate", {}))["emulation"]["timezone"] == "Asia/Tokyo"

        # close_tab: the current tab goes, the one before is current; the last one is
        # replaced by a blank tab, and the result says so.
        closed = await ok(client, "close_tab")
        assert closed["closed"] == 2 and closed["current"] == 1 and "replacedBy" not in closed
        last = await ok(client, "close_tab")
        assert last["closed"] == 1 and last["replacedBy"] == 4 and last["current"] == 4  # 3 was the offline tab
        assert last["tabs"] == [{"id": 4, "url": "about:blank", "title": "", "current": True, "crashed": False}]
        assert "was the session's last: blank tab 4 took its place" in last["warnings"][0]
        await ok(client, "navigate", {"url": page})
        assert (await env(client))["timezone"] == "Asia/Tokyo"  # the session's emulation holds
        bad = await fails(client, "new_tab", {"url": "ftp://example.com/"}, "bad-arg")
        assert bad["field"] == "url"
        blank = await ok(client, "new_tab", {})
        assert blank["tab"]["url"] == "about:blank" and blank["tab"]["current"] is True
