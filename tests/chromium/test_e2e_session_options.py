"""open_session's context options on real headless Chromium over stdio MCP, as the page
itself reads them: a device (viewport, pixel ratio, user agent, touch), locale, time
zone, user agent and colour scheme, and ignoreHttpsErrors against a self-signed page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp.client import Client

from e2e_support import browx_server, fails, ok
from https_support import MARKER, serve_https

pytestmark = pytest.mark.chromium

S = {"session": "opts"}
LOOK = ("({w: innerWidth, screen: screen.width, dpr: devicePixelRatio, ua: navigator.userAgent, "
        "touch: 'ontouchstart' in window, points: navigator.maxTouchPoints, env: window.env()})")


async def look(client: Client) -> dict[str, Any]:
    seen: dict[str, Any] = (await ok(client, "eval_js", {**S, "expr": LOOK}))["value"]
    return seen


async def test_a_device_gives_the_page_its_viewport_ratio_agent_and_touch(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval") as client:
        opened = await ok(client, "open_session", {**S, "device": "iPhone 15", "locale": "de-DE"})
        assert opened["device"] == "iPhone 15" and opened["isMobile"] is True and opened["hasTouch"] is True
        assert opened["viewport"] == {"width": 393, "height": 659} and opened["deviceScaleFactor"] == 3
        await ok(client, "navigate", {**S, "url": f"{pages_url}/page_env.html"})
        seen = await look(client)
        # A mobile viewport lays out a page without <meta name=viewport> 980 pixels wide.
        assert (seen["screen"], seen["w"], seen["dpr"], seen["touch"]) == (393, 980, 3, True), seen
        assert seen["points"] > 0 and "iPhone" in seen["ua"] and seen["env"]["locale"] == "de-DE", seen
        await ok(client, "navigate", {**S, "url": f"{pages_url}/bootstrap_fades.html"})  # has the meta tag
        assert (await ok(client, "eval_js", {**S, "expr": "innerWidth"}))["value"] == 393


async def test_explicit_arguments_win_and_the_page_reads_them(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval") as client:
        asked = {"device": "Pixel 7", "viewport": {"width": 600, "height": 500}, "userAgent": "browx-opts/1.0",
                 "locale": "fr-FR", "timezone": "Asia/Tokyo", "colorScheme": "dark"}
        opened = await ok(client, "open_session", {**S, **asked})
        assert {key: opened[key] for key in asked} == asked, opened
        await ok(client, "navigate", {**S, "url": f"{pages_url}/page_env.html"})
        seen = await look(client)
        env = seen["env"]
        assert (seen["screen"], seen["ua"], seen["touch"]) == (600, "browx-opts/1.0", True), seen
        assert (env["locale"], env["language"], env["timezone"], env["dark"]) == (
            "fr-FR", "fr-FR", "Asia/Tokyo", True), env


async def test_ignore_https_errors_lets_a_self_signed_page_load(tmp_path: Path) -> None:
    with serve_https(tmp_path / "tls") as url:
        async with browx_server(tmp_path / "ws", "eval") as client:
            await ok(client, "open_session", {"session": "strict"})
            refused = await fails(client, "navigate", {"session": "strict", "url": url}, "navigation-failed")
            assert "CERT" in refused["error"], refused
            await ok(client, "open_session", {**S, "ignoreHttpsErrors": True})
            await ok(client, "navigate", {**S, "url": url})
            text = (await ok(client, "eval_js", {**S, "expr": "document.body.innerText"}))["value"]
            assert MARKER in text


async def test_bad_device_and_misplaced_options_are_refused(tmp_path: Path) -> None:
    async with browx_server(tmp_path / "ws") as client:
        refused = await fails(client, "open_session", {**S, "device": "iPhone 1500"}, "bad-arg")
        assert refused["field"] == "device" and "iPhone 15" in refused["close"], refused
        refused = await fails(client, "open_session", {**S, "timezone": "Mars/Olympus"}, "bad-arg")
        assert refused["field"] == "timezone", refused
        refused = await fails(client, "open_session", {**S, "cdpEndpoint": "http://127.0.0.1:9", "locale": "de-DE"},
                              "bad-arg")
        assert refused["field"] == "locale", refused
        # Nothing opened: the id is free.
        await ok(client, "open_session", S)
